//! Static (request-level) batching: wait for `B` requests, pad every prompt to the longest,
//! decode until the longest output, release the batch together (FasterTransformer, early
//! TensorRT-LLM). The baseline continuous batching pushes the frontier away from.
//!
//! MODEL.md §4.1: `t_batch = t_prefill(B·P_max) + (O_max − 1)·t_iter(B, ctx ≈ P_max + O_max/2)`,
//! `X_out = B·E[O]/t_batch`; `E[max of B lognormals] ≈ exp(μ + σ·Φ⁻¹((B − 0.375)/(B + 0.25)))`
//! (Blom, `workload::expected_max_length`). KV is reserved for `B·(P_max + O_max)` tokens up
//! front (§1.4, contiguous; `capacity` says how many fit).

use super::capacity::{static_batch_room, static_reservation};
use super::decode::scaled_decode_step;
use super::operating_point::{assemble, OperatingPoint, Steady};
use crate::physics::step::BatchShape;
use crate::scenario::Scenario;
use crate::units::Seconds;

/// Evaluate static batching at the scenario's concurrency: batches of `B = min(C per replica,
/// engine limit, KV room for B·(P_max + O_max))`, run back to back in a closed loop. The KV room
/// is taken at the reservation of the batch wanted (`capacity::static_batch_room`); the largest
/// concurrency that fits is `capacity::static_kv_capacity`.
pub fn evaluate_static(scenario: &Scenario) -> OperatingPoint {
    let w = &scenario.workload;
    let concurrency = scenario.concurrency.max(1);
    let replicas = scenario.replicas.max(1);
    let busy_replicas = replicas.min(concurrency);
    let in_system = f64::from(concurrency) / f64::from(busy_replicas);
    let engine_cap = f64::from(scenario.max_num_seqs.max(1));
    let wanted = in_system.min(engine_cap).max(1.0);

    // Contiguous reservation: each member holds KV for the padded prompt plus the longest output.
    let kv_cap = f64::from(static_batch_room(
        scenario,
        &static_reservation(scenario, wanted),
    ));
    let batch = wanted.min(kv_cap).max(1.0);
    let reservation = static_reservation(scenario, batch);
    let (p_max, o_max) = (reservation.prompt_max, reservation.output_max);

    let prefill_tokens = batch * p_max * (1.0 - w.prefix_hit);
    let prefill = scenario.step_cost.step(&BatchShape {
        prefill_tokens,
        prefill_prompt: p_max,
        prefill_chunk: p_max,
        ..BatchShape::default()
    });
    let t_prefill = prefill.total();
    let decode = scaled_decode_step(scenario, batch, p_max + o_max / 2.0);
    let tau = decode.total();
    let t_batch = t_prefill + tau * (o_max - 1.0).max(0.0);
    let requests_per_s_replica = if t_batch.0 > 0.0 {
        batch / t_batch.0
    } else {
        0.0
    };
    let e2e = Seconds(in_system / requests_per_s_replica.max(f64::MIN_POSITIVE));
    // The per-request server overhead (`ttft::`, issue 12 §3) is latency beside the engine.
    let ttft = (e2e - tau * (o_max - 1.0).max(0.0)).max(t_prefill) + scenario.server_overhead;
    let e2e = e2e + scenario.server_overhead;
    let c_pf = if prefill_tokens > 0.0 {
        t_prefill / prefill_tokens
    } else {
        Seconds(0.0)
    };
    assemble(
        scenario,
        Steady {
            concurrency,
            busy_replicas,
            batch,
            kv_sequences: batch * (p_max + o_max) / scenario.workload.live_context().max(1.0),
            decode,
            c_pf,
            requests_per_s_replica,
            prefill_share: if t_batch.0 > 0.0 {
                (t_prefill / t_batch).clamp(0.0, 0.999)
            } else {
                0.0
            },
            tpot: tau,
            tau_per_token: tau,
            ttft,
            e2e,
            over_kv: wanted > kv_cap,
            over_engine: in_system > engine_cap,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::static_kv_capacity;

    /// The static capacity is where `evaluate_static` stops fitting, and below the paged one
    /// (a reservation for the padded maximum holds more than the mean live context).
    #[test]
    fn static_capacity_is_where_the_batch_stops_fitting() {
        use crate::scenario::ScenarioInput;
        let input = ScenarioInput {
            batching: crate::scenario::Batching::Static,
            ..ScenarioInput::small_reference()
        };
        let scenario = Scenario::try_from(input).expect("valid");
        let capacity = static_kv_capacity(&scenario);
        assert!(
            capacity >= 1 && capacity < scenario.kv_capacity(),
            "{capacity}"
        );
        assert!(evaluate_static(&scenario.with_concurrency(capacity)).fits);
        assert!(!evaluate_static(&scenario.with_concurrency(capacity + 1)).fits);
        assert_eq!(evaluate_static(&scenario).max_concurrency, capacity);
    }
}
