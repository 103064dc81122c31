//! Pinned scenarios: pinning the current scenario (at most `MAX_PINS`), unpinning, how a pin is
//! named, and the text the pins are remembered as across reloads (the page's JSON export format,
//! `share::to_json`, only the values that differ from defaults; `ui::tools::pins` stores it).
//!
//! The pins themselves live in `State::pins` (they also travel in links, `share.rs`). Saved
//! pins are read back only when the page did not open from a link, so a shared link shows
//! exactly what it holds. A saved entry that cannot be read is ignored with a notice; a pin that
//! no longer validates is dropped and named.

use crate::catalog::catalog;
use crate::choice::Choice;
use crate::json::{self, Value};
use crate::page::state::State;
use crate::scenario::ScenarioInput;
use crate::share::{self, ViewState, MAX_PINS};

/// `localStorage` key of the pins.
pub const PINS_STORAGE_KEY: &str = "servecost.pins.v1";
/// Saved text longer than this is not ours (four scenarios are a few kilobytes).
const MAX_SAVED_LEN: usize = 64 * 1024;

/// What can happen to the pins.
#[derive(Debug, Clone, PartialEq)]
pub enum PinAction {
    /// Pin the current (last good) scenario.
    PinCurrent,
    Unpin(usize),
    /// Saved pins read back at start-up; ignored if the page already has pins.
    Restore(Vec<ScenarioInput>),
}

impl State {
    /// The scenario the Pin button would pin, or why it cannot.
    pub fn pin_candidate(&self) -> Result<ScenarioInput, String> {
        let view = self
            .view
            .as_ref()
            .ok_or("there is no valid scenario to pin")?;
        let input = view.scenario.input.clone();
        if self.pins.contains(&input) {
            return Err("this scenario is already pinned".into());
        }
        if self.pins.len() >= MAX_PINS {
            return Err(format!(
                "at most {MAX_PINS} scenarios can be pinned; unpin one first"
            ));
        }
        Ok(input)
    }

    /// Apply a pin action; `None` when nothing changes.
    pub fn apply_pins(&self, action: PinAction) -> Option<State> {
        let mut next = self.clone();
        match action {
            PinAction::PinCurrent => next.pins.push(self.pin_candidate().ok()?),
            PinAction::Unpin(index) => {
                if index >= next.pins.len() {
                    return None;
                }
                next.pins.remove(index);
            }
            PinAction::Restore(pins) => {
                if !self.pins.is_empty() || pins.is_empty() {
                    return None;
                }
                next.pins = pins.into_iter().take(MAX_PINS).collect();
            }
        }
        Some(next)
    }
}

/// "Llama 3.1 70B · 8× H100 SXM · FP8".
pub fn pin_label(input: &ScenarioInput) -> String {
    let cat = catalog().ok();
    let model = match &input.custom_model {
        Some(custom) if input.model == "custom" => custom.name.clone(),
        _ => cat
            .and_then(|c| c.model(&input.model))
            .map_or_else(|| input.model.clone(), |m| m.name.clone()),
    };
    let gpu = cat
        .and_then(|c| c.gpu(&input.gpu))
        .map_or_else(|| input.gpu.clone(), |g| g.name.clone());
    format!(
        "{model} · {}× {gpu} · {}",
        input.gpu_count,
        input.precision.id().to_ascii_uppercase()
    )
}

