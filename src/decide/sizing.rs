//! Sizing a deployment: which operating point a replica can run at under a latency SLO, how
//! many replicas and GPUs a traffic level needs there, and what that costs per month (a traffic
//! in any of its units, `scenario::Traffic`, converts once, there).
//!
//! The page's decision panels (cost, compare, plan) and any other caller share these, so a
//! number means the same everywhere. Formulas: MODEL.md §7 (`$/month = GPUs × $/GPU-hour × 730`,
//! utilization = traffic ÷ capacity of what is bought); SLO point as in `model::slo`.
//!
//! `size` is the one sizing function (issue 26 §1): a replica's (or disaggregated unit's) best
//! point under the SLO, replicas under the utilization ceiling and whole servers (`SizingRules`),
//! then, with `Check::Simulated`, the deployment simulated at its share of the traffic, buying
//! replicas until its tails meet the SLO. `plan` (`plan::candidate_of`), the Cost panel, Compare
//! and the client report size through it (`size_configuration` for a page scenario), and the
//! agent fleet shares its rules (`replicas_under_ceiling`, `deployment`), so one question gets one
//! answer (`tests/one_answer.rs`). Each sizing carries its range from the expected throughput
//! error and its basis: modeled, calibrated, or measured (`scenario::measurements::at_point`).
//! "Auto" layout is chosen here (`auto_layout`, `layout_for_target`).

use crate::decide::plan::{
    deployment_size, Candidate, DEFAULT_GPUS_PER_NODE, DEFAULT_MAX_UTILIZATION,
};
use crate::decide::slo_sim::{best_point_meeting_simulated, simulated_tail_at_rate, SimulatedTail};
use crate::model::grid::sweep_grid;
use crate::model::slo::{best_point_meeting, tail_estimate, TailEstimate};
use crate::model::{evaluate, OperatingPoint};
use crate::physics::economics::{
    energy_usd_per_gpu_hour, replicas_needed, Energy, HOURS_PER_MONTH,
};
use crate::physics::parallelism::Parallelism;
use crate::scenario::{DecisionInput, Scenario, ScenarioInput};
use crate::scenario::{LatencyMethod, Slo};
use serde::Serialize;

/// One swept concurrency judged against an SLO.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SloCheck {
    pub concurrency: u32,
    /// Within KV capacity and the engine limit.
    pub fits: bool,
    /// Fits, and both tail estimates are within their targets.
    pub meets: bool,
}

/// The SLO verdict along the curve and the best point that meets it.
#[derive(Debug, Clone, PartialEq)]
pub struct SloSweep {
    /// In sweep-grid order, the same order as `model::sweep`'s curve points.
    pub checks: Vec<SloCheck>,
    /// The highest-throughput point meeting the SLO and its tails (as `best_point_meeting`).
    pub best: Option<(OperatingPoint, TailEstimate)>,
}

/// Judge every concurrency of the curve's grid against `slo` (analytic tails, `model::slo`) and
/// keep the highest-throughput point that meets it: one pass gives both the chart's per-point
/// flags and the answer of `model::slo::best_point_meeting`, which walks the same grid.
pub fn slo_sweep(scenario: &Scenario, slo: &Slo) -> SloSweep {
    let mut checks = Vec::new();
    let mut best: Option<(OperatingPoint, TailEstimate)> = None;
    for concurrency in sweep_grid(scenario.engine_limit(), scenario.kv_capacity()) {
        let at = scenario.with_concurrency(concurrency);
        let point = evaluate(&at);
        let tail = tail_estimate(&at, &point, slo.percentile);
        let meets = point.fits && tail.ttft_ms <= slo.ttft_ms && tail.tpot_ms <= slo.tpot_ms;
        checks.push(SloCheck {
            concurrency,
            fits: point.fits,
            meets,
        });
        let better = best
            .as_ref()
            .is_none_or(|(b, _)| point.output_tok_s.total_cmp(&b.output_tok_s).is_ge());
        if meets && better {
            best = Some((point, tail));
        }
    }
    SloSweep { checks, best }
}

/// The point a deployment is sized at: the best point meeting the SLO, or without an SLO the
/// max-throughput point (the largest concurrency that fits). `None` when no point meets the SLO.
pub fn capacity_point(
    scenario: &Scenario,
    sweep: Option<&SloSweep>,
) -> Option<(OperatingPoint, Option<TailEstimate>)> {
    match sweep {
        Some(sweep) => sweep
            .best
            .as_ref()
            .map(|(point, tail)| (point.clone(), Some(*tail))),
        None => Some((
            evaluate(&scenario.with_concurrency(crate::model::capacity::max_feasible(scenario))),
            None,
        )),
    }
}

/// Output tok/s of one busy replica at `point` (the system's rate over its busy replicas).
pub fn per_replica_output_tok_s(point: &OperatingPoint) -> f64 {
    let busy = point.replicas.min(point.concurrency).max(1);
    point.output_tok_s / f64::from(busy)
}

/// The buyer's rules every deployment is sized under, on every surface (the Cost panel, Plan on
/// the page and in the CLI, Compare, the client report): the utilization ceiling (traffic ÷
/// capacity bought; 0.8 by default, `plan::DEFAULT_MAX_UTILIZATION`), the GPUs per server (past
/// one server, whole servers are bought: `plan::deployment_size`) and electricity when it is on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizingRules {
    pub max_utilization: f64,
    pub gpus_per_node: u32,
    pub energy: Option<Energy>,
}

impl SizingRules {
    /// The rules the decision inputs state (the page's and the CLI's `max-utilization`,
    /// `gpus-per-node`, `energy`); out-of-range values fall back to the defaults (the inputs
    /// are checked, with their field named, by `DecisionInput::validate`).
    pub fn of(decision: &DecisionInput) -> SizingRules {
        let gpus_per_node = decision.gpus_per_node;
        SizingRules {
            max_utilization: if decision.max_utilization > 0.0 && decision.max_utilization <= 1.0 {
                decision.max_utilization
            } else {
                DEFAULT_MAX_UTILIZATION
            },
            gpus_per_node: if (1.0..=1024.0).contains(&gpus_per_node) {
                gpus_per_node as u32
            } else {
                DEFAULT_GPUS_PER_NODE
            },
            energy: energy_of(decision),
        }
    }
}

/// Electricity, when the decision inputs switch it on (every panel, the report, the CLI).
pub fn energy_of(decision: &DecisionInput) -> Option<Energy> {
    decision.energy_on.then_some(Energy {
        usd_per_kwh: decision.energy_usd_per_kwh,
        pue: decision.energy_pue,
    })
}

impl Default for SizingRules {
    fn default() -> SizingRules {
        SizingRules {
            max_utilization: DEFAULT_MAX_UTILIZATION,
            gpus_per_node: DEFAULT_GPUS_PER_NODE,
            energy: None,
        }
    }
}

