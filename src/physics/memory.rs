//! GPU memory: weight bytes per precision and per GPU, KV bytes per token and per sequence,
//! usable KV memory after activations and overheads, and how many sequences a pool holds.
//!
//! MODEL.md §1.1 (weights), §1.2 (KV per token, `min(TP, n_kv)` head sharding, MLA latent
//! replicated across TP), §1.3 (usable memory), §1.4 (paged capacity from the time-averaged live
//! context `E[c_live] = E[P] + E[O²]/(2·E[O])`, internal waste `(b_blk − 1)/2` tokens), §2.8
//! (attention data-parallel: weights and KV per attention rank, experts over EP).

use super::architecture::Architecture;
use super::precision::{expert_bytes_per_weight, KvPrecision, Precision};
use crate::units::Bytes;
use serde::Serialize;

pub use super::parallelism::Parallelism;

/// Bytes per element of tensors kept in 16-bit regardless of the weight format
/// (embeddings, output head, norms; MODEL.md §1.1 "embeddings and norms usually stay BF16").
pub const HALF_BYTES: f64 = 2.0;

/// vLLM's default KV block (page) size in tokens, `b_blk` (MODEL.md §0 [S14][S3]).
pub const BLOCK_TOKENS: f64 = 16.0;

/// All weight bytes of the model at a precision: linear layers in `precision` (routed experts
/// in MXFP4 where the model ships them so, `precision::expert_bytes_per_weight`), embeddings,
/// head and norms in BF16.
pub fn weight_bytes_total(arch: &Architecture, precision: Precision) -> Bytes {
    let half = arch.norm_params + arch.embedding_params + arch.untied_head_params;
    Bytes(
        arch.always_read_linear_params() * precision.bytes_per_weight()
            + arch.routed_expert_params() * expert_bytes_per_weight(arch, precision)
            + half * HALF_BYTES,
    )
}

/// Weight bytes resident on one GPU (MODEL.md §1.1 `W_gpu`, §2.8):
/// `W_gpu = (W_dense + W_experts·(E + R)/(E·DP)) / (TP·PP)`.
///
/// Attention, dense FFN, shared-expert, router, embedding and head weights are replicated on
/// each of the `DP` attention ranks and split over its `TP` GPUs (vocabulary-parallel embedding
/// and head shard across TP like the blocks); routed experts, plus `R` redundant copies (EPLB),
/// are spread over all `TP·DP = moe-TP·EP` GPUs of a stage, whether expert- or tensor-sharded.
/// With `DP = 1` and no redundant experts this is `W / (TP·PP)`.
pub fn weight_bytes_per_gpu(
    arch: &Architecture,
    precision: Precision,
    par: Parallelism,
    redundant_experts: f64,
) -> Bytes {
    let mut routed = arch.routed_expert_params();
    if redundant_experts > 0.0 && arch.experts > 0.0 {
        routed *= (arch.experts + redundant_experts) / arch.experts;
    }
    if par.dp > 1 {
        routed /= f64::from(par.dp);
    }
    let half = arch.norm_params + arch.embedding_params + arch.untied_head_params;
    Bytes(
        arch.always_read_linear_params() * precision.bytes_per_weight()
            + routed * expert_bytes_per_weight(arch, precision)
            + half * HALF_BYTES,
    ) / f64::from(par.tp.saturating_mul(par.pp).max(1))
}

/// KV bytes one token adds to one layer, on one GPU: `2·n_kv·d_h·b_kv / min(TP, n_kv)` for GQA
/// and MHA (heads replicate once TP exceeds `n_kv`), `(d_c + d_r)·b_kv` for MLA (latent
/// replicated on every TP rank) (MODEL.md §1.2).
pub fn kv_bytes_per_layer_token_gpu(arch: &Architecture, kv: KvPrecision, tp: u32) -> Bytes {
    let shards = if arch.is_mla {
        1.0
    } else {
        f64::from(tp.max(1)).min(arch.kv_heads.max(1.0))
    };
    Bytes(arch.kv_elements_per_token_layer * kv.bytes_per_element() / shards)
}

/// KV bytes per token of the whole model, unsharded (`s_kv`, MODEL.md §1.2), for a context short
/// enough that no sliding window is reached.
pub fn kv_bytes_per_token(arch: &Architecture, kv: KvPrecision) -> Bytes {
    Bytes(arch.layers * arch.kv_elements_per_token_layer * kv.bytes_per_element())
}

/// KV bytes one sequence of `context` tokens holds on each GPU of the attention rank it lives on
/// (window layers capped; PP stages hold `L/PP` layers each). Under attention DP a sequence
/// lives on one rank only: its KV is not split by the other ranks (MODEL.md §2.8).
pub fn kv_bytes_per_sequence_rank(
    arch: &Architecture,
    kv: KvPrecision,
    par: Parallelism,
    context: f64,
) -> Bytes {
    kv_bytes_per_layer_token_gpu(arch, kv, par.tp)
        * (arch.kv_layer_tokens(context) / f64::from(par.pp.max(1)))
}

