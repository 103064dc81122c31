//! One control for any field of the table (`scenario::fields`): a labelled `<select>` (the field's
//! choices, or options the caller gives, such as the catalog's models) or text box, whose id is
//! the field's key, with its label and unit from the table, an optional hint under it (which may
//! name a glossary term), and `aria-invalid`/`aria-describedby` pointing at `#input-error` when
//! the current error names it; the error's message also appears right under the control
//! (`field_error`, from the error the explorer or the embed shows, `show_error`), so it is in
//! view where the user typed. The explorer's controls, the technique and advanced panels and
//! the embed's `controls=` all build their controls from this.
//!
//! Text boxes are `type=text` with a numeric keyboard hint rather than `type=number`: the page,
//! not the browser, decides what is a number, and says so in `#input-error`.

use crate::page::fields::InputError;
use crate::scenario::fields::{Field, Kind};
use yew::prelude::*;

/// Id of the box the page's input errors are shown in (`app.rs`).
pub const INPUT_ERROR_ID: &str = "input-error";

thread_local! {
    /// The page's current input error, set by the explorer and the embed on every render of
    /// their state (`show_error`), read by each control's `labelled` (which the panels call while
    /// rendering, after their app). A thread-local rather than a field of `FieldContext` or a
    /// Yew context: each panel builds its own context, and a context provider and a component
    /// per message cost the explorer's first load about 2 KB (gzip) for one line of text.
    static SHOWN_ERROR: std::cell::RefCell<Option<InputError>> = const { std::cell::RefCell::new(None) };
}

/// Set the error whose message appears under the control it names.
pub fn show_error(error: Option<&InputError>) {
    SHOWN_ERROR.with(|shown| {
        if shown.borrow().as_ref() != error {
            *shown.borrow_mut() = error.cloned();
        }
    });
}

/// Id of the message under the control of `key`.
pub fn field_error_id(key: &str) -> String {
    format!("{key}-error")
}

/// The message under the control of `key`, when the shown error names it.
pub fn field_error(key: &str) -> Html {
    SHOWN_ERROR.with(|shown| match shown.borrow().as_ref() {
        Some(error) if error.field == key => html! {
            <p class="field-error" id={field_error_id(key)}>{ error.message.clone() }</p>
        },
        _ => Html::default(),
    })
}

/// What every field control needs from its panel.
#[derive(Clone, PartialEq)]
pub struct FieldContext {
    /// The field the current error names, if any.
    pub error_field: Option<String>,
    pub on_edit: Callback<(&'static Field, String)>,
}

impl FieldContext {
    fn invalid(&self, field: &Field) -> bool {
        self.error_field.as_deref() == Some(field.key)
    }

    fn described_by(&self, field: &Field, has_hint: bool) -> Option<AttrValue> {
        let ids: Vec<String> = [
            has_hint.then(|| format!("{}-hint", field.key)),
            self.invalid(field).then(|| field_error_id(field.key)),
            self.invalid(field).then(|| INPUT_ERROR_ID.to_string()),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!ids.is_empty()).then(|| AttrValue::from(ids.join(" ")))
    }

    fn labelled(&self, field: &Field, hint: Option<Html>, control: Html) -> Html {
        html! {
            <div class="field">
                <label for={field.key}>{ field.label_with_unit() }</label>
                { control }
                if self.invalid(field) {
                    { field_error(field.key) }
                }
                if let Some(hint) = hint {
                    <p class="hint" id={format!("{}-hint", field.key)}>{ hint }</p>
                }
            </div>
        }
    }

    /// A `<select>` over `options` (value, label), or the field's own choices when `None`;
    /// `current` selected.
    pub fn select(
        &self,
        field: &'static Field,
        current: &str,
        options: Option<Vec<(String, String)>>,
        hint: Option<Html>,
    ) -> Html {
        let options = options.unwrap_or_else(|| {
            field
                .choices
                .iter()
                .map(|(value, label)| ((*value).to_string(), (*label).to_string()))
                .collect()
        });
        let on_edit = self.on_edit.clone();
        let onchange = Callback::from(move |event: Event| {
            if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
                on_edit.emit((field, select.value()));
            }
        });
        let current = current.trim();
        let control = html! {
            <select
                id={field.key}
                aria-invalid={self.invalid(field).then_some("true")}
                aria-describedby={self.described_by(field, hint.is_some())}
                {onchange}
            >
                { for options.into_iter().map(|(value, label)| {
                    let selected = value == current;
                    // Unkeyed: Yew's keyed diff would cost every slider move that re-renders the
                    // controls.
                    html! { <option {value} {selected}>{ label }</option> }
                }) }
            </select>
        };
        self.labelled(field, hint, control)
    }

    /// A text box; an empty optional field shows `placeholder` (its default). A disabled box is
    /// shown but ignored by the model (e.g. α while speculation is off).
    pub fn text(
        &self,
        field: &'static Field,
        current: &str,
        placeholder: Option<String>,
        disabled: bool,
        hint: Option<Html>,
    ) -> Html {
        let on_edit = self.on_edit.clone();
        let oninput = Callback::from(move |event: InputEvent| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                on_edit.emit((field, input.value()));
            }
        });
        let mode = match field.kind {
            Kind::Integer => "numeric",
            Kind::Real => "decimal",
            Kind::Choice | Kind::Text => "text",
        };
        let control = html! {
            <input
                type="text"
                id={field.key}
                inputmode={mode}
                autocomplete="off"
                spellcheck="false"
                value={current.to_string()}
                placeholder={placeholder}
                {disabled}
                aria-invalid={self.invalid(field).then_some("true")}
                aria-describedby={self.described_by(field, hint.is_some())}
                {oninput}
            />
        };
        self.labelled(field, hint, control)
    }

    /// The field's natural control: a select for a field with choices, else a text box.
    pub fn control(&self, field: &'static Field, current: &str, hint: Option<Html>) -> Html {
        if field.choices.is_empty() {
            // An unset decision field does not constrain; an unset scenario field is chosen.
            let unset = if field.is_decision() { "none" } else { "auto" };
            let placeholder = field.optional.then(|| unset.to_string());
            self.text(field, current, placeholder, false, hint)
        } else {
            self.select(field, current, None, hint)
        }
    }
}
