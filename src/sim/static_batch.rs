//! Static (request-level) batching on one replica (FasterTransformer, early TensorRT-LLM;
//! MODEL.md §4.1 and §6.3 "static policy"): wait until `B` requests are queued or the oldest has
//! waited `t_wait`, pad every prompt to the longest, prefill the padded batch in one pass, decode
//! until the longest output is done, and release every member together. KV is reserved up front
//! for `P_max + O_max` tokens per member (or `L_max` when contiguous).
//!
//! The decode phase has a fixed composition, so it runs as one macro-step (MODEL.md §6.6) of
//! `O_max − 1` iterations priced at the mid-point context `P_max + O_max/2` (as §4.1's
//! `t_iter(B, ctx ≈ P_max + O_max/2)`).

use super::metrics::{Finished, WindowTotals};
use super::replica::{Replica, ReplicaOutcome, Sequence};
use super::result::Truncation;
use super::step::{iteration_seconds, IterationWork};

/// One replica's run under static batching: the shared run state and the batch being formed.
struct Engine<'a, 'r, 's> {
    replica: Replica<'a, 'r, 's>,
    members: Vec<Sequence>,
    /// Decode rounds each member needs (speculation makes them differ from `O − 1`).
    rounds: Vec<u32>,
}

/// Run one replica under static batching; returns its counters and window.
pub fn run(replica: Replica<'_, '_, '_>) -> (ReplicaOutcome, WindowTotals) {
    let mut engine = Engine {
        replica,
        members: Vec::new(),
        rounds: Vec::new(),
    };
    engine.main_loop();
    engine.replica.finish()
}

