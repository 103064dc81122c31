//! Calibrate from your own benchmark: measured points (concurrency, output tok/s, TPOT, TTFT),
//! pasted as CSV or imported from `vllm bench serve` result JSON, fit the efficiency knobs by
//! least squares on log error, and report measured vs fitted with residuals.
//!
//! MODEL.md §8: fit `η_m`, `t_it0`, `t_L0`, `η_c` (knobs 1–4) on log-latency and throughput.
//! Method: a coarse grid inside §8's plausible ranges, then coordinate refinement (halving steps)
//! around the best grid point. Deterministic and bounded (fixed number of evaluations).
//!
//! A fit says when it cannot tell (`FitVerdict`): fewer measured concurrencies than knobs fit
//! only as many knobs as there are points (in the order η_m, η_c, t_it0, t_L0: the batch-1
//! bandwidth scale first) and name the rest as kept at their defaults; a knob that ends at its
//! bound is named (the data want more or less than the model allows); and a median residual
//! above `POOR_FIT_MEDIAN` says the model does not fit the points.

use crate::catalog::csv;
use crate::json::{self, Value};
use crate::model::evaluate;
use crate::scenario::{EfficiencyOverrides, Scenario, ScenarioError, ScenarioInput};
use serde::Serialize;

/// One measured operating point; any metric may be missing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeasuredPoint {
    pub concurrency: u32,
    pub output_tok_s: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub ttft_ms: Option<f64>,
}

/// Parse measured points from CSV (header with `concurrency` and any of `output_tok_s`,
/// `tpot_ms`, `ttft_ms`) or from `vllm bench serve` JSON (one result object or a list; keys
/// `max_concurrency`, `output_throughput`, `mean_tpot_ms`, `mean_ttft_ms`). Errors name the
/// line, key or column.
pub fn parse_measurements(text: &str) -> Result<Vec<MeasuredPoint>, String> {
    let trimmed = text.trim_start();
    let points = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        parse_vllm_json(text)?
    } else {
        parse_csv(text)?
    };
    if points.is_empty() {
        return Err("no measured points found".into());
    }
    Ok(points)
}

fn positive(value: Option<f64>, what: &str) -> Result<Option<f64>, String> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => {
            Err(format!("{what} must be a positive number (got {v})"))
        }
        other => Ok(other),
    }
}

fn concurrency(value: f64, what: &str) -> Result<u32, String> {
    if value.is_finite() && value >= 1.0 && value.fract() == 0.0 && value <= 1_000_000.0 {
        Ok(value as u32)
    } else {
        Err(format!(
            "{what} must be a whole number from 1 to 1000000 (got {value})"
        ))
    }
}

fn parse_csv(text: &str) -> Result<Vec<MeasuredPoint>, String> {
    let records = csv::parse_records(text).map_err(|e| e.to_string())?;
    let mut points = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let line = index + 2;
        let c = csv::number(record, "concurrency")
            .map_err(|e| format!("line {line}: {e}"))?
            .ok_or_else(|| format!("line {line}: column `concurrency` is empty or missing"))?;
        let metric = |column: &str| -> Result<Option<f64>, String> {
            positive(
                csv::number(record, column).map_err(|e| format!("line {line}: {e}"))?,
                &format!("line {line}: `{column}`"),
            )
        };
        let point = MeasuredPoint {
            concurrency: concurrency(c, &format!("line {line}: `concurrency`"))?,
            output_tok_s: metric("output_tok_s")?,
            tpot_ms: metric("tpot_ms")?,
            ttft_ms: metric("ttft_ms")?,
        };
        if point.output_tok_s.is_none() && point.tpot_ms.is_none() && point.ttft_ms.is_none() {
            return Err(format!(
                "line {line}: no metric (output_tok_s, tpot_ms or ttft_ms)"
            ));
        }
        points.push(point);
    }
    Ok(points)
}

