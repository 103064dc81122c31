//! The last line of defence: a panic hook that replaces a dead page with a visible
//! `#fatal-error` banner (what happened, and a Reload button), and logs the panic to the console.
//!
//! Release builds abort on panic, so after the hook returns the wasm instance is gone; the
//! banner is plain DOM built here and the Reload button only calls `location.reload()`.

use std::panic::PanicHookInfo;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

pub const FATAL_ERROR_ID: &str = "fatal-error";

/// Install the hook (once, at start-up).
pub fn install() {
    std::panic::set_hook(Box::new(on_panic));
}

fn on_panic(info: &PanicHookInfo<'_>) {
    let message = info.to_string();
    gloo::console::error!(format!("servecost panicked: {message}"));
    show_fatal_error(
        "servecost hit an internal error and stopped updating. Reloading the page starts it again.",
        &message,
    );
}

/// Show (or update) the fatal-error banner at the top of the page. Returns `None` when there
/// is no document to show it in.
pub fn show_fatal_error(summary: &str, detail: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let body = document.body()?;
    if let Some(existing) = document.get_element_by_id(FATAL_ERROR_ID) {
        existing.remove();
    }
    let banner = document.create_element("div").ok()?;
    banner.set_id(FATAL_ERROR_ID);
    banner.set_class_name("fatal-error");
    banner.set_attribute("role", "alert").ok()?;

    let text = document.create_element("p").ok()?;
    text.set_text_content(Some(summary));
    banner.append_child(&text).ok()?;

    if !detail.is_empty() {
        let details = document.create_element("details").ok()?;
        let label = document.create_element("summary").ok()?;
        label.set_text_content(Some("Technical details"));
        let pre = document.create_element("pre").ok()?;
        pre.set_text_content(Some(detail));
        details.append_child(&label).ok()?;
        details.append_child(&pre).ok()?;
        banner.append_child(&details).ok()?;
    }

    let button = document.create_element("button").ok()?;
    button.set_attribute("type", "button").ok()?;
    button.set_text_content(Some("Reload"));
    let reload = Closure::<dyn Fn()>::new(|| {
        if let Some(window) = web_sys::window() {
            let _ = window.location().reload();
        }
    });
    button
        .dyn_ref::<web_sys::HtmlElement>()?
        .set_onclick(Some(reload.as_ref().unchecked_ref()));
    // The banner lives until the page reloads, so its handler must too.
    reload.forget();
    banner.append_child(&button).ok()?;

    body.insert_before(&banner, body.first_child().as_ref())
        .ok()?;
    if let Some(button) = button.dyn_ref::<web_sys::HtmlElement>() {
        let _ = button.focus();
    }
    Some(())
}
