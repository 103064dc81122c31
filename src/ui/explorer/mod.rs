//! The explorer module (first load): the page `App`, its scenario controls and knobs, the Pareto
//! chart, the slider, the numbers, synthetic vs production, and the embed. The notes and the
//! assumptions, which only read the view, come with the tools module (`ui::tools::notes`,
//! `ui::tools::assumptions`), the notes into this page's `#notes-slot`.

pub mod advanced;
pub mod app;
pub mod chart_axes;
pub mod chart_canvas;
pub mod controls;
pub mod custom_model;
pub mod embed;
pub mod numbers;
pub mod synthetic;
pub mod techniques;
