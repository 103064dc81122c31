//! The simulator for disaggregated serving (issue 14 §1; `model::disagg` is the analytic side):
//! a prefill pool and a decode pool run iteration by iteration with the step model both modes
//! share (`step::iteration_seconds`), and each prompt's KV crosses the link between them
//! (`model::disagg::kv_transfer_time`, the same hand-off the analytic model prices).
//!
//! * **Prefill replicas** take requests round-robin (the analytic queue is per replica at
//!   `X/R_p`), first come, first served; a step holds up to the replica's token budget of prompt
//!   chunks (each prompt at most `chunk_tokens` per step) and no decodes. A prompt's last chunk
//!   samples its first token; its KV then travels for `t_kv`.
//! * **Decode replicas** receive a request when its KV lands, on the replica holding the fewest
//!   (a least-loaded router); each runs up to `model::disagg::decode_batch_cap` sequences, one
//!   token each per step (`E_tok` per step under speculative decoding, credited as expected
//!   tokens), with no prompt chunks. A request's first token reaches the user when the decode
//!   pool takes it in (TTFT, as the analytic model counts it); the rest stream from its steps.
//! * **Closed loop**: each completion releases the next request of the sample at once. Under the
//!   steady protocol the run starts warm, as the aggregated engines do: the slots' first
//!   sequences already decoding, spread through their outputs (unmeasured), so the window sees
//!   the steady state rather than the first wave's prefill queue.
//!
//! Metrics follow MODEL.md §3 (`TTFT = f − a + t_srv`, `TPOT = (e − f)/(O − 1)`); the window
//! opens after the warm-up share of completions and closes at the completion that releases the
//! last request (closed loop) or at the last arrival (open loop; at the last completion when the
//! warm-up outlasts the arrivals). Bounded by the event budget and
//! the horizon; deterministic (no RNG beyond the sample's).

use super::histogram::LogHistogram;
use super::metrics::LatencySamples;
use super::result::{LatencySummary, SimResult, SloOutcome, TokenLedger, Truncation};
use super::step::{iteration_seconds, IterationWork};
use super::workload::{sample_requests, Arrivals, RequestSample};
use super::{SimConfig, SimConfigError, CONFIDENT_MEASURED};
use crate::model::decode::expected_tokens_per_step;
use crate::model::disagg::{decode_batch_cap, kv_transfer_time};
use crate::scenario::pools::Pools;
use crate::scenario::{Protocol, Scenario};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A request enters the prefill pool (index into the sample).
    Arrive(usize),
    PrefillStepEnd(usize),
    /// A request's KV reaches the decode pool.
    Landed(usize),
    DecodeStepEnd(usize),
}

/// One request's progress.
#[derive(Debug, Clone, Copy, Default)]
struct Flight {
    arrival_s: f64,
    first_s: f64,
    /// Prompt tokens still to prefill.
    to_prefill: u32,
    /// Decode tokens still to emit (credited fractionally under speculation).
    to_decode: f64,
    context: f64,
    /// A warm-start sequence: load, never measured, not a sample request.
    warm: bool,
}

#[derive(Debug, Default)]
struct PrefillReplica {
    queue: VecDeque<usize>,
    busy: bool,
    running: Vec<(usize, u32)>,
}

#[derive(Debug, Default)]
struct DecodeReplica {
    waiting: VecDeque<usize>,
    running: Vec<usize>,
    busy: bool,
    last_step_s: f64,
}

struct Run<'a> {
    decode: &'a Scenario,
    pools: &'a Pools,
    sample: Vec<RequestSample>,
    flights: Vec<Flight>,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    sequence: u64,
    prefill: Vec<PrefillReplica>,
    decoders: Vec<DecodeReplica>,
    next_prefill: usize,
    released: usize,
    /// Requests that have arrived (entered the prefill pool), and those inside the window.
    arrived: usize,
    window_arrived: u32,
    cap: usize,
    tokens_per_step: f64,
    samples: LatencySamples,
    // Window and totals.
    completed: u32,
    warmup: u32,
    window_end_after: u32,
    window_start_s: Option<f64>,
    window_end_s: Option<f64>,
    measured: u32,
    window_tokens: f64,
    window_prompts: f64,
    slo_met: u32,
    slo_met_tokens: u64,
    decode_busy_s: f64,
    decode_batch_s: f64,
    ledger: TokenLedger,
    iterations: u64,
    slo: Option<super::metrics::RequestSlo>,
    closed: bool,
}

