//! The page flags and the pasted model, beside the field texts (`fields.rs`): the "ideal roofline"
//! switch, a custom model pasted as a Hugging Face `config.json`, and the layout "auto" chose for
//! the question asked (`AutoLayout`).
//!
//! The ideal-roofline switch is a page flag, not a scenario field: `f64::INFINITY` (the blend
//! exponent it needs) cannot travel in a URL, so `effective` applies it only to the scenario
//! that is evaluated.

use crate::catalog::{parse_hf_config, ModelSpec};
use crate::page::fields::InputError;
use crate::physics::efficiency::Efficiency;
use crate::scenario::fields::{Field, CUSTOM_MODEL, CUSTOM_MODEL_VALUE};
use crate::scenario::ScenarioInput;

/// The knobs the ideal-roofline switch overrides (η = 1, p = ∞, no fixed overheads): those whose
/// ideal value differs from the defaults (`Efficiency::ideal_roofline`).
pub fn set_by_ideal_roofline(field: &Field) -> bool {
    let defaults = Efficiency::NVIDIA_DATACENTER;
    let ideal = defaults.ideal_roofline();
    field
        .efficiency
        .is_some_and(|value_of| value_of(&ideal) != value_of(&defaults))
}

/// The page flags and the pasted model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Knobs {
    /// Evaluate with η = 1, p = ∞ and no fixed overheads (an upper bound, MODEL.md §2.1).
    pub ideal_roofline: bool,
    /// The pasted `config.json`, as typed.
    pub custom_text: String,
    /// The model the pasted text (or a link) describes.
    pub custom_model: Option<ModelSpec>,
    /// Why the pasted text is not a model (the parser's message, naming the key).
    pub custom_error: Option<String>,
    /// The layout "auto" chose for the SLO, traffic or target interactivity (the tools module
    /// decides it once, `page::decision_data::ScenarioDecision::layout`, and both modules apply it).
    pub auto_layout: Option<AutoLayout>,
}

/// The layout "auto" chose for the question asked (issue 26 §2): TP and EP of one replica, and
/// why ("auto chose TP 2: the cheapest meeting P90 TTFT ≤ 500 ms …"). It applies to the scenario
/// it was chosen for (`key`, `layout_key`) while that scenario leaves its layout to auto; any
/// other scenario keeps the default rule until the tools module decides for it.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoLayout {
    pub key: String,
    pub tp: u32,
    pub ep: u32,
    pub why: String,
}

/// The scenario a layout choice belongs to: its link, concurrency aside.
pub fn layout_key(input: &ScenarioInput) -> String {
    crate::share::scenario_key(&ScenarioInput {
        concurrency: 1.0,
        ..input.clone()
    })
}

impl AutoLayout {
    /// Whether the choice is for `input` and `input` leaves its layout to auto.
    pub fn applies(&self, input: &ScenarioInput) -> bool {
        input.tp.is_none()
            && input.ep.is_none()
            && input.dp_attention.is_none()
            && input.serving != crate::scenario::pools::Serving::Disaggregated
            && self.key == layout_key(input)
    }

    /// The text the tools module sends the explorer (`ui::platform::bridge::LAYOUT_EVENT`).
    pub fn encode(&self) -> String {
        format!("{}\n{}\n{}\n{}", self.key, self.tp, self.ep, self.why)
    }

    pub fn decode(text: &str) -> Option<AutoLayout> {
        let mut parts = text.splitn(4, '\n');
        let key = parts.next()?.to_string();
        let tp = parts.next()?.parse().ok().filter(|tp| *tp >= 1)?;
        let ep = parts.next()?.parse().ok().filter(|ep| *ep >= 1)?;
        let why = parts.next()?.to_string();
        Some(AutoLayout { key, tp, ep, why })
    }
}

/// What a page flag or the pasted model can do.
#[derive(Debug, Clone, PartialEq)]
pub enum KnobAction {
    IdealRoofline(bool),
    /// The `config.json` text changed.
    CustomConfig(String),
    /// The tools module chose a layout for the question asked (`None`: no target, default rule).
    AutoLayout(Option<AutoLayout>),
}

impl Knobs {
    /// The knobs for an input (a link, an import, the defaults): its custom model, flags off.
    pub fn from_input(input: &ScenarioInput) -> Knobs {
        Knobs {
            custom_model: input.custom_model.clone(),
            ..Knobs::default()
        }
    }

    /// Apply an action; `false` when nothing changed.
    pub fn update(&mut self, action: KnobAction) -> bool {
        match action {
            KnobAction::IdealRoofline(on) => {
                if self.ideal_roofline == on {
                    return false;
                }
                self.ideal_roofline = on;
                true
            }
            KnobAction::CustomConfig(text) => {
                if self.custom_text == text {
                    return false;
                }
                if text.trim().is_empty() {
                    self.custom_error = Some("paste a Hugging Face config.json".into());
                } else {
                    match parse_hf_config(&text) {
                        Ok(spec) => {
                            let name = crate::physics::architecture::name_with_size(&spec);
                            self.custom_model = Some(ModelSpec { name, ..spec });
                            self.custom_error = None;
                        }
                        Err(message) => self.custom_error = Some(message),
                    }
                }
                self.custom_text = text;
                true
            }
            KnobAction::AutoLayout(choice) => {
                if self.auto_layout == choice {
                    return false;
                }
                self.auto_layout = choice;
                true
            }
        }
    }

    /// `input` with the custom model when the model control says `custom` (or the paste's error).
    pub fn apply(&self, mut input: ScenarioInput) -> Result<ScenarioInput, InputError> {
        if input.model.trim() != CUSTOM_MODEL_VALUE {
            input.custom_model = None;
            return Ok(input);
        }
        match (&self.custom_error, &self.custom_model) {
            (Some(message), _) => Err(InputError::new(&CUSTOM_MODEL, message.clone())),
            (None, model) => {
                input.custom_model = model.clone();
                Ok(input)
            }
        }
    }

    /// The input to evaluate: `input` with the ideal-roofline overrides when the switch is on
    /// (the CLI's `--ideal-roofline`; `Efficiency::ideal_roofline`).
    pub fn effective(&self, input: &ScenarioInput) -> ScenarioInput {
        let mut input = input.clone();
        if let Some(choice) = self.auto_layout.as_ref().filter(|c| c.applies(&input)) {
            input.tp = Some(f64::from(choice.tp));
            input.ep = (choice.ep > 1).then_some(f64::from(choice.ep));
        }
        if self.ideal_roofline {
            let ideal = Efficiency::NVIDIA_DATACENTER.ideal_roofline();
            let e = &mut input.efficiency;
            e.eta_mem = Some(ideal.eta_mem);
            e.eta_compute = Some(ideal.eta_compute);
            e.blend_p = Some(ideal.blend_p);
            e.layer_overhead_us = Some(ideal.layer_overhead_us);
            e.step_overhead_ms = Some(ideal.step_overhead_ms);
            e.allreduce_latency_us = Some(ideal.allreduce_latency_us);
            e.link_efficiency = Some(ideal.link_efficiency);
        }
        input
    }
}