/// How a sizing judges the SLO: the analytic tail estimates (`model::slo`, fast enough for a
/// whole search) or the simulator's percentiles (`slo_sim`, what the page shows a verdict by).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Analytic,
    Simulated,
}

/// What a traffic level needs of this scenario's replica configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    pub replicas: u32,
    pub gpus_per_replica: u32,
    pub gpus: u32,
    /// Traffic ÷ capacity of the replicas bought, in (0, 1].
    pub utilization: f64,
    /// Rental plus (optional) electricity at that utilization, for all GPUs; `None` (as are the
    /// month and $/M) without a price per GPU-hour.
    pub usd_per_hour: Option<f64>,
    pub energy_usd_per_hour: f64,
    pub usd_per_month: Option<f64>,
    /// The monthly bill over the output tokens actually served, per million.
    pub usd_per_m_output: Option<f64>,
}

/// One answer to "how many GPUs, and what per month, for this traffic at this SLO" for one
/// replica configuration: the operating point a replica runs at, its tails, and the deployment.
#[derive(Debug, Clone, PartialEq)]
pub struct Sized {
    /// One replica (a disaggregated scenario: one unit of both pools) at the concurrency it is
    /// sized at: the best point meeting the SLO, or without one the max-throughput point.
    pub point: OperatingPoint,
    /// At the SLO's percentile (simulated or analytic, `method`), or the means without an SLO.
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    pub percentile: Option<f64>,
    pub method: LatencyMethod,
    pub sizing: Sizing,
    /// Checked in the simulator: one replica under Poisson arrivals at its share of the traffic
    /// (traffic ÷ replicas), the tails the deployment's users would see; `None` under the
    /// analytic check or without an SLO.
    pub at_traffic: Option<SimulatedTail>,
    /// GPUs and $/month within the expected error of the replica's throughput (issue 26 §7);
    /// `None` when no band covers the point's class.
    pub range: Option<SizingRange>,
    /// How an automatic layout was chosen for this sizing (issue 26 §2: "auto chose TP 2: the
    /// cheapest meeting …"); `None` when the layout was typed (or the scenario is disaggregated).
    pub layout: Option<String>,
    /// The layout an automatic choice made for the SLO (`auto_layout`), which the page then
    /// shows on the chart (`page::knobs::AutoLayout`).
    pub layout_par: Option<Parallelism>,
}

/// What a sizing could be if a replica serves as much more or less than modeled as the page's
/// expected throughput error says (issue 26 §7: "12–15 GPUs, $26–33k/month"): the replicas
/// for `(1 ± E) ×` the modeled rate under the same rules, the sized deployment always inside.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizingRange {
    /// E, per cent: the cross-validated tok/s error of the point's class
    /// (`model::expected_error`, the ± beside the headline).
    pub error_pct: f64,
    pub gpus_low: u32,
    /// `None` when E reaches 100 % (a replica might serve nothing: no upper bound).
    pub gpus_high: Option<u32>,
    pub usd_per_month_low: Option<f64>,
    pub usd_per_month_high: Option<f64>,
    /// What the figure rests on (the badge beside it).
    pub basis: Basis,
    /// A published measurement of the same configuration near the sized point, when one exists
    /// (`Basis::Measured`): the range holds the GPUs its throughput needs.
    pub measured: Option<MeasuredAnchor>,
}

/// What a sizing figure rests on (issue 26 §7's badge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// The engine profile fitted to published measurements (`physics::engine::FITTED`).
    Modeled,
    /// Efficiency knobs set for this scenario, as Calibrate's fit to the user's own benchmark
    /// sets them.
    Calibrated,
    /// A published measurement of this configuration near the sized point backs the figure
    /// (`MeasuredAnchor`).
    Measured,
}

impl Basis {
    pub fn id(self) -> &'static str {
        match self {
            Basis::Modeled => "modeled",
            Basis::Calibrated => "calibrated",
            Basis::Measured => "measured",
        }
    }
}

/// A published measurement (`data/measurements.csv`) of the sized configuration — same model,
/// GPU, precision, engine, GPUs per replica and lengths — at a concurrency near the sized point
/// (`calibration::measured::at_point`), and the GPUs the traffic needs at its throughput.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredAnchor {
    /// The row's id (`IX-012`).
    pub id: String,
    pub concurrency: f64,
    /// The measured output tok/s of one replica (the row's GPUs are one replica).
    pub output_tok_s_per_replica: f64,
    /// GPUs the traffic needs at that throughput under the same rules.
    pub gpus: u32,
}

impl Sized {
    /// Anchor the sizing to a published measurement of its configuration (`MeasuredAnchor`):
    /// the replicas the traffic needs at the measured throughput under the same ceiling and
    /// whole servers, and the range widened to hold them; the badge says "measured". The
    /// monthly figure scales with the GPUs at this sizing's $/GPU-month.
    pub fn anchor(
        &mut self,
        traffic_output_tok_s: f64,
        rules: &SizingRules,
        id: String,
        concurrency: f64,
        output_tok_s_per_replica: f64,
    ) {
        let s = self.sizing;
        let Some(replicas) =
            replicas_under_ceiling(traffic_output_tok_s, output_tok_s_per_replica, rules)
        else {
            return;
        };
        let (_, gpus) = deployment_size(replicas.max(1), s.gpus_per_replica, rules.gpus_per_node);
        let per_gpu_month = s.usd_per_month.map(|m| m / f64::from(s.gpus.max(1)));
        let month = per_gpu_month.map(|m| m * f64::from(gpus));
        let Some(range) = self.range.as_mut() else {
            return;
        };
        if gpus < range.gpus_low {
            range.gpus_low = gpus;
            range.usd_per_month_low = month;
        }
        if range.gpus_high.is_some_and(|high| gpus > high) {
            range.gpus_high = Some(gpus);
            range.usd_per_month_high = month;
        }
        range.basis = Basis::Measured;
        range.measured = Some(MeasuredAnchor {
            id,
            concurrency,
            output_tok_s_per_replica,
            gpus,
        });
    }
}

impl SizingRange {
    /// "5–8 GPUs, $16,140–$25,820/month within the ±18 % expected throughput error (modeled)".
    pub fn sentence(&self) -> String {
        let gpus = match self.gpus_high {
            Some(high) if high == self.gpus_low => format!("{high} GPUs"),
            Some(high) => format!("{}–{high} GPUs", self.gpus_low),
            None => format!("{} GPUs or more", self.gpus_low),
        };
        let money = match (self.usd_per_month_low, self.usd_per_month_high) {
            (Some(low), Some(high)) => format!(
                ", {}–{}/month",
                crate::present::format::usd_amount(low),
                crate::present::format::usd_amount(high)
            ),
            (Some(low), None) => {
                format!(
                    ", {}/month or more",
                    crate::present::format::usd_amount(low)
                )
            }
            _ => String::new(),
        };
        let measured = self
            .measured
            .as_ref()
            .map(|m| {
                format!(
                    " and the published measurement {} of this configuration ({} output tok/s per replica at C = {}: {} GPUs)",
                    m.id,
                    crate::present::format::format_number(m.output_tok_s_per_replica),
                    crate::present::format::format_number(m.concurrency),
                    m.gpus
                )
            })
            .unwrap_or_default();
        format!(
            "{gpus}{money} within the ±{:.0} % expected throughput error{measured} ({})",
            self.error_pct,
            self.basis.id()
        )
    }
}

