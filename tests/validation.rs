//! Fidelity gate: the model against the published measurements (`data/measurements.csv`).
//!
//! **The gate is cross-validated error by group** (issues 12 §7 and 25 §4): one publication at a
//! time (the primary gate: what a source the model never saw should expect), then one GPU type,
//! then one model, is held out whole; the engine profiles (`physics::engine`, per engine × stack ×
//! deployment) are fitted on the other groups' rows only (`calibration::profiles::fit_profiles`)
//! and the held-out rows are predicted with them, through the same fallbacks a user gets (an
//! engine, stack or deployment without a training row runs the generic, shifted or prior
//! profile). So a row never grades knobs that its own source, GPU or model helped choose. Pooled
//! over every held-out row, the median and p80 absolute errors of output tok/s, TPOT and TTFT
//! must stay under the bounds below, which sit a modest margin above the errors measured when
//! they were set (docs/VALIDATION.md, "Errors").
//!
//! Issue 25's targets are medians of 20 / 20 / 35 % (tok/s, TPOT, TTFT) held out by source and
//! 15 / 15 / 30 % held out by GPU type and by model. Only throughput held out by source meets its
//! target yet (TPOT and TTFT do not, nor any held out by GPU or model, with the stock rows in
//! the file: bursts and ROCm stock runs): the bounds record where the model stands, so that a
//! change that makes out-of-sample predictions worse fails, and
//! `cross_validated_errors_report_against_the_targets` prints the targets beside the measured
//! figures.
//!
//! The shipped profiles are the fit on the whole file (`shipped_profiles_are_the_fit`), and
//! their in-sample errors are a secondary bound.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use servecost::calibration::profiles::{
    cross_validate_groups, fit_profiles, table, GroupBy, GroupReport, ProfileFit,
};
use servecost::calibration::validate::{validate, Report, Summary};
use servecost::catalog::csv::{parse_records, Record};
use servecost::choice::Choice;
use servecost::physics::engine::FITTED;
use servecost::scenario::EfficiencyOverrides;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Upper bounds on an absolute relative error: `(median, p80)` for output tok/s, TPOT, TTFT.
struct Bounds {
    throughput: (f64, f64),
    tpot: (f64, f64),
    ttft: (f64, f64),
}

/// Holding out one publication at a time (the primary gate). Measured when set (median / p80):
/// tok/s 19.6 / 76.8 %, TPOT 24.9 / 50.4 %, TTFT 61.1 / 82.9 %.
const BY_SOURCE: Bounds = Bounds {
    throughput: (0.21, 0.79),
    tpot: (0.27, 0.53),
    ttft: (0.64, 0.86),
};

/// Holding out one GPU type at a time. Measured when set (median / p80):
/// tok/s 16.7 / 76.1 %, TPOT 30.3 / 53.9 %, TTFT 47.6 / 65.7 %.
const BY_GPU: Bounds = Bounds {
    throughput: (0.18, 0.79),
    tpot: (0.32, 0.56),
    ttft: (0.50, 0.68),
};

/// Holding out one model at a time. Measured when set (median / p80):
/// tok/s 20.4 / 74.8 %, TPOT 25.1 / 52.6 %, TTFT 60.9 / 83.3 %.
const BY_MODEL: Bounds = Bounds {
    throughput: (0.22, 0.77),
    tpot: (0.27, 0.55),
    ttft: (0.64, 0.86),
};

/// The shipped profiles on every row (in sample). Measured when set (median / p80):
/// tok/s 10.3 / 30.3 %, TPOT 13.6 / 40.7 %, TTFT 22.3 / 52.5 %.
const IN_SAMPLE: Bounds = Bounds {
    throughput: (0.12, 0.32),
    tpot: (0.15, 0.43),
    ttft: (0.24, 0.55),
};

/// Rows that report each metric: 117 tok/s, 97 TPOT, 97 TTFT.
const MIN_ROWS: (usize, usize, usize) = (117, 97, 97);

fn measurements() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/measurements.csv"
        ))
        .expect("read")
    })
}

fn records() -> Vec<Record> {
    parse_records(measurements()).expect("parses")
}

