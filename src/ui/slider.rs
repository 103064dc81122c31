//! A reusable log-scale slider: a native `<input type=range>` over positions `0..=steps`, which
//! the caller maps log-uniformly onto `1..=max_value` (see `model::pareto::slider_to_concurrency`).
//!
//! Native range inputs are keyboard operable for free (arrows = one step, PageUp/PageDown = a
//! tenth, Home/End); `aria-valuetext` makes screen readers announce the mapped value rather than
//! the raw position. Scale labels under the track show where the log scale puts round values.

use crate::model::pareto::slider_to_concurrency;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SliderProps {
    /// Element id of the `<input>` (labels and tests find it by this).
    pub id: AttrValue,
    pub label: AttrValue,
    /// Current position, `0..=steps`.
    pub position: u32,
    pub steps: u32,
    /// Largest value, reached at `steps` (the smallest is 1, at position 0).
    pub max_value: u32,
    /// The value as shown beside the label and announced, e.g. "64 requests".
    pub value_text: AttrValue,
    /// Called with the new position on every `input` event.
    pub on_move: Callback<u32>,
    /// Id of an element describing the slider's state (e.g. the KV-capacity status line).
    #[prop_or_default]
    pub describedby: Option<AttrValue>,
}

/// Values shown under the track: positions 0, ¼, ½, ¾ and the end.
fn scale_labels(steps: u32, max_value: u32) -> Vec<u32> {
    let mut labels: Vec<u32> = (0..=4u32)
        .map(|quarter| slider_to_concurrency(steps.saturating_mul(quarter) / 4, max_value))
        .collect();
    labels.dedup();
    labels
}

#[function_component(Slider)]
pub fn slider(props: &SliderProps) -> Html {
    let on_move = props.on_move.clone();
    let oninput = Callback::from(move |event: InputEvent| {
        if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
            if let Ok(position) = input.value().trim().parse::<u32>() {
                on_move.emit(position);
            }
        }
    });
    let output_id = format!("{}-value", props.id);
    html! {
        <div class="slider">
            <div class="slider-head">
                <label for={props.id.clone()}>{ props.label.clone() }</label>
                <output id={output_id} for={props.id.clone()} class="slider-value">
                    { props.value_text.clone() }
                </output>
            </div>
            <input
                type="range"
                id={props.id.clone()}
                min="0"
                max={props.steps.to_string()}
                step="1"
                value={props.position.to_string()}
                aria-valuetext={props.value_text.clone()}
                aria-describedby={props.describedby.clone()}
                {oninput}
            />
            <div class="slider-scale" aria-hidden="true">
                { for scale_labels(props.steps, props.max_value).into_iter().map(|v| html! { <span>{ v }</span> }) }
            </div>
        </div>
    }
}
