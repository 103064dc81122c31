//! The disaggregated half of `plan --serving` (issue 14 §2): xPyD units on one node — `x`
//! prefill replicas of TP `t_p` and `y` decode replicas of TP `t_d`, `x·t_p + y·t_d ≤ 8`, so the
//! KV hand-off stays on NVLink — for every GPU and precision the plan searches. Each unit's best
//! operating point meeting the SLO (`model::slo::best_point_meeting`, analytic tails: the
//! decode pool has no prefill stalls, so the TPOT tail is its step; the TTFT tail adds the long
//! prompt's own prefill), then units = ⌈traffic ÷ unit throughput⌉ and $/month as for any
//! candidate (MODEL.md §7). `plan` appends these to its aggregated candidates and ranks them all.
//!
//! DistServe searches the same space (instances per phase and each phase's parallelism, then
//! replicates the unit to the traffic: Zhong et al., OSDI '24, §4.1 "placement for
//! high node-affinity clusters"); so does NVIDIA AIConfigurator for xPyD.

use super::plan::{Candidate, Lost, PlanRequest, Rejected, TP_CHOICES};
use crate::catalog::Gpu;
use crate::model::economics::{replicas_needed, HOURS_PER_MONTH};
use crate::model::precision::Precision;
use crate::model::slo::best_point_meeting;
use crate::scenario::{Scenario, ScenarioInput};
use serde::Serialize;

/// GPUs one xPyD unit may use: one 8-GPU node.
pub const UNIT_GPUS: u32 = 8;

/// What `plan --serving` searches (the base input's `serving` text: `aggregated`,
/// `disaggregated` or `any`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServingSearch {
    pub aggregated: bool,
    pub disaggregated: bool,
}

impl ServingSearch {
    pub fn of(request: &PlanRequest) -> ServingSearch {
        ServingSearch::parse(&request.base.serving)
    }

    /// `disaggregated`, `any`, else aggregated only.
    pub fn parse(serving: &str) -> ServingSearch {
        match serving.trim() {
            "disaggregated" => ServingSearch {
                aggregated: false,
                disaggregated: true,
            },
            "any" => ServingSearch {
                aggregated: true,
                disaggregated: true,
            },
            _ => ServingSearch {
                aggregated: true,
                disaggregated: false,
            },
        }
    }
}

/// An xPyD unit's pools, flattened into a plan candidate's or a leaderboard row's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PlanPools {
    pub prefill_replicas: u32,
    pub prefill_tp: u32,
    pub decode_replicas: u32,
    pub decode_tp: u32,
    /// Prefill GPUs of one unit (`prefill_replicas × prefill_tp`).
    pub prefill_gpus: u32,
    pub decode_gpus: u32,
}

/// The pools of the xPyD shape `(x, t_p, y, t_d)`.
pub fn pools_of((x, tp_p, y, tp_d): (u32, u32, u32, u32)) -> PlanPools {
    PlanPools {
        prefill_replicas: x,
        prefill_tp: tp_p,
        decode_replicas: y,
        decode_tp: tp_d,
        prefill_gpus: x * tp_p,
        decode_gpus: y * tp_d,
    }
}

/// The xPyD shapes of one node: `(x, t_p, y, t_d)`.
pub fn unit_shapes() -> Vec<(u32, u32, u32, u32)> {
    let mut shapes = Vec::new();
    for tp_p in TP_CHOICES {
        for tp_d in TP_CHOICES {
            for x in 1..=UNIT_GPUS {
                for y in 1..=UNIT_GPUS {
                    if x * tp_p + y * tp_d <= UNIT_GPUS {
                        shapes.push((x, tp_p, y, tp_d));
                    }
                }
            }
        }
    }
    shapes
}

/// The base input moved to one xPyD unit on `gpu` at `precision` and `price` (`None`: the
/// catalog's typical price, as the leaderboard prices).
pub fn unit_input(
    base: &ScenarioInput,
    gpu: &Gpu,
    precision: Precision,
    price: Option<f64>,
    pools: &PlanPools,
) -> ScenarioInput {
    ScenarioInput {
        gpu: gpu.id.clone(),
        gpu_count: f64::from(pools.prefill_gpus + pools.decode_gpus),
        tp: None,
        pp: None,
        ep: None,
        precision: precision.id().into(),
        usd_per_gpu_hour: price,
        serving: crate::scenario::DISAGGREGATED.into(),
        prefill_gpus: Some(f64::from(pools.prefill_gpus)),
        prefill_tp: Some(f64::from(pools.prefill_tp)),
        decode_gpus: Some(f64::from(pools.decode_gpus)),
        decode_tp: Some(f64::from(pools.decode_tp)),
        ..base.clone()
    }
}

