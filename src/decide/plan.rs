//! Plan: given a model, a workload, SLOs and a traffic level, search GPU type × GPUs per replica
//! (TP) × precision × batch size for the cheapest deployments that meet the SLOs, and say why
//! every other candidate lost (does not fit, misses TTFT, misses TPOT, costs more).
//!
//! For each candidate replica the highest-throughput concurrency meeting the SLO is found
//! (`model::slo`, analytic tails, fast enough for the whole space), replicas = ceil(traffic ÷
//! (utilization ceiling × per-replica throughput)), rounded up to whole servers once the
//! deployment is larger than one (`deployment_size`), and cost = GPUs × price × 730 h (MODEL.md
//! §7). Candidates are ranked by $/month, then by GPUs; with `verify_with_simulator` the cheapest
//! are re-searched with simulated percentiles (`slo_sim`) before the final ranking.
//!
//! The rules a buyer signs under are part of the request: the weight precisions allowed (4-bit
//! weights only when asked for, and then flagged with a quality caveat), the utilization ceiling
//! (default 80 %) and the GPUs per server (a replica fits in one; default 8).
//!
//! A request as given (`PlanInput`: CLI flags) is checked once by `PlanRequest::try_from`, whose
//! error names the field as the flag does (`traffic-req-s`, `top`, `slo-ttft-ms`).

use crate::catalog::{catalog, Gpu};
use crate::choice::Choice;
use crate::decide::plan_disagg::ServingSearch;
use crate::decide::sizing::{size, Check, Sized, SizingRules};
use crate::physics::economics::{Energy, Ownership, PriceTier};
use crate::physics::precision::Precision;
use crate::scenario::fields::{CAPEX_USD_PER_GPU, GPU, GPUS_PER_NODE, MAX_UTILIZATION, PRECISION};
use crate::scenario::pools::Serving;
use crate::scenario::DEFAULT_PLAN_PRECISIONS;
use crate::scenario::{LatencyMethod, Slo, SloInput, SloMethod, SloSettings};
use crate::scenario::{Scenario, ScenarioError, ScenarioInput, Traffic, TrafficUnit};
use serde::Serialize;

/// GPUs per replica tried (one node); those above the request's GPUs per server, or not dividing
/// it, are left out (`tp_choices`).
pub const TP_CHOICES: [u32; 4] = [1, 2, 4, 8];

/// The caveat every 4-bit candidate carries: quantizing weights to 4 bits can cost accuracy
/// (model- and method-dependent), which this model does not predict.
pub const FOUR_BIT_CAVEAT: &str = "quality caveat: 4-bit weights, check accuracy";

/// Default utilization ceiling: traffic ÷ capacity a plan sizes for.
pub const DEFAULT_MAX_UTILIZATION: f64 = 0.8;
/// Default GPUs per server (HGX/DGX-class nodes hold 8).
pub const DEFAULT_GPUS_PER_NODE: u32 = 8;

/// What to plan for.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRequest {
    /// Model, workload, engine and efficiency settings; GPU, count, TP, precision and price are searched.
    pub base: ScenarioInput,
    /// Aggregated layouts, disaggregated units or both.
    pub serving: ServingSearch,
    /// Output tokens per second the deployment must sustain.
    pub traffic_output_tok_s: f64,
    pub slo: Option<Slo>,
    /// GPU ids to consider; empty = every catalog GPU with a price and a complete spec.
    pub gpus_allowed: Vec<String>,
    pub price_tier: PriceTier,
    pub top: usize,
    /// Re-check the SLO of the cheapest candidates with simulated percentiles (`slo_sim`), the
    /// tails users feel; the analytic estimate only ranks the whole space first.
    pub verify_with_simulator: bool,
    /// Weight precisions searched (default BF16 and FP8: no 4-bit weights unless asked for).
    pub precisions: Vec<Precision>,
    /// Highest traffic ÷ capacity of the replicas bought, in (0, 1].
    pub max_utilization: f64,
    /// GPUs per server: TP degrees that fit one (and divide it) are searched, and a deployment of
    /// more GPUs than one server buys whole servers.
    pub gpus_per_node: u32,
    /// What owning the GPUs costs: the price of the `Owned` tier (the same capex per GPU for
    /// every GPU type searched; power from each GPU's TDP unless stated).
    pub ownership: Option<Ownership>,
    /// Electricity added to every candidate's bill at its utilization (the decision inputs'
    /// `energy`), as the Cost panel adds it.
    pub energy: Option<Energy>,
}

impl PlanRequest {
    /// A request with the default rules (BF16 and FP8, 80 % ceiling, 8 GPUs per server, every
    /// plannable GPU at the typical price, top 5, analytic tails only).
    pub fn with_defaults(
        base: ScenarioInput,
        traffic_output_tok_s: f64,
        slo: Option<Slo>,
    ) -> PlanRequest {
        PlanRequest {
            base,
            serving: ServingSearch::default(),
            traffic_output_tok_s,
            slo,
            gpus_allowed: Vec::new(),
            price_tier: PriceTier::Typical,
            top: 5,
            verify_with_simulator: false,
            precisions: default_precisions(),
            max_utilization: DEFAULT_MAX_UTILIZATION,
            gpus_per_node: DEFAULT_GPUS_PER_NODE,
            ownership: None,
            energy: None,
        }
    }

