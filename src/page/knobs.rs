//! The page flags and the pasted model, beside the field texts (`fields.rs`): the "ideal roofline"
//! switch and a custom model pasted as a Hugging Face `config.json`.
//!
//! The ideal-roofline switch is a page flag, not a scenario field: `f64::INFINITY` (the blend
//! exponent it needs) cannot travel in a URL, so `effective` applies it only to the scenario
//! that is evaluated.

use crate::catalog::{parse_hf_config, ModelSpec};
use crate::model::efficiency::Efficiency;
use crate::page::fields::InputError;
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
}

/// What a page flag or the pasted model can do.
#[derive(Debug, Clone, PartialEq)]
pub enum KnobAction {
    IdealRoofline(bool),
    /// The `config.json` text changed.
    CustomConfig(String),
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
                            self.custom_model = Some(spec);
                            self.custom_error = None;
                        }
                        Err(message) => self.custom_error = Some(message),
                    }
                }
                self.custom_text = text;
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