impl Run<'_> {
    fn push(&mut self, at_s: f64, event: Event) {
        self.sequence += 1;
        self.events
            .push(Reverse((at_s.max(0.0).to_bits(), self.sequence, event)));
    }

    fn measuring(&self) -> bool {
        self.window_start_s.is_some() && self.window_end_s.is_none()
    }

    /// Release the next sample request now (closed loop).
    fn release(&mut self, now_s: f64) {
        if self.released < self.sample.len() {
            let index = self.released;
            self.released += 1;
            self.push(now_s, Event::Arrive(index));
        }
    }

    /// A request enters the prefill pool. The open loop's last arrival closes the window (as
    /// `metrics::WindowEnd::AtLastArrival`: after it the queue drains) unless the warm-up has not
    /// ended yet, when the window runs to the last completion.
    fn arrive(&mut self, index: usize, now_s: f64) {
        if self.measuring() {
            self.window_arrived += 1;
        }
        self.arrived += 1;
        if !self.closed && self.arrived == self.sample.len() && self.measuring() {
            self.window_end_s = Some(now_s);
        }
        let hit = self.decode.workload.prefix_hit;
        if let (Some(flight), Some(request)) = (self.flights.get_mut(index), self.sample.get(index))
        {
            flight.arrival_s = now_s;
            flight.to_prefill =
                ((f64::from(request.prompt_tokens) * (1.0 - hit)).ceil() as u32).max(1);
            flight.to_decode = f64::from(request.output_tokens.saturating_sub(1));
            flight.context = f64::from(request.prompt_tokens);
        }
        let replicas = self.prefill.len().max(1);
        let chosen = self.next_prefill % replicas;
        self.next_prefill = self.next_prefill.wrapping_add(1);
        if let Some(replica) = self.prefill.get_mut(chosen) {
            replica.queue.push_back(index);
        }
        self.start_prefill(chosen, now_s);
    }

    fn start_prefill(&mut self, r: usize, now_s: f64) {
        let prefill = &self.pools.prefill;
        let budget = prefill.step_token_budget().max(1);
        let per_prompt = prefill.chunk_tokens.max(1);
        let Some(replica) = self.prefill.get_mut(r) else {
            return;
        };
        if replica.busy || replica.queue.is_empty() {
            return;
        }
        let mut left = budget;
        let mut work = IterationWork::default();
        let mut running = Vec::new();
        for &index in &replica.queue {
            if left == 0 {
                break;
            }
            let Some(flight) = self.flights.get(index) else {
                continue;
            };
            let chunk = flight.to_prefill.min(left).min(per_prompt);
            left -= chunk;
            work.prefill_tokens += chunk;
            let prompt = self
                .sample
                .get(index)
                .map_or(1.0, |r| f64::from(r.prompt_tokens));
            work.prefill_prompt_weighted += f64::from(chunk) * prompt;
            running.push((index, chunk));
        }
        replica.busy = true;
        replica.running = running;
        self.ledger.prefill_tokens_computed += u64::from(work.prefill_tokens);
        self.iterations += 1;
        let dt = iteration_seconds(prefill, &work);
        self.push(now_s + dt, Event::PrefillStepEnd(r));
    }

    fn end_prefill(&mut self, r: usize, now_s: f64) {
        let Some(replica) = self.prefill.get_mut(r) else {
            return;
        };
        replica.busy = false;
        let running = std::mem::take(&mut replica.running);
        let mut done = Vec::new();
        for (index, chunk) in running {
            if let Some(flight) = self.flights.get_mut(index) {
                flight.to_prefill = flight.to_prefill.saturating_sub(chunk);
                if flight.to_prefill == 0 {
                    done.push(index);
                }
            }
        }
        replica.queue.retain(|index| !done.contains(index));
        for index in done {
            let prompt = self
                .sample
                .get(index)
                .map_or(1.0, |r| f64::from(r.prompt_tokens));
            let transfer = kv_transfer_time(self.decode, self.pools, prompt);
            self.push(now_s + transfer.0, Event::Landed(index));
        }
        self.start_prefill(r, now_s);
    }

    fn land(&mut self, index: usize, now_s: f64) {
        let chosen = self
            .decoders
            .iter()
            .enumerate()
            .min_by_key(|(_, d)| d.running.len() + d.waiting.len())
            .map_or(0, |(i, _)| i);
        if let Some(replica) = self.decoders.get_mut(chosen) {
            replica.waiting.push_back(index);
        }
        self.admit(chosen, now_s);
        self.start_decode(chosen, now_s);
    }

    /// Move waiting requests into the batch; each one's first token streams now.
    fn admit(&mut self, d: usize, now_s: f64) {
        let cap = self.cap;
        let mut finished = Vec::new();
        if let Some(replica) = self.decoders.get_mut(d) {
            while replica.running.len() < cap {
                let Some(index) = replica.waiting.pop_front() else {
                    break;
                };
                if let Some(flight) = self.flights.get_mut(index) {
                    if !flight.warm {
                        flight.first_s = now_s;
                    }
                    if flight.to_decode <= 0.0 {
                        finished.push(index);
                        continue;
                    }
                }
                replica.running.push(index);
            }
        }
        for index in finished {
            self.ledger.emitted_tokens += 1;
            self.complete(index, now_s);
        }
    }

    fn start_decode(&mut self, d: usize, now_s: f64) {
        let Some(replica) = self.decoders.get_mut(d) else {
            return;
        };
        if replica.busy || replica.running.is_empty() {
            return;
        }
        let mut work = IterationWork::default();
        for index in &replica.running {
            work.decode_seqs += 1;
            work.decode_context_tokens += self.flights.get(*index).map_or(0.0, |f| f.context);
        }
        replica.busy = true;
        let dt = iteration_seconds(self.decode, &work);
        replica.last_step_s = dt;
        if self.measuring() {
            self.decode_busy_s += dt;
            self.decode_batch_s += dt * f64::from(work.decode_seqs);
        }
        self.iterations += 1;
        self.push(now_s + dt, Event::DecodeStepEnd(d));
    }

    fn end_decode(&mut self, d: usize, now_s: f64) {
        let tokens = self.tokens_per_step;
        let measuring = self.measuring();
        let Some(replica) = self.decoders.get_mut(d) else {
            return;
        };
        replica.busy = false;
        let gap = replica.last_step_s;
        let mut finished = Vec::new();
        let mut emitted = 0.0;
        for &index in &replica.running {
            if let Some(flight) = self.flights.get_mut(index) {
                let step = tokens.min(flight.to_decode);
                flight.to_decode -= step;
                flight.context += step;
                emitted += step;
                if flight.to_decode <= 1e-9 {
                    finished.push(index);
                }
            }
        }
        replica.running.retain(|index| !finished.contains(index));
        self.ledger.decode_tokens_computed += replica.running.len() as u64 + finished.len() as u64;
        self.ledger.emitted_tokens += emitted.round() as u64;
        if measuring {
            self.window_tokens += emitted;
            self.samples.itl.add(gap, emitted.round() as u64);
        }
        for index in finished {
            self.complete(index, now_s);
        }
        self.admit(d, now_s);
        self.start_decode(d, now_s);
    }

    fn complete(&mut self, index: usize, now_s: f64) {
        let overhead = self.decode.server_overhead.0;
        let Some(flight) = self.flights.get(index).copied() else {
            return;
        };
        if !flight.warm {
            self.completed += 1;
            let output = self.sample.get(index).map_or(1, |r| r.output_tokens);
            let prompt = self.sample.get(index).map_or(0, |r| r.prompt_tokens);
            self.ledger.output_tokens += u64::from(output);
            self.ledger.prompt_tokens += u64::from(prompt);
            if self.measuring() {
                self.measured += 1;
                self.window_tokens += 1.0;
                self.window_prompts += f64::from(prompt);
                let ttft = flight.first_s - flight.arrival_s + overhead;
                let tpot = if output > 1 {
                    (now_s - flight.first_s) / f64::from(output - 1)
                } else {
                    0.0
                };
                self.samples.ttft.add(ttft, 1);
                if output > 1 {
                    self.samples.tpot.add(tpot, 1);
                }
                self.samples.e2e.add(now_s - flight.arrival_s + overhead, 1);
                if let Some(slo) = self.slo {
                    if ttft * 1e3 <= slo.ttft_ms && tpot * 1e3 <= slo.tpot_ms {
                        self.slo_met += 1;
                        self.slo_met_tokens += u64::from(output);
                    }
                }
            }
            if self.completed == self.warmup && self.window_start_s.is_none() {
                self.window_start_s = Some(now_s);
            }
            if self.completed == self.window_end_after && self.window_end_s.is_none() {
                self.window_end_s = Some(now_s);
            }
        }
        if self.closed {
            self.release(now_s);
        }
    }
}

