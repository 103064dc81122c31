//! libFuzzer entry for the `chart_overlay` decoder harness (see `src/lib.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| servecost_fuzz::chart_overlay(data));
