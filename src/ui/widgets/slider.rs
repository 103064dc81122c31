//! A reusable log-scale slider: a native `<input type=range>` over positions `0..=steps`, which
//! the caller maps log-uniformly onto `1..=max_value` (see `model::pareto::slider_to_concurrency`).
//!
//! Native range inputs are keyboard operable for free (Home/End); the arrows move one visible
//! step of the mapped value (`model::pareto::arrow_position`: the next whole number near 1, 1/8
//! of a doubling higher up; the track's own step is a thousandth of it, ~83 presses per doubling
//! near 1); PageUp/PageDown move to the next power of two of the mapped value above or below
//! (64 → 128, 100 → 64; as near as the track allows), clamped to the ends. `aria-valuetext` makes
//! screen readers announce the mapped value rather than the raw position. Scale labels under the
//! track show where the log scale puts round values. With `on_type`, a labelled number box
//! (`#<id>-number`) beside it takes a typed value; the page validates it and shows its error
//! under the box (`error`).

use crate::model::pareto::{arrow_position, concurrency_to_slider, slider_to_concurrency};
use crate::page::first_screen::slider_scale;
use crate::scenario::fields::CONCURRENCY;
use crate::ui::widgets::field_control::field_error_id;
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
    /// The mapped value now (the number box shows it).
    #[prop_or_default]
    pub value: u32,
    /// Called with the number box's text when it is committed (Enter, blur, its arrows); no box
    /// without it.
    #[prop_or_default]
    pub on_type: Option<Callback<String>>,
    /// The typed value's error, shown under the number box (`#concurrency-error`).
    #[prop_or_default]
    pub error: Option<AttrValue>,
}

/// Values within about 1 % of a power of two count as that power for PageUp/PageDown: the log-scale
/// track cannot always land on it exactly (e.g. 257 is the position nearest 256).
const POWER_OF_TWO_TOLERANCE_LOG2: f64 = 0.015;

/// The position PageUp (`up`) or PageDown moves to from `position`: the one nearest the next
/// power of two above (or below) the current value, at least one step away, clamped to the track.
pub fn page_position(position: u32, steps: u32, max_value: u32, up: bool) -> u32 {
    let current_log2 = f64::from(slider_to_concurrency(position, max_value)).log2();
    let exponent = if up {
        (current_log2 + POWER_OF_TWO_TOLERANCE_LOG2).floor() + 1.0
    } else {
        (current_log2 - POWER_OF_TWO_TOLERANCE_LOG2).ceil() - 1.0
    };
    let target = exponent.clamp(0.0, 31.0).exp2();
    let nearest = if target > f64::from(max_value) {
        steps
    } else {
        concurrency_to_slider(target as u32, max_value).min(steps)
    };
    if up {
        nearest.max(position.saturating_add(1)).min(steps)
    } else {
        nearest.min(position.saturating_sub(1))
    }
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
    // PageUp/PageDown by powers of two (the native step would be a tenth of the track), the
    // arrows by one visible step (the native one would often not change the value shown).
    let onkeydown = {
        let (on_move, steps, max_value) = (props.on_move.clone(), props.steps, props.max_value);
        Callback::from(move |event: KeyboardEvent| {
            let (page, up) = match event.key().as_str() {
                "PageUp" => (true, true),
                "PageDown" => (true, false),
                "ArrowRight" | "ArrowUp" => (false, true),
                "ArrowLeft" | "ArrowDown" => (false, false),
                _ => return,
            };
            let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() else {
                return;
            };
            event.prevent_default();
            if let Ok(position) = input.value().trim().parse::<u32>() {
                let next = match page {
                    true => page_position(position, steps, max_value, up),
                    false => arrow_position(position, max_value, up).min(steps),
                };
                if next != position {
                    input.set_value(&next.to_string());
                    on_move.emit(next);
                }
            }
        })
    };
    let output_id = format!("{}-value", props.id);
    let invalid = props.error.is_some();
    let number = props.on_type.clone().map(|on_type| {
        let number_id = format!("{}-number", props.id);
        let onchange = Callback::from(move |event: Event| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                on_type.emit(input.value());
            }
        });
        html! {
            <span class="slider-number">
                <label for={number_id.clone()}>{ "Batch size" }</label>
                <input type="number" id={number_id} min="1" max={props.max_value.to_string()} step="1"
                    inputmode="numeric" value={props.value.to_string()}
                    aria-invalid={invalid.then_some("true")}
                    aria-describedby={invalid.then(|| field_error_id(CONCURRENCY.key))}
                    {onchange} />
            </span>
        }
    });
    html! {
        <div class="slider">
            <div class="slider-head">
                <label for={props.id.clone()}>{ props.label.clone() }</label>
                <output id={output_id} for={props.id.clone()} class="slider-value">
                    { props.value_text.clone() }
                </output>
                { for number }
            </div>
            if let Some(error) = props.error.clone() {
                <p class="field-error" id={field_error_id(CONCURRENCY.key)}>{ error }</p>
            }
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
                {onkeydown}
            />
            <div class="slider-scale" aria-hidden="true">
                { for slider_scale(props.steps, props.max_value).into_iter().map(|v| html! { <span>{ v }</span> }) }
            </div>
        </div>
    }
}
