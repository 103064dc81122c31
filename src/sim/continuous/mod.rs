//! Continuous (iteration-level) batching on one replica, iteration by iteration, as MODEL.md §6.3
//! lays it out: stall-free chunked prefill (Sarathi-Serve [S11]: running decodes and the partial
//! prefill first, then new prompts within the token budget `T_bud` and `S_max`), paged or
//! contiguous KV blocks with a 1 % admission watermark, preemption by recomputation (LIFO victim,
//! generated tokens become prompt tokens, TTFT kept from the first attempt; vLLM V1 / vidur
//! [S3][S16]), speculative decoding (MODEL.md §5) and prefix caching (§1.5).
//!
//! Macro-step (MODEL.md §6.6): when an iteration has no prefill and nothing can be admitted, the
//! batch stays the same until the next completion, arrival or KV shortfall, so `k` iterations run
//! as one event of `k·t_iter(c̄ + (k−1)/2)` with `k` ITL samples per sequence.

use super::metrics::{Finished, Recorder};
use super::replica::{EngineSettings, Intake, ReplicaOutcome, Sequence, Source};
use super::result::Truncation;
use super::rng::Rng;
use super::step::{iteration_seconds, IterationWork};
use crate::scenario::Scenario;

mod schedule;

/// The mutable state of one replica's engine.
struct Engine<'a, 'r, 's> {
    scenario: &'s Scenario,
    settings: EngineSettings,
    intake: Intake<'r>,
    recorder: Recorder<'a>,
    rng: Rng,
    out: ReplicaOutcome,
    running: Vec<Sequence>,
    free_blocks: u32,
    now_s: f64,
}

/// Run one replica to the end of its requests or a bound; returns its counters and window.
pub fn run(
    scenario: &Scenario,
    settings: EngineSettings,
    source: Source<'_>,
    recorder: Recorder<'_>,
    rng: Rng,
    initial_slots: u32,
) -> (ReplicaOutcome, super::metrics::WindowTotals) {
    let mut engine = Engine {
        scenario,
        settings,
        intake: Intake::new(source),
        recorder,
        rng,
        out: ReplicaOutcome::default(),
        running: Vec::new(),
        free_blocks: settings.kv.total_blocks,
        now_s: 0.0,
    };
    for _ in 0..initial_slots {
        engine.release_next();
    }
    engine.main_loop();
    let Engine {
        recorder,
        mut out,
        now_s,
        ..
    } = engine;
    out.clock_s = now_s;
    let window = recorder.finish(now_s);
    (out, window)
}

