//! One decode iteration of a replica at batch `B`, shared by both batching policies (and checked
//! by the simulator's step model): the pipeline-parallel scaling of a stage's step (MODEL.md
//! §2.5) and speculative decoding's draft-and-verify round (§5).

use crate::physics::step::{BatchShape, StepBreakdown};
use crate::scenario::Scenario;

/// Decode iteration time of a replica with `batch` sequences at the workload's live context:
/// `τ_d(C) = t_iter(T = C, Σc = C·c̄)` (MODEL.md §4.2).
pub fn decode_step(scenario: &Scenario, batch: f64) -> StepBreakdown {
    scaled_decode_step(scenario, batch, scenario.workload.live_context())
}

/// One decode step and the tokens it yields per sequence. Without speculation: `τ_d` and 1.
/// With it (MODEL.md §5): `t_spec = γ·c·τ_d + t_verify`, `t_verify = t_iter(T = B·(γ+1))` with
/// the KV read once per sequence, and `E_tok = (1 − α^(γ+1))/(1 − α)` tokens per step.
pub fn decode_round(scenario: &Scenario, batch: f64) -> (StepBreakdown, f64) {
    let plain = decode_step(scenario, batch);
    let Some(spec) = scenario.spec else {
        return (plain, 1.0);
    };
    let pp = f64::from(scenario.par.pp.max(1));
    let verify = scenario.step_cost.step(&BatchShape {
        decode_seqs: batch / pp,
        decode_context: scenario.workload.live_context(),
        verify_tokens: spec.len,
        ..BatchShape::default()
    });
    let scale = |ms: f64| ms * pp;
    let draft_ms = spec.len * spec.draft_cost * plain.total_ms;
    let step = StepBreakdown {
        linear_ms: scale(verify.linear_ms),
        attention_ms: scale(verify.attention_ms),
        elementwise_ms: scale(verify.elementwise_ms),
        communication_ms: scale(verify.communication_ms),
        overhead_ms: scale(verify.overhead_ms),
        draft_ms,
        total_ms: scale(verify.total_ms) + draft_ms,
        weight_read_ms: scale(verify.weight_read_ms),
        kv_read_ms: scale(verify.kv_read_ms),
        compute_ms: scale(verify.compute_ms),
    };
    (step, expected_tokens_per_step(spec.accept, spec.len))
}

/// Leviathan et al.'s expected tokens per target step, `E_tok(α, γ) = (1 − α^(γ+1))/(1 − α)`
/// (MODEL.md §5 [S35]); `γ + 1` when every draft is accepted.
pub fn expected_tokens_per_step(accept: f64, len: f64) -> f64 {
    if accept >= 1.0 {
        return len + 1.0;
    }
    (1.0 - accept.powf(len + 1.0)) / (1.0 - accept)
}

/// Speculative decoding's speed-up at batch `B`: `E_tok·τ_d(B)/t_spec(B)` (1 when off).
pub fn spec_speedup(scenario: &Scenario, batch: f64) -> f64 {
    let plain = decode_step(scenario, batch).total_ms;
    let (round, tokens) = decode_round(scenario, batch);
    if round.total_ms > 0.0 {
        tokens * plain / round.total_ms
    } else {
        1.0
    }
}

/// Decode iteration time at a given mean context; with `PP` stages a token takes
/// `PP·t_stage(C/PP)` (MODEL.md §2.5: up to PP micro-batches in flight, one per stage).
pub fn scaled_decode_step(scenario: &Scenario, batch: f64, context: f64) -> StepBreakdown {
    let pp = f64::from(scenario.par.pp.max(1));
    let stage = scenario.step_cost.step(&BatchShape {
        decode_seqs: batch / pp,
        decode_context: context,
        ..BatchShape::default()
    });
    if scenario.par.pp <= 1 {
        return stage;
    }
    let scale = |ms: f64| ms * pp;
    StepBreakdown {
        linear_ms: scale(stage.linear_ms),
        attention_ms: scale(stage.attention_ms),
        elementwise_ms: scale(stage.elementwise_ms),
        communication_ms: scale(stage.communication_ms),
        overhead_ms: scale(stage.overhead_ms),
        draft_ms: 0.0,
        total_ms: scale(stage.total_ms),
        weight_read_ms: scale(stage.weight_read_ms),
        kv_read_ms: scale(stage.kv_read_ms),
        compute_ms: scale(stage.compute_ms),
    }
}
