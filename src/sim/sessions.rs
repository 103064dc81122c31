//! The simulator of agentic sessions (issue 27 §1): `N` agents on one replica, each a chain of
//! turns whose next turn arrives after the previous answer plus the agent's tool time, served by
//! an iteration-level continuous-batching engine with chunked prefill and a prefix cache that
//! evicts least recently used (`model::sessions` describes the engines' caches; the analytic
//! steady state it checks is `model::sessions::evaluate_sessions`).
//!
//! One iteration: sessions whose tools have finished join the queue; queued turns are admitted
//! first come, first served while their prompt and output fit the KV pool beside the running
//! turns' reservations (no preemption: a turn reserves its whole life at admission) and the
//! engine's sequence limit; a turn hits the part of its context its session still has in the
//! pool (whole 16-token blocks, never the last prompt token); decodes take one token of the
//! step's budget each and prompts are prefilled in chunks of what is left (vLLM's scheduler
//! order), each chunk attending over its turn's cached prefix; the iteration's time is
//! `sim::step::iteration_seconds`, the analytic model's physics.
//! After each iteration the pool evicts: while the running turns' KV and the idle sessions' cached
//! contexts exceed the pool, the least recently used idle session loses the tail of its context
//! (vLLM's free-block queue, SGLang's LRU leaves). A session's KV after its last turn is dropped
//! at once (its blocks would be the oldest, first to go).
//!
//! Bounded: at most `max_iterations` iterations and `horizon_s` simulated seconds; sessions
//! start cold (nothing cached, spread over their turns), and only what happens after `warmup_s`
//! is measured. Deterministic for a seed (`sim::rng`).

use super::rng::{Rng, Stream};
use super::step::{iteration_seconds, IterationWork};
use crate::model::sessions::{kv_tokens_per_replica, SessionShape};
use crate::physics::memory::BLOCK_TOKENS;
use crate::scenario::Scenario;
use serde::Serialize;
use std::collections::VecDeque;

/// How long and how much to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionSimConfig {
    pub seed: u64,
    /// Unmeasured start (sessions start cold), seconds.
    pub warmup_s: f64,
    /// End of the run, seconds.
    pub horizon_s: f64,
    pub max_iterations: u64,
}

/// What a run measured, for the whole system (the replica's throughput × replicas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSimResult {
    pub agents: u32,
    pub output_tok_s: f64,
    pub ttft_ms_mean: f64,
    pub tpot_ms_mean: f64,
    pub ttft_ms_p90: f64,
    pub tpot_ms_p90: f64,
    /// Token-weighted prefix-cache hit rate of the turns admitted in the window.
    pub hit_rate: f64,
    pub turns_measured: u32,
    /// Turns whose whole life could not fit the pool even alone (their session restarts).
    pub rejected: u32,
    /// The run stopped at its iteration budget before the horizon.
    pub truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Idle,
    Waiting,
    Running,
}

#[derive(Debug, Clone, Copy)]
struct Session {
    /// Context the next turn sends.
    context: u32,
    /// Turns done in this session.
    done: u32,
    /// Tokens of its context still in the pool (idle or waiting).
    retained: u32,
    last_used_s: f64,
    ready_s: f64,
    phase: Phase,
}

#[derive(Debug, Clone, Copy)]
struct Turn {
    session: usize,
    prompt: u32,
    cached: u32,
    prefilled: u32,
    output: u32,
    emitted: u32,
    arrival_s: f64,
    first_token_s: f64,
    /// Tokens scheduled this iteration (0: none).
    scheduled: u32,
}

impl Turn {
    fn uncached(&self) -> u32 {
        self.prompt.saturating_sub(self.cached)
    }
    fn prefilling(&self) -> bool {
        self.prefilled < self.uncached()
    }
    fn holds(&self) -> u32 {
        self.prompt.saturating_add(self.emitted)
    }
    fn reserves(&self) -> u32 {
        self.prompt.saturating_add(self.output)
    }
}

