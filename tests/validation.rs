//! Fidelity gate: the model against the published measurements (`data/measurements.csv`).
//!
//! The gate is the cross-validated error: whole sources (one publication each: a vendor table, a
//! CI build, a benchmark page, one InferenceX run) are dealt into five folds, each fold held out
//! and predicted with knobs fitted on the other sources only, so a row never grades knobs that it
//! or a sibling from its own table helped choose. The bounds sit a modest margin above the errors
//! measured when they were set (docs/VALIDATION.md, "Errors"); a change to the model's structure
//! or to a constant the fit does not search (blend exponent, usable memory, link efficiency, ...)
//! that makes out-of-sample predictions materially worse fails here.
//!
//! **Gated per source family, each family cross-validated within itself.** The file holds two
//! families that one median cannot summarise: the vendor tables and reports (TensorRT-LLM tables,
//! NIM, vLLM CI, MLPerf; mostly dense models, errors of a few per cent) and the InferenceX
//! sweeps (`IX-*`: DeepSeek-R1 MoE on H200, B200 and MI300X, whose TTFT counts the queueing of a
//! burst start and whose cross-validated medians are 18–85 % off, a structural gap left to
//! issue 12). Pooled, the 38 InferenceX rows set every median (TTFT: 38 of 43 rows), so the
//! vendor-table rows could regress unseen; and a fold fitted on both families is pulled to the
//! grid's corners by the InferenceX errors, which raises the vendor-table cross-validated
//! medians (tok/s, TPOT, TTFT) from 9 / 7 / 5 % to 22 / 31 / 33 %. So each family gets its own
//! bounds, from a cross-validation over its own sources. The shipped defaults are the fit of the vendor-table family
//! (`defaults_are_the_fit_optimum`), so under them the InferenceX rows are out of sample.
//!
//! The errors of the shipped defaults on every row are a secondary bound, and the defaults must
//! stay the vendor-table fit's optimum: together they catch a default knob that drifted, which
//! cross-validation cannot see because it refits the four knobs in every fold.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use servecost::calibration::fit::cross_validate;
use servecost::calibration::validate::{validate, Report, Summary};
use servecost::scenario::EfficiencyOverrides;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Folds of whole sources, as `servecost validate --cross-validate` uses (the vendor tables have
/// five sources with rows that run, so their folds are leave-one-source-out; the eight
/// InferenceX runs are dealt into five folds).
const FOLDS: usize = 5;

/// Upper bounds on a cross-validated or in-sample absolute relative error: `(median, p80)` for
/// output tok/s, TPOT and TTFT.
struct Bounds {
    throughput: (f64, f64),
    tpot: (f64, f64),
    ttft: (f64, f64),
}

/// A source family of `measurements.csv` and its bounds.
struct Family {
    name: &'static str,
    /// Whether a data line (a row's id is its first cell) belongs to the family.
    member: fn(&str) -> bool,
    /// Rows that report each metric, at least (output tok/s, TPOT, TTFT).
    min_rows: (usize, usize, usize),
    /// Cross-validated bounds, the gate. Measured when set (median / p80):
    /// vendor tables tok/s 8.8 / 21.9 %, TPOT 6.6 / 10.3 %, TTFT 5.1 / 28.7 %;
    /// InferenceX tok/s 18.0 / 54.0 %, TPOT 20.9 / 33.9 %, TTFT 84.6 / 91.5 %.
    cross_validated: Bounds,
    /// Secondary bounds on the shipped defaults. Measured when set (median / p80):
    /// vendor tables (in sample) tok/s 6.4 / 21.9 %, TPOT 3.1 / 4.6 %, TTFT 5.1 / 27.8 %;
    /// InferenceX (out of sample: not in the defaults' fit) tok/s 32.3 / 80.1 %, TPOT
    /// 21.8 / 41.4 %, TTFT 86.3 / 92.5 %.
    defaults: Bounds,
}

fn is_inferencex(line: &str) -> bool {
    line.starts_with("IX-")
}

const VENDOR_TABLES: Family = Family {
    name: "vendor tables",
    member: |line| !is_inferencex(line),
    min_rows: (25, 5, 5),
    cross_validated: Bounds {
        throughput: (0.10, 0.25),
        tpot: (0.08, 0.12),
        ttft: (0.065, 0.32),
    },
    defaults: Bounds {
        throughput: (0.15, 0.30),
        tpot: (0.20, 0.25),
        ttft: (0.20, 0.35),
    },
};

const INFERENCEX: Family = Family {
    name: "InferenceX",
    member: is_inferencex,
    min_rows: (38, 38, 38),
    cross_validated: Bounds {
        throughput: (0.21, 0.60),
        tpot: (0.24, 0.38),
        ttft: (0.87, 0.935),
    },
    defaults: Bounds {
        throughput: (0.37, 0.88),
        tpot: (0.25, 0.46),
        ttft: (0.885, 0.94),
    },
};

const FAMILIES: [&Family; 2] = [&VENDOR_TABLES, &INFERENCEX];

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

/// The header and the family's rows. No cell of the file spans lines
/// (`every_skip_has_a_reason_and_no_row_is_lost` checks that the families add up to the file).
fn family_rows(family: &Family) -> String {
    let mut lines = measurements().lines();
    let header = lines.next().expect("header");
    std::iter::once(header)
        .chain(lines.filter(|line| (family.member)(line)))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// A family's out-of-sample report, computed once per family (five grid searches each).
fn cross_validated(family: &Family) -> &'static Report {
    static REPORTS: OnceLock<BTreeMap<&'static str, Report>> = OnceLock::new();
    let reports = REPORTS.get_or_init(|| {
        FAMILIES
            .iter()
            .map(|f| {
                let report =
                    cross_validate(&family_rows(f), FOLDS, &EfficiencyOverrides::default())
                        .expect("cross-validates");
                (f.name, report)
            })
            .collect()
    });
    &reports[family.name]
}

/// The shipped defaults on a family's rows.
fn with_defaults(family: &Family) -> Report {
    validate(&family_rows(family), &EfficiencyOverrides::default()).expect("validates")
}

/// Check one metric's summary against `(median, p80)` bounds and a minimum row count.
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

fn check_report(what: &str, family: &Family, report: &Report, bounds: &Bounds) {
    let (throughput_rows, tpot_rows, ttft_rows) = family.min_rows;
    let name = |metric: &str| format!("{}, {what}, {metric}", family.name);
    check(
        &name("output tok/s"),
        report.throughput,
        throughput_rows,
        bounds.throughput,
    );
    check(&name("TPOT"), report.tpot, tpot_rows, bounds.tpot);
    check(&name("TTFT"), report.ttft, ttft_rows, bounds.ttft);
}

#[test]
fn cross_validated_vendor_table_errors_within_bounds() {
    let family = &VENDOR_TABLES;
    check_report(
        "cross-validated",
        family,
        cross_validated(family),
        &family.cross_validated,
    );
}

#[test]
fn cross_validated_inferencex_errors_within_bounds() {
    let family = &INFERENCEX;
    check_report(
        "cross-validated",
        family,
        cross_validated(family),
        &family.cross_validated,
    );
}

/// Every row that runs under the defaults is predicted out of sample exactly once, in file
/// order, and the rows that cannot run are the same skipped rows.
#[test]
fn cross_validation_predicts_every_runnable_row_once() {
    let ids = |report: &Report| -> (Vec<String>, Vec<String>) {
        (
            report.rows.iter().map(|r| r.id.clone()).collect(),
            report.skipped.iter().map(|s| s.id.clone()).collect(),
        )
    };
    for family in FAMILIES {
        assert_eq!(
            ids(cross_validated(family)),
            ids(&with_defaults(family)),
            "{}",
            family.name
        );
    }
}

/// Secondary bound on the shipped defaults: in sample for the vendor tables (the defaults were
/// fitted on them), out of sample for InferenceX. Looser than the gate
/// for the vendor tables; with `defaults_are_the_fit_optimum` it catches a default knob that
/// moved.
#[test]
fn default_knob_errors_within_secondary_bounds() {
    for family in FAMILIES {
        check_report("defaults", family, &with_defaults(family), &family.defaults);
    }
}

/// 74 rows: 36 from vendor tables and reports, 38 InferenceX sweep points. Every row is either
/// predicted or skipped with its reason; the only rows that cannot run are the eight MLPerf rows,
/// whose sources state no mean input length.
#[test]
fn every_skip_has_a_reason_and_no_row_is_lost() {
    let all = validate(measurements(), &EfficiencyOverrides::default()).expect("validates");
    assert_eq!(all.rows.len() + all.skipped.len(), 74);
    assert_eq!(all.rows.len(), 66);
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
    // The families split the file without losing or sharing a row: 36 + 38.
    let counts: Vec<usize> = FAMILIES
        .iter()
        .map(|f| {
            let r = with_defaults(f);
            r.rows.len() + r.skipped.len()
        })
        .collect();
    assert_eq!(counts, [36, 38]);
    // And so do their cross-validations.
    let cross_validated_rows: usize = FAMILIES
        .iter()
        .map(|f| cross_validated(f).rows.len() + cross_validated(f).skipped.len())
        .sum();
    assert_eq!(cross_validated_rows, 74);
}

/// The shipped defaults are the grid optimum of the vendor-table family, the rows they were
/// fitted on: re-running the fit there finds no better knobs.
///
/// Not the fit of the whole file. With the InferenceX rows the grid's optimum moves to its
/// corners (η_m 0.60, η_c 0.50, t_it0 2.5 ms, t_L0 30 µs): the fit buys a little on the
/// InferenceX rows' structural errors (mean |ln error| 0.713 → 0.658; TTFT still 83 % off) by
/// multiplying the vendor-table median errors by 3 to 9 (in sample, tok/s 6.4 → 20.3 %,
/// TPOT 3.1 → 27.9 %, TTFT 5.1 → 24.4 %). That is the MoE / AMD / burst-TTFT gap of issue 12
/// absorbed into four global knobs, not calibration, so the defaults stay;
/// docs/VALIDATION.md ("Calibration") shows both.
#[test]
fn defaults_are_the_fit_optimum() {
    let fit = servecost::calibration::fit::fit(
        &family_rows(&VENDOR_TABLES),
        &EfficiencyOverrides::default(),
    )
    .expect("fits");
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
