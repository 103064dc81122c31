//! The share-and-export bar of the full explorer: Copy link, JSON export and import, CSV of the
//! curve, PNG of the chart, the client report (`page::report`, one self-contained HTML file), a printable summary (the print stylesheet does the layout; the bar
//! adds a print-only header with the link and every input from the field table), Reset to
//! defaults, and the "Embed" panel with the `<iframe>` snippet.
//!
//! Nothing here leaves the page: downloads are `blob:`/`data:` URLs (`download.rs`), imports
//! are read locally and go through `share::from_json`, whose error names the bad field; a
//! failed import leaves the current view untouched.
//!
//! The bar re-renders on every slider move, so rendering it stays cheap: exports build their
//! text when clicked, and the print header's link follows the view after the same quiet time as
//! the URL (`share_sync::WRITE_DELAY_MS`). What each button does is `export/actions.rs`.

use crate::page::state::View;
use crate::scenario::Scenario;
use crate::share::{self, ViewState};
use crate::ui::explorer::chart_canvas::CHART_ID;
use crate::ui::platform::share_sync::{link_to, page_base_url, WRITE_DELAY_MS};
use crate::ui::tools::assumptions::write_clipboard;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use yew::prelude::*;

mod actions;
use actions::ShareActions;

pub const EXPORT_JSON_ID: &str = "export-json";
pub const IMPORT_JSON_ID: &str = "import-json";
pub const EXPORT_CSV_ID: &str = "export-csv";
pub const EXPORT_PNG_ID: &str = "export-png";
pub const PRINT_ID: &str = "print-summary";
pub const EMBED_BUTTON_ID: &str = "embed-button";
pub const EMBED_SNIPPET_ID: &str = "embed-snippet";
pub const SHARE_STATUS_ID: &str = "share-status";
pub const COPY_LINK_ID: &str = "copy-link";
pub const RESET_ID: &str = "reset-defaults";
pub const PRINT_INPUTS_ID: &str = "print-inputs";
pub const REPORT_ID: &str = "download-report";
const EMBED_PANEL_ID: &str = "embed-panel";
const APP_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Lets "Building the report…" paint before the plan runs.
const REPORT_PAINT_DELAY_MS: u32 = 30;

/// The browser's clock as "2026-12-01 15:40 UTC" (the report's date line).
fn now_utc() -> String {
    let iso = String::from(js_sys::Date::new_0().to_iso_string());
    match (iso.get(..10), iso.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => iso,
    }
}

#[derive(Properties, PartialEq)]
pub struct ShareBarProps {
    /// The last good view: what the CSV, PNG and titles describe. None when the page opened on
    /// a scenario that does not fit: the bar still offers Copy link, JSON, Embed and Reset
    /// (issue 28: an infeasible link hid the whole bar, Reset included).
    pub view: Option<View>,
    /// What a link, the JSON export and the print reproduce: scenario, decision inputs, pins, chart.
    pub shared: ViewState,
    /// Called with an imported view (already validated), or the defaults on Reset.
    pub on_import: Callback<ViewState>,
}

/// A line under the bar: what just happened, or why it failed.
#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Done(String),
    Failed(String),
}

/// Every input of the field table as a print-only table, grouped: what a forwarded printout
/// needs to be reproduced and trusted (an unset optional shows as "auto").
fn print_inputs(shared: &ViewState) -> Html {
    let (groups, at_default) = crate::page::report::differing_inputs(shared);
    html! {
        <div class="print-only print-inputs" id={PRINT_INPUTS_ID}>
            <dl>
                { for groups.into_iter().flat_map(|(_, rows)| rows).map(|(label, shown)| html! {
                    <div><dt>{ label }</dt><dd>{ shown }</dd></div>
                }) }
            </dl>
            <p>{ format!("The other {at_default} inputs are at servecost's defaults; the link above reproduces every one.") }</p>
        </div>
    }
}

/// The chart canvas of the page this event happened in (`.page`: the document's body, or one of
/// the pages tests mount side by side). The bar belongs to the page's second module, outside
/// the explorer's element, so the canvas is found from the page, not from the bar.
fn chart_canvas_near(event: &MouseEvent) -> Option<web_sys::HtmlCanvasElement> {
    let from_app = event
        .target_dyn_into::<web_sys::Element>()
        .and_then(|target| target.closest(".page").ok().flatten())
        .and_then(|app| app.query_selector(&format!("#{CHART_ID}")).ok().flatten());
    let element = match from_app {
        Some(element) => element,
        None => web_sys::window()?.document()?.get_element_by_id(CHART_ID)?,
    };
    element.dyn_into().ok()
}

