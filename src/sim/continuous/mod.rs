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

use super::metrics::{Finished, WindowTotals};
use super::replica::{Replica, ReplicaOutcome, Sequence};
use super::result::Truncation;
use super::step::{iteration_seconds, IterationWork};

mod schedule;

/// One replica's run under continuous batching: the shared run state and the running batch.
struct Engine<'a, 'r, 's> {
    replica: Replica<'a, 'r, 's>,
    running: Vec<Sequence>,
    free_blocks: u32,
}

/// Run one replica to the end of its requests or a bound; returns its counters and window.
pub fn run(replica: Replica<'_, '_, '_>) -> (ReplicaOutcome, WindowTotals) {
    let free_blocks = replica.settings.kv.total_blocks;
    let mut engine = Engine {
        replica,
        running: Vec::new(),
        free_blocks,
    };
    engine.place_warm();
    engine.main_loop();
    engine.replica.finish()
}

impl Engine<'_, '_, '_> {
    /// Put the warm-start sequences (`Replica::start`) in the batch as running decodes, each
    /// holding the blocks of its context, while the engine limit and the pool (less the
    /// admission watermark) allow; a slot whose warm sequence does not fit releases its first
    /// sampled request into the queue instead, as it would wait in the steady state.
    fn place_warm(&mut self) {
        let max_seqs = usize::try_from(self.replica.settings.max_num_seqs).unwrap_or(usize::MAX);
        let warm = std::mem::take(&mut self.replica.warm);
        let mut unplaced = 0;
        for mut seq in warm {
            let kv = &self.replica.settings.kv;
            let needed = kv.blocks_for_sequence(seq.computed);
            let free = self.free_blocks.saturating_sub(kv.watermark_blocks);
            if self.running.len() < max_seqs && needed <= free {
                seq.blocks = needed;
                self.free_blocks -= needed;
                self.running.push(seq);
            } else {
                unplaced += 1;
            }
        }
        for _ in 0..unplaced {
            self.replica.release_next(0.0);
        }
    }

    fn main_loop(&mut self) {
        // Each pass runs at least one iteration or jumps to an arrival, so this bound is never
        // the one that stops a healthy run.
        let request_bound = u64::from(self.replica.source.remaining());
        let passes = self
            .replica
            .settings
            .max_events
            .saturating_add(request_bound.saturating_mul(2))
            .saturating_add(16);
        for _ in 0..passes {
            self.replica.take_arrivals();
            if self.running.is_empty() && self.replica.waiting.is_empty() {
                if self.replica.wait_for_arrival() {
                    continue;
                }
                return;
            }
            if self.replica.out.events >= self.replica.settings.max_events {
                self.replica.out.truncated = Some(Truncation::EventBudget);
                return;
            }
            if self.replica.now_s >= self.replica.settings.horizon_s {
                self.replica.out.truncated = Some(Truncation::Horizon);
                return;
            }
            if !self.iterate() {
                self.replica.out.truncated = Some(Truncation::Stalled);
                return;
            }
        }
        self.replica.out.truncated = Some(Truncation::Stalled);
    }

    /// One scheduler pass: build the batch, price it, advance time, emit tokens, finish requests.
    /// Returns false if nothing could be scheduled.
    fn iterate(&mut self) -> bool {
        let preemptions_before = self.replica.out.preemptions;
        let budget = self.schedule_running();
        // vLLM V1 admits nothing in a step that had to preempt: the victim would come straight
        // back and redo its prefill while the pool is still short.
        if self.replica.out.preemptions == preemptions_before {
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
                work.prefill_cached_weighted += f64::from(seq.scheduled) * f64::from(seq.cached);
            } else {
                work.decode_seqs += 1;
                work.decode_context_tokens += f64::from(seq.computed);
            }
        }
        if batch == 0 {
            return false;
        }
        let dt_s = iteration_seconds(self.replica.scenario, &work);
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
                    .replica
                    .settings
                    .kv
                    .blocks_for_sequence(seq.computed.saturating_add(steps))
                    .saturating_sub(seq.blocks);
                seq.blocks += needed;
                self.free_blocks = self.free_blocks.saturating_sub(needed);
            }
            iteration_seconds(self.replica.scenario, &grown)
        } else {
            dt_s
        };
        self.advance(steps, step_s, batch);
        true
    }

    /// Run `steps` iterations of `step_s` each: emit tokens, record latencies, finish requests.
    fn advance(&mut self, steps: u32, step_s: f64, batch: u32) {
        let start_s = self.replica.now_s;
        let end_s = start_s + step_s * f64::from(steps);
        let first_emit_s = start_s + step_s;
        let used = self
            .replica
            .settings
            .kv
            .total_blocks
            .saturating_sub(self.free_blocks);
        self.replica
            .recorder
            .on_iteration(step_s * f64::from(steps), batch, used);
        self.replica.out.iterations += u64::from(steps);
        self.replica.out.events += 1;
        let spec = self.replica.settings.spec;
        // Gaps of exactly one step (the common case) are counted and recorded once.
        let mut one_step_gaps = 0u64;
        let mut finished = 0u32;
        let mut emitted_total = 0u64;
        for seq in self.running.iter_mut() {
            if seq.scheduled > 0 {
                let emitted = if seq.prefilling() {
                    seq.computed += seq.scheduled;
                    if !seq.warm {
                        self.replica.out.ledger.prefill_tokens_computed += u64::from(seq.scheduled);
                    }
                    u32::from(seq.computed >= seq.target)
                } else {
                    let tokens = match spec {
                        Some((accept, len)) => 1 + self.replica.rng.accepted_drafts(accept, len),
                        None => steps,
                    }
                    .min(seq.remaining_output());
                    seq.computed += tokens;
                    if !seq.warm {
                        self.replica.out.ledger.decode_tokens_computed += u64::from(tokens);
                    }
                    tokens
                };
                if emitted > 0 {
                    if seq.first_token_s.is_none() {
                        seq.first_token_s = Some(first_emit_s);
                        self.replica.recorder.on_prompt_served(seq.prompt);
                    } else if seq.last_token_s == start_s {
                        one_step_gaps += 1;
                    } else {
                        self.replica
                            .recorder
                            .on_gaps(first_emit_s - seq.last_token_s, 1);
                    }
                    if spec.is_none() {
                        one_step_gaps += u64::from(emitted - 1);
                    }
                    seq.emitted += emitted;
                    seq.last_token_s = end_s;
                    if !seq.warm {
                        self.replica.out.ledger.emitted_tokens += u64::from(emitted);
                    }
                    emitted_total += u64::from(emitted);
                }
                seq.scheduled = 0;
            }
            if seq.emitted >= seq.output {
                self.free_blocks = self.free_blocks.saturating_add(seq.blocks);
                seq.blocks = 0;
                if !seq.warm {
                    self.replica.out.book_completion(seq);
                    self.replica.recorder.on_finished(&Finished {
                        arrival_s: seq.sent_s,
                        first_token_s: seq.first_token_s.unwrap_or(end_s),
                        finish_s: end_s,
                        output_tokens: seq.output,
                    });
                }
                finished += 1;
            }
        }
        self.replica.recorder.on_gaps(step_s, one_step_gaps);
        self.replica.recorder.on_emitted(emitted_total);
        self.replica.now_s = end_s;
        if finished > 0 {
            self.running.retain(|seq| seq.emitted < seq.output);
            if self.replica.source.closed() {
                // The successors find the engine busy when others still run (`ttft::step_wait`).
                let waited_s = if self.running.is_empty() {
                    0.0
                } else {
                    0.5 * step_s
                };
                for _ in 0..finished {
                    self.replica.release_next(waited_s);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::replica::testing::{request, scenario, serve, settings};

    /// A lone request: TTFT is one prefill iteration of the whole prompt; the 100 decode steps
    /// run as one macro-step priced at the mean context `P + 99/2` (MODEL.md §6.6). Exact.
    #[test]
    fn lone_request_timeline() {
        let s = scenario();
        let (out, _, samples) = serve(run, &s, settings(100_000), &[request(1000, 101)], 1);
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
        let (out, _, samples) = serve(
            run,
            &scenario(),
            settings(20),
            &[request(96, 150), request(96, 150)],
            2,
        );
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
