//! The one table of user inputs: every scenario and decision field, once, with its key, label,
//! unit, kind, range, choices, glossary term and a getter and setter on the raw inputs.
//!
//! The key is kebab-case and is the same string everywhere: the CLI flag (`--KEY`), the URL key,
//! the JSON key, the page control's element id, the embed's `controls=` entry and the field every
//! error names. URL and JSON encoding (`share`), CLI flags and their help (`cli::args`), the page's
//! controls and texts (`page`, `ui`), the embed's controls and the printed inputs table are all
//! driven by `FIELDS`, so a name cannot drift and a new field is one entry here (ripgrep's
//! `flags/defs.rs` is the model: one definition per flag).
//!
//! Parse, don't validate: a setter only turns text into the raw type (a number, an identifier,
//! an optional); ranges are checked once, by `Scenario::try_from` and
//! `DecisionInput::validate`, which read them from this table.

use super::decision::{Blend, DecisionInput, LoadUnit, TrafficUnit};
use super::input::{ScenarioInput, WORKLOAD_PRESETS};
use super::ScenarioError;
use crate::catalog::ModelSpec;
use crate::json;
use crate::model::efficiency::Efficiency;

/// How a field's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number (read as `f64`, so a fractional entry reaches validation and gets a message).
    Integer,
    Real,
    /// One of a set of values: `choices`, or the catalog's models or GPUs.
    Choice,
    /// Free text (a pasted model description, a list of GPU ids).
    Text,
}

/// Where a field sits on the page and in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Model, hardware, parallelism, precision, lengths, price, concurrency.
    Scenario,
    /// Batching, KV allocation, chunked prefill, speculative decoding, prefix caching.
    Technique,
    /// The length distribution and its presets.
    Workload,
    /// The engine limit and the efficiency knobs.
    Advanced,
    /// SLO, traffic, load, blend, electricity and the plan's GPUs.
    Decision,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Scenario,
        Group::Technique,
        Group::Workload,
        Group::Advanced,
        Group::Decision,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Scenario => "Scenario",
            Group::Technique => "Serving techniques",
            Group::Workload => "Workload shape",
            Group::Advanced => "Engine limit and efficiency knobs",
            Group::Decision => "Decisions (SLO, traffic, cost)",
        }
    }
}

/// The raw inputs the table reads and writes: the scenario and the decision inputs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inputs {
    pub scenario: ScenarioInput,
    pub decision: DecisionInput,
}

type Setter<T> = fn(&mut T, &str) -> Result<(), String>;

/// Which raw input a field lives on, with its getter (the text that travels) and setter.
enum Access {
    Scenario {
        get: fn(&ScenarioInput) -> String,
        set: Setter<ScenarioInput>,
    },
    Decision {
        get: fn(&DecisionInput) -> String,
        set: Setter<DecisionInput>,
    },
}

/// One user input.
pub struct Field {
    /// Kebab-case: CLI flag without `--`, URL and JSON key, element id, error field.
    pub key: &'static str,
    /// What the page shows (and error messages start with).
    pub label: &'static str,
    /// Unit of a number (`tokens`, `ms`, `$/GPU-hour`); empty for none.
    pub unit: &'static str,
    pub kind: Kind,
    /// Inclusive range a number must lie in (checked by the one door, not the setter).
    pub range: Option<(f64, f64)>,
    /// Blank (or `auto`) means "let the model choose" (an `Option` in the raw input).
    pub optional: bool,
    /// The values of a choice, with labels; empty for the catalog's models and GPUs.
    pub choices: &'static [(&'static str, &'static str)],
    pub group: Group,
    /// The glossary term that explains it (`present::glossary`), if any.
    pub term: Option<&'static str>,
    /// Set from other fields' values (a workload preset sets lengths and spreads): accepted by
    /// every reader, never written (the fields it sets travel instead).
    pub derived: bool,
    /// An efficiency knob's value in the GPU family's defaults (the page's placeholder).
    pub efficiency: Option<fn(&Efficiency) -> f64>,
    access: Access,
}

impl PartialEq for Field {
    fn eq(&self, other: &Field) -> bool {
        self.key == other.key
    }
}

impl Eq for Field {}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Field({})", self.key)
    }
}

impl Field {
    /// The field's text in `inputs`, as it travels in links and JSON (empty for an unset optional).
    pub fn get(&self, inputs: &Inputs) -> String {
        match &self.access {
            Access::Scenario { get, .. } => get(&inputs.scenario),
            Access::Decision { get, .. } => get(&inputs.decision),
        }
    }

    /// Set the field from text; the error says what is wrong with the text (not which field).
    pub fn set(&self, inputs: &mut Inputs, text: &str) -> Result<(), String> {
        match &self.access {
            Access::Scenario { set, .. } => set(&mut inputs.scenario, text.trim()),
            Access::Decision { set, .. } => set(&mut inputs.decision, text.trim()),
        }
    }

