//! The native CLI (placeholder while the CLI module is written).
fn main() {}