/// Each grouping's cross-validation, computed once.
fn cross_validated(by: GroupBy) -> &'static GroupReport {
    static REPORTS: OnceLock<Vec<GroupReport>> = OnceLock::new();
    let reports = REPORTS.get_or_init(|| {
        GroupBy::ALL
            .iter()
            .copied()
            .map(|by| {
                cross_validate_groups(&records(), &EfficiencyOverrides::default(), by)
                    .expect("cross-validates")
            })
            .collect()
    });
    reports.iter().find(|r| r.by == by).expect("computed")
}

fn shipped() -> Report {
    shipped_report().clone()
}

/// The shipped profiles on every row, computed once.
fn shipped_report() -> &'static Report {
    static REPORT: OnceLock<Report> = OnceLock::new();
    REPORT.get_or_init(|| {
        validate(measurements(), &EfficiencyOverrides::default()).expect("validates")
    })
}

fn check(name: &str, summary: Option<Summary>, min_rows: usize, (median, p80): (f64, f64)) {
    let s = summary.unwrap_or_else(|| panic!("{name}: no rows"));
    assert!(s.rows >= min_rows, "{name}: only {} rows", s.rows);
    assert!(
        s.median_abs_error <= median,
        "{name}: median {:.1} % above the {:.1} % bound",
        s.median_abs_error * 100.0,
        median * 100.0
    );
    assert!(
        s.p80_abs_error <= p80,
        "{name}: p80 {:.1} % above the {:.1} % bound",
        s.p80_abs_error * 100.0,
        p80 * 100.0
    );
}

fn check_report(what: &str, report: &Report, bounds: &Bounds) {
    let (tok, tpot, ttft) = MIN_ROWS;
    check(
        &format!("{what}, output tok/s"),
        report.throughput,
        tok,
        bounds.throughput,
    );
    check(&format!("{what}, TPOT"), report.tpot, tpot, bounds.tpot);
    check(&format!("{what}, TTFT"), report.ttft, ttft, bounds.ttft);
}

#[test]
fn cross_validated_by_source_within_bounds() {
    check_report(
        "by source",
        &cross_validated(GroupBy::Source).report,
        &BY_SOURCE,
    );
}

#[test]
fn cross_validated_by_gpu_type_within_bounds() {
    check_report("by GPU", &cross_validated(GroupBy::Gpu).report, &BY_GPU);
}

#[test]
fn cross_validated_by_model_within_bounds() {
    check_report(
        "by model",
        &cross_validated(GroupBy::Model).report,
        &BY_MODEL,
    );
}

#[test]
fn shipped_profiles_in_sample_within_bounds() {
    check_report("in sample", &shipped(), &IN_SAMPLE);
}

/// Prints each grouping's pooled medians against the targets and each held-out group's
/// errors (`cargo test --test validation -- --nocapture`), and checks that every group was
/// trained on the rest of the file.
#[test]
fn cross_validated_errors_report_against_the_targets() {
    let runnable = shipped().rows.len();
    for by in GroupBy::ALL.iter().copied() {
        let targets = servecost::calibration::markdown::targets(by);
        let r = cross_validated(by);
        let median = |s: Option<Summary>| s.map_or(f64::NAN, |s| s.median_abs_error * 100.0);
        println!(
            "{by:?}: tok/s {:.1} % (target {:.0} %), TPOT {:.1} % (target {:.0} %), TTFT {:.1} % (target {:.0} %)",
            median(r.report.throughput),
            targets.0 * 100.0,
            median(r.report.tpot),
            targets.1 * 100.0,
            median(r.report.ttft),
            targets.2 * 100.0
        );
        let mut held_out = 0;
        for g in &r.groups {
            println!(
                "  {:<16} trained on {:>3}: tok/s {:>6.1} %, TPOT {:>6.1} %, TTFT {:>6.1} %",
                g.group,
                g.trained_on,
                median(g.throughput),
                median(g.tpot),
                median(g.ttft)
            );
            let rows = g
                .throughput
                .map_or(0, |s| s.rows)
                .max(g.ttft.map_or(0, |s| s.rows));
            held_out += rows;
            assert!(g.trained_on + rows <= runnable, "{}", g.group);
            assert!(g.trained_on > 0, "{} trained on nothing", g.group);
        }
        assert!(held_out > 0);
    }
}

