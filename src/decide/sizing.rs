//! Sizing a deployment: which operating point a replica can run at under a latency SLO, how
//! many replicas and GPUs a traffic level needs there, what that costs per month, and the
//! conversions between the ways people state traffic (requests/s, tokens per day).
//!
//! The page's decision panels (cost, compare, plan) and any other caller share these, so a
//! number means the same everywhere. Formulas: MODEL.md §7 (`$/month = GPUs × $/GPU-hour × 730`,
//! utilization = traffic ÷ capacity of what is bought); SLO point as in `model::slo`.

use crate::decide::plan::Candidate;
use crate::model::economics::{energy_usd_per_gpu_hour, replicas_needed, Energy, HOURS_PER_MONTH};
use crate::model::grid::sweep_grid;
use crate::model::slo::{tail_estimate, Slo, TailEstimate};
use crate::model::{evaluate, OperatingPoint};
use crate::scenario::{Scenario, ScenarioInput};

/// Seconds in a day, for "tokens per day".
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// Output tokens per second a request rate produces: `req/s × E[O]`.
pub fn output_tok_s_from_req_s(requests_per_s: f64, output_len: f64) -> f64 {
    requests_per_s * output_len
}

/// Tokens per day (prompt + output) of a request rate: `req/s × (E[P] + E[O]) × 86 400`.
pub fn tokens_per_day_from_req_s(requests_per_s: f64, input_len: f64, output_len: f64) -> f64 {
    requests_per_s * (input_len + output_len) * SECONDS_PER_DAY
}

/// The request rate behind a daily token volume (prompt + output); `None` for empty requests.
pub fn req_s_from_tokens_per_day(
    tokens_per_day: f64,
    input_len: f64,
    output_len: f64,
) -> Option<f64> {
    let per_request = input_len + output_len;
    (per_request > 0.0 && per_request.is_finite())
        .then(|| tokens_per_day / (per_request * SECONDS_PER_DAY))
}

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
            evaluate(&scenario.with_concurrency(scenario.max_feasible_concurrency())),
            None,
        )),
    }
}

