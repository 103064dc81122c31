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
/// group is held out whole and predicted with knobs fitted on the others only. The report holds
/// only out-of-sample predictions, an honest estimate of the error on measurements the defaults
/// never saw. Fewer than two rows cannot be split, an error; more folds than rows means one row
/// per fold (leave-one-out).
pub fn cross_validate(
    text: &str,
    folds: usize,
    base: &EfficiencyOverrides,
) -> Result<Report, String> {
    let records = csv::parse_records(text).map_err(|e| e.to_string())?;
    let mut out_of_sample = Vec::new();
    for (held, knobs) in fold_fits(&records, folds, base)? {
        out_of_sample.extend(validate_records(&held, &knobs).rows);
    }
    Ok(summarise_rows(out_of_sample))
}

/// Each fold's held-out rows and the knobs fitted without them.
fn fold_fits(
    records: &[Record],
    folds: usize,
    base: &EfficiencyOverrides,
) -> Result<Vec<(Vec<Record>, EfficiencyOverrides)>, String> {
    if records.len() < 2 {
        return Err(format!(
            "cross-validation needs at least two rows, the file has {}",
            records.len()
        ));
    }
    let folds = folds.clamp(2, records.len());
    let mut fits = Vec::with_capacity(folds);
    for fold in 0..folds {
        let mut held = Vec::new();
        let mut kept = Vec::new();
        for (i, record) in records.iter().enumerate() {
            let group = if i % folds == fold {
                &mut held
            } else {
                &mut kept
            };
            group.push(record.clone());
        }
        let fitted = fit_records(&kept, base).map_err(|e| format!("fold {}: {e}", fold + 1))?;
        let knobs = EfficiencyOverrides {
            eta_mem: Some(fitted.eta_mem),
            eta_compute: Some(fitted.eta_compute),
            step_overhead_ms: Some(fitted.step_overhead_ms),
            layer_overhead_us: Some(fitted.layer_overhead_us),
            ..base.clone()
        };
        fits.push((held, knobs));
    }
    Ok(fits)
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
    if count == 0 {
        // Every grid point scores infinity: nothing to fit, not a fit at the grid's first point.
        return Err("no row could be run and compared with a measurement".into());
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::validate::{Comparison, RowResult};

    const HEADER: &str = "id,model_id,gpu_id,num_gpus,precision,engine,tp,input_len,output_len,mode,concurrency,output_tok_s_total,tpot_ms,ttft_ms";

    /// Closed-loop rows `(model, gpu, gpus, precision, input, output, concurrency)` chosen so each
    /// knob shows: batch-1 decode (η_m, t_it0, t_L0 with 32 and 80 layers), large batches and
    /// long prompts (η_c).
    const SHAPES: [(&str, &str, u32, &str, u32, u32, u32); 8] = [
        ("llama-3.1-8b", "h100-sxm", 1, "bf16", 1000, 200, 1),
        ("llama-3.1-8b", "h100-sxm", 1, "bf16", 1000, 200, 64),
        ("llama-3.1-8b", "h200-sxm", 1, "fp8", 8000, 50, 16),
        ("llama-3.1-70b", "h100-sxm", 4, "bf16", 2000, 100, 1),
        ("llama-3.1-70b", "h100-sxm", 4, "bf16", 500, 500, 32),
        ("llama-3.1-70b", "h200-sxm", 2, "fp8", 4000, 300, 8),
        ("llama-3.1-8b", "a100-sxm-80gb", 1, "bf16", 300, 300, 128),
        ("llama-3.1-70b", "a100-sxm-80gb", 8, "bf16", 16000, 20, 4),
    ];

    /// The knobs the synthetic measurements are made with: on the grid, none of them a default
    /// or the grid's first value.
    fn true_knobs() -> EfficiencyOverrides {
        EfficiencyOverrides {
            eta_mem: Some(0.85),
            eta_compute: Some(0.5),
            step_overhead_ms: Some(1.0),
            layer_overhead_us: Some(10.0),
            ..EfficiencyOverrides::default()
        }
    }

    fn csv_text(rows: &[String]) -> String {
        format!("{HEADER}\n{}\n", rows.join("\n"))
    }

    /// Parsed records written back as CSV text (the columns of `HEADER`).
    fn csv_of(records: &[Record]) -> String {
        let rows: Vec<String> = records
            .iter()
            .map(|r| {
                let cells: Vec<&str> = HEADER.split(',').map(|c| r[c].as_str()).collect();
                cells.join(",")
            })
            .collect();
        csv_text(&rows)
    }

    /// The measurements the model itself predicts under `knobs`, as a measurements CSV.
    fn synthetic_measurements(knobs: &EfficiencyOverrides) -> String {
        let shape_row = |i: usize,
                         shape: &(&str, &str, u32, &str, u32, u32, u32),
                         tok_s: f64,
                         tpot: f64,
                         ttft: f64| {
            let (model, gpu, gpus, precision, input, output, concurrency) = shape;
            format!("S{i},{model},{gpu},{gpus},{precision},vllm,{gpus},{input},{output},concurrency,{concurrency},{tok_s},{tpot},{ttft}")
        };
        let placeholders: Vec<String> = SHAPES
            .iter()
            .enumerate()
            .map(|(i, shape)| shape_row(i, shape, 1.0, 1.0, 1.0))
            .collect();
        let records = csv::parse_records(&csv_text(&placeholders)).unwrap();
        let report = validate_records(&records, knobs);
        assert!(report.skipped.is_empty(), "{:?}", report.skipped);
        let rows: Vec<String> = SHAPES
            .iter()
            .zip(&report.rows)
            .enumerate()
            .map(|(i, (shape, row))| {
                let predicted = |c: Option<Comparison>| c.unwrap().predicted;
                shape_row(
                    i,
                    shape,
                    predicted(row.throughput),
                    predicted(row.tpot),
                    predicted(row.ttft),
                )
            })
            .collect();
        csv_text(&rows)
    }

    fn knobs_of(fit: &FitResult) -> (f64, f64, f64, f64) {
        (
            fit.eta_mem,
            fit.eta_compute,
            fit.step_overhead_ms,
            fit.layer_overhead_us,
        )
    }

    #[test]
    fn the_grid_search_recovers_the_knobs_that_made_the_data() {
        let text = synthetic_measurements(&true_knobs());
        let fit = fit(&text, &EfficiencyOverrides::default()).unwrap();
        assert_eq!(knobs_of(&fit), (0.85, 0.5, 1.0, 10.0));
        assert_eq!(fit.comparisons, 3 * SHAPES.len());
        assert!(fit.objective < 1e-6, "objective {}", fit.objective);
    }

    #[test]
    fn objective_is_the_mean_absolute_log_error() {
        let text = synthetic_measurements(&true_knobs());
        let records = csv::parse_records(&text).unwrap();
        let report = validate_records(&records, &true_knobs());
        let (score, count) = objective(&report);
        assert_eq!(count, 3 * SHAPES.len());
        assert!(score < 1e-9);
        // Predictions twice the measurements everywhere: every |ln error| is ln 2.
        let doubled = Report {
            rows: report
                .rows
                .iter()
                .map(|r| {
                    let double = |c: Option<Comparison>| {
                        c.map(|c| Comparison {
                            predicted: 2.0 * c.measured,
                            ..c
                        })
                    };
                    RowResult {
                        throughput: double(r.throughput),
                        tpot: double(r.tpot),
                        ttft: double(r.ttft),
                        ..r.clone()
                    }
                })
                .collect(),
            ..report
        };
        let (score, _) = objective(&doubled);
        assert!((score - 2f64.ln()).abs() < 1e-12, "{score}");
    }

    /// A fold's knobs come from the other folds only: rewriting the held-out rows' measurements
    /// (three times the throughput, a third of the latencies) leaves that fold's knobs, and so its
    /// predictions, unchanged, while a fit that saw those rows moves.
    #[test]
    fn held_out_rows_do_not_reach_their_folds_fit() {
        let folds = 3;
        let text = synthetic_measurements(&true_knobs());
        let records = csv::parse_records(&text).unwrap();
        let mut changed = records.clone();
        for record in changed.iter_mut().step_by(folds) {
            let scale = |record: &mut Record, column: &str, factor: f64| {
                let value: f64 = record[column].parse().unwrap();
                record.insert(column.to_string(), (value * factor).to_string());
            };
            scale(record, "output_tok_s_total", 3.0);
            scale(record, "tpot_ms", 1.0 / 3.0);
            scale(record, "ttft_ms", 1.0 / 3.0);
        }
        let base = EfficiencyOverrides::default();
        let before = fold_fits(&records, folds, &base).unwrap();
        let after = fold_fits(&changed, folds, &base).unwrap();
        assert_eq!(before.len(), folds);
        // Fold 0 holds out exactly the changed rows and keeps its knobs.
        let held_ids = |fold: &(Vec<Record>, EfficiencyOverrides)| -> Vec<String> {
            fold.0.iter().map(|r| r["id"].clone()).collect()
        };
        assert_eq!(held_ids(&after[0]), ["S0", "S3", "S6"]);
        assert_eq!(after[0].1, before[0].1);
        // The other folds trained on the changed rows, and their fit follows them.
        assert_ne!(after[1].1, before[1].1);
        // So the changed rows' out-of-sample predictions are the same numbers as before.
        let predictions = |records: &[Record]| -> Vec<(String, Option<f64>)> {
            cross_validate(&csv_of(records), folds, &base)
                .unwrap()
                .rows
                .into_iter()
                .filter(|r| held_ids(&after[0]).contains(&r.id))
                .map(|r| (r.id, r.throughput.map(|c| c.predicted)))
                .collect()
        };
        assert_eq!(predictions(&records), predictions(&changed));
    }

    #[test]
    fn cross_validation_deals_every_row_into_exactly_one_fold() {
        let text = synthetic_measurements(&true_knobs());
        let report = cross_validate(&text, 3, &EfficiencyOverrides::default()).unwrap();
        let mut ids: Vec<String> = report.rows.iter().map(|r| r.id.clone()).collect();
        ids.sort();
        let mut expected: Vec<String> = (0..SHAPES.len()).map(|i| format!("S{i}")).collect();
        expected.sort();
        assert_eq!(ids, expected);
        // Data the model makes with knobs on the grid is predicted out of sample without error.
        let throughput = report.throughput.unwrap();
        assert_eq!(throughput.rows, SHAPES.len());
        assert!(throughput.median_abs_error < 1e-6, "{throughput:?}");
    }

    #[test]
    fn degenerate_input_is_an_error_not_a_panic_or_a_fit() {
        let base = EfficiencyOverrides::default();
        let text = synthetic_measurements(&true_knobs());
        let first_row: Vec<&str> = text.lines().take(2).collect();
        let one_row = first_row.join("\n");
        let unrunnable = format!(
            "{HEADER}\nX0,no-such-model,h100-sxm,1,bf16,vllm,1,100,100,concurrency,1,1,1,1"
        );
        // Empty file, header only, and rows none of which can be compared: no fit.
        for text in ["", HEADER, unrunnable.as_str()] {
            assert!(fit(text, &base).is_err(), "fit of {text:?}");
            assert!(
                cross_validate(text, 5, &base).is_err(),
                "cross-validation of {text:?}"
            );
        }
        // One row cannot be split into a training and a held-out group.
        assert!(fit(&one_row, &base).is_ok());
        let error = cross_validate(&one_row, 5, &base).unwrap_err();
        assert!(error.contains("at least two rows"), "{error}");
        // Two rows, one unrunnable: the fold that trains on the unrunnable row alone names itself.
        let two = format!("{one_row}\n{}", unrunnable.lines().nth(1).unwrap());
        let error = cross_validate(&two, 2, &base).unwrap_err();
        assert!(error.starts_with("fold 1:"), "{error}");
    }
}