fn describe(error: wasm_bindgen::JsValue) -> String {
    error
        .as_string()
        .or_else(|| {
            error
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "the browser refused".into())
}

#[function_component(ShareBar)]
pub fn share_bar(props: &ShareBarProps) -> Html {
    let status = use_state(|| Status::Idle);
    let embed_open = use_state(|| false);
    let print_link = use_state(String::new);
    {
        let print_link = print_link.clone();
        use_effect_with(props.shared.clone(), move |view| {
            let view = view.clone();
            let pending = Timeout::new(WRITE_DELAY_MS, move || print_link.set(link_to(&view)));
            move || drop(pending)
        });
    }
    let scenario = props.view.as_ref().map(|v| &v.scenario);
    let no_view = scenario.is_none();
    let stem = scenario.map_or_else(|| "servecost".to_string(), |s| share::export_file_stem(s));
    let title = scenario.map_or_else(
        || "servecost: a scenario that does not fit".to_string(),
        |scenario| {
            format!(
                "servecost: {} on {} × {}",
                scenario.model.name,
                scenario.total_gpus(),
                scenario.gpu.name
            )
        },
    );
    let actions = ShareActions::new(props, &status, &embed_open, &stem);
    let (status_text, failed) = match &*status {
        Status::Idle => (String::new(), false),
        Status::Done(text) => (text.clone(), false),
        Status::Failed(text) => (text.clone(), true),
    };
    html! {
        <div class="share">
            { share_buttons(actions, no_view, *embed_open) }
            <p id={SHARE_STATUS_ID} class={classes!("share-status", failed.then_some("failed"))} role="status">{ status_text }</p>
            if *embed_open {
                <EmbedPanel view={props.shared.clone()} title={title.clone()} />
            }
            if let Some(scenario) = scenario {
                { print_header(title, scenario, (*print_link).clone()) }
            }
            { print_inputs(&props.shared) }
        </div>
    }
}

/// The bar's buttons, in their order; the exports of the curve and chart, the print and the
/// report wait for a view that fits.
fn share_buttons(actions: ShareActions, no_view: bool, embed_open: bool) -> Html {
    let ShareActions {
        copy_link,
        export_json,
        import,
        export_csv,
        export_png,
        print,
        download_report,
        toggle_embed,
        reset,
    } = actions;
    html! {
        <div class="share-bar" role="group" aria-label="Share and export">
            <button type="button" class="button" id={COPY_LINK_ID} onclick={copy_link}>{ "Copy link" }</button>
            <button type="button" class="button" id={EXPORT_JSON_ID} onclick={export_json}>{ "Export JSON" }</button>
            <input type="file" id={IMPORT_JSON_ID} class="file-input" accept=".json,application/json" onchange={import} />
            <label for={IMPORT_JSON_ID} class="button">{ "Import JSON" }</label>
            <button type="button" class="button" id={EXPORT_CSV_ID} onclick={export_csv} disabled={no_view}>{ "CSV of curve" }</button>
            <button type="button" class="button" id={EXPORT_PNG_ID} onclick={export_png} disabled={no_view}>{ "PNG of chart" }</button>
            <button type="button" class="button" id={PRINT_ID} onclick={print} disabled={no_view}>{ "Print summary" }</button>
            <button type="button" class="button" id={REPORT_ID} onclick={download_report} disabled={no_view}>{ "Download report" }</button>
            <button type="button" class="button" id={EMBED_BUTTON_ID} onclick={toggle_embed}
                aria-expanded={if embed_open { "true" } else { "false" }} aria-controls={EMBED_PANEL_ID}>{ "Embed" }</button>
            <button type="button" class="button" id={RESET_ID} onclick={reset}>{ "Reset to defaults" }</button>
        </div>
    }
}

/// The print-only header: the title, the scenario in a sentence and the link that reproduces it.
fn print_header(title: String, scenario: &Scenario, link: String) -> Html {
    html! {
        <div class="print-only print-header">
            <p class="print-title">{ title }</p>
            <p class="print-sentence">{ crate::present::sentences::scenario_sentence(scenario) }</p>
            <p class="print-link">{ "Reproduce this page: " }{ link }</p>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct EmbedPanelProps {
    view: ViewState,
    title: AttrValue,
}

/// The `<iframe>` snippet for the current view, with a Copy button.
#[function_component(EmbedPanel)]
fn embed_panel(props: &EmbedPanelProps) -> Html {
    let copied = use_state(|| None::<&'static str>);
    let snippet = share::embed_snippet(&page_base_url(), &props.view, &props.title);
    let onclick = {
        let (copied, snippet) = (copied.clone(), snippet.clone());
        Callback::from(move |event: MouseEvent| {
            let textarea = event
                .target_dyn_into::<web_sys::Element>()
                .and_then(|button| button.closest(".embed-panel").ok().flatten())
                .and_then(|panel| {
                    panel
                        .query_selector(&format!("#{EMBED_SNIPPET_ID}"))
                        .ok()
                        .flatten()
                })
                .and_then(|element| element.dyn_into::<web_sys::HtmlTextAreaElement>().ok());
            let (copied, snippet) = (copied.clone(), snippet.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match write_clipboard(snippet).await {
                    Ok(()) => copied.set(Some("Copied to the clipboard.")),
                    Err(_) => {
                        if let Some(textarea) = textarea {
                            textarea.select();
                        }
                        copied.set(Some("The browser did not allow copying; the snippet is selected, press Ctrl+C (⌘C)."));
                    }
                }
            });
        })
    };
    html! {
        <div class="embed-panel" id={EMBED_PANEL_ID}>
            <label for={EMBED_SNIPPET_ID}>{ "Paste this into a page to embed the chart, the batch-size slider and $/M for this scenario:" }</label>
            <textarea id={EMBED_SNIPPET_ID} readonly=true rows="3" spellcheck="false" value={snippet} />
            <div class="embed-panel-actions">
                <button type="button" class="button" id="embed-copy" {onclick}>{ "Copy" }</button>
                <span class="copy-status" role="status">{ (*copied).unwrap_or("") }</span>
            </div>
            <p class="hint">{ "Add controls=model,gpu (any control ids) to show those controls, theme=light or theme=dark to fix the theme. The widget posts its height to the page (docs/EMBED.md)." }</p>
        </div>
    }
}
