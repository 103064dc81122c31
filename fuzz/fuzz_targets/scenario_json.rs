//! libFuzzer entry for the `scenario_json` decoder harness (see `src/lib.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| servecost_fuzz::scenario_json(data));
