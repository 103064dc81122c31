//! The model against measurements: predicted vs published rows (`validate`), grid-search
//! calibration and cross-validation of the efficiency knobs (`fit`), and fitting the knobs to a
//! user's own benchmark (`calibrate`). Uses the core; the core never uses it.

pub mod calibrate;
pub mod fit;
pub mod validate;
