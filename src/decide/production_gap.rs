//! The production gap (issue 15 §4): why an engine doing 4,000 tok/s on a synthetic benchmark
//! may do 800 on production traffic (the glossary's example). A waterfall of six steps from a
//! **tuned** synthetic uniform benchmark in a saturated closed loop (`vllm bench serve` with fixed
//! lengths at the highest concurrency that fits, under the tuned engine profile: what vendors
//! publish) to production-like traffic, each a multiplicative factor computed by the analytic
//! model or the simulator, the product of the factors being the whole gap:
//!
//! 0. **Stock launch** (analytic, issue 25 §2): the same saturated closed loop under the
//!    engine's stock profile (its defaults, `physics::engine::Deployment::Stock`) over the tuned
//!    one; the steps after it run on the stock launch, what a buyer runs on day one. Exactly 1
//!    when the scenario's deployment is `stock` only in the sense that the chain still starts at
//!    the tuned benchmark: the step is tuned → stock whatever the scenario asks.
//! 1. **Length spread** (analytic, MODEL.md §4.1, §6.4): the saturated closed loop with lognormal
//!    lengths (the user's σ, or the Azure chat fit when the user's lengths are fixed) over the
//!    same loop with fixed lengths of the same means. Under static batching this is padding to
//!    the batch's longest prompt and output; under continuous batching the prefill stalls and
//!    mixed steps of long prompts, and fewer requests fitting the KV cache.
//! 2. **Arrivals** (simulated, §4.5 step 5, §6): open-loop arrivals instead of a saturated closed
//!    loop — Poisson, or bursty when the decision inputs' burstiness (the CV `c_a` of the gaps,
//!    `fields::BURSTINESS`) is not 1: Gamma gaps with that CV (§4.2 "Bursty arrivals", §6.4;
//!    vidur [S3]; the Azure conversation trace has CV ≈ 1.09, the code trace ≈ 13). The most
//!    output tok/s of an open-loop run that keeps up with its arrivals (`LoadPoint::saturated`:
//!    inside its measurement window it completes at least 95 % of the requests that arrived
//!    there) over the simulated closed loop at the same concurrency cap. Rates from 10 % to
//!    110 % of the analytic capacity in steps of 10 %, `GAP_OPEN_REQUESTS` requests a run.
//!    Capped at 1: an open loop cannot outrun the saturated closed loop, a small excess is
//!    sampling noise. Bursts queue (Kingman: the wait grows with `(c_a² + c_s²)/2`), and near
//!    capacity a bursty queue takes long to settle, so within a finite run a bursty open loop
//!    may fall behind at a lower rate; in the long run it keeps up with any rate below capacity
//!    (bursts cost waiting, not throughput) and its cost moves to step 3. Default scenario,
//!    arrivals factor (SLO factor) at 1,500 / 3,000 / 6,000 / 12,000 requests a run: Poisson
//!    0.65 (1.00) / 0.96 (1.00) / 1.00 (0.94) / 1.00 (0.92); CV 4 0.76 (0.92) / 0.98 (0.80) /
//!    0.89 (0.81) / 1.00 (0.70). At CV 4 the 90–110 % runs' backlog moves by hundreds of
//!    requests, near the 5 % test, and the sample's own rate drifts (0.96 of the offered over
//!    6,000 arrivals, 0.93 over 12,000), so the split between steps 2 and 3 moves while their
//!    product, the throughput that meets the SLO, holds (0.72 and 0.70). At a large CV a run
//!    holds few bursts and its own rate strays from the offered one (`rate_spread`); the note
//!    then calls the step rough.
//! 3. **SLO headroom** (simulated, the same open-loop runs): the load at which the P99 TTFT and
//!    P99 TPOT still meet the targets — the decision inputs' SLO where set, else MLPerf
//!    Inference's Llama 2 70B server constraints (P99 TTFT ≤ 2 s, P99 TPOT ≤ 200 ms) — over
//!    the level step 2 left (its open-loop figure, or the closed loop's where step 2's cap at 1
//!    holds), so steps 2 and 3 together come to the SLO-meeting throughput over the closed loop.
//!    Between the last passing and the first failing rate the throughput is interpolated
//!    linearly where the failing tail crosses its target.
//! 4. **Prefix-cache hit rate** (analytic, §1.5: `P_eff = (1 − h)·P`): the saturated closed loop
//!    with the scenario's hit rate over the same without (a synthetic benchmark's random prompts
//!    share no prefix). Above 1; exactly 1, with a note, when the scenario has no prefix caching.
//! 5. **Average utilization over a day**: a deployment is sized for its peak and diurnal traffic
//!    averages below it, so the tokens served per hour are the capacity times the mean
//!    utilization: the decision inputs' offered load (percent of capacity; in output tok/s, over
//!    the capacity after step 4), whose default is 50 %.
//!
//! Steps 1 and 4 compare analytic saturated loops and steps 2 and 3 simulated runs (each factor
//! a ratio of like with like), so no step carries the model–simulator difference.
//!
//! Pure and synchronous; the page runs the simulator one run per browser task (`GapStudy::runs`,
//! `GapStudy::run`, `GapStudy::finish`), `production_gap` does all at once.