/// Every disaggregated unit on `gpus` that meets the request's SLO, priced; the rest rejected.
pub fn disaggregated_candidates(
    gpus: &[&Gpu],
    request: &PlanRequest,
    rejected: &mut Vec<Rejected>,
) -> Vec<Candidate> {
    let mut feasible = Vec::new();
    for gpu in gpus {
        let Some(price) = request.price_tier.price(gpu) else {
            continue;
        };
        for precision in request.precisions.iter().copied() {
            let mut lost: Vec<Rejected> = Vec::new();
            let found = feasible.len();
            for (x, tp_p, y, tp_d) in unit_shapes() {
                let pools = pools_of((x, tp_p, y, tp_d));
                let reject = |lost: Lost, reason: String| Rejected {
                    gpu: gpu.id.clone(),
                    tp: tp_d,
                    precision: precision.id(),
                    lost,
                    reason: format!("{x}P(TP{tp_p}) + {y}D(TP{tp_d}): {reason}"),
                };
                let input = unit_input(&request.base, gpu, precision, Some(price), &pools);
                let scenario = match Scenario::try_from(input) {
                    Ok(s) => s,
                    Err(e) => {
                        lost.push(reject(
                            Lost::DoesNotFit,
                            format!("does not fit: {}", e.message),
                        ));
                        continue;
                    }
                };
                match unit_candidate(&scenario, request, pools) {
                    Ok(c) => feasible.push(c),
                    Err(reason) => lost.push(reject(Lost::MissedTarget, reason)),
                }
            }
            // One line per GPU and precision where no unit qualified (the last unit's reason),
            // not one per shape: the aggregated search already lists each TP.
            if feasible.len() == found {
                if let Some(last) = lost.pop() {
                    rejected.push(Rejected {
                        reason: format!(
                            "disaggregated: none of {} xPyD units qualifies; e.g. {}",
                            lost.len() + 1,
                            last.reason
                        ),
                        ..last
                    });
                }
            }
        }
    }
    feasible
}

fn unit_candidate(
    scenario: &Scenario,
    request: &PlanRequest,
    pools: PlanPools,
) -> Result<Candidate, String> {
    let (point, ttft_ms, tpot_ms, percentile) = match &request.slo {
        Some(slo) => match best_point_meeting(scenario, slo) {
            Some((point, tail)) => (point, tail.ttft_ms, tail.tpot_ms, Some(slo.percentile)),
            None => return Err("misses the SLO at every concurrency".into()),
        },
        None => {
            let at = scenario.with_concurrency(scenario.max_feasible_concurrency());
            let point = crate::model::evaluate(&at);
            let (ttft, tpot) = (point.ttft_ms, point.tpot_ms);
            (point, ttft, tpot, None)
        }
    };
    priced(
        scenario,
        request,
        pools,
        &point,
        (ttft_ms, tpot_ms, percentile),
    )
}