fn parse_vllm_json(text: &str) -> Result<Vec<MeasuredPoint>, String> {
    let value = json::parse(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let results: Vec<&Value> = match &value {
        Value::Array(items) => items.iter().collect(),
        object @ Value::Object(_) => vec![object],
        _ => return Err("expected a vllm bench serve result object or a list of them".into()),
    };
    let mut points = Vec::new();
    for (index, result) in results.iter().enumerate() {
        let number = |key: &str| result.get(key).and_then(Value::as_f64);
        let c = number("max_concurrency")
            .ok_or_else(|| format!("result {}: key `max_concurrency` is missing (run vllm bench serve with --max-concurrency)", index + 1))?;
        let point = MeasuredPoint {
            concurrency: concurrency(c, &format!("result {}: `max_concurrency`", index + 1))?,
            output_tok_s: positive(
                number("output_throughput"),
                &format!("result {}: `output_throughput`", index + 1),
            )?,
            tpot_ms: positive(
                number("mean_tpot_ms"),
                &format!("result {}: `mean_tpot_ms`", index + 1),
            )?,
            ttft_ms: positive(
                number("mean_ttft_ms"),
                &format!("result {}: `mean_ttft_ms`", index + 1),
            )?,
        };
        if point.output_tok_s.is_none() && point.tpot_ms.is_none() && point.ttft_ms.is_none() {
            return Err(format!(
                "result {}: none of output_throughput, mean_tpot_ms, mean_ttft_ms",
                index + 1
            ));
        }
        points.push(point);
    }
    Ok(points)
}

/// Measured vs fitted for one point; residuals are `ln(fitted/measured)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Residual {
    pub concurrency: u32,
    pub measured: MeasuredPoint,
    pub fitted_output_tok_s: f64,
    pub fitted_tpot_ms: f64,
    pub fitted_ttft_ms: f64,
    pub residual_output_tok_s: Option<f64>,
    pub residual_tpot_ms: Option<f64>,
    pub residual_ttft_ms: Option<f64>,
}

/// How far a fit can be trusted, stated plainly beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitVerdict {
    /// Distinct measured concurrencies (rows at one concurrency count once).
    pub points: usize,
    /// Knobs fitted (at most one per point), in `KNOB_NAMES` order.
    pub knobs_fitted: Vec<&'static str>,
    /// Knobs kept at the scenario's values because the points cannot determine them.
    pub knobs_kept: Vec<&'static str>,
    /// Median of |fitted ÷ measured − 1| over every measured number after the fit.
    pub median_residual: f64,
    /// Sentences for the user; empty when nothing limits the fit.
    pub warnings: Vec<String>,
}

/// The fitted knobs and how well they fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    pub eta_mem: f64,
    pub eta_compute: f64,
    pub step_overhead_ms: f64,
    pub layer_overhead_us: f64,
    /// Root mean square of the log residuals before and after fitting.
    pub rms_log_error_before: f64,
    pub rms_log_error_after: f64,
    pub residuals: Vec<Residual>,
    pub verdict: FitVerdict,
}

impl Calibration {
    /// The fitted knobs as overrides to apply to a scenario (and a share link); a knob kept at
    /// its default stays as it was in `base`.
    pub fn overrides(&self, base: &EfficiencyOverrides) -> EfficiencyOverrides {
        let fitted = |name: &str| self.verdict.knobs_fitted.contains(&name);
        let [eta_mem, eta_compute, step, layer] = KNOB_NAMES;
        EfficiencyOverrides {
            eta_mem: if fitted(eta_mem) {
                Some(self.eta_mem)
            } else {
                base.eta_mem
            },
            eta_compute: if fitted(eta_compute) {
                Some(self.eta_compute)
            } else {
                base.eta_compute
            },
            step_overhead_ms: if fitted(step) {
                Some(self.step_overhead_ms)
            } else {
                base.step_overhead_ms
            },
            layer_overhead_us: if fitted(layer) {
                Some(self.layer_overhead_us)
            } else {
                base.layer_overhead_us
            },
            ..base.clone()
        }
    }
}

/// Knob bounds (MODEL.md §8 plausible ranges): (min, max) for η_m, η_c, t_it0 ms, t_L0 µs.
const BOUNDS: [(f64, f64); 4] = [(0.3, 1.0), (0.2, 0.95), (0.0, 10.0), (0.0, 60.0)];
/// The knobs as the page and MODEL.md §8 name them, in fitting priority (and `BOUNDS`) order.
pub const KNOB_NAMES: [&str; 4] = ["η_m", "η_c", "t_it0", "t_L0"];
/// A median residual above this (25 %) means the model does not fit the points; the model's
/// own median error against published measurements is near 10 % (docs/VALIDATION.md).
pub const POOR_FIT_MEDIAN: f64 = 0.25;