use crate::model::evaluate;
use crate::scenario::fields::number_text;
use crate::scenario::{chat_sigmas, DecisionInput, LengthDist, LoadUnit, Scenario, ScenarioInput};
use crate::sim::load::{load_config, operating_point_config, LoadPoint};
use crate::sim::{simulate, Arrivals, SimConfig, SimConfigError, SimResult};

/// P99 TTFT target when the decision inputs set none: MLPerf Inference's Llama 2 70B server
/// scenario (v4.0 rules: TTFT ≤ 2 s and TPOT ≤ 200 ms at the 99th percentile).
pub const DEFAULT_TTFT_MS_P99: f64 = 2000.0;
/// P99 TPOT target when the decision inputs set none (the same MLPerf constraint).
pub const DEFAULT_TPOT_MS_P99: f64 = 200.0;
/// The percentile the SLO step holds (production SLOs are stated at P99).
pub const GAP_PERCENTILE: f64 = 99.0;
/// Open-loop rates, 10 % to 110 % of the analytic capacity in steps of 10 %.
pub const GAP_RATES: usize = 11;
/// Requests per open-loop run, four times the latency chart's `LOAD_REQUESTS`: near capacity a
/// short run ends before its queue settles, so whether it keeps up depends on its length.
/// Default scenario, Poisson arrivals factor at 1,500 / 3,000 / 4,000 / 4,500 / 6,000 / 12,000 /
/// 24,000 requests: 0.65 / 0.96 / 0.86 / 1.00 / 1.00 / 1.00 / 1.00 (`small_reference`: 0.84 /
/// 0.96 / 0.94 / 1.00 / 1.00 / 1.00 / 1.00). 4,500 is the first count of a run of long-run
/// values, 6,000 leaves a margin below it, and at CV 4 the throughput left after the SLO step
/// (arrivals × SLO factor) needs ~6,000 to come within 4 % of 12,000's (0.81 at 4,500, 0.72 at
/// 6,000, 0.70 at 12,000). Cost: 8–25 ms a run natively (release; the runs near capacity take
/// longest), ~180 ms for the 12, so the slowest browser task (one run) comes near 50 ms.
pub const GAP_OPEN_REQUESTS: u32 = 6000;
const RATE_FROM: f64 = 0.1;
const RATE_STEP: f64 = 0.1;
/// The glossary's example (`static/examples/glossary.html`): 4,000 tok/s synthetic, 800 in
/// production, the waterfall's reference line.
pub const GLOSSARY_SYNTHETIC_TOK_S: f64 = 4000.0;
pub const GLOSSARY_PRODUCTION_TOK_S: f64 = 800.0;

/// The waterfall's steps, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepId {
    Deployment,
    Lengths,
    Arrivals,
    Slo,
    PrefixCache,
    Utilization,
}

impl StepId {
    pub const ALL: [StepId; 6] = [
        StepId::Deployment,
        StepId::Lengths,
        StepId::Arrivals,
        StepId::Slo,
        StepId::PrefixCache,
        StepId::Utilization,
    ];

    /// `data-step` on the page.
    pub fn id(self) -> &'static str {
        match self {
            StepId::Deployment => "deployment",
            StepId::Lengths => "lengths",
            StepId::Arrivals => "arrivals",
            StepId::Slo => "slo",
            StepId::PrefixCache => "prefix-cache",
            StepId::Utilization => "utilization",
        }
    }

    /// The step's row label; the arrivals step's with Poisson arrivals (`GapStep::label` says
    /// which arrivals ran).
    pub fn label(self) -> &'static str {
        match self {
            StepId::Deployment => "Stock launch (engine defaults)",
            StepId::Lengths => "Length spread",
            StepId::Arrivals => "Poisson arrivals",
            StepId::Slo => "P99 SLO headroom",
            StepId::PrefixCache => "Prefix-cache hits",
            StepId::Utilization => "Average utilization over a day",
        }
    }
}

/// One step: its factor and what it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct GapStep {
    pub step: StepId,
    /// The row's label: `StepId::label`, but "Bursty arrivals (CV 4)" for bursty arrivals.
    pub label: String,
    /// Output tok/s after this step over before it.
    pub factor: f64,
    /// Output tok/s after this step.
    pub tok_s: f64,
    /// One sentence: what was compared.
    pub note: String,
}

/// The whole waterfall.
#[derive(Debug, Clone, PartialEq)]
pub struct ProductionGap {
    /// Output tok/s of the tuned synthetic benchmark (the deployment: every replica).
    pub synthetic_tok_s: f64,
    /// In `StepId::ALL` order.
    pub steps: Vec<GapStep>,
}

impl ProductionGap {
    /// The product of the factors.
    pub fn total_factor(&self) -> f64 {
        self.steps.iter().map(|s| s.factor).product()
    }

    /// Output tok/s on production-like traffic: the synthetic figure times every factor.
    pub fn production_tok_s(&self) -> f64 {
        self.synthetic_tok_s * self.total_factor()
    }
}

