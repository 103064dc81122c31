//! libFuzzer entry for the `hf_config` decoder harness (see `src/lib.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| servecost_fuzz::hf_config(data));
