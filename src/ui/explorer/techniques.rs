//! The serving-technique and workload-shape controls: batching policy, KV allocation, chunked
//! prefill budget, speculative decoding (method, α, γ, draft cost, with the method's presets as
//! placeholders), prefix-cache hit rate, the workload preset and the length distribution with
//! its spreads. Each technique is named with its glossary definition (hover or focus).
//!
//! Ids are the scenario fields' names (`#batching`, `#kv-alloc`, `#chunk-tokens`,
//! `#spec-decode`, `#spec-accept`, `#spec-len`, `#spec-draft-cost`, `#prefix-hit`,
//! `#workload`, `#length-dist`, `#input-sigma`, `#output-sigma`).

use crate::model::techniques::TechniqueStudy;
use crate::page::fields::FieldTexts;
use crate::page::knobs::{workload_choices, Knob, KnobAction, Knobs};
use crate::present::glossary;
use crate::present::report::format_number;
use crate::scenario::{SpecMethod, WORKLOAD_PRESETS};
use crate::ui::widgets::glossary::Term;
use crate::ui::widgets::knob_fields::KnobContext;
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

/// Id of the workload preset select.
pub const WORKLOAD_ID: &str = "workload";

#[derive(Properties, PartialEq)]
pub struct TechniqueControlsProps {
    pub knobs: Knobs,
    pub error_field: Option<String>,
    pub on_knob: Callback<KnobAction>,
}

/// "preset 0.8": the value an empty speculative-decoding box stands for (the chosen method's
/// preset, or EAGLE's while speculation is off).
fn spec_placeholders(method: &str) -> (String, String, String) {
    let preset = match SpecMethod::parse(method) {
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
    let knobs = &props.knobs;
    let context = KnobContext {
        error_field: props.error_field.clone(),
        on_knob: props.on_knob.clone(),
    };
    let spec_on = matches!(
        SpecMethod::parse(knobs.text(Knob::SpecDecode)),
        Some(Some(_))
    );
    let fixed = knobs.text(Knob::LengthDist).trim() == "fixed";
    let (accept, len, cost) = spec_placeholders(knobs.text(Knob::SpecDecode));
    html! {
        <div class="controls knob-controls">
            <fieldset>
                <legend>{ "Serving techniques" }</legend>
                { context.select(Knob::Batching, knobs.text(Knob::Batching),
                    &[("continuous", "Continuous"), ("static", "Static")],
                    Some(html! { <>
                        <Term term={glossary::CONTINUOUS_BATCHING} />{ " vs. " }
                        <Term term={STATIC_BATCHING}>{ "static" }</Term>
                    </> })) }
                { context.select(Knob::KvAlloc, knobs.text(Knob::KvAlloc),
                    &[("paged", "Paged"), ("contiguous", "Contiguous")],
                    Some(html! { <><Term term={glossary::PAGED_ATTENTION} />{ ": how many requests fit" }</> })) }
                { context.text(Knob::ChunkTokens, knobs.text(Knob::ChunkTokens), None, false,
                    Some(html! { <><Term term={CHUNKED_PREFILL} />{ ": tokens per iteration" }</> })) }
                { context.select(Knob::SpecDecode, knobs.text(Knob::SpecDecode),
                    &[("off", "Off"), ("draft", "Draft model"), ("eagle", "EAGLE-like"), ("mtp", "MTP")],
                    Some(html! { <><Term term={glossary::SPECULATIVE_DECODING} />{ ": α, γ, c below" }</> })) }
                { context.text(Knob::SpecAccept, knobs.text(Knob::SpecAccept), Some(accept), !spec_on, None) }
                { context.text(Knob::SpecLen, knobs.text(Knob::SpecLen), Some(len), !spec_on, None) }
                { context.text(Knob::SpecDraftCost, knobs.text(Knob::SpecDraftCost), Some(cost), !spec_on, None) }
                { context.text(Knob::PrefixHit, knobs.text(Knob::PrefixHit), None, false,
                    Some(html! { <><Term term={glossary::PREFIX_CACHING} />{ ": share of prompt tokens cached, 0–0.99" }</> })) }
            </fieldset>
            <fieldset>
                <legend>{ "Length distribution" }</legend>
                { context.select(Knob::LengthDist, knobs.text(Knob::LengthDist),
                    &[("lognormal", "Lognormal (production)"), ("fixed", "Fixed (synthetic)")],
                    Some(Html::from("Fixed lengths hide the batching policies' gap"))) }
                <div class="field-row">
                    { context.text(Knob::InputSigma, knobs.text(Knob::InputSigma), None, fixed, None) }
                    { context.text(Knob::OutputSigma, knobs.text(Knob::OutputSigma), None, fixed, None) }
                </div>
            </fieldset>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct WorkloadSelectProps {
    pub knobs: Knobs,
    pub texts: FieldTexts,
    pub on_knob: Callback<KnobAction>,
}

/// The workload preset select (`#workload`): chat, code, summarize, RAG, reasoning, uniform
/// (fixed lengths) or "custom" when the typed lengths match no preset.
#[function_component(WorkloadSelect)]
pub fn workload_select(props: &WorkloadSelectProps) -> Html {
    let current = props.knobs.workload(&props.texts);
    let on_knob = props.on_knob.clone();
    let onchange = Callback::from(move |event: Event| {
        if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
            on_knob.emit(KnobAction::Workload(select.value()));
        }
    });
    let source = WORKLOAD_PRESETS.iter().find(|p| p.id == current).map_or(
        "Sets the mean lengths, their spreads and the distribution",
        |p| p.source,
    );
    html! {
        <div class="field">
            <label for={WORKLOAD_ID}>{ "Workload preset" }</label>
            <select id={WORKLOAD_ID} aria-describedby="workload-hint" {onchange}>
                { for workload_choices().into_iter().map(|choice| html! {
                    <option value={choice.id} selected={choice.id == current}>{ choice.label }</option>
                }) }
            </select>
            <p class="hint" id="workload-hint">{ source }</p>
        </div>
    }
}

/// A sentence on the technique ladder for screen readers: each other level's peak output
/// tokens/s per GPU.
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
    if peaks.is_empty() {
        return String::new();
    }
    format!(
        "The current curve is {}; for comparison, {}.",
        study.current_label,
        peaks.join("; ")
    )
}
