//! The disaggregated half of `plan --serving` (issue 14 §2): xPyD units on one node — `x`
//! prefill replicas of TP `t_p` and `y` decode replicas of TP `t_d`, `x·t_p + y·t_d ≤ 8`, so the
//! KV hand-off stays on NVLink — for every GPU and precision the plan searches. Each unit's best
//! operating point meeting the SLO (`model::slo::best_point_meeting`, analytic tails: the
//! decode pool has no prefill stalls, so the TPOT tail is its step; the TTFT tail adds the long
//! prompt's own prefill), then units and $/month by `sizing::size`, as for any candidate
//! (MODEL.md §7). `plan` appends these to its aggregated candidates and ranks them all.
//!
//! DistServe searches the same space (instances per phase and each phase's parallelism, then
//! replicates the unit to the traffic: Zhong et al., OSDI '24, §4.1 "placement for
//! high node-affinity clusters"); so does NVIDIA AIConfigurator for xPyD.

use super::plan::{Candidate, Lost, PlanRequest, Rejected, TP_CHOICES};
use crate::catalog::Gpu;
use crate::choice::choices;
use crate::physics::precision::Precision;
use crate::scenario::pools::Serving;
use crate::scenario::{Scenario, ScenarioInput};
use serde::Serialize;

/// GPUs one xPyD unit may use: one 8-GPU node.
pub const UNIT_GPUS: u32 = 8;

/// What `plan --serving` and the leaderboard search: aggregated layouts, disaggregated units or
/// both (`any`, what the CLI's and the page's plan and leaderboard search unless told). The
/// default is the scenario's own default serving, aggregated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServingSearch {
    #[default]
    Aggregated,
    Disaggregated,
    Any,
}

choices!(ServingSearch {
    ServingSearch::Any => "any", "Aggregated and disaggregated";
    ServingSearch::Aggregated => "aggregated", "Aggregated (one pool)";
    ServingSearch::Disaggregated => "disaggregated", "Disaggregated (prefill + decode pools)";
});

impl ServingSearch {
    /// Whether aggregated layouts are searched.
    pub fn aggregated(self) -> bool {
        self != ServingSearch::Disaggregated
    }

    /// Whether disaggregated units are searched.
    pub fn disaggregated(self) -> bool {
        self != ServingSearch::Aggregated
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
        precision,
        usd_per_gpu_hour: price,
        serving: Serving::Disaggregated,
        prefill_gpus: Some(f64::from(pools.prefill_gpus)),
        prefill_tp: Some(f64::from(pools.prefill_tp)),
        decode_gpus: Some(f64::from(pools.decode_gpus)),
        decode_tp: Some(f64::from(pools.decode_tp)),
        ..base.clone()
    }
}

/// Every disaggregated unit on `gpus` that meets the request's SLO, priced; the rest rejected.
///
/// `bound`: the $/month a unit must beat to be listed (the `top`-th cheapest aggregated
/// candidate's): a unit whose lower bound already costs more — its GPUs times the units its
/// capacity needs at the utilization ceiling, the capacity `min(X_p, X_d)` of both pools
/// (`model::disagg::pool_capacities`, which no concurrency exceeds) — is not searched.
pub fn disaggregated_candidates(
    gpus: &[&Gpu],
    request: &PlanRequest,
    rejected: &mut Vec<Rejected>,
    bound: Option<f64>,
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
                    precision,
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
                if let (Some(bound), Some(low)) = (bound, lower_bound(&scenario, request)) {
                    if low > bound {
                        lost.push(reject(
                            Lost::CostsMore,
                            format!(
                                "costs more: at least ${low:.0}/month at its pools' capacity vs ${bound:.0}/month for aggregated ones"
                            ),
                        ));
                        continue;
                    }
                }
                match super::plan::evaluate_candidate(&scenario, request, Some(pools)) {
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
                            "{}: disaggregated, none of {} xPyD units qualifies; e.g. {}",
                            last.lost.words(),
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

/// The least a unit can cost for the request's traffic: at its pools' capacity under the
/// utilization ceiling, GPUs × price × 730 h. `None` when it has no pools or no price.
fn lower_bound(scenario: &Scenario, request: &PlanRequest) -> Option<f64> {
    let prefill = &scenario.pools.as_deref()?.prefill;
    let (x_p, x_d) = crate::model::disagg::pool_capacities(prefill, scenario);
    let capacity = x_p.min(x_d) * scenario.workload.output_mean;
    let ceiling = request.max_utilization.clamp(1e-3, 1.0);
    let units = crate::physics::economics::replicas_needed(
        request.traffic_output_tok_s,
        capacity * ceiling,
    )?;
    let price = scenario.usd_per_gpu_hour?;
    Some(
        f64::from(units)
            * f64::from(scenario.total_gpus())
            * price
            * crate::physics::economics::HOURS_PER_MONTH,
    )
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
