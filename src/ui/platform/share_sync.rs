//! The page's link and memory: which view the page opens with (the URL's query, else the last
//! scenario in `localStorage`, else the defaults), keeping both up to date as the user works,
//! and the `#url-notice` that lists what a link held that could not be used.
//!
//! Writing is debounced: every committed change (re)starts a `WRITE_DELAY_MS` timer and only
//! the last one writes, so a slider drag costs one timer restart per input event and the URL
//! is encoded once the hand rests. `history.replaceState` keeps the back button meaningful.
//! Everything here tolerates a browser that refuses (no storage in a sandboxed iframe, quota
//! exceeded): the page works the same, it just does not remember.

use crate::choice::Choice;
use crate::page::state::State;
use crate::share::{self, EmbedOptions, StartView, ViewState};
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// `localStorage` key of the last scenario (JSON, as exported).
pub const STORAGE_KEY: &str = "servecost.last.v1";
/// Quiet time after the last change before the URL and storage are written.
pub const WRITE_DELAY_MS: u32 = 300;
/// Remembered text longer than this is ignored (someone else's junk under our key).
const MAX_STORED_LEN: usize = 64 * 1024;
pub const URL_NOTICE_ID: &str = "url-notice";

/// What the page opens with, and whether it keeps the URL and storage in sync.
#[derive(Debug, Clone, PartialEq)]
pub struct PageStart {
    pub start: StartView,
    /// Write the view back to the URL and storage (the full explorer in a real page; never the
    /// embed widget, which must not overwrite the reader's own last scenario).
    pub persist: bool,
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// `location.search` of the page.
fn location_query() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The remembered scenario, if storage is there and holds something plausible.
fn stored_view() -> Option<String> {
    let storage = window()?.local_storage().ok()??;
    let text = storage.get_item(STORAGE_KEY).ok()??;
    (text.len() <= MAX_STORED_LEN).then_some(text)
}

/// Decide the opening view. `query` overrides the page's URL (tests); with `sync_location`
/// the page's own URL and storage are read, and the embed options (theme, embed mode) are
/// applied to `<html>`.
pub fn page_start(query: Option<&str>, sync_location: bool) -> PageStart {
    let query_text = match query {
        Some(query) => query.to_string(),
        None if sync_location => location_query(),
        None => String::new(),
    };
    let stored = if sync_location { stored_view() } else { None };
    let start = share::start_view(&query_text, stored.as_deref());
    if sync_location {
        apply_document_options(&start.view.embed);
    }
    let persist = sync_location && !start.view.embed.embed;
    PageStart { start, persist }
}

/// `<html data-theme="dark|light">` forces a theme (the stylesheet and the chart read it);
/// `<html class="embed-mode">` styles the page as a widget.
fn apply_document_options(embed: &EmbedOptions) {
    let Some(root) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    if let Some(theme) = embed.theme {
        let _ = root.set_attribute("data-theme", theme.id());
    }
    if embed.embed {
        let _ = root.class_list().add_1("embed-mode");
    }
}

/// The explorer's address without query or fragment: `https://host/path/`.
pub fn page_base_url() -> String {
    let Some(location) = window().map(|w| w.location()) else {
        return String::new();
    };
    format!(
        "{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default()
    )
}

/// A link to `view` on this page (relative: `?v=1&...`, keeping the path).
pub fn link_to(view: &ViewState) -> String {
    format!("{}?{}", page_base_url(), share::encode(view))
}

/// Replace the URL's query with `view`'s (keeping path and fragment), if it differs.
fn write_location(view: &ViewState) -> Option<()> {
    let window = window()?;
    let location = window.location();
    let query = format!("?{}", share::encode(view));
    if location.search().ok().as_deref() == Some(query.as_str()) {
        return Some(());
    }
    let url = format!(
        "{}{query}{}",
        location.pathname().ok()?,
        location.hash().ok().unwrap_or_default()
    );
    window
        .history()
        .ok()?
        .replace_state_with_url(&JsValue::NULL, "", Some(&url))
        .ok()
}

fn remember(view: &ViewState) -> Option<()> {
    let storage = window()?.local_storage().ok()??;
    storage.set_item(STORAGE_KEY, &share::encode(view)).ok()
}

/// Keep the URL and storage in step with the state, `WRITE_DELAY_MS` after the last change.
#[hook]
pub fn use_persist(state: &State, enabled: bool) {
    let scenario = state.view.as_ref().map(|view| view.scenario.clone());
    let deps = (
        enabled,
        scenario,
        state.decision.clone(),
        state.pins.clone(),
        state.chart,
    );
    use_effect_with(deps, |(enabled, scenario, decision, pins, chart)| {
        let pending = match (enabled, scenario) {
            (true, Some(scenario)) => {
                let (scenario, decision, pins, chart) =
                    (scenario.clone(), decision.clone(), pins.clone(), *chart);
                Some(Timeout::new(WRITE_DELAY_MS, move || {
                    let view = ViewState {
                        scenario: scenario.input.clone(),
                        decision,
                        pins,
                        chart,
                        embed: EmbedOptions::default(),
                    };
                    let _ = write_location(&view);
                    let _ = remember(&view);
                }))
            }
            _ => None,
        };
        // A newer change cancels this write (dropping a `Timeout` clears it).
        move || drop(pending)
    });
}

#[derive(Properties, PartialEq)]
pub struct UrlNoticeProps {
    /// What the link held that was ignored; nothing is shown when empty.
    pub notices: Vec<String>,
}

/// Lists what a link could not set, as text (the notices quote untrusted input, so they are
/// never markup), with a button to dismiss the list.
#[function_component(UrlNotice)]
pub fn url_notice(props: &UrlNoticeProps) -> Html {
    let dismissed = use_state(|| false);
    if props.notices.is_empty() || *dismissed {
        return Html::default();
    }
    let onclick = Callback::from(move |_: MouseEvent| dismissed.set(true));
    html! {
        <div id={URL_NOTICE_ID} class="url-notice" role="status">
            <p>{ "Parts of this link could not be used, so their defaults apply:" }</p>
            <ul>
                { for props.notices.iter().map(|notice| html! { <li>{ notice.clone() }</li> }) }
            </ul>
            <button type="button" class="button" {onclick}>{ "Dismiss" }</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct RestoredNoticeProps {
    /// Back to the defaults (the share bar's Reset: every input, pins removed).
    pub on_reset: Callback<()>,
}

/// Id of the line that says the page opened on the last visit's scenario.
pub const RESTORED_NOTICE_ID: &str = "restored-notice";

/// "Restored from your last visit · Reset" (issue 28 §4): a returning visitor's remembered
/// scenario (`StartSource::Storage`) is said to be one, so nobody reads it as the defaults; the
/// line goes once Reset or Dismiss is pressed.
#[function_component(RestoredNotice)]
pub fn restored_notice(props: &RestoredNoticeProps) -> Html {
    let dismissed = use_state(|| false);
    if *dismissed {
        return Html::default();
    }
    let dismiss = {
        let dismissed = dismissed.clone();
        Callback::from(move |_: MouseEvent| dismissed.set(true))
    };
    let reset = {
        let on_reset = props.on_reset.clone();
        Callback::from(move |_: MouseEvent| {
            on_reset.emit(());
            dismissed.set(true);
        })
    };
    html! {
        <p id={RESTORED_NOTICE_ID} class="restored-notice" role="status">
            { "Restored from your last visit · " }
            <button type="button" class="link-button" id="restored-reset" onclick={reset}>{ "Reset" }</button>
            { " · " }
            <button type="button" class="link-button" onclick={dismiss}>{ "Dismiss" }</button>
        </p>
    }
}