/// As `plan`'s own verification: the cheapest disaggregated units (in cost order, at most
/// `3·top + 3`) are searched again with simulated percentiles (`slo_sim`, which runs
/// `sim::disagg`), until `top` pass; those failing in simulation are rejected.
pub fn verify_disaggregated(
    mut candidates: Vec<Candidate>,
    gpus: &[&Gpu],
    request: &PlanRequest,
    rejected: &mut Vec<Rejected>,
) -> Vec<Candidate> {
    let Some(slo) = request.slo.filter(|_| request.verify_with_simulator) else {
        return candidates;
    };
    candidates.sort_by(|a, b| a.usd_per_month.total_cmp(&b.usd_per_month));
    let top = request.top.max(1);
    let mut verified = Vec::new();
    for candidate in candidates.into_iter().take(top * 3 + 3) {
        if verified.len() >= top {
            break;
        }
        let (Some(pools), Some(gpu), Some(precision)) = (
            candidate.pools,
            gpus.iter().find(|g| g.id == candidate.gpu),
            Precision::ALL
                .into_iter()
                .find(|p| p.id() == candidate.precision),
        ) else {
            continue;
        };
        let input = unit_input(
            &request.base,
            gpu,
            precision,
            Some(candidate.usd_per_gpu_hour),
            &pools,
        );
        let Ok(scenario) = Scenario::try_from(input) else {
            continue;
        };
        match crate::decide::slo_sim::best_point_meeting_simulated(&scenario, &slo) {
            Some((point, tail)) => {
                let at = scenario.with_concurrency(point.concurrency);
                let at_point = crate::model::evaluate(&at);
                let tails = (tail.ttft_ms, tail.tpot_ms, Some(slo.percentile));
                if let Ok(mut c) = priced(&at, request, pools, &at_point, tails) {
                    c.latency_method = "simulated";
                    verified.push(c);
                }
            }
            None => rejected.push(Rejected {
                gpu: candidate.gpu.clone(),
                tp: candidate.tp,
                precision: candidate.precision,
                lost: Lost::MissedTarget,
                reason: format!(
                    "{}P(TP{}) + {}D(TP{}): misses the SLO in simulation (the analytic estimate passed)",
                    pools.prefill_replicas, pools.prefill_tp, pools.decode_replicas, pools.decode_tp
                ),
            }),
        }
    }
    verified
}

/// Units, GPUs and money for carrying the traffic at one operating point of a unit, with the
/// tails `(ttft_ms, tpot_ms, percentile)` it was chosen by.
fn priced(
    scenario: &Scenario,
    request: &PlanRequest,
    pools: PlanPools,
    point: &crate::model::OperatingPoint,
    (ttft_ms, tpot_ms, percentile): (f64, f64, Option<f64>),
) -> Result<Candidate, String> {
    // Sized under the buyer's utilization ceiling, as aggregated candidates are (`plan::price`).
    let ceiling = request.max_utilization.clamp(1e-3, 1.0);
    let units = replicas_needed(request.traffic_output_tok_s, point.output_tok_s * ceiling)
        .ok_or("produces no output at any concurrency")?;
    let per_unit = scenario.total_gpus();
    let total_gpus = units.saturating_mul(per_unit);
    let usd_per_gpu_hour = scenario.usd_per_gpu_hour.ok_or("no price to rank by")?;
    let blended = point.usd_per_m_blended.ok_or("no price to rank by")?;
    let usd_per_month = f64::from(total_gpus) * usd_per_gpu_hour * HOURS_PER_MONTH;
    let capacity = point.output_tok_s * f64::from(units);
    let utilization = (request.traffic_output_tok_s / capacity).min(1.0);
    Ok(Candidate {
        gpu: scenario.gpu.id.clone(),
        serving: crate::scenario::DISAGGREGATED,
        gpus_per_replica: per_unit,
        tp: pools.decode_tp,
        replicas: units,
        total_gpus,
        precision: scenario.precision.id(),
        concurrency: point.concurrency,
        output_tok_s_per_replica: point.output_tok_s,
        ttft_ms,
        tpot_ms,
        percentile,
        usd_per_gpu_hour,
        price_source: request.price_tier.provenance(&scenario.gpu),
        usd_per_month,
        usd_per_m_output: usd_per_month / (request.traffic_output_tok_s * 3600.0 * HOURS_PER_MONTH)
            * 1e6,
        usd_per_m_blended: blended / utilization.max(1e-9),
        utilization,
        meets_slo: true,
        latency_method: if percentile.is_some() {
            "analytic"
        } else {
            "mean"
        },
        quality_caveat: matches!(scenario.precision, Precision::Fp4 | Precision::Int4)
            .then_some(super::plan::FOUR_BIT_CAVEAT),
        warnings: scenario.warnings.clone(),
        pools: Some(pools),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_shapes_fit_one_node() {
        let shapes = unit_shapes();
        assert!(shapes.contains(&(1, 1, 1, 1)));
        assert!(shapes.contains(&(2, 2, 1, 4)));
        assert!(!shapes.contains(&(2, 4, 1, 1)));
        assert!(shapes.iter().all(|(x, p, y, d)| x * p + y * d <= 8));
    }
}