/// A scenario's name beside `first` (the current scenario) in a comparison — pins, the Compare
/// rows, the report's pinned section — by what differs from it (issue 28 §4): "TP 1 × EP 8 (DEP
/// 8)", "FP4", "Input length 8000 tokens", the model and GPUs only when they differ. Two pins of
/// one model on one server otherwise read alike ("DeepSeek-R1 · 8× B200 · FP8" twice). Falls back
/// to `pin_label` when nothing the table lists differs.
pub fn label_against(first: &ScenarioInput, input: &ScenarioInput) -> String {
    use crate::scenario::fields::{
        Inputs, CONCURRENCY, CUSTOM_MODEL, DP_ATTENTION, EP, FIELDS, GPU, GPUS, MODEL, PP,
        PRECISION, TP,
    };
    let inputs = |scenario: &ScenarioInput| Inputs {
        scenario: scenario.clone(),
        ..Inputs::default()
    };
    let (a, b) = (inputs(first), inputs(input));
    let differs = |field: &crate::scenario::fields::Field| field.get(&a) != field.get(&b);
    let mut parts = Vec::new();
    let full = pin_label(input);
    let mut base = full.split(" · ");
    let (model, gpus, precision) = (base.next(), base.next(), base.next());
    if differs(&MODEL) || differs(&CUSTOM_MODEL) {
        parts.extend(model.map(str::to_string));
    }
    if differs(&GPU) || differs(&GPUS) {
        parts.extend(gpus.map(str::to_string));
    }
    if differs(&PRECISION) {
        parts.extend(precision.map(str::to_string));
    }
    let layout_fields = [&TP, &EP, &DP_ATTENTION, &PP];
    if layout_fields.iter().any(|f| differs(f)) {
        let layout = crate::scenario::Scenario::try_from(input.clone()).map(|s| s.par);
        parts.push(match layout {
            Ok(par) if par.dp > 1 && par.tp == 1 && par.ep == par.dp => {
                format!("TP 1 × EP {} (DEP {})", par.ep, par.dp)
            }
            Ok(par) => crate::decide::leaderboard::layout_name(par),
            Err(_) => "another layout".into(),
        });
    }
    // The batch size is left out: a comparison judges each scenario at its own best point, and a
    // name must not change while the slider moves.
    let named = [
        &CONCURRENCY,
        &MODEL,
        &CUSTOM_MODEL,
        &GPU,
        &GPUS,
        &PRECISION,
        &TP,
        &EP,
        &DP_ATTENTION,
        &PP,
    ];
    for field in FIELDS.iter() {
        if field.derived || named.contains(field) || !differs(field) {
            continue;
        }
        let value = field.get(&b);
        let value = field
            .choices
            .iter()
            .find(|(id, _)| *id == value)
            .map_or(value.clone(), |(_, label)| (*label).to_string());
        let value = if value.is_empty() {
            "auto".to_string()
        } else {
            value
        };
        parts.push(if field.unit.is_empty() {
            format!("{} {value}", field.label)
        } else {
            format!("{} {value} {}", field.label, field.unit)
        });
    }
    if parts.is_empty() {
        full
    } else {
        parts.join(" · ")
    }
}

/// The pins as saved: the page's JSON export format (`share::to_json`) holding only the pins.
pub fn pins_to_json(pins: &[ScenarioInput]) -> String {
    share::to_json(&ViewState {
        pins: pins.to_vec(),
        ..ViewState::default()
    })
}

/// Read saved pins: the valid ones (at most `MAX_PINS`) and, if anything was ignored, a notice
/// saying what. Each pin is read on its own (`share::from_json`), so one bad pin does not cost
/// the others. Never fails.
pub fn pins_from_json(text: &str) -> (Vec<ScenarioInput>, Option<String>) {
    let unreadable = |why: String| {
        (
            Vec::new(),
            Some(format!(
                "Saved pins could not be read and were ignored ({why})."
            )),
        )
    };
    if text.len() > MAX_SAVED_LEN {
        return unreadable("the saved entry is too long".into());
    }
    let items = match json::parse(text) {
        Ok(object @ Value::Object(_)) => match object.get("pins") {
            Some(Value::Array(items)) => items.clone(),
            None => Vec::new(),
            Some(_) => return unreadable("`pins` is not a list".into()),
        },
        Ok(_) => return unreadable("not a JSON object".into()),
        Err(error) => return unreadable(format!("not valid JSON: {error}")),
    };
    let mut pins = Vec::new();
    let mut dropped = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let one = Value::object([("pins", Value::Array(vec![item]))]);
        let pin = share::from_json(&one.to_json())
            .and_then(|view| view.pins.into_iter().next().ok_or_else(String::new));
        match pin {
            Ok(input) if pins.len() < MAX_PINS && !pins.contains(&input) => pins.push(input),
            Ok(_) => dropped.push(format!(
                "pin {} (more than {MAX_PINS} or a repeat)",
                index + 1
            )),
            Err(why) => dropped.push(format!("pin {} ({why})", index + 1)),
        }
    }
    let notice = (!dropped.is_empty())
        .then(|| format!("Some saved pins were ignored: {}.", dropped.join("; ")));
    (pins, notice)
}
