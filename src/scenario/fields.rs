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

#[cfg(feature = "session-model")]
use super::decision::UserPercentile;
use super::decision::{Blend, DecisionInput, LoadUnit, TrafficUnit};
use super::input::{
    Batching, KvAlloc, LengthDist, Protocol, ScenarioInput, SpecMethod, WORKLOAD_PRESETS,
};
use super::pools::Serving;
use super::ScenarioError;
use crate::catalog::ModelSpec;
use crate::choice::{self, Choice as _};
use crate::json;
use crate::physics::efficiency::Efficiency;
use crate::physics::precision::{KvPrecision, Precision};

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
    /// The engine limit, the efficiency knobs and how TTFT is measured (server overhead,
    /// protocol, benchmark prompts).
    Advanced,
    /// SLO, traffic, load, arrivals' burstiness, blend, electricity and the plan's GPUs.
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

/// Attention DP as a rank count, or as the on/off switch benchmark tables record
/// (`dp_attention=true`, InferenceX): `false`/`off` is no attention DP (1 rank); `true`/`on`
/// spans the TP group already given, SGLang's launch form `--tp N --dp N --enable-dp-attention`
/// ("DP, DPA and sgl-router", docs.sglang.io; the DeepSeek-V3.2 README's
/// `--tp 8 --dp 8 --enable-dp-attention` on one 8-GPU node), which `Scenario` reads as
/// attention TP `N / DP`; without TP, it spans EP (DEP N: TensorRT-LLM's and vLLM's attention
/// DP N with EP N). Fields are set in table order, so TP and EP come first.
fn parse_dp_attention(text: &str, group: Option<f64>) -> Result<Option<f64>, String> {
    let word = text.trim().to_ascii_lowercase();
    match word.as_str() {
        "false" | "off" | "no" => Ok(Some(1.0)),
        "true" | "on" | "yes" => group.map(Some).ok_or_else(|| {
            format!("“{}” spans the TP group: give TP or EP too, or the number of attention data-parallel ranks", text.trim())
        }),
        _ => parse_optional(text),
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

/// A value of the closed set `C`, or the error naming its ids (the given text cut to 40
/// characters).
fn parse_pick<C: choice::Choice>(text: &str) -> Result<C, String> {
    C::parse(text).ok_or_else(|| C::not_one_of(&text.chars().take(40).collect::<String>()))
}
/// `#workload` values that are not scenario presets.
pub const UNIFORM_WORKLOAD: &str = "uniform";
pub const CUSTOM_WORKLOAD: &str = "custom";
/// The `#workload` choices: the single-request presets, any presets passed in, then the two
/// that are not presets. One list, so the explorer's build and the full build differ only there.
macro_rules! workloads {
    ($($preset:expr),*) => {
        &[
            ("chat", "Chat"),
            ("code", "Code completion"),
            ("summarize", "Summarization"),
            ("rag", "RAG / long prompt"),
            ("reasoning", "Reasoning / long output"),
            $($preset,)*
            (UNIFORM_WORKLOAD, "Uniform (synthetic): fixed lengths"),
            (CUSTOM_WORKLOAD, "Custom (as typed)"),
        ]
    };
}
#[cfg(not(feature = "session-model"))]
const WORKLOADS: &[(&str, &str)] = workloads!();
/// The session presets' `#workload` values (issue 27 §1), spelled only here:
/// `scenario::session_preset::SessionPreset::id` returns these. They are defined in every build, so the
/// field table does not depend on the session model; only the session-model build offers them
/// (a constant nobody reads adds nothing to the explorer's wasm).
pub const AGENTIC_CODING_WORKLOAD: &str = "agentic-coding";
pub const CHAT_MULTI_TURN_WORKLOAD: &str = "chat-multi-turn";
/// With the session model (issue 27 §1), the agentic presets too (`scenario::session_preset::SessionPreset`).
#[cfg(feature = "session-model")]
const WORKLOADS: &[(&str, &str)] = workloads!(
    (AGENTIC_CODING_WORKLOAD, "Agentic coding (sessions)"),
    (CHAT_MULTI_TURN_WORKLOAD, "Chat, multi-turn (sessions)")
);
/// The `#workload` value `input` matches: a preset whose means and spreads it equals, `uniform`
/// for fixed lengths, else `custom`.
pub fn workload_of(input: &ScenarioInput) -> &'static str {
    #[cfg(feature = "session-model")]
    if input.session_turns.is_some() {
        return crate::scenario::session_preset::SessionPreset::of_input(input)
            .map_or(CUSTOM_WORKLOAD, |preset| preset.id());
    }
    if input.length_dist == LengthDist::Fixed {
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
    #[cfg(feature = "session-model")]
    if let Some(preset) = crate::scenario::session_preset::SessionPreset::parse(text) {
        preset.apply(input);
        return Ok(());
    }
    #[cfg(feature = "session-model")]
    if !matches!(text, CUSTOM_WORKLOAD | "") {
        // A single-request preset (or uniform lengths) leaves session mode.
        input.session_turns = None;
        input.session_tool_tokens = None;
        input.session_tool_s = None;
    }
    match text {
        UNIFORM_WORKLOAD => {
            input.length_dist = LengthDist::Fixed;
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
        Some(parse_list(text)?)
    };
    Ok(())
}

/// A comma-separated list of identifiers (`h100-sxm,l40s`); blanks between commas are dropped.
fn parse_list(text: &str) -> Result<Vec<String>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(parse_word)
        .collect()
}

/// Weight precisions as a list, `bf16,fp8`.
fn precision_list(precisions: &[Precision]) -> String {
    precisions
        .iter()
        .map(|p| p.id())
        .collect::<Vec<_>>()
        .join(",")
}

/// A list of weight precisions (`bf16, FP8`), each once, in the order given.
fn parse_precisions(text: &str) -> Result<Vec<Precision>, String> {
    let mut chosen = Vec::new();
    for id in text.split(',').map(str::trim).filter(|id| !id.is_empty()) {
        let precision: Precision = parse_pick(id)?;
        if !chosen.contains(&precision) {
            chosen.push(precision);
        }
    }
    Ok(chosen)
}

impl Field {
    /// A field with the common parts filled in; the builders below add the rest.
    const fn new(
        key: &'static str,
        label: &'static str,
        kind: Kind,
        group: Group,
        access: Access,
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
            access,
        }
    }

    const fn unit(self, unit: &'static str) -> Field {
        Field { unit, ..self }
    }

    const fn range(self, min: f64, max: f64) -> Field {
        Field {
            range: Some((min, max)),
            ..self
        }
    }

    const fn optional(self) -> Field {
        Field {
            optional: true,
            ..self
        }
    }

    const fn choices(self, choices: &'static [(&'static str, &'static str)]) -> Field {
        Field { choices, ..self }
    }

    const fn term(self, term: &'static str) -> Field {
        Field {
            term: Some(term),
            ..self
        }
    }

    const fn derived(self) -> Field {
        Field {
            derived: true,
            ..self
        }
    }

    /// An efficiency knob: optional (blank = the GPU family's default, read by `value_of`).
    const fn knob(self, value_of: fn(&Efficiency) -> f64) -> Field {
        Field {
            efficiency: Some(value_of),
            optional: true,
            ..self
        }
    }
}

/// Getter and setter of a number field of the raw input: `num!(scenario: gpu_count)`.
macro_rules! num {
    (scenario: $($path:ident).+) => {
        Access::Scenario { get: |i| number_text(i.$($path).+), set: |i, t| parse_number(t).map(|v| i.$($path).+ = v) }
    };
    (decision: $($path:ident).+) => {
        Access::Decision { get: |d| number_text(d.$($path).+), set: |d, t| parse_number(t).map(|v| d.$($path).+ = v) }
    };
}

/// Getter and setter of an optional number (blank or `auto` = `None`): `opt!(scenario: tp)`.
macro_rules! opt {
    (scenario: $($path:ident).+) => {
        Access::Scenario { get: |i| optional_text(i.$($path).+), set: |i, t| parse_optional(t).map(|v| i.$($path).+ = v) }
    };
    (decision: $($path:ident).+) => {
        Access::Decision { get: |d| optional_text(d.$($path).+), set: |d, t| parse_optional(t).map(|v| d.$($path).+ = v) }
    };
}

/// Getter and setter of an identifier (a catalog id or a choice the one door checks): `word!(gpu)`.
macro_rules! word {
    ($field:ident) => {
        Access::Scenario {
            get: |i| i.$field.clone(),
            set: |i, t| parse_word(t).map(|v| i.$field = v),
        }
    };
}

/// Getter and setter of a closed set's field, read by the set's `Choice::parse`: `pick!(precision)`.
macro_rules! pick {
    ($field:ident) => {
        Access::Scenario {
            get: |i| i.$field.id().to_string(),
            set: |i, t| parse_pick(t).map(|v| i.$field = v),
        }
    };
}

/// An efficiency knob's value in a family's defaults: `eff!(eta_mem)`.
macro_rules! eff {
    ($field:ident) => {
        |e: &Efficiency| e.$field
    };
}

/// The table: one line per field, `NAME = definition;`. It defines the `static` of each field
/// and `FIELDS`, every field in this order (the order of links, JSON, `--help` and the printed
/// inputs table). Rows are kept unformatted so that each field stays one line.
///
/// The rows after `[sessions]` exist only with the `session-model` feature (issue 27): the
/// explorer's first-load module is built without it, and a link naming one of them gets a
/// notice naming the field there (`SESSION_KEYS`), as for any key it lacks.
macro_rules! table {
    ($($(#[$doc:meta])* $name:ident = $field:expr;)* [sessions] $($(#[$sdoc:meta])* $sname:ident = $sfield:expr;)*) => {
        $($(#[$doc])* pub static $name: Field = $field;)*
        $($(#[$sdoc])* #[cfg(feature = "session-model")] pub static $sname: Field = $sfield;)*
        /// Every field, in table order.
        #[cfg(feature = "session-model")]
        pub static FIELDS: &[&Field] = &[$(&$name,)* $(&$sname),*];
        /// Every field, in table order.
        #[cfg(not(feature = "session-model"))]
        pub static FIELDS: &[&Field] = &[$(&$name),*];
    };
}

/// The model select's value for a pasted model.
pub const CUSTOM_MODEL_VALUE: &str = "custom";

use Group::{Advanced, Decision, Scenario, Technique, Workload};
use Kind::{Choice, Integer, Real, Text};

table! {
    MODEL = Field::new("model", "Model", Choice, Scenario, word!(model));
    CUSTOM_MODEL = Field::new("custom-model", "Custom model (config.json)", Text, Scenario, Access::Scenario { get: model_text, set: set_custom_model });
    GPU = Field::new("gpu", "GPU", Choice, Scenario, word!(gpu));
    ENGINE = Field::new("engine", "Engine", Choice, Scenario, word!(engine)).choices(crate::physics::engine::ENGINES);
    /// How the engine is set up: a tuned benchmark or a stock launch at the engine's defaults
    /// (`physics::engine::Deployment`, issue 25 §2); picks the engine profile's deployment.
    DEPLOYMENT = Field::new("deployment", "Deployment", Choice, Scenario, pick!(deployment)).choices(crate::physics::engine::Deployment::CHOICES).term("tuned-vs-stock");
    GPUS = Field::new("gpus", "GPU count", Integer, Scenario, num!(scenario: gpu_count)).range(1.0, 4096.0);
    TP = Field::new("tp", "Tensor parallel (TP)", Integer, Scenario, opt!(scenario: tp)).range(1.0, 4096.0).optional();
    PP = Field::new("pp", "Pipeline parallel (PP)", Integer, Scenario, opt!(scenario: pp)).range(1.0, 64.0).optional();
    EP = Field::new("ep", "Expert parallel (EP)", Integer, Scenario, opt!(scenario: ep)).range(1.0, 4096.0).optional();
    DP_ATTENTION = Field::new("dp-attention", "Attention DP", Integer, Scenario, Access::Scenario { get: |i| optional_text(i.dp_attention), set: |i, t| parse_dp_attention(t, i.tp.or(i.ep)).map(|v| i.dp_attention = v) }).range(1.0, 4096.0).optional();
    EPLB_REDUNDANT_EXPERTS = Field::new("eplb-redundant-experts", "EPLB redundant experts", Integer, Scenario, num!(scenario: eplb_redundant_experts)).unit("expert slots").range(0.0, 4096.0);
    PRECISION = Field::new("precision", "Weight precision", Choice, Scenario, pick!(precision)).choices(Precision::CHOICES);
    KV_PRECISION = Field::new("kv-precision", "KV-cache precision", Choice, Scenario, pick!(kv_precision)).choices(<Option<KvPrecision>>::CHOICES);
    INPUT_LEN = Field::new("input-len", "Input length", Real, Scenario, num!(scenario: input_len)).unit("tokens").range(1.0, 10_000_000.0);
    OUTPUT_LEN = Field::new("output-len", "Output length", Real, Scenario, num!(scenario: output_len)).unit("tokens").range(1.0, 10_000_000.0);
    WORKLOAD = Field::new("workload", "Workload", Choice, Workload, Access::Scenario { get: |i| workload_of(i).to_string(), set: set_workload }).choices(WORKLOADS).derived();
    LENGTH_DIST_FIELD = Field::new("length-dist", "Length distribution", Choice, Workload, pick!(length_dist)).choices(LengthDist::CHOICES);
    INPUT_SIGMA = Field::new("input-sigma", "Input spread σ", Real, Workload, num!(scenario: input_sigma)).range(0.0, 3.0);
    OUTPUT_SIGMA = Field::new("output-sigma", "Output spread σ", Real, Workload, num!(scenario: output_sigma)).range(0.0, 3.0);
    PREFIX_HIT = Field::new("prefix-hit", "Prefix-cache hit rate", Real, Technique, num!(scenario: prefix_hit)).range(0.0, 0.99).term("prefix-caching");
    USD_PER_GPU_HOUR = Field::new("usd-per-gpu-hour", "Price per GPU-hour", Real, Scenario, opt!(scenario: usd_per_gpu_hour)).unit("$").range(0.0, 1000.0).optional().term("usd-per-m-tokens");
    CONCURRENCY = Field::new("concurrency", "Concurrency (batch size)", Integer, Scenario, num!(scenario: concurrency)).unit("requests in flight").range(1.0, 10_000_000.0).term("throughput");
    MAX_NUM_SEQS = Field::new("max-num-seqs", "Max sequences per replica", Integer, Advanced, opt!(scenario: max_num_seqs)).range(1.0, 65_536.0).optional();
    CHUNK_TOKENS = Field::new("chunk-tokens", "Chunked-prefill token budget", Integer, Technique, opt!(scenario: chunk_tokens)).unit("tokens").range(16.0, 1_048_576.0).optional().term("chunked-prefill");
    BATCHING_FIELD = Field::new("batching", "Batching", Choice, Technique, pick!(batching)).choices(Batching::CHOICES).term("continuous-batching");
    KV_ALLOC_FIELD = Field::new("kv-alloc", "KV-cache allocation", Choice, Technique, pick!(kv_alloc)).choices(KvAlloc::CHOICES).term("paged-attention");
    MAX_MODEL_LEN = Field::new("max-model-len", "Reserved length per sequence (contiguous)", Real, Technique, opt!(scenario: max_model_len)).unit("tokens").range(1.0, 10_000_000.0).optional();
    SPEC_DECODE_FIELD = Field::new("spec-decode", "Speculative decoding", Choice, Technique, pick!(spec_decode)).choices(<Option<SpecMethod>>::CHOICES).term("speculative-decoding");
    SPEC_ACCEPT = Field::new("spec-accept", "Acceptance rate α (0–0.99)", Real, Technique, opt!(scenario: spec_accept)).range(0.0, 0.99).optional();
    SPEC_LEN = Field::new("spec-len", "Draft length γ", Integer, Technique, opt!(scenario: spec_len)).unit("tokens").range(1.0, 16.0).optional();
    SPEC_DRAFT_COST = Field::new("spec-draft-cost", "Draft cost c", Real, Technique, opt!(scenario: spec_draft_cost)).unit("× a target step").range(0.0, 1.0).optional();
    ETA_MEM = Field::new("eta-mem", "Memory-bandwidth efficiency η_m", Real, Advanced, opt!(scenario: efficiency.eta_mem)).range(0.05, 1.0).knob(eff!(eta_mem));
    ETA_COMPUTE = Field::new("eta-compute", "Compute efficiency η_c", Real, Advanced, opt!(scenario: efficiency.eta_compute)).range(0.05, 1.0).knob(eff!(eta_compute));
    BLEND_P = Field::new("blend-p", "Roofline blend exponent p", Real, Advanced, opt!(scenario: efficiency.blend_p)).range(1.0, f64::INFINITY).knob(eff!(blend_p));
    LAYER_OVERHEAD_US = Field::new("layer-overhead-us", "Per-layer overhead", Real, Advanced, opt!(scenario: efficiency.layer_overhead_us)).unit("µs").range(0.0, 200.0).knob(eff!(layer_overhead_us));
    STEP_OVERHEAD_MS = Field::new("step-overhead-ms", "Per-step overhead", Real, Advanced, opt!(scenario: efficiency.step_overhead_ms)).unit("ms").range(0.0, 50.0).knob(eff!(step_overhead_ms));
    SEQ_OVERHEAD_US = Field::new("seq-overhead-us", "Per-sequence step overhead", Real, Advanced, opt!(scenario: efficiency.seq_overhead_us)).unit("µs").range(0.0, 2000.0).knob(eff!(seq_overhead_us));
    ALLREDUCE_LATENCY_US = Field::new("allreduce-latency-us", "All-reduce latency", Real, Advanced, opt!(scenario: efficiency.allreduce_latency_us)).unit("µs").range(0.0, 500.0).knob(eff!(allreduce_latency_us));
    LINK_EFFICIENCY = Field::new("link-efficiency", "Link efficiency", Real, Advanced, opt!(scenario: efficiency.link_efficiency)).range(0.05, 1.0).knob(eff!(link_efficiency));
    MEM_UTILIZATION = Field::new("mem-utilization", "GPU memory utilization", Real, Advanced, opt!(scenario: efficiency.mem_utilization)).range(0.1, 1.0).knob(eff!(mem_utilization));
    RESERVED_GB = Field::new("reserved-gb", "Reserved memory", Real, Advanced, opt!(scenario: efficiency.reserved_gb)).unit("GB").range(0.0, 100.0).knob(eff!(reserved_gb));
    DEQUANT_FACTOR = Field::new("dequant-factor", "Dequantization factor", Real, Advanced, opt!(scenario: efficiency.dequant_factor)).range(0.1, 1.0).knob(eff!(dequant_factor));
    CAUSAL_FACTOR = Field::new("causal-factor", "Causal attention factor", Real, Advanced, opt!(scenario: efficiency.causal_factor)).range(0.5, 1.0).knob(eff!(causal_factor));
    MOE_IMBALANCE = Field::new("moe-imbalance", "MoE imbalance calibration", Real, Advanced, opt!(scenario: efficiency.moe_imbalance)).unit("× modelled excess").range(0.0, 3.0).knob(eff!(moe_imbalance));
    MOE_TILE_MAX_ROWS = Field::new("moe-tile-max-rows", "MoE GEMM tile (max rows)", Real, Advanced, opt!(scenario: efficiency.moe_tile_max_rows)).unit("rows").range(8.0, 512.0).knob(eff!(moe_tile_max_rows));
    SERVER_OVERHEAD_MS = Field::new("server-overhead-ms", "Server overhead per request", Real, Advanced, opt!(scenario: server_overhead_ms)).unit("ms").range(0.0, 10_000.0).optional().term("ttft");
    PROTOCOL = Field::new("protocol", "Measured as", Choice, Advanced, pick!(protocol)).choices(Protocol::CHOICES).term("ttft");
    NUM_PROMPTS = Field::new("num-prompts", "Benchmark prompts", Integer, Advanced, opt!(scenario: num_prompts)).unit("requests").range(1.0, 10_000_000.0).optional();
    SERVING = Field::new("serving", "Serving", Choice, Technique, pick!(serving)).choices(Serving::CHOICES).term("disaggregation");
    PREFILL_GPUS = Field::new("prefill-gpus", "Prefill pool GPUs", Integer, Technique, opt!(scenario: prefill_gpus)).range(1.0, 4096.0).optional();
    PREFILL_TP = Field::new("prefill-tp", "Prefill pool TP", Integer, Technique, opt!(scenario: prefill_tp)).range(1.0, 4096.0).optional();
    PREFILL_EP = Field::new("prefill-ep", "Prefill pool EP", Integer, Technique, opt!(scenario: prefill_ep)).range(1.0, 4096.0).optional();
    DECODE_GPUS = Field::new("decode-gpus", "Decode pool GPUs", Integer, Technique, opt!(scenario: decode_gpus)).range(1.0, 4096.0).optional();
    DECODE_TP = Field::new("decode-tp", "Decode pool TP", Integer, Technique, opt!(scenario: decode_tp)).range(1.0, 4096.0).optional();
    DECODE_EP = Field::new("decode-ep", "Decode pool EP", Integer, Technique, opt!(scenario: decode_ep)).range(1.0, 4096.0).optional();
    SLO_TTFT_MS = Field::new("slo-ttft-ms", "TTFT target", Real, Decision, opt!(decision: slo_ttft_ms)).unit("ms").range(1e-3, 1e9).optional().term("ttft");
    SLO_TPOT_MS = Field::new("slo-tpot-ms", "TPOT target", Real, Decision, opt!(decision: slo_tpot_ms)).unit("ms").range(1e-3, 1e9).optional().term("tpot");
    SLO_PERCENTILE = Field::new("slo-percentile", "Percentile", Real, Decision, num!(decision: slo_percentile)).range(50.0, 99.99).term("percentiles");
    TRAFFIC_UNIT = Field::new("traffic-unit", "Traffic unit", Choice, Decision, Access::Decision { get: |d| d.traffic_unit.id().to_string(), set: set_traffic_unit }).choices(TrafficUnit::CHOICES);
    TRAFFIC = Field::new("traffic", "Traffic", Real, Decision, opt!(decision: traffic)).unit("in traffic-unit").range(0.0, 1e15).optional();
    OFFERED_LOAD_UNIT = Field::new("offered-load-unit", "Load unit", Choice, Decision, Access::Decision { get: |d| d.load_unit.id().to_string(), set: set_load_unit }).choices(LoadUnit::CHOICES);
    OFFERED_LOAD = Field::new("offered-load", "Offered load", Real, Decision, num!(decision: offered_load)).range(1e-3, 1e12);
    /// How bursty open-loop arrivals are: the coefficient of variation `c_a` of the gaps between
    /// arrivals, Gamma-distributed with mean `1/λ` (shape `1/c_a²`, `sim::Arrivals::Gamma`; vidur
    /// generates them too [S3]). 1 is Poisson; above 1, bursts. MODEL.md §4.2 "Bursty arrivals":
    /// the Azure conversation trace has CV ≈ 1.09, the Azure code trace CV ≈ 13 [derived from S3
    /// traces]. Read by the production-gap waterfall's arrivals step and by `simulate
    /// --burstiness` (where, unset, the open loop is Poisson). The range is the simulator's (at
    /// most 100), from 0.01 up since a CV of 0 has no Gamma.
    BURSTINESS = Field::new("burstiness", "Arrival burstiness", Real, Decision, num!(decision: burstiness)).unit("CV of the gaps").range(0.01, 100.0);
    BLEND = Field::new("blend-ratio", "Blend (input : output tokens)", Choice, Decision, Access::Decision { get: |d| d.blend.value(), set: set_blend }).choices(&Blend::CHOICES).term("usd-per-m-tokens");
    ENERGY = Field::new("energy", "Add electricity", Choice, Decision, Access::Decision { get: energy_text, set: set_energy }).choices(bool::CHOICES);
    ENERGY_USD_PER_KWH = Field::new("energy-usd-per-kwh", "Electricity", Real, Decision, num!(decision: energy_usd_per_kwh)).unit("$/kWh").range(0.0, 10.0);
    ENERGY_PUE = Field::new("energy-pue", "PUE", Real, Decision, num!(decision: energy_pue)).range(1.0, 3.0);
    TOK_S_PER_USER = Field::new("tok-s-per-user", "Target tokens/s per user", Real, Decision, opt!(decision: tok_s_per_user)).unit("tok/s").range(0.01, 1e6).optional().term("interactivity");
    /// The leaderboard's TTFT ceiling (issue 26 §3): a row's point must also have its TTFT at the
    /// SLO percentile (`slo-percentile`, the analytic tail) at or below it, so no configuration
    /// that queues prefill for seconds is ranked.
    TTFT_CEILING_MS = Field::new("ttft-ceiling-ms", "TTFT ceiling (at the SLO percentile)", Real, Decision, opt!(decision: ttft_ceiling_ms)).unit("ms").range(1.0, 1e9).optional().term("ttft");
    GPUS_ALLOWED = Field::new("gpus-allowed", "GPUs the plan may use", Text, Decision, Access::Decision { get: gpus_allowed_text, set: set_gpus_allowed });
    PRECISIONS_ALLOWED = Field::new("precisions-allowed", "Weight precisions the plan may use", Text, Decision, Access::Decision { get: |d| precision_list(&d.precisions_allowed), set: |d, t| parse_precisions(t).map(|v| d.precisions_allowed = v) });
    MAX_UTILIZATION = Field::new("max-utilization", "Utilization ceiling", Real, Decision, num!(decision: max_utilization)).unit("of capacity").range(0.05, 1.0);
    GPUS_PER_NODE = Field::new("gpus-per-node", "GPUs per server", Integer, Decision, num!(decision: gpus_per_node)).range(1.0, 64.0);
    CAPEX_USD_PER_GPU = Field::new("capex-usd-per-gpu", "Owned: capex per GPU (server share included)", Real, Decision, opt!(decision: capex_usd_per_gpu)).unit("$").range(0.0, 1e7).optional();
    DEPRECIATION_YEARS = Field::new("depreciation-years", "Owned: depreciation", Real, Decision, num!(decision: depreciation_years)).unit("years").range(0.5, 15.0);
    OWNED_POWER_W = Field::new("owned-power-w", "Owned: power per GPU (blank: catalog TDP)", Real, Decision, opt!(decision: owned_power_w)).unit("W").range(1.0, 10_000.0).optional();
    HOSTING_USD_PER_KW_MONTH = Field::new("hosting-usd-per-kw-month", "Owned: hosting", Real, Decision, num!(decision: hosting_usd_per_kw_month)).unit("$/kW-month").range(0.0, 10_000.0);
    OPS_USD_PER_GPU_HOUR = Field::new("ops-usd-per-gpu-hour", "Owned: operations and software", Real, Decision, num!(decision: ops_usd_per_gpu_hour)).unit("$/GPU-hour").range(0.0, 100.0);
    [sessions]
    /// Agentic sessions (issue 27 §1, `model::sessions`): set, the workload is sessions of this
    /// many turns on average (`input-len` the first prompt, `output-len` each turn's output,
    /// `concurrency` the agents in flight); blank, single requests.
    SESSION_TURNS = Field::new("session-turns", "Turns per session (agentic sessions)", Real, Workload, opt!(scenario: session_turns)).unit("turns").range(1.0, 10_000.0).optional();
    SESSION_TOOL_TOKENS = Field::new("session-tool-tokens", "Tool-result tokens per turn", Real, Workload, opt!(scenario: session_tool_tokens)).unit("tokens").range(0.0, 10_000_000.0).optional();
    SESSION_TOOL_S = Field::new("session-tool-s", "Tool time between turns", Real, Workload, opt!(scenario: session_tool_s)).unit("s").range(0.0, 86_400.0).optional();
    INTERACTIVITY_PERCENTILE = Field::new("interactivity-percentile", "Percentile of interactivity and TTFT (agentic)", Choice, Decision, Access::Decision { get: |d| d.interactivity_percentile.id().to_string(), set: set_user_percentile }).choices(UserPercentile::CHOICES).term("percentiles");
    LICENCE_FEE_PCT = Field::new("licence-fee-pct", "Model licence fee", Real, Decision, num!(decision: licence_fee_pct)).unit("% of revenue").range(0.0, 100.0);
    API_USD_PER_M_INPUT = Field::new("api-usd-per-m-input", "API price, input (blank: api_prices.csv)", Real, Decision, opt!(decision: api_usd_per_m_input)).unit("$/M tokens").range(0.0, 10_000.0).optional();
    API_USD_PER_M_CACHED_INPUT = Field::new("api-usd-per-m-cached-input", "API price, cached input (blank: api_prices.csv)", Real, Decision, opt!(decision: api_usd_per_m_cached_input)).unit("$/M tokens").range(0.0, 10_000.0).optional();
    API_USD_PER_M_OUTPUT = Field::new("api-usd-per-m-output", "API price, output (blank: api_prices.csv)", Real, Decision, opt!(decision: api_usd_per_m_output)).unit("$/M tokens").range(0.0, 10_000.0).optional();
    FLEET_AGENTS = Field::new("fleet-agents", "Agents in the fleet (self-host vs API)", Integer, Decision, opt!(decision: fleet_agents)).unit("agents").range(1.0, 1e9).optional();
    BILLED_UTILIZATION = Field::new("billed-utilization", "Share of capacity sold", Real, Decision, num!(decision: billed_utilization)).unit("of capacity").range(0.01, 1.0);
}

/// The session rows' keys (issue 27). Where the table has no session rows (the explorer's
/// first-load module, built without `session-model`), a link, JSON file or embed naming one is
/// refused like any key the table lacks: a notice naming it ("ignored `fleet-agents`: unknown
/// parameter"), the rest of the view kept; a custom message would cost the first load ~250
/// bytes gzip. With the session model, a test checks these are exactly the session rows.
pub const SESSION_KEYS: &[&str] = &[
    "session-turns",
    "session-tool-tokens",
    "session-tool-s",
    "interactivity-percentile",
    "licence-fee-pct",
    "api-usd-per-m-input",
    "api-usd-per-m-cached-input",
    "api-usd-per-m-output",
    "fleet-agents",
    "billed-utilization",
];

/// The session presets' ids (`scenario::session_preset::SessionPreset`): a build without the session
/// model carries `workload` naming one of them (`DecisionInput::carried`); a test checks they
/// are the presets'.
pub const SESSION_WORKLOADS: &[&str] = &["agentic-coding", "chat-multi-turn"];

/// Whether a build without the session model carries `key=value` for the tools module (a
/// session key, or the workload naming a session preset) rather than refusing it.
pub fn carried_key(key: &str, value: &str) -> bool {
    SESSION_KEYS.contains(&key)
        || (key == WORKLOAD.key && SESSION_WORKLOADS.contains(&value.trim()))
}

/// The value whose id `text` is exactly, or an error listing the ids.
fn read_choice<C: choice::Choice>(text: &str) -> Result<C, String> {
    C::parse_exact(text).ok_or_else(|| C::not_one_of(&text.chars().take(40).collect::<String>()))
}

#[cfg(feature = "session-model")]
fn set_user_percentile(decision: &mut DecisionInput, text: &str) -> Result<(), String> {
    decision.interactivity_percentile = read_choice(text)?;
    Ok(())
}

fn set_traffic_unit(decision: &mut DecisionInput, text: &str) -> Result<(), String> {
    decision.traffic_unit = read_choice(text)?;
    Ok(())
}

fn set_load_unit(decision: &mut DecisionInput, text: &str) -> Result<(), String> {
    decision.load_unit = read_choice(text)?;
    Ok(())
}

fn set_blend(decision: &mut DecisionInput, text: &str) -> Result<(), String> {
    decision.blend =
        Blend::parse(text).ok_or_else(|| format!("`{text}` is not a ratio ≥ 0 or `workload`"))?;
    Ok(())
}

fn energy_text(decision: &DecisionInput) -> String {
    decision.energy_on.id().to_string()
}

fn set_energy(decision: &mut DecisionInput, text: &str) -> Result<(), String> {
    parse_pick(text).map(|on| decision.energy_on = on)
}

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

    /// Benchmark tables record attention DP as a switch: off is one rank, on spans the TP
    /// group given before it (SGLang's `--tp N --dp N --enable-dp-attention`).
    #[test]
    fn attention_dp_reads_the_switch_benchmark_tables_record() {
        let set = |tp: Option<f64>, text: &str| {
            let mut inputs = Inputs::default();
            inputs.scenario.tp = tp;
            inputs.scenario.ep = None;
            DP_ATTENTION
                .set(&mut inputs, text)
                .map(|()| inputs.scenario.dp_attention)
        };
        assert_eq!(set(Some(8.0), "true"), Ok(Some(8.0)));
        assert_eq!(set(Some(8.0), " On "), Ok(Some(8.0)));
        assert_eq!(set(None, "false"), Ok(Some(1.0)));
        assert_eq!(set(None, "4"), Ok(Some(4.0)));
        assert_eq!(set(None, ""), Ok(None));
        let without_tp = set(None, "true").expect_err("on, but how many ranks?");
        assert!(without_tp.contains("give TP"), "{without_tp}");
        assert!(set(None, "maybe").is_err());
        let mut dep = Inputs::default();
        dep.scenario.tp = None;
        dep.scenario.ep = Some(8.0);
        DP_ATTENTION.set(&mut dep, "true").expect("spans EP");
        assert_eq!(dep.scenario.dp_attention, Some(8.0));
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