/// KV bytes one sequence costs one GPU of the replica, averaged over the `DP` attention ranks:
/// `kv_bytes_per_sequence_rank / DP`. Each rank holds its own sequences in its own pool, so a
/// replica of `DP` ranks holds `DP` times the sequences one rank holds, and every capacity
/// (`floor(pool / per-sequence bytes)`, paged blocks, static reservations) counts whole-replica
/// sequences against one GPU's pool with this. With `DP = 1` it is the per-rank figure.
pub fn kv_bytes_per_sequence_gpu(
    arch: &Architecture,
    kv: KvPrecision,
    par: Parallelism,
    context: f64,
) -> Bytes {
    let per_rank = kv_bytes_per_sequence_rank(arch, kv, par, context);
    if par.dp > 1 {
        per_rank / f64::from(par.dp)
    } else {
        per_rank
    }
}

/// Memory left for the KV cache on one GPU: `u_mem·M − W_gpu − reserved` (MODEL.md §1.3).
/// Negative when the weights do not fit.
pub fn kv_pool_per_gpu(
    memory: Bytes,
    mem_utilization: f64,
    weights_gpu: Bytes,
    reserved: Bytes,
) -> Bytes {
    memory * mem_utilization - weights_gpu - reserved
}

/// How many sequences of `per_sequence_gpu` KV bytes each fit in a GPU's KV pool:
/// `floor(M_kv,gpu / kv_per_sequence_gpu)`, 0 when either is not positive (MODEL.md §1.4). What a
/// sequence holds is the caller's policy: the paged live context plus half a block
/// (`E[c_live] + (b_blk − 1)/2`), a contiguous `max_model_len`, or a static batch's padded
/// reservation (`model::capacity` builds the system-level capacities on this).
pub fn sequences_fitting(kv_pool_gpu: Bytes, per_sequence_gpu: Bytes) -> u32 {
    if kv_pool_gpu.0 <= 0.0 || per_sequence_gpu.0 <= 0.0 {
        return 0;
    }
    let sequences = (kv_pool_gpu / per_sequence_gpu).floor();
    if sequences >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        sequences as u32
    }
}

