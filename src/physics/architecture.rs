//! What a model's shape implies for serving: parameter counts per part, KV-cache elements per
//! token, attention FLOPs per attended token, MoE expert activation and sliding-window caps.
//!
//! Formulas: MODEL.md §1.1 (parameters), §1.2 (KV per token), §2.2 (MoE distinct experts),
//! §2.3 (attention FLOPs). Everything here is per model, before any sharding or precision.

use crate::catalog::{Arch, Attention, ModelSpec};

/// Derived, precision-free quantities of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct Architecture {
    /// `L`
    pub layers: f64,
    /// `d`
    pub hidden: f64,
    /// `n_q`
    pub heads: f64,
    /// `n_kv` (MLA: 1, the shared latent)
    pub kv_heads: f64,
    /// `V`
    pub vocab: f64,
    /// Attention projection parameters of one layer (QKV + O, or MLA's down/up projections).
    pub attention_params_per_layer: f64,
    /// Dense FFN parameters of one dense layer (`3·d·d_ff`, gated).
    pub dense_ffn_params_per_layer: f64,
    /// How many layers have a dense FFN.
    pub dense_ffn_layers: f64,
    /// How many layers have a routed MoE FFN.
    pub moe_layers: f64,
    /// Parameters of one routed expert (`3·d·d_e`).
    pub expert_params: f64,
    /// `E`
    pub experts: f64,
    /// `k`
    pub experts_per_token: f64,
    /// Shared-expert parameters per MoE layer (`E_s·3·d·d_e`).
    pub shared_expert_params_per_layer: f64,
    /// Router parameters per MoE layer (`d·E`).
    pub router_params_per_layer: f64,
    /// Input embedding table `V·d` (gathered, not streamed, during a step).
    pub embedding_params: f64,
    /// Output head `V·d` (read every step, even when tied to the embedding).
    pub lm_head_params: f64,
    /// Extra head parameters stored when untied (0 when tied).
    pub untied_head_params: f64,
    /// Norm weights, `2·d` per layer.
    pub norm_params: f64,
    /// KV-cache elements per token per layer: `2·n_kv·d_h` (GQA/MHA) or `d_c + d_r` (MLA).
    pub kv_elements_per_token_layer: f64,
    /// Decode attention FLOPs per attended token per layer, all heads:
    /// `4·n_q·d_h` (QKᵀ and PV), or `2·n_q·(2·d_c + d_r)` for absorbed MLA.
    pub decode_attention_flops_per_token_layer: f64,
    /// Prefill attention FLOPs per attended token per layer, all heads:
    /// `4·n_q·d_h`, or `2·n_q·(d_h + d_r + d_v)` for MLA (not absorbed in prefill).
    pub prefill_attention_flops_per_token_layer: f64,
    /// `Some((window_tokens, layers))` for sliding-window or chunked-local attention layers.
    pub window: Option<(f64, f64)>,
    pub is_mla: bool,
    /// The layers in units of the per-layer kernel floor `t_L0` (`layer_floor_units`).
    pub floor_layers: f64,
    /// The routed experts ship as MXFP4 (`ModelSpec::mxfp4_experts`, gpt-oss); see
    /// `precision::expert_precision`.
    pub mxfp4_experts: bool,
}

/// Kernels one GQA/MHA attention block launches per step: input norm, QKV GEMM, RoPE with the
/// KV-cache write, attention, O GEMM (vLLM `LlamaAttention.forward`; TensorRT-LLM's fused
/// attention plugin does the same five).
pub const GQA_KERNELS: f64 = 5.0;
/// Kernels of an MLA block on the absorbed decode path: input norm, the fused q_a/kv_a GEMM,
/// q_a and kv_a norms, q_b GEMM, the `W_UK` absorb BMM, RoPE with the latent-cache write,
/// attention, the `W_UV` BMM and O GEMM (vLLM `v1/attention/backends/mla/common.py`, "decode":
/// `ql_nope = q_nope · W_UK_T`, attention over the latent, `o = attn · W_UV`; SGLang's
/// `DeepseekV2AttentionMLA.forward_absorb` the same).
pub const MLA_KERNELS: f64 = 10.0;
/// Kernels of a gated dense FFN: post-attention norm with the residual, gate_up GEMM, SiLU·mul,
/// down GEMM.
pub const DENSE_FFN_KERNELS: f64 = 4.0;
/// Kernels of a routed MoE FFN: post-attention norm, router GEMM, top-k, sort/align
/// (`moe_align_block_size`), the two grouped GEMMs with the activation between them, and the
/// weighted sum (`moe_sum`; vLLM `fused_moe`, TensorRT-LLM's expand/finalize routing kernels).
pub const MOE_FFN_KERNELS: f64 = 8.0;
/// Shared experts add a gated FFN's three kernels (gate_up, activation, down).
pub const SHARED_EXPERT_KERNELS: f64 = 3.0;

