//! The explorer module (first load): the page `App`, its scenario controls and knobs, the Pareto
//! chart, the slider, the numbers, notes and assumptions, and the embed (the production-gap waterfall
//! under the chart is the tools module's, `ui::tools::production_gap`).

pub mod advanced;
pub mod app;
pub mod assumptions;
pub mod chart_axes;
pub mod chart_canvas;
pub mod controls;
pub mod custom_model;
pub mod embed;
pub mod notes;
pub mod numbers;
pub mod techniques;
