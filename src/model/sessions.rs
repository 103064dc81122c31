//! Agentic sessions as a workload (issue 27 §1): a session is a chain of turns, each turn's
//! prompt the session's whole context so far, and the prefix-cache hit rate is an outcome of the
//! session shape, the KV capacity and the number of sessions in flight — not a knob.
//!
//! A session (`SessionShape`): a first prompt `P` (system prompt and task), then `T` turns; turn
//! `k` (0-based) sends the context `c_k = min(P + k·g, L_ctx)`, where `g = O + R` is what a turn
//! appends (its own output `O` and the tool results `R` sent back), and answers with `O` tokens;
//! between a turn's last token and the next turn the agent runs tools for `t_tool` seconds.
//! Lengths are lognormal (`P`, `R` with the prompt spread, `O` with the output spread); `T` is
//! a fixed count (the preset's), so the analytic means and the simulator's sample agree.
//!
//! How an engine decides a hit and evicts (what both the analytic steady state and
//! `sim::sessions` model):
//! - vLLM's automatic prefix caching hashes each full 16-token KV block together with the hash
//!   of the prefix before it, so a prompt hits every full block of its longest cached prefix; a
//!   finished request's blocks go back to a free queue in eviction order and stay reusable until
//!   they are allocated again, least recently used first, and only blocks no running request
//!   holds (reference count 0) can be evicted ("Automatic Prefix Caching", vLLM design docs,
//!   docs.vllm.ai/en/latest/design/prefix_caching/; `vllm/v1/core/block_pool.py`,
//!   `free_block_queue`).
//! - SGLang's RadixAttention keeps the same KV in a radix tree keyed by tokens; a prompt matches
//!   its longest prefix in the tree, running requests lock their nodes, and when memory is needed
//!   the least recently used unlocked leaves are evicted first (Zheng et al., "SGLang: Efficient
//!   Execution of Structured Language Model Programs", arXiv 2312.07104, §3 RadixAttention;
//!   `python/sglang/srt/mem_cache/radix_cache.py`).
//!
//! Both amount to: a turn hits the part of its context whose KV is still in the pool; a running
//! turn's KV cannot be evicted; idle sessions' KV is evicted least recently used first, from its
//! tail (a prefix stays a prefix). Turn `k > 0` would, with nothing evicted, hit all of `c_k`
//! except the tool results `R` and the last partial block, so the ideal hit rate of a session is
//! `h* = 1 − (P + (T − 1)·(R + b/2)) / Σ_k c_k` (`b` = 16 tokens; no prompt is shared across
//! sessions, which understates the hit where every session starts with the same system prompt).
//!
//! The analytic approximation of eviction (`evaluate_sessions`): per replica the KV pool holds
//! `K` tokens; the `B` turns the engine batches (at most `C_run/R`) pin `c̄_live` each, and the
//! other `N/R − B` sessions (in their tools, or queued) each want their context `c̄ + O` kept. With every session revisited at the same
//! rate, Che's approximation of an LRU cache (Che, Tung and Wang, IEEE JSAC 2002) gives each the
//! same survival probability, so the retained fraction of an idle session's context is
//! `f = min(1, (K − pinned) / demand)` and the hit rate is `h = f·h*`. It ignores that LRU on a
//! nearly cyclic reference stream is worse than Che's estimate (a cyclic scan past capacity
//! misses everything) and that a partly evicted context is evicted from its tail; the simulator
//! keeps true LRU and the tests bound the difference. Prefill of a turn costs only its uncached
//! part (MODEL.md §1.5, `Workload::prefill_tokens`); the cached part still costs attention: the
//! new tokens attend over it and each chunk reads its KV (`step::BatchShape::prefill_cached`),
//! and every decode step reads the whole context (MODEL.md §4.6).
//!
//! The running turns follow from the agents: an agent is either in a turn (`E2E` seconds) or in
//! its tools (`t_tool`), so `C_run = N·E2E/(E2E + t_tool)`, a fixed point with the turn time.

use super::evaluate::evaluate;
use super::operating_point::OperatingPoint;
use crate::physics::memory::{kv_bytes_per_sequence_gpu, BLOCK_TOKENS};
use crate::scenario::{Scenario, ScenarioInput};
use serde::Serialize;

/// One session's shape, validated (from a `Scenario` in session mode).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SessionShape {
    /// Turns per session, `T` (whole).
    pub turns: u32,
    /// First prompt, `P` (system prompt and task), mean tokens.
    pub first_prompt: f64,
    pub prompt_sigma: f64,
    /// Tool-result tokens appended per turn, `R`, mean.
    pub tool_tokens: f64,
    /// Output tokens per turn, `O`, mean.
    pub output: f64,
    pub output_sigma: f64,
    /// Tool time between turns, seconds.
    pub tool_s: f64,
    /// The model's context, `L_ctx` (a session's context is capped at it: agents compact).
    pub max_context: f64,
}

