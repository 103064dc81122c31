//! What goes into the next iteration of a continuous-batching replica: scheduling the running
//! sequences oldest first with LIFO preemption by recomputation, admission control against the
//! KV pool, and how many identical iterations a decode-only batch can run as one macro-step
//! (MODEL.md §6.3, §6.6; vLLM V1 and vidur's schedulers [S3][S16]).

use super::Engine;
use crate::sim::replica::Sequence;

impl Engine<'_, '_, '_> {
    /// Free the victim's blocks and queue it at the front for recomputation (MODEL.md §6.3
    /// `preempt`, RECOMPUTE mode).
    pub(super) fn preempt(&mut self, mut victim: Sequence) {
        let prefilled = victim.computed.min(victim.target);
        let ledger = &mut self.replica.out.ledger;
        ledger.discarded_prefill_tokens += u64::from(prefilled.saturating_sub(victim.cached));
        ledger.discarded_decode_tokens += u64::from(victim.computed.saturating_sub(prefilled));
        self.free_blocks = self.free_blocks.saturating_add(victim.blocks);
        victim.blocks = 0;
        victim.computed = 0;
        victim.scheduled = 0;
        self.replica.out.preemptions += 1;
        self.replica.waiting.push_front(victim);
    }

    /// Schedule the running sequences, oldest first: a decode (or the partial prefill's next
    /// chunk) each, preempting the newest sequence while the KV pool is short. Returns the budget
    /// left.
    pub(super) fn schedule_running(&mut self) -> u32 {
        let mut budget = self.replica.settings.chunk_tokens;
        let decode_slots = self.replica.settings.decode_slots();
        let mut index = 0;
        // The loop visits each position once; preemption only shortens the vector.
        while index < self.running.len() {
            let Some(seq) = self.running.get(index) else {
                break;
            };
            let (tokens, kv_tokens) = if seq.prefilling() {
                let chunk = seq.target.saturating_sub(seq.computed).min(budget);
                (chunk, seq.computed.saturating_add(chunk))
            } else if budget > 0 {
                (
                    decode_slots.min(budget),
                    seq.computed.saturating_add(decode_slots),
                )
            } else {
                (0, seq.computed)
            };
            if tokens == 0 {
                index += 1;
                continue;
            }
            let needed = self
                .replica
                .settings
                .kv
                .blocks_for_sequence(kv_tokens)
                .saturating_sub(seq.blocks);
            let mut preempted_self = false;
            while needed > self.free_blocks {
                let Some(victim) = self.running.pop() else {
                    break;
                };
                preempted_self = self.running.len() == index;
                self.preempt(victim);
                if preempted_self {
                    break;
                }
            }
            if preempted_self || needed > self.free_blocks {
                break;
            }
            let Some(seq) = self.running.get_mut(index) else {
                break;
            };
            seq.blocks += needed;
            seq.scheduled = tokens;
            self.free_blocks -= needed;
            budget = budget.saturating_sub(tokens);
            index += 1;
        }
        budget
    }

    /// Admission control (MODEL.md §1.4, vidur's vLLM/Sarathi schedulers [S3]): the whole prompt
    /// to prefill (after a preemption, prompt plus generated tokens) must fit while leaving the
    /// watermark free, `⌈(P + g)/b_blk⌉ ≤ free − watermark`.
    fn admissible(&self, seq: &Sequence) -> bool {
        let prompt_blocks = self
            .replica
            .settings
            .kv
            .blocks_for_sequence(seq.prompt.saturating_add(seq.emitted));
        prompt_blocks
            <= self
                .free_blocks
                .saturating_sub(self.replica.settings.kv.watermark_blocks)
    }

    /// Admit waiting requests (FCFS) while the batch has room, the budget lasts and admission
    /// control allows; each gets the blocks of its first chunk (blocks are allocated as chunks
    /// are scheduled, as in vLLM V1).
    pub(super) fn admit(&mut self, mut budget: u32) {
        let max_seqs = usize::try_from(self.replica.settings.max_num_seqs).unwrap_or(usize::MAX);
        while self.running.len() < max_seqs && budget > 0 {
            let Some(front) = self.replica.waiting.front() else {
                break;
            };
            if !self.admissible(front) {
                break;
            }
            let target = front.prompt + front.emitted;
            let start = front.cached;
            let chunk = target.saturating_sub(start).min(budget);
            let needed = self.replica.settings.kv.blocks_for_sequence(start + chunk);
            let Some(mut seq) = self.replica.waiting.pop_front() else {
                break;
            };
            seq.target = target;
            seq.computed = start;
            seq.blocks = needed;
            seq.scheduled = chunk;
            self.free_blocks -= needed;
            budget -= chunk;
            self.running.push(seq);
        }
    }

    /// Whether the front waiting request could be admitted at the next iteration.
    fn can_admit_next(&self) -> bool {
        let max_seqs = usize::try_from(self.replica.settings.max_num_seqs).unwrap_or(usize::MAX);
        let Some(front) = self.replica.waiting.front() else {
            return false;
        };
        self.running.len() < max_seqs && self.admissible(front)
    }

    /// Iterations the current decode-only batch can run unchanged: up to the first completion,
    /// the next arrival (when the queue is empty), the event budget and the horizon, and as far
    /// as the free KV blocks last (MODEL.md §6.6).
    pub(super) fn macro_steps(&self, dt_s: f64) -> u32 {
        if self.replica.settings.spec.is_some() || self.can_admit_next() || dt_s <= 0.0 {
            return 1;
        }
        let mut steps = self
            .running
            .iter()
            .map(Sequence::remaining_output)
            .min()
            .unwrap_or(1);
        if self.replica.waiting.is_empty() {
            if let Some(arrival_s) = self.replica.source.next_arrival_s() {
                let until = ((arrival_s - self.replica.now_s) / dt_s).ceil();
                steps = steps.min(if until >= 1.0 {
                    until.min(1e9) as u32
                } else {
                    1
                });
            }
        }
        let until_horizon = ((self.replica.settings.horizon_s - self.replica.now_s) / dt_s).ceil();
        steps = steps.min(if until_horizon >= 1.0 {
            until_horizon.min(1e9) as u32
        } else {
            1
        });
        if steps <= 1 {
            return 1;
        }
        // Largest k whose block growth fits the free pool (binary search; monotone in k).
        let extra_blocks = |k: u32| -> u64 {
            self.running
                .iter()
                .map(|s| {
                    u64::from(
                        self.replica
                            .settings
                            .kv
                            .blocks_for_sequence(s.computed.saturating_add(k))
                            .saturating_sub(s.blocks),
                    )
                })
                .sum()
        };
        let free = u64::from(self.free_blocks);
        let (mut fits, mut too_many) = (1u32, steps.saturating_add(1));
        if extra_blocks(steps) <= free {
            return steps;
        }
        for _ in 0..40 {
            if too_many - fits <= 1 {
                break;
            }
            let middle = fits + (too_many - fits) / 2;
            if extra_blocks(middle) <= free {
                fits = middle;
            } else {
                too_many = middle;
            }
        }
        fits
    }
}
