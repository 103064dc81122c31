//! What both batching policies share on one replica: the engine settings taken from the
//! scenario, the stream of requests routed to the replica, the state of one sequence, the
//! counters a run reports (MODEL.md §6.2 entities), and the run itself up to the batch
//! (`Replica`: set-up, intake, clock, finish).

use super::kv::KvGeometry;
use super::metrics::{Recorder, WindowTotals};
use super::result::{TokenLedger, Truncation};
use super::rng::Rng;
use super::workload::RequestSample;
use crate::physics::memory::BLOCK_TOKENS;
use crate::scenario::Scenario;
use std::collections::VecDeque;

/// Engine settings of one replica, resolved once per run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineSettings {
    pub kv: KvGeometry,
    /// Token budget per iteration, `T_bud` (`max_num_batched_tokens`; per replica: one budget
    /// per attention-DP rank, `Scenario::step_token_budget`).
    pub chunk_tokens: u32,
    /// Most prompt tokens one sequence prefills per iteration: one scheduler's budget (the
    /// attention rank it lives on); `chunk_tokens` without attention DP.
    pub prompt_chunk_tokens: u32,
    /// Most sequences in a batch, `S_max` (`max_num_seqs`).
    pub max_num_seqs: u32,
    /// Token-weighted prefix-cache hit ratio `r_hit` (MODEL.md §1.5).
    pub prefix_hit: f64,
    /// Speculative decoding `(α, γ)` when on.
    pub spec: Option<(f64, u32)>,
    /// Scheduler passes this replica may run.
    pub max_events: u64,
    pub horizon_s: f64,
    /// Static batching: requests per batch and how long the oldest waits for a full batch.
    pub static_batch: u32,
    pub batch_timeout_s: f64,
    /// Per-request server overhead (`Scenario::server_overhead`, `model::ttft`): counted in
    /// every request's TTFT and E2E, not in the engine's time.
    pub server_overhead_s: f64,
    /// Closed loop, steady protocol, continuous batching: start the replica in its steady state
    /// (`Replica::start`'s warm start) instead of an idle engine that `C` prompts reach at once.
    pub warm_start: bool,
}

impl EngineSettings {
    /// KV slots a decode step needs beyond the context: the new token plus `γ` look-ahead slots
    /// for the drafts being verified (vLLM's `num_lookahead_slots`).
    pub fn decode_slots(&self) -> u32 {
        1 + self.spec.map_or(0, |(_, len)| len)
    }

    /// Prompt tokens served from the prefix cache: whole blocks of `r_hit·P`, and never the last
    /// prompt token, whose logits must be computed (MODEL.md §1.5: `P − ⌊h/b_blk⌋·b_blk`).
    pub fn cached_tokens(&self, prompt_tokens: u32) -> u32 {
        let hit =
            (self.prefix_hit * f64::from(prompt_tokens) / BLOCK_TOKENS).floor() * BLOCK_TOKENS;
        let hit = if hit > 0.0 { hit as u32 } else { 0 };
        hit.min(prompt_tokens.saturating_sub(1))
    }

    /// Whether a request can ever run on this replica (see `KvGeometry::fits_alone`).
    pub fn feasible(&self, request: &RequestSample) -> bool {
        let tokens = request
            .prompt_tokens
            .saturating_add(request.output_tokens)
            .saturating_add(self.decode_slots());
        self.kv.fits_alone(tokens)
    }
}

/// One request inside the engine (MODEL.md §6.2 `Request`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sequence {
    /// When the request reached the engine's queue.
    pub arrival_s: f64,
    /// When the client sent it: `arrival_s` less the server overhead and, for a closed-loop
    /// successor released while the engine is busy, the mean wait for the running step
    /// (`model::ttft`'s rules); TTFT and E2E are measured from here.
    pub sent_s: f64,
    /// Prompt tokens as the user sent them.
    pub prompt: u32,
    /// Output tokens the request will generate.
    pub output: u32,
    /// Prompt tokens served from the prefix cache at every (re)admission.
    pub cached: u32,
    /// Output tokens emitted so far, across attempts.
    pub emitted: u32,
    /// Tokens whose KV is in the cache now.
    pub computed: u32,
    /// Tokens this attempt must prefill up to: `prompt + emitted` at admission (after a
    /// recomputation preemption the generated tokens become prompt tokens).
    pub target: u32,
    pub blocks: u32,
    /// First token of the first attempt (TTFT keeps it across preemptions); `None` before it.
    pub first_token_s: Option<f64>,
    pub last_token_s: f64,
    /// Tokens scheduled in the current iteration (0: not in the batch).
    pub scheduled: u32,
    /// A warm-start sequence (`Replica::start`): load on the engine, not one of the sample's
    /// requests, so it is neither measured nor booked in the ledger.
    pub warm: bool,
}