/// Median |fitted ÷ measured − 1| over every measured number (∞ for none).
fn median_residual(residuals: &[Residual]) -> f64 {
    let mut errors: Vec<f64> = log_residuals(residuals)
        .map(|v| (v.exp() - 1.0).abs())
        .collect();
    if errors.is_empty() {
        return f64::INFINITY;
    }
    errors.sort_by(f64::total_cmp);
    let mid = errors.len() / 2;
    let upper = errors.get(mid).copied().unwrap_or(f64::INFINITY);
    if errors.len() % 2 == 1 {
        upper
    } else {
        let lower = errors.get(mid.wrapping_sub(1)).copied().unwrap_or(upper);
        (lower + upper) / 2.0
    }
}

/// The verdict on a fit of `free` knobs to `points` distinct concurrencies ending at `knobs`.
fn verdict(points: usize, free: usize, knobs: [f64; 4], residuals: &[Residual]) -> FitVerdict {
    let knobs_fitted: Vec<&'static str> = KNOB_NAMES.iter().take(free).copied().collect();
    let knobs_kept: Vec<&'static str> = KNOB_NAMES.iter().skip(free).copied().collect();
    let mut warnings = Vec::new();
    if !knobs_kept.is_empty() {
        warnings.push(format!(
            "{points} point{} cannot determine {} knobs: fitted {} only; {} kept at {} defaults",
            if points == 1 { "" } else { "s" },
            KNOB_NAMES.len(),
            knobs_fitted.join(", "),
            knobs_kept.join(", "),
            if knobs_kept.len() == 1 {
                "its"
            } else {
                "their"
            }
        ));
    }
    for ((name, value), (lo, hi)) in KNOB_NAMES.iter().zip(knobs).zip(BOUNDS).take(free) {
        let near = |bound: f64| (value - bound).abs() <= 1e-9 * bound.abs().max(1.0);
        if near(hi) {
            warnings.push(format!(
                "{name} hit its upper bound {hi}: the data want more than the model allows"
            ));
        } else if near(lo) {
            warnings.push(format!(
                "{name} hit its lower bound {lo}: the data want less than the model allows"
            ));
        }
    }
    let median = median_residual(residuals);
    if median > POOR_FIT_MEDIAN {
        warnings.push(format!(
            "median residual {:.0} %: the model does not fit these points",
            median * 100.0
        ));
    }
    FitVerdict {
        points,
        knobs_fitted,
        knobs_kept,
        median_residual: median,
        warnings,
    }
}

fn residuals(
    input: &ScenarioInput,
    knobs: [f64; 4],
    points: &[MeasuredPoint],
) -> Result<Vec<Residual>, ScenarioError> {
    let mut scenario_input = input.clone();
    scenario_input.efficiency.eta_mem = Some(knobs[0]);
    scenario_input.efficiency.eta_compute = Some(knobs[1]);
    scenario_input.efficiency.step_overhead_ms = Some(knobs[2]);
    scenario_input.efficiency.layer_overhead_us = Some(knobs[3]);
    let scenario = Scenario::try_from(scenario_input)?;
    Ok(points
        .iter()
        .map(|m| {
            let p = evaluate(&scenario.with_concurrency(m.concurrency));
            let log = |fitted: f64, measured: Option<f64>| measured.map(|v| (fitted / v).ln());
            Residual {
                concurrency: m.concurrency,
                measured: *m,
                fitted_output_tok_s: p.output_tok_s,
                fitted_tpot_ms: p.tpot_ms,
                fitted_ttft_ms: p.ttft_ms,
                residual_output_tok_s: log(p.output_tok_s, m.output_tok_s),
                residual_tpot_ms: log(p.tpot_ms, m.tpot_ms),
                residual_ttft_ms: log(p.ttft_ms, m.ttft_ms),
            }
        })
        .collect())
}

