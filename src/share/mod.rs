//! The view as data that travels: URL query (only values that differ from the defaults, with a
//! version marker), JSON export/import with the same keys, and the CSV of the curve with an
//! assumptions header. Decoding never fails: what cannot be read falls back to the default and
//! is named in a notice. Pure: no web APIs (the page passes `location.search` in and out).

use crate::choice::Choice;
use crate::decide::pricing::price_when_unstated;
use crate::json::{self, Value};
use crate::model::{Curve, OperatingPoint};
use crate::present::assumptions::assumptions;
use crate::present::chart::{Projection, Theme, XAxis, YAxis};
use crate::scenario::fields::{Field, Inputs, FIELDS, USD_PER_GPU_HOUR};
use crate::scenario::{DecisionInput, Scenario, ScenarioError, ScenarioInput};

mod page;
pub use page::{
    chart_caption, embed_snippet, embed_snippet_height, escape_attribute, export_file_stem,
    start_view, without_embed, StartSource, StartView, EMBED_HEIGHT_MESSAGE,
    EMBED_SNIPPET_HEIGHT_PX,
};

/// Version of the URL/JSON state format; older versions are read as far as their keys allow.
/// Version 2 (issue 26 §6): a scenario naming no price has its GPU's catalog typical price;
/// version 1 had the old default, $3.125, for every priced GPU (`LEGACY_UNSTATED_PRICE`).
pub const STATE_VERSION: u32 = 2;

/// What a version-1 link or export meant by an unstated price (on a GPU the catalog prices):
/// the old default scenario's $3.125, so an old link opens to the view it described.
pub const LEGACY_UNSTATED_PRICE: f64 = 3.125;

/// Whether a link or export of `version` reads an unstated price as version 1 did.
fn legacy_price(version: Option<&str>) -> bool {
    version.is_some_and(|v| v.trim() == "1")
}
/// Longest query accepted; anything longer is ignored with a notice (hostile or truncated links).
pub const MAX_QUERY_LEN: usize = 16_384;
/// Longest single value accepted (a pasted `config.json` fits; a megabyte of junk does not).
pub const MAX_VALUE_LEN: usize = 4_096;
/// At most this many pinned scenarios travel in a link.
pub const MAX_PINS: usize = 4;

/// Embed-mode options (the widget in someone else's page).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EmbedOptions {
    pub embed: bool,
    /// Control ids to show besides the slider (`model`, `gpu`, ...).
    pub controls: Vec<String>,
    /// Light or dark; `None` follows the system.
    pub theme: Option<Theme>,
}

/// Everything a link reproduces.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewState {
    pub scenario: ScenarioInput,
    /// SLO, traffic, load, blend, electricity and plan GPUs: the decision panels' inputs.
    pub decision: DecisionInput,
    pub pins: Vec<ScenarioInput>,
    /// The chart's axes (`x=`, `y=`): the one type the page, the link and the drawing share.
    pub chart: Projection,
    pub embed: EmbedOptions,
}

impl ViewState {
    /// The scenario and decision inputs together, as the field table reads them.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            scenario: self.scenario.clone(),
            decision: self.decision.clone(),
        }
    }

    /// Replace the scenario and decision inputs.
    pub fn set_inputs(&mut self, inputs: Inputs) {
        self.scenario = inputs.scenario;
        self.decision = inputs.decision;
    }
}

/// The scenario's fields as `(key, value)` text pairs, in table order (`scenario::fields`), the
/// derived ones (a workload preset) left out: what a pinned scenario carries.
pub fn scenario_pairs(input: &ScenarioInput) -> Vec<(&'static str, String)> {
    FIELDS
        .iter()
        .filter(|field| !field.derived)
        .filter_map(|field| field.get_scenario(input).map(|text| (field.key, text)))
        .collect()
}

