//! A custom model from a pasted Hugging Face `config.json`: dense (Llama, Qwen, Mistral, Gemma),
//! MoE (Mixtral, Qwen-MoE, gpt-oss, Llama 4) and MLA (DeepSeek-V2/V3) layouts.
//!
//! Multimodal configs nest the language model under `text_config`; that is read instead when
//! present. Errors name the missing or malformed key, so the page can say what is wrong.

use super::models::{Arch, Attention, ModelSpec};
use crate::json::{self, Value};

/// Read a `config.json` text into a model spec with id `custom`.
pub fn parse_hf_config(text: &str) -> Result<ModelSpec, String> {
    let root = json::parse(text).map_err(|e| format!("config.json is not valid JSON: {e}"))?;
    if root.as_object().is_none() {
        return Err("config.json must be a JSON object".into());
    }
    let root = &root;
    let config = match root.get("text_config") {
        Some(text_config @ Value::Object(_)) => text_config,
        _ => root,
    };
    let get = |key: &str| config.get(key).or_else(|| root.get(key));
    let whole = |key: &str| -> Result<Option<u32>, String> {
        match get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .map(Some)
                .ok_or_else(|| format!("`{key}` must be a whole number (got {})", shown(value))),
        }
    };
    let required = |key: &str| -> Result<u32, String> {
        whole(key)?
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("`{key}` is missing (needed for every model)"))
    };
    let first = |keys: &[&str]| -> Result<Option<u32>, String> {
        for key in keys {
            if let Some(value) = whole(key)? {
                return Ok(Some(value));
            }
        }
        Ok(None)
    };

    let num_layers = required("num_hidden_layers")?;
    let hidden_size = required("hidden_size")?;
    let num_heads = required("num_attention_heads")?;
    let num_kv_heads = whole("num_key_value_heads")?.unwrap_or(num_heads);
    let vocab_size = required("vocab_size")?;
    let kv_lora_rank = whole("kv_lora_rank")?;
    let is_mla = kv_lora_rank.is_some_and(|r| r > 0);
    let head_dim = if is_mla {
        whole("qk_nope_head_dim")?.ok_or("`qk_nope_head_dim` is missing (needed for MLA models)")?
    } else {
        match whole("head_dim")? {
            Some(dim) if dim > 0 => dim,
            _ => hidden_size / num_heads.max(1),
        }
    };
    let num_experts =
        first(&["n_routed_experts", "num_local_experts", "num_experts"])?.filter(|e| *e > 1);
    let arch = if num_experts.is_some() {
        Arch::Moe
    } else {
        Arch::Dense
    };
    let experts_per_token = first(&["num_experts_per_tok", "num_experts_per_token", "moe_topk"])?;
    if arch == Arch::Moe && experts_per_token.is_none() {
        return Err("`num_experts_per_tok` is missing (needed for MoE models)".into());
    }
    let intermediate_size = first(&["intermediate_size_mlp", "intermediate_size"])?;
    let moe_intermediate_size = match arch {
        Arch::Moe => Some(
            first(&["moe_intermediate_size", "intermediate_size"])?
                .ok_or("`moe_intermediate_size` is missing (needed for MoE models)")?,
        ),
        Arch::Dense => None,
    };
    if arch == Arch::Dense && intermediate_size.is_none() {
        return Err("`intermediate_size` is missing (needed for dense models)".into());
    }
    let dense_layers = match arch {
        Arch::Moe => {
            if let Some(k) = whole("first_k_dense_replace")? {
                Some(k)
            } else if let Some(step) = whole("interleave_moe_layer_step")?.filter(|s| *s > 1) {
                Some(num_layers - num_layers / step)
            } else {
                Some(0)
            }
        }
        Arch::Dense => None,
    };
    let (sliding_window, sliding_window_layers) = sliding_layers(config, num_layers, &whole)?;
    let tied = get("tie_word_embeddings")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let name = get("_name_or_path")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .or_else(|| get("model_type").and_then(Value::as_str))
        .unwrap_or("custom model");
    Ok(ModelSpec {
        id: "custom".into(),
        // Capped so a long `model_type` cannot push the model out of a share link.
        name: format!("Custom: {}", name.chars().take(80).collect::<String>()),
        hf_id: String::new(),
        arch,
        attention: if is_mla {
            Attention::Mla
        } else if num_kv_heads == num_heads {
            Attention::Mha
        } else {
            Attention::Gqa
        },
        num_layers,
        hidden_size,
        num_heads,
        num_kv_heads,
        head_dim,
        intermediate_size,
        moe_intermediate_size,
        num_experts,
        experts_per_token,
        shared_experts: first(&["n_shared_experts", "num_shared_experts"])?.or(
            if arch == Arch::Moe {
                whole("shared_expert_intermediate_size")?.map(|_| 1)
            } else {
                None
            },
        ),
        dense_layers,
        vocab_size,
        tied_embeddings: tied,
        kv_lora_rank,
        qk_rope_head_dim: whole("qk_rope_head_dim")?,
        q_lora_rank: whole("q_lora_rank")?,
        v_head_dim: whole("v_head_dim")?,
        sliding_window,
        sliding_window_layers,
        mxfp4_experts: get("quantization_config")
            .and_then(|q| q.get("quant_method"))
            .and_then(Value::as_str)
            == Some("mxfp4"),
        total_params_b: None,
        active_params_b: None,
        max_context: whole("max_position_embeddings")?,
        source: "pasted Hugging Face config.json".into(),
        notes: String::new(),
    })
}