/// The range of a sizing (`SizingRange`); `None` without a band for the point's class.
fn range(
    unit: &Scenario,
    point: &OperatingPoint,
    traffic_output_tok_s: f64,
    rules: &SizingRules,
    sizing: &Sizing,
) -> Option<SizingRange> {
    use crate::model::expected_error::{band, Class, Metric};
    let error_pct = band(Class::of(unit, point), Metric::OutputTokS)?.error_pct;
    let e = error_pct / 100.0;
    let at = |factor: f64| {
        deploy(
            unit,
            point.output_tok_s * factor,
            traffic_output_tok_s,
            rules,
        )
    };
    let low = at(1.0 + e)?;
    let high = (e < 1.0).then(|| at(1.0 - e)).flatten();
    let (gpus_low, month_low) = if low.gpus < sizing.gpus {
        (low.gpus, low.usd_per_month)
    } else {
        (sizing.gpus, sizing.usd_per_month)
    };
    let (gpus_high, month_high) = match high {
        Some(h) if h.gpus > sizing.gpus => (Some(h.gpus), h.usd_per_month),
        Some(_) => (Some(sizing.gpus), sizing.usd_per_month),
        None => (None, None),
    };
    let calibrated = unit.input.efficiency != crate::scenario::EfficiencyOverrides::default();
    Some(SizingRange {
        error_pct,
        gpus_low,
        gpus_high,
        usd_per_month_low: month_low,
        usd_per_month_high: month_high,
        basis: if calibrated {
            Basis::Calibrated
        } else {
            Basis::Modeled
        },
        measured: None,
    })
}

/// The published measurement of an aggregated unit's configuration near its sized point
/// (`scenario::measurements::at_point`), if any.
fn measured_at(unit: &Scenario, sized: &Sized) -> Option<(String, f64, f64)> {
    if unit.pools.is_some() {
        return None;
    }
    crate::scenario::measurements::at_point(&crate::scenario::measurements::Configuration {
        model_id: &unit.model.id,
        gpu_id: &unit.gpu.id,
        lengths: (unit.workload.input_mean, unit.workload.output_mean),
        precision: unit.precision,
        engine: &unit.profile.engine,
        deployment: unit.profile.deployment,
        gpus_per_replica: sized.sizing.gpus_per_replica,
        tp: unit.par.tp,
        ep: unit.par.ep,
        concurrency: sized.point.concurrency,
    })
}

/// Most replicas added beyond the ceiling's count when the simulated check at the traffic
/// misses the SLO, before the configuration is called unable to carry it.
pub const MAX_EXTRA_REPLICAS: u32 = 4;

/// The scenario the sizing replicates: a disaggregated scenario is one unit of both pools
/// (MODEL.md §4.4; DistServe §4.1 replicates the placement unit); an aggregated one is cut to one
/// replica (`one_replica_input`), so the page's 16 × H100 at TP 2 and the plan's TP 2 candidate
/// are searched identically.
pub fn unit_of(scenario: &Scenario) -> Result<Scenario, String> {
    if scenario.pools.is_some() || scenario.replicas <= 1 {
        return Ok(scenario.clone());
    }
    Scenario::try_from(one_replica_input(scenario))
        .map_err(|e| format!("{}: {}", e.field, e.message))
}

/// **The one sizing function** (issue 26 §1): the Cost panel, Plan (the page's and `servecost
/// plan`), Compare, the client report and Apply all size a configuration through it.
///
/// 1. The point: the highest-throughput concurrency of one replica (`unit`, see `unit_of`)
///    whose tails meet the SLO — analytic (`model::slo::best_point_meeting`) or simulated
///    (`slo_sim::best_point_meeting_simulated`) as `check` says — or, without an SLO, the
///    largest concurrency that fits.
/// 2. The deployment: replicas = ⌈traffic ÷ (ceiling × the replica's output tok/s)⌉, whole
///    servers past one (`plan::deployment_size`), $/month = GPUs × ($/GPU-hour + electricity at
///    the resulting utilization) × 730 h (MODEL.md §7).
/// 3. Under `Check::Simulated` with an SLO, the deployment itself: one replica simulated under
///    Poisson arrivals at traffic ÷ replicas; while its tails miss, one more replica is bought
///    (at most `MAX_EXTRA_REPLICAS`). A closed loop at the point's concurrency is not the open
///    loop a sized deployment sees: at a 99 % ceiling it passes where 30 req/s of Poisson
///    arrivals miss (issue 26's 14 × H100 case).
///
/// Errors say why no deployment of this configuration carries the traffic.
pub fn size(
    unit: &Scenario,
    traffic_output_tok_s: f64,
    slo: Option<&Slo>,
    rules: &SizingRules,
    check: Check,
) -> Result<Sized, String> {
    if !(traffic_output_tok_s > 0.0 && traffic_output_tok_s.is_finite()) {
        return Err(format!(
            "traffic must be a positive number of output tokens/s (got {traffic_output_tok_s})"
        ));
    }
    let (point, ttft_ms, tpot_ms, percentile, method) = match (slo, check) {
        (Some(slo), Check::Analytic) => {
            let (point, tail) =
                best_point_meeting(unit, slo).ok_or_else(|| why_slo_missed(unit, slo))?;
            (
                point,
                tail.ttft_ms,
                tail.tpot_ms,
                Some(slo.percentile),
                LatencyMethod::Analytic,
            )
        }
        (Some(slo), Check::Simulated) => {
            let (point, tail) = best_point_meeting_simulated(unit, slo).ok_or_else(|| {
                format!(
                    "misses the SLO in simulation: no concurrency meets P{} TTFT ≤ {} ms and TPOT ≤ {} ms",
                    slo.percentile, slo.ttft_ms, slo.tpot_ms
                )
            })?;
            (
                point,
                tail.ttft_ms,
                tail.tpot_ms,
                Some(slo.percentile),
                LatencyMethod::Simulated,
            )
        }
        (None, _) => {
            let point =
                evaluate(&unit.with_concurrency(crate::model::capacity::max_feasible(unit)));
            let (ttft, tpot) = (point.ttft_ms, point.tpot_ms);
            (point, ttft, tpot, None, LatencyMethod::Mean)
        }
    };
    let needed = replicas_under_ceiling(traffic_output_tok_s, point.output_tok_s, rules)
        .ok_or("produces no output at any concurrency")?;
    let deploy = |replicas: u32| {
        deployment(
            unit,
            point.output_tok_s,
            traffic_output_tok_s,
            replicas,
            rules,
        )
        .ok_or_else(|| "produces no output at any concurrency".to_string())
    };
    let sized = |sizing: Sizing, at_traffic: Option<SimulatedTail>| {
        let mut sized = Sized {
            range: range(unit, &point, traffic_output_tok_s, rules, &sizing),
            layout: None,
            layout_par: None,
            point: point.clone(),
            ttft_ms,
            tpot_ms,
            percentile,
            method,
            sizing,
            at_traffic,
        };
        if let Some((id, concurrency, tok_s)) = measured_at(unit, &sized) {
            sized.anchor(traffic_output_tok_s, rules, id, concurrency, tok_s);
        }
        sized
    };
    let (Some(slo), Check::Simulated) = (slo, check) else {
        return Ok(sized(deploy(needed)?, None));
    };
    let request_rate = traffic_output_tok_s / unit.workload.output_mean.max(1.0);
    let at = unit.with_concurrency(point.concurrency);
    let mut want = needed;
    let mut last = None;
    for _ in 0..=MAX_EXTRA_REPLICAS {
        let sizing = deploy(want)?;
        let rate = request_rate / f64::from(sizing.replicas.max(1));
        let Some(tail) = simulated_tail_at_rate(&at, rate, slo.percentile) else {
            return Ok(sized(sizing, None));
        };
        if tail.ttft_ms <= slo.ttft_ms && tail.tpot_ms <= slo.tpot_ms {
            return Ok(sized(sizing, Some(tail)));
        }
        last = Some((sizing.replicas, tail));
        want = sizing.replicas.saturating_add(1);
    }
    let (replicas, tail) = last.ok_or("no deployment was simulated")?;
    Err(format!(
        "misses the SLO at the traffic in simulation: with {replicas} replicas, each at {:.2} req/s of Poisson arrivals, P{} TTFT {:.0} ms and TPOT {:.1} ms (targets {} and {} ms)",
        request_rate / f64::from(replicas.max(1)),
        slo.percentile,
        tail.ttft_ms,
        tail.tpot_ms,
        slo.ttft_ms,
        slo.tpot_ms
    ))
}

