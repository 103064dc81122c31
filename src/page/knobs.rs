//! The scenario inputs beyond the basic controls: serving techniques (batching, KV allocation,
//! chunked prefill, speculative decoding, prefix caching), the length distribution, the engine
//! limit and the efficiency knobs of the advanced panel, plus the "ideal roofline" switch and a
//! custom model pasted as a Hugging Face `config.json`.
//!
//! Like `fields.rs` for the basic controls, the texts here are the source of truth for their
//! `ScenarioInput` fields: every rebuild re-parses all of them (`Knobs::apply`), so a bad value
//! stays an error until fixed. An empty optional field means "the default" (the GPU family's
//! efficiency, the speculative method's preset). Ids are the scenario's kebab-case field names,
//! so `Scenario::try_from`'s errors land on the right control.
//!
//! The ideal-roofline switch is a page flag, not a scenario field: `f64::INFINITY` (the blend
//! exponent it needs) cannot travel in a URL, so `effective` applies it only to the scenario
//! that is evaluated.

use crate::catalog::{parse_hf_config, ModelSpec};
use crate::model::efficiency::Efficiency;
use crate::page::fields::{number_text, Field, FieldTexts, InputError};
pub use crate::page::knob::{Knob, KnobKind};
use crate::scenario::{ScenarioInput, WORKLOAD_PRESETS};
use std::collections::BTreeMap;

/// The label for an error's field id: a knob's label, the custom model's, or `None`.
pub fn label_for_field(id: &str) -> Option<String> {
    if let Some(knob) = Knob::from_id(id) {
        return Some(knob.label().to_string());
    }
    if id == CUSTOM_MODEL_ID {
        return Some("Custom model (config.json)".into());
    }
    id.strip_prefix("custom-model.")
        .map(|key| format!("Custom model `{key}`"))
}

/// Id of the pasted `config.json` text area (and the field its errors name).
pub const CUSTOM_MODEL_ID: &str = "custom-model";
/// The model select's value for a pasted model.
pub const CUSTOM_MODEL_VALUE: &str = "custom";

fn optional_text(value: Option<f64>) -> String {
    value.map_or_else(String::new, number_text)
}

/// A workload preset as the `#workload` control offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkloadChoice {
    pub id: &'static str,
    pub label: &'static str,
}

/// The `#workload` options: the scenario presets, "uniform (synthetic)" and "custom".
pub fn workload_choices() -> Vec<WorkloadChoice> {
    WORKLOAD_PRESETS
        .iter()
        .map(|p| WorkloadChoice {
            id: p.id,
            label: p.label,
        })
        .chain([
            WorkloadChoice {
                id: UNIFORM_WORKLOAD,
                label: "Uniform (synthetic): fixed lengths",
            },
            WorkloadChoice {
                id: CUSTOM_WORKLOAD,
                label: "Custom (as typed)",
            },
        ])
        .collect()
}

/// `#workload` values that are not scenario presets.
pub const UNIFORM_WORKLOAD: &str = "uniform";
pub const CUSTOM_WORKLOAD: &str = "custom";

/// Everything the knob controls hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Knobs {
    texts: BTreeMap<Knob, String>,
    /// Evaluate with η = 1, p = ∞ and no fixed overheads (an upper bound, MODEL.md §2.1).
    pub ideal_roofline: bool,
    /// The pasted `config.json`, as typed.
    pub custom_text: String,
    /// The model the pasted text (or a link) describes.
    pub custom_model: Option<ModelSpec>,
    /// Why the pasted text is not a model (the parser's message, naming the key).
    pub custom_error: Option<String>,
}

/// What a knob control can do.
#[derive(Debug, Clone, PartialEq)]
pub enum KnobAction {
    Edit(Knob, String),
    /// Choose a `#workload` option: sets lengths, spreads and the distribution.
    Workload(String),
    IdealRoofline(bool),
    /// The `config.json` text changed.
    CustomConfig(String),
}