/// Every row that runs is predicted out of sample exactly once per grouping, in file order, and
/// the rows that cannot run are the same skipped rows.
#[test]
fn cross_validation_predicts_every_runnable_row_once() {
    let ids = |report: &Report| -> (Vec<String>, Vec<String>) {
        (
            report.rows.iter().map(|r| r.id.clone()).collect(),
            report.skipped.iter().map(|s| s.id.clone()).collect(),
        )
    };
    for by in GroupBy::ALL.iter().copied() {
        assert_eq!(ids(&cross_validated(by).report), ids(&shipped()), "{by:?}");
    }
}

/// 128 rows: 36 from vendor tables and reports, 38 InferenceX sweep points, 32 GPUStack and 22
/// dstack runs (stock). Every row is either
/// predicted or skipped with its reason; the only rows that cannot run are the eight MLPerf rows,
/// whose sources state no mean input length.
#[test]
fn every_skip_has_a_reason_and_no_row_is_lost() {
    let all = shipped();
    assert_eq!(all.rows.len() + all.skipped.len(), 128);
    assert_eq!(all.rows.len(), 120);
    let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    for skipped in &all.skipped {
        assert!(
            !skipped.reason.is_empty(),
            "{} skipped silently",
            skipped.id
        );
        *by_reason.entry(skipped.reason.as_str()).or_default() += 1;
    }
    assert_eq!(
        by_reason,
        BTreeMap::from([("input length not stated by the source", 8)])
    );
    assert!(all.skipped.iter().all(|s| s.id.starts_with("MLP41-")));
}

/// `validate --fit` on the whole file, computed once.
fn fits() -> &'static [ProfileFit] {
    static FITS: OnceLock<Vec<ProfileFit>> = OnceLock::new();
    FITS.get_or_init(|| fit_profiles(&records(), &EfficiencyOverrides::default()))
}

/// The shipped table `engine::FITTED` is what `servecost validate data/measurements.csv --fit`
/// finds: the same profiles, knobs and row counts, in the same order.
#[test]
fn shipped_profiles_are_the_fit() {
    let fitted = table(fits());
    assert_eq!(fitted.as_slice(), FITTED);
}

/// docs/VALIDATION.md is what `servecost validate data/measurements.csv --markdown` renders from
/// the current model: a refit regenerates it, nobody types its figures.
#[test]
fn the_validation_page_is_current() {
    use servecost::calibration::error_bands::{bands, row_errors_of};
    use servecost::calibration::markdown::{validation_markdown, Inputs};
    let folds: Vec<&GroupReport> = GroupBy::ALL.iter().copied().map(cross_validated).collect();
    let bands = bands(&row_errors_of(
        shipped_report(),
        cross_validated(GroupBy::Source),
    ));
    let page = validation_markdown(&Inputs {
        rows_in_file: records().len(),
        shipped: shipped_report(),
        fits: fits(),
        folds: &folds,
        bands: &bands,
    });
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/VALIDATION.md"))
            .expect("read docs/VALIDATION.md");
    assert!(
        committed == page,
        "docs/VALIDATION.md is stale: regenerate it with `servecost validate data/measurements.csv --markdown > docs/VALIDATION.md`"
    );
}

/// The shipped expected-error table `data/error_bands.csv` (what the page and the CLI quote
/// beside each number, `model::expected_error`) is what `servecost validate
/// data/measurements.csv --cross-validate --write-bands FILE` writes, and it reads back whole.
#[test]
fn shipped_error_bands_are_the_cross_validation() {
    use servecost::calibration::error_bands::{bands, render_csv, row_errors_of};
    use servecost::model::expected_error::{shipped, ERROR_BANDS_CSV};
    let rows = row_errors_of(shipped_report(), cross_validated(GroupBy::Source));
    assert_eq!(
        rows.len(),
        shipped_report_rows(),
        "one error per runnable row"
    );
    let generated = render_csv(&bands(&rows));
    assert_eq!(
        generated, ERROR_BANDS_CSV,
        "data/error_bands.csv is stale: regenerate it with `servecost validate data/measurements.csv --cross-validate --write-bands data/error_bands.csv`"
    );
    assert_eq!(shipped().len(), ERROR_BANDS_CSV.lines().count() - 1);
}

fn shipped_report_rows() -> usize {
    shipped_report().rows.len()
}