impl Sequence {
    pub fn new(request: &RequestSample, arrival_s: f64, settings: &EngineSettings) -> Sequence {
        let cached = settings.cached_tokens(request.prompt_tokens);
        Sequence {
            arrival_s,
            sent_s: arrival_s - settings.server_overhead_s,
            prompt: request.prompt_tokens,
            output: request.output_tokens,
            cached,
            emitted: 0,
            computed: cached,
            target: request.prompt_tokens,
            blocks: 0,
            first_token_s: None,
            last_token_s: arrival_s,
            scheduled: 0,
            warm: false,
        }
    }

    /// A warm-start sequence already `fraction` of the way through its output at t = 0: prompt
    /// prefilled, `⌊fraction·O⌋` tokens emitted (at most `O − 1`), no blocks yet.
    pub fn warm(request: &RequestSample, fraction: f64, settings: &EngineSettings) -> Sequence {
        let mut seq = Sequence::new(request, 0.0, settings);
        let done = (fraction.clamp(0.0, 1.0) * f64::from(request.output_tokens)).floor() as u32;
        seq.emitted = done.min(request.output_tokens.saturating_sub(1));
        seq.computed = request.prompt_tokens.saturating_add(seq.emitted);
        seq.sent_s = 0.0;
        seq.first_token_s = Some(0.0);
        seq.last_token_s = 0.0;
        seq.warm = true;
        seq
    }

    /// Still prefilling this attempt's prompt.
    pub fn prefilling(&self) -> bool {
        self.computed < self.target
    }

    pub fn remaining_output(&self) -> u32 {
        self.output.saturating_sub(self.emitted)
    }
}

/// The requests routed to one replica: every `stride`-th request of the sample from `first`.
/// Closed loop: the engine releases them one per finished request; open loop: they arrive at
/// their sampled times.
#[derive(Debug, Clone)]
pub struct Source<'r> {
    requests: &'r [RequestSample],
    next: usize,
    stride: usize,
    closed: bool,
}

impl<'r> Source<'r> {
    pub fn new(requests: &'r [RequestSample], first: usize, stride: usize, closed: bool) -> Self {
        Source {
            requests,
            next: first,
            stride: stride.max(1),
            closed,
        }
    }

    pub fn closed(&self) -> bool {
        self.closed
    }

    /// How many requests are routed here in all.
    pub fn total(requests: usize, first: usize, stride: usize) -> u32 {
        let count = requests.saturating_sub(first).div_ceil(stride.max(1));
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// When the next open-loop request arrives (`None` in a closed loop or when none is left).
    pub fn next_arrival_s(&self) -> Option<f64> {
        if self.closed {
            None
        } else {
            self.requests.get(self.next).map(|r| r.arrival_s)
        }
    }

    /// The `ahead`-th request still to be taken (0: the next), without taking it.
    pub fn peek(&self, ahead: usize) -> Option<RequestSample> {
        let index = self.next.saturating_add(ahead.saturating_mul(self.stride));
        self.requests.get(index).copied()
    }

    /// The next request, in order.
    pub fn take(&mut self) -> Option<RequestSample> {
        let request = self.requests.get(self.next).copied();
        if request.is_some() {
            self.next = self.next.saturating_add(self.stride);
        }
        request
    }

    /// Requests not yet taken.
    pub fn remaining(&self) -> u32 {
        let left = self
            .requests
            .len()
            .saturating_sub(self.next)
            .div_ceil(self.stride);
        u32::try_from(left).unwrap_or(u32::MAX)
    }

    pub fn exhausted(&self) -> bool {
        self.next >= self.requests.len()
    }
}

/// Counters of one replica's run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplicaOutcome {
    pub clock_s: f64,
    pub iterations: u64,
    pub events: u64,
    pub preemptions: u64,
    pub completed: u32,
    pub rejected: u32,
    pub ledger: TokenLedger,
    pub truncated: Option<Truncation>,
}

