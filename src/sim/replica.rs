//! What both batching policies share on one replica: the engine settings taken from the
//! scenario, the stream of requests routed to the replica, the state of one sequence, and the
//! counters a run reports (MODEL.md §6.2 entities).

use super::kv::KvGeometry;
use super::metrics::Recorder;
use super::result::{TokenLedger, Truncation};
use super::workload::RequestSample;
use crate::model::memory::BLOCK_TOKENS;
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
    pub arrival_s: f64,
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
}

impl Sequence {
    pub fn new(request: &RequestSample, arrival_s: f64, settings: &EngineSettings) -> Sequence {
        let cached = settings.cached_tokens(request.prompt_tokens);
        Sequence {
            arrival_s,
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
        }
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

/// Where a replica's requests enter: the waiting queue, or rejection if one can never fit.
#[derive(Debug)]
pub struct Intake<'r> {
    pub source: Source<'r>,
    /// Requests waiting for admission, FCFS (preempted ones re-enter at the front).
    pub waiting: VecDeque<Sequence>,
}

impl<'r> Intake<'r> {
    pub fn new(source: Source<'r>) -> Intake<'r> {
        Intake {
            source,
            waiting: VecDeque::new(),
        }
    }

    fn enqueue(
        &mut self,
        request: &RequestSample,
        (arrival_s, now_s): (f64, f64),
        settings: &EngineSettings,
        out: &mut ReplicaOutcome,
        recorder: &mut Recorder<'_>,
    ) -> bool {
        if settings.feasible(request) {
            self.waiting
                .push_back(Sequence::new(request, arrival_s, settings));
            true
        } else {
            out.rejected += 1;
            recorder.on_rejected(now_s);
            false
        }
    }

    /// Closed loop: release the next request at `now_s` (a rejected one releases the next).
    pub fn release_next(
        &mut self,
        now_s: f64,
        settings: &EngineSettings,
        out: &mut ReplicaOutcome,
        recorder: &mut Recorder<'_>,
    ) {
        while let Some(request) = self.source.take() {
            if self.enqueue(&request, (now_s, now_s), settings, out, recorder) {
                return;
            }
        }
    }

    /// Open loop: queue every request that has arrived by `now_s`, in arrival order; tell the
    /// recorder when the last one has arrived.
    pub fn take_arrivals(
        &mut self,
        now_s: f64,
        settings: &EngineSettings,
        out: &mut ReplicaOutcome,
        recorder: &mut Recorder<'_>,
    ) {
        while let Some(arrival_s) = self.source.next_arrival_s() {
            if arrival_s > now_s {
                break;
            }
            let Some(request) = self.source.take() else {
                break;
            };
            self.enqueue(&request, (arrival_s, now_s), settings, out, recorder);
            if self.source.exhausted() {
                recorder.on_last_arrival(now_s);
            }
        }
    }
}