    /// A scenario field's text (`None` for a decision field): what a pinned scenario carries.
    pub fn get_scenario(&self, input: &ScenarioInput) -> Option<String> {
        match &self.access {
            Access::Scenario { get, .. } => Some(get(input)),
            Access::Decision { .. } => None,
        }
    }

    /// Set a scenario field on a scenario alone; a decision field is an error.
    pub fn set_scenario(&self, input: &mut ScenarioInput, text: &str) -> Result<(), String> {
        match &self.access {
            Access::Scenario { set, .. } => set(input, text.trim()),
            Access::Decision { .. } => Err("is not a scenario field".into()),
        }
    }

    /// Set a decision field on the decision inputs alone; a scenario field is an error.
    pub fn set_decision(&self, decision: &mut DecisionInput, text: &str) -> Result<(), String> {
        match &self.access {
            Access::Decision { set, .. } => set(decision, text.trim()),
            Access::Scenario { .. } => Err("is not a decision field".into()),
        }
    }

    /// A decision field's text (`None` for a scenario field).
    pub fn get_decision(&self, decision: &DecisionInput) -> Option<String> {
        match &self.access {
            Access::Decision { get, .. } => Some(get(decision)),
            Access::Scenario { .. } => None,
        }
    }

    pub fn is_decision(&self) -> bool {
        matches!(self.access, Access::Decision { .. })
    }

    /// The text of the defaults (the page's `ScenarioInput::default()` and `DecisionInput::default()`).
    pub fn default_text(&self) -> String {
        self.get(&Inputs::default())
    }

    /// "Input length (tokens)".
    pub fn label_with_unit(&self) -> String {
        if self.unit.is_empty() {
            self.label.to_string()
        } else {
            format!("{} ({})", self.label, self.unit)
        }
    }

    fn range_or_all(&self) -> (f64, f64) {
        self.range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY))
    }

    /// A whole number in the field's range, or an error naming the field and the range.
    pub fn whole(&self, value: f64) -> Result<u32, ScenarioError> {
        let (min, max) = self.range_or_all();
        if !value.is_finite() || value.fract() != 0.0 || value < min || value > max {
            return Err(ScenarioError {
                field: self.key.into(),
                message: format!("must be a whole number from {min} to {max} (got {value})"),
            });
        }
        Ok(value as u32)
    }

    /// A number in the field's range, or an error naming the field and the range.
    pub fn real(&self, value: f64) -> Result<f64, ScenarioError> {
        let (min, max) = self.range_or_all();
        if value.is_nan() || value < min || value > max || (value.is_infinite() && max.is_finite())
        {
            return Err(ScenarioError {
                field: self.key.into(),
                message: format!("must be a number from {min} to {max} (got {value})"),
            });
        }
        Ok(value)
    }

    /// The field by key, or `None`.
    pub fn by_key(key: &str) -> Option<&'static Field> {
        FIELDS.iter().copied().find(|field| field.key == key)
    }

    /// "Input length (tokens): 1 to 10000000; default 1155" — one line of the CLI's help, with
    /// the default the command starts from.
    pub fn help_line(&self, defaults: &Inputs) -> String {
        let mut parts = Vec::new();
        if !self.choices.is_empty() {
            let values: Vec<&str> = self.choices.iter().map(|(value, _)| *value).collect();
            parts.push(values.join(" | "));
        } else if let Some((min, max)) = self.range {
            parts.push(format!("{min} to {max}"));
        }
        if self.optional {
            parts.push("optional".into());
        }
        let default = self.get(defaults);
        if !default.is_empty() && !self.derived {
            parts.push(format!("default {default}"));
        }
        if parts.is_empty() {
            self.label_with_unit()
        } else {
            format!("{}: {}", self.label_with_unit(), parts.join("; "))
        }
    }
}

/// How a number is written: `8`, `1155`, `3.125` (Rust's shortest round-trip form).
pub fn number_text(value: f64) -> String {
    format!("{value}")
}

fn optional_text(value: Option<f64>) -> String {
    value.map(number_text).unwrap_or_default()
}

/// A finite number; a leading `$` and thousands separators (`,` `_`) are fine. Not inlined:
/// thirty setters call it, and one copy keeps the page's wasm smaller.
#[inline(never)]
pub fn parse_number(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let trimmed = trimmed.strip_prefix('$').unwrap_or(trimmed).trim();
    if trimmed.is_empty() {
        return Err("enter a number".into());
    }
    let cleaned: String = trimmed.chars().filter(|c| *c != ',' && *c != '_').collect();
    cleaned
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("“{trimmed}” is not a number"))
}

