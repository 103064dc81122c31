//! Rendering one knob control (`knobs.rs`): a labelled `<select>` or text box whose id is the
//! scenario field's name, with an optional hint under it (which may name a glossary term), and
//! `aria-invalid`/`aria-describedby` pointing at `#input-error` when the current error names it.
//! The technique and advanced panels build their controls from these.

use crate::page::knobs::{Knob, KnobAction};
use crate::ui::explorer::controls::INPUT_ERROR_ID;
use yew::prelude::*;

/// What every knob control needs from its panel.
#[derive(Clone, PartialEq)]
pub struct KnobContext {
    /// The field the current error names, if any.
    pub error_field: Option<String>,
    pub on_knob: Callback<KnobAction>,
}

impl KnobContext {
    fn invalid(&self, knob: Knob) -> bool {
        self.error_field.as_deref() == Some(knob.id())
    }

    fn described_by(&self, knob: Knob, has_hint: bool) -> Option<AttrValue> {
        let ids: Vec<String> = [
            has_hint.then(|| format!("{}-hint", knob.id())),
            self.invalid(knob).then(|| INPUT_ERROR_ID.to_string()),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!ids.is_empty()).then(|| AttrValue::from(ids.join(" ")))
    }

    fn labelled(&self, knob: Knob, hint: Option<Html>, control: Html) -> Html {
        html! {
            <div class="field">
                <label for={knob.id()}>{ knob.label() }</label>
                { control }
                if let Some(hint) = hint {
                    <p class="hint" id={format!("{}-hint", knob.id())}>{ hint }</p>
                }
            </div>
        }
    }

    /// A `<select>` over `(value, label)` options, `current` selected.
    pub fn select(
        &self,
        knob: Knob,
        current: &str,
        options: &[(&'static str, &'static str)],
        hint: Option<Html>,
    ) -> Html {
        let on_knob = self.on_knob.clone();
        let onchange = Callback::from(move |event: Event| {
            if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
                on_knob.emit(KnobAction::Edit(knob, select.value()));
            }
        });
        let control = html! {
            <select
                id={knob.id()}
                aria-invalid={self.invalid(knob).then_some("true")}
                aria-describedby={self.described_by(knob, hint.is_some())}
                {onchange}
            >
                { for options.iter().map(|(value, label)| html! {
                    <option value={*value} selected={*value == current.trim()}>{ *label }</option>
                }) }
            </select>
        };
        self.labelled(knob, hint, control)
    }

    /// A text box; an empty optional knob shows `placeholder` (its default). A disabled box is
    /// shown but ignored by the model (e.g. α while speculation is off).
    pub fn text(
        &self,
        knob: Knob,
        current: &str,
        placeholder: Option<String>,
        disabled: bool,
        hint: Option<Html>,
    ) -> Html {
        let on_knob = self.on_knob.clone();
        let oninput = Callback::from(move |event: InputEvent| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                on_knob.emit(KnobAction::Edit(knob, input.value()));
            }
        });
        let control = html! {
            <input
                type="text"
                id={knob.id()}
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                value={current.to_string()}
                placeholder={placeholder}
                {disabled}
                aria-invalid={self.invalid(knob).then_some("true")}
                aria-describedby={self.described_by(knob, hint.is_some())}
                {oninput}
            />
        };
        self.labelled(knob, hint, control)
    }
}