impl Knobs {
    /// The controls' texts for an input (a link, an import, the defaults).
    pub fn from_input(input: &ScenarioInput) -> Knobs {
        let e = &input.efficiency;
        let texts = Knob::ALL
            .into_iter()
            .map(|knob| {
                let text = match knob {
                    Knob::Batching => input.batching.clone(),
                    Knob::KvAlloc => input.kv_alloc.clone(),
                    Knob::ChunkTokens => number_text(input.chunk_tokens),
                    Knob::SpecDecode => input.spec_decode.clone(),
                    Knob::SpecAccept => optional_text(input.spec_accept),
                    Knob::SpecLen => optional_text(input.spec_len),
                    Knob::SpecDraftCost => optional_text(input.spec_draft_cost),
                    Knob::PrefixHit => number_text(input.prefix_hit),
                    Knob::LengthDist => input.length_dist.clone(),
                    Knob::InputSigma => number_text(input.input_sigma),
                    Knob::OutputSigma => number_text(input.output_sigma),
                    Knob::MaxNumSeqs => number_text(input.max_num_seqs),
                    Knob::EtaMem => optional_text(e.eta_mem),
                    Knob::EtaCompute => optional_text(e.eta_compute),
                    Knob::BlendP => optional_text(e.blend_p),
                    Knob::LayerOverheadUs => optional_text(e.layer_overhead_us),
                    Knob::StepOverheadMs => optional_text(e.step_overhead_ms),
                    Knob::AllreduceLatencyUs => optional_text(e.allreduce_latency_us),
                    Knob::LinkEfficiency => optional_text(e.link_efficiency),
                    Knob::MemUtilization => optional_text(e.mem_utilization),
                    Knob::ReservedGb => optional_text(e.reserved_gb),
                    Knob::DequantFactor => optional_text(e.dequant_factor),
                    Knob::CausalFactor => optional_text(e.causal_factor),
                    Knob::MoeImbalance => optional_text(e.moe_imbalance),
                };
                (knob, text)
            })
            .collect();
        Knobs {
            texts,
            custom_model: input.custom_model.clone(),
            ..Knobs::default()
        }
    }

    pub fn text(&self, knob: Knob) -> &str {
        self.texts.get(&knob).map_or("", String::as_str)
    }

    fn set(&mut self, knob: Knob, text: String) {
        self.texts.insert(knob, text);
    }

    /// Apply an action; `None` when nothing changed, else the knob edited (if one was).
    /// A workload choice also rewrites the length texts of the basic controls.
    pub fn update(&mut self, action: KnobAction, texts: &mut FieldTexts) -> Option<Option<Knob>> {
        match action {
            KnobAction::Edit(knob, text) => {
                if self.text(knob) == text {
                    return None;
                }
                self.set(knob, text);
                Some(Some(knob))
            }
            KnobAction::Workload(id) => {
                let id = id.trim();
                if id == UNIFORM_WORKLOAD {
                    self.set(Knob::LengthDist, "fixed".into());
                    return Some(Some(Knob::LengthDist));
                }
                let preset = WORKLOAD_PRESETS.iter().find(|p| p.id == id)?;
                texts.set(Field::InputLen, number_text(preset.input_len));
                texts.set(Field::OutputLen, number_text(preset.output_len));
                self.set(Knob::InputSigma, number_text(preset.input_sigma));
                self.set(Knob::OutputSigma, number_text(preset.output_sigma));
                self.set(Knob::LengthDist, "lognormal".into());
                Some(None)
            }
            KnobAction::IdealRoofline(on) => {
                if self.ideal_roofline == on {
                    return None;
                }
                self.ideal_roofline = on;
                Some(None)
            }
            KnobAction::CustomConfig(text) => {
                if self.custom_text == text {
                    return None;
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
                Some(None)
            }
        }
    }

    /// The `#workload` value the current texts match: a preset whose means and spreads they
    /// equal, "uniform" for fixed lengths, else "custom".
    pub fn workload(&self, texts: &FieldTexts) -> &'static str {
        if self.text(Knob::LengthDist).trim() == "fixed" {
            return UNIFORM_WORKLOAD;
        }
        let number = |text: &str| text.trim().parse::<f64>().ok();
        let current = (
            number(&texts.input_len),
            number(&texts.output_len),
            number(self.text(Knob::InputSigma)),
            number(self.text(Knob::OutputSigma)),
        );
        WORKLOAD_PRESETS
            .iter()
            .find(|p| {
                current
                    == (
                        Some(p.input_len),
                        Some(p.output_len),
                        Some(p.input_sigma),
                        Some(p.output_sigma),
                    )
            })
            .map_or(CUSTOM_WORKLOAD, |p| p.id)
    }

