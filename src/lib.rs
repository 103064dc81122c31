//! servecost: a model of LLM serving performance and cost, with a browser explorer and a CLI.
//!
//! The tree is the map (ARCHITECTURE.md): the pure core never touches the web or a clock, and its
//! floors import only downwards: `units`, `json` and `choice` ← `catalog` ← `physics` (the vocabulary:
//! architecture, precision, parallelism, memory, engine profiles, one step's time, cost) ←
//! `scenario` (the one door in) ← `model` (the analytic steady state) ← `sim` (the simulator); `decide`, `calibration`, `present` and `share`
//! build on it; `cli` (native) and `ui` (wasm32, Yew) are the shells.

// The pure core, floor by floor: units and JSON, the data, the physics, the one door in, the
// analytic model and the simulator.
pub mod catalog;
pub mod choice;
pub mod json;
pub mod model;
pub mod physics;
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