/// The per-layer kernel floor's weight of a model, in reference layers: every layer counted by
/// the kernels it launches per step, over the nine of a dense GQA layer
/// (`GQA_KERNELS + DENSE_FFN_KERNELS`). The floor `t_L0` (MODEL.md §2.1) is each kernel's
/// minimum time under CUDA-graph replay (launch gap, ramp-up, tail) summed over a layer, so it
/// grows with the kernels, not the layers: a DeepSeek-V3 MoE layer (MLA + routed and shared
/// experts, 21 kernels) costs 2.3 reference layers, a gpt-oss or Mixtral layer (GQA + routed
/// experts, 13) 1.4, a Llama layer 1. Fitted on one floor for every model (docs/VALIDATION-NOTES.md
/// "MoE compute": with one floor per layer the SGLang profile, fitted on DeepSeek-R1 rows only, sat
/// at the grid's 30 µs edge and carried it to every dense model served by SGLang).
pub fn layer_floor_units(
    is_mla: bool,
    dense_ffn_layers: f64,
    moe_layers: f64,
    shared: bool,
) -> f64 {
    let attention = if is_mla { MLA_KERNELS } else { GQA_KERNELS };
    let reference = GQA_KERNELS + DENSE_FFN_KERNELS;
    let moe = MOE_FFN_KERNELS + if shared { SHARED_EXPERT_KERNELS } else { 0.0 };
    (dense_ffn_layers * (attention + DENSE_FFN_KERNELS) + moe_layers * (attention + moe))
        / reference
}

fn f(value: u32) -> f64 {
    f64::from(value)
}

fn opt(value: Option<u32>) -> f64 {
    value.map(f64::from).unwrap_or(0.0)
}

impl Architecture {
    /// Derive serving quantities from the catalog row. Missing optional fields count as zero;
    /// `scenario` has already rejected models whose required fields are inconsistent.
    pub fn new(spec: &ModelSpec) -> Architecture {
        let layers = f(spec.num_layers);
        let hidden = f(spec.hidden_size);
        let heads = f(spec.num_heads);
        let head_dim = f(spec.head_dim);
        let vocab = f(spec.vocab_size);
        let is_mla = spec.attention == Attention::Mla;

        let (attention_params_per_layer, kv_elements, decode_coeff, prefill_coeff, kv_heads) =
            if is_mla {
                let latent = opt(spec.kv_lora_rank);
                let rope = opt(spec.qk_rope_head_dim);
                let v_dim = spec.v_head_dim.map(f64::from).unwrap_or(head_dim);
                let q_params = match spec.q_lora_rank {
                    Some(rank) if rank > 0 => {
                        hidden * f(rank) + f(rank) * heads * (head_dim + rope)
                    }
                    _ => hidden * heads * (head_dim + rope),
                };
                let kv_down = hidden * (latent + rope);
                let kv_up = latent * heads * (head_dim + v_dim);
                let out = heads * v_dim * hidden;
                (
                    q_params + kv_down + kv_up + out,
                    latent + rope,
                    2.0 * heads * (2.0 * latent + rope),
                    2.0 * heads * (head_dim + rope + v_dim),
                    1.0,
                )
            } else {
                let kv_heads = f(spec.num_kv_heads);
                (
                    hidden * (heads + 2.0 * kv_heads) * head_dim + heads * head_dim * hidden,
                    2.0 * kv_heads * head_dim,
                    4.0 * heads * head_dim,
                    4.0 * heads * head_dim,
                    kv_heads,
                )
            };

        let (dense_ffn_layers, moe_layers) = match spec.arch {
            Arch::Dense => (layers, 0.0),
            Arch::Moe => {
                let dense = opt(spec.dense_layers).min(layers);
                (dense, layers - dense)
            }
        };
        let expert_width = opt(spec.moe_intermediate_size);
        let expert_params = 3.0 * hidden * expert_width;
        let experts = opt(spec.num_experts);
        let dense_ffn_params_per_layer = 3.0 * hidden * opt(spec.intermediate_size);
        let window = match (spec.sliding_window, spec.sliding_window_layers) {
            (Some(window), Some(window_layers)) if window > 0 && window_layers > 0 => {
                Some((f(window), f(window_layers).min(layers)))
            }
            _ => None,
        };
        Architecture {
            layers,
            hidden,
            heads,
            kv_heads,
            vocab,
            attention_params_per_layer,
            dense_ffn_params_per_layer,
            dense_ffn_layers,
            moe_layers,
            expert_params,
            experts,
            experts_per_token: opt(spec.experts_per_token),
            shared_expert_params_per_layer: opt(spec.shared_experts) * expert_params,
            router_params_per_layer: if moe_layers > 0.0 {
                hidden * experts
            } else {
                0.0
            },
            embedding_params: vocab * hidden,
            lm_head_params: vocab * hidden,
            untied_head_params: if spec.tied_embeddings {
                0.0
            } else {
                vocab * hidden
            },
            norm_params: 2.0 * hidden * layers,
            kv_elements_per_token_layer: kv_elements,
            decode_attention_flops_per_token_layer: decode_coeff,
            prefill_attention_flops_per_token_layer: prefill_coeff,
            window,
            is_mla,
            floor_layers: layer_floor_units(
                is_mla,
                dense_ffn_layers,
                moe_layers,
                opt(spec.shared_experts) > 0.0,
            ),
            mxfp4_experts: spec.mxfp4_experts && moe_layers > 0.0,
        }
    }