/// Every travelling field of `inputs` (scenario and decision) as `(key, value)` pairs.
pub fn input_pairs(inputs: &Inputs) -> Vec<(&'static str, String)> {
    FIELDS
        .iter()
        .filter(|field| !field.derived)
        .map(|field| (field.key, field.get(inputs)))
        .collect()
}

/// Set one field (scenario or decision) from text; the error says what was wrong.
pub fn set_field(inputs: &mut Inputs, key: &str, value: &str) -> Result<(), String> {
    Field::by_key(key)
        .ok_or_else(|| "unknown parameter".to_string())?
        .set(inputs, value)
}

/// Set one scenario field from text (a pin's); a decision or unknown key is an error.
pub fn set_scenario_field(input: &mut ScenarioInput, key: &str, value: &str) -> Result<(), String> {
    Field::by_key(key)
        .ok_or_else(|| "unknown parameter".to_string())?
        .set_scenario(input, value)
}

/// Only the pairs that differ from the defaults.
fn changed(
    pairs: Vec<(&'static str, String)>,
    defaults: Vec<(&'static str, String)>,
) -> Vec<(&'static str, String)> {
    pairs
        .into_iter()
        .zip(defaults)
        .filter(|((_, value), (_, default))| value != default)
        .map(|(pair, _)| pair)
        .collect()
}

/// What a scenario naming `input`'s GPU and nothing else is: the defaults with that GPU's
/// unstated price (`pricing::price_when_unstated`: none for a GPU without a catalog price), so
/// a link carries a price only when it differs from that.
fn defaults_for(input: &ScenarioInput) -> ScenarioInput {
    ScenarioInput {
        usd_per_gpu_hour: price_when_unstated(&input.gpu),
        ..ScenarioInput::default()
    }
}

/// Give a decoded scenario that named no price its GPU's unstated price (a version-1 link's:
/// `LEGACY_UNSTATED_PRICE` where the catalog prices the GPU).
fn price_unstated(input: &mut ScenarioInput, price_given: bool, legacy: bool) {
    if !price_given {
        input.usd_per_gpu_hour = price_when_unstated(&input.gpu);
        if legacy && input.usd_per_gpu_hour.is_some() {
            input.usd_per_gpu_hour = Some(LEGACY_UNSTATED_PRICE);
        }
    }
}

/// A pin's pairs that differ from the default scenario.
fn changed_pairs(input: &ScenarioInput) -> Vec<(&'static str, String)> {
    changed(scenario_pairs(input), scenario_pairs(&defaults_for(input)))
}

/// The view's scenario and decision pairs that differ from the defaults.
fn changed_view_pairs(view: &ViewState) -> Vec<(&'static str, String)> {
    let defaults = Inputs {
        scenario: defaults_for(&view.scenario),
        decision: DecisionInput::default(),
    };
    changed(input_pairs(&view.inputs()), input_pairs(&defaults))
}

/// Percent-encode everything but unreserved characters (RFC 3986 §2.3).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'%' => {
                let hex = text.get(index + 1..index + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                index += 3;
            }
            b'+' => {
                out.push(b' ');
                index += 1;
            }
            other => {
                out.push(other);
                index += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// A pinned scenario inside one parameter: its changed pairs as `key:value` joined by `;`
/// (values percent-encoded, so `:` and `;` inside them are safe).
fn encode_pin(input: &ScenarioInput) -> String {
    changed_pairs(input)
        .into_iter()
        .map(|(k, v)| format!("{k}:{}", percent_encode(&v)))
        .collect::<Vec<_>>()
        .join(";")
}

/// A scenario's key between the page's two modules: the query of a view holding only it (the
/// tools module's simulated headline names the scenario it ran, and the explorer shows it only
/// on that scenario).
pub fn scenario_key(input: &ScenarioInput) -> String {
    encode(&ViewState {
        scenario: input.clone(),
        ..ViewState::default()
    })
}

/// The query string (without `?`) for a view: `v=2`, then only non-default values.
pub fn encode(view: &ViewState) -> String {
    let mut parts = vec![format!("v={STATE_VERSION}")];
    // First, so the fields after them apply on top of a carried workload preset.
    for (key, value) in carried(&view.decision) {
        parts.push(format!("{key}={}", percent_encode(value)));
    }
    for (key, value) in changed_view_pairs(view) {
        parts.push(format!("{key}={}", percent_encode(&value)));
    }
    for pin in view.pins.iter().take(MAX_PINS) {
        parts.push(format!("pin={}", percent_encode(&encode_pin(pin))));
    }
    if view.chart.x != XAxis::default() {
        parts.push(format!("x={}", view.chart.x.id()));
    }
    if view.chart.y != YAxis::default() {
        parts.push(format!("y={}", view.chart.y.id()));
    }
    if view.embed.embed {
        parts.push("embed=1".into());
    }
    if !view.embed.controls.is_empty() {
        parts.push(format!(
            "controls={}",
            percent_encode(&view.embed.controls.join(","))
        ));
    }
    if let Some(theme) = view.embed.theme {
        parts.push(format!("theme={}", theme.id()));
    }
    parts.join("&")
}

/// The agentic keys the build carries without modelling them (`DecisionInput::carried`).
#[cfg(not(feature = "session-model"))]
fn carried(decision: &DecisionInput) -> &[(String, String)] {
    &decision.carried
}

/// With the session model every agentic key is a field of the table: nothing is carried.
#[cfg(feature = "session-model")]
fn carried(_: &DecisionInput) -> &[(String, String)] {
    &[]
}

/// Whether the view is in agentic mode (issue 27 §4): a session workload, as the session model
/// reads it, or, in the explorer's build, as the link carried it (`session-turns`, the first
/// session key, or `workload` naming a session preset). The embed shows the agentic figures
/// then (docs/EMBED.md).
#[cfg(feature = "session-model")]
pub fn is_agentic(scenario: &ScenarioInput, _: &DecisionInput) -> bool {
    scenario.session_turns.is_some()
}

#[cfg(not(feature = "session-model"))]
pub fn is_agentic(_: &ScenarioInput, decision: &DecisionInput) -> bool {
    use crate::scenario::fields::{SESSION_KEYS, WORKLOAD};
    decision
        .carried
        .iter()
        .any(|(key, _)| key == WORKLOAD.key || SESSION_KEYS.first() == Some(&key.as_str()))
}

/// Carry `key=value` if it is an agentic key this build lacks (replacing an earlier value of
/// the same key); false when it is not one.
#[cfg(not(feature = "session-model"))]
fn carry(view: &mut ViewState, key: &str, value: &str) -> bool {
    if !crate::scenario::fields::carried_key(key, value) {
        return false;
    }
    let carried = &mut view.decision.carried;
    carried.retain(|(k, _)| k != key);
    carried.push((key.to_string(), value.to_string()));
    true
}

#[cfg(feature = "session-model")]
fn carry(_: &mut ViewState, _: &str, _: &str) -> bool {
    false
}

/// Short, safe rendering of untrusted text for a notice (never inserted as HTML by the page).
fn shown(text: &str) -> String {
    let cleaned: String = text.chars().filter(|c| !c.is_control()).take(40).collect();
    if text.chars().count() > 40 {
        format!("{cleaned}…")
    } else {
        cleaned
    }
}

/// Read a query string (with or without `?`). Never fails: unreadable parts keep their defaults
/// and each one is named in the returned notices.
pub fn decode(query: &str) -> (ViewState, Vec<String>) {
    let mut view = ViewState::default();
    let mut notices = Vec::new();
    let query = query.strip_prefix('?').unwrap_or(query);
    if query.is_empty() {
        return (view, notices);
    }
    if query.len() > MAX_QUERY_LEN {
        notices.push(format!(
            "the link is {} characters long (limit {MAX_QUERY_LEN}); it was ignored",
            query.len()
        ));
        return (view, notices);
    }
    let mut price_given = false;
    let legacy = legacy_price(query.split('&').find_map(|part| part.strip_prefix("v=")));
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_key, raw_value) = part.split_once('=').unwrap_or((part, ""));
        let (Some(key), Some(value)) = (percent_decode(raw_key), percent_decode(raw_value)) else {
            notices.push(format!(
                "ignored `{}`: not valid percent-encoding",
                shown(part)
            ));
            continue;
        };
        if value.len() > MAX_VALUE_LEN {
            notices.push(format!("ignored `{}`: value too long", shown(&key)));
            continue;
        }
        match key.as_str() {
            "v" => {
                // Version 1 is read as it was meant (`legacy_price`); anything else is not ours.
                if value.trim() != STATE_VERSION.to_string() && !legacy_price(Some(&value)) {
                    notices.push(format!(
                        "link version `{}` read as version {STATE_VERSION}",
                        shown(&value)
                    ));
                }
            }
            "pin" => {
                if view.pins.len() >= MAX_PINS {
                    notices.push(format!(
                        "ignored a pin: at most {MAX_PINS} travel in a link"
                    ));
                    continue;
                }
                let mut pin = ScenarioInput::default();
                let mut pin_price_given = false;
                let (mut read, mut refused) = (0, 0);
                for item in value.split(';').filter(|s| !s.is_empty()) {
                    let (k, v) = item.split_once(':').unwrap_or((item, ""));
                    let decoded = percent_decode(v).unwrap_or_default();
                    match set_scenario_field(&mut pin, k, &decoded) {
                        Ok(()) => {
                            read += 1;
                            pin_price_given |= k == USD_PER_GPU_HOUR.key;
                        }
                        Err(why) => {
                            refused += 1;
                            notices.push(format!("ignored pinned `{}`: {why}", shown(k)));
                        }
                    }
                }
                // A pin none of whose pairs could be read is not a default pin (issue 28 §4:
                // four garbage `pin=` values added four identical default pins); an empty one
                // is (the default scenario pinned writes no pairs). A repeat adds nothing.
                if read == 0 && refused > 0 {
                    notices.push(format!(
                        "ignored pin `{}`: nothing in it could be read",
                        shown(&value)
                    ));
                    continue;
                }
                price_unstated(&mut pin, pin_price_given, legacy);
                if view.pins.contains(&pin) {
                    notices.push("ignored a pin that repeats another".into());
                    continue;
                }
                view.pins.push(pin);
            }
            "x" => match XAxis::parse(&value) {
                Some(x) => view.chart.x = x,
                None => notices.push(format!(
                    "ignored x=`{}`: not interactivity or tpot",
                    shown(&value)
                )),
            },
            "y" => match YAxis::parse(&value) {
                Some(y) => view.chart.y = y,
                None => notices.push(format!(
                    "ignored y=`{}`: not per-gpu, aggregate, usd or tok-per-usd",
                    shown(&value)
                )),
            },
            "embed" => view.embed.embed = matches!(value.as_str(), "1" | "true" | "yes"),
            "controls" => {
                view.embed.controls = value
                    .split(',')
                    .map(str::trim)
                    .filter(|c| {
                        !c.is_empty()
                            && c.len() <= 32
                            && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-')
                    })
                    .take(16)
                    .map(str::to_string)
                    .collect()
            }
            "theme" => match value.as_str() {
                "" => view.embed.theme = None,
                text => match Theme::parse_exact(text) {
                    Some(theme) => view.embed.theme = Some(theme),
                    None => notices.push(format!(
                        "ignored theme=`{}`: not light or dark",
                        shown(&value)
                    )),
                },
            },
            _ => {
                let mut inputs = view.inputs();
                match set_field(&mut inputs, &key, &value) {
                    Ok(()) => {
                        view.set_inputs(inputs);
                        price_given |= key == USD_PER_GPU_HOUR.key;
                    }
                    Err(_) if carry(&mut view, &key, &value) => {}
                    Err(why) => notices.push(format!("ignored `{}`: {why}", shown(&key))),
                }
            }
        }
    }
    price_unstated(&mut view.scenario, price_given, legacy);
    (view, notices)
}

/// Validate a decoded scenario, dropping (to its default) each field the model rejects and
/// naming it, until the scenario is valid. Returns `None` only if even the defaults fail. What
/// `sanitize_link` keeps as asked (a scenario that does not fit) becomes the defaults here, with
/// one notice: a pin must be drawable.
pub fn sanitize(
    input: ScenarioInput,
    notices: &mut Vec<String>,
) -> Option<(ScenarioInput, Scenario)> {
    let (input, remaining) = sanitize_link(input, notices);
    let input = match remaining {
        None => input,
        Some(error) => {
            notices.push(format!("ignored {}: {}", error.field, error.message));
            ScenarioInput::default()
        }
    };
    Scenario::try_from(input.clone()).ok().map(|s| (input, s))
}

/// A link's scenario with each field the model rejects on its own dropped to its default and
/// named in `notices` (an unknown model, TP 3): a field is dropped only when its default gets
/// validation further (valid, or the error moves to another field). What is left is kept as the
/// link asked, with its error: a scenario that is well formed but does not fit (DeepSeek-R1 on
/// 8 × H100) stays itself, so the page shows what was asked and says once why it does not fit
/// (the error names the field and what would fit, `scenario::fit`), instead of another scenario.
pub fn sanitize_link(
    mut input: ScenarioInput,
    notices: &mut Vec<String>,
) -> (ScenarioInput, Option<ScenarioError>) {
    let defaults = ScenarioInput::default();
    let default_pairs = scenario_pairs(&defaults);
    for _ in 0..default_pairs.len() + 2 {
        let error = match Scenario::try_from(input.clone()) {
            Ok(_) => return (input, None),
            Err(error) => error,
        };
        let key = match error.field.split_once('.') {
            Some((field, _)) => field.to_string(),
            None => error.field.clone(),
        };
        let mut candidate = input.clone();
        let default_value = default_pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone());
        match default_value {
            Some(value) if set_scenario_field(&mut candidate, &key, &value).is_ok() => {}
            _ => candidate = defaults.clone(),
        }
        let further = candidate != input
            && Scenario::try_from(candidate.clone())
                .map_or_else(|e| e.field != error.field, |_| true);
        if !further {
            return (input, Some(error));
        }
        notices.push(format!("ignored {}: {}", error.field, error.message));
        input = candidate;
    }
    let error = Scenario::try_from(input.clone()).err();
    (input, error)
}

