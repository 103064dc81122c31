//! Measured points beside the model (issue 13 §2): the rows of `data/measurements.csv` that
//! match the scenario on screen, each with the prediction validation makes for it
//! (`calibration::validate::validate_records`, the shipped profiles) and the error. Only the
//! tools module uses this (the CSV is compiled into it, not into the explorer).
//!
//! **Match rule.** Same model id and GPU id as the scenario; the row's input and output lengths
//! each within `LENGTH_TOLERANCE` (15 %) of the scenario's mean lengths. Rows that state no input
//! or output length (the MLPerf rows) cannot be checked and never match; `server` rows (Poisson
//! arrivals, whose prediction is a 20 000-request simulation) are left out of the page. Precision
//! and engine may differ from the scenario's and are shown beside each row.
//!
//! **On the chart** a row is a point at x = 1000 / measured TPOT (tokens/s per user) and y =
//! measured output tok/s ÷ its GPU count; rows without a measured TPOT or throughput (offline
//! tables) are only in the table.

use crate::calibration::validate::{validate_records, RowResult};
use crate::catalog::csv::{self, Record};
use crate::scenario::{fields, EfficiencyOverrides, Scenario};

pub use crate::scenario::measurements::{near, records, LENGTH_TOLERANCE};

/// One matching row.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRow {
    pub id: String,
    pub source: String,
    pub engine: String,
    pub precision: String,
    pub num_gpus: f64,
    pub mode: String,
    pub concurrency: Option<f64>,
    pub input_len: f64,
    pub output_len: f64,
    /// (tokens/s per user, output tokens/s per GPU) for the chart, when the row measured both.
    pub chart_point: Option<(f64, f64)>,
    /// The model's prediction and error per metric; `None` when the row does not run.
    pub prediction: Option<RowResult>,
}

/// Whether a row matches the scenario (module doc).
pub fn matches(record: &Record, scenario: &Scenario) -> bool {
    crate::scenario::measurements::matches(
        record,
        &scenario.model.id,
        &scenario.gpu.id,
        (scenario.workload.input_mean, scenario.workload.output_mean),
    )
}

/// The rows of `records` matching the scenario, with their predictions.
pub fn matching_in(records: &[Record], scenario: &Scenario) -> Vec<MeasuredRow> {
    records
        .iter()
        .filter(|r| matches(r, scenario))
        .map(|record| {
            let number = |column: &str| csv::number(record, column).ok().flatten();
            let num_gpus = number("num_gpus").unwrap_or(1.0).max(1.0);
            let chart_point = match (number("tpot_ms"), number("output_tok_s_total")) {
                (Some(tpot), Some(tok_s)) if tpot > 0.0 => Some((1000.0 / tpot, tok_s / num_gpus)),
                _ => None,
            };
            let prediction = validate_records(
                std::slice::from_ref(record),
                &EfficiencyOverrides::default(),
            )
            .rows
            .into_iter()
            .next();
            MeasuredRow {
                id: csv::text(record, "id").into(),
                source: csv::text(record, "source").into(),
                engine: csv::text(record, fields::ENGINE.key).into(),
                precision: csv::text(record, fields::PRECISION.key).into(),
                num_gpus,
                mode: csv::text(record, "mode").into(),
                concurrency: number(fields::CONCURRENCY.key),
                input_len: number("input_len").unwrap_or(0.0),
                output_len: number("output_len").unwrap_or(0.0),
                chart_point,
                prediction,
            }
        })
        .collect()
}

/// The bundled rows matching the scenario.
pub fn matching(scenario: &Scenario) -> Vec<MeasuredRow> {
    matching_in(records(), scenario)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;

    fn scenario(input: ScenarioInput) -> Scenario {
        Scenario::try_from(input).expect("valid")
    }

    #[test]
    fn rows_match_on_model_gpu_and_lengths_within_15_percent() {
        let deepseek = |input_len: f64, output_len: f64, gpu: &str| {
            scenario(ScenarioInput {
                model: "deepseek-r1".into(),
                gpu: gpu.into(),
                input_len,
                output_len,
                tp: Some(8.0),
                ..ScenarioInput::default()
            })
        };
        let rows = matching(&deepseek(1000.0, 1000.0, "mi300x"));
        assert!(!rows.is_empty(), "InferenceX DeepSeek-R1 1k/1k on MI300X");
        for row in &rows {
            assert!(near(row.input_len, 1000.0) && near(row.output_len, 1000.0));
            let p = row.prediction.as_ref().expect("runs");
            assert_eq!(p.id, row.id);
            assert!(p.throughput.is_some());
            assert!(
                row.chart_point.is_some(),
                "{} measured TPOT and tok/s",
                row.id
            );
        }
        // 16 % longer prompts: no longer the same workload.
        let longer = matching(&deepseek(1000.0 / 0.86 + 1.0, 1000.0, "mi300x"));
        assert!(longer.is_empty(), "{longer:?}");
        assert!(near(1150.0, 1000.0) && !near(1151.0, 1000.0));
        // Another model's rows on the same GPU do not match.
        let llama = scenario(ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu: "mi300x".into(),
            input_len: 1000.0,
            output_len: 1000.0,
            ..ScenarioInput::default()
        });
        assert!(matching(&llama).is_empty());
    }

    #[test]
    fn rows_without_lengths_never_match() {
        let mut record = records()
            .iter()
            .find(|r| csv::text(r, "id").starts_with("MLP41-"))
            .expect("an MLPerf row")
            .clone();
        let s = scenario(ScenarioInput {
            model: csv::text(&record, "model_id").into(),
            gpu: csv::text(&record, "gpu_id").into(),
            ..ScenarioInput::default()
        });
        assert!(!matches(&record, &s));
        record.insert("input_len".into(), format!("{}", s.workload.input_mean));
        record.insert("output_len".into(), format!("{}", s.workload.output_mean));
        record.insert("mode".into(), "offline".into());
        assert!(matches(&record, &s));
    }
}
