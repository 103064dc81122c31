//! A model spec as JSON, by hand (`crate::json`, no serde in the browser build): the custom
//! model's description inside share links (`custom-model=...`).
//!
//! The format is the one `serde_json::to_string(&ModelSpec)` wrote before, and it is read the
//! same way, so existing links keep working: the struct's field names, the enums as lowercase
//! strings (`"dense"`, `"moe"`; `"gqa"`, `"mha"`, `"mla"`), `None` as `null` (or the key left
//! out), unknown keys ignored. Whole-number fields take any JSON number that is a whole number
//! in `u32`'s range.

use super::models::{Arch, Attention, ModelSpec};
use crate::json::Value;

impl Arch {
    fn json_name(self) -> &'static str {
        match self {
            Arch::Dense => "dense",
            Arch::Moe => "moe",
        }
    }
}

impl Attention {
    fn json_name(self) -> &'static str {
        match self {
            Attention::Gqa => "gqa",
            Attention::Mha => "mha",
            Attention::Mla => "mla",
        }
    }
}

/// Reads one field of a model description, naming it in every error.
struct Fields<'a>(&'a Value);

impl Fields<'_> {
    /// The field's value; a missing key and `null` are both `None`.
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    fn required<T>(&self, key: &str, value: Option<T>) -> Result<T, String> {
        value.ok_or_else(|| format!("missing field `{key}`"))
    }

    fn text(&self, key: &str) -> Result<String, String> {
        let value = self.get(key);
        let text = value
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`{key}` must be text"))
            })
            .transpose()?;
        self.required(key, text)
    }

    fn optional_whole(&self, key: &str) -> Result<Option<u32>, String> {
        self.get(key)
            .map(|v| {
                v.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| format!("`{key}` must be a whole number from 0 to {}", u32::MAX))
            })
            .transpose()
    }

    fn whole(&self, key: &str) -> Result<u32, String> {
        let value = self.optional_whole(key)?;
        self.required(key, value)
    }

    fn optional_number(&self, key: &str) -> Result<Option<f64>, String> {
        self.get(key)
            .map(|v| {
                v.as_f64()
                    .ok_or_else(|| format!("`{key}` must be a number"))
            })
            .transpose()
    }

    fn flag(&self, key: &str) -> Result<bool, String> {
        let value = self
            .get(key)
            .map(|v| {
                v.as_bool()
                    .ok_or_else(|| format!("`{key}` must be true or false"))
            })
            .transpose()?;
        self.required(key, value)
    }

    /// A flag that may be absent (absent = false).
    fn optional_flag(&self, key: &str) -> Result<bool, String> {
        match self.get(key) {
            None => Ok(false),
            Some(v) => v
                .as_bool()
                .ok_or_else(|| format!("`{key}` must be true or false")),
        }
    }

    /// A lowercase enum name, one of `names`.
    fn choice<T: Copy>(&self, key: &str, names: &[(&str, T)]) -> Result<T, String> {
        let name = self.text(key)?;
        names
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, value)| *value)
            .ok_or_else(|| {
                let known: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
                format!("`{key}` must be one of {}", known.join(", "))
            })
    }
}

impl ModelSpec {
    /// The spec as a JSON object: every field in declaration order, `None` as `null`.
    pub fn to_json_value(&self) -> Value {
        let whole = |n: Option<u32>| Value::from(n);
        Value::object([
            ("id", Value::from(self.id.as_str())),
            ("name", self.name.as_str().into()),
            ("hf_id", self.hf_id.as_str().into()),
            ("arch", self.arch.json_name().into()),
            ("attention", self.attention.json_name().into()),
            ("num_layers", self.num_layers.into()),
            ("hidden_size", self.hidden_size.into()),
            ("num_heads", self.num_heads.into()),
            ("num_kv_heads", self.num_kv_heads.into()),
            ("head_dim", self.head_dim.into()),
            ("intermediate_size", whole(self.intermediate_size)),
            ("moe_intermediate_size", whole(self.moe_intermediate_size)),
            ("num_experts", whole(self.num_experts)),
            ("experts_per_token", whole(self.experts_per_token)),
            ("shared_experts", whole(self.shared_experts)),
            ("dense_layers", whole(self.dense_layers)),
            ("vocab_size", self.vocab_size.into()),
            ("tied_embeddings", self.tied_embeddings.into()),
            ("kv_lora_rank", whole(self.kv_lora_rank)),
            ("qk_rope_head_dim", whole(self.qk_rope_head_dim)),
            ("q_lora_rank", whole(self.q_lora_rank)),
            ("v_head_dim", whole(self.v_head_dim)),
            ("sliding_window", whole(self.sliding_window)),
            ("sliding_window_layers", whole(self.sliding_window_layers)),
            ("mxfp4_experts", self.mxfp4_experts.into()),
            ("total_params_b", self.total_params_b.into()),
            ("active_params_b", self.active_params_b.into()),
            ("max_context", whole(self.max_context)),
            ("source", self.source.as_str().into()),
            ("notes", self.notes.as_str().into()),
        ])
    }