fn tokens(value: f64) -> u32 {
    if value.is_finite() && value >= 1.0 {
        value.min(f64::from(u32::MAX / 4)).round() as u32
    } else {
        1
    }
}

/// Whole blocks of `tokens`, never the last prompt token (MODEL.md §1.5).
fn cached_blocks(retained: u32, prompt: u32) -> u32 {
    let block = BLOCK_TOKENS as u32;
    (retained.min(prompt.saturating_sub(1)) / block) * block
}

struct Sampler {
    rng: Rng,
    shape: SessionShape,
}

impl Sampler {
    fn first_prompt(&mut self) -> u32 {
        tokens(
            self.rng
                .lognormal(self.shape.first_prompt, self.shape.prompt_sigma),
        )
    }
    fn output(&mut self) -> u32 {
        tokens(
            self.rng
                .lognormal(self.shape.output, self.shape.output_sigma),
        )
    }
    fn tool_tokens(&mut self) -> u32 {
        if self.shape.tool_tokens > 0.0 {
            tokens(
                self.rng
                    .lognormal(self.shape.tool_tokens, self.shape.prompt_sigma),
            )
        } else {
            0
        }
    }
    fn tool_s(&mut self) -> f64 {
        self.shape.tool_s * self.rng.exponential()
    }
    fn cap(&self, context: u32) -> u32 {
        let max = if self.shape.max_context >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            self.shape.max_context as u32
        };
        context.min(max)
    }
}

/// Simulate `agents` sessions on `scenario` (in session mode; one replica holds `agents /
/// replicas` of them, rounded up, and the throughput is scaled by the replicas). `None` when the
/// scenario is not in session mode.
pub fn simulate_sessions(
    scenario: &Scenario,
    agents: u32,
    config: &SessionSimConfig,
) -> Option<SessionSimResult> {
    let shape = SessionShape::of(scenario)?;
    let replicas = scenario.replicas.max(1);
    let n = agents.max(1).div_ceil(replicas).max(1);
    let mut run = SessionRun::new(scenario, shape, n, config);
    let mut iterations = 0_u64;
    let mut truncated = false;
    while run.now_s < config.horizon_s {
        if iterations >= config.max_iterations {
            truncated = true;
            break;
        }
        iterations += 1;
        run.arrive();
        run.admit();
        if run.running.is_empty() {
            // Nothing to run: jump to the next session's return.
            let Some(next) = run.next_return_s() else {
                break;
            };
            run.now_s = run.now_s.max(next);
            continue;
        }
        run.iterate(scenario);
    }
    Some(run.result(n, replicas, truncated))
}

/// The replica's limits a run schedules under.
struct Limits {
    /// KV pool, tokens.
    capacity: u32,
    /// Tokens one iteration may schedule.
    budget: u32,
    /// Most prompt tokens of one turn per iteration.
    chunk: u32,
    max_seqs: usize,
    overhead_s: f64,
}

impl Limits {
    /// The limits of one replica of `scenario` running sessions of `shape`.
    fn of(scenario: &Scenario, shape: &SessionShape) -> Limits {
        Limits {
            capacity: tokens(kv_tokens_per_replica(scenario, shape.context_mean())),
            budget: scenario.step_token_budget().max(1),
            chunk: scenario.chunk_tokens.max(1),
            max_seqs: usize::try_from(scenario.max_num_seqs.max(1)).unwrap_or(usize::MAX),
            overhead_s: scenario.server_overhead.0,
        }
    }
}

/// What a run has counted so far (inside the measurement window, except `rejected`).
#[derive(Default)]
struct Tally {
    window_tokens: u64,
    ttft_ms: Vec<f64>,
    tpot_ms: Vec<f64>,
    prompt_tokens: u64,
    hit_tokens: u64,
    rejected: u32,
}

