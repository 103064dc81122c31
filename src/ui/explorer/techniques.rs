//! The serving-technique and workload-shape controls: batching policy, KV allocation, chunked
//! prefill budget, speculative decoding (method, α, γ, draft cost, with the method's presets as
//! placeholders), prefix-cache hit rate, the workload preset and the length distribution with
//! its spreads. Each technique is named with its glossary definition (hover or focus).
//!
//! Ids are the field table's keys (`scenario::fields`).

use crate::choice::Choice;
use crate::model::techniques::TechniqueStudy;
use crate::page::fields::Texts;
use crate::present::format::format_number;
use crate::present::glossary;
use crate::scenario::fields::{
    workload_of, Field, BATCHING_FIELD, CHUNK_TOKENS, CUSTOM_WORKLOAD, DECODE_GPUS, DECODE_TP,
    INPUT_SIGMA, KV_ALLOC_FIELD, LENGTH_DIST_FIELD, OUTPUT_SIGMA, PREFILL_GPUS, PREFILL_TP,
    PREFIX_HIT, SERVING, SPEC_ACCEPT, SPEC_DECODE_FIELD, SPEC_DRAFT_COST, SPEC_LEN, WORKLOAD,
};
use crate::scenario::pools::Serving;
use crate::scenario::{LengthDist, ScenarioInput, SpecMethod, WORKLOAD_PRESETS};
use crate::ui::widgets::field_control::FieldContext;
use crate::ui::widgets::glossary::Term;
use yew::prelude::*;

/// Chunked prefill (MODEL.md §4.3, Sarathi-Serve); not (yet) in the shared glossary table.
pub const CHUNKED_PREFILL: glossary::Term = glossary::Term {
    id: "chunked-prefill",
    name: "Chunked prefill",
    definition: "Long prompts are split into chunks so that each iteration carries at most the token budget (running decodes first, then prompt chunks, as in Sarathi-Serve): one long prompt no longer freezes every stream, at a small cost in TTFT.",
};

/// Static batching (MODEL.md §4.1), the baseline of the technique ladder.
pub const STATIC_BATCHING: glossary::Term = glossary::Term {
    id: "static-batching",
    name: "Static batching",
    definition: "Request-level batching: wait for a batch, pad every prompt to the longest, decode until the longest output, release the batch together. Short requests idle in their slots, so varied lengths waste most of the GPU.",
};

