//! How many requests fit: the one answer to "max concurrency" for both batching policies, which
//! the operating point reports, the sweep grid ends at and the page shows.
//!
//! Both rest on `memory::sequences_fitting` (`floor(pool / KV per sequence)`); they differ in what
//! a sequence holds (MODEL.md §1.4, §4.1):
//! * continuous batching: the KV the scenario sized per sequence (`kv_alloc`: the paged live
//!   context plus half a block, or a contiguous `max_model_len`), `S_cap × replicas`;
//! * static batching: a contiguous reservation for the padded prompt plus the longest output of
//!   the batch, `B · KV(P_max(B) + O_max(B)) ≤ pool`, where the padded lengths grow with `B`.

use crate::physics::memory::{kv_bytes_per_sequence_gpu, sequences_fitting};
use crate::physics::workload::expected_max_length;
use crate::scenario::{Batching, Scenario};
use crate::units::Bytes;

/// Largest system concurrency whose KV fits under `batching`: `Scenario::kv_capacity`
/// (`S_cap × replicas`) under continuous batching, `static_kv_capacity` under static batching.
/// Pass `scenario.batching` for the scenario's own policy.
pub fn max_concurrency(scenario: &Scenario, batching: Batching) -> u32 {
    match batching {
        Batching::Continuous => scenario.kv_capacity(),
        Batching::Static => static_kv_capacity(scenario),
    }
}

/// The most requests the scenario holds in flight: its own batching's KV capacity
/// (`max_concurrency`), capped by the engine's sequence limit, at least one. Every "at full load"
/// question asks this one (`estimate --max-throughput`, sizing's and the simulator's load scale,
/// validation's offline rows, the production gap): under static batching it is the static
/// reservations' capacity, not the paged one (`static_batching_full_load_fits` below).
pub fn max_feasible(scenario: &Scenario) -> u32 {
    max_concurrency(scenario, scenario.batching)
        .min(scenario.engine_limit())
        .max(1)
}

/// What each member of a static batch of `B` reserves up front (MODEL.md §4.1, contiguous).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StaticReservation {
    /// `E[P_max(B)]`: every prompt is padded to the batch's longest.
    pub prompt_max: f64,
    /// `E[O_max(B)]`: the batch decodes until its longest output.
    pub output_max: f64,
    /// KV bytes per GPU for `P_max + O_max` tokens.
    pub per_sequence: Bytes,
}

/// The reservation of one member of a static batch of `batch` requests: the expected maxima of
/// `batch` prompt and output lengths (`workload::expected_max_length`) and their KV bytes per GPU.
pub fn static_reservation(scenario: &Scenario, batch: f64) -> StaticReservation {
    let w = &scenario.workload;
    let prompt_max = expected_max_length(w.input_mean, w.input_sigma, batch);
    let output_max = expected_max_length(w.output_mean, w.output_sigma, batch);
    StaticReservation {
        prompt_max,
        output_max,
        per_sequence: kv_bytes_per_sequence_gpu(
            &scenario.arch,
            scenario.kv_precision,
            scenario.par,
            prompt_max + output_max,
        ),
    }
}

/// Sequences per replica that fit when each holds `reservation` (at least one: a replica always
/// runs a request): the KV room of a static batch sized at that reservation.
pub fn static_batch_room(scenario: &Scenario, reservation: &StaticReservation) -> u32 {
    sequences_fitting(scenario.kv_pool_per_gpu, reservation.per_sequence).max(1)
}