    /// Read a spec from a JSON object (see the module docs for the format). The error names
    /// the field that is missing or malformed.
    pub fn from_json_value(value: &Value) -> Result<ModelSpec, String> {
        if value.as_object().is_none() {
            return Err("a model description must be a JSON object".into());
        }
        let f = Fields(value);
        Ok(ModelSpec {
            id: f.text("id")?,
            name: f.text("name")?,
            hf_id: f.text("hf_id")?,
            arch: f.choice("arch", &[("dense", Arch::Dense), ("moe", Arch::Moe)])?,
            attention: f.choice(
                "attention",
                &[
                    ("gqa", Attention::Gqa),
                    ("mha", Attention::Mha),
                    ("mla", Attention::Mla),
                ],
            )?,
            num_layers: f.whole("num_layers")?,
            hidden_size: f.whole("hidden_size")?,
            num_heads: f.whole("num_heads")?,
            num_kv_heads: f.whole("num_kv_heads")?,
            head_dim: f.whole("head_dim")?,
            intermediate_size: f.optional_whole("intermediate_size")?,
            moe_intermediate_size: f.optional_whole("moe_intermediate_size")?,
            num_experts: f.optional_whole("num_experts")?,
            experts_per_token: f.optional_whole("experts_per_token")?,
            shared_experts: f.optional_whole("shared_experts")?,
            dense_layers: f.optional_whole("dense_layers")?,
            vocab_size: f.whole("vocab_size")?,
            tied_embeddings: f.flag("tied_embeddings")?,
            kv_lora_rank: f.optional_whole("kv_lora_rank")?,
            qk_rope_head_dim: f.optional_whole("qk_rope_head_dim")?,
            q_lora_rank: f.optional_whole("q_lora_rank")?,
            v_head_dim: f.optional_whole("v_head_dim")?,
            sliding_window: f.optional_whole("sliding_window")?,
            sliding_window_layers: f.optional_whole("sliding_window_layers")?,
            mxfp4_experts: f.optional_flag("mxfp4_experts")?,
            total_params_b: f.optional_number("total_params_b")?,
            active_params_b: f.optional_number("active_params_b")?,
            max_context: f.optional_whole("max_context")?,
            source: f.text("source")?,
            notes: f.text("notes")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;
    use crate::json::parse;

    fn read(text: &str) -> Result<ModelSpec, String> {
        ModelSpec::from_json_value(&parse(text)?)
    }

    #[test]
    fn round_trips_every_catalog_model() {
        for spec in &catalog().unwrap().models {
            let value = spec.to_json_value();
            assert_eq!(&ModelSpec::from_json_value(&value).unwrap(), spec);
            assert_eq!(&read(&value.to_json()).unwrap(), spec, "{}", spec.id);
        }
    }

    /// Share links written before this module held `serde_json::to_string(&ModelSpec)`: they read
    /// back to the same spec, and what we write now is what serde would read.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn reads_what_serde_json_wrote() {
        let mut specs = catalog().unwrap().models.clone();
        specs.push(
            crate::catalog::parse_hf_config(
                r#"{"hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,
                "num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":128256,
                "_name_or_path":"a \"quoted\" name\twith ✓ and 😀"}"#,
            )
            .unwrap(),
        );
        assert!(specs.len() > 5);
        for spec in &specs {
            let serde_text = serde_json::to_string(spec).unwrap();
            assert_eq!(&read(&serde_text).unwrap(), spec, "{serde_text}");
            let ours = spec.to_json_value().to_json();
            let back: ModelSpec = serde_json::from_str(&ours).unwrap();
            assert_eq!(&back, spec, "{ours}");
            // The same fields in the same order with the same values (only a whole f64 is
            // written differently: `70`, not `70.0`).
            assert_eq!(
                parse(&serde_text).unwrap(),
                spec.to_json_value(),
                "{}",
                spec.id
            );
        }
    }

    #[test]
    fn null_or_absent_options_and_unknown_keys() {
        let spec = catalog().unwrap().models.first().cloned().unwrap();
        let Value::Object(mut members) = spec.to_json_value() else {
            unreachable!()
        };
        members.retain(|(key, value)| !value.is_null() || key == "num_experts");
        members.push(("added_later".into(), Value::from("ignored")));
        assert_eq!(
            ModelSpec::from_json_value(&Value::Object(members)).unwrap(),
            spec
        );
    }

    #[test]
    fn errors_name_the_field() {
        let spec = catalog().unwrap().models.first().cloned().unwrap();
        let with = |key: &str, value: Value| {
            let Value::Object(mut members) = spec.to_json_value() else {
                unreachable!()
            };
            members.retain(|(k, _)| k != key);
            if !value.is_null() {
                members.push((key.into(), value));
            }
            ModelSpec::from_json_value(&Value::Object(members)).unwrap_err()
        };
        assert_eq!(with("id", Value::Null), "missing field `id`");
        assert!(with("num_layers", Value::Null).contains("num_layers"));
        assert!(with("num_layers", (-1.0).into()).contains("num_layers"));
        assert!(with("num_layers", 2.5.into()).contains("num_layers"));
        assert!(with("num_layers", 5e9.into()).contains("num_layers"));
        assert!(with("num_layers", "32".into()).contains("num_layers"));
        assert!(with("sliding_window", true.into()).contains("sliding_window"));
        assert!(with("total_params_b", "8".into()).contains("total_params_b"));
        assert!(with("arch", "MoE".into()).contains("arch"));
        assert!(with("attention", 1u32.into()).contains("attention"));
        assert!(with("tied_embeddings", "true".into()).contains("tied_embeddings"));
        assert!(read("[]").unwrap_err().contains("object"));
        assert!(read(r#"{"bad":1}"#).unwrap_err().contains("missing field"));
    }
}