#[derive(Properties, PartialEq)]
pub struct TechniqueControlsProps {
    pub texts: Texts,
    pub error_field: Option<String>,
    pub on_edit: Callback<(&'static Field, String)>,
}

/// "preset 0.8": the value an empty speculative-decoding box stands for (the chosen method's
/// preset, or EAGLE's while speculation is off).
fn spec_placeholders(method: &str) -> (String, String, String) {
    let preset = match <Option<SpecMethod>>::parse(method) {
        Some(Some(method)) => method.preset(),
        _ => SpecMethod::Eagle.preset(),
    };
    (
        format!("preset {}", preset.0),
        format!("preset {}", preset.1),
        format!("preset {}", preset.2),
    )
}

#[function_component(TechniqueControls)]
pub fn technique_controls(props: &TechniqueControlsProps) -> Html {
    let texts = &props.texts;
    let context = FieldContext {
        error_field: props.error_field.clone(),
        on_edit: props.on_edit.clone(),
    };
    let spec_on = matches!(
        <Option<SpecMethod>>::parse(texts.get(&SPEC_DECODE_FIELD)),
        Some(Some(_))
    );
    let fixed = LengthDist::parse(texts.get(&LENGTH_DIST_FIELD)) == Some(LengthDist::Fixed);
    let disaggregated = Serving::parse(texts.get(&SERVING)) == Some(Serving::Disaggregated);
    let (accept, len, cost) = spec_placeholders(texts.get(&SPEC_DECODE_FIELD));
    let select = |field: &'static Field, hint: Option<Html>| {
        context.select(field, texts.get(field), None, hint)
    };
    html! {
        <div class="controls knob-controls">
            <fieldset>
                <legend>{ "Serving techniques" }</legend>
                { select(&BATCHING_FIELD,
                    Some(html! { <>
                        <Term term={glossary::CONTINUOUS_BATCHING} />{ " vs. " }
                        <Term term={STATIC_BATCHING}>{ "static" }</Term>
                    </> })) }
                { select(&KV_ALLOC_FIELD,
                    Some(html! { <><Term term={glossary::PAGED_ATTENTION} />{ ": how many requests fit" }</> })) }
                { context.text(&CHUNK_TOKENS, texts.get(&CHUNK_TOKENS), None, false,
                    Some(html! { <><Term term={CHUNKED_PREFILL} />{ ": tokens per iteration" }</> })) }
                { select(&SPEC_DECODE_FIELD,
                    Some(html! { <><Term term={glossary::SPECULATIVE_DECODING} />{ ": α, γ, c below" }</> })) }
                { context.text(&SPEC_ACCEPT, texts.get(&SPEC_ACCEPT), Some(accept), !spec_on, None) }
                { context.text(&SPEC_LEN, texts.get(&SPEC_LEN), Some(len), !spec_on, None) }
                { context.text(&SPEC_DRAFT_COST, texts.get(&SPEC_DRAFT_COST), Some(cost), !spec_on, None) }
                { context.text(&PREFIX_HIT, texts.get(&PREFIX_HIT), None, false,
                    Some(html! { <><Term term={glossary::PREFIX_CACHING} />{ ": share of prompt tokens cached, 0–0.99" }</> })) }
            </fieldset>
            <fieldset id="serving-mode">
                <legend>{ "Prefill and decode" }</legend>
                { select(&SERVING, Some(html! { <Term term={glossary::DISAGGREGATION} /> })) }
                <div class="field-row">
                    { for [&PREFILL_GPUS, &PREFILL_TP, &DECODE_GPUS, &DECODE_TP].into_iter().map(|f| {
                        context.text(f, texts.get(f), Some("auto".into()), !disaggregated, None)
                    }) }
                </div>
            </fieldset>
            <fieldset>
                <legend>{ "Length distribution" }</legend>
                { select(&LENGTH_DIST_FIELD, Some(Html::from("Fixed lengths hide the batching policies' gap"))) }
                <div class="field-row">
                    { context.text(&INPUT_SIGMA, texts.get(&INPUT_SIGMA), None, fixed, None) }
                    { context.text(&OUTPUT_SIGMA, texts.get(&OUTPUT_SIGMA), None, fixed, None) }
                </div>
            </fieldset>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct WorkloadSelectProps {
    pub texts: Texts,
    pub on_edit: Callback<(&'static Field, String)>,
}

/// The workload preset select (`#workload`): chat, code, summarize, RAG, reasoning, uniform
/// (fixed lengths) or "custom" when the typed lengths match no preset.
#[function_component(WorkloadSelect)]
pub fn workload_select(props: &WorkloadSelectProps) -> Html {
    let current = props
        .texts
        .parse(&ScenarioInput::default(), None)
        .map_or(CUSTOM_WORKLOAD, |input| workload_of(&input));
    let source = WORKLOAD_PRESETS.iter().find(|p| p.id == current).map_or(
        "Sets the mean lengths, their spreads and the distribution",
        |p| p.source,
    );
    let context = FieldContext {
        error_field: None,
        on_edit: props.on_edit.clone(),
    };
    context.select(&WORKLOAD, current, None, Some(Html::from(source)))
}

/// A sentence on the technique ladder for screen readers: each other level's peak output
/// tokens/s per GPU, and why a level has no curve (e.g. disaggregation on one GPU).
pub fn ladder_summary(study: &TechniqueStudy) -> String {
    let peaks: Vec<String> = study
        .background
        .iter()
        .map(|t| {
            let peak = t
                .curve
                .points
                .iter()
                .filter(|p| p.fits)
                .map(|p| p.output_tok_s_per_gpu)
                .fold(0.0, f64::max);
            format!(
                "{} peaks at {} output tok/s per GPU",
                t.label,
                format_number(peak)
            )
        })
        .collect();
    let absent: String = study
        .absent
        .iter()
        .map(|a| format!(" {}.", a.reason))
        .collect();
    if peaks.is_empty() {
        return absent.trim_start().to_string();
    }
    format!(
        "The current curve is {}; for comparison, {}.{absent}",
        study.current_label,
        peaks.join("; ")
    )
}