/// A number, or blank/`auto` for "let the model choose".
#[inline(never)]
fn parse_optional(text: &str) -> Result<Option<f64>, String> {
    if text.is_empty() || text.eq_ignore_ascii_case("auto") {
        Ok(None)
    } else {
        parse_number(text).map(Some)
    }
}

/// An identifier (model, GPU, precision, a choice): short, ASCII letters, digits and `-_.`.
#[inline(never)]
fn parse_word(text: &str) -> Result<String, String> {
    if text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        Ok(text.to_string())
    } else {
        Err("is not a plain identifier".into())
    }
}

/// One of `choices`, or an error listing them.
fn parse_choice(text: &str, choices: &[(&str, &str)]) -> Result<String, String> {
    match choices.iter().find(|(value, _)| *value == text) {
        Some((value, _)) => Ok((*value).to_string()),
        None => Err(format!(
            "`{}` is not one of {}",
            text.chars().take(40).collect::<String>(),
            choices
                .iter()
                .map(|(value, _)| *value)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

const PRECISIONS: &[(&str, &str)] = &[
    ("bf16", "BF16"),
    ("fp8", "FP8"),
    ("fp4", "FP4"),
    ("int4", "INT4 (weight-only)"),
];
const KV_PRECISIONS: &[(&str, &str)] = &[("bf16", "BF16"), ("fp8", "FP8")];
const BATCHING: &[(&str, &str)] = &[
    ("continuous", "Continuous (iteration-level)"),
    ("static", "Static (request-level)"),
];
const KV_ALLOC: &[(&str, &str)] = &[
    ("paged", "Paged (vLLM blocks)"),
    ("contiguous", "Contiguous (reserve max length)"),
];
const SPEC_DECODE: &[(&str, &str)] = &[
    ("off", "Off"),
    ("draft", "Draft model"),
    ("eagle", "EAGLE head"),
    ("mtp", "MTP (multi-token prediction)"),
];
const LENGTH_DIST: &[(&str, &str)] = &[
    ("lognormal", "Lognormal (production-like)"),
    ("fixed", "Fixed (synthetic uniform)"),
];
/// `#workload` values that are not scenario presets.
pub const UNIFORM_WORKLOAD: &str = "uniform";
pub const CUSTOM_WORKLOAD: &str = "custom";
const WORKLOADS: &[(&str, &str)] = &[
    ("chat", "Chat"),
    ("code", "Code completion"),
    ("summarize", "Summarization"),
    ("rag", "RAG / long prompt"),
    ("reasoning", "Reasoning / long output"),
    (UNIFORM_WORKLOAD, "Uniform (synthetic): fixed lengths"),
    (CUSTOM_WORKLOAD, "Custom (as typed)"),
];
const TRAFFIC_UNITS: &[(&str, &str)] = &[("req-s", "requests/s"), ("tokens-per-day", "tokens/day")];
const LOAD_UNITS: &[(&str, &str)] = &[("percent", "% of capacity"), ("tok-s", "output tokens/s")];
const ON_OFF: &[(&str, &str)] = &[("off", "Off"), ("on", "On")];

/// The `#workload` value `input` matches: a preset whose means and spreads it equals, `uniform`
/// for fixed lengths, else `custom`.
pub fn workload_of(input: &ScenarioInput) -> &'static str {
    if input.length_dist.trim() == "fixed" {
        return UNIFORM_WORKLOAD;
    }
    WORKLOAD_PRESETS
        .iter()
        .find(|p| {
            (p.input_len, p.output_len, p.input_sigma, p.output_sigma)
                == (
                    input.input_len,
                    input.output_len,
                    input.input_sigma,
                    input.output_sigma,
                )
        })
        .map_or(CUSTOM_WORKLOAD, |p| p.id)
}

fn set_workload(input: &mut ScenarioInput, text: &str) -> Result<(), String> {
    match text {
        UNIFORM_WORKLOAD => {
            input.length_dist = "fixed".into();
            Ok(())
        }
        CUSTOM_WORKLOAD | "" => Ok(()),
        preset => input.apply_workload_preset(preset),
    }
}

fn model_text(input: &ScenarioInput) -> String {
    input
        .custom_model
        .as_ref()
        .map(|m| m.to_json_value().to_json())
        .unwrap_or_default()
}

fn set_custom_model(input: &mut ScenarioInput, text: &str) -> Result<(), String> {
    input.custom_model = if text.is_empty() {
        None
    } else {
        Some(
            json::parse(text)
                .and_then(|v| ModelSpec::from_json_value(&v))
                .map_err(|err| format!("is not a model description: {err}"))?,
        )
    };
    Ok(())
}

fn gpus_allowed_text(decision: &DecisionInput) -> String {
    decision
        .gpus_allowed
        .as_ref()
        .map(|ids| ids.join(","))
        .unwrap_or_default()
}

fn set_gpus_allowed(decision: &mut DecisionInput, text: &str) -> Result<(), String> {
    decision.gpus_allowed = if text.is_empty() {
        None
    } else {
        Some(
            text.split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(parse_word)
                .collect::<Result<Vec<_>, _>>()?,
        )
    };
    Ok(())
}

/// A scenario field with the common parts filled in.
const fn scenario(
    key: &'static str,
    label: &'static str,
    kind: Kind,
    group: Group,
    get: fn(&ScenarioInput) -> String,
    set: Setter<ScenarioInput>,
) -> Field {
    Field {
        key,
        label,
        unit: "",
        kind,
        range: None,
        optional: false,
        choices: &[],
        group,
        term: None,
        derived: false,
        efficiency: None,
        access: Access::Scenario { get, set },
    }
}

/// A decision field with the common parts filled in.
const fn decision(
    key: &'static str,
    label: &'static str,
    kind: Kind,
    get: fn(&DecisionInput) -> String,
    set: Setter<DecisionInput>,
) -> Field {
    Field {
        key,
        label,
        unit: "",
        kind,
        range: None,
        optional: false,
        choices: &[],
        group: Group::Decision,
        term: None,
        derived: false,
        efficiency: None,
        access: Access::Decision { get, set },
    }
}

/// An efficiency knob: optional (blank = the GPU family's default), in `range`.
macro_rules! efficiency_knob {
    ($key:literal, $label:literal, $unit:literal, $field:ident, $range:expr) => {
        Field {
            unit: $unit,
            range: Some($range),
            optional: true,
            efficiency: Some(|e: &Efficiency| e.$field),
            ..scenario(
                $key,
                $label,
                Kind::Real,
                Group::Advanced,
                |i| optional_text(i.efficiency.$field),
                |i, t| parse_optional(t).map(|v| i.efficiency.$field = v),
            )
        }
    };
}

pub static MODEL: Field = scenario(
    "model",
    "Model",
    Kind::Choice,
    Group::Scenario,
    |i| i.model.clone(),
    |i, t| parse_word(t).map(|v| i.model = v),
);
/// The model select's value for a pasted model.
pub const CUSTOM_MODEL_VALUE: &str = "custom";
pub static CUSTOM_MODEL: Field = scenario(
    "custom-model",
    "Custom model (config.json)",
    Kind::Text,
    Group::Scenario,
    model_text,
    set_custom_model,
);
pub static GPU: Field = scenario(
    "gpu",
    "GPU",
    Kind::Choice,
    Group::Scenario,
    |i| i.gpu.clone(),
    |i, t| parse_word(t).map(|v| i.gpu = v),
);
pub static GPUS: Field = Field {
    range: Some((1.0, 4096.0)),
    ..scenario(
        "gpus",
        "GPU count",
        Kind::Integer,
        Group::Scenario,
        |i| number_text(i.gpu_count),
        |i, t| parse_number(t).map(|v| i.gpu_count = v),
    )
};
pub static TP: Field = Field {
    range: Some((1.0, 4096.0)),
    optional: true,
    ..scenario(
        "tp",
        "Tensor parallel (TP)",
        Kind::Integer,
        Group::Scenario,
        |i| optional_text(i.tp),
        |i, t| parse_optional(t).map(|v| i.tp = v),
    )
};
pub static PP: Field = Field {
    range: Some((1.0, 64.0)),
    optional: true,
    ..scenario(
        "pp",
        "Pipeline parallel (PP)",
        Kind::Integer,
        Group::Scenario,
        |i| optional_text(i.pp),
        |i, t| parse_optional(t).map(|v| i.pp = v),
    )
};
pub static EP: Field = Field {
    range: Some((1.0, 4096.0)),
    optional: true,
    ..scenario(
        "ep",
        "Expert parallel (EP)",
        Kind::Integer,
        Group::Scenario,
        |i| optional_text(i.ep),
        |i, t| parse_optional(t).map(|v| i.ep = v),
    )
};
pub static DP_ATTENTION: Field = Field {
    range: Some((1.0, 4096.0)),
    optional: true,
    ..scenario(
        "dp-attention",
        "Attention DP",
        Kind::Integer,
        Group::Scenario,
        |i| optional_text(i.dp_attention),
        |i, t| parse_optional(t).map(|v| i.dp_attention = v),
    )
};
pub static EPLB_REDUNDANT_EXPERTS: Field = Field {
    unit: "expert slots",
    range: Some((0.0, 4096.0)),
    ..scenario(
        "eplb-redundant-experts",
        "EPLB redundant experts",
        Kind::Integer,
        Group::Scenario,
        |i| number_text(i.eplb_redundant_experts),
        |i, t| parse_number(t).map(|v| i.eplb_redundant_experts = v),
    )
};
pub static PRECISION: Field = Field {
    choices: PRECISIONS,
    ..scenario(
        "precision",
        "Weight precision",
        Kind::Choice,
        Group::Scenario,
        |i| i.precision.clone(),
        |i, t| parse_word(t).map(|v| i.precision = v),
    )
};
pub static KV_PRECISION: Field = Field {
    choices: KV_PRECISIONS,
    ..scenario(
        "kv-precision",
        "KV-cache precision",
        Kind::Choice,
        Group::Scenario,
        |i| i.kv_precision.clone(),
        |i, t| parse_word(t).map(|v| i.kv_precision = v),
    )
};
pub static INPUT_LEN: Field = Field {
    unit: "tokens",
    range: Some((1.0, 10_000_000.0)),
    ..scenario(
        "input-len",
        "Input length",
        Kind::Real,
        Group::Scenario,
        |i| number_text(i.input_len),
        |i, t| parse_number(t).map(|v| i.input_len = v),
    )
};
pub static OUTPUT_LEN: Field = Field {
    unit: "tokens",
    range: Some((1.0, 10_000_000.0)),
    ..scenario(
        "output-len",
        "Output length",
        Kind::Real,
        Group::Scenario,
        |i| number_text(i.output_len),
        |i, t| parse_number(t).map(|v| i.output_len = v),
    )
};
pub static USD_PER_GPU_HOUR: Field = Field {
    unit: "$/GPU-hour",
    range: Some((0.0, 1000.0)),
    optional: true,
    term: Some("usd-per-m-tokens"),
    ..scenario(
        "usd-per-gpu-hour",
        "Price per GPU-hour",
        Kind::Real,
        Group::Scenario,
        |i| optional_text(i.usd_per_gpu_hour),
        |i, t| parse_optional(t).map(|v| i.usd_per_gpu_hour = v),
    )
};
pub static CONCURRENCY: Field = Field {
    unit: "requests in flight",
    range: Some((1.0, 10_000_000.0)),
    term: Some("throughput"),
    ..scenario(
        "concurrency",
        "Concurrency (batch size)",
        Kind::Integer,
        Group::Scenario,
        |i| number_text(i.concurrency),
        |i, t| parse_number(t).map(|v| i.concurrency = v),
    )
};
pub static BATCHING_FIELD: Field = Field {
    choices: BATCHING,
    term: Some("continuous-batching"),
    ..scenario(
        "batching",
        "Batching",
        Kind::Choice,
        Group::Technique,
        |i| i.batching.clone(),
        |i, t| parse_word(t).map(|v| i.batching = v),
    )
};
pub static KV_ALLOC_FIELD: Field = Field {
    choices: KV_ALLOC,
    term: Some("paged-attention"),
    ..scenario(
        "kv-alloc",
        "KV-cache allocation",
        Kind::Choice,
        Group::Technique,
        |i| i.kv_alloc.clone(),
        |i, t| parse_word(t).map(|v| i.kv_alloc = v),
    )
};
pub static MAX_MODEL_LEN: Field = Field {
    unit: "tokens",
    range: Some((1.0, 10_000_000.0)),
    optional: true,
    ..scenario(
        "max-model-len",
        "Reserved length per sequence (contiguous)",
        Kind::Real,
        Group::Technique,
        |i| optional_text(i.max_model_len),
        |i, t| parse_optional(t).map(|v| i.max_model_len = v),
    )
};
pub static CHUNK_TOKENS: Field = Field {
    unit: "tokens",
    range: Some((16.0, 1_048_576.0)),
    term: Some("chunked-prefill"),
    ..scenario(
        "chunk-tokens",
        "Chunked-prefill token budget",
        Kind::Integer,
        Group::Technique,
        |i| number_text(i.chunk_tokens),
        |i, t| parse_number(t).map(|v| i.chunk_tokens = v),
    )
};
pub static SPEC_DECODE_FIELD: Field = Field {
    choices: SPEC_DECODE,
    term: Some("speculative-decoding"),
    ..scenario(
        "spec-decode",
        "Speculative decoding",
        Kind::Choice,
        Group::Technique,
        |i| i.spec_decode.clone(),
        |i, t| parse_word(t).map(|v| i.spec_decode = v),
    )
};
pub static SPEC_ACCEPT: Field = Field {
    range: Some((0.0, 0.99)),
    optional: true,
    ..scenario(
        "spec-accept",
        "Acceptance rate α (0–0.99)",
        Kind::Real,
        Group::Technique,
        |i| optional_text(i.spec_accept),
        |i, t| parse_optional(t).map(|v| i.spec_accept = v),
    )
};
pub static SPEC_LEN: Field = Field {
    unit: "tokens",
    range: Some((1.0, 16.0)),
    optional: true,
    ..scenario(
        "spec-len",
        "Draft length γ",
        Kind::Integer,
        Group::Technique,
        |i| optional_text(i.spec_len),
        |i, t| parse_optional(t).map(|v| i.spec_len = v),
    )
};
pub static SPEC_DRAFT_COST: Field = Field {
    unit: "× a target step",
    range: Some((0.0, 1.0)),
    optional: true,
    ..scenario(
        "spec-draft-cost",
        "Draft cost c",
        Kind::Real,
        Group::Technique,
        |i| optional_text(i.spec_draft_cost),
        |i, t| parse_optional(t).map(|v| i.spec_draft_cost = v),
    )
};
pub static PREFIX_HIT: Field = Field {
    range: Some((0.0, 0.99)),
    term: Some("prefix-caching"),
    ..scenario(
        "prefix-hit",
        "Prefix-cache hit rate",
        Kind::Real,
        Group::Technique,
        |i| number_text(i.prefix_hit),
        |i, t| parse_number(t).map(|v| i.prefix_hit = v),
    )
};
pub static WORKLOAD: Field = Field {
    choices: WORKLOADS,
    derived: true,
    ..scenario(
        "workload",
        "Workload",
        Kind::Choice,
        Group::Workload,
        |i| workload_of(i).to_string(),
        set_workload,
    )
};
pub static LENGTH_DIST_FIELD: Field = Field {
    choices: LENGTH_DIST,
    ..scenario(
        "length-dist",
        "Length distribution",
        Kind::Choice,
        Group::Workload,
        |i| i.length_dist.clone(),
        |i, t| parse_word(t).map(|v| i.length_dist = v),
    )
};
pub static INPUT_SIGMA: Field = Field {
    range: Some((0.0, 3.0)),
    ..scenario(
        "input-sigma",
        "Input spread σ",
        Kind::Real,
        Group::Workload,
        |i| number_text(i.input_sigma),
        |i, t| parse_number(t).map(|v| i.input_sigma = v),
    )
};
pub static OUTPUT_SIGMA: Field = Field {
    range: Some((0.0, 3.0)),
    ..scenario(
        "output-sigma",
        "Output spread σ",
        Kind::Real,
        Group::Workload,
        |i| number_text(i.output_sigma),
        |i, t| parse_number(t).map(|v| i.output_sigma = v),
    )
};
pub static MAX_NUM_SEQS: Field = Field {
    range: Some((1.0, 65_536.0)),
    ..scenario(
        "max-num-seqs",
        "Max sequences per replica",
        Kind::Integer,
        Group::Advanced,
        |i| number_text(i.max_num_seqs),
        |i, t| parse_number(t).map(|v| i.max_num_seqs = v),
    )
};
pub static ETA_MEM: Field = efficiency_knob!(
    "eta-mem",
    "Memory-bandwidth efficiency η_m",
    "",
    eta_mem,
    (0.05, 1.0)
);
pub static ETA_COMPUTE: Field = efficiency_knob!(
    "eta-compute",
    "Compute efficiency η_c",
    "",
    eta_compute,
    (0.05, 1.0)
);
pub static BLEND_P: Field = efficiency_knob!(
    "blend-p",
    "Roofline blend exponent p",
    "",
    blend_p,
    (1.0, f64::INFINITY)
);
pub static LAYER_OVERHEAD_US: Field = efficiency_knob!(
    "layer-overhead-us",
    "Per-layer overhead",
    "µs",
    layer_overhead_us,
    (0.0, 200.0)
);
pub static STEP_OVERHEAD_MS: Field = efficiency_knob!(
    "step-overhead-ms",
    "Per-step overhead",
    "ms",
    step_overhead_ms,
    (0.0, 50.0)
);
pub static ALLREDUCE_LATENCY_US: Field = efficiency_knob!(
    "allreduce-latency-us",
    "All-reduce latency",
    "µs",
    allreduce_latency_us,
    (0.0, 500.0)
);
pub static LINK_EFFICIENCY: Field = efficiency_knob!(
    "link-efficiency",
    "Link efficiency",
    "",
    link_efficiency,
    (0.05, 1.0)
);
pub static MEM_UTILIZATION: Field = efficiency_knob!(
    "mem-utilization",
    "GPU memory utilization",
    "",
    mem_utilization,
    (0.1, 1.0)
);
pub static RESERVED_GB: Field = efficiency_knob!(
    "reserved-gb",
    "Reserved memory",
    "GB",
    reserved_gb,
    (0.0, 100.0)
);
pub static DEQUANT_FACTOR: Field = efficiency_knob!(
    "dequant-factor",
    "Dequantization factor",
    "",
    dequant_factor,
    (0.1, 1.0)
);
pub static CAUSAL_FACTOR: Field = efficiency_knob!(
    "causal-factor",
    "Causal attention factor",
    "",
    causal_factor,
    (0.5, 1.0)
);
pub static MOE_IMBALANCE: Field = efficiency_knob!(
    "moe-imbalance",
    "MoE imbalance calibration",
    "× modelled excess",
    moe_imbalance,
    (0.0, 3.0)
);
pub static SLO_TTFT_MS: Field = Field {
    unit: "ms",
    range: Some((1e-3, 1e9)),
    optional: true,
    term: Some("ttft"),
    ..decision(
        "slo-ttft-ms",
        "TTFT target",
        Kind::Real,
        |d| optional_text(d.slo_ttft_ms),
        |d, t| parse_optional(t).map(|v| d.slo_ttft_ms = v),
    )
};
pub static SLO_TPOT_MS: Field = Field {
    unit: "ms",
    range: Some((1e-3, 1e9)),
    optional: true,
    term: Some("tpot"),
    ..decision(
        "slo-tpot-ms",
        "TPOT target",
        Kind::Real,
        |d| optional_text(d.slo_tpot_ms),
        |d, t| parse_optional(t).map(|v| d.slo_tpot_ms = v),
    )
};
pub static SLO_PERCENTILE: Field = Field {
    range: Some((50.0, 99.99)),
    term: Some("percentiles"),
    ..decision(
        "slo-percentile",
        "Percentile",
        Kind::Real,
        |d| number_text(d.slo_percentile),
        |d, t| parse_number(t).map(|v| d.slo_percentile = v),
    )
};
pub static TRAFFIC: Field = Field {
    unit: "in traffic-unit",
    range: Some((0.0, 1e15)),
    optional: true,
    ..decision(
        "traffic",
        "Traffic",
        Kind::Real,
        |d| optional_text(d.traffic),
        |d, t| parse_optional(t).map(|v| d.traffic = v),
    )
};
pub static TRAFFIC_UNIT: Field = Field {
    choices: TRAFFIC_UNITS,
    ..decision(
        "traffic-unit",
        "Traffic unit",
        Kind::Choice,
        |d| match d.traffic_unit {
            TrafficUnit::RequestsPerS => "req-s".into(),
            TrafficUnit::TokensPerDay => "tokens-per-day".into(),
        },
        |d, t| {
            parse_choice(t, TRAFFIC_UNITS).map(|v| {
                d.traffic_unit = if v == "req-s" {
                    TrafficUnit::RequestsPerS
                } else {
                    TrafficUnit::TokensPerDay
                }
            })
        },
    )
};
pub static OFFERED_LOAD: Field = Field {
    range: Some((1e-3, 1e12)),
    ..decision(
        "offered-load",
        "Offered load",
        Kind::Real,
        |d| number_text(d.offered_load),
        |d, t| parse_number(t).map(|v| d.offered_load = v),
    )
};
pub static OFFERED_LOAD_UNIT: Field = Field {
    choices: LOAD_UNITS,
    ..decision(
        "offered-load-unit",
        "Load unit",
        Kind::Choice,
        |d| match d.load_unit {
            LoadUnit::PercentOfCapacity => "percent".into(),
            LoadUnit::OutputTokS => "tok-s".into(),
        },
        |d, t| {
            parse_choice(t, LOAD_UNITS).map(|v| {
                d.load_unit = if v == "percent" {
                    LoadUnit::PercentOfCapacity
                } else {
                    LoadUnit::OutputTokS
                }
            })
        },
    )
};
pub static BLEND: Field = Field {
    choices: &Blend::CHOICES,
    term: Some("usd-per-m-tokens"),
    ..decision(
        "blend-ratio",
        "Blend (input : output tokens)",
        Kind::Choice,
        |d| d.blend.value(),
        |d, t| {
            Blend::parse(t)
                .map(|b| d.blend = b)
                .ok_or_else(|| format!("`{t}` is not a ratio ≥ 0 or `workload`"))
        },
    )
};
pub static ENERGY: Field = Field {
    choices: ON_OFF,
    ..decision(
        "energy",
        "Add electricity",
        Kind::Choice,
        |d| if d.energy_on { "on" } else { "off" }.into(),
        |d, t| parse_choice(t, ON_OFF).map(|v| d.energy_on = v == "on"),
    )
};
pub static ENERGY_USD_PER_KWH: Field = Field {
    unit: "$/kWh",
    range: Some((0.0, 10.0)),
    ..decision(
        "energy-usd-per-kwh",
        "Electricity",
        Kind::Real,
        |d| number_text(d.energy_usd_per_kwh),
        |d, t| parse_number(t).map(|v| d.energy_usd_per_kwh = v),
    )
};
pub static ENERGY_PUE: Field = Field {
    range: Some((1.0, 3.0)),
    ..decision(
        "energy-pue",
        "PUE",
        Kind::Real,
        |d| number_text(d.energy_pue),
        |d, t| parse_number(t).map(|v| d.energy_pue = v),
    )
};
pub static GPUS_ALLOWED: Field = decision(
    "gpus-allowed",
    "GPUs the plan may use",
    Kind::Text,
    gpus_allowed_text,
    set_gpus_allowed,
);

/// Every field, in the order links, JSON, `--help` and the printed inputs table list them.
pub static FIELDS: [&Field; 53] = [
    &MODEL,
    &CUSTOM_MODEL,
    &GPU,
    &GPUS,
    &TP,
    &PP,
    &EP,
    &DP_ATTENTION,
    &EPLB_REDUNDANT_EXPERTS,
    &PRECISION,
    &KV_PRECISION,
    &INPUT_LEN,
    &OUTPUT_LEN,
    &WORKLOAD,
    &LENGTH_DIST_FIELD,
    &INPUT_SIGMA,
    &OUTPUT_SIGMA,
    &PREFIX_HIT,
    &USD_PER_GPU_HOUR,
    &CONCURRENCY,
    &MAX_NUM_SEQS,
    &CHUNK_TOKENS,
    &BATCHING_FIELD,
    &KV_ALLOC_FIELD,
    &MAX_MODEL_LEN,
    &SPEC_DECODE_FIELD,
    &SPEC_ACCEPT,
    &SPEC_LEN,
    &SPEC_DRAFT_COST,
    &ETA_MEM,
    &ETA_COMPUTE,
    &BLEND_P,
    &LAYER_OVERHEAD_US,
    &STEP_OVERHEAD_MS,
    &ALLREDUCE_LATENCY_US,
    &LINK_EFFICIENCY,
    &MEM_UTILIZATION,
    &RESERVED_GB,
    &DEQUANT_FACTOR,
    &CAUSAL_FACTOR,
    &MOE_IMBALANCE,
    &SLO_TTFT_MS,
    &SLO_TPOT_MS,
    &SLO_PERCENTILE,
    &TRAFFIC_UNIT,
    &TRAFFIC,
    &OFFERED_LOAD_UNIT,
    &OFFERED_LOAD,
    &BLEND,
    &ENERGY,
    &ENERGY_USD_PER_KWH,
    &ENERGY_PUE,
    &GPUS_ALLOWED,
];

/// The efficiency knobs, in the advanced panel's order.
pub fn efficiency_knobs() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().copied().filter(|f| f.efficiency.is_some())
}

/// The fields of one group, in table order.
pub fn in_group(group: Group) -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().copied().filter(move |f| f.group == group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_kebab_case() {
        let mut keys: Vec<&str> = FIELDS.iter().map(|f| f.key).collect();
        for key in &keys {
            assert!(
                key.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{key}"
            );
        }
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(before, keys.len(), "duplicate keys");
    }

    #[test]
    fn defaults_read_back_through_their_own_setters() {
        for field in FIELDS {
            let mut inputs = Inputs::default();
            field
                .set(&mut inputs, &field.default_text())
                .unwrap_or_else(|e| panic!("{}: {e}", field.key));
            assert_eq!(inputs, Inputs::default(), "{}", field.key);
        }
    }

    #[test]
    fn choices_are_accepted_and_read_back() {
        for field in FIELDS.iter().filter(|f| !f.choices.is_empty()) {
            for (value, _) in field.choices {
                let mut inputs = Inputs::default();
                field.set(&mut inputs, value).expect("a listed choice");
                if !field.derived {
                    assert_eq!(field.get(&inputs), *value, "{}", field.key);
                }
            }
        }
    }

    #[test]
    fn numbers_are_lenient_about_dollars_and_separators() {
        assert_eq!(parse_number(" $1,234.5 "), Ok(1234.5));
        assert!(parse_number("abc").is_err());
        assert!(parse_number("").is_err());
        assert!(parse_number("inf").is_err());
        assert_eq!(parse_optional("auto"), Ok(None));
    }

    #[test]
    fn ranges_name_the_field() {
        let error = INPUT_LEN.real(0.0).expect_err("below the range");
        assert_eq!(error.field, "input-len");
        assert!(GPUS.whole(2.5).is_err());
        assert_eq!(GPUS.whole(8.0), Ok(8));
        assert_eq!(BLEND_P.real(f64::INFINITY), Ok(f64::INFINITY));
    }

    #[test]
    fn help_lines_state_range_and_default() {
        assert_eq!(
            INPUT_LEN.help_line(&Inputs::default()),
            "Input length (tokens): 1 to 10000000; default 1155"
        );
        assert!(PRECISION
            .help_line(&Inputs::default())
            .contains("bf16 | fp8 | fp4 | int4"));
    }
}