/// One run's state: the sessions, the queue of waiting turns, the running turns and the clock.
struct SessionRun {
    limits: Limits,
    config: SessionSimConfig,
    sampler: Sampler,
    sessions: Vec<Session>,
    queue: VecDeque<usize>,
    running: Vec<Turn>,
    now_s: f64,
    tally: Tally,
}

impl SessionRun {
    /// A run of `n` sessions on one replica of `scenario`, started cold.
    fn new(
        scenario: &Scenario,
        shape: SessionShape,
        n: u32,
        config: &SessionSimConfig,
    ) -> SessionRun {
        let limits = Limits::of(scenario, &shape);
        let mut sampler = Sampler {
            rng: Rng::stream(config.seed, Stream::Lengths),
            shape,
        };
        let sessions = cold_sessions(n, &mut sampler);
        SessionRun {
            limits,
            config: *config,
            sampler,
            sessions,
            queue: VecDeque::new(),
            running: Vec::new(),
            now_s: 0.0,
            tally: Tally::default(),
        }
    }

    /// Arrivals: sessions whose tools are done join the queue, in the order they became ready.
    fn arrive(&mut self) {
        let now_s = self.now_s;
        let mut ready: Vec<usize> = self
            .sessions
            .iter()
            .enumerate()
            .filter(|(_, s)| s.phase == Phase::Idle && s.ready_s <= now_s)
            .map(|(i, _)| i)
            .collect();
        let sessions = &self.sessions;
        ready.sort_by(|a, b| {
            let at = |i: &usize| sessions.get(*i).map_or(0.0, |s| s.ready_s);
            at(a).total_cmp(&at(b))
        });
        for index in ready {
            if let Some(session) = self.sessions.get_mut(index) {
                session.phase = Phase::Waiting;
                self.queue.push_back(index);
            }
        }
    }

    /// Admission, first come first served, while the turn's whole life fits the pool beside
    /// the running turns' reservations and the sequence limit allows; a turn that can never fit
    /// is rejected and its session starts afresh.
    fn admit(&mut self) {
        let capacity = self.limits.capacity;
        let mut reserved: u32 = self.running.iter().map(Turn::reserves).sum();
        while self.running.len() < self.limits.max_seqs {
            let Some(&index) = self.queue.front() else {
                break;
            };
            let Some(session) = self.sessions.get_mut(index) else {
                self.queue.pop_front();
                continue;
            };
            let output = self.sampler.output();
            let need = session.context.saturating_add(output);
            if need > capacity {
                // Can never fit: the session gives up and starts afresh.
                self.queue.pop_front();
                self.tally.rejected += 1;
                session.context = self.sampler.first_prompt();
                session.done = 0;
                session.retained = 0;
                session.phase = Phase::Idle;
                session.ready_s = self.now_s + self.sampler.tool_s();
                continue;
            }
            if reserved.saturating_add(need) > capacity && !self.running.is_empty() {
                break;
            }
            self.queue.pop_front();
            let cached = cached_blocks(session.retained, session.context);
            session.retained = 0;
            session.phase = Phase::Running;
            let arrival_s = session.ready_s;
            if arrival_s >= self.config.warmup_s {
                self.tally.prompt_tokens += u64::from(session.context);
                self.tally.hit_tokens += u64::from(cached);
            }
            self.running.push(Turn {
                session: index,
                prompt: session.context,
                cached,
                prefilled: 0,
                output,
                emitted: 0,
                arrival_s,
                first_token_s: 0.0,
                scheduled: 0,
            });
            reserved = reserved.saturating_add(need);
        }
    }

    /// When the next idle session returns from its tools (`None`: no session will).
    fn next_return_s(&self) -> Option<f64> {
        let next = self
            .sessions
            .iter()
            .filter(|s| s.phase == Phase::Idle)
            .map(|s| s.ready_s)
            .fold(f64::INFINITY, f64::min);
        next.is_finite().then_some(next)
    }