/// The view as pretty JSON with the same keys as the URL (`v`, scenario keys, `pins`, chart).
pub fn to_json(view: &ViewState) -> String {
    let pairs = |input: &ScenarioInput| -> Vec<(String, Value)> {
        changed_pairs(input)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect()
    };
    let mut object = vec![("v".to_string(), STATE_VERSION.into())];
    object.extend(
        changed_view_pairs(view)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into())),
    );
    let pins: Vec<Value> = view
        .pins
        .iter()
        .map(|pin| Value::Object(pairs(pin)))
        .collect();
    if !pins.is_empty() {
        object.push(("pins".into(), pins.into()));
    }
    if view.chart.x != XAxis::default() {
        object.push(("x".into(), view.chart.x.id().into()));
    }
    if view.chart.y != YAxis::default() {
        object.push(("y".into(), view.chart.y.id().into()));
    }
    Value::Object(object).to_json_pretty()
}

/// Import a JSON export. Unlike a link, an import the user chose must be right: any bad field is
/// an error naming it (the page keeps the current view), and the scenario and decision inputs
/// must validate.
pub fn from_json(text: &str) -> Result<ViewState, String> {
    let view = read_json(text)?;
    Scenario::try_from(view.scenario.clone())
        .map_err(|e| format!("`{}`: {}", e.field, e.message))?;
    view.decision
        .validate()
        .map_err(|e| format!("`{}`: {}", e.field, e.message))?;
    Ok(view)
}