/// A configuration as the page shows it (any number of replicas, or a disaggregated unit) sized
/// for the traffic: `size` of its unit (`unit_of`), checked in the simulator when an SLO is set
/// (the page shows its verdicts by simulated tails), else at the max-throughput point. What the
/// Cost panel, Compare and the client report show for "this configuration for that traffic".
pub fn size_configuration(
    scenario: &Scenario,
    traffic_output_tok_s: f64,
    slo: Option<&Slo>,
    rules: &SizingRules,
) -> Result<Sized, String> {
    let check = match slo {
        Some(_) => Check::Simulated,
        None => Check::Analytic,
    };
    let auto = layout_is_auto(scenario);
    if let (true, Some(slo)) = (auto, slo) {
        if let Some((_, sized)) = auto_layout(scenario, traffic_output_tok_s, slo, rules, check) {
            return Ok(sized);
        }
    }
    let unit = unit_of(scenario)?;
    let mut sized = size(&unit, traffic_output_tok_s, slo, rules, check)?;
    if scenario.tp_auto && scenario.pools.is_none() {
        sized.layout = Some(default_rule_sentence(unit.par.tp));
    }
    Ok(sized)
}

/// What "auto" says when no target chose the layout: today's rule, and how to choose by cost.
pub fn default_rule_sentence(tp: u32) -> String {
    format!("auto TP {tp}: the smallest TP that fits (set an SLO or a target tok/s per user and auto chooses the layout by cost)")
}

/// GPUs per replica "auto" chooses among: one server's (`plan::TP_CHOICES`).
const AUTO_GPUS: [u32; 4] = crate::decide::plan::TP_CHOICES;

/// Whether the scenario leaves its layout to "auto": no TP, EP or attention DP typed, aggregated.
pub fn layout_is_auto(scenario: &Scenario) -> bool {
    let i = &scenario.input;
    i.tp.is_none() && i.ep.is_none() && i.dp_attention.is_none() && scenario.pools.is_none()
}

/// The layouts "auto" chooses among, each as one replica (`unit`): every GPUs-per-replica count
/// of one server (1, 2, 4, 8, dividing the GPUs per server and the scenario's GPU count, so the
/// page can draw the choice on the GPUs it has) as TP, and for an MoE model also EP inside the
/// TP group and DEP (`leaderboard::layouts`, MODEL.md §2.8). `Err` names why a layout does not fit.
pub fn auto_layouts(
    scenario: &Scenario,
    gpus_per_node: u32,
) -> Vec<(Parallelism, Result<Scenario, String>)> {
    let pp = scenario.par.pp.max(1);
    let gpus = scenario.total_gpus().max(1);
    let moe = scenario.arch.experts > 1.0;
    let mut out = Vec::new();
    for g in AUTO_GPUS.into_iter().filter(|g| {
        *g <= gpus_per_node && gpus_per_node.is_multiple_of(*g) && gpus.is_multiple_of(*g * pp)
    }) {
        for par in crate::decide::leaderboard::layouts(g, moe) {
            let input = ScenarioInput {
                tp: Some(f64::from(par.tp)),
                ep: (par.ep > 1).then_some(f64::from(par.ep)),
                gpu_count: f64::from(g * pp),
                concurrency: 1.0,
                ..scenario.input.clone()
            };
            let unit = Scenario::try_from(input).map_err(|e| e.message);
            out.push((Parallelism { pp, ..par }, unit));
        }
    }
    out
}

