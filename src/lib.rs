//! servecost: a model of LLM serving performance and cost, with a browser explorer and a CLI.
//!
//! The pure core (`units`, `catalog`, `model`, `sim`, `scenario`, `chart`, `report`) never
//! touches the web or a clock; `ui` is the Yew front end, compiled only for wasm32.

pub mod calibrate;
pub mod catalog;
pub mod chart;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod fit;
pub mod glossary;
pub mod json;
pub mod model;
pub mod plan;
pub mod pricing;
pub mod report;
pub mod scenario;
pub mod share;
pub mod sim;
pub mod sizing;
pub mod slo_sim;
pub mod units;
pub mod validate;

#[cfg(target_arch = "wasm32")]
pub mod ui;
