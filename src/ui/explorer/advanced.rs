//! The "Advanced" panel (a collapsible `<details>`): the engine limit and every efficiency knob
//! of the step-time model (MODEL.md §8's calibration knobs), each showing the default for the
//! chosen GPU's family as its placeholder and hint, with its plausible range; plus the
//! ideal-roofline switch (η = 1, p = ∞, no fixed overheads: an upper bound, MODEL.md §2.1).
//!
//! An empty box keeps the default. A value outside the range is an error naming the knob and
//! the range (`Scenario::try_from`), and the last good view stays.

use crate::catalog::catalog;
use crate::choice::Choice;
use crate::page::fields::Texts;
use crate::page::knobs::{set_by_ideal_roofline, KnobAction, Knobs};
use crate::physics::efficiency::Efficiency;
use crate::scenario::fields::{efficiency_knobs, Field, MAX_NUM_SEQS};
use crate::ui::widgets::field_control::FieldContext;
use yew::prelude::*;

pub const ADVANCED_ID: &str = "advanced";
pub const IDEAL_ROOFLINE_ID: &str = "ideal-roofline";

#[derive(Properties, PartialEq)]
pub struct AdvancedProps {
    pub knobs: Knobs,
    pub texts: Texts,
    /// The GPU control's text (its vendor picks the defaults).
    pub gpu: AttrValue,
    /// The engine field's text: the profile the defaults come from.
    pub engine: AttrValue,
    pub deployment: AttrValue,
    pub error_field: Option<String>,
    pub on_knob: Callback<KnobAction>,
    pub on_edit: Callback<(&'static Field, String)>,
}

/// `0.75`, `15`, `∞`: a knob value as a placeholder shows it.
fn shown(value: f64) -> String {
    if value.is_infinite() {
        "∞".into()
    } else {
        format!("{value}")
    }
}

/// What the ideal roofline sets a knob to.
fn ideal_value(knob: &Field) -> Option<f64> {
    let ideal = Efficiency::NVIDIA_DATACENTER.ideal_roofline();
    knob.efficiency.map(|value_of| value_of(&ideal))
}

#[function_component(Advanced)]
pub fn advanced(props: &AdvancedProps) -> Html {
    let knobs = &props.knobs;
    let context = FieldContext {
        error_field: props.error_field.clone(),
        on_edit: props.on_edit.clone(),
    };
    let texts = &props.texts;
    let vendor = catalog()
        .ok()
        .and_then(|c| c.gpu(props.gpu.trim()))
        .map(|g| g.vendor.clone())
        .unwrap_or_else(|| "nvidia".into());
    let deployment =
        crate::physics::engine::Deployment::parse(&props.deployment).unwrap_or_default();
    let profile = crate::physics::engine::resolve(props.engine.trim(), &vendor, deployment);
    let defaults = Efficiency::of_profile(profile.knobs);
    let family = profile.describe();
    let on_ideal = {
        let on_knob = props.on_knob.clone();
        Callback::from(move |event: Event| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                on_knob.emit(KnobAction::IdealRoofline(input.checked()));
            }
        })
    };
    let ideal = knobs.ideal_roofline;
    html! {
        <details class="advanced" id={ADVANCED_ID}>
            <summary>{ "Advanced: engine limit and efficiency knobs" }</summary>
            <p class="hint">{ format!("{family}. Leave a box empty to keep its default.") }</p>
            <div class="field field-check">
                <input type="checkbox" id={IDEAL_ROOFLINE_ID} checked={ideal} onchange={on_ideal}
                    aria-describedby="ideal-roofline-hint" />
                <label for={IDEAL_ROOFLINE_ID}>{ "Ideal roofline" }</label>
                <p class="hint" id="ideal-roofline-hint">{ "η = 1, p = ∞, no fixed overheads: an upper bound on throughput, not a prediction" }</p>
            </div>
            { context.text(&MAX_NUM_SEQS, texts.get(&MAX_NUM_SEQS), None, false,
                Some(Html::from("Engine limit (vLLM max_num_seqs): the slider's right end"))) }
            { for efficiency_knobs().map(|knob| {
                let default = knob.efficiency.map_or(f64::NAN, |value_of| value_of(&defaults));
                let (min, max) = knob.range.unwrap_or((f64::NAN, f64::NAN));
                let overridden = ideal && set_by_ideal_roofline(knob);
                let placeholder = match (overridden, ideal_value(knob)) {
                    (true, Some(value)) => format!("ideal {}", shown(value)),
                    _ => format!("default {}", shown(default)),
                };
                let hint = format!("default {} · range {}–{}", shown(default), shown(min), shown(max));
                let text = if overridden { "" } else { texts.get(knob) };
                context.text(knob, text, Some(placeholder), overridden, Some(Html::from(hint)))
            }) }
        </details>
    }
}
