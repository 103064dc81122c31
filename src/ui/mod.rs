//! The Yew front end (wasm32 only): components, one file per concept, around a single `State`
//! reducer. Nothing here computes the model; it calls `model`, `chart` and `report`.
//!
//! `start()` is the page's entry: it installs the panic hook (a visible `#fatal-error` banner
//! instead of a dead page) and mounts `App` into `#app` (or `<body>` if the shell lacks it).

pub mod advanced;
pub mod app;
pub mod assumptions;
pub mod bench_hook;
pub mod break_even;
pub mod calibrate_panel;
pub mod canvas_backend;
pub mod chart_axes;
pub mod chart_canvas;
pub mod compare;
pub mod controls;
pub mod cost;
pub mod custom_model;
pub mod decision_data;
pub mod decision_fields;
pub mod decision_inputs;
pub mod decision_panels;
pub mod decisions;
pub mod download;
pub mod embed;
pub mod export;
pub mod fields;
pub mod glossary;
pub mod knob;
pub mod knob_fields;
pub mod knobs;
pub mod load_canvas;
pub mod metric;
pub mod notes;
pub mod numbers;
pub mod panic;
pub mod perf;
pub mod pins;
pub mod plan_panel;
pub mod share_sync;
pub mod sim_panel;
pub mod slider;
pub mod state;
pub mod synthetic;
pub mod targets;
pub mod techniques;
pub mod tools;
pub mod tools_link;

pub use app::App;

/// Id of the element the app mounts into (`index.html`).
pub const ROOT_ID: &str = "app";

/// The real page reads and writes its URL and remembers the last scenario.
fn page_props() -> app::AppProps {
    app::AppProps {
        query: None,
        sync_location: true,
        tools: tools_link::page_host(),
    }
}

/// Install the panic hook and render the app.
pub fn start() {
    perf::mark_start();
    panic::install();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(ROOT_ID));
    match root {
        Some(root) => {
            yew::Renderer::<App>::with_root_and_props(root, page_props()).render();
        }
        None => {
            yew::Renderer::<App>::with_props(page_props()).render();
        }
    }
}
