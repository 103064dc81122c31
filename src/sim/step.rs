//! The simulator's one "physics" call: the time of an iteration whose exact composition the
//! engine knows (how many decodes at what mean context, how many prefill tokens of which prompts),
//! priced by the same step model the analytic mode uses (`physics::step::StepCost`, MODEL.md §2).

use crate::physics::step::BatchShape;
use crate::scenario::Scenario;

/// What one iteration processes, summed over its sequences.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IterationWork {
    /// Sequences decoding (one token each, or `1 + γ` verified queries with speculation).
    pub decode_seqs: u32,
    /// `Σ c_r` over decoding sequences: cached context each one attends to.
    pub decode_context_tokens: f64,
    /// `Σ n_j`: prompt tokens prefilled this iteration.
    pub prefill_tokens: u32,
    /// `Σ n_j · P_j`: chunk tokens times their prompt's (uncached) length, for the token-weighted
    /// mean prompt the step model prices causal attention and prior-chunk KV reads with.
    pub prefill_prompt_weighted: f64,
    /// `Σ n_j · h_j`: chunk tokens times their prompt's cached prefix, for the token-weighted
    /// mean prefix the chunks attend over and read (MODEL.md §4.6).
    pub prefill_cached_weighted: f64,
}

/// Time of one iteration, seconds.
///
/// `t = PP · t_stage(D/PP decodes at c̄ = Σc/D, Σn/PP prefill tokens of mean prompt
/// P̄ = Σ n·P / Σ n in chunks of min(P̄, T_bud))`, following `model::decode::scaled_decode_step`
/// (MODEL.md §2.5: with PP stages a token takes `PP·t_stage(B/PP)`, one micro-batch per stage).
/// With speculative decoding on and decodes in the batch (MODEL.md §5, as
/// `model::decode::decode_round`): the stage verifies `γ` extra queries per decoding sequence,
/// and the `γ` draft steps add `γ·c·PP·t_stage(D/PP plain decodes)`.
pub fn iteration_seconds(scenario: &Scenario, work: &IterationWork) -> f64 {
    let pp = f64::from(scenario.par.pp.max(1));
    let decodes = f64::from(work.decode_seqs);
    let decode_context = if work.decode_seqs > 0 {
        work.decode_context_tokens / decodes
    } else {
        0.0
    };
    let prefill = f64::from(work.prefill_tokens);
    let (prompt, cached) = if work.prefill_tokens > 0 {
        (
            work.prefill_prompt_weighted / prefill,
            work.prefill_cached_weighted / prefill,
        )
    } else {
        (0.0, 0.0)
    };
    let speculating = scenario.spec.filter(|_| work.decode_seqs > 0);
    let verify_tokens = speculating.map_or(0.0, |s| s.len);
    let stage = scenario.step_cost.step(&BatchShape {
        decode_seqs: decodes / pp,
        decode_context,
        prefill_tokens: prefill / pp,
        prefill_prompt: prompt,
        prefill_chunk: prompt.min(f64::from(scenario.chunk_tokens)),
        prefill_cached: cached,
        verify_tokens,
    });
    let draft_ms = match speculating {
        Some(spec) => {
            let plain = scenario.step_cost.step(&BatchShape {
                decode_seqs: decodes / pp,
                decode_context,
                ..BatchShape::default()
            });
            spec.len * spec.draft_cost * plain.total_ms * pp
        }
        None => 0.0,
    };
    ((stage.total_ms * pp + draft_ms) / 1e3).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::model::decode::{decode_round, decode_step};
    use crate::scenario::ScenarioInput;

    fn scenario(spec: &str, pp: f64) -> Scenario {
        Scenario::try_from(ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu: "h100-sxm".into(),
            gpu_count: pp,
            tp: Some(1.0),
            pp: Some(pp),
            precision: crate::physics::precision::Precision::Bf16,
            spec_decode: Choice::parse(spec).expect("an id of the set"),
            ..ScenarioInput::default()
        })
        .expect("valid")
    }

    /// A pure decode batch at the live context costs exactly the analytic decode step (and, with
    /// speculation, the analytic decode round), with and without pipeline stages.
    #[test]
    fn pure_decode_matches_the_analytic_step() {
        for pp in [1.0, 2.0] {
            for spec in ["off", "eagle"] {
                let s = scenario(spec, pp);
                let batch = 32u32;
                let context = s.workload.live_context();
                let got = iteration_seconds(
                    &s,
                    &IterationWork {
                        decode_seqs: batch,
                        decode_context_tokens: f64::from(batch) * context,
                        ..IterationWork::default()
                    },
                );
                let expected_ms = if s.spec.is_some() {
                    decode_round(&s, f64::from(batch)).0.total_ms
                } else {
                    decode_step(&s, f64::from(batch)).total_ms
                };
                assert!(
                    (got * 1e3 / expected_ms - 1.0).abs() < 1e-9,
                    "pp {pp} {spec}: {got} vs {expected_ms} ms"
                );
            }
        }
    }

    #[test]
    fn empty_iteration_costs_the_fixed_overheads_only() {
        let s = scenario("off", 1.0);
        let t = iteration_seconds(&s, &IterationWork::default());
        assert!(t > 0.0 && t < 0.01, "{t}");
    }
}
