//! The Yew front end (wasm32 only): components, one file per concept, around a single `State`
//! reducer. Nothing here computes the model; it calls `model`, `chart` and `report`.
//!
//! `start()` is the page's entry: it installs the panic hook (a visible `#fatal-error` banner
//! instead of a dead page) and mounts `App` into `#app` (or `<body>` if the shell lacks it).

pub mod app;
pub mod assumptions;
pub mod canvas_backend;
pub mod chart_canvas;
pub mod controls;
pub mod fields;
pub mod metric;
pub mod notes;
pub mod numbers;
pub mod panic;
pub mod perf;
pub mod slider;
pub mod state;

pub use app::App;

/// Id of the element the app mounts into (`index.html`).
pub const ROOT_ID: &str = "app";

/// Install the panic hook and render the app.
pub fn start() {
    panic::install();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(ROOT_ID));
    match root {
        Some(root) => {
            yew::Renderer::<App>::with_root(root).render();
        }
        None => {
            yew::Renderer::<App>::new().render();
        }
    }
}
