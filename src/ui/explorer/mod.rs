//! The explorer module (first load): the page `App`, its scenario controls and knobs, the Pareto
//! chart, the slider, the numbers and the embed. The notes, the assumptions and the production-gap
//! waterfall, which only read the view, come with the tools module (`ui::tools::notes`,
//! `ui::tools::assumptions`, `ui::tools::production_gap`), the notes and the waterfall into this
//! page's `#notes-slot` and `#production-gap-slot`.

pub mod advanced;
pub mod app;
pub mod chart_axes;
pub mod chart_canvas;
pub mod controls;
pub mod custom_model;
pub mod embed;
pub mod numbers;
pub mod techniques;