/// "Auto" layout for the question asked (issue 26 §2): with an SLO and a traffic, every layout of
/// `auto_layouts` is sized (`size`, with `check`: the page's and the report's simulated check),
/// and the cheapest deployment meeting the SLO wins (fewest GPUs without a price), as the plan
/// ranks them; its one-replica unit and the sizing, whose `layout` names the choice and the
/// others' costs ("auto chose TP 2: the cheapest meeting P90 TTFT ≤ 500 ms and TPOT ≤ 40 ms
/// for the traffic; TP 1: misses the SLO; …"). The default rule (the smallest TP that fits)
/// sized a 70B model on H200 at TP 1, 94 GPUs, where TP 2 needs 12. `None` when no layout meets
/// the SLO (the caller's own sizing then says why).
pub fn auto_layout(
    scenario: &Scenario,
    traffic_output_tok_s: f64,
    slo: &Slo,
    rules: &SizingRules,
    check: Check,
) -> Option<(Scenario, Sized)> {
    let mut best: Option<(f64, u32, Parallelism, Scenario, Sized)> = None;
    let mut others = Vec::new();
    for (par, unit) in auto_layouts(scenario, rules.gpus_per_node) {
        let name = crate::decide::leaderboard::layout_name(par);
        let Ok(unit) = unit else {
            others.push(format!("{name}: does not fit"));
            continue;
        };
        match size(&unit, traffic_output_tok_s, Some(slo), rules, check) {
            Ok(sized) => {
                let gpus = sized.sizing.gpus;
                let key = sized.sizing.usd_per_month.unwrap_or(f64::from(gpus));
                others.push(format!(
                    "{name}: {gpus} GPUs{}",
                    sized
                        .sizing
                        .usd_per_month
                        .map(|usd| format!(", {}/month", crate::present::format::usd_amount(usd)))
                        .unwrap_or_default()
                ));
                let better = best
                    .as_ref()
                    .is_none_or(|(k, g, _, _, _)| key < *k || (key == *k && gpus < *g));
                if better {
                    best = Some((key, gpus, par, unit, sized));
                }
            }
            Err(_) => others.push(format!("{name}: misses the SLO")),
        }
    }
    let (_, _, par, unit, mut sized) = best?;
    sized.layout_par = Some(par);
    sized.layout = Some(format!(
        "auto chose {}: the cheapest meeting P{} TTFT ≤ {} ms and TPOT ≤ {} ms for the traffic ({} tails; {})",
        crate::decide::leaderboard::layout_name(par),
        slo.percentile,
        slo.ttft_ms,
        slo.tpot_ms,
        sized.method,
        others.join("; ")
    ));
    Some((unit, sized))
}

/// A target without a traffic level: the layout gives the most output tokens/s per GPU (the
/// lowest $/M on one GPU type) where it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LayoutTarget {
    /// The SLO's tails (analytic, as the chart's SLO marks).
    Slo(Slo),
    /// At least this many tokens/s per user (the leaderboard's target interactivity).
    TokSPerUser(f64),
}

/// What "auto" chose for the question asked, for the page to draw (`page::knobs::AutoLayout`).
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutChoice {
    pub par: Parallelism,
    /// "auto chose TP 2: the cheapest meeting …", with the others' figures.
    pub why: String,
}

/// "Auto" layout for a target without a traffic level (issue 26 §2): among `auto_layouts`, the
/// one with the most output tokens/s per GPU at its best point meeting the target — the SLO's
/// analytic tails (`model::slo::best_point_meeting`) or the highest-throughput point of the
/// curve at the tokens/s per user (as the leaderboard picks) — which on one GPU type is the
/// lowest $/M. `None` when no layout meets it.
pub fn layout_for_target(
    scenario: &Scenario,
    target: LayoutTarget,
    gpus_per_node: u32,
) -> Option<LayoutChoice> {
    let mut best: Option<(f64, Parallelism)> = None;
    let mut others = Vec::new();
    for (par, unit) in auto_layouts(scenario, gpus_per_node) {
        let name = crate::decide::leaderboard::layout_name(par);
        let Ok(unit) = unit else {
            others.push(format!("{name}: does not fit"));
            continue;
        };
        let per_gpu = f64::from(unit.total_gpus().max(1));
        let tok_s = match target {
            LayoutTarget::Slo(slo) => best_point_meeting(&unit, &slo).map(|(p, _)| p.output_tok_s),
            LayoutTarget::TokSPerUser(x) => crate::model::sweep(&unit)
                .points
                .iter()
                .filter(|p| p.fits && p.tok_s_per_user >= x)
                .map(|p| p.output_tok_s)
                .reduce(f64::max),
        }
        .map(|t| t / per_gpu);
        match tok_s {
            Some(t) => {
                others.push(format!(
                    "{name}: {} tok/s per GPU",
                    crate::present::format::format_number(t)
                ));
                if best.is_none_or(|(b, _)| t > b) {
                    best = Some((t, par));
                }
            }
            None => others.push(format!("{name}: misses it")),
        }
    }
    let (_, par) = best?;
    let asked = match target {
        LayoutTarget::Slo(slo) => format!(
            "P{} TTFT ≤ {} ms and TPOT ≤ {} ms (analytic tails)",
            slo.percentile, slo.ttft_ms, slo.tpot_ms
        ),
        LayoutTarget::TokSPerUser(x) => format!(
            "≥ {} tok/s per user",
            crate::present::format::format_number(x)
        ),
    };
    Some(LayoutChoice {
        par,
        why: format!(
            "auto chose {}: the most output tok/s per GPU (lowest $/M) meeting {asked}; {}",
            crate::decide::leaderboard::layout_name(par),
            others.join("; ")
        ),
    })
}

/// The rules and the check a sizing was done under, in one sentence for every surface: "Sized
/// at ≤ 80 % utilization, whole servers of 8 past one; checked in the simulator at the traffic:
/// P90 TTFT 412 ms, TPOT 35.1 ms per replica at 2.50 req/s."
pub fn rules_sentence(rules: &SizingRules, sized: &Sized) -> String {
    let mut out = format!(
        "Sized at ≤ {:.0} % utilization (the plan's ceiling), whole servers of {} past one{}",
        rules.max_utilization * 100.0,
        rules.gpus_per_node,
        if rules.energy.is_some() {
            ", electricity included"
        } else {
            ""
        }
    );
    match (&sized.at_traffic, sized.method) {
        (Some(tail), _) => out.push_str(&format!(
            "; checked in the simulator at the traffic (Poisson arrivals, each replica its share): P{} TTFT {:.0} ms, TPOT {:.1} ms.",
            tail.percentile, tail.ttft_ms, tail.tpot_ms
        )),
        (None, LatencyMethod::Mean) => out.push_str("; no SLO set, so at the largest batch that fits (mean latencies)."),
        (None, method) => out.push_str(&format!("; tails {method}.")),
    }
    out
}

/// Replicas a demand needs under the utilization ceiling: `⌈demand ÷ (ceiling × capacity of
/// one replica)⌉`, at least one, both in one unit (output tok/s; agents for an agent fleet).
/// `None` when a replica carries nothing. Every sizing counts replicas here.
pub fn replicas_under_ceiling(demand: f64, per_replica: f64, rules: &SizingRules) -> Option<u32> {
    replicas_needed(demand, per_replica * rules.max_utilization.clamp(1e-3, 1.0))
}

/// Step 2 of `size` on its own, for a replica whose capacity is already known: the replicas
/// under the ceiling (`replicas_under_ceiling`), whole servers past one and what they cost
/// (`deployment`). The agent fleet (`decide::agents::fleet`) sizes through it, so "N agents"
/// and the same output tokens/s sized anywhere else buy the same GPUs.
pub fn deploy(
    unit: &Scenario,
    per_replica_output_tok_s: f64,
    traffic_output_tok_s: f64,
    rules: &SizingRules,
) -> Option<Sizing> {
    let needed = replicas_under_ceiling(traffic_output_tok_s, per_replica_output_tok_s, rules)?;
    deployment(
        unit,
        per_replica_output_tok_s,
        traffic_output_tok_s,
        needed,
        rules,
    )
}

