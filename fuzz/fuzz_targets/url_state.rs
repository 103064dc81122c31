//! libFuzzer entry for the `url_state` decoder harness (see `src/lib.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| servecost_fuzz::url_state(data));
