//! servecost: a model of LLM serving performance and cost, with a browser explorer and a CLI.
//!
//! The tree is the map (ARCHITECTURE.md): the pure core (`units`, `json`, `catalog`, `scenario`,
//! `model`, `sim`) never touches the web or a clock; `decide`, `calibration`, `present` and `share`
//! build on it; `cli` (native) and `ui` (wasm32, Yew) are the shells.

// The pure core: units, data, the one door in, the analytic model and the simulator.
pub mod catalog;
pub mod json;
pub mod model;
pub mod scenario;
pub mod sim;
pub mod units;

// Built on the core: decisions, calibration, presentation, state that travels.
pub mod calibration;
pub mod decide;
pub mod present;
pub mod share;

// The page's state and reducers as plain Rust (the Yew shell dispatches into them).
pub mod page;

// The shells.
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(target_arch = "wasm32")]
pub mod ui;
