//! The model against measurements: predicted vs published rows (`validate`), grid-search
//! calibration and cross-validation of the efficiency knobs (`fit`), engine profiles fitted
//! per engine and stack and cross-validated by GPU type and by model (`profiles`), the expected-error
//! table built from that cross-validation (`error_bands`), and fitting the knobs to a
//! user's own benchmark (`calibrate`). Uses the core; the core never uses it.

pub mod calibrate;
pub mod error_bands;
pub mod fit;
pub mod profiles;
pub mod validate;
