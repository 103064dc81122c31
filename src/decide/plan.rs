//! Plan: given a model, a workload, SLOs and a traffic level, search GPU type × GPUs per replica
//! (TP) × precision × batch size for the cheapest deployments that meet the SLOs, and say why
//! every other candidate lost (does not fit, misses TTFT, misses TPOT, costs more).
//!
//! For each candidate replica the highest-throughput concurrency meeting the SLO is found
//! (`model::slo`, analytic tails, fast enough for the whole space), replicas = ceil(traffic ÷
//! per-replica throughput), and cost = GPUs × price × 730 h (MODEL.md §7). Candidates are ranked
//! by $/month, then by GPUs; with `verify_with_simulator` the cheapest are re-searched with
//! simulated percentiles (`slo_sim`) before the final ranking.
//!
//! A request as given (`PlanInput`: CLI flags) is checked once by `PlanRequest::try_from`, whose
//! error names the field as the flag does (`traffic-req-s`, `top`, `slo-ttft-ms`).

use crate::catalog::{catalog, Gpu};
use crate::model::economics::{replicas_needed, PriceTier, HOURS_PER_MONTH};
use crate::model::evaluate;
use crate::model::grid::sweep_grid;
use crate::model::precision::Precision;
use crate::model::slo::{best_point_meeting, tail_estimate, Slo, SloInput, SloMethod, SloSettings};
use crate::scenario::{Scenario, ScenarioError, ScenarioInput};
use serde::Serialize;

/// GPUs per replica tried (one node).
pub const TP_CHOICES: [u32; 4] = [1, 2, 4, 8];

/// What to plan for.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRequest {
    /// Model, workload, engine and efficiency settings; GPU, count, TP, precision and price are searched.
    pub base: ScenarioInput,
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
}

/// Most candidates a plan lists.
pub const MAX_TOP: usize = 100;

/// A plan request as given, nothing checked yet (parse, don't validate).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanInput {
    /// As in `PlanRequest::base`.
    pub base: ScenarioInput,
    /// Output tokens/s, or requests/s (× the base's output length); exactly one.
    pub traffic_tok_s: Option<f64>,
    pub traffic_req_s: Option<f64>,
    /// The method says whether the cheapest candidates are verified in the simulator.
    pub slo: SloInput,
    /// GPU ids; empty as in `PlanRequest::gpus_allowed`.
    pub gpus_allowed: Vec<String>,
    /// "low", "typical" (default) or "high".
    pub price_tier: Option<String>,
    /// Candidates to list (default 5).
    pub top: Option<f64>,
}

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
        let (field, traffic_output_tok_s) = match (input.traffic_tok_s, input.traffic_req_s) {
            (Some(tok_s), None) => ("traffic-tok-s", tok_s),
            (None, Some(req_s)) => ("traffic-req-s", req_s * input.base.output_len),
            _ => {
                return Err(field_error(
                    "traffic-tok-s",
                    "give exactly one traffic level: --traffic-tok-s X (output tokens/s) or --traffic-req-s R",
                ))
            }
        };
        if !(traffic_output_tok_s > 0.0 && traffic_output_tok_s.is_finite()) {
            return Err(field_error(
                field,
                format!("must be positive (got {traffic_output_tok_s} output tok/s)"),
            ));
        }
        let price_tier = match input.price_tier.as_deref() {
            None => PriceTier::Typical,
            Some(text) => PriceTier::parse(text)
                .ok_or_else(|| field_error("price-tier", "one of low, typical, high"))?,
        };
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
        Ok(PlanRequest {
            base: input.base,
            traffic_output_tok_s,
            slo: slo.slo,
            gpus_allowed: input.gpus_allowed,
            price_tier,
            top,
            verify_with_simulator: slo.method == SloMethod::Simulated,
        })
    }
}

/// One deployment that meets the SLOs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub gpu: String,
    pub gpus_per_replica: u32,
    pub tp: u32,
    pub replicas: u32,
    pub total_gpus: u32,
    pub precision: &'static str,
    /// Requests in flight per replica.
    pub concurrency: u32,
    pub output_tok_s_per_replica: f64,
    /// At the SLO's percentile (simulated when verified, else the analytic estimate), or the mean
    /// when no SLO is set.
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    pub percentile: Option<f64>,
    pub usd_per_gpu_hour: f64,
    pub usd_per_month: f64,
    /// All-in $/M output tokens at the planned traffic (idle capacity billed).
    pub usd_per_m_output: f64,
    /// Blended (3:1) $/M at the planned traffic.
    pub usd_per_m_blended: f64,
    /// Traffic ÷ capacity of the replicas bought.
    pub utilization: f64,
    pub meets_slo: bool,
    /// How the tails were obtained: "simulated", "analytic" or "mean" (no SLO).
    pub latency_method: &'static str,
    pub warnings: Vec<String>,
    /// A disaggregated unit's pools (`plan_disagg`), flattened into the JSON; absent when aggregated.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub pools: Option<super::plan_disagg::PlanPools>,
}

