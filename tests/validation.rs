//! Fidelity gate: the model with its default knobs against the published measurements.
//! Fails if the median absolute error of output throughput rises above 15 %, or that of TPOT or
//! TTFT (rows that report them) above 20 % (issue: model fidelity).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use servecost::calibration::validate::validate;
use servecost::scenario::EfficiencyOverrides;

fn report() -> servecost::calibration::validate::Report {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/measurements.csv"
    ))
    .expect("read");
    validate(&text, &EfficiencyOverrides::default()).expect("validates")
}

#[test]
fn throughput_median_error_within_15_percent() {
    let r = report();
    let s = r.throughput.expect("throughput rows");
    assert!(s.rows >= 20, "only {} rows ran", s.rows);
    assert!(
        s.median_abs_error <= 0.15,
        "median {:.1} %",
        s.median_abs_error * 100.0
    );
}

#[test]
fn latency_median_errors_within_20_percent() {
    let r = report();
    for (name, summary) in [("TPOT", r.tpot), ("TTFT", r.ttft)] {
        let s = summary.expect("latency rows");
        assert!(s.rows >= 3, "{name}: only {} rows", s.rows);
        assert!(
            s.median_abs_error <= 0.20,
            "{name}: median {:.1} %",
            s.median_abs_error * 100.0
        );
    }
}

#[test]
fn every_skip_has_a_reason_and_no_row_is_lost() {
    let r = report();
    assert_eq!(r.rows.len() + r.skipped.len(), 36);
    assert!(r.skipped.iter().all(|s| !s.reason.is_empty()));
}

/// The shipped defaults are the grid optimum: re-running the fit finds no better knobs.
#[test]
fn defaults_are_the_fit_optimum() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/measurements.csv"
    ))
    .expect("read");
    let fit =
        servecost::calibration::fit::fit(&text, &EfficiencyOverrides::default()).expect("fits");
    let defaults = servecost::model::efficiency::Efficiency::NVIDIA_DATACENTER;
    assert_eq!(
        (
            fit.eta_mem,
            fit.eta_compute,
            fit.step_overhead_ms,
            fit.layer_overhead_us
        ),
        (
            defaults.eta_mem,
            defaults.eta_compute,
            defaults.step_overhead_ms,
            defaults.layer_overhead_us
        )
    );
}