/// The decision inputs the waterfall reads: the SLO (with where it came from), the arrivals'
/// burstiness and the utilization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapTargets {
    pub ttft_ms_p99: f64,
    pub tpot_ms_p99: f64,
    /// The targets are the decision inputs' (else the MLPerf defaults).
    pub slo_from_user: bool,
    /// CV of the open loop's inter-arrival gaps: 1 is Poisson, else Gamma gaps.
    pub burstiness: f64,
    pub offered_load: f64,
    pub load_unit: LoadUnit,
}

impl GapTargets {
    /// The decision inputs' SLO targets (each one that is set), burstiness and offered load.
    pub fn of(decision: &DecisionInput) -> GapTargets {
        GapTargets {
            ttft_ms_p99: decision.slo_ttft_ms.unwrap_or(DEFAULT_TTFT_MS_P99),
            tpot_ms_p99: decision.slo_tpot_ms.unwrap_or(DEFAULT_TPOT_MS_P99),
            slo_from_user: decision.slo_ttft_ms.is_some() || decision.slo_tpot_ms.is_some(),
            burstiness: decision.burstiness,
            offered_load: decision.offered_load,
            load_unit: decision.load_unit,
        }
    }

    /// Poisson arrivals (a CV of exactly 1).
    pub fn poisson(&self) -> bool {
        self.burstiness == 1.0
    }

    /// The open loop at `rate_per_s`: Poisson, or Gamma gaps with the burstiness as their CV.
    fn arrivals(&self, rate_per_s: f64) -> Arrivals {
        if self.poisson() {
            Arrivals::Poisson { rate_per_s }
        } else {
            Arrivals::Gamma {
                rate_per_s,
                cv: self.burstiness,
            }
        }
    }

    /// The arrivals step's label: "Poisson arrivals", "Bursty arrivals (CV 4)", or for a CV
    /// below 1 (gaps more regular than Poisson) "Smooth arrivals (CV 0.5)".
    pub fn arrivals_label(&self) -> String {
        let cv = number_text(self.burstiness);
        if self.poisson() {
            StepId::Arrivals.label().to_string()
        } else if self.burstiness > 1.0 {
            format!("Bursty arrivals (CV {cv})")
        } else {
            format!("Smooth arrivals (CV {cv})")
        }
    }
}

/// The validated scenarios and analytic figures of a waterfall; the simulated steps wait for
/// the runs (`runs`, `run`, `finish`).
#[derive(Debug, Clone)]
pub struct GapStudy {
    pub targets: GapTargets,
    pub input_sigma: f64,
    pub output_sigma: f64,
    /// The σ are the user's (lognormal lengths), not the chat fit.
    pub sigmas_from_user: bool,
    /// Lognormal lengths, no prefix cache, at its highest feasible concurrency: what the
    /// simulator runs.
    production: Scenario,
    prefix_hit: f64,
    /// The tuned synthetic benchmark, and the same under the stock profile.
    tuned_tok_s: f64,
    synthetic_tok_s: f64,
    production_tok_s: f64,
    cached_tok_s: Option<f64>,
    capacity_per_s: f64,
}

/// A variant of `input` validated and moved to its highest feasible concurrency (the saturated
/// closed loop), with its analytic output tok/s.
fn saturated(input: ScenarioInput, what: &str) -> Result<(Scenario, f64), String> {
    let scenario =
        Scenario::try_from(input).map_err(|e| format!("{what}: {}: {}", e.field, e.message))?;
    let scenario = scenario.with_concurrency(crate::model::capacity::max_feasible(&scenario));
    let tok_s = evaluate(&scenario).output_tok_s;
    Ok((scenario, tok_s))
}

impl GapStudy {
    /// The study of a validated scenario: its means, settings and TP, with fixed and with
    /// lognormal lengths and with and without its prefix cache; `Err` says which variant does
    /// not validate.
    pub fn new(scenario: &Scenario, decision: &DecisionInput) -> Result<GapStudy, String> {
        let input = &scenario.input;
        let user_lognormal = input.length_dist == LengthDist::Lognormal
            && (input.input_sigma > 0.0 || input.output_sigma > 0.0);
        let (input_sigma, output_sigma) = if user_lognormal {
            (input.input_sigma, input.output_sigma)
        } else {
            chat_sigmas()
        };
        // TP pinned to what the scenario resolved, so no variant picks another configuration;
        // every variant after the first runs the stock launch.
        let base = ScenarioInput {
            tp: Some(f64::from(scenario.par.tp)),
            prefix_hit: 0.0,
            deployment: crate::physics::engine::Deployment::Stock,
            ..input.clone()
        };
        let synthetic = ScenarioInput {
            length_dist: LengthDist::Fixed,
            ..base.clone()
        };
        let tuned = ScenarioInput {
            deployment: crate::physics::engine::Deployment::Tuned,
            ..synthetic.clone()
        };
        let (_, tuned_tok_s) = saturated(tuned, "tuned benchmark")?;
        let production = ScenarioInput {
            length_dist: LengthDist::Lognormal,
            input_sigma,
            output_sigma,
            ..base
        };
        let (_, synthetic_tok_s) = saturated(synthetic, "fixed lengths")?;
        let (production_scenario, production_tok_s) =
            saturated(production.clone(), "lognormal lengths")?;
        let prefix_hit = input.prefix_hit;
        let cached_tok_s = if prefix_hit > 0.0 {
            let cached = ScenarioInput {
                prefix_hit,
                ..production
            };
            Some(saturated(cached, "prefix cache")?.1)
        } else {
            None
        };
        let capacity_per_s = evaluate(&production_scenario).requests_per_s;
        Ok(GapStudy {
            targets: GapTargets::of(decision),
            input_sigma,
            output_sigma,
            sigmas_from_user: user_lognormal,
            production: production_scenario,
            prefix_hit,
            tuned_tok_s,
            synthetic_tok_s,
            production_tok_s,
            cached_tok_s,
            capacity_per_s,
        })
    }

