//! Small reusable components: the log-scale slider, a metric with its definition, glossary
//! terms, the knob and decision-field controls, and what a cost shows without a price.

pub mod decision_inputs;
pub mod field_control;
pub mod glossary;
pub mod metric;
pub mod price;
pub mod slider;