impl ReplicaOutcome {
    /// Book a completed request's token totals (MODEL.md §6.3 conservation; see `TokenLedger`).
    pub fn book_completion(&mut self, seq: &Sequence) {
        self.completed += 1;
        let ledger = &mut self.ledger;
        ledger.prompt_tokens += u64::from(seq.prompt.saturating_sub(seq.cached));
        ledger.cached_prompt_tokens += u64::from(seq.cached);
        ledger.output_tokens += u64::from(seq.output);
        ledger.recomputed_prompt_tokens += u64::from(seq.target.saturating_sub(seq.prompt));
    }
}

/// One replica's run as both batching policies hold it and handle it alike: the scenario and
/// settings, where requests enter (the routed source, the waiting queue, or rejection if one can
/// never fit), the recorder, the acceptance-draw stream, the counters and the clock. An engine
/// adds only its batch.
pub struct Replica<'a, 'r, 's> {
    pub scenario: &'s Scenario,
    pub settings: EngineSettings,
    pub source: Source<'r>,
    /// Requests waiting for admission, FCFS (preempted ones re-enter at the front).
    pub waiting: VecDeque<Sequence>,
    /// Warm-start sequences for the engine to place in its batch before the first step.
    pub warm: Vec<Sequence>,
    pub recorder: Recorder<'a>,
    pub rng: Rng,
    pub out: ReplicaOutcome,
    pub now_s: f64,
}

impl<'a, 'r, 's> Replica<'a, 'r, 's> {
    /// The replica at time 0, with `initial_slots` requests released (its closed-loop share of
    /// the slots; 0 in an open loop).
    ///
    /// Warm start (`settings.warm_start`): a closed loop started on an idle engine sends its `C`
    /// prompts at once, and that first wave's prefill queue takes many cycles to wash out (with
    /// fixed lengths the loop stays phase-locked: at C = 1024 and 1k/1k tokens, tens of
    /// thousands of requests). The steady state the analytic model describes (MODEL.md §4.2) has
    /// the `C` streams at uniformly spread points of their lives. So each slot instead starts
    /// with a warm sequence, the length of the request it will release next, already
    /// `(i + ½)/C` of the way through its output; the engine admits it as a running decode, and
    /// its completion releases the slot's first sampled request. Warm sequences are load only:
    /// never measured, never booked. The benchmark protocol keeps the idle start on purpose.
    pub fn start(
        scenario: &'s Scenario,
        settings: EngineSettings,
        source: Source<'r>,
        recorder: Recorder<'a>,
        rng: Rng,
        initial_slots: u32,
    ) -> Replica<'a, 'r, 's> {
        let mut replica = Replica {
            scenario,
            settings,
            source,
            waiting: VecDeque::new(),
            warm: Vec::new(),
            recorder,
            rng,
            out: ReplicaOutcome::default(),
            now_s: 0.0,
        };
        if settings.warm_start && replica.source.closed() {
            let slots = f64::from(initial_slots.max(1));
            for slot in 0..initial_slots {
                let ahead = usize::try_from(slot).unwrap_or(usize::MAX);
                match replica.source.peek(ahead) {
                    Some(request) if settings.feasible(&request) => {
                        let fraction = (f64::from(slot) + 0.5) / slots;
                        replica
                            .warm
                            .push(Sequence::warm(&request, fraction, &settings));
                    }
                    _ => replica.release_next(0.0),
                }
            }
        } else {
            for _ in 0..initial_slots {
                replica.release_next(0.0);
            }
        }
        replica
    }

    fn enqueue(&mut self, request: &RequestSample, arrival_s: f64, waited_s: f64) -> bool {
        if self.settings.feasible(request) {
            let mut seq = Sequence::new(request, arrival_s, &self.settings);
            seq.sent_s -= waited_s;
            self.waiting.push_back(seq);
            self.recorder.on_arrival(arrival_s);
            true
        } else {
            self.out.rejected += 1;
            self.recorder.on_rejected(self.now_s);
            false
        }
    }

    /// Closed loop: release the next request now (a rejected one releases the next). It is
    /// charged `waited_s`, the mean wait for the running step (`model::ttft::step_wait`): a
    /// client's next request reaches a busy engine at a uniform point of a step, not at its end.
    pub fn release_next(&mut self, waited_s: f64) {
        while let Some(request) = self.source.take() {
            if self.enqueue(&request, self.now_s, waited_s) {
                return;
            }
        }
    }

    /// Open loop: queue every request that has arrived by now, in arrival order; tell the
    /// recorder when the last one has arrived. Does nothing in a closed loop.
    pub fn take_arrivals(&mut self) {
        while let Some(arrival_s) = self.source.next_arrival_s() {
            if arrival_s > self.now_s {
                break;
            }
            let Some(request) = self.source.take() else {
                break;
            };
            self.enqueue(&request, arrival_s, 0.0);
            if self.source.exhausted() {
                self.recorder.on_last_arrival(self.now_s);
            }
        }
    }

    /// With nothing to run: move the clock to the next arrival and return true, or return false
    /// when the run is over (no request is left to arrive, or the next arrives past the horizon:
    /// truncated).
    pub fn wait_for_arrival(&mut self) -> bool {
        match self.source.next_arrival_s() {
            Some(arrival_s) if arrival_s < self.settings.horizon_s => {
                self.now_s = self.now_s.max(arrival_s);
                true
            }
            Some(_) => {
                self.out.truncated = Some(Truncation::Horizon);
                false
            }
            None => false,
        }
    }

    /// The run's counters, with the clock, and its measurement window.
    pub fn finish(self) -> (ReplicaOutcome, WindowTotals) {
        let Replica {
            recorder,
            mut out,
            now_s,
            ..
        } = self;
        out.clock_s = now_s;
        (out, recorder.finish(now_s))
    }
}

