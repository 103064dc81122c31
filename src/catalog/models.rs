//! Model architectures, read from the compiled-in copy of `shared/data/models.csv` (facts with sources).
//!
//! The same struct holds custom models (typed fields or a pasted Hugging Face `config.json`).

use super::csv::{number, text, Record};
use serde::{Deserialize, Serialize};

/// Dense FFN in every layer, or a mixture of experts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Dense,
    Moe,
}

/// How keys and values are stored: grouped/multi-head attention, or DeepSeek's multi-head latent attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Attention {
    Gqa,
    Mha,
    Mla,
}

/// Architecture constants of one model (MODEL.md §0 notation in the comments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    pub id: String,
    pub name: String,
    pub hf_id: String,
    pub arch: Arch,
    pub attention: Attention,
    /// `L`
    pub num_layers: u32,
    /// `d`
    pub hidden_size: u32,
    /// `n_q`
    pub num_heads: u32,
    /// `n_kv`
    pub num_kv_heads: u32,
    /// `d_h` (for MLA: `qk_nope_head_dim`)
    pub head_dim: u32,
    /// `d_ff`, dense FFN width (Llama 4 Scout: the shared-expert width)
    pub intermediate_size: Option<u32>,
    /// `d_e`, per-expert FFN width
    pub moe_intermediate_size: Option<u32>,
    /// `E`
    pub num_experts: Option<u32>,
    /// `k`
    pub experts_per_token: Option<u32>,
    /// `E_s`
    pub shared_experts: Option<u32>,
    /// Layers with a dense FFN instead of MoE.
    pub dense_layers: Option<u32>,
    /// `V`
    pub vocab_size: u32,
    pub tied_embeddings: bool,
    /// `d_c` (MLA)
    pub kv_lora_rank: Option<u32>,
    /// `d_r` (MLA)
    pub qk_rope_head_dim: Option<u32>,
    pub q_lora_rank: Option<u32>,
    pub v_head_dim: Option<u32>,
    /// Local attention window (tokens) and how many layers use it.
    pub sliding_window: Option<u32>,
    pub sliding_window_layers: Option<u32>,
    /// The routed experts ship as MXFP4 (OCP microscaling: 4-bit E2M1 + one E8M0 scale per 32
    /// weights) whatever the rest of the checkpoint is: gpt-oss ("MoE weights ship as MXFP4
    /// natively", `quantization_config.quant_method = "mxfp4"` in its config.json; attention,
    /// router and head stay BF16). From `data/expert_formats.csv`.
    #[serde(default)]
    pub mxfp4_experts: bool,
    pub total_params_b: Option<f64>,
    pub active_params_b: Option<f64>,
    pub max_context: Option<u32>,
    /// Where a pasted or imported model came from. Empty for a catalog model, whose row's
    /// `source` and `notes` are `catalog::model_provenance(id)` (kept out of the facts).
    pub source: String,
    pub notes: String,
}

fn whole(record: &Record, column: &str) -> Result<Option<u32>, String> {
    match number(record, column)? {
        None => Ok(None),
        Some(value) if value >= 0.0 && value.fract() == 0.0 && value <= f64::from(u32::MAX) => {
            Ok(Some(value as u32))
        }
        Some(value) => Err(format!("column `{column}`: {value} is not a whole number")),
    }
}

fn required_whole(record: &Record, column: &str) -> Result<u32, String> {
    whole(record, column)?.ok_or_else(|| format!("column `{column}` is empty"))
}

impl ModelSpec {
    pub(super) fn from_record(record: &Record) -> Result<ModelSpec, String> {
        let arch = match text(record, "arch") {
            "dense" => Arch::Dense,
            "moe" => Arch::Moe,
            other => return Err(format!("column `arch`: unknown value `{other}`")),
        };
        let attention = match text(record, "attention") {
            "gqa" => Attention::Gqa,
            "mha" => Attention::Mha,
            "mla" => Attention::Mla,
            other => return Err(format!("column `attention`: unknown value `{other}`")),
        };
        Ok(ModelSpec {
            id: text(record, "id").to_string(),
            name: text(record, "name").to_string(),
            hf_id: text(record, "hf_id").to_string(),
            arch,
            attention,
            num_layers: required_whole(record, "num_layers")?,
            hidden_size: required_whole(record, "hidden_size")?,
            num_heads: required_whole(record, "num_heads")?,
            num_kv_heads: required_whole(record, "num_kv_heads")?,
            head_dim: required_whole(record, "head_dim")?,
            intermediate_size: whole(record, "intermediate_size")?,
            moe_intermediate_size: whole(record, "moe_intermediate_size")?,
            num_experts: whole(record, "num_experts")?,
            experts_per_token: whole(record, "experts_per_token")?,
            shared_experts: whole(record, "shared_experts")?,
            dense_layers: whole(record, "dense_layers")?,
            vocab_size: required_whole(record, "vocab_size")?,
            tied_embeddings: text(record, "tied_embeddings") == "true",
            kv_lora_rank: whole(record, "kv_lora_rank")?,
            qk_rope_head_dim: whole(record, "qk_rope_head_dim")?,
            q_lora_rank: whole(record, "q_lora_rank")?,
            v_head_dim: whole(record, "v_head_dim")?,
            sliding_window: whole(record, "sliding_window")?,
            sliding_window_layers: whole(record, "sliding_window_layers")?,
            // Set from `data/expert_formats.csv` (`Catalog::parse`).
            mxfp4_experts: false,
            total_params_b: number(record, "total_params_b")?,
            active_params_b: number(record, "active_params_b")?,
            max_context: whole(record, "max_context")?,
            source: text(record, "source").to_string(),
            notes: text(record, "notes").to_string(),
        })
    }
}