    /// The rules each candidate is sized under (`sizing::size`).
    pub fn rules(&self) -> SizingRules {
        SizingRules {
            max_utilization: self.max_utilization,
            gpus_per_node: self.gpus_per_node,
            energy: self.energy,
        }
    }

    /// The price per GPU-hour this request ranks `gpu` by.
    pub fn price(&self, gpu: &Gpu) -> Option<f64> {
        self.price_tier.price_with(gpu, self.ownership.as_ref())
    }

    /// The GPUs per replica searched: `TP_CHOICES` that fit one server and divide it.
    pub fn tp_choices(&self) -> impl Iterator<Item = u32> + '_ {
        TP_CHOICES
            .into_iter()
            .filter(|tp| *tp <= self.gpus_per_node && self.gpus_per_node.is_multiple_of(*tp))
    }
}

/// BF16 and FP8.
pub fn default_precisions() -> Vec<Precision> {
    DEFAULT_PLAN_PRECISIONS.to_vec()
}

/// Replicas and GPUs bought: `replicas × gpus_per_replica` when that fits one server, else
/// rounded up to whole servers of `gpus_per_node`, the extra GPUs serving as more replicas
/// (`gpus_per_replica` divides `gpus_per_node`, `PlanRequest::tp_choices`). `(replicas, GPUs)`.
pub fn deployment_size(replicas: u32, gpus_per_replica: u32, gpus_per_node: u32) -> (u32, u32) {
    let per_replica = gpus_per_replica.max(1);
    let node = gpus_per_node.max(1);
    let total = replicas.saturating_mul(per_replica);
    if total <= node || !node.is_multiple_of(per_replica) {
        return (replicas, total);
    }
    let nodes = total.div_ceil(node);
    let total = nodes.saturating_mul(node);
    (total / per_replica, total)
}

/// Most candidates a plan lists.
pub const MAX_TOP: usize = 100;

/// A plan request as given, nothing checked yet (parse, don't validate).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanInput {
    /// As in `PlanRequest::base`.
    pub base: ScenarioInput,
    /// Aggregated layouts, disaggregated units or both.
    pub serving: ServingSearch,
    /// The traffic to size for, in any of its units (`scenario::Traffic`); required.
    pub traffic: Option<Traffic>,
    /// The method says whether the cheapest candidates are verified in the simulator.
    pub slo: SloInput,
    /// GPU ids; empty as in `PlanRequest::gpus_allowed`.
    pub gpus_allowed: Vec<String>,
    /// Default `PriceTier::Typical`.
    pub price_tier: Option<PriceTier>,
    /// Candidates to list (default 5).
    pub top: Option<f64>,
    /// Empty = BF16 and FP8.
    pub precisions_allowed: Vec<Precision>,
    /// Default 0.8.
    pub max_utilization: Option<f64>,
    /// Default 8.
    pub gpus_per_node: Option<f64>,
    /// Needed by the "owned" price tier.
    pub ownership: Option<Ownership>,
    /// Electricity, when on.
    pub energy: Option<Energy>,
}

/// `servecost plan`'s traffic flags, output tokens/s and requests/s, without their dashes (the
/// field an error names).
pub const TRAFFIC_TOK_S: &str = "traffic-tok-s";
pub const TRAFFIC_REQ_S: &str = "traffic-req-s";

/// What a plan without a traffic level, or with two, is told.
pub const ONE_TRAFFIC_LEVEL: &str =
    "give exactly one traffic level: --traffic-tok-s X (output tokens/s) or --traffic-req-s R";

fn field_error(field: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.into(),
        message: message.into(),
    }
}

impl TryFrom<PlanInput> for PlanRequest {
    type Error = ScenarioError;

    /// Checks what the plan needs of its own: one positive traffic level, the SLO settings, the
    /// price tier and the number of candidates. The base scenario is checked per candidate
    /// (`Scenario::try_from`), GPU ids when the catalog is read (`plan`).
    fn try_from(input: PlanInput) -> Result<PlanRequest, ScenarioError> {
        let slo = SloSettings::try_from(input.slo)?;
        let Some(traffic) = input.traffic else {
            return Err(field_error(TRAFFIC_TOK_S, ONE_TRAFFIC_LEVEL));
        };
        let field = match traffic.unit {
            TrafficUnit::OutputTokS => TRAFFIC_TOK_S,
            TrafficUnit::RequestsPerS => TRAFFIC_REQ_S,
            TrafficUnit::TokensPerDay => crate::scenario::fields::TRAFFIC.key,
        };
        let traffic_output_tok_s = traffic
            .output_tok_s(input.base.input_len, input.base.output_len)
            .unwrap_or(f64::NAN);
        if !(traffic_output_tok_s > 0.0 && traffic_output_tok_s.is_finite()) {
            return Err(field_error(
                field,
                format!("must be positive (got {traffic_output_tok_s} output tok/s)"),
            ));
        }
        let price_tier = input.price_tier.unwrap_or_default();
        if price_tier == PriceTier::Owned && input.ownership.is_none() {
            return Err(field_error(
                CAPEX_USD_PER_GPU.key,
                "the owned price tier needs a capex per GPU (and depreciation, power, hosting, operations)",
            ));
        }
        let top = match input.top {
            None => 5,
            Some(k) if k >= 1.0 && k <= MAX_TOP as f64 && k.fract() == 0.0 => k as usize,
            Some(k) => {
                return Err(field_error(
                    "top",
                    format!("a whole number from 1 to {MAX_TOP} (got {k})"),
                ))
            }
        };
        let precisions = if input.precisions_allowed.is_empty() {
            default_precisions()
        } else {
            let mut chosen = Vec::new();
            for &precision in &input.precisions_allowed {
                if !chosen.contains(&precision) {
                    chosen.push(precision);
                }
            }
            chosen
        };
        let max_utilization = match input.max_utilization {
            None => DEFAULT_MAX_UTILIZATION,
            Some(u) => MAX_UTILIZATION.real(u)?,
        };
        let gpus_per_node = match input.gpus_per_node {
            None => DEFAULT_GPUS_PER_NODE,
            Some(n) => GPUS_PER_NODE.whole(n)?,
        };
        Ok(PlanRequest {
            base: input.base,
            serving: input.serving,
            traffic_output_tok_s,
            slo: slo.slo,
            gpus_allowed: input.gpus_allowed,
            price_tier,
            top,
            verify_with_simulator: slo.method == SloMethod::Simulated,
            precisions,
            max_utilization,
            gpus_per_node,
            ownership: input.ownership,
            energy: input.energy,
        })
    }
}