/// Every finite log residual (tok/s, TPOT, TTFT) of the points.
fn log_residuals(residuals: &[Residual]) -> impl Iterator<Item = f64> + '_ {
    residuals
        .iter()
        .flat_map(|r| {
            [
                r.residual_output_tok_s,
                r.residual_tpot_ms,
                r.residual_ttft_ms,
            ]
        })
        .flatten()
        .filter(|v| v.is_finite())
}

fn rms(residuals: &[Residual]) -> f64 {
    let logs: Vec<f64> = log_residuals(residuals).collect();
    if logs.is_empty() {
        return f64::INFINITY;
    }
    (logs.iter().map(|v| v * v).sum::<f64>() / logs.len() as f64).sqrt()
}

/// Fit the knobs of `input` (whose other settings describe the benchmarked deployment) to `points`.
pub fn calibrate(
    input: &ScenarioInput,
    points: &[MeasuredPoint],
) -> Result<Calibration, ScenarioError> {
    let start_scenario = Scenario::try_from(input.clone())?;
    let e = start_scenario.efficiency;
    let start = [
        e.eta_mem,
        e.eta_compute,
        e.step_overhead_ms,
        e.layer_overhead_us,
    ];
    let before = rms(&residuals(input, start, points)?);
    let score = |knobs: [f64; 4]| {
        residuals(input, knobs, points)
            .map(|r| rms(&r))
            .unwrap_or(f64::INFINITY)
    };

    // One knob per distinct measured concurrency, at most four: the rest keep their values.
    let mut concurrencies: Vec<u32> = points.iter().map(|p| p.concurrency).collect();
    concurrencies.sort_unstable();
    concurrencies.dedup();
    let free = concurrencies.len().min(KNOB_NAMES.len());
    let grid = |k: usize, values: &[f64]| -> Vec<f64> {
        if k < free {
            values.to_vec()
        } else {
            start.get(k).map(|v| vec![*v]).unwrap_or_default()
        }
    };

    let mut best = (score(start), start);
    for eta_mem in grid(0, &[0.5, 0.6, 0.7, 0.8, 0.9]) {
        for eta_compute in grid(1, &[0.35, 0.5, 0.65, 0.8]) {
            for step in grid(2, &[0.25, 1.0, 2.0, 4.0]) {
                for layer in grid(3, &[5.0, 15.0, 30.0]) {
                    let knobs = [eta_mem, eta_compute, step, layer];
                    let s = score(knobs);
                    if s < best.0 {
                        best = (s, knobs);
                    }
                }
            }
        }
    }
    // Coordinate refinement: try ± step on each knob, halve the steps when nothing improves.
    let mut steps = [0.05, 0.05, 0.25, 2.5];
    for _ in 0..12 {
        let mut improved = false;
        for (k, step) in steps.iter().enumerate().take(free) {
            for sign in [-1.0, 1.0] {
                let mut knobs = best.1;
                if let (Some(value), Some((lo, hi))) = (knobs.get_mut(k), BOUNDS.get(k)) {
                    *value = (*value + sign * step).clamp(*lo, *hi);
                }
                let s = score(knobs);
                if s < best.0 {
                    best = (s, knobs);
                    improved = true;
                }
            }
        }
        if !improved {
            steps.iter_mut().for_each(|s| *s /= 2.0);
        }
    }
    let fitted = residuals(input, best.1, points)?;
    let verdict = verdict(concurrencies.len(), free, best.1, &fitted);
    Ok(Calibration {
        eta_mem: best.1[0],
        eta_compute: best.1[1],
        step_overhead_ms: best.1[2],
        layer_overhead_us: best.1[3],
        rms_log_error_before: before,
        rms_log_error_after: rms(&fitted),
        residuals: fitted,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> ScenarioInput {
        ScenarioInput {
            length_dist: crate::scenario::LengthDist::Fixed,
            input_len: 1000.0,
            output_len: 200.0,
            ..ScenarioInput::small_reference()
        }
    }

    /// Synthetic benchmark from known knobs: the fit recovers a model that reproduces them.
    #[test]
    fn recovers_known_knobs() {
        let mut truth = base();
        truth.efficiency.eta_mem = Some(0.66);
        truth.efficiency.eta_compute = Some(0.55);
        truth.efficiency.step_overhead_ms = Some(1.2);
        truth.efficiency.layer_overhead_us = Some(12.0);
        let scenario = Scenario::try_from(truth).expect("valid");
        let points: Vec<MeasuredPoint> = [1, 8, 32, 128]
            .iter()
            .map(|&c| {
                let p = evaluate(&scenario.with_concurrency(c));
                MeasuredPoint {
                    concurrency: c,
                    output_tok_s: Some(p.output_tok_s),
                    tpot_ms: Some(p.tpot_ms),
                    ttft_ms: Some(p.ttft_ms),
                }
            })
            .collect();
        let fit = calibrate(&base(), &points).expect("fits");
        assert!(fit.rms_log_error_after < 0.02, "{fit:?}");
        assert!(fit.rms_log_error_after < fit.rms_log_error_before);
        assert!(fit.verdict.warnings.is_empty(), "{:?}", fit.verdict);
        assert_eq!(fit.verdict.knobs_fitted, KNOB_NAMES);
        assert!(fit.verdict.knobs_kept.is_empty());
    }

    /// One row cannot determine four knobs: the fit says so and moves only η_m (today's page
    /// would otherwise "fit" all four to under 1 %).
    #[test]
    fn one_row_is_under_determined_and_says_so() {
        let points = parse_measurements("concurrency,output_tok_s,tpot_ms,ttft_ms\n8,420,19,160\n")
            .expect("csv");
        let start = Scenario::try_from(base()).expect("valid").efficiency;
        let fit = calibrate(&base(), &points).expect("fits");
        assert_eq!(fit.verdict.points, 1);
        assert_eq!(fit.verdict.knobs_fitted, ["η_m"]);
        assert_eq!(fit.verdict.knobs_kept, ["η_c", "t_it0", "t_L0"]);
        let first = fit.verdict.warnings.first().expect("a warning");
        assert!(
            first.starts_with("1 point cannot determine 4 knobs: fitted η_m only; η_c, t_it0, t_L0 kept at their defaults"),
            "{first}"
        );
        assert_eq!(fit.eta_compute, start.eta_compute);
        assert_eq!(fit.step_overhead_ms, start.step_overhead_ms);
        assert_eq!(fit.layer_overhead_us, start.layer_overhead_us);
        let applied = fit.overrides(&EfficiencyOverrides::default());
        assert_eq!(applied.eta_mem, Some(fit.eta_mem));
        assert_eq!(applied.eta_compute, None, "a kept knob is not pinned");
    }

    /// Points no knob setting reproduces: a bound is hit and the residual is called poor.
    #[test]
    fn impossible_points_name_the_bound_and_the_poor_residual() {
        // Far faster than any H100 can stream the weights: η_m would need to exceed 1.
        let csv = "concurrency,output_tok_s,tpot_ms\n1,5000,0.2\n8,40000,0.2\n32,160000,0.2\n64,320000,0.2\n";
        let fit = calibrate(&base(), &parse_measurements(csv).expect("csv")).expect("fits");
        let text = fit.verdict.warnings.join("; ");
        assert!(
            text.contains("η_m hit its upper bound 1: the data want more than the model allows"),
            "{text}"
        );
        assert!(
            text.contains("the model does not fit these points"),
            "{text}"
        );
        assert!(fit.verdict.median_residual > POOR_FIT_MEDIAN);
    }

    #[test]
    fn parses_csv_and_vllm_json() {
        let csv = "concurrency,output_tok_s,tpot_ms,ttft_ms\n1,150,6.5,40\n64,3500,,\n";
        let points = parse_measurements(csv).expect("csv");
        assert_eq!(points.len(), 2);
        assert_eq!(points[1].tpot_ms, None);
        let json = r#"{"max_concurrency": 16, "output_throughput": 1800.5, "mean_tpot_ms": 8.1, "mean_ttft_ms": 55.0, "completed": 500}"#;
        let points = parse_measurements(json).expect("json");
        assert_eq!(points[0].concurrency, 16);
        assert!(parse_measurements(r#"{"output_throughput": 5}"#)
            .unwrap_err()
            .contains("max_concurrency"));
        assert!(parse_measurements("concurrency,output_tok_s\n0,5\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(parse_measurements("concurrency,output_tok_s\n4,-5\n")
            .unwrap_err()
            .contains("output_tok_s"));
    }
}
