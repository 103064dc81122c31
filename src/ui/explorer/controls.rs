//! The scenario controls: model, GPU, GPU count, parallelism (TP, EP, attention DP, PP, EPLB's
//! redundant experts), precisions, lengths and price, each a `FieldContext` control of the field
//! table (`#input-len` ↔ `input-len`), so validation errors point at the right control.

use crate::catalog::catalog;
use crate::page::fields::Texts;
use crate::scenario::fields::{
    Field, CUSTOM_MODEL_VALUE, DEPLOYMENT, DP_ATTENTION, ENGINE, EP, EPLB_REDUNDANT_EXPERTS, GPU,
    GPUS, INPUT_LEN, KV_PRECISION, MODEL, OUTPUT_LEN, PP, PRECISION, TP, USD_PER_GPU_HOUR,
};
use crate::ui::widgets::field_control::FieldContext;
pub use crate::ui::widgets::field_control::INPUT_ERROR_ID;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub texts: Texts,
    /// The field the current error names, if any.
    pub error_field: Option<String>,
    /// What "auto" tensor parallelism resolved to.
    pub tp_hint: AttrValue,
    /// What the validated layout means ("DEP 8: 8 attention ranks, experts over 8 GPUs"); empty
    /// for plain TP.
    #[prop_or_default]
    pub parallelism_hint: AttrValue,
    /// What the engine profile rests on (`engine::Resolved::describe`).
    pub engine_hint: AttrValue,
    /// The catalog's price range for the chosen GPU.
    pub price_hint: AttrValue,
    pub on_edit: Callback<(&'static Field, String)>,
    /// Show only these fields (the embed widget's `controls=`); `None` shows them all.
    #[prop_or_default]
    pub only: Option<Vec<&'static Field>>,
    /// Shown under the model select (the custom model's `config.json` box, `custom_model.rs`).
    /// With it, the select offers "Custom (paste config.json)".
    #[prop_or_default]
    pub model_extra: Option<Html>,
    /// Shown first in the workload fieldset (the workload preset select, `techniques.rs`).
    #[prop_or_default]
    pub workload_extra: Option<Html>,
}

/// The model select's options: the catalog's models (and "custom" when a paste box is offered).
pub fn model_options(with_custom: bool) -> Vec<(String, String)> {
    let mut models: Vec<(String, String)> = catalog()
        .map(|cat| {
            cat.models
                .iter()
                .map(|m| (m.id.clone(), m.name.clone()))
                .collect()
        })
        .unwrap_or_default();
    if with_custom {
        models.push((
            CUSTOM_MODEL_VALUE.to_string(),
            "Custom (paste config.json)".to_string(),
        ));
    }
    models
}

/// The GPU select's options: the catalog's GPUs, marked when their spec is incomplete.
pub fn gpu_options() -> Vec<(String, String)> {
    catalog()
        .map(|cat| {
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
                .collect()
        })
        .unwrap_or_default()
}

/// The TP select's options: auto, then powers of two up to 64.
pub fn tp_options() -> Vec<(String, String)> {
    std::iter::once(("auto".to_string(), "auto".to_string()))
        .chain(
            (0..=6)
                .map(|k| (1u32 << k).to_string())
                .map(|n| (n.clone(), n)),
        )
        .collect()
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let context = FieldContext {
        error_field: props.error_field.clone(),
        on_edit: props.on_edit.clone(),
    };
    let shown = |field: &Field| props.only.as_ref().is_none_or(|only| only.contains(&field));
    let select =
        |field: &'static Field, options: Option<Vec<(String, String)>>, hint: Option<Html>| {
            if !shown(field) {
                return Html::default();
            }
            let text = props.texts.get(field);
            let current = if text.is_empty() && field.optional {
                "auto"
            } else {
                text
            };
            context.select(field, current, options, hint)
        };
    let text = |field: &'static Field, hint: Option<Html>| {
        if !shown(field) {
            return Html::default();
        }
        context.text(field, props.texts.get(field), None, false, hint)
    };
    // An optional degree: empty shows "auto" (the scenario resolves it).
    let degree = |field: &'static Field, hint: Option<Html>| {
        if !shown(field) {
            return Html::default();
        }
        context.text(
            field,
            props.texts.get(field),
            Some("auto".into()),
            false,
            hint,
        )
    };
    let parallelism_hint = (!props.parallelism_hint.is_empty())
        .then(|| Html::from(props.parallelism_hint.to_string()));
    html! {
        <form class="controls" aria-label="Scenario" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <fieldset>
                <legend>{ "Model" }</legend>
                { select(&MODEL, Some(model_options(props.model_extra.is_some())), None) }
                { props.model_extra.clone().unwrap_or_default() }
                { select(&PRECISION, None, None) }
                { select(&KV_PRECISION, None, None) }
            </fieldset>
            <fieldset>
                <legend>{ "Hardware" }</legend>
                { select(&GPU, Some(gpu_options()), None) }
                { text(&GPUS, None) }
                { select(&ENGINE, None, Some(Html::from(props.engine_hint.to_string()))) }
                { select(&DEPLOYMENT, None, None) }
                { select(&TP, Some(tp_options()), Some(Html::from(props.tp_hint.to_string()))) }
                { degree(&EP, None) }
                { degree(&DP_ATTENTION, parallelism_hint) }
                { degree(&PP, None) }
                { text(&EPLB_REDUNDANT_EXPERTS, None) }
                { text(&USD_PER_GPU_HOUR, Some(Html::from(props.price_hint.to_string()))) }
            </fieldset>
            <fieldset>
                <legend>{ "Workload (mean lengths)" }</legend>
                { props.workload_extra.clone().unwrap_or_default() }
                { text(&INPUT_LEN, None) }
                { text(&OUTPUT_LEN, None) }
            </fieldset>
        </form>
    }
}