/// Where one GPU's memory goes at an operating point, in GB.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MemorySplit {
    pub total_gb: f64,
    pub weights_gb: f64,
    /// Activations, CUDA graphs and context held back (`reserved_gb`).
    pub reserved_gb: f64,
    /// The KV pool the engine allocates (`u_mem·M − W − reserved`).
    pub kv_pool_gb: f64,
    /// KV actually holding tokens at this operating point (time average).
    pub kv_used_gb: f64,
    /// Everything else: the `1 − u_mem` margin plus the unused part of the KV pool.
    pub free_gb: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn arch(id: &str) -> Architecture {
        Architecture::new(catalog().expect("catalog").model(id).expect("model"))
    }

    /// MODEL.md §1.2 [derived]: Llama-2-7B 512 KiB, Llama-3.1-8B 128 KiB, 70B 320 KiB, 405B 504 KiB,
    /// DeepSeek-V3 70,272 B (35,136 B in FP8).
    #[test]
    fn kv_bytes_per_token_match_model_md() {
        let kib = |id: &str| kv_bytes_per_token(&arch(id), KvPrecision::Bf16).0 / 1024.0;
        assert_eq!(kib("llama-2-7b"), 512.0);
        assert_eq!(kib("llama-3.1-8b"), 128.0);
        assert_eq!(kib("llama-3.1-70b"), 320.0);
        assert_eq!(kib("llama-3.1-405b"), 504.0);
        assert_eq!(
            kv_bytes_per_token(&arch("deepseek-v3"), KvPrecision::Bf16).0,
            70_272.0
        );
        assert_eq!(
            kv_bytes_per_token(&arch("deepseek-v3"), KvPrecision::Fp8).0,
            35_136.0
        );
    }

    /// MODEL.md §1.3: 8B BF16 on one H100 leaves `72 − 16.1 − 2 ≈ 53.9 GB` for KV, ≈411 k tokens.
    #[test]
    fn usable_memory_example() {
        let a = arch("llama-3.1-8b");
        let par = Parallelism::tensor(1);
        let weights = weight_bytes_per_gpu(&a, Precision::Bf16, par, 0.0);
        assert!((weights.gb() - 16.06).abs() < 0.05);
        let pool = kv_pool_per_gpu(Bytes::from_gb(80.0), 0.9, weights, Bytes::from_gb(2.0));
        assert!((pool.gb() - 53.9).abs() < 0.1);
        let tokens = pool / kv_bytes_per_token(&a, KvPrecision::Bf16);
        assert!((tokens / 1000.0 - 411.0).abs() < 2.0, "{tokens}");
    }

    /// MODEL.md §1.3: 70B BF16 on TP4 H100 has ≈139 GB for KV, ≈424 k tokens.
    #[test]
    fn tp4_pool_example() {
        let a = arch("llama-3.1-70b");
        let par = Parallelism::tensor(4);
        let pool = kv_pool_per_gpu(
            Bytes::from_gb(80.0),
            0.9,
            weight_bytes_per_gpu(&a, Precision::Bf16, par, 0.0),
            Bytes::from_gb(2.0),
        ) * 4.0;
        assert!((pool.gb() - 139.0).abs() < 1.5, "{}", pool.gb());
        let tokens = pool / kv_bytes_per_token(&a, KvPrecision::Bf16);
        assert!((tokens / 1000.0 - 424.0).abs() < 5.0, "{tokens}");
    }

    /// MODEL.md §2.8: under DEP 8 every attention rank keeps the attention, dense, shared-expert,
    /// router, embedding and head weights whole; only the routed experts are split 8 ways. TP 8
    /// splits everything 8 ways. Redundant experts add their share.
    #[test]
    fn dep_replicates_dense_weights_and_spreads_experts() {
        let a = arch("deepseek-r1");
        let fp8 = Precision::Fp8;
        let b_w = fp8.bytes_per_weight();
        let replicated = a.always_read_linear_params() * b_w
            + (a.norm_params + a.embedding_params + a.untied_head_params) * HALF_BYTES;
        let experts = a.routed_expert_params() * b_w;
        let dep8 = weight_bytes_per_gpu(&a, fp8, Parallelism::dep(8), 0.0).0;
        assert!((dep8 - (replicated + experts / 8.0)).abs() < 1.0, "{dep8}");
        let tp8 = weight_bytes_per_gpu(&a, fp8, Parallelism::tensor(8), 0.0).0;
        assert!((tp8 - (replicated + experts) / 8.0).abs() < 1.0, "{tp8}");
        // DeepSeek-R1 FP8 under DEP 8: ≈ 100 GB per GPU, fits a 141 GB H200 but not an 80 GB H100.
        assert!(dep8 > 95e9 && dep8 < 105e9, "{dep8}");
        // 32 redundant experts over 8 ranks: 4 more experts (all MoE layers) per GPU.
        let eplb = weight_bytes_per_gpu(&a, fp8, Parallelism::dep(8), 32.0).0;
        let per_expert = a.moe_layers * a.expert_params * b_w;
        assert!((eplb - dep8 - 4.0 * per_expert).abs() < 1.0);
        // Attention DP with experts tensor-split (no EP) stores the same bytes as DEP.
        let dp8_moe_tp8 = Parallelism {
            ep: 1,
            ..Parallelism::dep(8)
        };
        assert_eq!(weight_bytes_per_gpu(&a, fp8, dp8_moe_tp8, 0.0).0, dep8);
    }

    /// MLA's latent is not split by heads: TP 8 replicates it on every GPU, while each DEP 8 rank
    /// holds whole sequences of its own, so a replica's pool holds 8× the sequences.
    #[test]
    fn kv_lives_on_one_attention_rank() {
        let a = arch("deepseek-r1");
        let kv = KvPrecision::Fp8;
        let context = 2000.0;
        let whole = kv_bytes_per_token(&a, kv).0 * context;
        let rank = kv_bytes_per_sequence_rank(&a, kv, Parallelism::dep(8), context).0;
        assert_eq!(rank, whole);
        assert_eq!(
            kv_bytes_per_sequence_rank(&a, kv, Parallelism::tensor(8), context).0,
            whole
        );
        assert_eq!(
            kv_bytes_per_sequence_gpu(&a, kv, Parallelism::dep(8), context).0,
            whole / 8.0
        );
        let pool = Bytes::from_gb(30.0);
        let per_replica_dep8 = sequences_fitting(
            pool,
            kv_bytes_per_sequence_gpu(&a, kv, Parallelism::dep(8), context),
        );
        let per_rank = sequences_fitting(pool, Bytes(rank));
        assert!(per_replica_dep8 >= 8 * per_rank && per_replica_dep8 < 8 * (per_rank + 1));
        let per_replica_tp8 = sequences_fitting(
            pool,
            kv_bytes_per_sequence_gpu(&a, kv, Parallelism::tensor(8), context),
        );
        assert_eq!(per_replica_tp8, per_rank);
        // GQA heads still shard over each rank's TP: TP 2 × DP 4 halves a rank's KV per GPU.
        let llama = arch("llama-3.1-70b");
        let tp2_dp4 = Parallelism {
            tp: 2,
            pp: 1,
            ep: 1,
            dp: 4,
        };
        assert_eq!(
            kv_bytes_per_sequence_rank(&llama, kv, tp2_dp4, context).0 * 2.0,
            kv_bytes_per_token(&llama, kv).0 * context
        );
    }

    #[test]
    fn tp_beyond_kv_heads_replicates() {
        let a = arch("llama-3.1-8b");
        let tp8 = kv_bytes_per_layer_token_gpu(&a, KvPrecision::Bf16, 8);
        let tp16 = kv_bytes_per_layer_token_gpu(&a, KvPrecision::Bf16, 16);
        assert_eq!(tp8, tp16);
    }
}