/// Largest system concurrency whose contiguous KV reservations fit (MODEL.md §4.1): per replica,
/// the largest batch `B` with `B · KV(P_max(B) + O_max(B)) ≤ pool`, where the padded lengths grow
/// with `B` (so the condition holds up to some `B` and fails beyond it, and `B` is found by
/// bisection up to the engine limit), times the replicas. At least one request per replica, as in
/// `static_batching::evaluate_static`.
pub fn static_kv_capacity(scenario: &Scenario) -> u32 {
    let fits = |batch: u32| {
        let b = f64::from(batch);
        let per_sequence = static_reservation(scenario, b).per_sequence;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::scenario::ScenarioInput;

    fn default_with(batching: &str) -> Scenario {
        Scenario::try_from(ScenarioInput {
            batching: Choice::parse(batching).expect("an id of the set"),
            ..ScenarioInput::default()
        })
        .expect("valid")
    }

    /// The one capacity function gives what the two code paths it replaced gave (recorded from
    /// them before the merge: `Scenario::kv_capacity` under continuous batching, the static
    /// reservations' bisection under static batching), and each agrees with a from-scratch count:
    /// paged `floor(pool / KV per sequence) × replicas`, static the largest `B` found by a linear
    /// scan instead of bisection.
    #[test]
    fn one_capacity_matches_both_old_paths_on_the_default_scenario() {
        let continuous = default_with("continuous");
        assert_eq!(max_concurrency(&continuous, Batching::Continuous), 592);
        assert_eq!(
            max_concurrency(&continuous, continuous.batching),
            continuous.kv_capacity()
        );
        let paged = (continuous.kv_pool_per_gpu.0 / continuous.kv_per_sequence_gpu.0).floor();
        assert_eq!(
            f64::from(max_concurrency(&continuous, Batching::Continuous)),
            paged * f64::from(continuous.replicas)
        );

        let static_batching = default_with("static");
        assert_eq!(
            max_concurrency(&static_batching, static_batching.batching),
            128
        );
        let scanned = (1..=static_batching.max_num_seqs)
            .take_while(|&b| {
                let b = f64::from(b);
                b * static_reservation(&static_batching, b).per_sequence.0
                    <= static_batching.kv_pool_per_gpu.0
            })
            .last()
            .unwrap_or(1);
        assert_eq!(
            max_concurrency(&static_batching, Batching::Static),
            scanned * static_batching.replicas
        );
        // The policy, not the scenario's field, picks the rule.
        assert_eq!(
            max_concurrency(&static_batching, Batching::Continuous),
            static_batching.kv_capacity()
        );
    }

    /// Decides issue 29's question: the "full load" every caller asks for used the paged KV
    /// capacity whatever the batching, so under static batching `estimate --max-throughput`
    /// evaluated a concurrency its static reservations cannot hold ("infeasible: beyond
    /// capacity", Llama 3.1 8B on one A100: 369 asked, 309 fit). `max_feasible` takes the
    /// scenario's own batching: the full-load point fits under both policies, and static batching
    /// never holds more than paged.
    #[test]
    fn static_batching_full_load_fits() {
        use crate::model::evaluate;
        for batching in ["continuous", "static"] {
            for (input_len, output_len) in [(1000.0, 500.0), (4000.0, 200.0), (200.0, 2000.0)] {
                let scenario = Scenario::try_from(ScenarioInput {
                    batching: Choice::parse(batching).expect("an id of the set"),
                    model: "llama-3.1-8b".into(),
                    gpu: "a100-sxm-80gb".into(),
                    gpu_count: 1.0,
                    input_len,
                    output_len,
                    ..ScenarioInput::default()
                })
                .expect("valid");
                let full = max_feasible(&scenario);
                let point = evaluate(&scenario.with_concurrency(full));
                assert!(
                    point.fits,
                    "{batching} {input_len}/{output_len}: {full} does not fit"
                );
                assert_eq!(
                    point.max_concurrency.max(1).min(scenario.engine_limit()),
                    full
                );
                assert!(full <= scenario.kv_capacity().max(1));
                let beyond = evaluate(&scenario.with_concurrency(full + 1));
                assert!(
                    full == scenario.engine_limit() || !beyond.fits,
                    "{batching} {input_len}/{output_len}: {} also fits",
                    full + 1
                );
            }
        }
    }
}