/// Output tok/s of one busy replica at `point` (the system's rate over its busy replicas).
pub fn per_replica_output_tok_s(point: &OperatingPoint) -> f64 {
    let busy = point.replicas.min(point.concurrency).max(1);
    point.output_tok_s / f64::from(busy)
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

/// Replicas = ceil(traffic ÷ per-replica throughput at `point`); GPUs = replicas × GPUs per
/// replica (a disaggregated unit: replicas of the whole unit × both pools' GPUs); $/month = GPUs × (rental + energy at the resulting utilization) × 730 h (no money
/// without a price per GPU-hour). `None` when the traffic is not positive or the point produces nothing.
pub fn size_for_traffic(
    scenario: &Scenario,
    point: &OperatingPoint,
    traffic_output_tok_s: f64,
    energy: Option<&Energy>,
) -> Option<Sizing> {
    if traffic_output_tok_s.is_nan() || traffic_output_tok_s <= 0.0 {
        return None;
    }
    // A disaggregated scenario is one unit of both pools: it is what is replicated (MODEL.md
    // §4.4; DistServe §4.1 replicates the placement unit), so its rate is the whole point's and
    // its GPUs are both pools'.
    let (per_replica, gpus_per_replica) = if scenario.pools.is_some() {
        (point.output_tok_s, scenario.total_gpus().max(1))
    } else {
        (
            per_replica_output_tok_s(point),
            scenario.par.gpus_per_replica().max(1),
        )
    };
    let replicas = replicas_needed(traffic_output_tok_s, per_replica)?;
    let gpus = replicas.saturating_mul(gpus_per_replica);
    let utilization = (traffic_output_tok_s / (per_replica * f64::from(replicas))).clamp(0.0, 1.0);
    let energy_per_gpu_hour = match (energy, scenario.gpu.tdp_w) {
        (Some(energy), Some(tdp_w)) => energy_usd_per_gpu_hour(tdp_w, utilization, energy),
        _ => 0.0,
    };
    let energy_usd_per_hour = f64::from(gpus) * energy_per_gpu_hour;
    let usd_per_hour = scenario
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
            serving: candidate.serving.to_string(),
            prefill_gpus: Some(f64::from(pools.prefill_gpus)),
            prefill_tp: Some(f64::from(pools.prefill_tp)),
            decode_gpus: Some(f64::from(pools.decode_gpus)),
            decode_tp: Some(f64::from(pools.decode_tp)),
            precision: candidate.precision.to_string(),
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
        precision: candidate.precision.to_string(),
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
    fn traffic_conversions_round_trip() {
        // 10 req/s of 1155 + 211 tokens: 13 660 tok/s, 1.18 B tokens a day, 2110 output tok/s.
        let per_day = tokens_per_day_from_req_s(10.0, 1155.0, 211.0);
        assert!((per_day - 1_180_224_000.0).abs() < 1e-3);
        let back = req_s_from_tokens_per_day(per_day, 1155.0, 211.0).expect("defined");
        assert!((back - 10.0).abs() < 1e-12);
        assert_eq!(output_tok_s_from_req_s(10.0, 211.0), 2110.0);
        assert_eq!(req_s_from_tokens_per_day(1.0, 0.0, 0.0), None);
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

    #[test]
    fn sizing_rounds_replicas_up_and_bills_idle_capacity() {
        let scenario = default_scenario();
        let (point, tail) = capacity_point(&scenario, None).expect("a max-throughput point");
        assert!(tail.is_none());
        assert_eq!(point.concurrency, scenario.max_feasible_concurrency());
        let per_replica = per_replica_output_tok_s(&point);
        // 2.5 replicas' worth of traffic buys 3 replicas of 2 GPUs.
        let sizing = size_for_traffic(&scenario, &point, 2.5 * per_replica, None).expect("sized");
        assert_eq!(sizing.replicas, 3);
        assert_eq!(sizing.gpus_per_replica, 2);
        assert_eq!(sizing.gpus, 6);
        assert!((sizing.utilization - 2.5 / 3.0).abs() < 1e-9);
        let usd_per_month = sizing.usd_per_month.expect("priced");
        assert!((usd_per_month - 6.0 * 3.125 * 730.0).abs() < 1e-6);
        let usd_per_hour = sizing.usd_per_hour.expect("priced");
        let bill_per_token = usd_per_hour / (2.5 * per_replica * 3600.0) * 1e6;
        assert!((sizing.usd_per_m_output.expect("priced") - bill_per_token).abs() < 1e-12);
        // Energy adds GPUs × (idle + (TDP − idle)·u) × PUE × $/kWh.
        let energy = Energy {
            usd_per_kwh: 0.10,
            pue: 1.3,
        };
        let with_energy =
            size_for_traffic(&scenario, &point, 2.5 * per_replica, Some(&energy)).expect("sized");
        let expected = 6.0 * energy_usd_per_gpu_hour(700.0, 2.5 / 3.0, &energy);
        assert!((with_energy.energy_usd_per_hour - expected).abs() < 1e-9);
        assert!(size_for_traffic(&scenario, &point, 0.0, None).is_none());
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
        let (point, _) = capacity_point(&scenario, None).expect("a max-throughput point");
        let per_replica = per_replica_output_tok_s(&point);
        let sizing = size_for_traffic(&scenario, &point, 2.5 * per_replica, None).expect("sized");
        assert_eq!(sizing.replicas, 3);
        assert_eq!(sizing.gpus, 3 * sizing.gpus_per_replica);
        assert_eq!(sizing.usd_per_hour, None);
        assert_eq!(sizing.usd_per_month, None);
        assert_eq!(sizing.usd_per_m_output, None);
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
        assert_eq!(scenario.precision.id(), best.precision);
        let point = evaluate(&scenario);
        let planned = best.output_tok_s_per_replica * f64::from(best.replicas);
        assert!(
            (point.output_tok_s - planned).abs() <= 1e-6 * planned,
            "{} vs {planned}",
            point.output_tok_s
        );
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
            precision: "fp8".into(),
            serving: "disaggregated".into(),
            prefill_gpus: Some(2.0),
            prefill_tp: Some(2.0),
            decode_gpus: Some(4.0),
            decode_tp: Some(2.0),
            concurrency: 64.0,
            ..ScenarioInput::default()
        })
        .expect("valid");
        let point = crate::model::evaluate(&unit);
        assert!(point.output_tok_s > 0.0);
        let sizing =
            size_for_traffic(&unit, &point, 2.5 * point.output_tok_s, None).expect("sized");
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
