//! Architecture invariants as tests (rust-analyzer's "tidy" idea): the pure core never touches
//! the web, a clock or OS randomness; every source file says what it is for.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Modules of the pure core: everything except the web front end, the CLI shell and the bins.
fn is_pure_core(path: &Path) -> bool {
    let relative = path.strip_prefix(src()).expect("under src");
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    !matches!(first.as_str(), "ui" | "bin" | "cli" | "lib.rs")
}

#[test]
fn pure_core_names_no_web_api_clock_or_os_randomness() {
    let forbidden = [
        "yew",
        "web_sys",
        "js_sys",
        "gloo",
        "wasm_bindgen",
        "Instant::now",
        "SystemTime",
        "thread_rng",
        "getrandom",
        "std::fs",
        "std::net",
        "std::env",
    ];
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut offences = Vec::new();
    for file in files.iter().filter(|f| is_pure_core(f)) {
        let text = std::fs::read_to_string(file).expect("read");
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in forbidden {
                if code.contains(word) {
                    offences.push(format!("{}:{}: `{word}`", file.display(), number + 1));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "the pure core must stay pure:\n{}",
        offences.join("\n")
    );
}

#[test]
fn every_source_file_starts_with_a_module_doc() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut files,
    );
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .expect("read")
                .trim_start()
                .starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! doc:\n{}",
        missing.join("\n")
    );
}

/// The browser build reads and writes JSON with `src/json.rs`, never `serde_json` (about 35 KB
/// of wasm): only the CLI (`src/cli/`) and tests (`#[cfg(test)]` modules, at the end of a file)
/// may name it. Cargo.toml makes it a native-only dependency, so this catches the attempt early.
#[test]
fn only_the_cli_names_serde_json() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let cli = src().join("cli");
    let mut offences = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&cli)) {
        let text = std::fs::read_to_string(file).expect("read");
        let library = text.split("#[cfg(test)]").next().unwrap_or("");
        for (number, line) in library.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("serde_json") {
                offences.push(format!("{}:{}", file.display(), number + 1));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "use crate::json instead of serde_json outside src/cli/:\n{}",
        offences.join("\n")
    );
}