impl SessionShape {
    /// The session shape of a scenario in session mode (`session-turns` set), else `None`.
    pub fn of(scenario: &Scenario) -> Option<SessionShape> {
        let input = &scenario.input;
        let turns = input.session_turns?;
        Some(SessionShape {
            turns: turns.round().max(1.0) as u32,
            first_prompt: scenario.workload.input_mean,
            prompt_sigma: scenario.workload.input_sigma,
            tool_tokens: input.session_tool_tokens.unwrap_or(0.0).max(0.0),
            output: scenario.workload.output_mean,
            output_sigma: scenario.workload.output_sigma,
            tool_s: input.session_tool_s.unwrap_or(0.0).max(0.0),
            max_context: f64::from(scenario.model.max_context.unwrap_or(u32::MAX)),
        })
    }

    /// What a turn appends to the context, `g = O + R`.
    pub fn growth_per_turn(&self) -> f64 {
        self.output + self.tool_tokens
    }

    /// Context of turn `k` (0-based): `min(P + k·g, L_ctx)`.
    pub fn context_of_turn(&self, turn: u32) -> f64 {
        (self.first_prompt + f64::from(turn) * self.growth_per_turn()).min(self.max_context)
    }

    /// Mean prompt per turn, `c̄ = Σ_k c_k / T` (every turn counts once).
    pub fn context_mean(&self) -> f64 {
        let total: f64 = (0..self.turns).map(|k| self.context_of_turn(k)).sum();
        total / f64::from(self.turns.max(1))
    }

    /// Log-space spread of the per-turn prompt as one lognormal: `σ_c² = ln(E[c²]/c̄²)`, with
    /// the turns' spread and the first prompt's own (`E[P²] = P²·exp(σ_P²)`).
    pub fn context_sigma(&self) -> f64 {
        let turns = f64::from(self.turns.max(1));
        let mean = self.context_mean();
        let second: f64 = (0..self.turns)
            .map(|k| self.context_of_turn(k).powi(2))
            .sum::<f64>()
            / turns;
        let prompt_variance =
            self.first_prompt.powi(2) * ((self.prompt_sigma * self.prompt_sigma).exp() - 1.0);
        if mean > 0.0 {
            ((second + prompt_variance) / (mean * mean))
                .ln()
                .max(0.0)
                .sqrt()
        } else {
            0.0
        }
    }

    /// The hit rate with nothing evicted: `h* = 1 − (P + (T − 1)·(R + b/2)) / Σ_k c_k`.
    pub fn ideal_hit(&self) -> f64 {
        let total: f64 = (0..self.turns).map(|k| self.context_of_turn(k)).sum();
        let new = self.first_prompt
            + f64::from(self.turns.saturating_sub(1)) * (self.tool_tokens + BLOCK_TOKENS / 2.0);
        if total > 0.0 {
            (1.0 - new / total).clamp(0.0, MAX_HIT)
        } else {
            0.0
        }
    }

    /// Input tokens (cached and not) per output token of the session's mix: `c̄ / O`.
    pub fn input_per_output(&self) -> f64 {
        self.context_mean() / self.output.max(1.0)
    }
}

/// The prefix-hit field's ceiling (`prefix-hit` ranges to 0.99).
const MAX_HIT: f64 = 0.99;

/// Che's approximation of LRU with equally popular items: the retained fraction of each idle
/// session's context, `f = min(1, (K − pinned)/demand)` (see the module doc).
pub fn retained_fraction(capacity_tokens: f64, pinned_tokens: f64, idle_demand_tokens: f64) -> f64 {
    if idle_demand_tokens <= 0.0 {
        return 1.0;
    }
    ((capacity_tokens - pinned_tokens) / idle_demand_tokens).clamp(0.0, 1.0)
}

/// The analytic steady state of `N` agents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionPoint {
    /// Agents (sessions in flight), `N`.
    pub agents: u32,
    /// Turns being served at once across the system, `C_run` (the rest are in their tools).
    pub running_turns: f64,
    /// Hit rate reached, `h = f·h*`.
    pub hit_rate: f64,
    /// With nothing evicted, `h*`.
    pub ideal_hit: f64,
    /// Retained fraction of an idle session's context, `f`.
    pub retained: f64,
    /// KV pool of one replica, tokens.
    pub kv_tokens_per_replica: f64,
    /// Mean prompt per turn, `c̄`.
    pub context_mean: f64,
    /// Turns completed per second, all agents.
    pub turns_per_s: f64,
    /// Seconds from one turn's start to the next's: `E2E + t_tool`.
    pub cycle_s: f64,
    /// The per-turn operating point (prompt `c̄`, output `O`, hit `h`, concurrency `C_run`).
    pub point: OperatingPoint,
    /// Whether the fixed point settled.
    pub converged: bool,
}