/// One deployment that meets the SLOs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub gpu: String,
    /// Aggregated, or disaggregated (then `pools` says how: an xPyD unit).
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub serving: Serving,
    pub gpus_per_replica: u32,
    pub tp: u32,
    pub replicas: u32,
    pub total_gpus: u32,
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub precision: Precision,
    /// Requests in flight per replica.
    pub concurrency: u32,
    pub output_tok_s_per_replica: f64,
    /// At the SLO's percentile (simulated when verified, else the analytic estimate), or the mean
    /// when no SLO is set.
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    pub percentile: Option<f64>,
    pub usd_per_gpu_hour: f64,
    /// Where the price comes from: "catalog typical, as of 2026-05", or owned hardware.
    pub price_source: String,
    pub usd_per_month: f64,
    /// All-in $/M output tokens at the planned traffic (idle capacity billed).
    pub usd_per_m_output: f64,
    /// Blended (3:1) $/M at the planned traffic.
    pub usd_per_m_blended: f64,
    /// Traffic ÷ capacity of the replicas bought.
    pub utilization: f64,
    pub meets_slo: bool,
    /// How the tails were obtained (the means without an SLO).
    pub latency_method: LatencyMethod,
    /// `FOUR_BIT_CAVEAT` for FP4 / INT4 weights, else `None`.
    pub quality_caveat: Option<&'static str>,
    pub warnings: Vec<String>,
    /// A disaggregated unit's pools (`plan_disagg`), flattened into the JSON; absent when aggregated.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub pools: Option<super::plan_disagg::PlanPools>,
    /// The deployment checked in the simulator at the traffic (one replica under Poisson
    /// arrivals at its share: `sizing::size`); absent when the tails are analytic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_traffic: Option<crate::decide::slo_sim::SimulatedTail>,
    /// GPUs and $/month within the expected throughput error (issue 26 §7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<crate::decide::sizing::SizingRange>,
}

impl Candidate {
    /// The simulated check of the deployment at the traffic (`sizing::size`), in words: "at the
    /// traffic (3 replicas, each its share of Poisson arrivals): P90 TTFT 451 ms, TPOT 24.6 ms";
    /// `None` when the tails are analytic.
    pub fn traffic_check(&self) -> Option<String> {
        let tail = self.at_traffic?;
        Some(format!(
            "at the traffic ({} {}, each its share of Poisson arrivals): P{} TTFT {:.0} ms, TPOT {:.1} ms",
            self.replicas,
            match (self.pools.is_some(), self.replicas) {
                (true, 1) => "unit",
                (true, _) => "units",
                (false, 1) => "replica",
                (false, _) => "replicas",
            },
            tail.percentile,
            tail.ttft_ms,
            tail.tpot_ms
        ))
    }
}

/// A configuration that lost, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rejected {
    pub gpu: String,
    pub tp: u32,
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub precision: Precision,
    /// What kind of loss (the client report groups them by it); `reason` says it in words.
    #[serde(skip)]
    pub lost: Lost,
    pub reason: String,
}

/// The kinds of loss, in the order the report lists them: near misses first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lost {
    /// Fits, but misses an SLO target (analytic or simulated) or cannot carry the traffic.
    MissedTarget,
    /// No price in the chosen tier, so no cost to rank by.
    NoPrice,
    /// Meets the SLO, but cheaper ones fill the list.
    CostsMore,
    /// Meets the SLO by the analytic tails, never simulated: the listed ones were confirmed first.
    NotSimulated,
    /// The weights and one request's KV cache do not fit in GPU memory.
    DoesNotFit,
}

impl Lost {
    /// The words a reason of this kind opens with (the client report groups by the kind).
    pub fn words(self) -> &'static str {
        match self {
            Lost::MissedTarget => "misses the targets",
            Lost::NoPrice => "no price",
            Lost::CostsMore => "costs more",
            Lost::NotSimulated => "not simulated",
            Lost::DoesNotFit => "does not fit",
        }
    }
}

/// A catalog GPU a plan over the whole catalog did not search, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub gpu: String,
    pub reason: String,
}

