//! The explorer module (first load): the page `App`, its scenario controls and knobs, the Pareto
//! chart, the slider, the numbers, notes and assumptions, synthetic vs production, and the embed.

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
pub mod synthetic;
pub mod techniques;
