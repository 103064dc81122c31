//! The fuzz targets as regression tests, natively and without nightly: every file of the curated
//! seed corpus (`fuzz/corpus/<target>/`) and every crash the fuzzer ever found
//! (`fuzz/regressions/<target>/`) goes through the same harness the fuzzer runs
//! (`fuzz/src/lib.rs`), which panics on a crash or a broken round trip.
//!
//! Fuzzing itself (nightly or `RUSTC_BOOTSTRAP=1`, libFuzzer) is `scripts/fuzz [SECONDS]`.

// Native only: it reads the corpus from disk. Helpers outside `#[test]` may panic (it is a test).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::panic)]

#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Files directly in `dir`, sorted (none if it does not exist).
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Run one target over its seeds and regressions; the seed corpus must not be empty.
fn check(target: &str) {
    let (_, harness) = harness::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .unwrap_or_else(|| panic!("no harness named {target}"));
    let seeds = files_in(&fuzz_dir().join("corpus").join(target));
    let regressions = files_in(&fuzz_dir().join("regressions").join(target));
    assert!(
        !seeds.is_empty(),
        "fuzz/corpus/{target}/ holds no seed files"
    );
    for file in seeds.iter().chain(&regressions) {
        let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let outcome = std::panic::catch_unwind(|| harness(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails the harness (see the panic message above)",
            file.display()
        );
    }
}

#[test]
fn every_target_has_a_test() {
    let mut names: Vec<&str> = harness::TARGETS.iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "chart_overlay",
            "hf_config",
            "measurements",
            "scenario_json",
            "url_state",
            "validate_csv"
        ]
    );
    for dir in files_in(&fuzz_dir().join("fuzz_targets")) {
        let stem = dir.file_stem().map(|s| s.to_string_lossy().into_owned());
        assert!(
            stem.as_deref().is_some_and(|s| names.contains(&s)),
            "fuzz target {} has no harness in TARGETS",
            dir.display()
        );
    }
}

#[test]
fn chart_overlay_corpus() {
    check("chart_overlay");
}

#[test]
fn url_state_corpus() {
    check("url_state");
}

#[test]
fn scenario_json_corpus() {
    check("scenario_json");
}

#[test]
fn hf_config_corpus() {
    check("hf_config");
}

#[test]
fn measurements_corpus() {
    check("measurements");
}

#[test]
fn validate_csv_corpus() {
    check("validate_csv");
}
