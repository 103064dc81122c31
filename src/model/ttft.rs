//! TTFT as a user measures it (issue 12 §3): the terms a client's time to first token adds up,
//! each a named rule the analytic closed loop (`serving`) and the simulator (`sim`) both follow,
//! and the benchmark protocol's first-wave queueing.
//!
//! `TTFT = t_srv + w_step + t_prefill + w_queue`:
//! * `t_srv` (`server_overhead`): the API server's own time per request — HTTP, tokenization,
//!   detokenizing and streaming the first token (the engine profile's fitted `t_srv`, field
//!   `server-overhead-ms`). It runs in processes beside the engine core (vLLM V1, SGLang), so it
//!   adds latency, not GPU time; applied to TTFT and E2E, not to throughput.
//! * `w_step` (`step_wait`): a request that reaches a busy engine waits for the running step to
//!   end before the scheduler can admit it (iteration-level scheduling, Orca OSDI '22; vLLM V1's
//!   scheduler runs between model steps). Arriving at a uniform point of a step of length `τ`,
//!   the mean wait is `τ/2`; an idle engine (a lone closed-loop request) starts at once.
//! * `t_prefill` (`prefill_time`): under chunked prefill the scheduler first gives each running
//!   decode one token of the budget `T_bud` and the new prompt the rest (vLLM V1 / Sarathi-Serve,
//!   MODEL.md §4.3), so a prompt of `P` tokens takes `n = ⌈P/(T_bud − D)⌉` steps, each also
//!   carrying the `D` running decodes; the first token is sampled at the end of the last chunk.
//! * `w_queue`: waiting for admission behind other prompts or a full KV cache, the part of the
//!   Little's-law TTFT (`E2E − (E[O]−1)·TPOT`, MODEL.md §4.2) beyond the time-sharing model's own
//!   prefill (`serving::evaluate_continuous`).

use crate::physics::step::BatchShape;
use crate::scenario::Scenario;
use crate::units::Seconds;
use serde::Serialize;

/// `w_step`: the mean wait for the running step to end, `τ/2` when other requests keep the
/// engine busy (`others ≥ 1`; linear below, for a fractional mean batch), 0 on an idle engine.
pub fn step_wait(running_step: Seconds, others: f64) -> Seconds {
    running_step * (0.5 * others.clamp(0.0, 1.0))
}

/// `t_prefill`: the time from admission to the first token of a prompt of `prompt` tokens while
/// `others` sequences decode: `⌈P/c⌉` steps with chunk `c = min(P, max(T_bud − D, 1))`, each
/// `t_iter(D decodes + chunk)`; with `PP` stages a chunk passes every stage (`PP·t_stage`,
/// MODEL.md §2.5).
pub fn prefill_time(scenario: &Scenario, others: f64, prompt: f64) -> Seconds {
    let prompt = prompt.max(1.0);
    let others = others.max(0.0);
    let budget = f64::from(scenario.chunk_tokens.max(1));
    let chunk = (budget - others).max(1.0).min(prompt);
    let steps = (prompt / chunk).ceil().max(1.0);
    let last = prompt - chunk * (steps - 1.0);
    let pp = f64::from(scenario.par.pp.max(1));
    let context = scenario.workload.live_context();
    let step = |tokens: f64| {
        scenario
            .step_cost
            .step(&BatchShape {
                decode_seqs: others / pp,
                decode_context: context,
                prefill_tokens: tokens,
                prefill_prompt: prompt,
                prefill_chunk: chunk,
                prefill_cached: scenario.workload.input_mean * scenario.workload.prefix_hit,
                verify_tokens: 0.0,
            })
            .total()
            * pp
    };
    let full = if steps > 1.0 {
        step(chunk) * (steps - 1.0)
    } else {
        Seconds(0.0)
    };
    full + step(last)
}

/// What a serving benchmark would print for the scenario (`protocol = benchmark`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BenchmarkFigures {
    /// Prompts sent in all (`num-prompts`).
    pub num_prompts: u32,
    /// Requests started together at t = 0 (`min(C, N)`).
    pub first_wave: u32,
    pub mean_ttft_ms: f64,
    pub median_ttft_ms: f64,
    /// Mean TTFT of the first wave alone.
    pub first_wave_ttft_ms: f64,
    pub mean_tpot_ms: f64,
    pub mean_e2e_ms: f64,
    /// Output tokens over the run's duration.
    pub output_tok_s: f64,
    pub duration_s: f64,
    /// How the figures were made.
    pub method: &'static str,
}