/// `replicas` of `unit`, each carrying `per_replica` output tok/s at its sized point, carrying
/// the traffic: GPUs (whole servers past one, `plan::deployment_size`), the utilization and
/// what it costs. `None` when the replica produces nothing.
pub fn deployment(
    unit: &Scenario,
    per_replica: f64,
    traffic_output_tok_s: f64,
    replicas: u32,
    rules: &SizingRules,
) -> Option<Sizing> {
    if per_replica.is_nan() || per_replica <= 0.0 {
        return None;
    }
    let gpus_per_replica = if unit.pools.is_some() {
        unit.total_gpus().max(1)
    } else {
        unit.par.gpus_per_replica().max(1)
    };
    let (replicas, gpus) = deployment_size(replicas.max(1), gpus_per_replica, rules.gpus_per_node);
    let utilization = (traffic_output_tok_s / (per_replica * f64::from(replicas))).clamp(0.0, 1.0);
    let energy_per_gpu_hour = match (&rules.energy, unit.gpu.tdp_w) {
        (Some(energy), Some(tdp_w)) => energy_usd_per_gpu_hour(tdp_w, utilization, energy),
        _ => 0.0,
    };
    let energy_usd_per_hour = f64::from(gpus) * energy_per_gpu_hour;
    let usd_per_hour = unit
        .usd_per_gpu_hour
        .map(|usd_per_gpu_hour| f64::from(gpus) * usd_per_gpu_hour + energy_usd_per_hour);
    Some(Sizing {
        replicas,
        gpus_per_replica,
        gpus,
        utilization,
        usd_per_hour,
        energy_usd_per_hour,
        usd_per_month: usd_per_hour.map(|usd| usd * HOURS_PER_MONTH),
        usd_per_m_output: usd_per_hour.map(|usd| usd / (traffic_output_tok_s * 3600.0) * 1e6),
    })
}

/// Name the target no concurrency can meet: the best tail each metric reaches on its own.
pub fn why_slo_missed(scenario: &Scenario, slo: &Slo) -> String {
    let mut best_ttft = f64::INFINITY;
    let mut best_tpot = f64::INFINITY;
    for c in sweep_grid(scenario.engine_limit(), scenario.kv_capacity()) {
        let s = scenario.with_concurrency(c);
        let point = evaluate(&s);
        if !point.fits {
            continue;
        }
        let tail = tail_estimate(&s, &point, slo.percentile);
        best_ttft = best_ttft.min(tail.ttft_ms);
        best_tpot = best_tpot.min(tail.tpot_ms);
    }
    let p = slo.percentile;
    match (best_ttft > slo.ttft_ms, best_tpot > slo.tpot_ms) {
        (true, true) => format!(
            "misses TTFT and TPOT: best P{p} TTFT {best_ttft:.0} ms, TPOT {best_tpot:.1} ms"
        ),
        (true, false) => format!(
            "misses TTFT: best P{p} TTFT {best_ttft:.0} ms > {} ms",
            slo.ttft_ms
        ),
        (false, true) => format!(
            "misses TPOT: best P{p} TPOT {best_tpot:.1} ms > {} ms",
            slo.tpot_ms
        ),
        (false, false) => {
            format!("misses TTFT and TPOT together: no single concurrency meets both (P{p})")
        }
    }
}

/// The scenario's input cut down to one replica (GPU count = GPUs per replica, TP fixed): what a
/// benchmark against one engine measures, for calibration.
pub fn one_replica_input(scenario: &Scenario) -> ScenarioInput {
    let mut input = scenario.input.clone();
    input.gpu_count = f64::from(scenario.par.gpus_per_replica().max(1));
    input.tp = Some(f64::from(scenario.par.tp));
    input.concurrency = input
        .concurrency
        .min(f64::from(scenario.max_num_seqs.max(1)));
    input
}