/// Simulate a disaggregated scenario (`scenario.pools` set) under `config`.
pub fn simulate(
    scenario: &Scenario,
    pools: &Pools,
    config: &SimConfig,
) -> Result<SimResult, SimConfigError> {
    config.check()?;
    let sample = sample_requests(
        &scenario.workload,
        scenario.max_model_len,
        config.requests,
        config.seed,
        config.arrivals,
    );
    let opening = Opening::of(scenario, config, sample.len());
    let mut run = Run::new(scenario, pools, config, sample, &opening);
    run.open(&opening);
    let ending = run.drain(config);
    Ok(run.result(config, &ending))
}

/// How a run opens: the sample's size, the closed loop's concurrency, the decode pool's shape
/// and the warm sequences it starts with.
struct Opening {
    /// Requests in the sample.
    requests: usize,
    closed: bool,
    /// The closed loop's concurrency (0 for an open loop).
    concurrency: usize,
    /// Sequences one decode replica runs at most.
    cap: usize,
    decoders: usize,
    /// Warm-start sequences (closed loop under the steady protocol).
    warm: usize,
}

impl Opening {
    /// The opening of a run of `requests` requests of `scenario` under `config`.
    fn of(scenario: &Scenario, config: &SimConfig, requests: usize) -> Opening {
        let closed = matches!(config.arrivals, Arrivals::Closed { .. });
        let concurrency = match config.arrivals {
            Arrivals::Closed { concurrency } => usize::try_from(concurrency).unwrap_or(usize::MAX),
            _ => 0,
        };
        let cap = decode_batch_cap(scenario).floor().max(1.0) as usize;
        let decoders = usize::try_from(scenario.replicas.max(1)).unwrap_or(1);
        let warm_start = closed && config.protocol == Protocol::Steady;
        let warm = if warm_start {
            concurrency.min(cap.saturating_mul(decoders))
        } else {
            0
        };
        Opening {
            requests,
            closed,
            concurrency,
            cap,
            decoders,
            warm,
        }
    }
}