impl Engine<'_, '_, '_> {
    fn release_next(&mut self) {
        self.intake.release_next(
            self.now_s,
            &self.settings,
            &mut self.out,
            &mut self.recorder,
        );
    }

    fn main_loop(&mut self) {
        // Each pass runs at least one iteration or jumps to an arrival, so this bound is never
        // the one that stops a healthy run.
        let request_bound = u64::from(self.intake.source.remaining());
        let passes = self
            .settings
            .max_events
            .saturating_add(request_bound.saturating_mul(2))
            .saturating_add(16);
        for _ in 0..passes {
            if !self.intake.source.closed() {
                self.intake.take_arrivals(
                    self.now_s,
                    &self.settings,
                    &mut self.out,
                    &mut self.recorder,
                );
            }
            if self.running.is_empty() && self.intake.waiting.is_empty() {
                match self.intake.source.next_arrival_s() {
                    Some(arrival_s) if arrival_s < self.settings.horizon_s => {
                        self.now_s = self.now_s.max(arrival_s);
                        continue;
                    }
                    Some(_) => {
                        self.out.truncated = Some(Truncation::Horizon);
                        return;
                    }
                    None => return,
                }
            }
            if self.out.events >= self.settings.max_events {
                self.out.truncated = Some(Truncation::EventBudget);
                return;
            }
            if self.now_s >= self.settings.horizon_s {
                self.out.truncated = Some(Truncation::Horizon);
                return;
            }
            if !self.iterate() {
                self.out.truncated = Some(Truncation::Stalled);
                return;
            }
        }
        self.out.truncated = Some(Truncation::Stalled);
    }

    /// One scheduler pass: build the batch, price it, advance time, emit tokens, finish requests.
    /// Returns false if nothing could be scheduled.
    fn iterate(&mut self) -> bool {
        let preemptions_before = self.out.preemptions;
        let budget = self.schedule_running();
        // vLLM V1 admits nothing in a step that had to preempt: the victim would come straight
        // back and redo its prefill while the pool is still short.
        if self.out.preemptions == preemptions_before {
            self.admit(budget);
        }
        let mut work = IterationWork::default();
        let mut batch = 0u32;
        let mut all_scheduled = true;
        for seq in &self.running {
            if seq.scheduled == 0 {
                all_scheduled = false;
                continue;
            }
            batch += 1;
            if seq.prefilling() {
                work.prefill_tokens += seq.scheduled;
                work.prefill_prompt_weighted +=
                    f64::from(seq.scheduled) * f64::from(seq.target.saturating_sub(seq.cached));
            } else {
                work.decode_seqs += 1;
                work.decode_context_tokens += f64::from(seq.computed);
            }
        }
        if batch == 0 {
            return false;
        }
        let dt_s = iteration_seconds(self.scenario, &work);
        let steps = if work.prefill_tokens == 0 && all_scheduled {
            self.macro_steps(dt_s).max(1)
        } else {
            1
        };
        let step_s = if steps > 1 {
            // Mean context over the k steps: each sequence grows one token per step.
            let mut grown = work;
            grown.decode_context_tokens += f64::from(work.decode_seqs) * f64::from(steps - 1) / 2.0;
            for seq in self.running.iter_mut() {
                let needed = self
                    .settings
                    .kv
                    .blocks_for_sequence(seq.computed.saturating_add(steps))
                    .saturating_sub(seq.blocks);
                seq.blocks += needed;
                self.free_blocks = self.free_blocks.saturating_sub(needed);
            }
            iteration_seconds(self.scenario, &grown)
        } else {
            dt_s
        };
        self.advance(steps, step_s, batch);
        true
    }

    /// Run `steps` iterations of `step_s` each: emit tokens, record latencies, finish requests.
    fn advance(&mut self, steps: u32, step_s: f64, batch: u32) {
        let start_s = self.now_s;
        let end_s = start_s + step_s * f64::from(steps);
        let first_emit_s = start_s + step_s;
        let used = self
            .settings
            .kv
            .total_blocks
            .saturating_sub(self.free_blocks);
        self.recorder
            .on_iteration(step_s * f64::from(steps), batch, used);
        self.out.iterations += u64::from(steps);
        self.out.events += 1;
        let spec = self.settings.spec;
        // Gaps of exactly one step (the common case) are counted and recorded once.
        let mut one_step_gaps = 0u64;
        let mut finished = 0u32;
        let mut emitted_total = 0u64;
        for seq in self.running.iter_mut() {
            if seq.scheduled > 0 {
                let emitted = if seq.prefilling() {
                    seq.computed += seq.scheduled;
                    self.out.ledger.prefill_tokens_computed += u64::from(seq.scheduled);
                    u32::from(seq.computed >= seq.target)
                } else {
                    let tokens = match spec {
                        Some((accept, len)) => 1 + self.rng.accepted_drafts(accept, len),
                        None => steps,
                    }
                    .min(seq.remaining_output());
                    seq.computed += tokens;
                    self.out.ledger.decode_tokens_computed += u64::from(tokens);
                    tokens
                };
                if emitted > 0 {
                    if seq.first_token_s.is_none() {
                        seq.first_token_s = Some(first_emit_s);
                        self.recorder.on_prompt_served(seq.prompt);
                    } else if seq.last_token_s == start_s {
                        one_step_gaps += 1;
                    } else {
                        self.recorder.on_gaps(first_emit_s - seq.last_token_s, 1);
                    }
                    if spec.is_none() {
                        one_step_gaps += u64::from(emitted - 1);
                    }
                    seq.emitted += emitted;
                    seq.last_token_s = end_s;
                    self.out.ledger.emitted_tokens += u64::from(emitted);
                    emitted_total += u64::from(emitted);
                }
                seq.scheduled = 0;
            }
            if seq.emitted >= seq.output {
                self.free_blocks = self.free_blocks.saturating_add(seq.blocks);
                seq.blocks = 0;
                self.out.book_completion(seq);
                self.recorder.on_finished(&Finished {
                    arrival_s: seq.arrival_s,
                    first_token_s: seq.first_token_s.unwrap_or(end_s),
                    finish_s: end_s,
                    output_tokens: seq.output,
                });
                finished += 1;
            }
        }
        self.recorder.on_gaps(step_s, one_step_gaps);
        self.recorder.on_emitted(emitted_total);
        self.now_s = end_s;
        if finished > 0 {
            self.running.retain(|seq| seq.emitted < seq.output);
            if self.intake.source.closed() {
                for _ in 0..finished {
                    self.release_next();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;
    use crate::sim::kv::KvGeometry;
    use crate::sim::metrics::{LatencySamples, WindowEnd, WindowTotals};
    use crate::sim::workload::RequestSample;

    fn scenario() -> Scenario {
        Scenario::try_from(ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu: "h100-sxm".into(),
            gpu_count: 1.0,
            precision: "bf16".into(),
            ..ScenarioInput::default()
        })
        .expect("valid")
    }

    fn settings(total_blocks: u32) -> EngineSettings {
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
        }
    }

    fn request(prompt_tokens: u32, output_tokens: u32) -> RequestSample {
        RequestSample {
            prompt_tokens,
            output_tokens,
            arrival_s: 0.0,
        }
    }

    /// Closed loop over `requests` with `slots` in flight, measuring everything.
    fn serve(
        settings: EngineSettings,
        requests: &[RequestSample],
        slots: u32,
    ) -> (ReplicaOutcome, WindowTotals, LatencySamples) {
        let s = scenario();
        let mut samples = LatencySamples::default();
        let recorder = Recorder::new(&mut samples, None, 0, WindowEnd::AtRunEnd);
        let source = Source::new(requests, 0, 1, true);
        let (out, window) = run(&s, settings, source, recorder, Rng::new(1), slots);
        (out, window, samples)
    }

    /// A lone request: TTFT is one prefill iteration of the whole prompt; the 100 decode steps
    /// run as one macro-step priced at the mean context `P + 99/2` (MODEL.md §6.6). Exact.
    #[test]
    fn lone_request_timeline() {
        let s = scenario();
        let (out, _, samples) = serve(settings(100_000), &[request(1000, 101)], 1);
        let prefill_s = iteration_seconds(
            &s,
            &IterationWork {
                prefill_tokens: 1000,
                prefill_prompt_weighted: 1000.0 * 1000.0,
                ..IterationWork::default()
            },
        );
        let step_s = iteration_seconds(
            &s,
            &IterationWork {
                decode_seqs: 1,
                decode_context_tokens: 1000.0 + 99.0 / 2.0,
                ..IterationWork::default()
            },
        );
        assert_eq!(out.events, 2);
        assert_eq!(out.iterations, 101);
        assert!((samples.ttft.mean() - prefill_s).abs() < 1e-12);
        assert!((samples.e2e.mean() - (prefill_s + 100.0 * step_s)).abs() < 1e-9);
        assert_eq!(samples.itl.count(), 100);
    }

    /// Two requests in a pool of 20 blocks: both are admitted (6 blocks each), and when the
    /// older one needs a block the newer one is preempted (LIFO), waits, and recomputes its
    /// prompt plus the tokens it had generated. Its TTFT is kept from the first attempt.
    #[test]
    fn newest_sequence_is_preempted_and_recomputed() {
        let (out, _, samples) = serve(settings(20), &[request(96, 150), request(96, 150)], 2);
        assert!(out.preemptions >= 1);
        assert_eq!(out.completed, 2);
        let l = &out.ledger;
        assert!(l.recomputed_prompt_tokens > 0 && l.discarded_decode_tokens > 0);
        assert_eq!(
            l.prefill_tokens_computed,
            l.prompt_tokens + l.recomputed_prompt_tokens + l.discarded_prefill_tokens
        );
        assert_eq!(l.emitted_tokens, 300);
        // Both first tokens came from the same first iteration.
        assert!((samples.ttft.mean() - samples.ttft.max()).abs() < 1e-12);
        assert!(samples.itl.max() > 50.0 * samples.itl.quantile(0.5));
    }
}