    /// One iteration of the running turns: schedule, advance the clock by its time, progress,
    /// completions, then eviction.
    fn iterate(&mut self, scenario: &Scenario) {
        let work = self.schedule();
        self.now_s += iteration_seconds(scenario, &work).max(1e-6);
        let measuring = self.now_s >= self.config.warmup_s;
        let finished = self.progress(measuring);
        self.complete(finished);
        evict(&mut self.sessions, &self.running, self.limits.capacity);
    }

    /// Schedule: decodes first, then prompt chunks from what the budget leaves.
    fn schedule(&mut self) -> IterationWork {
        let mut work = IterationWork::default();
        let mut left = self.limits.budget;
        for turn in self.running.iter_mut().filter(|t| !t.prefilling()) {
            turn.scheduled = 1;
            left = left.saturating_sub(1);
            work.decode_seqs += 1;
            work.decode_context_tokens += f64::from(turn.holds());
        }
        for turn in self.running.iter_mut().filter(|t| t.prefilling()) {
            let take = turn
                .uncached()
                .saturating_sub(turn.prefilled)
                .min(self.limits.chunk)
                .min(left);
            turn.scheduled = take;
            left = left.saturating_sub(take);
            work.prefill_tokens += take;
            work.prefill_prompt_weighted += f64::from(take) * f64::from(turn.uncached());
            work.prefill_cached_weighted += f64::from(take) * f64::from(turn.cached);
        }
        work
    }

    /// The scheduled tokens done: prompts advance by their chunk (the last chunk samples the
    /// first token), decodes emit one token. Returns the slots of the turns that finished.
    fn progress(&mut self, measuring: bool) -> Vec<usize> {
        let now_s = self.now_s;
        let mut finished = Vec::new();
        for (slot, turn) in self.running.iter_mut().enumerate() {
            if turn.scheduled == 0 {
                continue;
            }
            if turn.prefilling() {
                turn.prefilled = turn.prefilled.saturating_add(turn.scheduled);
                if !turn.prefilling() {
                    turn.emitted = 1;
                    turn.first_token_s = now_s;
                    if measuring {
                        self.tally.window_tokens += 1;
                    }
                }
            } else {
                turn.emitted = turn.emitted.saturating_add(1);
                if measuring {
                    self.tally.window_tokens += 1;
                }
            }
            turn.scheduled = 0;
            if turn.emitted >= turn.output && !turn.prefilling() {
                finished.push(slot);
            }
        }
        finished
    }

    /// Completions (slots in increasing order): each measured turn's TTFT and TPOT, and its
    /// session goes to its tools, keeping its context cached, or after its last turn starts
    /// afresh.
    fn complete(&mut self, finished: Vec<usize>) {
        let now_s = self.now_s;
        for slot in finished.into_iter().rev() {
            if slot >= self.running.len() {
                continue;
            }
            let turn = self.running.swap_remove(slot);
            if turn.arrival_s >= self.config.warmup_s {
                self.tally
                    .ttft_ms
                    .push((turn.first_token_s - turn.arrival_s + self.limits.overhead_s) * 1e3);
                if turn.output > 1 {
                    self.tally
                        .tpot_ms
                        .push((now_s - turn.first_token_s) / f64::from(turn.output - 1) * 1e3);
                }
            }
            let tool_tokens = self.sampler.tool_tokens();
            let tool_s = self.sampler.tool_s();
            let first = self.sampler.first_prompt();
            let turns = self.sampler.shape.turns;
            if let Some(session) = self.sessions.get_mut(turn.session) {
                session.done += 1;
                session.phase = Phase::Idle;
                session.last_used_s = now_s;
                session.ready_s = now_s + tool_s;
                if session.done >= turns {
                    session.done = 0;
                    session.context = first;
                    session.retained = 0;
                } else {
                    session.retained = turn.holds();
                    session.context = self.sampler.cap(turn.holds().saturating_add(tool_tokens));
                }
            }
        }
    }

