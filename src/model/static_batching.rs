//! Static (request-level) batching: wait for `B` requests, pad every prompt to the longest,
//! decode until the longest output, release the batch together (FasterTransformer, early
//! TensorRT-LLM). The baseline continuous batching pushes the frontier away from.
//!
//! MODEL.md §4.1: `t_batch = t_prefill(B·P_max) + (O_max − 1)·t_iter(B, ctx ≈ P_max + O_max/2)`,
//! `X_out = B·E[O]/t_batch`; `E[max of B lognormals] ≈ exp(μ + σ·Φ⁻¹((B − 0.375)/(B + 0.25)))`
//! (Blom). KV is reserved for `B·(P_max + O_max)` tokens up front (§1.4, contiguous).

use super::memory::kv_bytes_per_sequence_gpu;
use super::serving::{assemble, scaled_decode_step, OperatingPoint, Steady};
use super::step::BatchShape;
use crate::scenario::Scenario;
use crate::units::Seconds;

/// Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9).
pub fn inverse_normal_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [
        -39.696_830_286_653_76,
        220.946_098_424_520_5,
        -275.928_510_446_968_7,
        138.357_751_867_269,
        -30.664_798_066_147_16,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -54.476_098_798_224_06,
        161.585_836_858_040_9,
        -155.698_979_859_886_6,
        66.801_311_887_719_72,
        -13.280_681_552_885_72,
    ];
    const C: [f64; 6] = [
        -0.007_784_894_002_430_293,
        -0.322_396_458_041_136_5,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        0.007_784_695_709_041_462,
        0.322_467_129_070_039_8,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Expected maximum of `batch` lognormal lengths with mean `mean` and log-σ `sigma` (Blom's
/// plotting position); exactly `mean` for fixed lengths.
pub fn expected_max_length(mean: f64, sigma: f64, batch: f64) -> f64 {
    if sigma <= 0.0 || batch <= 1.0 {
        return mean;
    }
    let mu = mean.ln() - sigma * sigma / 2.0;
    let z = inverse_normal_cdf((batch - 0.375) / (batch + 0.25));
    (mu + sigma * z).exp().max(mean)
}

/// Evaluate static batching at the scenario's concurrency: batches of `B = min(C per replica,
/// engine limit, KV room for B·(P_max + O_max))`, run back to back in a closed loop.
/// Largest system concurrency whose contiguous KV reservations fit (MODEL.md §4.1): per replica,
/// the largest batch `B` with `B · KV(P_max(B) + O_max(B)) ≤ pool`, where the padded lengths grow
/// with `B` (so the condition holds up to some `B` and fails beyond it, and `B` is found by
/// bisection up to the engine limit), times the replicas. At least one request per replica, as in
/// `evaluate_static`. Under continuous batching the paged capacity applies instead
/// (`Scenario::kv_capacity`).
pub fn static_kv_capacity(scenario: &Scenario) -> u32 {
    let w = &scenario.workload;
    let fits = |batch: u32| {
        let b = f64::from(batch);
        let per_sequence = kv_bytes_per_sequence_gpu(
            &scenario.arch,
            scenario.kv_precision,
            scenario.par,
            expected_max_length(w.input_mean, w.input_sigma, b)
                + expected_max_length(w.output_mean, w.output_sigma, b),
        );
        per_sequence.0 <= 0.0 || b * per_sequence.0 <= scenario.kv_pool_per_gpu.0
    };
    let engine = scenario.max_num_seqs.max(1);
    let per_replica = if fits(engine) {
        engine
    } else {
        // Invariant: fits(low) or low == 1; !fits(high).
        let (mut low, mut high) = (1u32, engine);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if fits(mid) {
                low = mid;
            } else {
                high = mid;
            }
        }
        low
    };
    per_replica.saturating_mul(scenario.replicas.max(1))
}

pub fn evaluate_static(scenario: &Scenario) -> OperatingPoint {
    let w = &scenario.workload;
    let concurrency = scenario.concurrency.max(1);
    let replicas = scenario.replicas.max(1);
    let busy_replicas = replicas.min(concurrency);
    let in_system = f64::from(concurrency) / f64::from(busy_replicas);
    let engine_cap = f64::from(scenario.max_num_seqs.max(1));
    let wanted = in_system.min(engine_cap).max(1.0);

    // Contiguous reservation: each member holds KV for the padded prompt plus the longest output.
    let reservation = |batch: f64| {
        let p_max = expected_max_length(w.input_mean, w.input_sigma, batch);
        let o_max = expected_max_length(w.output_mean, w.output_sigma, batch);
        (
            p_max,
            o_max,
            kv_bytes_per_sequence_gpu(
                &scenario.arch,
                scenario.kv_precision,
                scenario.par,
                p_max + o_max,
            ),
        )
    };
    let (_, _, per_seq) = reservation(wanted);
    let kv_cap = if per_seq.0 > 0.0 {
        (scenario.kv_pool_per_gpu / per_seq).floor().max(1.0)
    } else {
        1.0
    };
    let batch = wanted.min(kv_cap).max(1.0);
    let (p_max, o_max, _) = reservation(batch);

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
    let ttft = (e2e - tau * (o_max - 1.0).max(0.0)).max(t_prefill);
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

    /// The static capacity is where `evaluate_static` stops fitting, and below the paged one
    /// (a reservation for the padded maximum holds more than the mean live context).
    #[test]
    fn static_capacity_is_where_the_batch_stops_fitting() {
        use crate::scenario::ScenarioInput;
        let input = ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu: "h100-sxm".into(),
            gpu_count: 1.0,
            tp: Some(1.0),
            precision: "bf16".into(),
            batching: "static".into(),
            ..ScenarioInput::default()
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

    #[test]
    fn inverse_normal_known_values() {
        assert!(inverse_normal_cdf(0.5).abs() < 1e-9);
        assert!((inverse_normal_cdf(0.975) - 1.959_964).abs() < 1e-5);
        assert!((inverse_normal_cdf(0.01) + 2.326_348).abs() < 1e-5);
    }

    /// MODEL.md §4.1: with Azure-conversation lognormals, `P_max` grows towards ≈5.7 k at B = 32
    /// (stated tolerance 25 %: the spec's figure is from the empirical trace).
    #[test]
    fn padded_prompt_grows_with_batch() {
        let p_max = expected_max_length(1155.0, 0.99, 32.0);
        assert!(p_max > 1155.0 * 3.0);
        assert!((p_max / 5700.0 - 1.0).abs() < 0.25, "{p_max}");
        assert_eq!(expected_max_length(1155.0, 0.0, 32.0), 1155.0);
    }
}