/// Read a JSON export through the field table without validating the scenario (pins are
/// validated, as a link's are sanitized): every key must be a field, every value must parse.
pub fn read_json(text: &str) -> Result<ViewState, String> {
    let value = json::parse(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let object = value
        .as_object()
        .ok_or("the file must hold a JSON object")?;
    let text_of = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(json::number_to_string(*n)),
        Value::Null => Some(String::new()),
        _ => None,
    };
    let mut view = ViewState::default();
    let version = object
        .iter()
        .find(|(k, _)| k == "v")
        .and_then(|(_, v)| text_of(v));
    let legacy = legacy_price(version.as_deref());
    for (key, value) in object {
        match key.as_str() {
            "v" => {}
            "x" | "y" => {
                let text = text_of(value).ok_or_else(|| format!("`{key}` must be text"))?;
                let (probe, notices) = decode(&format!("{key}={}", percent_encode(&text)));
                if let Some(notice) = notices.first() {
                    return Err(notice.clone());
                }
                if key == "x" {
                    view.chart.x = probe.chart.x;
                } else {
                    view.chart.y = probe.chart.y;
                }
            }
            "pins" => {
                let pins = value.as_array().ok_or("`pins` must be a list")?;
                if pins.len() > MAX_PINS {
                    return Err(format!(
                        "`pins` holds {} scenarios; at most {MAX_PINS}",
                        pins.len()
                    ));
                }
                for (index, pin) in pins.iter().enumerate() {
                    let fields = pin
                        .as_object()
                        .ok_or_else(|| format!("pins[{index}] must be an object"))?;
                    let mut input = ScenarioInput::default();
                    for (k, v) in fields {
                        let text = text_of(v)
                            .ok_or_else(|| format!("pins[{index}].{k} must be text or a number"))?;
                        set_scenario_field(&mut input, k, &text)
                            .map_err(|why| format!("pins[{index}].{k}: {why}"))?;
                    }
                    price_unstated(
                        &mut input,
                        fields.iter().any(|(k, _)| k == USD_PER_GPU_HOUR.key),
                        legacy,
                    );
                    Scenario::try_from(input.clone())
                        .map_err(|e| format!("pins[{index}].{}: {}", e.field, e.message))?;
                    view.pins.push(input);
                }
            }
            _ => {
                let text =
                    text_of(value).ok_or_else(|| format!("`{key}` must be text or a number"))?;
                let mut inputs = view.inputs();
                set_field(&mut inputs, key, &text).map_err(|why| format!("`{key}`: {why}"))?;
                view.set_inputs(inputs);
            }
        }
    }
    price_unstated(
        &mut view.scenario,
        object.iter().any(|(k, _)| k == USD_PER_GPU_HOUR.key),
        legacy,
    );
    Ok(view)
}