/// A value for an error message, as JSON, cut to 60 characters (it may be a huge pasted array).
fn shown(value: &Value) -> String {
    let text = value.to_json();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", text.get(..cut).unwrap_or_default()),
        None => text,
    }
}

/// Which layers use local attention: `layer_types` (gpt-oss), `sliding_window_pattern`
/// (Gemma 3: every Nth layer global), `attention_chunk_size` + `no_rope_layers` style chunking
/// (Llama 4: 3 of 4 layers), or a window on every layer (Mistral v0.1).
fn sliding_layers(
    config: &Value,
    num_layers: u32,
    whole: &dyn Fn(&str) -> Result<Option<u32>, String>,
) -> Result<(Option<u32>, Option<u32>), String> {
    let window = whole("sliding_window")?.filter(|w| *w > 0);
    if let Some(types) = config.get("layer_types").and_then(Value::as_array) {
        let local = types
            .iter()
            .filter(|t| {
                t.as_str()
                    .is_some_and(|s| s.contains("sliding") || s.contains("chunked"))
            })
            .count();
        let local = u32::try_from(local).map_err(|_| "`layer_types` is too long")?;
        return Ok(match window {
            Some(w) if local > 0 => (Some(w), Some(local)),
            _ => (None, None),
        });
    }
    if let Some(chunk) = whole("attention_chunk_size")?.filter(|c| *c > 0) {
        return Ok((Some(chunk), Some(num_layers - num_layers / 4)));
    }
    if let (Some(w), Some(pattern)) = (window, whole("sliding_window_pattern")?.filter(|p| *p > 1))
    {
        return Ok((Some(w), Some(num_layers - num_layers / pattern)));
    }
    let uses_window = config
        .get("use_sliding_window")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    Ok(match window {
        Some(w) if uses_window => (Some(w), Some(num_layers)),
        _ => (None, None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LLAMA_8B: &str = r#"{"architectures":["LlamaForCausalLM"],"hidden_size":4096,"intermediate_size":14336,
        "max_position_embeddings":131072,"model_type":"llama","num_attention_heads":32,"num_hidden_layers":32,
        "num_key_value_heads":8,"tie_word_embeddings":false,"vocab_size":128256}"#;

    #[test]
    fn llama_config_matches_the_catalog_row() {
        let spec = parse_hf_config(LLAMA_8B).expect("parses");
        assert_eq!(spec.head_dim, 128);
        assert_eq!(spec.attention, Attention::Gqa);
    }

    #[test]
    fn deepseek_v3_config_is_mla_moe() {
        let text = r#"{"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"n_routed_experts":256,
            "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,"num_attention_heads":128,
            "num_key_value_heads":128,"num_hidden_layers":61,"kv_lora_rank":512,"q_lora_rank":1536,
            "qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"vocab_size":129280}"#;
        let spec = parse_hf_config(text).expect("parses");
        assert_eq!(spec.attention, Attention::Mla);
        assert_eq!(spec.arch, Arch::Moe);
    }

    #[test]
    fn gemma3_multimodal_nests_text_config() {
        let text = r#"{"text_config":{"hidden_size":5376,"intermediate_size":21504,"num_attention_heads":32,
            "num_key_value_heads":16,"head_dim":128,"num_hidden_layers":62,"sliding_window":1024,
            "sliding_window_pattern":6,"vocab_size":262144}}"#;
        let spec = parse_hf_config(text).expect("parses");
        assert_eq!(spec.sliding_window, Some(1024));
        assert_eq!(spec.sliding_window_layers, Some(52));
    }

    /// gpt-oss's config.json says its experts are MXFP4 (`quantization_config.quant_method`);
    /// the same shape without it does not.
    #[test]
    fn mxfp4_experts_come_from_the_quantization_config() {
        let base = r#""hidden_size":2880,"intermediate_size":2880,"num_attention_heads":64,
            "num_key_value_heads":8,"head_dim":64,"num_hidden_layers":24,"num_local_experts":32,
            "num_experts_per_tok":4,"vocab_size":201088"#;
        let quantized = format!(r#"{{{base},"quantization_config":{{"quant_method":"mxfp4"}}}}"#);
        assert!(parse_hf_config(&quantized).expect("parses").mxfp4_experts);
        let plain = format!("{{{base}}}");
        assert!(!parse_hf_config(&plain).expect("parses").mxfp4_experts);
    }

    #[test]
    fn errors_name_the_key() {
        assert!(parse_hf_config("{").unwrap_err().contains("not valid JSON"));
        assert!(parse_hf_config("[]").unwrap_err().contains("object"));
        assert!(parse_hf_config(r#"{"hidden_size":4096}"#)
            .unwrap_err()
            .contains("num_hidden_layers"));
        let moe = r#"{"hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32000,"num_local_experts":8}"#;
        assert!(parse_hf_config(moe)
            .unwrap_err()
            .contains("num_experts_per_tok"));
        assert!(
            parse_hf_config(r#"{"num_hidden_layers":2,"hidden_size":"big"}"#)
                .unwrap_err()
                .contains("hidden_size")
        );
    }
}