impl Engine<'_, '_, '_> {
    fn main_loop(&mut self) {
        // Each pass runs a batch, or moves time to an arrival or a fill deadline (at most two
        // moves per arriving request).
        let passes = self
            .replica
            .settings
            .max_events
            .saturating_add(u64::from(self.replica.source.remaining()).saturating_mul(3))
            .saturating_add(16);
        let target = usize::try_from(self.replica.settings.static_batch.max(1)).unwrap_or(1);
        for _ in 0..passes {
            self.replica.take_arrivals();
            let Some(oldest_s) = self.replica.waiting.front().map(|s| s.arrival_s) else {
                if self.replica.wait_for_arrival() {
                    continue;
                }
                return;
            };
            if self.replica.now_s >= self.replica.settings.horizon_s {
                self.replica.out.truncated = Some(Truncation::Horizon);
                return;
            }
            if self.replica.out.events >= self.replica.settings.max_events {
                self.replica.out.truncated = Some(Truncation::EventBudget);
                return;
            }
            let more_may_arrive = !self.replica.source.closed() && !self.replica.source.exhausted();
            let deadline_s = oldest_s + self.replica.settings.batch_timeout_s;
            if self.replica.waiting.len() < target
                && more_may_arrive
                && self.replica.now_s < deadline_s
            {
                self.replica.now_s = match self.replica.source.next_arrival_s() {
                    Some(arrival_s) if arrival_s < deadline_s => arrival_s.max(self.replica.now_s),
                    _ => deadline_s,
                };
                continue;
            }
            if !self.run_batch(target) {
                self.replica.out.truncated = Some(Truncation::Stalled);
                return;
            }
        }
        self.replica.out.truncated = Some(Truncation::Stalled);
    }

    /// Form a batch from the queue's front (as many of `target` as the KV reservation allows)
    /// and run it to the end. Returns false if not even one request fits.
    fn run_batch(&mut self, target: usize) -> bool {
        let kv = self.replica.settings.kv;
        let slots = self.replica.settings.decode_slots();
        let (mut prompt_max, mut output_max) = (0u32, 0u32);
        let mut per_member_blocks = 0u32;
        self.members.clear();
        while self.members.len() < target {
            let Some(front) = self.replica.waiting.front() else {
                break;
            };
            let prompt = prompt_max.max(front.prompt);
            let output = output_max.max(front.output);
            let blocks =
                kv.blocks_for_sequence(prompt.saturating_add(output).saturating_add(slots));
            let members = u64::try_from(self.members.len() + 1).unwrap_or(u64::MAX);
            if u64::from(blocks).saturating_mul(members) > u64::from(kv.total_blocks) {
                break;
            }
            let Some(seq) = self.replica.waiting.pop_front() else {
                break;
            };
            prompt_max = prompt;
            output_max = output;
            per_member_blocks = blocks;
            self.members.push(seq);
        }
        let batch = u32::try_from(self.members.len()).unwrap_or(u32::MAX);
        if batch == 0 {
            return false;
        }
        let padded_prompt = self
            .members
            .iter()
            .map(|s| s.prompt.saturating_sub(s.cached))
            .max()
            .unwrap_or(0);
        // Decode rounds per member: `O − 1` tokens after the first, one per round, or
        // `1 + accepted drafts` per round under speculation.
        self.rounds.clear();
        for seq in &self.members {
            let tokens = seq.output.saturating_sub(1);
            let rounds = match self.replica.settings.spec {
                None => tokens,
                Some((accept, len)) => {
                    let (mut left, mut rounds) = (tokens, 0u32);
                    for _ in 0..tokens {
                        if left == 0 {
                            break;
                        }
                        left =
                            left.saturating_sub(1 + self.replica.rng.accepted_drafts(accept, len));
                        rounds += 1;
                    }
                    rounds
                }
            };
            self.rounds.push(rounds);
        }
        let batch_rounds = self.rounds.iter().copied().max().unwrap_or(0);
        let padded_tokens = batch.saturating_mul(padded_prompt);
        let prefill_s = iteration_seconds(
            self.replica.scenario,
            &IterationWork {
                prefill_tokens: padded_tokens,
                prefill_prompt_weighted: f64::from(padded_tokens) * f64::from(padded_prompt),
                ..IterationWork::default()
            },
        );
        let context = f64::from(prompt_max) + f64::from(output_max) / 2.0;
        let round_s = iteration_seconds(
            self.replica.scenario,
            &IterationWork {
                decode_seqs: batch,
                decode_context_tokens: f64::from(batch) * context,
                ..IterationWork::default()
            },
        );
        let blocks_used = per_member_blocks.saturating_mul(batch);
        let first_token_s = self.replica.now_s + prefill_s;
        let end_s = first_token_s + round_s * f64::from(batch_rounds);

        self.replica
            .recorder
            .on_iteration(prefill_s, batch, blocks_used);
        self.replica
            .recorder
            .on_iteration(round_s * f64::from(batch_rounds), batch, blocks_used);
        self.replica.out.iterations += 1 + u64::from(batch_rounds);
        self.replica.out.events += 2;
        let ledger = &mut self.replica.out.ledger;
        for (seq, &rounds) in self.members.iter_mut().zip(&self.rounds) {
            let uncached = seq.prompt.saturating_sub(seq.cached);
            ledger.prefill_tokens_computed += u64::from(uncached);
            ledger.decode_tokens_computed += u64::from(seq.output.saturating_sub(1));
            ledger.emitted_tokens += u64::from(seq.output);
            ledger.padding_tokens += u64::from(padded_prompt - uncached)
                + u64::from(batch_rounds.saturating_sub(rounds));
            seq.first_token_s = Some(first_token_s);
            seq.emitted = seq.output;
            seq.computed = seq.prompt + seq.output.saturating_sub(1);
            seq.target = seq.prompt;
            self.replica.recorder.on_gaps(round_s, u64::from(rounds));
            self.replica.recorder.on_emitted(u64::from(seq.output));
            self.replica.recorder.on_prompt_served(seq.prompt);
        }
        for seq in &self.members {
            self.replica.out.book_completion(seq);
            self.replica.recorder.on_finished(&Finished {
                arrival_s: seq.arrival_s,
                first_token_s,
                finish_s: end_s,
                output_tokens: seq.output,
            });
        }
        self.replica.now_s = end_s;
        if self.replica.source.closed() {
            for _ in 0..batch {
                self.replica.release_next();
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::replica::testing::{request, scenario, serve, settings};
    use crate::sim::replica::EngineSettings;

    /// One batch of two: the prompts are padded to 300, both members get their first token when
    /// the padded prefill ends and leave together after the longest output's 49 decode rounds,
    /// priced at the mid-point context 300 + 50/2 (MODEL.md §4.1). Exact.
    #[test]
    fn padded_batch_runs_to_the_longest_output() {
        let s = scenario();
        let settings = EngineSettings {
            max_events: 100,
            static_batch: 2,
            batch_timeout_s: 0.5,
            ..settings(10_000)
        };
        let requests = [request(100, 10), request(300, 50)];
        let (out, _, samples) = serve(run, &s, settings, &requests, 2);
        let prefill_s = iteration_seconds(
            &s,
            &IterationWork {
                prefill_tokens: 600,
                prefill_prompt_weighted: 600.0 * 300.0,
                ..IterationWork::default()
            },
        );
        let round_s = iteration_seconds(
            &s,
            &IterationWork {
                decode_seqs: 2,
                decode_context_tokens: 2.0 * 325.0,
                ..IterationWork::default()
            },
        );
        assert_eq!(out.completed, 2);
        assert_eq!(out.iterations, 50);
        assert_eq!(out.ledger.padding_tokens, 200 + 40);
        assert!((samples.ttft.max() - prefill_s).abs() < 1e-12);
        assert!((samples.e2e.mean() - (prefill_s + 49.0 * round_s)).abs() < 1e-9);
        assert_eq!(samples.itl.count(), 9 + 49);
    }
}
