//! Labelled controls for the decision panels, in the same shape as the scenario controls
//! (`controls.rs`): a `.field` with a `<label for>`, an optional hint, and, when the text does not
//! parse, `aria-invalid` and a message under the box that names the field.

use crate::scenario::fields::Field;
use crate::ui::widgets::glossary::use_dismissable_tip;
use yew::prelude::*;

/// A text box for a number.
pub struct NumberField<'a> {
    pub id: &'static str,
    pub label: &'a str,
    /// Shown after the label: "ms", "$/kWh".
    pub unit: Option<&'a str>,
    pub value: String,
    pub placeholder: Option<&'static str>,
    pub hint: Option<String>,
    pub error: Option<String>,
    pub on_input: Callback<String>,
}

impl NumberField<'static> {
    /// A box for a decision field of the table: its key, label and unit.
    pub fn of(
        field: &'static Field,
        value: String,
        error: Option<String>,
        on_input: Callback<String>,
    ) -> NumberField<'static> {
        NumberField {
            id: field.key,
            label: field.label,
            unit: (!field.unit.is_empty()).then_some(field.unit),
            value,
            placeholder: field.optional.then_some("none"),
            hint: None,
            error,
            on_input,
        }
    }
}

impl NumberField<'_> {
    pub fn render(self) -> Html {
        let hint_id = format!("{}-hint", self.id);
        let error_id = format!("{}-error", self.id);
        let described: Vec<&str> = [
            self.hint.as_ref().map(|_| hint_id.as_str()),
            self.error.as_ref().map(|_| error_id.as_str()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let on_input = self.on_input;
        let oninput = Callback::from(move |event: InputEvent| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                on_input.emit(input.value());
            }
        });
        let label = match self.unit {
            Some(unit) => format!("{} ({unit})", self.label),
            None => self.label.to_string(),
        };
        html! {
            <div class="field">
                <label for={self.id}>{ label }</label>
                <input type="text" id={self.id} inputmode="decimal" autocomplete="off" spellcheck="false"
                    value={self.value}
                    placeholder={self.placeholder}
                    aria-invalid={self.error.is_some().then_some("true")}
                    aria-describedby={(!described.is_empty()).then(|| described.join(" "))}
                    {oninput} />
                if let Some(hint) = self.hint {
                    <p class="hint" id={hint_id}>{ hint }</p>
                }
                if let Some(error) = self.error {
                    <p class="field-error" id={error_id} role="alert">{ format!("{}: {error}", self.label) }</p>
                }
            </div>
        }
    }
}

/// A labelled `<select>`; `on_change` gets the chosen value.
pub fn select_field(
    id: &'static str,
    label: &str,
    options: &[(String, String)],
    current: &str,
    hint: Option<String>,
    on_change: Callback<String>,
) -> Html {
    let onchange = Callback::from(move |event: Event| {
        if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
            on_change.emit(select.value());
        }
    });
    let hint_id = format!("{id}-hint");
    html! {
        <div class="field">
            <label for={id}>{ label.to_string() }</label>
            <select {id} aria-describedby={hint.as_ref().map(|_| hint_id.clone())} {onchange}>
                { for options.iter().map(|(value, text)| html! {
                    <option value={value.clone()} selected={value == current}>{ text.clone() }</option>
                }) }
            </select>
            if let Some(hint) = hint {
                <p class="hint" id={hint_id}>{ hint }</p>
            }
        </div>
    }
}

/// A column header (or row label) with a unit and a one-line definition shown on hover and on
/// keyboard focus, like `Metric`'s: Escape hides it again.
#[derive(Properties, PartialEq)]
pub struct TermHeadProps {
    /// Unique on the page: the tooltip's id is `def-{id}`.
    pub id: AttrValue,
    pub label: AttrValue,
    #[prop_or_default]
    pub unit: AttrValue,
    pub definition: AttrValue,
}

#[function_component(TermHead)]
pub fn term_head(props: &TermHeadProps) -> Html {
    let tip = use_dismissable_tip();
    let tip_id = format!("def-{}", props.id);
    html! {
        <span class={classes!("term", "term-head", tip.dismissed.then_some("tip-dismissed"))} tabindex="0"
            aria-describedby={tip_id.clone()} onkeydown={tip.onkeydown} onblur={tip.onblur} onmouseleave={tip.onmouseleave}>
            { props.label.clone() }
            if !props.unit.is_empty() {
                <span class="metric-unit">{ format!(" {}", props.unit) }</span>
            }
            <span class="tooltip" role="tooltip" id={tip_id}>{ props.definition.clone() }</span>
        </span>
    }
}

pub use crate::present::format::{percent, usd_amount};

/// A count or rate with thousands grouped: `1,234`, `56.7`.
pub fn grouped(value: f64) -> String {
    crate::ui::widgets::metric::group_thousands(&crate::present::format::format_number(value))
}
