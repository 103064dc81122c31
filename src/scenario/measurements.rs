//! The bundled published measurements (`data/measurements.csv`, the file `servecost validate`
//! reads) and the rule that matches a row to a configuration: the page's measured points
//! (`calibration::measured`) and the sizing's "measured" badge (`decide::sizing`) read them here.
//!
//! **Match rule.** Same model id and GPU id; the row's input and output lengths each within
//! `LENGTH_TOLERANCE` (15 %) of the configuration's mean lengths. Rows that state no input or
//! output length (the MLPerf rows) cannot be checked and never match; `server` rows (Poisson
//! arrivals) never match.

use crate::catalog::csv::{self, Record};
use crate::choice::Choice;
use crate::physics::engine::Deployment;
use crate::physics::precision::Precision;
use crate::scenario::fields::{CONCURRENCY, DEPLOYMENT, ENGINE, EP, PRECISION, TP};
use std::sync::OnceLock;

/// The bundled measurements.
const MEASUREMENTS_CSV: &str = include_str!("../../data/measurements.csv");

/// How far a row's lengths may be from the configuration's and still match.
pub const LENGTH_TOLERANCE: f64 = 0.15;

/// How far a row's concurrency may be from a sized point's and still back it (`at_point`).
pub const CONCURRENCY_TOLERANCE: f64 = 0.25;

/// The bundled rows, parsed once.
pub fn records() -> &'static [Record] {
    static RECORDS: OnceLock<Vec<Record>> = OnceLock::new();
    RECORDS.get_or_init(|| csv::parse_records(MEASUREMENTS_CSV).unwrap_or_default())
}

/// Whether `measured` is within the tolerance of `wanted`.
pub fn near(measured: f64, wanted: f64) -> bool {
    wanted > 0.0 && ((measured - wanted) / wanted).abs() <= LENGTH_TOLERANCE
}

/// Whether a row matches a configuration of `model_id` on `gpu_id` with these mean lengths
/// (module doc).
pub fn matches(record: &Record, model_id: &str, gpu_id: &str, (input, output): (f64, f64)) -> bool {
    let number = |column: &str| csv::number(record, column).ok().flatten();
    csv::text(record, "model_id") == model_id
        && csv::text(record, "gpu_id") == gpu_id
        && csv::text(record, "mode") != "server"
        && number("input_len").is_some_and(|n| near(n, input))
        && number("output_len").is_some_and(|n| near(n, output))
}

/// A whole-number column of a row (`None` when empty or not a whole number).
fn count(record: &Record, column: &str) -> Option<u32> {
    let value = csv::number(record, column).ok().flatten()?;
    (value >= 1.0 && value.fract() == 0.0 && value <= f64::from(u32::MAX)).then_some(value as u32)
}

/// A configuration to find a published measurement of (`at_point`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Configuration<'a> {
    pub model_id: &'a str,
    pub gpu_id: &'a str,
    pub lengths: (f64, f64),
    pub precision: Precision,
    pub engine: &'a str,
    /// Tuned or stock (the data README's rule by source).
    pub deployment: Deployment,
    /// GPUs of one replica: the row's `num_gpus`.
    pub gpus_per_replica: u32,
    /// The replica's TP and EP (a row's empty `tp` or `ep` is 1).
    pub tp: u32,
    pub ep: u32,
    pub concurrency: u32,
}

/// The published measurement of a configuration near its concurrency (issue 26 §7's "measured"
/// badge): a closed-loop row (`mode = concurrency`) matching it (module doc) with the same
/// precision, engine, deployment and TP × EP, whose GPUs are one replica, at a concurrency
/// within 25 % of the
/// configuration's (the nearest such row): its id, concurrency and measured output tok/s.
/// `None` when no row is that close.
pub fn at_point(c: &Configuration) -> Option<(String, f64, f64)> {
    let wanted = f64::from(c.concurrency.max(1));
    records()
        .iter()
        .filter(|r| matches(r, c.model_id, c.gpu_id, c.lengths))
        .filter(|r| {
            csv::text(r, "mode") == CONCURRENCY.key
                && Precision::parse(csv::text(r, PRECISION.key)) == Some(c.precision)
                && csv::text(r, ENGINE.key) == c.engine
                && Deployment::parse(csv::text(r, DEPLOYMENT.key)) == Some(c.deployment)
                && count(r, "num_gpus") == Some(c.gpus_per_replica)
                && count(r, TP.key).unwrap_or(1) == c.tp
                && count(r, EP.key).unwrap_or(1) == c.ep
        })
        .filter_map(|r| {
            let number = |column: &str| csv::number(r, column).ok().flatten();
            let at = number(CONCURRENCY.key)?;
            let tok_s = number("output_tok_s_total").filter(|t| *t > 0.0)?;
            let off = ((at - wanted) / wanted).abs();
            (off <= CONCURRENCY_TOLERANCE).then(|| (off, csv::text(r, "id").to_string(), at, tok_s))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id, at, tok_s)| (id, at, tok_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ix_h200(concurrency: u32) -> Configuration<'static> {
        Configuration {
            model_id: "deepseek-r1",
            gpu_id: "h200-sxm",
            lengths: (1000.0, 8000.0),
            precision: Precision::Fp8,
            engine: "sglang",
            deployment: Deployment::Tuned,
            gpus_per_replica: 8,
            tp: 8,
            ep: 1,
            concurrency,
        }
    }

    #[test]
    fn a_measurement_backs_a_point_only_of_its_own_configuration_and_near_its_concurrency() {
        assert!(!records().is_empty());
        let (id, at, tok_s) = at_point(&ix_h200(60)).expect("InferenceX H200 TP 8 1k/8k");
        assert!(id.starts_with("IX-"), "{id}");
        assert!(((at - 60.0) / 60.0).abs() <= CONCURRENCY_TOLERANCE, "{at}");
        assert!(tok_s > 0.0);
        // Far from every measured concurrency, another engine, or another layout: none.
        assert_eq!(at_point(&ix_h200(4000)), None);
        assert_eq!(
            at_point(&Configuration {
                engine: "vllm",
                ..ix_h200(60)
            }),
            None
        );
        assert_eq!(
            at_point(&Configuration {
                tp: 4,
                gpus_per_replica: 4,
                ..ix_h200(60)
            }),
            None
        );
        assert_eq!(
            at_point(&Configuration {
                deployment: Deployment::Stock,
                ..ix_h200(60)
            }),
            None
        );
    }
}
