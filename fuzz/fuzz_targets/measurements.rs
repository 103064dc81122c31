//! libFuzzer entry for the `measurements` decoder harness (see `src/lib.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| servecost_fuzz::measurements(data));