/// The steady state a benchmark estimate starts from (per busy replica).
#[derive(Debug, Clone, Copy)]
pub struct SteadyLatency {
    pub ttft: Seconds,
    pub tpot: Seconds,
    pub e2e: Seconds,
    /// Requests per busy replica that the engine holds at once (KV and engine limits).
    pub batch_cap: f64,
    pub busy_replicas: u32,
}

/// The benchmark protocol, analytically (issue 12 §3): `C` requests start on an idle engine at
/// t = 0, `N` in all, each slot sending its next request when its last completes.
///
/// Derivation. Per replica the first wave is `w = min(C/R, batch cap)` prompts of `P` tokens.
/// The scheduler prefills them first come, first served, `b = max(T_bud − (w−1)/2, 1)` prompt
/// tokens per step (the wave's prompts that are done decode beside the rest, on average half
/// the wave), so prompt `j` (0-based) gets its first token at the end of step `⌈(j+1)·P/b⌉`.
/// Averaged over `j`, that is `k̄ = (w+1)·P/(2b) + ½` steps (the ceiling adds half a step on
/// average; at least 1), each `t_iter((w−1)/2 decodes + min(b, w·P) prefill)`, so the first
/// wave's mean TTFT is `t_srv + k̄·t_step`. The first wave's requests are `W = min(C, N)` of the
/// `N`; the later ones arrive as slots free up, into the steady state (its TTFT), so
/// `mean TTFT = (W·TTFT₁ + (N − W)·TTFT_s)/N`; the median is `TTFT_s` when the first wave is
/// less than half the run (`N ≥ 2W`), else `TTFT₁`. Each slot runs `N/C` requests back to
/// back, so the run lasts `(N/C)·(E2E_s − t_srv) + (TTFT₁ − TTFT_s)` (the client's overhead
/// overlaps the engine's work) and the benchmark's throughput is `N·E[O]` over that. TPOT is the
/// steady TPOT (the first wave decodes at the full batch too).
pub fn benchmark_figures(scenario: &Scenario, steady: &SteadyLatency) -> BenchmarkFigures {
    let c = f64::from(scenario.concurrency.max(1));
    let n = f64::from(scenario.benchmark_prompts().max(1));
    let first = c.min(n);
    let busy = f64::from(steady.busy_replicas.max(1));
    let wave = (first / busy).min(steady.batch_cap).max(1.0);
    let prompt = scenario.workload.prefill_tokens().max(1.0);
    let budget = f64::from(scenario.chunk_tokens.max(1));
    let decoding = (wave - 1.0) / 2.0;
    let per_step = (budget - decoding).max(1.0);
    let mean_steps = ((wave + 1.0) * prompt / (2.0 * per_step) + 0.5).max(1.0);
    let pp = f64::from(scenario.par.pp.max(1));
    let step = scenario
        .step_cost
        .step(&BatchShape {
            decode_seqs: decoding / pp,
            decode_context: scenario.workload.live_context(),
            prefill_tokens: per_step.min(wave * prompt),
            prefill_prompt: prompt,
            prefill_chunk: per_step.min(prompt),
            prefill_cached: scenario.workload.input_mean * scenario.workload.prefix_hit,
            verify_tokens: 0.0,
        })
        .total()
        * pp;
    // A lone request is one prefill of its own prompt: the steady state's rule exactly.
    let wave_ttft = if wave <= 1.0 {
        steady.ttft
    } else {
        (scenario.server_overhead + step * mean_steps).max(steady.ttft)
    };
    let later = n - first;
    let mean_ttft = (wave_ttft * first + steady.ttft * later) / n;
    let median_ttft = if n >= 2.0 * first {
        steady.ttft
    } else {
        wave_ttft
    };
    let output = scenario.workload.output_mean.max(1.0);
    let extra = (wave_ttft - steady.ttft).max(Seconds(0.0));
    let duration = (steady.e2e - scenario.server_overhead).max(Seconds(0.0)) * (n / c) + extra;
    let mean_e2e = mean_ttft + steady.tpot * (output - 1.0);
    let output_tok_s = if duration.0 > 0.0 {
        n * output / duration.0
    } else {
        0.0
    };
    BenchmarkFigures {
        num_prompts: scenario.benchmark_prompts(),
        first_wave: first as u32,
        mean_ttft_ms: mean_ttft.ms(),
        median_ttft_ms: median_ttft.ms(),
        first_wave_ttft_ms: wave_ttft.ms(),
        mean_tpot_ms: steady.tpot.ms(),
        mean_e2e_ms: mean_e2e.ms(),
        output_tok_s,
        duration_s: duration.0,
        method: "analytic first-wave approximation (servecost simulate --protocol benchmark replays the run)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;

    fn scenario(edit: impl FnOnce(&mut ScenarioInput)) -> Scenario {
        let mut input = ScenarioInput {
            length_dist: crate::scenario::LengthDist::Fixed,
            input_len: 1000.0,
            output_len: 1000.0,
            ..ScenarioInput::small_reference()
        };
        edit(&mut input);
        Scenario::try_from(input).expect("valid")
    }

    #[test]
    fn the_step_wait_is_half_a_step_on_a_busy_engine_and_none_on_an_idle_one() {
        let step = Seconds::from_ms(20.0);
        assert_eq!(step_wait(step, 0.0), Seconds(0.0));
        assert!((step_wait(step, 1.0).ms() - 10.0).abs() < 1e-12);
        assert!((step_wait(step, 63.0).ms() - 10.0).abs() < 1e-12);
        assert!((step_wait(step, 0.5).ms() - 5.0).abs() < 1e-12);
    }

    /// A prompt longer than the budget left after the decodes takes `⌈P/(T_bud − D)⌉` steps, each
    /// carrying the decodes: at budget 512 with 12 decodes, a 1000-token prompt is 2 chunks of 500.
    #[test]
    fn a_long_prompt_takes_ceil_p_over_b_steps_each_with_the_decodes() {
        let s = scenario(|i| i.chunk_tokens = Some(512.0));
        let step = |tokens: f64, decodes: f64| {
            s.step_cost
                .step(&BatchShape {
                    decode_seqs: decodes,
                    decode_context: s.workload.live_context(),
                    prefill_tokens: tokens,
                    prefill_prompt: 1000.0,
                    prefill_chunk: 500.0,
                    prefill_cached: 0.0,
                    verify_tokens: 0.0,
                })
                .total()
        };
        let got = prefill_time(&s, 12.0, 1000.0);
        let expected = step(500.0, 12.0) + step(500.0, 12.0);
        assert!(
            (got.0 - expected.0).abs() < 1e-15,
            "{got:?} vs {expected:?}"
        );
        // One chunk when the prompt fits the budget; decodes make each step longer.
        let wide = scenario(|i| i.chunk_tokens = Some(8192.0));
        assert!(prefill_time(&wide, 12.0, 1000.0) < got);
        assert!(prefill_time(&wide, 12.0, 1000.0) > prefill_time(&wide, 0.0, 1000.0));
    }

    #[test]
    fn the_server_overhead_is_a_field_with_a_default() {
        let s = scenario(|_| {});
        // The default is the engine profile's fitted overhead.
        assert!((s.server_overhead.ms() - s.profile.knobs.server_overhead_ms).abs() < 1e-12);
        assert!(s.server_overhead.ms() > 0.0);
        let none = scenario(|i| i.server_overhead_ms = Some(0.0));
        assert_eq!(none.server_overhead, Seconds(0.0));
        let point = crate::model::evaluate(&s);
        let bare = crate::model::evaluate(&none);
        // Latency only: TTFT and E2E move by the overhead, throughput does not.
        assert!((point.ttft_ms - bare.ttft_ms - s.server_overhead.ms()).abs() < 1e-9);
        assert!((point.e2e_ms - bare.e2e_ms - s.server_overhead.ms()).abs() < 1e-9);
        assert_eq!(point.output_tok_s, bare.output_tok_s);
    }

    /// At C = 64 the first wave queues behind its own prefills: the benchmark's mean TTFT is
    /// above the steady state's, its median is the steady one (N = 10·C), and at C = 1 the two
    /// protocols agree.
    #[test]
    fn the_first_wave_queues_behind_itself() {
        let steady = crate::model::evaluate(&scenario(|i| i.concurrency = 64.0));
        let bench = crate::model::evaluate(&scenario(|i| {
            i.concurrency = 64.0;
            i.protocol = crate::scenario::Protocol::Benchmark;
        }));
        let figures = bench.benchmark.expect("benchmark figures");
        assert_eq!(figures.num_prompts, 640);
        assert!(
            figures.first_wave_ttft_ms > 3.0 * steady.ttft_ms,
            "{figures:?}"
        );
        assert!(figures.mean_ttft_ms > steady.ttft_ms);
        assert!((figures.median_ttft_ms - steady.ttft_ms).abs() < 1e-9);
        assert!(figures.output_tok_s < steady.output_tok_s);
        assert!((bench.ttft_ms - figures.mean_ttft_ms).abs() < 1e-9);
        let one = crate::model::evaluate(&scenario(|i| {
            i.concurrency = 1.0;
            i.protocol = crate::scenario::Protocol::Benchmark;
        }));
        let figures = one.benchmark.expect("benchmark figures");
        assert!((figures.mean_ttft_ms - figures.median_ttft_ms).abs() < 1e-9);
        assert!(steady.benchmark.is_none());
    }
}
