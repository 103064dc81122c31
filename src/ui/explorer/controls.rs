//! The scenario controls: model, GPU, GPU count, tensor parallelism, precisions, lengths and
//! price. Each is a labelled `<select>` or text box whose id is the scenario field's name
//! (`#input-len` ↔ `input-len`), so validation errors point at the right control.
//!
//! Text boxes are `type=text` with a numeric keyboard hint rather than `type=number`: the page,
//! not the browser, decides what is a number, and says so in `#input-error`.

use crate::catalog::catalog;
use crate::page::fields::{Field, FieldTexts};
use yew::prelude::*;

pub const INPUT_ERROR_ID: &str = "input-error";

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub texts: FieldTexts,
    /// The field the current error names, if any.
    pub error_field: Option<String>,
    /// What "auto" tensor parallelism resolved to.
    pub tp_hint: AttrValue,
    /// The catalog's price range for the chosen GPU.
    pub price_hint: AttrValue,
    pub on_edit: Callback<(Field, String)>,
    /// Show only these fields (the embed widget's `controls=`); `None` shows them all.
    #[prop_or_default]
    pub only: Option<Vec<Field>>,
    /// Shown under the model select (the custom model's `config.json` box, `custom_model.rs`).
    /// With it, the select offers "Custom (paste config.json)".
    #[prop_or_default]
    pub model_extra: Option<Html>,
    /// Shown first in the workload fieldset (the workload preset select, `techniques.rs`).
    #[prop_or_default]
    pub workload_extra: Option<Html>,
}

/// One labelled control with an optional hint under it.
fn labelled(field: Field, unit: Option<&str>, hint: Option<AttrValue>, control: Html) -> Html {
    let label = match unit {
        Some(unit) => format!("{} ({unit})", field.label()),
        None => field.label().to_string(),
    };
    html! {
        <div class="field">
            <label for={field.id()}>{ label }</label>
            { control }
            if let Some(hint) = hint {
                <p class="hint" id={format!("{}-hint", field.id())}>{ hint }</p>
            }
        </div>
    }
}

/// `aria-describedby` for a control: its hint and, when it is in error, the error box.
fn described_by(field: Field, has_hint: bool, invalid: bool) -> Option<AttrValue> {
    let ids: Vec<String> = [
        has_hint.then(|| format!("{}-hint", field.id())),
        invalid.then(|| INPUT_ERROR_ID.to_string()),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!ids.is_empty()).then(|| AttrValue::from(ids.join(" ")))
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let invalid = |field: Field| props.error_field.as_deref() == Some(field.id());
    let hidden = |field: Field| {
        props
            .only
            .as_ref()
            .is_some_and(|only| !only.contains(&field))
    };

    let select = |field: Field, options: Vec<(String, String)>, hint: Option<AttrValue>| -> Html {
        if hidden(field) {
            return Html::default();
        }
        let on_edit = props.on_edit.clone();
        let onchange = Callback::from(move |event: Event| {
            if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
                on_edit.emit((field, select.value()));
            }
        });
        let current = props.texts.get(field).to_string();
        let control = html! {
            <select
                id={field.id()}
                aria-invalid={invalid(field).then_some("true")}
                aria-describedby={described_by(field, hint.is_some(), invalid(field))}
                {onchange}
            >
                { for options.into_iter().map(|(value, label)| {
                    let selected = value == current;
                    html! { <option {value} {selected}>{ label }</option> }
                }) }
            </select>
        };
        labelled(field, None, hint, control)
    };

    let text =
        |field: Field, unit: Option<&str>, mode: &'static str, hint: Option<AttrValue>| -> Html {
            if hidden(field) {
                return Html::default();
            }
            let on_edit = props.on_edit.clone();
            let oninput = Callback::from(move |event: InputEvent| {
                if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                    on_edit.emit((field, input.value()));
                }
            });
            let control = html! {
                <input
                    type="text"
                    id={field.id()}
                    inputmode={mode}
                    autocomplete="off"
                    spellcheck="false"
                    value={props.texts.get(field).to_string()}
                    aria-invalid={invalid(field).then_some("true")}
                    aria-describedby={described_by(field, hint.is_some(), invalid(field))}
                    {oninput}
                />
            };
            labelled(field, unit, hint, control)
        };

    let (models, gpus) = match catalog() {
        Ok(cat) => (
            cat.models
                .iter()
                .map(|m| (m.id.clone(), m.name.clone()))
                .collect(),
            cat.gpus
                .iter()
                .map(|g| {
                    let label = if g.missing_spec().is_some() {
                        format!("{} (spec incomplete)", g.name)
                    } else {
                        g.name.clone()
                    };
                    (g.id.clone(), label)
                })
                .collect(),
        ),
        Err(_) => (Vec::new(), Vec::new()),
    };
    let mut models: Vec<(String, String)> = models;
    if props.model_extra.is_some() {
        models.push((
            crate::page::knobs::CUSTOM_MODEL_VALUE.to_string(),
            "Custom (paste config.json)".to_string(),
        ));
    }
    let pairs = |items: &[(&str, &str)]| -> Vec<(String, String)> {
        items
            .iter()
            .map(|(value, label)| (value.to_string(), label.to_string()))
            .collect()
    };
    let tp_options = std::iter::once(("auto".to_string(), "auto".to_string()))
        .chain(
            (0..=6)
                .map(|k| (1u32 << k).to_string())
                .map(|n| (n.clone(), n)),
        )
        .collect();

    html! {
        <form class="controls" aria-label="Scenario" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <fieldset>
                <legend>{ "Model" }</legend>
                { select(Field::Model, models, None) }
                { props.model_extra.clone().unwrap_or_default() }
                { select(Field::Precision, pairs(&[("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "FP4"), ("int4", "INT4 (weight-only)")]), None) }
                { select(Field::KvPrecision, pairs(&[("bf16", "BF16"), ("fp8", "FP8")]), None) }
            </fieldset>
            <fieldset>
                <legend>{ "Hardware" }</legend>
                { select(Field::Gpu, gpus, None) }
                { text(Field::GpuCount, None, "numeric", None) }
                { select(Field::Tp, tp_options, Some(props.tp_hint.clone())) }
                { text(Field::UsdPerGpuHour, Some("$"), "decimal", Some(props.price_hint.clone())) }
            </fieldset>
            <fieldset>
                <legend>{ "Workload (mean lengths)" }</legend>
                { props.workload_extra.clone().unwrap_or_default() }
                { text(Field::InputLen, Some("tokens"), "numeric", None) }
                { text(Field::OutputLen, Some("tokens"), "numeric", None) }
            </fieldset>
        </form>
    }
}