    /// The measured figures of the run, for the whole system of `replicas` replicas of `n`
    /// sessions each.
    fn result(mut self, n: u32, replicas: u32, truncated: bool) -> SessionSimResult {
        let config = &self.config;
        let tally = &mut self.tally;
        let window_s = (self.now_s.min(config.horizon_s) - config.warmup_s).max(1e-9);
        let mean = |values: &[f64]| {
            if values.is_empty() {
                f64::NAN
            } else {
                values.iter().sum::<f64>() / values.len() as f64
            }
        };
        SessionSimResult {
            agents: n.saturating_mul(replicas),
            output_tok_s: tally.window_tokens as f64 / window_s * f64::from(replicas),
            ttft_ms_mean: mean(&tally.ttft_ms),
            tpot_ms_mean: mean(&tally.tpot_ms),
            ttft_ms_p90: quantile(&mut tally.ttft_ms, 0.9),
            tpot_ms_p90: quantile(&mut tally.tpot_ms, 0.9),
            hit_rate: if tally.prompt_tokens > 0 {
                tally.hit_tokens as f64 / tally.prompt_tokens as f64
            } else {
                0.0
            },
            turns_measured: u32::try_from(tally.ttft_ms.len()).unwrap_or(u32::MAX),
            rejected: tally.rejected,
            truncated,
        }
    }
}

/// Cold start, spread over the sessions' lives: each of the `n` sessions begins at a random
/// turn, with the context that turn would send, and returns from its tools at a random time.
fn cold_sessions(n: u32, sampler: &mut Sampler) -> Vec<Session> {
    let shape = sampler.shape;
    (0..n)
        .map(|_| {
            let start = (sampler.rng.uniform() * f64::from(shape.turns)).floor() as u32;
            let mut context = sampler.first_prompt();
            for _ in 0..start.min(shape.turns.saturating_sub(1)) {
                let grown = context
                    .saturating_add(sampler.output())
                    .saturating_add(sampler.tool_tokens());
                context = sampler.cap(grown);
            }
            let ready_s = sampler.rng.uniform() * (shape.tool_s + 1.0);
            Session {
                context,
                done: start.min(shape.turns.saturating_sub(1)),
                retained: 0,
                last_used_s: 0.0,
                ready_s,
                phase: Phase::Idle,
            }
        })
        .collect()
}

/// LRU eviction: while the running turns' KV and the idle sessions' cached contexts exceed the
/// pool, the least recently used idle (or queued) session loses the tail of what it holds.
fn evict(sessions: &mut [Session], running: &[Turn], capacity: u32) {
    let pinned: u64 = running.iter().map(|t| u64::from(t.holds())).sum();
    let cached: u64 = sessions
        .iter()
        .filter(|s| s.phase != Phase::Running)
        .map(|s| u64::from(s.retained))
        .sum();
    let mut excess = (pinned + cached).saturating_sub(u64::from(capacity));
    // Each pass empties or trims one session, so at most one pass per session.
    for _ in 0..sessions.len() {
        if excess == 0 {
            break;
        }
        let victim = sessions
            .iter_mut()
            .filter(|s| s.phase != Phase::Running && s.retained > 0)
            .min_by(|a, b| a.last_used_s.total_cmp(&b.last_used_s));
        let Some(victim) = victim else { break };
        let take = u64::from(victim.retained).min(excess);
        victim.retained = victim
            .retained
            .saturating_sub(u32::try_from(take).unwrap_or(u32::MAX));
        excess -= take;
    }
}

/// The `q` quantile of `values` (nearest rank; NaN when empty).
fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let rank = ((values.len() as f64 * q).ceil() as usize).saturating_sub(1);
    values.get(rank).copied().unwrap_or(f64::NAN)
}
