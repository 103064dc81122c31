//! Architecture invariants as tests (rust-analyzer's "tidy" idea): the pure core never touches
//! the web, a clock or OS randomness; imports point down the layers; every source file says what
//! it is for; no test is ignored or passes by panicking.

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

/// Rust source with comments and the contents of string and character literals blanked out
/// (newlines kept, so line numbers still match): what the checks below read, so a path or an
/// attribute named in a doc comment or an error message is not taken for code.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let previous_is_ident = i > 0 && is_ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && !previous_is_ident && matches!(next, Some('"' | '#')) {
            // A raw string r"…" or r#"…"# (also br"…": the `b` stays as code).
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let start = i;
            i += 2 + hashes;
            while i < chars.len() {
                if chars[i] == '"'
                    && chars[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes
                {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.extend(chars[start..i.min(chars.len())].iter().map(|&c| blank(c)));
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&inner) = chars.get(i) {
                    out.push(blank(inner));
                }
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'); anything else is a lifetime.
            let end = if next == Some('\\') {
                chars[i + 2..]
                    .iter()
                    .position(|&q| q == '\'')
                    .map(|p| i + 2 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.extend(std::iter::repeat_n(' ', end + 1 - i));
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The paths from the crate root a file's code names, written out in full (`model::evaluate`):
/// `crate::…` (also `$crate::…`), each item of a group `crate::{x, y::{z, w}}`, and `super::…`
/// resolved against the file's own module path (`module`, e.g. `["ui", "explorer", "app"]`).
/// Returns `(line, path)` pairs; a path's first segment is the top-level module it names.
fn root_paths(code: &str, module: &[String]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let line_of = |offset: usize| code[..offset].matches('\n').count() + 1;
    let boundary = |offset: usize| {
        code[..offset]
            .chars()
            .next_back()
            .is_none_or(|c| !is_ident(c))
    };
    for (offset, _) in code.match_indices("crate::") {
        if boundary(offset) {
            for path in expand_path("", &code[offset + "crate::".len()..]) {
                found.push((line_of(offset), path));
            }
        }
    }
    for (offset, _) in code.match_indices("super::") {
        // Only the first `super` of a chain.
        if !boundary(offset) || code[..offset].ends_with("super::") {
            continue;
        }
        let mut rest = &code[offset..];
        let mut climbs = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after;
        }
        let base = module[..module.len().saturating_sub(climbs)].join("::");
        for path in expand_path(&base, rest) {
            found.push((line_of(offset), path));
        }
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The full paths `text` (what follows `crate::` or the last `super::`) spells under `prefix`,
/// with groups expanded: `a::{b, c::d}` gives `a::b` and `a::c::d`.
fn expand_path(prefix: &str, text: &str) -> Vec<String> {
    let mut path = prefix.to_string();
    let mut rest = text.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = 0;
            let mut paths = Vec::new();
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        paths.extend(expand_path(&path, &group[item_start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        paths.extend(expand_path(&path, &group[item_start..i]));
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
            return paths;
        }
        let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if name.is_empty() {
            break;
        }
        if !path.is_empty() {
            path.push_str("::");
        }
        path.push_str(&name);
        rest = &rest[name.len()..];
        match rest.trim_start().strip_prefix("::") {
            Some(after) => rest = after.trim_start(),
            None => break,
        }
    }
    if path.is_empty() || path == prefix {
        Vec::new()
    } else {
        vec![path]
    }
}

/// The module path of a file under `src/`: `ui/explorer/app.rs` is `["ui", "explorer", "app"]`,
/// `ui/tools/mod.rs` is `["ui", "tools"]`; its first segment is the file's layer (`units.rs`
/// and `json.rs` are the layers `units` and `json`).
fn module_path(path: &Path) -> Vec<String> {
    let relative = path.strip_prefix(src()).expect("under src");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if parts.len() > 1 && parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The floors of the pure core, bottom first: a file on one floor names only floors below it
/// (and its own). `units` and `json` share the ground floor; `catalog` is the data; `physics` the
/// vocabulary of one GPU and one replica (architecture, precision, memory, engine profiles, one
/// step's time, cost); `scenario` the one door in; `model` the analytic steady state; `sim` the
/// simulator. No circle: each floor's forbidden list is every floor above it.
const CORE_FLOORS: [&[&str]; 6] = [
    &["units", "json", "choice"],
    &["catalog"],
    &["physics"],
    &["scenario"],
    &["model"],
    &["sim"],
];

/// Above the core: decisions, calibration, presentation and shared state, then the page's state,
/// then the two shells, which do not name each other.
const ABOVE_CORE: &[&str] = &[
    "decide",
    "calibration",
    "present",
    "share",
    "page",
    "ui",
    "cli",
];

/// The modules a layer must not name: imports point down the floors of the core (`CORE_FLOORS`)
/// and then the layers (core ← decide, calibration, present, share ← page ← the shells ui and
/// cli), and only the shells' own files and the bins name a shell (STYLE.md, ARCHITECTURE.md
/// "Invariants").
fn forbidden_for(layer: &str) -> Vec<&'static str> {
    if let Some(floor) = CORE_FLOORS.iter().position(|f| f.contains(&layer)) {
        return CORE_FLOORS[floor + 1..]
            .iter()
            .flat_map(|f| f.iter().copied())
            .chain(ABOVE_CORE.iter().copied())
            .collect();
    }
    match layer {
        "decide" | "calibration" | "present" | "share" => vec!["page", "ui", "cli"],
        "page" => vec!["ui", "cli"],
        "ui" => vec!["cli"],
        "cli" => vec!["ui"],
        // lib.rs declares the modules; the bins are entries and may name anything.
        _ => vec![],
    }
}

/// The one import allowed to point up a floor, as `(file under src/, module it names)`, with its
/// reason. The door (`Scenario::try_from`) chooses a disaggregated deployment's prefill/decode
/// split when the input gives none, and choosing means evaluating each split with the model
/// (`model::disagg`: the highest throughput at the scenario's concurrency with the prefill pool
/// within its utilization ceiling). Moving the search out of the door would make every caller
/// validate in two steps; it stays, named here, and nothing else may join it.
const FLOOR_EXCEPTION: &[(&str, &str)] = &[("scenario/pools.rs", "model")];

/// Known violations the lead engineer will fix, as `(file under src/, module it names)`.
/// Each entry must still match a real import (`layer_allow_list_is_not_stale`), so a fixed
/// violation is removed from here rather than left to excuse a new one.
const LAYER_ALLOW_LIST: &[(&str, &str)] = &[];

fn layer_violations() -> Vec<(String, usize, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let module_path = module_path(file);
        let forbidden = forbidden_for(&module_path[0]);
        let code = code_only(&std::fs::read_to_string(file).expect("read"));
        let relative = file
            .strip_prefix(src())
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        for (line, path) in root_paths(&code, &module_path) {
            let module = path.split("::").next().unwrap_or_default().to_string();
            if forbidden.contains(&module.as_str()) {
                violations.push((relative.clone(), line, module));
            }
        }
    }
    violations
}

#[test]
fn imports_point_down_the_layers() {
    let offences: Vec<String> = layer_violations()
        .into_iter()
        .filter(|(file, _, module)| {
            !LAYER_ALLOW_LIST
                .iter()
                .chain(FLOOR_EXCEPTION)
                .any(|(f, m)| f == file && m == module)
        })
        .map(|(file, line, module)| format!("src/{file}:{line}: names `crate::{module}`"))
        .collect();
    assert!(
        offences.is_empty(),
        "imports must point down the floors (units, json ← catalog ← physics ← scenario ← model ← sim) and the layers (core ← decide/calibration/present/share ← page ← ui, cli):\n{}",
        offences.join("\n")
    );
}

#[test]
fn layer_allow_list_is_not_stale() {
    let violations = layer_violations();
    let stale: Vec<String> = LAYER_ALLOW_LIST
        .iter()
        .chain(FLOOR_EXCEPTION)
        .filter(|(f, m)| {
            !violations
                .iter()
                .any(|(file, _, module)| file == f && module == m)
        })
        .map(|(f, m)| format!("src/{f} no longer names crate::{m}"))
        .collect();
    assert!(
        stale.is_empty(),
        "remove fixed entries from LAYER_ALLOW_LIST:\n{}",
        stale.join("\n")
    );
}

/// The explorer (the first load) never imports from the deferred tools module: what both modules
/// share is `ui::platform::bridge`, so nothing under `ui/explorer`, `ui/widgets` or `ui/platform`
/// names `ui::tools` (ARCHITECTURE.md, "The page is two wasm modules").
#[test]
fn the_explorer_never_names_the_tools_module() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut offences = Vec::new();
    for file in &files {
        let module_path = module_path(file);
        let first_load = ["explorer", "widgets", "platform"].iter().any(|group| {
            module_path.len() > 1 && module_path[0] == "ui" && module_path[1] == *group
        });
        if !first_load {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(file).expect("read"));
        for (line, path) in root_paths(&code, &module_path) {
            if path == "ui::tools" || path.starts_with("ui::tools::") {
                offences.push(format!("{}:{line}: names `crate::{path}`", file.display()));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "the explorer imports what it shares with the tools from ui::platform::bridge:\n{}",
        offences.join("\n")
    );
}

/// The checks read code, not comments or literals, and see every form of a root path.
#[test]
fn root_paths_reads_code_only() {
    let text = r##"//! Mentions crate::ui in a doc comment.
use crate::model::evaluate;
use crate::{scenario::Scenario, decide::{plan, sizing}};
/* crate::cli in a /* nested */ block comment */
fn f<'a>(x: &'a str) -> char {
    let _ = "crate::page in a string";
    let _ = r#"crate::share in a raw "string""#;
    let _ = crate::present::format::format_number;
    let _ = (x, '"');
    super::super::calibration::fit();
    '\''
}
"##;
    let module = ["ui".to_string(), "explorer".to_string()];
    let names: Vec<(usize, String)> = root_paths(&code_only(text), &module);
    let expected: Vec<(usize, String)> = [
        (2, "model::evaluate"),
        (3, "scenario::Scenario"),
        (3, "decide::plan"),
        (3, "decide::sizing"),
        (8, "present::format::format_number"),
        (10, "calibration::fit"),
    ]
    .into_iter()
    .map(|(l, n)| (l, n.to_string()))
    .collect();
    assert_eq!(names, expected);
    // One `super` from `ui::explorer` stays inside `ui`.
    assert_eq!(
        root_paths("use super::tools::{self, x};", &module),
        vec![
            (1, "ui::tools::self".to_string()),
            (1, "ui::tools::x".to_string())
        ]
    );
}

/// The attributes STYLE.md rules out, found in code (not in comments or literals).
fn banned_attributes(code: &str) -> Vec<(usize, &'static str)> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for (offset, _) in code.match_indices("#[") {
        let body = &code[offset + 2..];
        let body = &body[..body.find(']').unwrap_or(body.len())];
        let words: Vec<&str> = body
            .split(|c: char| !is_ident(c))
            .filter(|w| !w.is_empty())
            .collect();
        let line = code[..offset].matches('\n').count() + 1;
        // `#[ignore]`, `#[ignore = "…"]`, `#[should_panic(expected = …)]`, and the same inside
        // `#[cfg_attr(…, ignore)]`.
        let named = match words.first() {
            Some(&"cfg_attr") => &words[1..],
            _ => &words[..words.len().min(1)],
        };
        for banned in ["ignore", "should_panic"] {
            if named.contains(&banned) {
                found.push((line, banned));
            }
        }
    }
    found
}

/// No test hides a failure or passes by panicking (STYLE.md): no `#[ignore]`, no
/// `#[should_panic]` in src/ or tests/. A panic that must happen is a bug in library code, and
/// an ignored test is one that cannot fail.
#[test]
fn no_ignored_or_should_panic_tests() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut files,
    );
    let mut offences = Vec::new();
    for file in &files {
        let code = code_only(&std::fs::read_to_string(file).expect("read"));
        for (line, attribute) in banned_attributes(&code) {
            offences.push(format!("{}:{line}: #[{attribute}]", file.display()));
        }
    }
    assert!(
        offences.is_empty(),
        "no #[ignore] or #[should_panic]:\n{}",
        offences.join("\n")
    );
}

#[test]
fn banned_attributes_are_found_in_code_only() {
    let text = r##"
#[test]
#[ignore]
fn a() {}
#[ignore = "slow"]
#[should_panic(expected = "boom")]
#[cfg_attr(miri, ignore)]
// #[ignore] in a comment
const S: &str = "#[should_panic]";
#[derive(Debug)] // `ignore` as a word elsewhere is fine
"##;
    assert_eq!(
        banned_attributes(&code_only(text)),
        vec![
            (3, "ignore"),
            (5, "ignore"),
            (6, "should_panic"),
            (7, "ignore")
        ]
    );
}

/// The floors form a line, not a circle: every floor forbids every floor above it and none
/// below it, and each of the layers above the core is forbidden to every floor.
#[test]
fn the_core_floors_are_a_line() {
    for (i, floor) in CORE_FLOORS.iter().enumerate() {
        for module in floor.iter() {
            let forbidden = forbidden_for(module);
            for (j, other) in CORE_FLOORS.iter().enumerate() {
                for name in other.iter() {
                    assert_eq!(
                        forbidden.contains(name),
                        j > i,
                        "{module} (floor {i}) and {name} (floor {j})"
                    );
                }
            }
            assert!(ABOVE_CORE.iter().all(|m| forbidden.contains(m)), "{module}");
        }
    }
}

/// The longest a function body may be outside tests (issue 29 §4): a longer one does several
/// things and reads better as named steps.
const MAX_FUNCTION_LINES: usize = 150;

/// `(first line, lines, name)` of every `fn` with a body in `code` (comments and literals
/// already blanked by `code_only`), skipping `#[cfg(test)]` items and everything inside them.
fn function_spans(code: &str) -> Vec<(usize, usize, String)> {
    let bytes = code.as_bytes();
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // Byte ranges of `#[cfg(test)]` items: from the attribute to the end of the item's block.
    let mut skipped: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let start = from + found;
        let end = match code[start..].find(['{', ';']) {
            Some(p) if bytes[start + p] == b'{' => matching_brace(bytes, start + p),
            Some(p) => start + p,
            None => code.len(),
        };
        skipped.push((start, end));
        from = end.max(start + 1);
    }
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("fn ") {
        let start = at + found;
        at = start + 3;
        if (start > 0 && is_word(bytes[start - 1]))
            || skipped.iter().any(|&(a, b)| (a..b).contains(&start))
        {
            continue;
        }
        let name: String = code[start + 3..]
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if name.is_empty() {
            continue; // `fn(` in a type
        }
        let Some(p) = code[start..].find(['{', ';']) else {
            continue;
        };
        if bytes[start + p] == b';' {
            continue; // a declaration without a body
        }
        let end = matching_brace(bytes, start + p);
        spans.push((line_of(start), line_of(end) - line_of(start) + 1, name));
    }
    spans
}

/// The byte index of the `}` that closes the `{` at `open`.
fn matching_brace(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    bytes.len().saturating_sub(1)
}

#[test]
fn no_function_outside_tests_is_over_150_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut long = Vec::new();
    for file in &files {
        let code = code_only(&std::fs::read_to_string(file).expect("read"));
        for (line, lines, name) in function_spans(&code) {
            if lines > MAX_FUNCTION_LINES {
                long.push(format!("{}:{line}: {name} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn function_spans_count_bodies_and_skip_tests() {
    let text = r##"
fn short() -> u8 {
    let s = "}";
    1
}
fn decl(x: fn(u8) -> u8);
#[cfg(test)]
mod tests {
    fn inside() {}
}
pub(crate) fn two(
    a: u8,
) {
}
"##;
    assert_eq!(
        function_spans(&code_only(text)),
        vec![(2, 4, "short".to_string()), (11, 4, "two".to_string())]
    );
}

/// The raw inputs' text fields are the open sets only (issue 29 §2): a catalog model or GPU id
/// and an engine name (any other name runs the generic profile). Every closed set is its enum,
/// read once by the field's setter.
#[test]
fn the_inputs_hold_text_only_for_open_sets() {
    let text_fields = |file: &str, name: &str| -> Vec<String> {
        let code = code_only(&std::fs::read_to_string(src().join(file)).expect("read"));
        let start = code
            .find(&format!("pub struct {name} {{"))
            .unwrap_or_else(|| panic!("{name} in {file}"));
        let open = start + code[start..].find('{').expect("a body");
        let body = &code[open..=matching_brace(code.as_bytes(), open)];
        body.lines()
            .filter_map(|line| {
                let (field, ty) = line.trim().strip_prefix("pub ")?.split_once(':')?;
                let ty = ty.trim().trim_end_matches(',');
                ty.contains("String").then(|| format!("{field}: {ty}"))
            })
            .collect()
    };
    assert_eq!(
        text_fields("scenario/input.rs", "ScenarioInput"),
        ["model: String", "engine: String", "gpu: String"]
    );
    // GPU ids, and the agentic keys a build without the session model carries as given.
    assert_eq!(
        text_fields("scenario/decision.rs", "DecisionInput"),
        [
            "gpus_allowed: Option<Vec<String>>",
            "carried: Vec<(String, String)>"
        ]
    );
}