/// How the event loop ended: the clock, the events handled and why it stopped early, if it did.
struct Ending {
    now_s: f64,
    events: u64,
    truncated: Option<Truncation>,
}

/// The flights of the sample's requests (blank) and, after them, of the warm sequences: the
/// mean request's output, spread through it, on the decode pool.
fn warm_flights(scenario: &Scenario, requests: usize, warm: usize) -> Vec<Flight> {
    let mut flights = vec![Flight::default(); requests + warm];
    let output = (scenario.workload.output_mean - 1.0).max(0.0);
    let context = scenario.workload.input_mean;
    for (i, flight) in flights.iter_mut().skip(requests).enumerate() {
        let left = output * (i as f64 + 0.5) / warm.max(1) as f64;
        *flight = Flight {
            to_decode: left.ceil().max(1.0),
            context: context + output - left,
            warm: true,
            ..Flight::default()
        };
    }
    flights
}

impl<'a> Run<'a> {
    /// A run of `sample` on `scenario`'s pools, nothing started yet.
    fn new(
        scenario: &'a Scenario,
        pools: &'a Pools,
        config: &SimConfig,
        sample: Vec<RequestSample>,
        opening: &Opening,
    ) -> Run<'a> {
        let n = opening.requests;
        let warmup = (config.warmup_fraction * n as f64).floor() as u32;
        let window_end_after = if opening.closed {
            u32::try_from(n.saturating_sub(opening.concurrency)).unwrap_or(u32::MAX)
        } else {
            u32::try_from(n).unwrap_or(u32::MAX)
        };
        let tokens_per_step = scenario
            .spec
            .map_or(1.0, |s| expected_tokens_per_step(s.accept, s.len));
        Run {
            decode: scenario,
            pools,
            sample,
            flights: warm_flights(scenario, n, opening.warm),
            events: BinaryHeap::new(),
            sequence: 0,
            prefill: (0..pools.prefill.replicas.max(1))
                .map(|_| PrefillReplica::default())
                .collect(),
            decoders: (0..opening.decoders)
                .map(|_| DecodeReplica::default())
                .collect(),
            next_prefill: 0,
            released: 0,
            arrived: 0,
            window_arrived: 0,
            cap: opening.cap,
            tokens_per_step,
            samples: LatencySamples::default(),
            completed: 0,
            warmup: warmup.max(1),
            window_end_after: window_end_after.max(warmup.max(1) + 1),
            window_start_s: if warmup == 0 { Some(0.0) } else { None },
            window_end_s: None,
            measured: 0,
            window_tokens: 0.0,
            window_prompts: 0.0,
            slo_met: 0,
            slo_met_tokens: 0,
            decode_busy_s: 0.0,
            decode_batch_s: 0.0,
            ledger: TokenLedger::default(),
            iterations: 0,
            slo: config.slo,
            closed: opening.closed,
        }
    }
}

