//! Fitting the efficiency knobs to measurements: an exhaustive grid search over the four knobs
//! MODEL.md §8 ranks most impactful (`η_m`, `η_c`, `t_it0`, `t_L0`), minimising the mean absolute
//! log error of every compared metric (throughput, TPOT, TTFT) over every row that runs.
//!
//! The grid stays inside §8's physically plausible ranges (η ≤ 0.95, per-layer floor 5–30 µs,
//! per-step overhead 0.25–3 ms), so a fit can never buy accuracy with an impossible machine.
//! This is how the defaults in `efficiency.rs` were produced (`servecost validate FILE --fit`).

use crate::calibration::validate::{summarise_rows, validate_records, Report};
use crate::catalog::csv::{self, Record};
use crate::scenario::EfficiencyOverrides;
use serde::Serialize;

/// The grid searched (each knob's candidate values).
pub const ETA_MEM: [f64; 8] = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
pub const ETA_COMPUTE: [f64; 9] = [0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85];
pub const STEP_OVERHEAD_MS: [f64; 8] = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0];
pub const LAYER_OVERHEAD_US: [f64; 5] = [5.0, 10.0, 15.0, 20.0, 30.0];

/// Best knobs found and the report under them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitResult {
    pub eta_mem: f64,
    pub eta_compute: f64,
    pub step_overhead_ms: f64,
    pub layer_overhead_us: f64,
    /// Mean |ln(predicted/measured)| over all compared metrics.
    pub objective: f64,
    pub comparisons: usize,
    pub report: Report,
}

/// Mean absolute log error over every comparison in a report, and how many there were.
pub fn objective(report: &Report) -> (f64, usize) {
    let errors: Vec<f64> = report
        .rows
        .iter()
        .flat_map(|r| [r.throughput, r.tpot, r.ttft])
        .flatten()
        .map(|c| (c.predicted / c.measured).ln().abs())
        .collect();
    if errors.is_empty() {
        return (f64::INFINITY, 0);
    }
    (
        errors.iter().sum::<f64>() / errors.len() as f64,
        errors.len(),
    )
}

/// Search the grid on a measurements CSV; `base` holds knobs kept fixed.
pub fn fit(text: &str, base: &EfficiencyOverrides) -> Result<FitResult, String> {
    let records = csv::parse_records(text).map_err(|e| e.to_string())?;
    fit_records(&records, base)
}

/// K-fold cross-validation of the fit: rows are dealt round-robin into `folds` groups; each
/// group is predicted with knobs fitted on the others. The report holds only out-of-sample
/// predictions, an honest estimate of the error on measurements the defaults never saw.
pub fn cross_validate(
    text: &str,
    folds: usize,
    base: &EfficiencyOverrides,
) -> Result<Report, String> {
    let records = csv::parse_records(text).map_err(|e| e.to_string())?;
    let folds = folds.max(2);
    let mut out_of_sample = Vec::new();
    for fold in 0..folds {
        let held: Vec<Record> = records
            .iter()
            .enumerate()
            .filter(|(i, _)| i % folds == fold)
            .map(|(_, r)| r.clone())
            .collect();
        let kept: Vec<Record> = records
            .iter()
            .enumerate()
            .filter(|(i, _)| i % folds != fold)
            .map(|(_, r)| r.clone())
            .collect();
        let fitted = fit_records(&kept, base)?;
        let knobs = EfficiencyOverrides {
            eta_mem: Some(fitted.eta_mem),
            eta_compute: Some(fitted.eta_compute),
            step_overhead_ms: Some(fitted.step_overhead_ms),
            layer_overhead_us: Some(fitted.layer_overhead_us),
            ..base.clone()
        };
        out_of_sample.extend(validate_records(&held, &knobs).rows);
    }
    Ok(summarise_rows(out_of_sample))
}

fn fit_records(records: &[Record], base: &EfficiencyOverrides) -> Result<FitResult, String> {
    let mut best: Option<(f64, usize, EfficiencyOverrides)> = None;
    for eta_mem in ETA_MEM {
        for eta_compute in ETA_COMPUTE {
            for step_overhead_ms in STEP_OVERHEAD_MS {
                for layer_overhead_us in LAYER_OVERHEAD_US {
                    let knobs = EfficiencyOverrides {
                        eta_mem: Some(eta_mem),
                        eta_compute: Some(eta_compute),
                        step_overhead_ms: Some(step_overhead_ms),
                        layer_overhead_us: Some(layer_overhead_us),
                        ..base.clone()
                    };
                    let report = validate_records(records, &knobs);
                    let (score, count) = objective(&report);
                    if best.as_ref().is_none_or(|(b, _, _)| score < *b) {
                        best = Some((score, count, knobs));
                    }
                }
            }
        }
    }
    let (score, count, knobs) = best.ok_or("no grid point evaluated")?;
    let report = validate_records(records, &knobs);
    Ok(FitResult {
        eta_mem: knobs.eta_mem.unwrap_or(0.0),
        eta_compute: knobs.eta_compute.unwrap_or(0.0),
        step_overhead_ms: knobs.step_overhead_ms.unwrap_or(0.0),
        layer_overhead_us: knobs.layer_overhead_us.unwrap_or(0.0),
        objective: score,
        comparisons: count,
        report,
    })
}