impl SessionPoint {
    /// Prompt tokens served from the cache per second, all GPUs.
    pub fn cached_input_tok_s(&self) -> f64 {
        self.turns_per_s * self.context_mean * self.hit_rate
    }

    /// Prompt tokens prefilled per second, all GPUs.
    pub fn uncached_input_tok_s(&self) -> f64 {
        self.turns_per_s * self.context_mean * (1.0 - self.hit_rate)
    }
}

/// KV tokens one replica's pool holds at a context of `context` tokens (window caps and block
/// waste as in the scenario's capacity, `physics::memory`).
pub fn kv_tokens_per_replica(scenario: &Scenario, context: f64) -> f64 {
    let context = context.max(1.0);
    let per_sequence =
        kv_bytes_per_sequence_gpu(&scenario.arch, scenario.kv_precision, scenario.par, context).0;
    if per_sequence > 0.0 {
        scenario.kv_pool_per_gpu.0 / (per_sequence / context)
    } else {
        0.0
    }
}

/// The per-turn scenario: `scenario` with the mean turn's prompt `c̄` (spread `σ_c`), the hit
/// `hit`, `running` turns in flight and its layout pinned (so TP does not move with the prompt);
/// single requests (no session fields). `None` when it does not validate (e.g. does not fit).
pub fn turn_scenario(
    scenario: &Scenario,
    shape: &SessionShape,
    hit: f64,
    running: u32,
) -> Option<Scenario> {
    let input = ScenarioInput {
        input_len: shape.context_mean().max(1.0),
        input_sigma: shape.context_sigma().min(3.0),
        prefix_hit: hit.clamp(0.0, MAX_HIT),
        concurrency: f64::from(running.max(1)),
        tp: Some(f64::from(scenario.par.tp)),
        pp: Some(f64::from(scenario.par.pp)),
        session_turns: None,
        session_tool_tokens: None,
        session_tool_s: None,
        ..scenario.input.clone()
    };
    Scenario::try_from(input).ok()
}

/// The per-turn operating point at a fractional number of running turns: the points at the
/// whole counts either side, blended linearly (the running count moves between them), so the
/// steady state does not jump where `C_run` crosses a half.
fn turn_point(
    scenario: &Scenario,
    shape: &SessionShape,
    hit: f64,
    running: f64,
) -> Option<(Scenario, OperatingPoint)> {
    let low = running.floor().max(1.0);
    let weight = (running - low).clamp(0.0, 1.0);
    let turn = turn_scenario(scenario, shape, hit, low as u32)?;
    let below = evaluate(&turn);
    if weight <= 0.0 {
        return Some((turn, below));
    }
    let upper = turn_scenario(scenario, shape, hit, low as u32 + 1)?;
    let above = evaluate(&upper);
    let mix = |a: f64, b: f64| a + (b - a) * weight;
    let mix_option = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(mix(a, b)),
        _ => None,
    };
    let mut point = if weight < 0.5 {
        below.clone()
    } else {
        above.clone()
    };
    point.batch_per_replica = mix(below.batch_per_replica, above.batch_per_replica);
    point.output_tok_s = mix(below.output_tok_s, above.output_tok_s);
    point.output_tok_s_per_gpu = mix(below.output_tok_s_per_gpu, above.output_tok_s_per_gpu);
    point.total_tok_s = mix(below.total_tok_s, above.total_tok_s);
    point.requests_per_s = mix(below.requests_per_s, above.requests_per_s);
    point.decode_ms_per_token = mix(below.decode_ms_per_token, above.decode_ms_per_token);
    point.tpot_ms = mix(below.tpot_ms, above.tpot_ms);
    point.tok_s_per_user = if point.tpot_ms > 0.0 {
        1000.0 / point.tpot_ms
    } else {
        0.0
    };
    point.ttft_ms = mix(below.ttft_ms, above.ttft_ms);
    point.e2e_ms = mix(below.e2e_ms, above.e2e_ms);
    point.prefill_share = mix(below.prefill_share, above.prefill_share);
    point.prefill_us_per_token = mix(below.prefill_us_per_token, above.prefill_us_per_token);
    point.usd_per_m_output = mix_option(below.usd_per_m_output, above.usd_per_m_output);
    point.usd_per_m_input = mix_option(below.usd_per_m_input, above.usd_per_m_input);
    point.usd_per_m_blended = mix_option(below.usd_per_m_blended, above.usd_per_m_blended);
    point.fits = below.fits && above.fits;
    Some((if weight < 0.5 { turn } else { upper }, point))
}

