//! The notes area: warnings the model attached to the operating point (automatic choices,
//! precision fallbacks, context overflows, requests beyond KV capacity). These are outcomes to
//! read, not errors; bad input goes to `#input-error` instead. Rendered by the tools module into
//! the explorer's `#notes-slot` beside the chart through a portal (it has no events, so the
//! explorer root's event delegation does not matter here).

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NotesProps {
    pub warnings: Vec<String>,
}

#[function_component(Notes)]
pub fn notes(props: &NotesProps) -> Html {
    html! {
        <section class="panel notes" aria-labelledby="notes-title">
            <h2 id="notes-title">{ "Notes" }</h2>
            if props.warnings.is_empty() {
                <p class="muted">{ "Nothing unusual about this operating point." }</p>
            } else {
                <ul id="notes">
                    { for props.warnings.iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
            }
        </section>
    }
}
