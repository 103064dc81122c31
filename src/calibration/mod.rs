//! The model against measurements: predicted vs published rows (`validate`), engine profiles fitted
//! per engine, stack and deployment and cross-validated by publication, GPU type and model
//! (`profiles`), the expected-error table built from the cross-validation by publication
//! (`error_bands`), the generated `docs/VALIDATION.md` (`markdown`), fitting the knobs to a
//! user's own benchmark (`calibrate`), and the published rows that match a scenario, each with its
//! prediction (`measured`). Uses the core; the core never uses it.

pub mod calibrate;
pub mod error_bands;
pub mod markdown;
pub mod measured;
pub mod profiles;
pub mod validate;