    /// Parameters in the transformer blocks' linear layers that every step streams from memory
    /// regardless of routing: attention projections, dense FFNs, shared experts and routers.
    pub fn always_read_linear_params(&self) -> f64 {
        self.layers * self.attention_params_per_layer
            + self.dense_ffn_layers * self.dense_ffn_params_per_layer
            + self.moe_layers * (self.shared_expert_params_per_layer + self.router_params_per_layer)
    }

    /// All routed-expert parameters (`moe_layers · E · 3·d·d_e`).
    pub fn routed_expert_params(&self) -> f64 {
        self.moe_layers * self.experts * self.expert_params
    }

    /// Every parameter stored (MODEL.md §1.1 `P_total`): blocks, norms, embedding, untied head.
    pub fn total_params(&self) -> f64 {
        self.always_read_linear_params()
            + self.routed_expert_params()
            + self.norm_params
            + self.embedding_params
            + self.untied_head_params
    }

    /// Linear-layer parameters a single token multiplies (`P_lin,active`): the always-read part
    /// plus `k` routed experts per MoE layer. Excludes the output head (counted per logit).
    pub fn active_linear_params(&self) -> f64 {
        self.always_read_linear_params()
            + self.moe_layers * self.experts_per_token * self.expert_params
    }

    /// Parameters active per token as model cards count them (active linear + embedding + head).
    pub fn active_params(&self) -> f64 {
        self.active_linear_params()
            + self.norm_params
            + self.embedding_params
            + self.untied_head_params
    }

    /// Expected distinct routed experts per MoE layer for `tokens` tokens under uniform,
    /// independent top-`k` routing: `E·(1 − (1 − k/E)^T)` (MODEL.md §2.2).
    pub fn distinct_experts(&self, tokens: f64) -> f64 {
        if self.experts <= 0.0 || tokens <= 0.0 {
            return 0.0;
        }
        let miss = (1.0 - self.experts_per_token / self.experts).clamp(0.0, 1.0);
        self.experts * (1.0 - miss.powf(tokens))
    }

    /// Layer-tokens of KV a sequence holds at context `context`: full-attention layers keep every
    /// token, window layers at most the window (MODEL.md §1.2 with sliding-window caps).
    pub fn kv_layer_tokens(&self, context: f64) -> f64 {
        let context = context.max(0.0);
        match self.window {
            Some((window, window_layers)) => {
                (self.layers - window_layers) * context + window_layers * context.min(window)
            }
            None => self.layers * context,
        }
    }