/// Why `gpu` cannot be planned with at `tier`: an incomplete spec, or no price at that tier
/// (a plan ranks by price, so it never guesses one). `None` when it can.
pub fn why_not_plannable(gpu: &Gpu, tier: PriceTier) -> Option<String> {
    why_not_plannable_with(gpu, tier, None)
}

/// As `why_not_plannable`, with the ownership inputs the `Owned` tier prices by.
pub fn why_not_plannable_with(
    gpu: &Gpu,
    tier: PriceTier,
    ownership: Option<&Ownership>,
) -> Option<String> {
    if let Some(why) = gpu.missing_spec() {
        return Some(why);
    }
    match (tier.price_with(gpu, ownership), tier) {
        (Some(_), _) => None,
        (None, PriceTier::Owned) => Some(format!(
            "no owned price for {}: give a capex per GPU, and a power per GPU where the catalog has no TDP",
            gpu.name
        )),
        (None, _) => Some(format!(
            "no {} rental price for {} in the catalog",
            tier.id(),
            gpu.name
        )),
    }
}

/// Ranked candidates and the rejected rest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub candidates: Vec<Candidate>,
    pub rejected: Vec<Rejected>,
    /// Catalog GPUs left out of a search over the whole catalog (no price, incomplete spec).
    pub skipped: Vec<Skipped>,
    /// Every candidate that met the SLO (the top `K` are in `candidates`): in the simulator when
    /// the plan verifies with it (`verify_with_simulator`), which it does for the cheapest only.
    pub feasible: usize,
    /// Every candidate that met the SLO by the analytic tails, before any simulation.
    pub met_analytic: usize,
    /// Configurations searched (GPU × precision × TP).
    pub searched: usize,
}

impl Plan {
    /// How many configurations meet the targets, in words, for the Plan panel and the client
    /// report: by the analytic tails, and in the simulator when the plan re-searched the
    /// cheapest there ("73 of 104 configurations meet the targets by the analytic tails; the
    /// cheapest were re-searched in the simulator, and 8 meet them there").
    pub fn met(&self) -> String {
        if self.met_analytic == self.feasible {
            format!(
                "{} of {} configurations meet the targets",
                self.feasible, self.searched
            )
        } else {
            format!(
                "{} of {} configurations meet the targets by the analytic tails; the cheapest were \
                 re-searched in the simulator, and {} meet them there",
                self.met_analytic, self.searched, self.feasible
            )
        }
    }
}

/// Search the space. Errors only for bad requests (traffic not positive, no GPU to try).
pub fn plan(request: &PlanRequest) -> Result<Plan, String> {
    if !(request.traffic_output_tok_s > 0.0 && request.traffic_output_tok_s.is_finite()) {
        return Err(format!(
            "traffic must be a positive number of output tokens/s (got {})",
            request.traffic_output_tok_s
        ));
    }
    let cat = catalog()?;
    let mut skipped = Vec::new();
    let gpus: Vec<_> = if request.gpus_allowed.is_empty() {
        let mut plannable = Vec::new();
        for gpu in &cat.gpus {
            match why_not_plannable_with(gpu, request.price_tier, request.ownership.as_ref()) {
                None => plannable.push(gpu),
                Some(reason) => skipped.push(Skipped {
                    gpu: gpu.id.clone(),
                    reason,
                }),
            }
        }
        plannable
    } else {
        let mut chosen = Vec::new();
        for id in &request.gpus_allowed {
            chosen.push(
                cat.gpu(id.trim())
                    .ok_or_else(|| format!("unknown GPU `{id}` in the allowed list"))?,
            );
        }
        chosen
    };
    if gpus.is_empty() {
        return Err("no GPU to plan with".into());
    }
    let mut feasible = Vec::new();
    let mut rejected = Vec::new();
    let search = request.serving;
    for gpu in gpus.iter().copied().filter(|_| search.aggregated()) {
        for precision in request.precisions.iter().copied() {
            for tp in request.tp_choices() {
                let reject = |lost: Lost, reason: String| Rejected {
                    gpu: gpu.id.clone(),
                    tp,
                    precision,
                    lost,
                    reason,
                };
                let Some(price) = request.price(gpu) else {
                    rejected.push(reject(
                        Lost::NoPrice,
                        format!(
                            "no {} price for {} in the catalog",
                            request.price_tier.id(),
                            gpu.name
                        ),
                    ));
                    continue;
                };
                let input = ScenarioInput {
                    gpu: gpu.id.clone(),
                    gpu_count: f64::from(tp),
                    tp: Some(f64::from(tp)),
                    pp: None,
                    ep: None,
                    precision,
                    usd_per_gpu_hour: Some(price),
                    serving: Serving::Aggregated,
                    ..request.base.clone()
                };
                let scenario = match Scenario::try_from(input) {
                    Ok(s) => s,
                    Err(e) => {
                        rejected.push(reject(
                            Lost::DoesNotFit,
                            format!("does not fit: {}", e.message),
                        ));
                        continue;
                    }
                };
                match evaluate_candidate(&scenario, request, None) {
                    Ok(candidate) => feasible.push(candidate),
                    Err(reason) => rejected.push(reject(Lost::MissedTarget, reason)),
                }
            }
        }
    }
    let disaggregated = match search.disaggregated() {
        true => {
            // Units need only beat the aggregated candidates the list could still show.
            let mut months: Vec<f64> = feasible
                .iter()
                .map(|c: &Candidate| c.usd_per_month)
                .collect();
            months.sort_by(f64::total_cmp);
            let bound = months.get(request.top.max(1).saturating_sub(1)).copied();
            super::plan_disagg::disaggregated_candidates(&gpus, request, &mut rejected, bound)
        }
        false => Vec::new(),
    };
    let searched = feasible.len() + disaggregated.len() + rejected.len();
    let met_analytic = feasible.len() + disaggregated.len();
    // Aggregated replicas and disaggregated units in one cost order: the cheapest of either are
    // the ones simulated, so a unit never takes the simulator's budget from a cheaper replica.
    feasible.extend(disaggregated);
    sort(&mut feasible);
    if let (true, Some(slo)) = (request.verify_with_simulator, &request.slo) {
        feasible = verify(feasible, request, slo, &mut rejected);
        sort(&mut feasible);
    }
    let count = feasible.len();
    let top = request.top.max(1);
    let cheapest = feasible.first().map(|c| c.usd_per_month);
    for lost in feasible.iter().skip(top) {
        rejected.push(Rejected {
            gpu: lost.gpu.clone(),
            tp: lost.tp,
            precision: lost.precision,
            lost: Lost::CostsMore,
            reason: format!(
                "costs more: ${:.0}/month vs ${:.0}/month for the cheapest",
                lost.usd_per_month,
                cheapest.unwrap_or(0.0)
            ),
        });
    }
    feasible.truncate(top);
    Ok(Plan {
        candidates: feasible,
        rejected,
        skipped,
        feasible: count,
        met_analytic,
        searched,
    })
}

