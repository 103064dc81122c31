//! `servecost validate`: predicted vs measured for a measurements file; `--fit` grid-searches the
//! efficiency knobs, `--cross-validate` reports out-of-sample errors of that fit.

use super::args::{self, Flags, UsageError, SCENARIO_FLAGS};
use super::Outcome;

pub(super) fn validate_command(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let [path] = flags.positional.as_slice() else {
        return Outcome::usage("validate takes one file: servecost validate FILE.csv [--json]");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return Outcome::usage(format!("{path}: {e}")),
    };
    let overrides = match args::efficiency_overrides(&flags) {
        Ok(o) => o,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--cross-validate") {
        return match crate::calibration::fit::cross_validate(&text, 5, &overrides) {
            Ok(report) => Outcome::ok(format!(
                "5-fold cross-validation: each row predicted with knobs fitted on the other folds\n\n{}",
                crate::calibration::validate::render(&report)
            )),
            Err(e) => Outcome::usage(format!("{path}: {e}")),
        };
    }
    if flags.has("--fit") {
        return match crate::calibration::fit::fit(&text, &overrides) {
            Ok(fit) if flags.has("--json") => Outcome::json(&fit),
            Ok(fit) => Outcome::ok(format!(
                "Best knobs on the grid (mean |ln error| {:.3} over {} comparisons):\n  --eta-mem {} --eta-compute {} --step-overhead-ms {} --layer-overhead-us {}\n\n{}",
                fit.objective,
                fit.comparisons,
                fit.eta_mem,
                fit.eta_compute,
                fit.step_overhead_ms,
                fit.layer_overhead_us,
                crate::calibration::validate::render(&fit.report)
            )),
            Err(e) => Outcome::usage(format!("{path}: {e}")),
        };
    }
    match crate::calibration::validate::validate(&text, &overrides) {
        Ok(report) if flags.has("--json") => Outcome::json(&report),
        Ok(report) => Outcome::ok(crate::calibration::validate::render(&report)),
        Err(e) => Outcome::usage(format!("{path}: {e}")),
    }
}