/// Iterations of the fixed point `C_run ↔ E2E ↔ h` (damped by half each time).
const FIXED_POINT_ROUNDS: u32 = 40;

/// The analytic steady state of `agents` sessions on `scenario` (in session mode): the fixed
/// point of the running turns, the turn time and the hit rate the KV pool lets survive (module
/// doc). `None` when the scenario is not in session mode or the per-turn scenario does not
/// validate.
pub fn evaluate_sessions(scenario: &Scenario, agents: u32) -> Option<SessionPoint> {
    let shape = SessionShape::of(scenario)?;
    let agents = agents.max(1);
    let n = f64::from(agents);
    let ideal = shape.ideal_hit();
    let replicas = f64::from(scenario.replicas.max(1));
    let mut running = n;
    let mut hit = ideal;
    let mut converged = false;
    let mut last: Option<(Scenario, OperatingPoint, f64, f64)> = None;
    for _ in 0..FIXED_POINT_ROUNDS {
        let (turn, point) = turn_point(scenario, &shape, hit, running.clamp(1.0, n))?;
        let kv_tokens = kv_tokens_per_replica(&turn, turn.workload.live_context());
        // Turns beyond what the engine batches wait in its queue, their sessions' KV as
        // evictable as an idle one's.
        let batched = point.batch_per_replica.min(running / replicas).max(0.0);
        let pinned = batched * turn.workload.live_context();
        let idle = (n / replicas - batched).max(0.0) * (shape.context_mean() + shape.output);
        let retained = retained_fraction(kv_tokens, pinned, idle);
        let turn_s = point.e2e_ms / 1e3;
        let next_running = if turn_s + shape.tool_s > 0.0 {
            n * turn_s / (turn_s + shape.tool_s)
        } else {
            n
        };
        let next_hit = retained * ideal;
        let settled = (next_running - running).abs() < 0.01 * running.max(1.0)
            && (next_hit - hit).abs() < 1e-3;
        running = 0.5 * (running + next_running);
        hit = 0.5 * (hit + next_hit);
        last = Some((turn, point, retained, kv_tokens));
        if settled {
            converged = true;
            break;
        }
    }
    let (_, point, retained, kv_tokens) = last?;
    let turn_s = point.e2e_ms / 1e3;
    let cycle_s = turn_s + shape.tool_s;
    Some(SessionPoint {
        agents,
        running_turns: running,
        hit_rate: hit,
        ideal_hit: ideal,
        retained,
        kv_tokens_per_replica: kv_tokens,
        context_mean: shape.context_mean(),
        turns_per_s: if cycle_s > 0.0 { n / cycle_s } else { 0.0 },
        cycle_s,
        point,
        converged,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::scenario::session_preset::SessionPreset;

    /// The small reference scenario under the agentic-coding preset (also `model::agents`' tests).
    pub(crate) fn agentic() -> Scenario {
        let mut input = ScenarioInput::small_reference();
        SessionPreset::AgenticCoding.apply(&mut input);
        Scenario::try_from(input).expect("valid")
    }

    #[test]
    fn the_agentic_preset_has_the_published_shape() {
        let shape = SessionShape::of(&agentic()).expect("session mode");
        let mean = shape.context_mean();
        assert!((20_000.0..35_000.0).contains(&mean), "{mean}");
        let hit = shape.ideal_hit();
        assert!((0.85..0.97).contains(&hit), "{hit}");
    }

    #[test]
    fn presets_read_back_from_their_inputs() {
        for preset in SessionPreset::ALL.iter().copied() {
            let mut input = ScenarioInput::default();
            preset.apply(&mut input);
            assert_eq!(SessionPreset::of_input(&input), Some(preset));
            assert_eq!(SessionPreset::parse(preset.id()), Some(preset));
        }
        assert_eq!(SessionPreset::of_input(&ScenarioInput::default()), None);
    }

    #[test]
    fn che_retains_everything_under_capacity_and_a_share_above() {
        assert_eq!(retained_fraction(100.0, 20.0, 50.0), 1.0);
        assert_eq!(retained_fraction(100.0, 20.0, 160.0), 0.5);
        assert_eq!(retained_fraction(100.0, 120.0, 10.0), 0.0);
        assert_eq!(retained_fraction(100.0, 0.0, 0.0), 1.0);
    }

    #[test]
    fn a_single_request_scenario_has_no_session_point() {
        let scenario = Scenario::try_from(ScenarioInput::small_reference()).expect("valid");
        assert!(evaluate_sessions(&scenario, 8).is_none());
    }
}