    /// Layer-tokens attended, summed over a prompt of `prompt` tokens and divided by `prompt`:
    /// the causal prefill mean. Full layers see on average `f_c·(P+1)` earlier tokens per query
    /// (`f_c = 0.5` is FlashAttention's causal skip, MODEL.md §2.3); window layers see
    /// `min(position, window)`, scaled by the same `2·f_c`.
    pub fn prefill_layer_tokens_per_token(&self, prompt: f64, causal_factor: f64) -> f64 {
        let prompt = prompt.max(1.0);
        let full = causal_factor * (prompt + 1.0);
        match self.window {
            Some((window, window_layers)) => {
                let windowed_mean = if prompt <= window {
                    (prompt + 1.0) / 2.0
                } else {
                    (window * (window + 1.0) / 2.0 + (prompt - window) * window) / prompt
                };
                (self.layers - window_layers) * full
                    + window_layers * 2.0 * causal_factor * windowed_mean
            }
            None => self.layers * full,
        }
    }
}

/// A pasted model's name with its size counted from the config: "Custom: qwen3" → "Custom:
/// qwen3 8.2B", "Custom: qwen3_moe 30.5B-A3.3B" (issue 28 §4). A config without
/// `_name_or_path` is named by its `model_type` (`catalog::parse_hf_config`), which every size of
/// a family shares, so two pasted Qwen3s read alike in pins and the comparison. A name that
/// already states a size (a digit then B or M, as in "Qwen/Qwen3-8B" or "Qwen3-30B-A3B") keeps
/// it as it is.
pub fn name_with_size(spec: &ModelSpec) -> String {
    let states_size = spec
        .name
        .as_bytes()
        .windows(2)
        .any(|pair| matches!(pair, [digit, b'B' | b'b' | b'M'] if digit.is_ascii_digit()));
    if states_size {
        return spec.name.clone();
    }
    let arch = Architecture::new(spec);
    let billions = |params: f64| {
        let b = params / 1e9;
        if b >= 10.0 {
            format!("{b:.0}B")
        } else {
            format!("{b:.1}B")
        }
    };
    match spec.arch {
        Arch::Dense => format!("{} {}", spec.name, billions(arch.total_params())),
        Arch::Moe => format!(
            "{} {}-A{}",
            spec.name,
            billions(arch.total_params()),
            billions(arch.active_params())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    /// A Hugging Face config.json parsed by the catalog counts the parameters its model card
    /// states: Llama 3.1 8B (8.03 B) and DeepSeek-V3 (MLA + MoE, 671 B).
    #[test]
    fn parsed_configs_count_their_parameters() {
        let llama = r#"{"architectures":["LlamaForCausalLM"],"hidden_size":4096,"intermediate_size":14336,
            "max_position_embeddings":131072,"model_type":"llama","num_attention_heads":32,"num_hidden_layers":32,
            "num_key_value_heads":8,"tie_word_embeddings":false,"vocab_size":128256}"#;
        let spec = crate::catalog::parse_hf_config(llama).expect("parses");
        assert!((Architecture::new(&spec).total_params() / 1e9 - 8.03).abs() < 0.01);
        let deepseek = r#"{"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"n_routed_experts":256,
            "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,"num_attention_heads":128,
            "num_key_value_heads":128,"num_hidden_layers":61,"kv_lora_rank":512,"q_lora_rank":1536,
            "qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"vocab_size":129280}"#;
        let spec = crate::catalog::parse_hf_config(deepseek).expect("parses");
        assert!((Architecture::new(&spec).total_params() / 671e9 - 1.0).abs() < 0.01);
    }

    fn arch(id: &str) -> Architecture {
        let catalog = catalog().expect("catalog parses");
        Architecture::new(catalog.model(id).expect("model in catalog"))
    }

    /// The kernel floor counts a dense GQA layer once, a DeepSeek-V3 MoE layer (MLA + routed and
    /// shared experts, 21 kernels) 21/9 times and its three dense layers (MLA + dense FFN) 14/9,
    /// a gpt-oss layer (GQA + routed experts, 13 kernels) 13/9.
    #[test]
    fn the_kernel_floor_counts_layers_by_their_kernels() {
        assert_eq!(arch("llama-3.1-8b").floor_layers, 32.0);
        let deepseek = arch("deepseek-r1").floor_layers;
        assert!(
            (deepseek - (58.0 * 21.0 + 3.0 * 14.0) / 9.0).abs() < 1e-9,
            "{deepseek}"
        );
        let gpt_oss = arch("gpt-oss-120b").floor_layers;
        assert!((gpt_oss - 36.0 * 13.0 / 9.0).abs() < 1e-9, "{gpt_oss}");
    }

    /// MODEL.md §1.1 [derived]: Llama-3.1-8B 8.03 B (6.98 B linear, 1.05 B embedding + head); 70B 70.55 B.
    #[test]
    fn parameter_counts_match_model_md() {
        let small = arch("llama-3.1-8b");
        assert!((small.total_params() / 1e9 - 8.03).abs() < 0.01);
        assert!((small.always_read_linear_params() / 1e9 - 6.98).abs() < 0.01);
        assert!(((small.embedding_params + small.untied_head_params) / 1e9 - 1.05).abs() < 0.01);
        let large = arch("llama-3.1-70b");
        assert!((large.total_params() / 1e9 - 70.55).abs() < 0.01);
    }

    /// MODEL.md §1.1: DeepSeek-V3 671 B total, 37 B active.
    #[test]
    fn deepseek_v3_total_and_active() {
        let ds = arch("deepseek-v3");
        assert!((ds.total_params() / 1e9 - 671.0).abs() / 671.0 < 0.01);
        assert!((ds.active_params() / 1e9 - 37.0).abs() / 37.0 < 0.03);
    }

    /// MODEL.md §2.2 [derived]: DeepSeek-V3 T=1→8, 8→57, 32→163, 64→222, 128→252; Mixtral 4→5.5, 8→7.2.
    #[test]
    fn distinct_experts_match_model_md() {
        let ds = arch("deepseek-v3");
        for (tokens, expected) in [
            (1.0, 8.0),
            (8.0, 57.0),
            (32.0, 163.0),
            (64.0, 222.0),
            (128.0, 252.0),
        ] {
            let got = ds.distinct_experts(tokens);
            assert!(
                (got - expected).abs() < 1.0,
                "T={tokens}: {got} vs {expected}"
            );
        }
        let mixtral = arch("mixtral-8x7b");
        assert!((mixtral.distinct_experts(4.0) - 5.5).abs() < 0.1);
        assert!((mixtral.distinct_experts(8.0) - 7.2).abs() < 0.1);
    }

    #[test]
    fn window_caps_kv_tokens() {
        let gemma = arch("gemma-3-27b");
        let short = gemma.kv_layer_tokens(1000.0);
        let long = gemma.kv_layer_tokens(100_000.0);
        // 10 global layers grow with context; 52 local layers stop at 1024.
        assert!((short - 62.0 * 1000.0).abs() < 1e-6);
        assert!((long - (10.0 * 100_000.0 + 52.0 * 1024.0)).abs() < 1e-6);
    }

    /// Issue 28 §4: two pasted configs named only by their `model_type` read apart by size; a
    /// name that carries its size stays as it is.
    #[test]
    fn a_pasted_model_named_by_its_type_gains_its_size() {
        let catalog = catalog().expect("catalog parses");
        let spec = |id: &str, name: &str| ModelSpec {
            name: name.into(),
            ..catalog.model(id).expect("model in catalog").clone()
        };
        assert_eq!(
            name_with_size(&spec("llama-3.1-8b", "Custom: llama")),
            "Custom: llama 8.0B"
        );
        assert_eq!(
            name_with_size(&spec("llama-3.1-70b", "Custom: llama")),
            "Custom: llama 71B"
        );
        let moe = name_with_size(&spec("deepseek-r1", "Custom: deepseek_v3"));
        assert!(
            moe.starts_with("Custom: deepseek_v3 ") && moe.contains("B-A"),
            "{moe}"
        );
        assert_eq!(
            name_with_size(&spec("llama-3.1-8b", "Custom: qwen3")),
            "Custom: qwen3 8.0B"
        );
        assert_eq!(
            name_with_size(&spec("llama-3.1-8b", "Custom: meta-llama/Llama-3.1-8B")),
            "Custom: meta-llama/Llama-3.1-8B"
        );
    }
}
