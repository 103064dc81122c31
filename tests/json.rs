//! Property tests of the JSON module (`src/json.rs`): random values written compact or pretty
//! parse back equal, and random text (JSON-like or not, or one edit away from valid) never panics
//! the parser.

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use proptest::prelude::*;
use servecost::json::{parse, Value};

/// Any finite number: whole, fractional, tiny, huge.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<i32>().prop_map(f64::from),
        -1e6f64..1e6,
        any::<f64>().prop_filter("finite", |n| n.is_finite()),
    ]
}

/// Any text: ASCII, control characters, quotes and backslashes, astral-plane characters.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{0,12}",
        "[\\x00-\\x1f\"\\\\/ a]{0,8}",
        any::<String>(),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(Value::Number),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            // Unique keys: the parser rejects a repeated one.
            prop::collection::btree_map(text(), inner, 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Equal, numbers to a relative 1e-15 (subnormals to 1e-300).
fn nearly_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let error = (x - y).abs();
            error <= 1e-15 * x.abs().max(y.abs()) || error < 1e-300 // subnormals
        }
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| nearly_equal(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            // serde_json's map sorts the keys; compare by key.
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| nearly_equal(x, y)))
        }
        _ => a == b,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn written_values_parse_back_equal(value in value()) {
        prop_assert_eq!(parse(&value.to_json()).unwrap(), value.clone());
        prop_assert_eq!(parse(&value.to_json_pretty()).unwrap(), value);
    }

    /// serde_json (still a dependency of the CLI) reads what we write as the same value, and
    /// we read what it writes back (numbers to 1e-15: serde_json's default float parser is not
    /// always correctly rounded, it has a `float_roundtrip` feature for that).
    #[test]
    fn serde_json_reads_what_we_write(value in value()) {
        let theirs: serde_json::Value = serde_json::from_str(&value.to_json()).unwrap();
        let back = parse(&theirs.to_string()).unwrap();
        prop_assert!(nearly_equal(&back, &value), "{back:?} != {value:?}");
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse(&text);
    }

    /// JSON-looking text: strict accept or a clean error, and what is accepted round-trips.
    /// Random text is almost never valid JSON (measured: about 12 of 2,000 cases parse), so this checks
    /// the error paths; `one_edit_from_valid_json_parses_or_fails_cleanly` checks the accepting side.
    #[test]
    fn json_like_text_never_panics(text in "[ \\[\\]{}:,\"\\\\ue0-9.+\\-tfnrl]{0,40}") {
        if let Ok(value) = parse(&text) {
            prop_assert_eq!(parse(&value.to_json()).unwrap(), value);
        }
    }

    /// Written JSON with one character deleted, inserted or replaced: near misses that a strict
    /// parser must tell apart from valid text (an edit inside a string or number often stays
    /// valid, about a third of the cases). Accepted text round-trips; rejected text is a clean error.
    #[test]
    fn one_edit_from_valid_json_parses_or_fails_cleanly(
        value in value(),
        position in any::<prop::sample::Index>(),
        edit in 0u8..3,
        character in prop::sample::select(vec!['{', '}', '[', ']', ':', ',', '"', '\\', '0', '-', '.', 'e', 'u', 'n', ' ', '\u{1}']),
    ) {
        let mut chars: Vec<char> = value.to_json().chars().collect();
        let at = position.index(chars.len() + 1);
        match edit {
            0 if at < chars.len() => { chars.remove(at); }
            1 if at < chars.len() => chars[at] = character,
            _ => chars.insert(at, character),
        }
        let text: String = chars.into_iter().collect();
        if let Ok(parsed) = parse(&text) {
            prop_assert_eq!(parse(&parsed.to_json()).unwrap(), parsed);
        }
    }
}