    /// The knob fields of `input` set from the texts; the first unparseable field is the error,
    /// preferring `edited`. The custom model comes along when the model control says `custom`.
    pub fn apply(
        &self,
        mut input: ScenarioInput,
        edited: Option<Knob>,
    ) -> Result<ScenarioInput, InputError> {
        let order = edited
            .into_iter()
            .chain(Knob::ALL.into_iter().filter(|k| Some(*k) != edited));
        let mut first_error = None;
        for knob in order {
            if let Err(error) = self.apply_one(&mut input, knob) {
                first_error.get_or_insert(error);
            }
        }
        if input.model.trim() == CUSTOM_MODEL_VALUE {
            match (&self.custom_error, &self.custom_model) {
                (Some(message), _) => {
                    first_error.get_or_insert(InputError {
                        field: CUSTOM_MODEL_ID.into(),
                        message: message.clone(),
                    });
                }
                (None, model) => input.custom_model = model.clone(),
            }
        } else {
            input.custom_model = None;
        }
        match first_error {
            Some(error) => Err(error),
            None => Ok(input),
        }
    }

    fn apply_one(&self, input: &mut ScenarioInput, knob: Knob) -> Result<(), InputError> {
        let text = self.text(knob).trim();
        let error = |message: String| InputError {
            field: knob.id().into(),
            message,
        };
        let number = || -> Result<f64, InputError> {
            if text.is_empty() {
                return Err(error("enter a number".into()));
            }
            text.parse::<f64>()
                .map_err(|_| error(format!("“{text}” is not a number")))
        };
        let optional = || -> Result<Option<f64>, InputError> {
            if text.is_empty() {
                Ok(None)
            } else {
                number().map(Some)
            }
        };
        let e = &mut input.efficiency;
        match knob {
            Knob::Batching => input.batching = text.into(),
            Knob::KvAlloc => input.kv_alloc = text.into(),
            Knob::SpecDecode => input.spec_decode = text.into(),
            Knob::LengthDist => input.length_dist = text.into(),
            Knob::ChunkTokens => input.chunk_tokens = number()?,
            Knob::PrefixHit => input.prefix_hit = number()?,
            Knob::InputSigma => input.input_sigma = number()?,
            Knob::OutputSigma => input.output_sigma = number()?,
            Knob::MaxNumSeqs => input.max_num_seqs = number()?,
            Knob::SpecAccept => input.spec_accept = optional()?,
            Knob::SpecLen => input.spec_len = optional()?,
            Knob::SpecDraftCost => input.spec_draft_cost = optional()?,
            Knob::EtaMem => e.eta_mem = optional()?,
            Knob::EtaCompute => e.eta_compute = optional()?,
            Knob::BlendP => e.blend_p = optional()?,
            Knob::LayerOverheadUs => e.layer_overhead_us = optional()?,
            Knob::StepOverheadMs => e.step_overhead_ms = optional()?,
            Knob::AllreduceLatencyUs => e.allreduce_latency_us = optional()?,
            Knob::LinkEfficiency => e.link_efficiency = optional()?,
            Knob::MemUtilization => e.mem_utilization = optional()?,
            Knob::ReservedGb => e.reserved_gb = optional()?,
            Knob::DequantFactor => e.dequant_factor = optional()?,
            Knob::CausalFactor => e.causal_factor = optional()?,
            Knob::MoeImbalance => e.moe_imbalance = optional()?,
        }
        Ok(())
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