impl Run<'_> {
    /// Time zero: the warm sequences on the decode replicas (round-robin), the closed loop's
    /// first requests released or the open loop's arrivals scheduled, and the first decode steps.
    fn open(&mut self, opening: &Opening) {
        let n = opening.requests;
        for i in 0..opening.warm {
            let replica = i % opening.decoders;
            if let Some(d) = self.decoders.get_mut(replica) {
                d.running.push(n + i);
            }
        }
        if self.closed {
            for _ in opening.warm..opening.concurrency.min(n + opening.warm) {
                self.release(0.0);
            }
        } else {
            for (index, request) in self.sample.clone().iter().enumerate() {
                self.push(request.arrival_s, Event::Arrive(index));
            }
            self.released = n;
        }
        for d in 0..opening.decoders {
            self.start_decode(d, 0.0);
        }
    }

    /// The event loop, until the events run out, the event budget is spent or the horizon
    /// passes.
    fn drain(&mut self, config: &SimConfig) -> Ending {
        let mut events = 0u64;
        let mut now_s = 0.0;
        let mut truncated = None;
        while let Some(Reverse((bits, _, event))) = self.events.pop() {
            now_s = f64::from_bits(bits);
            events += 1;
            if events > config.max_events {
                truncated = Some(Truncation::EventBudget);
                break;
            }
            if now_s > config.horizon_s {
                truncated = Some(Truncation::Horizon);
                break;
            }
            match event {
                Event::Arrive(index) => self.arrive(index, now_s),
                Event::PrefillStepEnd(r) => self.end_prefill(r, now_s),
                Event::Landed(index) => self.land(index, now_s),
                Event::DecodeStepEnd(d) => self.end_decode(d, now_s),
            }
        }
        Ending {
            now_s,
            events,
            truncated,
        }
    }

    /// The measured figures of a finished run: rates over the window, latency summaries, the
    /// decode pool's batch and busy share, and the SLO outcome when one was set.
    fn result(&self, config: &SimConfig, ending: &Ending) -> SimResult {
        let scenario = self.decode;
        let decoders = self.decoders.len();
        let start = self.window_start_s.unwrap_or(0.0);
        let end = self.window_end_s.unwrap_or(ending.now_s);
        let duration = (end - start).max(0.0);
        let rate = |x: f64| if duration > 0.0 { x / duration } else { 0.0 };
        let gpus = f64::from(scenario.total_gpus().max(1));
        let output_tok_s = rate(self.window_tokens);
        let total_tok_s = rate(self.window_tokens + self.window_prompts);
        let summary = |h: &LogHistogram| LatencySummary::of(h);
        SimResult {
            requests: config.requests,
            completed: self.completed,
            rejected: 0,
            measured: self.measured,
            busy_replicas: scenario.replicas.max(1),
            simulated_s: ending.now_s,
            window_s: duration,
            iterations: self.iterations,
            events: ending.events,
            output_tok_s,
            total_tok_s,
            output_tok_s_per_gpu: output_tok_s / gpus,
            total_tok_s_per_gpu: total_tok_s / gpus,
            requests_per_s: rate(f64::from(self.measured)),
            arrivals_per_s: rate(f64::from(self.window_arrived)),
            ttft: summary(&self.samples.ttft),
            tpot: summary(&self.samples.tpot),
            tpot_token_mean_ms: summary(&self.samples.tpot).mean_ms,
            e2e: summary(&self.samples.e2e),
            itl: summary(&self.samples.itl),
            mean_batch: if self.decode_busy_s > 0.0 {
                self.decode_batch_s / self.decode_busy_s
            } else {
                0.0
            },
            busy_fraction: if duration > 0.0 {
                (self.decode_busy_s / (duration * decoders as f64)).min(1.0)
            } else {
                0.0
            },
            kv_utilization_mean: 0.0,
            kv_utilization_peak: 0.0,
            kv_blocks_per_replica: 0,
            preemptions: 0,
            slo: config.slo.map(|slo| self.slo_outcome(slo, &rate)),
            ledger: self.ledger,
            low_confidence: self.measured < CONFIDENT_MEASURED || ending.truncated.is_some(),
            truncated: ending.truncated,
        }
    }

    /// How the measured requests met `slo`: the share, and goodput at `rate` over the window.
    fn slo_outcome(
        &self,
        slo: super::metrics::RequestSlo,
        rate: &dyn Fn(f64) -> f64,
    ) -> SloOutcome {
        SloOutcome {
            ttft_ms: slo.ttft_ms,
            tpot_ms: slo.tpot_ms,
            attainment: if self.measured > 0 {
                f64::from(self.slo_met) / f64::from(self.measured)
            } else {
                0.0
            },
            goodput_requests_per_s: rate(f64::from(self.slo_met)),
            goodput_output_tok_s: rate(self.slo_met_tokens as f64),
        }
    }
}