/// A plan candidate as a scenario: `base` on the candidate's GPU, precision and price, with all
/// its replicas (GPU count = replicas × GPUs per replica, TP fixed) and its per-replica
/// concurrency on every replica, so the page shows the whole deployment the plan priced.
pub fn candidate_input(base: &ScenarioInput, candidate: &Candidate) -> ScenarioInput {
    // A disaggregated unit (`plan --serving`) loads as one unit with its pools: its numbers are
    // the unit's, as `estimate` with the same pool flags gives them (tests/plan.rs).
    if let Some(pools) = &candidate.pools {
        return ScenarioInput {
            gpu: candidate.gpu.clone(),
            gpu_count: f64::from(pools.prefill_gpus + pools.decode_gpus),
            tp: None,
            pp: None,
            ep: None,
            serving: candidate.serving,
            prefill_gpus: Some(f64::from(pools.prefill_gpus)),
            prefill_tp: Some(f64::from(pools.prefill_tp)),
            decode_gpus: Some(f64::from(pools.decode_gpus)),
            decode_tp: Some(f64::from(pools.decode_tp)),
            precision: candidate.precision,
            usd_per_gpu_hour: Some(candidate.usd_per_gpu_hour),
            concurrency: f64::from(candidate.concurrency),
            ..base.clone()
        };
    }
    ScenarioInput {
        gpu: candidate.gpu.clone(),
        gpu_count: f64::from(candidate.total_gpus),
        tp: Some(f64::from(candidate.tp)),
        pp: None,
        ep: None,
        serving: crate::scenario::pools::Serving::Aggregated,
        prefill_gpus: None,
        prefill_tp: None,
        prefill_ep: None,
        decode_gpus: None,
        decode_tp: None,
        decode_ep: None,
        precision: candidate.precision,
        usd_per_gpu_hour: Some(candidate.usd_per_gpu_hour),
        concurrency: f64::from(candidate.concurrency) * f64::from(candidate.replicas.max(1)),
        ..base.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::plan::{plan, PlanRequest};
    use crate::model::slo::best_point_meeting;

    fn default_scenario() -> Scenario {
        Scenario::default_scenario().expect("default scenario")
    }

    #[test]
    fn one_pass_agrees_with_best_point_meeting() {
        let scenario = default_scenario();
        for (ttft_ms, tpot_ms, percentile) in [
            (2000.0, 50.0, 90.0),
            (500.0, 30.0, 99.0),
            (1e9, 1e9, 90.0),
            (0.001, 50.0, 90.0),
        ] {
            let slo = Slo {
                ttft_ms,
                tpot_ms,
                percentile,
            };
            let sweep = slo_sweep(&scenario, &slo);
            let expected = best_point_meeting(&scenario, &slo);
            assert_eq!(
                sweep.best.as_ref().map(|(p, t)| (p.concurrency, t.ttft_ms)),
                expected.as_ref().map(|(p, t)| (p.concurrency, t.ttft_ms)),
                "{slo:?}"
            );
            let curve = crate::model::sweep(&scenario);
            let grid: Vec<u32> = sweep.checks.iter().map(|c| c.concurrency).collect();
            let curve_grid: Vec<u32> = curve.points.iter().map(|p| p.concurrency).collect();
            assert_eq!(grid, curve_grid, "flags line up with the curve's points");
            assert!(sweep.checks.iter().all(|c| !c.meets || c.fits));
        }
        let loose = slo_sweep(
            &scenario,
            &Slo {
                ttft_ms: 1e9,
                tpot_ms: 1e9,
                percentile: 90.0,
            },
        );
        assert!(loose.checks.iter().all(|c| c.meets == c.fits));
    }

    fn rules(max_utilization: f64) -> SizingRules {
        SizingRules {
            max_utilization,
            ..SizingRules::default()
        }
    }

    #[test]
    fn sizing_rounds_replicas_up_under_the_ceiling_and_bills_idle_capacity() {
        let scenario = default_scenario();
        let unit = unit_of(&scenario).expect("one replica");
        assert_eq!(unit.replicas, 1);
        let at_full = size(&unit, 1.0, None, &rules(1.0), Check::Analytic).expect("sized");
        assert_eq!(
            at_full.point.concurrency,
            crate::model::capacity::max_feasible(&unit)
        );
        let per_replica = at_full.point.output_tok_s;
        let gpus_per_replica = unit.par.gpus_per_replica();
        // 2.5 replicas' worth of traffic buys 3 replicas at a 100 % ceiling, 4 at 80 %.
        let traffic = 2.5 * per_replica;
        let full = size(&unit, traffic, None, &rules(1.0), Check::Analytic).expect("sized");
        assert_eq!(full.sizing.replicas, 3);
        assert_eq!(full.sizing.gpus, 3 * gpus_per_replica);
        assert!((full.sizing.utilization - 2.5 / 3.0).abs() < 1e-9);
        let capped = size(&unit, traffic, None, &rules(0.8), Check::Analytic).expect("sized");
        assert_eq!(capped.sizing.replicas, 4);
        assert!(capped.sizing.utilization <= 0.8 + 1e-12);
        let price = unit.usd_per_gpu_hour.expect("priced");
        let usd_per_month = full.sizing.usd_per_month.expect("priced");
        assert!((usd_per_month - f64::from(full.sizing.gpus) * price * 730.0).abs() < 1e-6);
        let usd_per_hour = full.sizing.usd_per_hour.expect("priced");
        let bill_per_token = usd_per_hour / (traffic * 3600.0) * 1e6;
        assert!((full.sizing.usd_per_m_output.expect("priced") - bill_per_token).abs() < 1e-12);
        // Past one server of 8, whole servers: 5 replicas of 2 GPUs buy 16 GPUs, 8 replicas.
        if gpus_per_replica == 2 {
            let many =
                size(&unit, 4.5 * per_replica, None, &rules(1.0), Check::Analytic).expect("sized");
            assert_eq!((many.sizing.replicas, many.sizing.gpus), (8, 16));
        }
        // Energy adds GPUs × (idle + (TDP − idle)·u) × PUE × $/kWh.
        let energy = Energy {
            usd_per_kwh: 0.10,
            pue: 1.3,
        };
        let with_energy = size(
            &unit,
            traffic,
            None,
            &SizingRules {
                energy: Some(energy),
                ..rules(1.0)
            },
            Check::Analytic,
        )
        .expect("sized");
        let tdp = unit.gpu.tdp_w.expect("a TDP");
        let expected =
            3.0 * f64::from(gpus_per_replica) * energy_usd_per_gpu_hour(tdp, 2.5 / 3.0, &energy);
        assert!((with_energy.sizing.energy_usd_per_hour - expected).abs() < 1e-9);
        assert!(size(&unit, 0.0, None, &rules(1.0), Check::Analytic).is_err());
    }

    /// Issue 26 §7's "measured" badge: a sizing whose point a published measurement of the same
    /// configuration backs (InferenceX, DeepSeek-R1 FP8 on 8 × H200, SGLang TP 8, 1k/8k at C =
    /// 32: IX-045) says so, names the row and holds the GPUs its measured throughput needs; the
    /// SLO is set between the model's own tails at C = 32 and the next grid point, so the sizing
    /// lands on 32 whatever the fit.
    #[test]
    fn a_sizing_backed_by_a_published_measurement_says_measured() {
        let s = Scenario::try_from(ScenarioInput {
            model: "deepseek-r1".into(),
            gpu: "h200-sxm".into(),
            gpu_count: 8.0,
            tp: Some(8.0),
            precision: crate::physics::precision::Precision::Fp8,
            engine: "sglang".into(),
            input_len: 1000.0,
            output_len: 8000.0,
            ..ScenarioInput::default()
        })
        .expect("valid");
        let tail = |c: u32| {
            let at = s.with_concurrency(c);
            tail_estimate(&at, &evaluate(&at), 90.0)
        };
        let (at32, next) = (tail(32), tail(38));
        assert!(next.tpot_ms > at32.tpot_ms);
        let slo = Slo {
            ttft_ms: at32.ttft_ms.max(next.ttft_ms) * 2.0,
            tpot_ms: (at32.tpot_ms + next.tpot_ms) / 2.0,
            percentile: 90.0,
        };
        let one = evaluate(&s.with_concurrency(32)).output_tok_s;
        let sized = size(&s, 5.0 * one, Some(&slo), &rules(0.8), Check::Analytic).expect("sized");
        assert_eq!(sized.point.concurrency, 32);
        let range = sized.range.expect("a range");
        assert_eq!(range.basis, Basis::Measured);
        let m = range.measured.clone().expect("the measurement");
        assert_eq!((m.id.as_str(), m.concurrency), ("IX-045", 32.0));
        assert!(range.gpus_low <= m.gpus && range.gpus_high.is_none_or(|h| m.gpus <= h));
        let text = range.sentence();
        assert!(
            text.contains("IX-045") && text.ends_with("(measured)"),
            "{text}"
        );
        // The same configuration at another engine has no measurement: modeled.
        let vllm = Scenario::try_from(ScenarioInput {
            engine: "vllm".into(),
            ..s.input.clone()
        })
        .expect("valid");
        if let Ok(other) = size(&vllm, 5.0 * one, Some(&slo), &rules(0.8), Check::Analytic) {
            assert_eq!(other.range.expect("a range").basis, Basis::Modeled);
        }
    }

    /// Issue 26 §7: a sizing carries the GPUs and $/month within the expected throughput error,
    /// the sized deployment inside, said as modeled (or calibrated once knobs are set).
    #[test]
    fn a_sizing_carries_its_range_from_the_expected_error() {
        let unit = unit_of(&default_scenario()).expect("one replica");
        let one = size(&unit, 1.0, None, &rules(0.8), Check::Analytic).expect("sized");
        let mut widest = 0;
        for replicas in [1.5, 2.9, 3.9, 7.3, 11.0] {
            let traffic = replicas * one.point.output_tok_s;
            let sized = size(&unit, traffic, None, &rules(1.0), Check::Analytic).expect("sized");
            let range = sized.range.expect("a band for the default class");
            assert!(range.error_pct > 0.0);
            let high = range.gpus_high.expect("E < 100 %");
            let gpus = sized.sizing.gpus;
            assert!(range.gpus_low <= gpus && gpus <= high, "{range:?}");
            widest = widest.max(high - range.gpus_low);
            let month = sized.sizing.usd_per_month.expect("priced");
            let low_usd = range.usd_per_month_low.expect("priced");
            let high_usd = range.usd_per_month_high.expect("priced");
            assert!(low_usd <= month && month <= high_usd, "{range:?}");
            assert_eq!(range.basis, Basis::Modeled);
            assert!(range.sentence().contains("GPUs") && range.sentence().contains("(modeled)"));
        }
        assert!(widest > 0, "some traffic level has a real range");
        let calibrated = Scenario::try_from(ScenarioInput {
            efficiency: crate::scenario::EfficiencyOverrides {
                eta_mem: Some(0.7),
                ..Default::default()
            },
            ..one_replica_input(&default_scenario())
        })
        .expect("valid");
        let sized = size(&calibrated, 1000.0, None, &rules(0.8), Check::Analytic).expect("sized");
        assert_eq!(sized.range.expect("range").basis, Basis::Calibrated);
    }

    /// Without a price the replicas and GPUs are still counted; the money is not made up.
    #[test]
    fn sizing_without_a_price_counts_gpus_and_no_money() {
        let scenario = Scenario::try_from(ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..ScenarioInput::default()
        })
        .expect("valid without a price");
        let unit = unit_of(&scenario).expect("one replica");
        let one = size(&unit, 1.0, None, &rules(1.0), Check::Analytic).expect("sized");
        let sized = size(
            &unit,
            2.5 * one.point.output_tok_s,
            None,
            &rules(1.0),
            Check::Analytic,
        )
        .expect("sized");
        assert_eq!(sized.sizing.replicas, 3);
        assert_eq!(sized.sizing.gpus, 3 * sized.sizing.gpus_per_replica);
        assert_eq!(sized.sizing.usd_per_hour, None);
        assert_eq!(sized.sizing.usd_per_month, None);
        assert_eq!(sized.sizing.usd_per_m_output, None);
    }

    #[test]
    fn an_slo_nobody_meets_sizes_nothing() {
        let scenario = default_scenario();
        let slo = Slo {
            ttft_ms: 0.001,
            tpot_ms: 0.001,
            percentile: 90.0,
        };
        let sweep = slo_sweep(&scenario, &slo);
        assert!(capacity_point(&scenario, Some(&sweep)).is_none());
    }

    #[test]
    fn one_replica_keeps_tp_and_efficiencies() {
        let scenario = default_scenario();
        let input = one_replica_input(&scenario);
        let one = Scenario::try_from(input).expect("valid");
        assert_eq!(one.replicas, 1);
        assert_eq!(one.par.tp, scenario.par.tp);
        assert_eq!(one.efficiency, scenario.efficiency);
    }

    #[test]
    fn a_plan_candidate_applied_is_the_deployment_the_plan_priced() {
        let mut base = ScenarioInput {
            model: "llama-3.1-8b".into(),
            ..ScenarioInput::default()
        };
        base.apply_workload_preset("chat").expect("preset");
        let result = plan(&PlanRequest {
            gpus_allowed: vec!["h100-sxm".into(), "l40s".into()],
            top: 3,
            ..PlanRequest::with_defaults(base.clone(), 20_000.0, None)
        })
        .expect("plans");
        let best = result.candidates.first().expect("a candidate");
        let scenario = Scenario::try_from(candidate_input(&base, best)).expect("valid");
        assert_eq!(scenario.replicas, best.replicas);
        assert_eq!(scenario.gpu_count, best.total_gpus);
        assert_eq!(scenario.precision, best.precision);
        let point = evaluate(&scenario);
        let planned = best.output_tok_s_per_replica * f64::from(best.replicas);
        assert!(
            (point.output_tok_s - planned).abs() <= 1e-6 * planned,
            "{} vs {planned}",
            point.output_tok_s
        );
        // A disaggregated base (the page's own serving, whatever the plan searched): an
        // aggregated candidate applied from it is an aggregated scenario that validates.
        let disaggregated = ScenarioInput {
            serving: crate::scenario::pools::Serving::Disaggregated,
            ..base.clone()
        };
        let applied = Scenario::try_from(candidate_input(&disaggregated, best)).expect("valid");
        assert!(applied.pools.is_none());
        assert_eq!(applied.gpu_count, best.total_gpus);
    }

    /// A disaggregated unit (2 prefill GPUs of TP 2 + 4 decode GPUs of TP 2, Qwen3-32B on H200)
    /// is sized as a whole: units = ⌈traffic ÷ the unit's output tok/s⌉ and GPUs = units × both
    /// pools' 6 GPUs, not the decode replicas' TP alone.
    #[test]
    fn a_disaggregated_unit_is_sized_with_both_pools() {
        let unit = Scenario::try_from(ScenarioInput {
            model: "qwen3-32b".into(),
            gpu: "h200-sxm".into(),
            gpu_count: 6.0,
            precision: crate::physics::precision::Precision::Fp8,
            serving: crate::scenario::pools::Serving::Disaggregated,
            prefill_gpus: Some(2.0),
            prefill_tp: Some(2.0),
            decode_gpus: Some(4.0),
            decode_tp: Some(2.0),
            concurrency: 64.0,
            ..ScenarioInput::default()
        })
        .expect("valid");
        let one = size(&unit, 1.0, None, &rules(1.0), Check::Analytic).expect("sized");
        let point = one.point;
        assert!(point.output_tok_s > 0.0);
        let sizing = size(
            &unit,
            2.5 * point.output_tok_s,
            None,
            &rules(1.0),
            Check::Analytic,
        )
        .expect("sized")
        .sizing;
        assert_eq!(
            (sizing.replicas, sizing.gpus_per_replica, sizing.gpus),
            (3, 6, 18)
        );
        assert!((sizing.utilization - 2.5 / 3.0).abs() < 1e-9);
        let price = unit.usd_per_gpu_hour.expect("catalog price");
        let usd = sizing.usd_per_hour.expect("priced");
        assert!((usd - 18.0 * price).abs() < 1e-9, "{usd} vs 18 × {price}");
    }
}