/// A configuration that lost, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rejected {
    pub gpu: String,
    pub tp: u32,
    pub precision: &'static str,
    pub reason: String,
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
    if let Some(why) = gpu.missing_spec() {
        return Some(why);
    }
    match tier.price(gpu) {
        Some(_) => None,
        None => Some(format!(
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
    /// Every candidate that met the SLO (the top `K` are in `candidates`).
    pub feasible: usize,
    /// Configurations searched (GPU × precision × TP).
    pub searched: usize,
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
            match why_not_plannable(gpu, request.price_tier) {
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
    let search = super::plan_disagg::ServingSearch::of(request);
    for gpu in gpus.iter().copied().filter(|_| search.aggregated) {
        for precision in Precision::ALL {
            for tp in TP_CHOICES {
                let reject = |reason: String| Rejected {
                    gpu: gpu.id.clone(),
                    tp,
                    precision: precision.id(),
                    reason,
                };
                let Some(price) = request.price_tier.price(gpu) else {
                    rejected.push(reject(format!(
                        "no {} price for {} in the catalog",
                        request.price_tier.id(),
                        gpu.name
                    )));
                    continue;
                };
                let input = ScenarioInput {
                    gpu: gpu.id.clone(),
                    gpu_count: f64::from(tp),
                    tp: Some(f64::from(tp)),
                    pp: None,
                    ep: None,
                    precision: precision.id().into(),
                    usd_per_gpu_hour: Some(price),
                    serving: crate::scenario::AGGREGATED.into(),
                    ..request.base.clone()
                };
                let scenario = match Scenario::try_from(input) {
                    Ok(s) => s,
                    Err(e) => {
                        rejected.push(reject(format!("does not fit: {}", e.message)));
                        continue;
                    }
                };
                match evaluate_candidate(&scenario, request) {
                    Ok(candidate) => feasible.push(candidate),
                    Err(reason) => rejected.push(reject(reason)),
                }
            }
        }
    }
    let disaggregated = match search.disaggregated {
        true => super::plan_disagg::disaggregated_candidates(&gpus, request, &mut rejected),
        false => Vec::new(),
    };
    let searched = feasible.len() + disaggregated.len() + rejected.len();
    sort(&mut feasible);
    if let (true, Some(slo)) = (request.verify_with_simulator, &request.slo) {
        feasible = verify(feasible, request, slo, &mut rejected);
        sort(&mut feasible);
    }
    feasible.extend(super::plan_disagg::verify_disaggregated(
        disaggregated,
        &gpus,
        request,
        &mut rejected,
    ));
    sort(&mut feasible);
    let count = feasible.len();
    let top = request.top.max(1);
    let cheapest = feasible.first().map(|c| c.usd_per_month);
    for lost in feasible.iter().skip(top) {
        rejected.push(Rejected {
            gpu: lost.gpu.clone(),
            tp: lost.tp,
            precision: lost.precision,
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
        searched,
    })
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
    let budget = request.top.max(1) * 3 + 3;
    let mut verified = Vec::new();
    for candidate in candidates.into_iter().take(budget) {
        if verified.len() >= request.top.max(1) {
            break;
        }
        let input = ScenarioInput {
            gpu: candidate.gpu.clone(),
            gpu_count: f64::from(candidate.gpus_per_replica),
            tp: Some(f64::from(candidate.tp)),
            pp: None,
            ep: None,
            precision: candidate.precision.into(),
            usd_per_gpu_hour: Some(candidate.usd_per_gpu_hour),
            serving: crate::scenario::AGGREGATED.into(),
            ..request.base.clone()
        };
        let Ok(scenario) = Scenario::try_from(input) else {
            continue;
        };
        match crate::decide::slo_sim::best_point_meeting_simulated(&scenario, slo) {
            Some((point, tail)) => {
                let at = scenario.with_concurrency(point.concurrency);
                let simulated_point = evaluate(&at);
                if let Ok(mut c) = price(&at, request, &simulated_point) {
                    c.ttft_ms = tail.ttft_ms;
                    c.tpot_ms = tail.tpot_ms;
                    c.percentile = Some(slo.percentile);
                    c.latency_method = "simulated";
                    verified.push(c);
                }
            }
            None => rejected.push(Rejected {
                gpu: candidate.gpu.clone(),
                tp: candidate.tp,
                precision: candidate.precision,
                reason: format!(
                    "misses the SLO in simulation (the analytic estimate passed): no concurrency meets P{} TTFT ≤ {} ms and TPOT ≤ {} ms",
                    slo.percentile, slo.ttft_ms, slo.tpot_ms
                ),
            }),
        }
    }
    verified
}

/// The best operating point of one replica configuration and what the traffic then costs.
fn evaluate_candidate(scenario: &Scenario, request: &PlanRequest) -> Result<Candidate, String> {
    let (point, ttft_ms, tpot_ms, percentile) = match &request.slo {
        Some(slo) => match best_point_meeting(scenario, slo) {
            Some((point, tail)) => (point, tail.ttft_ms, tail.tpot_ms, Some(slo.percentile)),
            None => return Err(why_slo_missed(scenario, slo)),
        },
        None => {
            let point = evaluate(&scenario.with_concurrency(scenario.max_feasible_concurrency()));
            let (ttft, tpot) = (point.ttft_ms, point.tpot_ms);
            (point, ttft, tpot, None)
        }
    };
    let mut candidate = price(scenario, request, &point)?;
    candidate.ttft_ms = ttft_ms;
    candidate.tpot_ms = tpot_ms;
    candidate.percentile = percentile;
    candidate.latency_method = if percentile.is_some() {
        "analytic"
    } else {
        "mean"
    };
    Ok(candidate)
}

/// Replicas, GPUs and money for carrying the traffic at one operating point.
fn price(
    scenario: &Scenario,
    request: &PlanRequest,
    point: &crate::model::OperatingPoint,
) -> Result<Candidate, String> {
    let replicas = replicas_needed(request.traffic_output_tok_s, point.output_tok_s)
        .ok_or("produces no output at any concurrency")?;
    let gpus_per_replica = scenario.par.gpus_per_replica();
    let total_gpus = replicas.saturating_mul(gpus_per_replica);
    // Candidates are priced by their tier (`plan` skips a GPU without one), so this holds.
    let usd_per_gpu_hour = scenario
        .usd_per_gpu_hour
        .ok_or("no price per GPU-hour to rank by")?;
    let usd_per_m_blended_at_capacity = point
        .usd_per_m_blended
        .ok_or("no price per GPU-hour to rank by")?;
    let usd_per_month = f64::from(total_gpus) * usd_per_gpu_hour * HOURS_PER_MONTH;
    let capacity = point.output_tok_s * f64::from(replicas);
    let utilization = (request.traffic_output_tok_s / capacity).min(1.0);
    let usd_per_m_output =
        usd_per_month / (request.traffic_output_tok_s * 3600.0 * HOURS_PER_MONTH) * 1e6;
    Ok(Candidate {
        gpu: scenario.gpu.id.clone(),
        gpus_per_replica,
        tp: scenario.par.tp,
        replicas,
        total_gpus,
        precision: scenario.precision.id(),
        concurrency: point.concurrency,
        output_tok_s_per_replica: point.output_tok_s,
        ttft_ms: point.ttft_ms,
        tpot_ms: point.tpot_ms,
        percentile: None,
        usd_per_gpu_hour,
        usd_per_month,
        usd_per_m_output,
        usd_per_m_blended: usd_per_m_blended_at_capacity / utilization.max(1e-9),
        utilization,
        meets_slo: true,
        latency_method: "mean",
        warnings: scenario.warnings.clone(),
        pools: None,
    })
}

/// Name the target no concurrency can meet: the best tail each metric reaches on its own.
fn why_slo_missed(scenario: &Scenario, slo: &Slo) -> String {
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
            base,
            traffic_output_tok_s: 20_000.0,
            slo,
            gpus_allowed: vec!["h100-sxm".into(), "a100-sxm-80gb".into(), "l40s".into()],
            price_tier: PriceTier::Typical,
            top: 3,
            verify_with_simulator: false,
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
            traffic_req_s: Some(50.0),
            slo: SloInput {
                ttft_ms: Some(1000.0),
                tpot_ms: Some(40.0),
                method: Some("analytic".into()),
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
        field_named(|i| i.traffic_req_s = None, "traffic-tok-s");
        field_named(|i| i.traffic_tok_s = Some(5.0), "traffic-tok-s");
        field_named(|i| i.traffic_req_s = Some(-1.0), "traffic-req-s");
        field_named(|i| i.traffic_req_s = Some(f64::INFINITY), "traffic-req-s");
        field_named(|i| i.price_tier = Some("cheap".into()), "price-tier");
        field_named(|i| i.top = Some(0.0), "top");
        field_named(|i| i.top = Some(2.5), "top");
        field_named(|i| i.top = Some(101.0), "top");
        field_named(|i| i.slo.ttft_ms = Some(-1.0), "slo-ttft-ms");
        field_named(|i| i.slo.method = Some("exact".into()), "slo-method");
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

    #[test]
    fn bad_traffic_is_an_error() {
        let mut r = request(None);
        r.traffic_output_tok_s = 0.0;
        assert!(plan(&r).is_err());
    }
}