/// The curve as CSV, preceded by `#` lines stating the assumptions and the app version.
pub fn curve_csv(
    scenario: &Scenario,
    point: &OperatingPoint,
    curve: &Curve,
    app_version: &str,
) -> String {
    let mut out = format!("# servecost {app_version} — throughput–latency curve\n");
    for line in assumptions(scenario, point).lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("# ");
    out.push_str(&crate::present::assumptions::expected_error_text(
        crate::model::expected_error::Class::of(scenario, point),
    ));
    out.push('\n');
    out.push_str(&curve_csv_rows(curve));
    out
}

/// The curve's CSV header and one row per point (also `servecost sweep --csv`). The cost cell
/// is empty when the scenario has no price per GPU-hour.
pub fn curve_csv_rows(curve: &Curve) -> String {
    let mut out = String::from("concurrency,tok_s_per_user,output_tok_s_per_gpu,output_tok_s,tpot_ms,ttft_ms,usd_per_m_output,fits,pareto,knee,bound\n");
    for (index, p) in curve.points.iter().enumerate() {
        out.push_str(&format!(
            "{},{:.4},{:.4},{:.4},{:.4},{:.4},{},{},{},{},{}\n",
            p.concurrency,
            p.tok_s_per_user,
            p.output_tok_s_per_gpu,
            p.output_tok_s,
            p.tpot_ms,
            p.ttft_ms,
            p.usd_per_m_output
                .map_or_else(String::new, |usd| format!("{usd:.6}")),
            p.fits,
            p.pareto,
            curve.knee == Some(index),
            p.bound_label
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom() -> ViewState {
        let mut view = ViewState::default();
        view.scenario.model = "llama-3.1-8b".into();
        view.scenario.gpu = "a100-sxm-80gb".into();
        view.scenario.gpu_count = 2.0;
        view.scenario.precision = crate::physics::precision::Precision::Bf16;
        view.scenario.concurrency = 37.0;
        view.scenario.efficiency.eta_mem = Some(0.7);
        view.scenario.spec_decode = Some(crate::scenario::SpecMethod::Eagle);
        view.pins.push(ScenarioInput {
            gpu: "h200-sxm".into(),
            ..ScenarioInput::default()
        });
        view.chart.x = crate::present::chart::XAxis::Tpot;
        view
    }

    #[test]
    fn round_trip_reproduces_the_view() {
        let view = custom();
        let query = encode(&view);
        assert!(query.starts_with("v=2&"));
        assert!(
            !query.contains("output-len"),
            "defaults stay out of the link: {query}"
        );
        let (back, notices) = decode(&query);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, view);
        let json = to_json(&view);
        assert_eq!(from_json(&json).expect("imports"), view);
    }

    /// A custom model travels in a link; links written when it was `serde_json::to_string`
    /// (before `crate::json`) still read back to the same model.
    #[test]
    fn custom_model_links_old_and_new() {
        let mut view = ViewState::default();
        let spec = crate::catalog::catalog()
            .expect("catalog")
            .model("mixtral-8x7b")
            .cloned()
            .expect("a catalog model");
        view.scenario.model = "custom".into();
        view.scenario.custom_model = Some(spec.clone());
        let (back, notices) = decode(&encode(&view));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, view);
        assert_eq!(from_json(&to_json(&view)).expect("imports"), view);

        let old = serde_json::to_string(&spec).expect("serializes");
        let (back, notices) = decode(&format!(
            "v=1&model=custom&custom-model={}",
            percent_encode(&old)
        ));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back.scenario.custom_model, Some(spec));

        let (_, notices) = decode("custom-model=%7B%22id%22%3A1%7D");
        assert!(
            notices
                .iter()
                .any(|n| n.contains("custom-model") && n.contains("`id`")),
            "{notices:?}"
        );
    }

    /// One price basis (issue 26 §6): a link naming a GPU and no price has that GPU's catalog
    /// typical quote, as the GPU control gives it; a version-1 link keeps what it meant then
    /// (the old default $3.125), so old links open to the view they described.
    #[test]
    fn an_unstated_price_is_the_catalog_typical_except_in_old_links() {
        let b200 = crate::catalog::catalog()
            .expect("catalog")
            .gpu("b200")
            .and_then(|g| g.usd_per_gpu_hour_typical);
        assert!(b200.is_some());
        let (now, notices) = decode("v=2&gpu=b200");
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(now.scenario.usd_per_gpu_hour, b200);
        let (embed, _) = decode("embed=1&gpu=b200");
        assert_eq!(
            embed.scenario.usd_per_gpu_hour, b200,
            "an embed without a version"
        );
        let (old, notices) = decode("v=1&gpu=b200");
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(old.scenario.usd_per_gpu_hour, Some(LEGACY_UNSTATED_PRICE));
        let (old_unpriced, _) = decode("v=1&gpu=gb200");
        assert_eq!(old_unpriced.scenario.usd_per_gpu_hour, None);
        // The link of a view on b200 at its catalog price carries no price.
        assert_eq!(encode(&now), "v=2&gpu=b200");
    }

    #[test]
    fn defaults_encode_to_the_version_alone() {
        assert_eq!(encode(&ViewState::default()), "v=2");
    }

    #[test]
    fn hostile_links_never_fail_and_name_what_was_ignored() {
        for query in [
            "?gpus=abc&model=<script>alert(1)</script>&zzz=1",
            "%E0%A4%A",
            "v=99&tp=3",
            "input-len=-5&pin=gpu:%ZZ",
            "&&&=&=",
            &"a".repeat(MAX_QUERY_LEN + 1),
            "custom-model=%7B%22bad%22%3A1%7D",
        ] {
            let (view, notices) = decode(query);
            let mut notices = notices;
            let sanitized = sanitize(view.scenario, &mut notices);
            assert!(sanitized.is_some(), "{query}");
            assert!(!notices.is_empty(), "{query} should produce a notice");
        }
        let (_, notices) = decode("gpus=abc");
        assert!(notices.iter().any(|n| n.contains("gpus")));
    }

    #[test]
    fn sanitize_drops_only_the_bad_field() {
        let (view, mut notices) = decode("gpus=8&tp=3&model=llama-3.1-8b");
        let (input, scenario) = sanitize(view.scenario, &mut notices).expect("valid");
        assert_eq!(input.model, "llama-3.1-8b");
        assert!(input.tp.is_none());
        assert_eq!(scenario.gpu_count, 8);
        assert!(notices.iter().any(|n| n.starts_with("ignored tp")));
    }

    #[test]
    fn json_import_names_bad_fields() {
        assert!(from_json(r#"{"gpus": "lots"}"#)
            .unwrap_err()
            .contains("gpus"));
        assert!(from_json(r#"{"input-len": -4}"#)
            .unwrap_err()
            .contains("input-len"));
        assert!(from_json(r#"{"nope": 1}"#).unwrap_err().contains("nope"));
        assert!(from_json("[1]").unwrap_err().contains("object"));
    }

    #[test]
    fn csv_has_assumptions_header_and_rows() {
        let scenario = Scenario::default_scenario().expect("valid");
        let point = crate::model::evaluate(&scenario);
        let curve = crate::model::sweep(&scenario);
        let csv = curve_csv(&scenario, &point, &curve, "0.1.0");
        assert!(csv.starts_with("# servecost 0.1.0"));
        assert!(csv.contains("# Hardware: 8 × NVIDIA H100"));
        assert!(csv.contains("# Expected error (dense/nvidia/"), "{csv}");
        assert_eq!(
            csv.lines().filter(|l| !l.starts_with('#')).count(),
            curve.points.len() + 1
        );
    }

    /// Without a price the cost column is empty (never a made-up number) and the assumptions
    /// say why; every other column is as with a price.
    #[test]
    fn csv_without_a_price_leaves_the_cost_column_empty() {
        let scenario = Scenario::try_from(crate::scenario::ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..crate::scenario::ScenarioInput::default()
        })
        .expect("valid without a price");
        let point = crate::model::evaluate(&scenario);
        let curve = crate::model::sweep(&scenario);
        let csv = curve_csv(&scenario, &point, &curve, "0.1.0");
        assert!(csv.contains("# Price: none"), "{csv}");
        assert!(
            csv.contains("# Note: no rental price for NVIDIA GB200"),
            "{csv}"
        );
        let rows: Vec<&str> = csv
            .lines()
            .filter(|l| !l.starts_with('#'))
            .skip(1)
            .collect();
        assert_eq!(rows.len(), curve.points.len());
        for row in rows {
            let cells: Vec<&str> = row.split(',').collect();
            assert_eq!(cells.len(), 11, "{row}");
            assert_eq!(cells[6], "", "usd_per_m_output: {row}");
            assert!(
                cells[2].parse::<f64>().expect("tok/s per GPU") > 0.0,
                "{row}"
            );
        }
    }
}
