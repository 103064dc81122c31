//! KV-cache block accounting of one replica: how many 16-token blocks its pool holds, the 1 %
//! admission watermark, and how many blocks a sequence of a given length occupies under paged or
//! contiguous allocation (MODEL.md §1.4, vidur's block allocator [S3]).

use crate::physics::memory::{kv_bytes_per_sequence_gpu, BLOCK_TOKENS};
use crate::scenario::{KvAlloc, Scenario};

/// Tokens per KV block, `b_blk` (vLLM's default 16; `physics::memory::BLOCK_TOKENS`).
pub const BLOCK_TOKENS_U32: u32 = BLOCK_TOKENS as u32;

/// Fraction of blocks kept free when admitting a new request (vidur/vLLM watermark, 1 %).
pub const WATERMARK_FRACTION: f64 = 0.01;

/// The block geometry of one replica's KV pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvGeometry {
    /// `N_blk = ⌊M_kv,gpu / (b_blk · s_kv,gpu)⌋` (MODEL.md §1.4).
    pub total_blocks: u32,
    /// Blocks a new admission must leave free: `⌊0.01 · N_blk⌋`.
    pub watermark_blocks: u32,
    /// Tokens reserved per sequence at admission: `L_max` when contiguous (FasterTransformer/Orca
    /// reserve the whole length), 0 when paged (blocks grow one at a time).
    pub reserve_tokens: u32,
}

/// Blocks that hold `tokens` tokens: `⌈tokens / b_blk⌉`.
pub fn blocks_for(tokens: u32) -> u32 {
    tokens.div_ceil(BLOCK_TOKENS_U32)
}

impl KvGeometry {
    /// The pool of one replica from the scenario.
    ///
    /// KV bytes per token per GPU are taken at the context the scenario sized its capacity with
    /// (`E[c_live] + (b_blk − 1)/2` when paged, `L_max` when contiguous; MODEL.md §1.4), so that
    /// sliding-window caps and the speculative draft's extra KV (`1 + draft memory fraction`,
    /// MODEL.md §5) enter exactly as in the analytic capacity `S_cap`:
    /// `s_kv,gpu = kv_bytes_per_sequence_gpu(c_ref)·(1 + f_draft)/c_ref`,
    /// `N_blk = ⌊kv_pool_per_gpu / (b_blk · s_kv,gpu)⌋`.
    pub fn from_scenario(scenario: &Scenario, max_model_tokens: u32) -> KvGeometry {
        let reference_tokens = match scenario.kv_alloc {
            KvAlloc::Paged => scenario.workload.live_context() + (BLOCK_TOKENS - 1.0) / 2.0,
            KvAlloc::Contiguous => scenario.max_model_len,
        }
        .max(1.0);
        let draft_fraction = scenario
            .spec
            .map_or(0.0, |s| s.memory_fraction(scenario.arch.layers));
        let per_sequence = kv_bytes_per_sequence_gpu(
            &scenario.arch,
            scenario.kv_precision,
            scenario.par,
            reference_tokens,
        );
        let bytes_per_token = per_sequence.0 * (1.0 + draft_fraction) / reference_tokens;
        let blocks = if bytes_per_token > 0.0 && scenario.kv_pool_per_gpu.0 > 0.0 {
            (scenario.kv_pool_per_gpu.0 / (bytes_per_token * BLOCK_TOKENS)).floor()
        } else {
            0.0
        };
        let total_blocks = if blocks >= f64::from(u32::MAX) {
            u32::MAX
        } else if blocks > 0.0 {
            blocks as u32
        } else {
            0
        };
        KvGeometry {
            total_blocks,
            watermark_blocks: (f64::from(total_blocks) * WATERMARK_FRACTION).floor() as u32,
            reserve_tokens: match scenario.kv_alloc {
                KvAlloc::Paged => 0,
                KvAlloc::Contiguous => max_model_tokens,
            },
        }
    }

    /// Blocks a sequence holding `tokens` tokens occupies: `⌈max(tokens, reserve)/b_blk⌉`.
    pub fn blocks_for_sequence(&self, tokens: u32) -> u32 {
        blocks_for(tokens.max(self.reserve_tokens))
    }

    /// Whether a request whose whole life needs `tokens` tokens of KV can ever run alone: its
    /// final footprint fits the pool less the watermark. One that cannot is rejected (as an
    /// engine rejects a prompt longer than its KV cache) rather than preempted forever.
    pub fn fits_alone(&self, tokens: u32) -> bool {
        self.blocks_for_sequence(tokens) <= self.total_blocks.saturating_sub(self.watermark_blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::scenario::ScenarioInput;

    fn scenario(kv_alloc: &str) -> Scenario {
        Scenario::try_from(ScenarioInput {
            kv_alloc: Choice::parse(kv_alloc).expect("an id of the set"),
            efficiency: crate::scenario::EfficiencyOverrides {
                mem_utilization: Some(0.9),
                reserved_gb: Some(2.0),
                ..Default::default()
            },
            ..ScenarioInput::small_reference()
        })
        .expect("valid")
    }

    /// MODEL.md §1.3: 8B BF16 on one H100 has ≈53.9 GB of KV, 411 k tokens, 25.7 k blocks
    /// (stated tolerance 1 %). The paged geometry holds as many sequences at `E[c_live]` as the
    /// analytic `S_cap`, the contiguous one exactly `S_cap,contig` (±1 sequence).
    #[test]
    fn block_counts_match_the_analytic_capacity() {
        let paged = scenario("paged");
        let g = KvGeometry::from_scenario(&paged, 8192);
        assert!(
            (f64::from(g.total_blocks) / 25_700.0 - 1.0).abs() < 0.01,
            "{g:?}"
        );
        assert_eq!(g.watermark_blocks, g.total_blocks / 100);
        let per_seq = paged.workload.live_context() + 7.5;
        let sequences = f64::from(g.total_blocks) * 16.0 / per_seq;
        assert!((sequences - f64::from(paged.kv_capacity_per_replica)).abs() <= 1.0);

        let contiguous = scenario("contiguous");
        let g = KvGeometry::from_scenario(&contiguous, 8192);
        let sequences = g.total_blocks / g.blocks_for_sequence(1);
        assert!(
            (i64::from(sequences) - i64::from(contiguous.kv_capacity_per_replica)).abs() <= 1,
            "{sequences} vs {}",
            contiguous.kv_capacity_per_replica
        );
    }

    #[test]
    fn block_rounding() {
        assert_eq!(blocks_for(0), 0);
        assert_eq!(blocks_for(1), 1);
        assert_eq!(blocks_for(16), 1);
        assert_eq!(blocks_for(17), 2);
    }
}