    /// The simulator runs, in the order `finish` takes their results: the closed loop at the
    /// concurrency cap, then the open loop (Poisson, or Gamma gaps with the burstiness as their
    /// CV) at `GAP_RATES` rates in increasing order, `GAP_OPEN_REQUESTS` requests each.
    pub fn runs(&self) -> Vec<SimConfig> {
        self.runs_with(GAP_OPEN_REQUESTS)
    }

    /// `runs` with `requests` per open-loop run (tests vary the run length).
    fn runs_with(&self, requests: u32) -> Vec<SimConfig> {
        let open = (0..GAP_RATES).map(|i| {
            let fraction = RATE_FROM + RATE_STEP * i as f64;
            let rate_per_s = self.capacity_per_s * fraction;
            SimConfig {
                arrivals: self.targets.arrivals(rate_per_s),
                requests,
                ..load_config(rate_per_s)
            }
        });
        std::iter::once(operating_point_config(self.production.concurrency))
            .chain(open)
            .collect()
    }

    /// One run on the lognormal, cache-less scenario.
    pub fn run(&self, config: &SimConfig) -> Result<SimResult, SimConfigError> {
        simulate(&self.production, config)
    }

    /// The waterfall from the runs' results (`runs` order); missing runs count as failed.
    pub fn finish(&self, results: &[SimResult]) -> ProductionGap {
        let runs = self.runs();
        let closed_tok_s = results.first().map_or(0.0, |r| r.output_tok_s);
        let open = open_points(&runs, results);
        let mut waterfall = Waterfall {
            synthetic_tok_s: self.tuned_tok_s,
            steps: Vec::with_capacity(StepId::ALL.len()),
        };
        self.push_deployment(&mut waterfall);
        self.push_lengths(&mut waterfall);
        let requests = runs.get(1).map_or(0, |config| config.requests);
        let stable_tok_s = self.push_arrivals(&mut waterfall, &open, closed_tok_s, requests);
        self.push_slo(&mut waterfall, &open, stable_tok_s.min(closed_tok_s));
        let capacity = self.push_prefix_cache(&mut waterfall);
        self.push_utilization(&mut waterfall, capacity);
        ProductionGap {
            synthetic_tok_s: self.tuned_tok_s,
            steps: waterfall.steps,
        }
    }

    /// Step 0: the stock launch over the tuned benchmark.
    fn push_deployment(&self, waterfall: &mut Waterfall) {
        waterfall.push(
            StepId::Deployment,
            StepId::Deployment.label().into(),
            ratio(self.synthetic_tok_s, self.tuned_tok_s),
            format!(
                "the engine at its defaults instead of a tuned benchmark: the stock profile's fitted knobs and default limits, both with fixed lengths in a saturated closed loop ({})",
                self.production
                    .profile
                    .describe()
                    .trim_start_matches("Engine profile: ")
            ),
        );
    }

    /// Step 1: lognormal lengths over fixed ones of the same means.
    fn push_lengths(&self, waterfall: &mut Waterfall) {
        let sigmas = format!(
            "lognormal σ {} / {}{}",
            self.input_sigma,
            self.output_sigma,
            if self.sigmas_from_user {
                ""
            } else {
                " (the chat fit)"
            }
        );
        waterfall.push(
            StepId::Lengths,
            StepId::Lengths.label().into(),
            ratio(self.production_tok_s, self.synthetic_tok_s),
            format!(
                "{sigmas} instead of fixed lengths of the same means, both in a saturated closed loop ({} in flight)",
                self.production.concurrency
            ),
        );
    }

    /// Step 2: the most an open loop of `requests` requests a run serves without falling
    /// behind, over the closed loop's `closed_tok_s` (capped at 1). Returns that most.
    fn push_arrivals(
        &self,
        waterfall: &mut Waterfall,
        open: &[LoadPoint],
        closed_tok_s: f64,
        requests: u32,
    ) -> f64 {
        let stable_tok_s = open
            .iter()
            .filter(|p| !p.saturated())
            .map(|p| p.output_tok_s)
            .fold(0.0, f64::max);
        let targets = &self.targets;
        let arrivals = if targets.poisson() {
            "Poisson arrivals".to_string()
        } else {
            format!(
                "arrivals with Gamma gaps of CV {} (Poisson is 1)",
                number_text(targets.burstiness)
            )
        };
        let spread = rate_spread(targets.burstiness, requests);
        let rough = if spread > ROUGH_RATE_SPREAD {
            format!(
                "; rough at this CV: a run's {requests} arrivals come at the offered rate ±{} % (one standard deviation)",
                trim(spread * 100.0)
            )
        } else {
            String::new()
        };
        waterfall.push(
            StepId::Arrivals,
            targets.arrivals_label(),
            ratio(stable_tok_s, closed_tok_s).min(1.0),
            format!("the most an open loop of {arrivals} serves without falling behind (simulated, 10–110 % of capacity), over the simulated saturated closed loop{rough}"),
        );
        stable_tok_s
    }

