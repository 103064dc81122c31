//! libFuzzer entry for the `validate_csv` decoder harness (see `src/lib.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| servecost_fuzz::validate_csv(data));