/// For both engines' unit tests: plain settings and a measured closed-loop run.
#[cfg(test)]
pub mod testing {
    use super::{EngineSettings, Replica, ReplicaOutcome, Source};
    use crate::scenario::{Scenario, ScenarioInput};
    use crate::sim::kv::KvGeometry;
    use crate::sim::metrics::{LatencySamples, Recorder, WindowEnd, WindowTotals};
    use crate::sim::rng::Rng;
    use crate::sim::workload::RequestSample;

    /// `ScenarioInput::small_reference()`, validated.
    pub fn scenario() -> Scenario {
        Scenario::try_from(ScenarioInput::small_reference()).expect("valid")
    }

    /// A pool of `total_blocks` with no watermark or reserve, vLLM's default token budget and
    /// sequence limit, no prefix cache or speculation, 10⁴ passes, a far horizon, batches of one.
    pub fn settings(total_blocks: u32) -> EngineSettings {
        EngineSettings {
            kv: KvGeometry {
                total_blocks,
                watermark_blocks: 0,
                reserve_tokens: 0,
            },
            chunk_tokens: 2048,
            prompt_chunk_tokens: 2048,
            max_num_seqs: 256,
            prefix_hit: 0.0,
            spec: None,
            max_events: 10_000,
            horizon_s: 1e6,
            static_batch: 1,
            batch_timeout_s: 0.0,
            server_overhead_s: 0.0,
            warm_start: false,
        }
    }

    /// A request that is there from the start.
    pub fn request(prompt_tokens: u32, output_tokens: u32) -> RequestSample {
        RequestSample {
            prompt_tokens,
            output_tokens,
            arrival_s: 0.0,
        }
    }

    /// `run` over `requests` in a closed loop with `slots` in flight, measuring everything.
    pub fn serve(
        run: fn(Replica<'_, '_, '_>) -> (ReplicaOutcome, WindowTotals),
        scenario: &Scenario,
        settings: EngineSettings,
        requests: &[RequestSample],
        slots: u32,
    ) -> (ReplicaOutcome, WindowTotals, LatencySamples) {
        let mut samples = LatencySamples::default();
        let recorder = Recorder::new(&mut samples, None, 0, WindowEnd::AtRunEnd);
        let source = Source::new(requests, 0, 1, true);
        let replica = Replica::start(scenario, settings, source, recorder, Rng::new(1), slots);
        let (out, window) = run(replica);
        (out, window, samples)
    }
}
