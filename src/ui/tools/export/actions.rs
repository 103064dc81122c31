//! What the share bar's buttons do (`export.rs` draws them): each export, the import, Copy link
//! and Reset as a callback that reports on the bar's status line.

use super::{
    chart_canvas_near, describe, now_utc, ShareBarProps, Status, APP_VERSION, REPORT_PAINT_DELAY_MS,
};
use crate::page::report::{client_report, ReportContext};
use crate::page::state::View;
use crate::share::{self, ViewState};
use crate::ui::platform::canvas_backend::prefers_dark;
use crate::ui::platform::download::{
    chart_png, download_data_url, download_text, read_chosen_file,
};
use crate::ui::platform::share_sync::link_to;
use crate::ui::tools::assumptions::write_clipboard;
use gloo::timers::callback::Timeout;
use yew::prelude::*;

/// What each button of the bar does.
pub(super) struct ShareActions {
    pub(super) copy_link: Callback<MouseEvent>,
    pub(super) export_json: Callback<MouseEvent>,
    pub(super) import: Callback<Event>,
    pub(super) export_csv: Callback<MouseEvent>,
    pub(super) export_png: Callback<MouseEvent>,
    pub(super) print: Callback<MouseEvent>,
    pub(super) download_report: Callback<MouseEvent>,
    pub(super) toggle_embed: Callback<MouseEvent>,
    pub(super) reset: Callback<MouseEvent>,
}

impl ShareActions {
    pub(super) fn new(
        props: &ShareBarProps,
        status: &UseStateHandle<Status>,
        embed_open: &UseStateHandle<bool>,
        stem: &str,
    ) -> ShareActions {
        let toggle_embed = {
            let embed_open = embed_open.clone();
            Callback::from(move |_: MouseEvent| embed_open.set(!*embed_open))
        };
        ShareActions {
            copy_link: copy_link(status, link_to(&props.shared)),
            export_json: export_json(status, stem, props.shared.clone()),
            import: import(status, props.on_import.clone()),
            export_csv: export_csv(status, stem, props.view.clone()),
            export_png: export_png(status, stem, props.view.clone()),
            print: Callback::from(|_: MouseEvent| {
                if let Some(window) = web_sys::window() {
                    let _ = window.print();
                }
            }),
            download_report: download_report(status, stem, props.shared.clone()),
            toggle_embed,
            reset: reset(status, props.on_import.clone()),
        }
    }
}

/// The status line after an export: `done`, or why the browser refused.
fn report(status: &UseStateHandle<Status>, done: &str, result: Result<(), wasm_bindgen::JsValue>) {
    match result {
        Ok(()) => status.set(Status::Done(done.to_string())),
        Err(error) => status.set(Status::Failed(format!(
            "Export failed: {}.",
            describe(error)
        ))),
    }
}

/// Export JSON: what a link reproduces, as a file.
fn export_json(
    status: &UseStateHandle<Status>,
    stem: &str,
    view: ViewState,
) -> Callback<MouseEvent> {
    let (status, stem) = (status.clone(), stem.to_string());
    Callback::from(move |_: MouseEvent| {
        let result = download_text(
            &format!("{stem}.json"),
            "application/json",
            &share::to_json(&view),
        );
        report(&status, "Saved the scenario as JSON.", result);
    })
}

/// An export of the view: nothing without one, else `export` (given the click, the view and the
/// file name's stem) and its outcome on the status line.
fn export_view(
    status: &UseStateHandle<Status>,
    stem: &str,
    view: Option<View>,
    done: &'static str,
    export: impl Fn(&MouseEvent, &View, &str) -> Result<(), wasm_bindgen::JsValue> + 'static,
) -> Callback<MouseEvent> {
    let (status, stem) = (status.clone(), stem.to_string());
    Callback::from(move |event: MouseEvent| {
        let Some(view) = view.as_ref() else {
            return;
        };
        report(&status, done, export(&event, view, &stem));
    })
}

