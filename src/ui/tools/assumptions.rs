//! The always-visible assumptions block (`present::assumptions`): every statement the numbers
//! depend on, as plain text in a `<pre>`, with a Copy button. The tools module renders it first
//! in its column, right under the explorer (which would have it in its last, full-width row).
//!
//! Copying uses `navigator.clipboard.writeText`. It can be missing (insecure origin) or refused
//! (permissions); then the text is selected instead and the status line says to press Ctrl+C.
//! Either way nothing else on the page is affected.

use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

pub const ASSUMPTIONS_ID: &str = "assumptions-text";

#[derive(Properties, PartialEq)]
pub struct AssumptionsProps {
    pub text: AttrValue,
}

#[derive(Clone, Copy, PartialEq)]
enum CopyStatus {
    Idle,
    Copied,
    Selected,
}

/// `navigator.clipboard.writeText(text)`, if the browser offers it here.
pub async fn write_clipboard(text: String) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or_else(|| JsValue::from_str("no window"))?;
    let navigator = window.navigator();
    let clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))?;
    if clipboard.is_undefined() || clipboard.is_null() {
        return Err(JsValue::from_str("no clipboard API"));
    }
    JsFuture::from(navigator.clipboard().write_text(&text))
        .await
        .map(|_| ())
}

/// Select the assumptions text so the user can copy it by hand.
fn select_text() -> Option<()> {
    let window = web_sys::window()?;
    let document = window.document()?;
    let pre = document.get_element_by_id(ASSUMPTIONS_ID)?;
    let range = document.create_range().ok()?;
    range.select_node_contents(&pre).ok()?;
    let selection = window.get_selection().ok()??;
    selection.remove_all_ranges().ok()?;
    selection.add_range(&range).ok()
}

#[function_component(Assumptions)]
pub fn assumptions(props: &AssumptionsProps) -> Html {
    let status = use_state(|| CopyStatus::Idle);
    {
        // A new text makes an old "Copied" untrue.
        let status = status.clone();
        use_effect_with(props.text.clone(), move |_| status.set(CopyStatus::Idle));
    }
    let onclick = {
        let status = status.clone();
        let text = props.text.to_string();
        Callback::from(move |_: MouseEvent| {
            let status = status.clone();
            let text = text.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match write_clipboard(text).await {
                    Ok(()) => status.set(CopyStatus::Copied),
                    Err(_) => {
                        let _ = select_text();
                        status.set(CopyStatus::Selected);
                    }
                }
            });
        })
    };
    let message = match *status {
        CopyStatus::Idle => "",
        CopyStatus::Copied => "Copied to the clipboard.",
        CopyStatus::Selected => {
            "The browser did not allow copying; the text is selected, press Ctrl+C (⌘C)."
        }
    };
    html! {
        <section class="panel assumptions" aria-labelledby="assumptions-title">
            <div class="panel-head">
                <h2 id="assumptions-title">{ "Assumptions" }</h2>
                <button type="button" class="button" {onclick} aria-describedby="copy-status">{ "Copy" }</button>
            </div>
            <p id="copy-status" class="copy-status" role="status">{ message }</p>
            <pre id={ASSUMPTIONS_ID} tabindex="0">{ props.text.clone() }</pre>
        </section>
    }
}