    /// Step 3: the SLO-meeting throughput of the open-loop runs over `level_tok_s`, the level
    /// the arrivals step left.
    fn push_slo(&self, waterfall: &mut Waterfall, open: &[LoadPoint], level_tok_s: f64) {
        let targets = &self.targets;
        let (slo_tok_s, slo_note) = slo_throughput(open, targets);
        let source = if targets.slo_from_user {
            "your targets".to_string()
        } else {
            "MLPerf Inference's server defaults".to_string()
        };
        waterfall.push(
            StepId::Slo,
            StepId::Slo.label().into(),
            // Over the level the arrivals step left, which its cap at 1 may hold below the open
            // loop's best: then the level after this step is the SLO-meeting throughput (relative
            // to the closed loop), not that times closed ÷ open.
            ratio(slo_tok_s, level_tok_s).min(1.0),
            format!(
                "the load at which P99 TTFT ≤ {} ms and P99 TPOT ≤ {} ms still hold ({source}){slo_note}",
                targets.ttft_ms_p99, targets.tpot_ms_p99
            ),
        );
    }

    /// Step 4: the prefix cache's hit rate (exactly 1 without one). Returns the capacity after it.
    fn push_prefix_cache(&self, waterfall: &mut Waterfall) -> f64 {
        match self.cached_tok_s {
            Some(cached) => waterfall.push(
                StepId::PrefixCache,
                StepId::PrefixCache.label().into(),
                ratio(cached, self.production_tok_s),
                format!(
                    "a prefix-cache hit rate of {} % prefills only {} % of each prompt (saturated closed loop, analytic)",
                    trim(self.prefix_hit * 100.0),
                    trim((1.0 - self.prefix_hit) * 100.0)
                ),
            ),
            None => waterfall.push(
                StepId::PrefixCache,
                StepId::PrefixCache.label().into(),
                1.0,
                "no prefix caching in this scenario (hit rate 0): a shared system prompt or document would raise throughput here".into(),
            ),
        }
    }

    /// Step 5: the average utilization over a day, the offered load against `capacity`.
    fn push_utilization(&self, waterfall: &mut Waterfall, capacity: f64) {
        let targets = &self.targets;
        let (utilization, how) = match targets.load_unit {
            LoadUnit::PercentOfCapacity => (
                targets.offered_load / 100.0,
                format!(
                    "the offered load, {} % of capacity",
                    trim(targets.offered_load)
                ),
            ),
            LoadUnit::OutputTokS => (
                ratio(targets.offered_load, capacity),
                format!(
                    "the offered load, {} output tok/s of {} the capacity above",
                    trim(targets.offered_load),
                    trim(capacity)
                ),
            ),
        };
        waterfall.push(
            StepId::Utilization,
            StepId::Utilization.label().into(),
            utilization.clamp(0.0, 1.0),
            format!("sized for the peak, traffic averages {how} over a day (Cost panel; 50 % unless set)"),
        );
    }
}

/// The waterfall's steps as they are built, each starting from the last one's tok/s.
struct Waterfall {
    synthetic_tok_s: f64,
    steps: Vec<GapStep>,
}

impl Waterfall {
    /// Add a step (a factor that is not a finite number counts as 0); returns its tok/s.
    fn push(&mut self, step: StepId, label: String, factor: f64, note: String) -> f64 {
        let factor = if factor.is_finite() {
            factor.max(0.0)
        } else {
            0.0
        };
        let before = self.steps.last().map_or(self.synthetic_tok_s, |s| s.tok_s);
        self.steps.push(GapStep {
            step,
            label,
            factor,
            tok_s: before * factor,
            note,
        });
        before * factor
    }
}

/// The open-loop runs' load points (every run after the first, the closed loop), each at its
/// offered rate.
fn open_points(runs: &[SimConfig], results: &[SimResult]) -> Vec<LoadPoint> {
    runs.iter()
        .zip(results)
        .skip(1)
        .map(|(config, result)| {
            let rate = match config.arrivals {
                Arrivals::Poisson { rate_per_s } | Arrivals::Gamma { rate_per_s, .. } => rate_per_s,
                Arrivals::Closed { .. } => 0.0,
            };
            LoadPoint::from_result(rate, result)
        })
        .collect()
}

/// Above this relative spread of a run's own arrival rate the arrivals step is called rough.
const ROUGH_RATE_SPREAD: f64 = 0.2;