/// CSV of the curve.
fn export_csv(
    status: &UseStateHandle<Status>,
    stem: &str,
    view: Option<View>,
) -> Callback<MouseEvent> {
    export_view(
        status,
        stem,
        view,
        "Saved the curve as CSV.",
        |_, view, stem| {
            let csv = share::curve_csv(&view.scenario, &view.point, &view.curve, APP_VERSION);
            download_text(&format!("{stem}.csv"), "text/csv", &csv)
        },
    )
}

/// PNG of the page's chart with its caption.
fn export_png(
    status: &UseStateHandle<Status>,
    stem: &str,
    view: Option<View>,
) -> Callback<MouseEvent> {
    export_view(
        status,
        stem,
        view,
        "Saved the chart as PNG.",
        |event, view, stem| {
            let caption = share::chart_caption(&view.scenario, &view.point, APP_VERSION);
            chart_canvas_near(event)
                .ok_or_else(|| wasm_bindgen::JsValue::from_str("the chart is not on the page"))
                .and_then(|canvas| chart_png(&canvas, &caption, prefers_dark()))
                .and_then(|url| download_data_url(&format!("{stem}.png"), &url))
        },
    )
}

/// The client report (`page::report`), built in a task of its own once its status has painted.
fn download_report(
    status: &UseStateHandle<Status>,
    stem: &str,
    view: ViewState,
) -> Callback<MouseEvent> {
    let (status, stem) = (status.clone(), stem.to_string());
    Callback::from(move |_: MouseEvent| {
        status.set(Status::Done(
            "Building the report (the plan runs first)…".into(),
        ));
        let (status, view, stem) = (status.clone(), view.clone(), stem.clone());
        // A task of its own, after the status line has painted: the plan takes a moment.
        Timeout::new(REPORT_PAINT_DELAY_MS, move || {
            let context = ReportContext {
                generated: now_utc(),
                link: link_to(&view),
            };
            let result = client_report(&view, &context)
                .map_err(|why| format!("The report could not be built: {why}."))
                .and_then(|html| {
                    download_text(&format!("{stem}-report.html"), "text/html", &html)
                        .map_err(|e| format!("Export failed: {}.", describe(e)))
                });
            match result {
                Ok(()) => status.set(Status::Done(
                    "Saved the report as one HTML file (opens offline, prints on A4).".into(),
                )),
                Err(why) => status.set(Status::Failed(why)),
            }
        })
        .forget();
    })
}

/// Import JSON: the chosen file read locally through `share::from_json`; a failure keeps the view.
fn import(status: &UseStateHandle<Status>, on_import: Callback<ViewState>) -> Callback<Event> {
    let status = status.clone();
    Callback::from(move |event: Event| {
        let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() else {
            return;
        };
        let (status, on_import) = (status.clone(), on_import.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = read_chosen_file(&input)
                .await
                .and_then(|text| share::from_json(&text));
            // Let the same file be chosen again after a fix.
            input.set_value("");
            match result {
                Ok(view) => {
                    on_import.emit(view);
                    status.set(Status::Done("Imported the scenario.".into()));
                }
                Err(why) => status.set(Status::Failed(format!(
                    "Import failed: {why}. The current view is kept."
                ))),
            }
        });
    })
}

/// Copy link: the link to this view onto the clipboard, or shown when the browser refuses.
fn copy_link(status: &UseStateHandle<Status>, link: String) -> Callback<MouseEvent> {
    let status = status.clone();
    Callback::from(move |_: MouseEvent| {
        let (status, link) = (status.clone(), link.clone());
        wasm_bindgen_futures::spawn_local(async move {
            match write_clipboard(link.clone()).await {
                Ok(()) => status.set(Status::Done("Copied the link to this view.".into())),
                Err(_) => status.set(Status::Failed(format!(
                    "The browser did not allow copying; the link is {link}"
                ))),
            }
        });
    })
}

/// Reset to defaults: the default view, pins removed.
fn reset(status: &UseStateHandle<Status>, on_import: Callback<ViewState>) -> Callback<MouseEvent> {
    let status = status.clone();
    Callback::from(move |_: MouseEvent| {
        on_import.emit(ViewState::default());
        status.set(Status::Done(
            "Reset every input to its default (pins removed).".into(),
        ));
    })
}