/// The plan's candidates as CSV (the Plan panel's download): one row per candidate, in rank
/// order, with the SLO check and the quality caveat.
pub fn candidates_csv(candidates: &[Candidate]) -> String {
    let header = [
        "rank",
        GPU.key,
        PRECISION.key,
        "gpus_per_replica",
        "replicas",
        "total_gpus",
        "concurrency",
        "output_tok_s_per_replica",
        "ttft_ms",
        "tpot_ms",
        "percentile",
        "slo_check",
        "usd_per_gpu_hour",
        "price_source",
        "usd_per_month",
        "usd_per_m_output",
        "utilization",
        "quality_caveat",
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    for (index, c) in candidates.iter().enumerate() {
        rows.push(vec![
            (index + 1).to_string(),
            c.gpu.clone(),
            c.precision.id().to_string(),
            c.gpus_per_replica.to_string(),
            c.replicas.to_string(),
            c.total_gpus.to_string(),
            c.concurrency.to_string(),
            format!("{:.1}", c.output_tok_s_per_replica),
            format!("{:.1}", c.ttft_ms),
            format!("{:.2}", c.tpot_ms),
            c.percentile.map(|p| p.to_string()).unwrap_or_default(),
            c.latency_method.to_string(),
            format!("{:.4}", c.usd_per_gpu_hour),
            c.price_source.clone(),
            format!("{:.2}", c.usd_per_month),
            format!("{:.4}", c.usd_per_m_output),
            format!("{:.4}", c.utilization),
            c.quality_caveat.unwrap_or_default().to_string(),
        ]);
    }
    crate::catalog::csv::write_rows(&rows)
}

fn sort(candidates: &mut [Candidate]) {
    candidates.sort_by(|a, b| {
        a.usd_per_month
            .total_cmp(&b.usd_per_month)
            .then(a.total_gpus.cmp(&b.total_gpus))
    });
}

/// Re-run the cheapest analytic candidates' SLO search with simulated percentiles, in cost
/// order, until `top` pass (at most `3·top + 3` are simulated; the rest keep their analytic rank
/// and are reported as such).
fn verify(
    candidates: Vec<Candidate>,
    request: &PlanRequest,
    slo: &Slo,
    rejected: &mut Vec<Rejected>,
) -> Vec<Candidate> {
    let top = request.top.max(1);
    let budget = top * 3 + 3;
    let mut verified = Vec::new();
    let mut candidates = candidates.into_iter();
    for candidate in candidates.by_ref().take(budget) {
        if verified.len() >= top {
            // Not simulated: say so, as for the rest below.
            rejected.push(not_simulated(&candidate, top, None));
            break;
        }
        let input = match (candidate.pools, catalog_gpu(&candidate.gpu)) {
            (Some(pools), Some(gpu)) => super::plan_disagg::unit_input(
                &request.base,
                &gpu,
                candidate.precision,
                Some(candidate.usd_per_gpu_hour),
                &pools,
            ),
            _ => ScenarioInput {
                gpu: candidate.gpu.clone(),
                gpu_count: f64::from(candidate.gpus_per_replica),
                tp: Some(f64::from(candidate.tp)),
                pp: None,
                ep: None,
                precision: candidate.precision,
                usd_per_gpu_hour: Some(candidate.usd_per_gpu_hour),
                serving: Serving::Aggregated,
                ..request.base.clone()
            },
        };
        let Ok(scenario) = Scenario::try_from(input) else {
            continue;
        };
        let traffic = request.traffic_output_tok_s;
        match size(
            &scenario,
            traffic,
            Some(slo),
            &request.rules(),
            Check::Simulated,
        ) {
            Ok(sized) => verified.push(candidate_of(&scenario, request, sized, candidate.pools)),
            Err(reason) => rejected.push(Rejected {
                gpu: candidate.gpu.clone(),
                tp: candidate.tp,
                precision: candidate.precision,
                lost: Lost::MissedTarget,
                reason: match candidate.pools {
                    Some(p) => format!(
                        "{}P(TP{}) + {}D(TP{}): {reason} (the analytic estimate passed)",
                        p.prefill_replicas, p.prefill_tp, p.decode_replicas, p.decode_tp
                    ),
                    None => format!("{reason} (the analytic estimate passed)"),
                },
            }),
        }
    }
    // Every candidate left met the SLO by the analytic tails but was never simulated: the
    // listed ones were found first. Named, so "why the others lost" accounts for them all.
    let budget_spent = (verified.len() < top).then_some(budget);
    rejected.extend(candidates.map(|candidate| not_simulated(&candidate, top, budget_spent)));
    verified
}

/// A catalog GPU by id (the candidate's, which the plan read from the catalog).
fn catalog_gpu(id: &str) -> Option<Gpu> {
    catalog().ok()?.gpu(id).cloned()
}

/// Why a candidate that met the SLO by the analytic tails is not listed when the plan verifies
/// with the simulator: it was never simulated, because the `top` listed (cheaper by those tails)
/// were confirmed first, or because the simulator's `budget` of candidates was spent on cheaper
/// ones.
fn not_simulated(candidate: &Candidate, top: usize, budget: Option<usize>) -> Rejected {
    let why = match budget {
        None => format!("the {top} listed, cheaper by those tails, met it in the simulator first"),
        Some(budget) => format!("only the {budget} cheapest by those tails are simulated"),
    };
    Rejected {
        gpu: candidate.gpu.clone(),
        tp: candidate.tp,
        precision: candidate.precision,
        lost: Lost::NotSimulated,
        reason: format!(
            "not simulated: meets the SLO by the analytic tails at ${:.0}/month, but {why}",
            candidate.usd_per_month
        ),
    }
}

/// The best operating point of one replica configuration (or disaggregated unit, with its
/// `pools`) and what the traffic then costs, by the analytic tails (`sizing::size`).
pub fn evaluate_candidate(
    scenario: &Scenario,
    request: &PlanRequest,
    pools: Option<super::plan_disagg::PlanPools>,
) -> Result<Candidate, String> {
    let sized = size(
        scenario,
        request.traffic_output_tok_s,
        request.slo.as_ref(),
        &request.rules(),
        Check::Analytic,
    )?;
    if scenario.usd_per_gpu_hour.is_none() {
        return Err("no price per GPU-hour to rank by".into());
    }
    Ok(candidate_of(scenario, request, sized, pools))
}

/// A sized configuration as a plan row (aggregated, or a disaggregated unit with its `pools`).
pub fn candidate_of(
    unit: &Scenario,
    request: &PlanRequest,
    sized: Sized,
    pools: Option<super::plan_disagg::PlanPools>,
) -> Candidate {
    let s = sized.sizing;
    let usd_per_month = s.usd_per_month.unwrap_or(f64::INFINITY);
    Candidate {
        gpu: unit.gpu.id.clone(),
        serving: if pools.is_some() {
            Serving::Disaggregated
        } else {
            Serving::Aggregated
        },
        gpus_per_replica: s.gpus_per_replica,
        tp: pools.map_or(unit.par.tp, |p| p.decode_tp),
        replicas: s.replicas,
        total_gpus: s.gpus,
        precision: unit.precision,
        concurrency: sized.point.concurrency,
        output_tok_s_per_replica: sized.point.output_tok_s,
        ttft_ms: sized.ttft_ms,
        tpot_ms: sized.tpot_ms,
        percentile: sized.percentile,
        usd_per_gpu_hour: unit.usd_per_gpu_hour.unwrap_or(0.0),
        price_source: request.price_tier.provenance(&unit.gpu),
        usd_per_month,
        usd_per_m_output: s.usd_per_m_output.unwrap_or(f64::INFINITY),
        usd_per_m_blended: sized.point.usd_per_m_blended.unwrap_or(f64::INFINITY)
            / s.utilization.max(1e-9),
        utilization: s.utilization,
        meets_slo: true,
        latency_method: sized.method,
        quality_caveat: matches!(unit.precision, Precision::Fp4 | Precision::Int4)
            .then_some(FOUR_BIT_CAVEAT),
        warnings: unit.warnings.clone(),
        pools,
        at_traffic: sized.at_traffic,
        range: sized.range,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(slo: Option<Slo>) -> PlanRequest {
        let mut base = ScenarioInput {
            model: "llama-3.1-8b".into(),
            ..ScenarioInput::default()
        };
        base.apply_workload_preset("chat").expect("preset");
        PlanRequest {
            gpus_allowed: vec!["h100-sxm".into(), "a100-sxm-80gb".into(), "l40s".into()],
            top: 3,
            ..PlanRequest::with_defaults(base, 20_000.0, slo)
        }
    }

    #[test]
    fn cheapest_first_and_meets_slo() {
        let slo = Slo {
            ttft_ms: 1000.0,
            tpot_ms: 50.0,
            percentile: 90.0,
        };
        let plan = plan(&request(Some(slo))).expect("plans");
        assert!(!plan.candidates.is_empty());
        for pair in plan.candidates.windows(2) {
            assert!(pair[0].usd_per_month <= pair[1].usd_per_month);
        }
        for c in &plan.candidates {
            assert!(c.ttft_ms <= 1000.0 && c.tpot_ms <= 50.0 && c.meets_slo);
            assert!(c.output_tok_s_per_replica * f64::from(c.replicas) >= 20_000.0);
        }
        assert!(plan
            .rejected
            .iter()
            .any(|r| r.reason.starts_with("costs more")));
    }

    #[test]
    fn impossible_slo_names_the_metric() {
        let slo = Slo {
            ttft_ms: 1e9,
            tpot_ms: 0.5,
            percentile: 90.0,
        };
        let plan = plan(&request(Some(slo))).expect("plans");
        assert!(plan.candidates.is_empty());
        assert!(plan
            .rejected
            .iter()
            .any(|r| r.reason.starts_with("misses TPOT")));
    }

    #[test]
    fn input_is_checked_once_and_names_the_field() {
        let input = PlanInput {
            base: ScenarioInput {
                output_len: 200.0,
                ..ScenarioInput::default()
            },
            traffic: Some(Traffic {
                amount: 50.0,
                unit: TrafficUnit::RequestsPerS,
            }),
            slo: SloInput {
                ttft_ms: Some(1000.0),
                tpot_ms: Some(40.0),
                method: Some(SloMethod::Analytic),
                ..SloInput::default()
            },
            top: Some(3.0),
            ..PlanInput::default()
        };
        let request = PlanRequest::try_from(input.clone()).expect("valid");
        assert_eq!(request.traffic_output_tok_s, 10_000.0);
        assert_eq!(request.top, 3);
        assert_eq!(request.price_tier, PriceTier::Typical);
        assert!(!request.verify_with_simulator);
        assert_eq!(request.slo.map(|s| s.percentile), Some(90.0));
        let field_named = |edit: fn(&mut PlanInput), field: &str| {
            let mut bad = input.clone();
            edit(&mut bad);
            let error = PlanRequest::try_from(bad).map(|_| ()).map_err(|e| e.field);
            assert_eq!(error, Err(field.to_string()));
        };
        field_named(|i| i.traffic = None, "traffic-tok-s");
        fn amount(i: &mut PlanInput, amount: f64) {
            if let Some(t) = i.traffic.as_mut() {
                t.amount = amount;
            }
        }
        field_named(|i| amount(i, -1.0), "traffic-req-s");
        field_named(|i| amount(i, f64::INFINITY), "traffic-req-s");
        field_named(
            |i| {
                i.traffic = Some(Traffic {
                    amount: 0.0,
                    unit: TrafficUnit::OutputTokS,
                })
            },
            "traffic-tok-s",
        );
        field_named(|i| i.top = Some(0.0), "top");
        field_named(|i| i.top = Some(2.5), "top");
        field_named(|i| i.top = Some(101.0), "top");
        field_named(|i| i.slo.ttft_ms = Some(-1.0), "slo-ttft-ms");
    }

    /// A plan ranks by price, so a GPU without one at the tier is left out, with the reason;
    /// a priced GPU with a complete spec is searched.
    #[test]
    fn gpus_without_a_price_are_not_plannable_and_say_why() {
        let cat = catalog().expect("catalog");
        let gb200 = cat.gpu("gb200").expect("in the catalog");
        let why = why_not_plannable(gb200, PriceTier::Typical).expect("no typical price");
        assert!(
            why.contains("no typical rental price") && why.contains(&gb200.name),
            "{why}"
        );
        let h100 = cat.gpu("h100-sxm").expect("in the catalog");
        assert_eq!(why_not_plannable(h100, PriceTier::Typical), None);
        let h800 = cat.gpu("h800").expect("in the catalog");
        assert_eq!(why_not_plannable(h800, PriceTier::Typical), None);
        assert_eq!(
            why_not_plannable(h800, PriceTier::Low),
            None,
            "an unquoted tier falls back to the typical price (`PriceTier::price`)"
        );
        assert!(why_not_plannable(gb200, PriceTier::Low).is_some());
    }

    /// The buyer's rules: no 4-bit weights unless allowed (then flagged), no candidate above
    /// the utilization ceiling, no replica wider than a server, whole servers past one.
    #[test]
    fn rules_a_buyer_can_sign() {
        let slo = Slo {
            ttft_ms: 1000.0,
            tpot_ms: 50.0,
            percentile: 90.0,
        };
        let default_rules = PlanRequest {
            top: 100,
            ..request(Some(slo))
        };
        let found = plan(&default_rules).expect("plans");
        assert!(!found.candidates.is_empty());
        for c in &found.candidates {
            assert!(
                c.precision.id() == "bf16" || c.precision.id() == "fp8",
                "{c:?}"
            );
            assert!(c.utilization <= 0.8 + 1e-12, "{c:?}");
            assert_eq!(c.quality_caveat, None);
        }
        assert!(found
            .rejected
            .iter()
            .all(|r| r.precision.id() != "int4" && r.precision.id() != "fp4"));

        let with_int4 = PlanRequest {
            precisions: vec![Precision::Int4, Precision::Fp8],
            max_utilization: 0.5,
            gpus_per_node: 4,
            ..default_rules.clone()
        };
        let found = plan(&with_int4).expect("plans");
        let int4: Vec<_> = found
            .candidates
            .iter()
            .filter(|c| c.precision.id() == "int4")
            .collect();
        assert!(!int4.is_empty(), "{found:?}");
        assert!(int4
            .iter()
            .all(|c| c.quality_caveat == Some(FOUR_BIT_CAVEAT)));
        for c in &found.candidates {
            assert!(c.utilization <= 0.5 + 1e-12, "{c:?}");
            assert!(c.gpus_per_replica <= 4);
            assert!(c.total_gpus <= 4 || c.total_gpus % 4 == 0, "{c:?}");
            assert!(c.output_tok_s_per_replica * f64::from(c.replicas) * 0.5 >= 20_000.0 - 1e-6);
        }
        assert!(found.rejected.iter().all(|r| r.tp <= 4));
    }

    /// The owned tier ranks by the ownership cost of each GPU, and needs a capex to run.
    #[test]
    fn the_owned_tier_ranks_by_what_owning_costs() {
        let ownership = Ownership {
            capex_usd_per_gpu: 30_000.0,
            depreciation_years: 4.0,
            power_w: None,
            pue: 1.3,
            usd_per_kwh: 0.10,
            hosting_usd_per_kw_month: 150.0,
            ops_usd_per_gpu_hour: 0.10,
        };
        let owned = PlanRequest {
            price_tier: PriceTier::Owned,
            ownership: Some(ownership),
            ..request(None)
        };
        let found = plan(&owned).expect("plans");
        let cat = catalog().expect("catalog");
        for c in &found.candidates {
            let gpu = cat.gpu(&c.gpu).expect("a catalog GPU");
            let expected = ownership.cost(gpu.tdp_w).expect("priced").usd_per_gpu_hour;
            assert!((c.usd_per_gpu_hour - expected).abs() < 1e-12, "{c:?}");
            assert!(c.price_source.starts_with("owned"), "{}", c.price_source);
        }
        let rented = plan(&request(None)).expect("plans");
        assert!(rented.candidates[0]
            .price_source
            .starts_with("catalog typical, as of 20"));
        let input = PlanInput {
            traffic: Some(Traffic {
                amount: 1000.0,
                unit: TrafficUnit::OutputTokS,
            }),
            price_tier: Some(PriceTier::Owned),
            ..PlanInput::default()
        };
        let error = PlanRequest::try_from(input)
            .map(|_| ())
            .map_err(|e| e.field);
        assert_eq!(error, Err("capex-usd-per-gpu".to_string()));
    }

    #[test]
    fn deployments_past_one_server_buy_whole_servers() {
        assert_eq!(deployment_size(1, 8, 8), (1, 8));
        assert_eq!(deployment_size(3, 2, 8), (3, 6), "fits one server");
        assert_eq!(deployment_size(3, 4, 8), (4, 16));
        assert_eq!(deployment_size(5, 2, 8), (8, 16));
        assert_eq!(deployment_size(9, 1, 8), (16, 16));
        assert_eq!(deployment_size(2, 8, 8), (2, 16));
    }

    #[test]
    fn plan_rules_are_checked_and_name_their_field() {
        let input = PlanInput {
            base: ScenarioInput::default(),
            traffic: Some(Traffic {
                amount: 1000.0,
                unit: TrafficUnit::OutputTokS,
            }),
            ..PlanInput::default()
        };
        let request = PlanRequest::try_from(input.clone()).expect("valid");
        assert_eq!(request.precisions, vec![Precision::Bf16, Precision::Fp8]);
        assert_eq!(request.max_utilization, 0.8);
        assert_eq!(request.gpus_per_node, 8);
        assert_eq!(request.tp_choices().collect::<Vec<_>>(), [1, 2, 4, 8]);
        let field_named = |edit: fn(&mut PlanInput), field: &str| {
            let mut bad = input.clone();
            edit(&mut bad);
            let error = PlanRequest::try_from(bad).map(|_| ()).map_err(|e| e.field);
            assert_eq!(error, Err(field.to_string()));
        };
        field_named(|i| i.max_utilization = Some(1.5), "max-utilization");
        field_named(|i| i.max_utilization = Some(0.0), "max-utilization");
        field_named(|i| i.gpus_per_node = Some(0.0), "gpus-per-node");
        field_named(|i| i.gpus_per_node = Some(2.5), "gpus-per-node");
        let mut six = input.clone();
        six.gpus_per_node = Some(6.0);
        six.precisions_allowed = vec![Precision::Int4, Precision::Int4];
        let six = PlanRequest::try_from(six).expect("valid");
        assert_eq!(six.tp_choices().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(six.precisions, vec![Precision::Int4]);
    }

    #[test]
    fn the_csv_lists_every_candidate_with_its_check() {
        let found = plan(&request(None)).expect("plans");
        let csv = candidates_csv(&found.candidates);
        let rows = crate::catalog::csv::parse_rows(&csv).expect("reads back");
        assert_eq!(rows.len(), found.candidates.len() + 1);
        assert_eq!(rows[0][0], "rank");
        assert!(rows[0].contains(&"slo_check".to_string()));
        assert_eq!(rows[1][1], found.candidates[0].gpu);
    }

    #[test]
    fn bad_traffic_is_an_error() {
        let mut r = request(None);
        r.traffic_output_tok_s = 0.0;
        assert!(plan(&r).is_err());
    }
}