/// The relative spread (coefficient of variation) of the mean arrival rate of a run of
/// `requests` arrivals whose gaps have CV `cv`: the sum of n independent Gamma gaps of shape
/// `k = 1/cv²` is Gamma of shape `n·k`, whose CV is `1/√(n·k) = cv/√n`. At the Azure code
/// trace's CV ≈ 13 (MODEL.md §4.2) and 1,500 requests that is ±34 % (`n·k` ≈ 9: the run is a
/// handful of bursts), over the waterfall's `GAP_OPEN_REQUESTS` ±17 %, so the run's own rate is
/// not the nominal one (`LoadPoint::saturated` judges a run against its own).
fn rate_spread(cv: f64, requests: u32) -> f64 {
    if requests == 0 {
        return f64::INFINITY;
    }
    cv / f64::from(requests).sqrt()
}

/// `a / b`, 0 when `b` is not a positive number.
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 && b.is_finite() && a.is_finite() {
        a / b
    } else {
        0.0
    }
}

/// "12.5", "50".
fn trim(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// Output tok/s at the highest load that meets the targets, and a note when none does or all
/// do. Walks the rates upward; at the first failing rate (a tail over its target, or the run
/// saturated) it interpolates between it and the rate before, where the failing tail crosses its
/// target (a saturation alone: the rate before).
fn slo_throughput(open: &[LoadPoint], targets: &GapTargets) -> (f64, String) {
    let tails = |p: &LoadPoint| {
        [
            (p.ttft.p99_ms, targets.ttft_ms_p99),
            (p.tpot.p99_ms, targets.tpot_ms_p99),
        ]
    };
    let passes = |p: &LoadPoint| !p.saturated() && tails(p).iter().all(|(v, t)| v <= t);
    let Some(first_fail) = open.iter().position(|p| !passes(p)) else {
        let best = open.iter().map(|p| p.output_tok_s).fold(0.0, f64::max);
        return (best, "; every simulated load meets them".into());
    };
    let (Some(before), Some(after)) = (
        first_fail.checked_sub(1).and_then(|i| open.get(i)),
        open.get(first_fail),
    ) else {
        return (0.0, "; even 10 % of capacity misses them".into());
    };
    let crossing = if after.saturated() {
        0.0
    } else {
        tails(before)
            .iter()
            .zip(tails(after))
            .filter(|(_, (v, t))| v > t)
            .map(|((v0, t), (v1, _))| {
                if v1 > *v0 {
                    ((t - v0) / (v1 - v0)).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
            .fold(1.0, f64::min)
    };
    (
        before.output_tok_s + crossing * (after.output_tok_s - before.output_tok_s),
        String::new(),
    )
}

/// The whole waterfall in one call (every simulator run in turn): for tests and tools.
pub fn production_gap(
    scenario: &Scenario,
    decision: &DecisionInput,
) -> Result<ProductionGap, String> {
    let study = GapStudy::new(scenario, decision)?;
    let results = study
        .runs()
        .iter()
        .map(|config| study.run(config).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(study.finish(&results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;

    fn gap(input: ScenarioInput, decision: &DecisionInput) -> ProductionGap {
        let scenario = Scenario::try_from(input).expect("valid");
        production_gap(&scenario, decision).expect("a waterfall")
    }

    /// The factors multiply to the total, the production figure is the synthetic one times their
    /// product, and each step's tok/s is the previous one's times its factor.
    fn assert_factors_chain(gap: &ProductionGap) {
        let product: f64 = gap.steps.iter().map(|s| s.factor).product();
        assert!((gap.total_factor() - product).abs() < 1e-12);
        assert!((gap.production_tok_s() - gap.synthetic_tok_s * product).abs() < 1e-6);
        let mut tok_s = gap.synthetic_tok_s;
        for step in &gap.steps {
            tok_s *= step.factor;
            assert!(
                (step.tok_s - tok_s).abs() < 1e-6 * tok_s.max(1.0),
                "{step:?}"
            );
            assert!(step.factor >= 0.0 && step.factor.is_finite(), "{step:?}");
        }
    }

    fn factor(gap: &ProductionGap, step: StepId) -> f64 {
        gap.steps
            .iter()
            .find(|s| s.step == step)
            .map(|s| s.factor)
            .expect("the step")
    }

    /// The factors multiply to the total: the production figure is the synthetic one times
    /// their product, and each step's tok/s is the previous one's times its factor.
    #[test]
    fn the_factors_multiply_to_the_total() {
        let gap = gap(ScenarioInput::default(), &DecisionInput::default());
        let ids: Vec<StepId> = gap.steps.iter().map(|s| s.step).collect();
        assert_eq!(ids, StepId::ALL.to_vec());
        assert_factors_chain(&gap);
        println!(
            "default scenario: {:.0} → {:.0} output tok/s ({:.3}×): {}",
            gap.synthetic_tok_s,
            gap.production_tok_s(),
            gap.total_factor(),
            gap.steps
                .iter()
                .map(|s| format!("{} {:.3}", s.step.id(), s.factor))
                .collect::<Vec<_>>()
                .join(", ")
        );
        // The default scenario has no prefix cache and the default offered load is 50 %; the
        // chain starts at the tuned benchmark and its first step is the stock launch, which is
        // slower (issue 25 §2).
        assert_eq!(factor(&gap, StepId::PrefixCache), 1.0);
        let stock = factor(&gap, StepId::Deployment);
        assert!(stock > 0.0 && stock < 1.0, "stock launch factor {stock}");
        assert_eq!(factor(&gap, StepId::Utilization), 0.5);
        assert!(gap.total_factor() < 0.5 && gap.total_factor() > 0.0);
    }

    /// The arrivals and SLO steps together come to the SLO-meeting throughput over the closed
    /// loop, whether or not the open loop's best (`stable`) beats the closed loop: the SLO step
    /// divides by the level the capped arrivals step left. The same runs, with the closed loop's
    /// figure replaced: far above everything (no cap), between the SLO load and `stable` (the
    /// cap holds), below both.
    #[test]
    fn arrivals_and_slo_steps_come_to_the_slo_throughput() {
        let scenario = Scenario::try_from(ScenarioInput::default()).expect("valid");
        let study = GapStudy::new(&scenario, &DecisionInput::default()).expect("a study");
        let results: Vec<SimResult> = study
            .runs()
            .iter()
            .map(|config| study.run(config).expect("runs"))
            .collect();
        let with_closed = |closed: f64| {
            let mut results = results.clone();
            results[0].output_tok_s = closed;
            let gap = study.finish(&results);
            (factor(&gap, StepId::Arrivals), factor(&gap, StepId::Slo))
        };
        let huge = 1e12;
        let (arrivals, slo) = with_closed(huge);
        let stable = arrivals * huge;
        let slo_tok_s = slo * stable;
        assert!(
            slo_tok_s < 0.99 * stable && slo_tok_s > 0.0,
            "the default SLO binds below the best stable load: {slo_tok_s} vs {stable}"
        );
        let between = 0.5 * (slo_tok_s + stable);
        let (arrivals, slo) = with_closed(between);
        assert_eq!(arrivals, 1.0, "the cap holds");
        assert!(
            (arrivals * slo - slo_tok_s / between).abs() < 1e-9,
            "arrivals × SLO = {} for SLO-meeting {slo_tok_s} over closed {between}",
            arrivals * slo
        );
        let (arrivals, slo) = with_closed(0.5 * slo_tok_s);
        assert_eq!((arrivals, slo), (1.0, 1.0));
    }

    /// MODEL.md §4.1: with lognormal lengths static batching loses several-fold to padding
    /// while continuous batching barely moves (the old synthetic-vs-production table's check).
    #[test]
    fn length_spread_costs_static_batching_far_more() {
        let decision = DecisionInput::default();
        let length = |batching: &str| {
            let scenario = Scenario::try_from(ScenarioInput {
                batching: Choice::parse(batching).expect("an id of the set"),
                length_dist: LengthDist::Fixed,
                ..ScenarioInput::small_reference()
            })
            .expect("valid");
            let study = GapStudy::new(&scenario, &decision).expect("study");
            assert!(!study.sigmas_from_user);
            assert_eq!((study.input_sigma, study.output_sigma), (0.99, 0.86));
            study.production_tok_s / study.synthetic_tok_s
        };
        let (continuous, stat) = (length("continuous"), length("static"));
        assert!(stat < 0.35, "static {stat:.3}");
        assert!(continuous > 0.7, "continuous {continuous:.3}");
    }

    /// A prefix cache raises throughput (factor above 1); tighter SLO targets lower the SLO
    /// step; an offered load in tok/s is read against the capacity.
    #[test]
    fn prefix_cache_slo_targets_and_utilization_move_their_steps() {
        let cached = gap(
            ScenarioInput {
                prefix_hit: 0.5,
                ..ScenarioInput::small_reference()
            },
            &DecisionInput::default(),
        );
        assert!(factor(&cached, StepId::PrefixCache) > 1.05, "{cached:?}");
        let loose = gap(ScenarioInput::small_reference(), &DecisionInput::default());
        let tight = gap(
            ScenarioInput::small_reference(),
            &DecisionInput {
                slo_ttft_ms: Some(150.0),
                slo_tpot_ms: Some(20.0),
                ..DecisionInput::default()
            },
        );
        assert!(
            factor(&tight, StepId::Slo) < factor(&loose, StepId::Slo),
            "tight {} vs loose {}",
            factor(&tight, StepId::Slo),
            factor(&loose, StepId::Slo)
        );
        assert!(tight.steps.iter().any(|s| s.note.contains("your targets")));
        let capacity = loose
            .steps
            .iter()
            .find(|s| s.step == StepId::PrefixCache)
            .map(|s| s.tok_s)
            .expect("step 4");
        let by_tok_s = gap(
            ScenarioInput::small_reference(),
            &DecisionInput {
                offered_load: capacity / 4.0,
                load_unit: LoadUnit::OutputTokS,
                ..DecisionInput::default()
            },
        );
        assert!((factor(&by_tok_s, StepId::Utilization) - 0.25).abs() < 1e-9);
    }

    /// Bursty arrivals (Gamma gaps, CV 4) queue more than Poisson ones, so the open loop falls
    /// behind at a load no higher than Poisson's: the arrivals factor is no higher. The runs are
    /// Gamma configs whose rates `finish` reads, the label and note say so, and the factors still
    /// multiply to the total.
    #[test]
    fn bursty_arrivals_serve_no_more_than_poisson() {
        let poisson = gap(ScenarioInput::small_reference(), &DecisionInput::default());
        let bursty_decision = DecisionInput {
            burstiness: 4.0,
            ..DecisionInput::default()
        };
        let scenario = Scenario::try_from(ScenarioInput::small_reference()).expect("valid");
        let study = GapStudy::new(&scenario, &bursty_decision).expect("study");
        let open: Vec<Arrivals> = study.runs().iter().skip(1).map(|c| c.arrivals).collect();
        assert_eq!(open.len(), GAP_RATES);
        assert!(
            open.iter()
                .all(|a| matches!(a, Arrivals::Gamma { cv, .. } if *cv == 4.0)),
            "{open:?}"
        );
        let bursty = gap(ScenarioInput::small_reference(), &bursty_decision);
        let (p, b) = (
            factor(&poisson, StepId::Arrivals),
            factor(&bursty, StepId::Arrivals),
        );
        println!("arrivals factor: Poisson {p:.3}, CV 4 {b:.3}");
        assert!(
            b > 0.0,
            "the rates were read from the Gamma configs: {bursty:?}"
        );
        assert!(b <= p, "bursty {b} vs Poisson {p}");
        let arrivals = |gap: &ProductionGap| {
            gap.steps
                .iter()
                .find(|s| s.step == StepId::Arrivals)
                .cloned()
                .expect("the step")
        };
        assert_eq!(arrivals(&poisson).label, "Poisson arrivals");
        assert!(arrivals(&poisson).note.contains("Poisson arrivals"));
        assert_eq!(arrivals(&bursty).label, "Bursty arrivals (CV 4)");
        assert!(arrivals(&bursty).note.contains("Gamma gaps of CV 4"));
        assert_factors_chain(&bursty);
        assert!(
            !arrivals(&bursty).note.contains("rough"),
            "CV 4 over 6000 requests: ±5 %"
        );
        assert!((rate_spread(13.0, 1500) - 0.336).abs() < 1e-3);
        let smooth = GapTargets::of(&DecisionInput {
            burstiness: 0.5,
            ..DecisionInput::default()
        });
        assert_eq!(smooth.arrivals_label(), "Smooth arrivals (CV 0.5)");
    }

    /// The arrivals and SLO factors of the default scenario's waterfall with `requests` per
    /// open-loop run.
    fn simulated_factors(cv: f64, requests: u32) -> (f64, f64) {
        let scenario = Scenario::try_from(ScenarioInput::default()).expect("valid");
        // The stock launch (the chain's level after its first step) misses MLPerf's P99 TTFT of
        // 2 s under CV-4 bursts at every load: a looser TTFT target keeps the SLO step's level
        // above zero, which the doubling check below needs.
        let decision = DecisionInput {
            burstiness: cv,
            slo_ttft_ms: Some(10_000.0),
            ..DecisionInput::default()
        };
        let study = GapStudy::new(&scenario, &decision).expect("study");
        let results: Vec<SimResult> = study
            .runs_with(requests)
            .iter()
            .map(|config| study.run(config).expect("runs"))
            .collect();
        let gap = study.finish(&results);
        (factor(&gap, StepId::Arrivals), factor(&gap, StepId::Slo))
    }

    /// The arrivals step is not an artefact of the run length: with Poisson arrivals an open
    /// loop of `GAP_OPEN_REQUESTS` keeps up to near capacity (the 1,500-request runs said a 27 %
    /// loss, and comparing with the offered instead of the realized rate said 70–100 % at CV 4);
    /// bursty arrivals serve no more, and the throughput left after both simulated steps (what
    /// meets the SLO, over the closed loop) moves by less than 10 % when the runs double. The
    /// arrivals factor alone at CV 4 is no steadier than its 95 % test near capacity (see the
    /// module doc), so the pair is checked.
    #[test]
    fn the_arrivals_step_holds_when_the_runs_double() {
        let (poisson, _) = simulated_factors(1.0, GAP_OPEN_REQUESTS);
        let (bursty, bursty_slo) = simulated_factors(4.0, GAP_OPEN_REQUESTS);
        let (longer, longer_slo) = simulated_factors(4.0, 2 * GAP_OPEN_REQUESTS);
        println!(
            "arrivals factor: Poisson {poisson:.3}; CV 4 {bursty:.3} (SLO {bursty_slo:.3}), doubled {longer:.3} (SLO {longer_slo:.3})"
        );
        assert!(poisson >= 0.9, "Poisson {poisson}");
        assert!(
            bursty <= poisson && longer <= poisson,
            "{bursty} {longer} vs {poisson}"
        );
        assert!(bursty > 0.5 && longer > 0.5, "{bursty} {longer}");
        let (kept, kept_longer) = (bursty * bursty_slo, longer * longer_slo);
        assert!(kept_longer > 0.0, "the SLO step keeps some throughput");
        assert!(
            (kept - kept_longer).abs() < 0.1 * kept_longer,
            "after the SLO step: {kept:.3} at {GAP_OPEN_REQUESTS}, {kept_longer:.3} doubled"
        );
    }
}
