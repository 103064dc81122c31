//! `servecost calibrate`: fit η_mem, η_compute and the overheads to a user's benchmark file, and
//! say when the points cannot tell (`FitVerdict`).

use super::args::{scenario_input, Flags, UsageError, SCENARIO_FLAGS};
use super::Outcome;
use crate::present::format::format_number;

pub(super) fn calibrate_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    known.push("--measurements");
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let Some(path) = flags.text("--measurements") else {
        return Outcome::usage("--measurements FILE.csv|FILE.json is required");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return Outcome::usage(format!("--measurements: {path}: {e}")),
    };
    let points = match crate::calibration::calibrate::parse_measurements(&text) {
        Ok(points) => points,
        Err(e) => return Outcome::usage(format!("--measurements: {path}: {e}")),
    };
    let input = match scenario_input(&flags) {
        Ok(input) => input,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let fit = match crate::calibration::calibrate::calibrate(&input, &points) {
        Ok(fit) => fit,
        Err(e) => return Outcome::bad_field(&e),
    };
    if flags.has("--json") {
        return Outcome::json(&fit);
    }
    let mut out = format!(
        "Fitted knobs (RMS log error {:.3} → {:.3}):\n  --eta-mem {:.3} --eta-compute {:.3} --step-overhead-ms {:.3} --layer-overhead-us {:.2}\n\n",
        fit.rms_log_error_before, fit.rms_log_error_after, fit.eta_mem, fit.eta_compute, fit.step_overhead_ms, fit.layer_overhead_us
    );
    // What the fit cannot tell, stated beside it (too few points, a knob at its bound, a poor
    // residual).
    if fit.verdict.warnings.is_empty() {
        out.push_str(&format!(
            "Fit quality: {} points for {} knobs, median residual {:.1} %.\n\n",
            fit.verdict.points,
            fit.verdict.knobs_fitted.len(),
            fit.verdict.median_residual * 100.0
        ));
    } else {
        out.push_str("Fit quality: this fit cannot be trusted as it stands:\n");
        for warning in &fit.verdict.warnings {
            out.push_str(&format!("  - {warning}\n"));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{:>6} | {:>10} {:>10} {:>7} | {:>8} {:>8} {:>7} | {:>8} {:>8} {:>7}\n",
        "conc", "tok/s", "fitted", "resid", "TPOT", "fitted", "resid", "TTFT", "fitted", "resid"
    ));
    let cell =
        |measured: Option<f64>, fitted: f64, residual: Option<f64>| match (measured, residual) {
            (Some(m), Some(r)) => format!(
                "{:>8} {:>8} {:>+6.1}%",
                format_number(m),
                format_number(fitted),
                (r.exp() - 1.0) * 100.0
            ),
            _ => format!("{:>8} {:>8} {:>7}", "–", format_number(fitted), ""),
        };
    for r in &fit.residuals {
        out.push_str(&format!(
            "{:>6} | {} | {} | {}\n",
            r.concurrency,
            cell(
                r.measured.output_tok_s,
                r.fitted_output_tok_s,
                r.residual_output_tok_s
            ),
            cell(r.measured.tpot_ms, r.fitted_tpot_ms, r.residual_tpot_ms),
            cell(r.measured.ttft_ms, r.fitted_ttft_ms, r.residual_ttft_ms)
        ));
    }
    Outcome::ok(out)
}
