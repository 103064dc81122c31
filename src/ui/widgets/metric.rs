//! One number on the page: label, value, unit, and a one-line definition that shows on hover
//! and on keyboard focus (the metric is focusable and points at its tooltip with
//! `aria-describedby`; Escape hides the tooltip again, as WCAG 1.4.13 asks).
//!
//! The value sits alone in the element carrying `data-metric="NAME"`, so tests and scripts can
//! read exactly the formatted number; its expected error, when it has one, sits in
//! `data-error="NAME"`.

use crate::ui::widgets::glossary::use_dismissable_tip;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MetricProps {
    /// Machine name, also `data-metric` (e.g. `tpot_ms`).
    pub name: &'static str,
    pub label: AttrValue,
    /// The formatted value.
    pub value: AttrValue,
    #[prop_or_default]
    pub unit: AttrValue,
    /// One sentence: what the number means in this model.
    pub definition: AttrValue,
    /// Shown larger (the headline numbers).
    #[prop_or_default]
    pub primary: bool,
    /// Spans the whole row (long text values).
    #[prop_or_default]
    pub wide: bool,
    /// The expected error ("±18 %", `model::expected_error`), beside the unit; `data-error=NAME`.
    #[prop_or_default]
    pub error: Option<AttrValue>,
}

#[function_component(Metric)]
pub fn metric(props: &MetricProps) -> Html {
    let tip = use_dismissable_tip();
    let tip_id = format!("def-{}", props.name);
    let label_id = format!("label-{}", props.name);
    let class = classes!(
        "metric",
        props.primary.then_some("metric-primary"),
        props.wide.then_some("metric-wide"),
        tip.dismissed.then_some("tip-dismissed")
    );
    html! {
        <div {class} tabindex="0" role="group" aria-labelledby={label_id.clone()} aria-describedby={tip_id.clone()}
            onkeydown={tip.onkeydown} onblur={tip.onblur} onmouseleave={tip.onmouseleave}>
            <span class="metric-label" id={label_id}>{ props.label.clone() }</span>
            <span class="metric-value">
                <span data-metric={props.name}>{ props.value.clone() }</span>
                if !props.unit.is_empty() {
                    <span class="metric-unit">{ props.unit.clone() }</span>
                }
                if let Some(error) = &props.error {
                    <span class="metric-error" data-error={props.name}>{ error.clone() }</span>
                }
            </span>
            <span class="tooltip" role="tooltip" id={tip_id}>{ props.definition.clone() }</span>
        </div>
    }
}

pub use crate::present::format::group_thousands;
