//! Strict, panic-free JSON (RFC 8259) for the browser build, so that the wasm module does not link `serde_json` (about 35 KB); native-only code (the CLI) may keep it.
//!
//! Every JSON path the page reaches goes through here: share links (the custom model),
//! scenario import/export, saved pins, a pasted `config.json`, benchmark results.
//!
//! - [`parse`] accepts exactly RFC 8259 JSON: no comments, trailing commas, `NaN`/`Infinity`,
//!   single quotes or leading zeros; whitespace around the value, nothing after it. Numbers are
//!   read with `str::parse::<f64>`, and one that is out of `f64`'s range (e.g. `1e400`) is an
//!   error rather than an infinity. Strings decode every escape, `\uXXXX` surrogate pairs
//!   included; a lone surrogate is an error. Nesting deeper than [`MAX_DEPTH`] is an error, so
//!   hostile input cannot overflow the stack. Errors say what was expected and the byte offset.
//! - Objects keep their members in document order. A key that repeats within one object is an
//!   error (`duplicate key "a" in the object at byte 0`), so iterating the members and looking
//!   one up ([`Value::get`]) always agree. (For an object built in code with a repeated key,
//!   `get` returns the last one.)
//! - [`Value::to_json`] writes compact text, [`Value::to_json_pretty`] two-space indented text.
//!   Numbers use Rust's shortest round-trip formatting (`8`, not `8.0`; `0.1`); a non-finite
//!   number is written as `null`. Text written from a value with finite numbers, unique keys
//!   and at most `MAX_DEPTH` levels parses back to an equal value.

use std::fmt::Write as _;

/// Deepest nesting of arrays and objects [`parse`] accepts.
pub const MAX_DEPTH: usize = 128;

/// A JSON value. Numbers are `f64`; objects are their members in order (unique keys when
/// parsed, see the module docs).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// An object from `(key, value)` members, in order.
    pub fn object<K: Into<String>>(members: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value::Object(
            members
                .into_iter()
                .map(|(key, value)| (key.into(), value))
                .collect(),
        )
    }

    /// The member `key` of an object (the last one, should the key repeat in a built object);
    /// `None` for a missing key or a value that is not an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// A number that is a non-negative whole number, exactly representable (at most 2^53).
    pub fn as_u64(&self) -> Option<u64> {
        const MAX_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
        match self {
            Value::Number(n) if *n >= 0.0 && *n <= MAX_EXACT && n.fract() == 0.0 => Some(*n as u64),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// An object's members, in document order.
    pub fn as_object(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None, 0);
        out
    }

    /// JSON text indented by two spaces per level, `"key": value`, one member or item per line.
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some("  "), 0);
        out
    }

    fn write(&self, out: &mut String, indent: Option<&str>, level: usize) {
        let newline = |out: &mut String, level: usize| {
            if let Some(indent) = indent {
                out.push('\n');
                for _ in 0..level {
                    out.push_str(indent);
                }
            }
        };
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => write_number(out, *n),
            Value::String(s) => write_string(out, s),
            Value::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    newline(out, level + 1);
                    item.write(out, indent, level + 1);
                }
                if !items.is_empty() {
                    newline(out, level);
                }
                out.push(']');
            }
            Value::Object(members) => {
                out.push('{');
                for (index, (key, value)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    newline(out, level + 1);
                    write_string(out, key);
                    out.push_str(if indent.is_some() { ": " } else { ":" });
                    value.write(out, indent, level + 1);
                }
                if !members.is_empty() {
                    newline(out, level);
                }
                out.push('}');
            }
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Value {
        Value::Number(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Number(f64::from(n))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Value {
        Value::Array(items)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}

/// A number as JSON text: Rust's shortest round-trip formatting (whole numbers without a
/// fraction, never an exponent), or `null` if it is not finite.
pub fn number_to_string(n: f64) -> String {
    let mut out = String::new();
    write_number(&mut out, n);
    out
}

fn write_number(out: &mut String, n: f64) {
    if n.is_finite() {
        let _ = write!(out, "{n}");
    } else {
        out.push_str("null");
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut rest = s;
    // Copy runs that need no escape in one go; escape the character that ends each run.
    while let Some(at) = rest.find(|c: char| c == '"' || c == '\\' || c < ' ') {
        let (run, tail) = rest.split_at(at);
        out.push_str(run);
        let mut chars = tail.chars();
        match chars.next() {
            Some('"') => out.push_str("\\\""),
            Some('\\') => out.push_str("\\\\"),
            Some('\n') => out.push_str("\\n"),
            Some('\r') => out.push_str("\\r"),
            Some('\t') => out.push_str("\\t"),
            Some('\u{8}') => out.push_str("\\b"),
            Some('\u{c}') => out.push_str("\\f"),
            Some(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            None => {}
        }
        rest = chars.as_str();
    }
    out.push_str(rest);
    out.push('"');
}

/// Parse one JSON value (RFC 8259, strict; see the module docs). The error names what was
/// expected and where: `expected ':' at byte 17`.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_whitespace();
    let value = parser.value(0)?;
    parser.skip_whitespace();
    if parser.pos < text.len() {
        return Err(parser.expected("the end of the input"));
    }
    Ok(value)
}

/// A key that occurs more than once among `members`, if any: the key of the first member (in
/// document order) whose key an earlier member has. The members' positions are heap-sorted by
/// (key, position), O(n log n) for hostile objects with a million keys, and equal neighbours are
/// repeats. A heap sort written out, not a `BTreeSet` or the standard sorts: their code (several
/// KB of wasm per type) would be in the page's first load for this alone.
fn duplicate_key(members: &[(String, Value)]) -> Option<&str> {
    let key = |at: usize| members.get(at).map_or("", |(key, _)| key.as_str());
    let mut order: Vec<usize> = (0..members.len()).collect();
    heap_sort(&mut order, |&a, &b| (key(a), a) < (key(b), b));
    order
        .windows(2)
        .filter_map(|pair| match pair {
            [earlier, later] if key(*earlier) == key(*later) => Some(*later),
            _ => None,
        })
        .min()
        .map(key)
}

/// Sort `items` in place by `less` (a heap sort: O(n log n), no allocation, not stable).
fn heap_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    // Move the item at `root` down the max-heap `items[..end]` until both children are smaller.
    let sift_down = |items: &mut [T], mut root: usize, end: usize| loop {
        let mut largest = root;
        for child in [2 * root + 1, 2 * root + 2] {
            if child < end {
                if let (Some(a), Some(b)) = (items.get(largest), items.get(child)) {
                    if less(a, b) {
                        largest = child;
                    }
                }
            }
        }
        if largest == root {
            break;
        }
        items.swap(root, largest);
        root = largest;
    };
    let len = items.len();
    for root in (0..len / 2).rev() {
        sift_down(items, root, len);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift_down(items, 0, end);
    }
}

/// Untrusted text for an error message: at most 40 characters, control characters dropped.
fn shorten(text: &str) -> String {
    let short: String = text.chars().filter(|c| !c.is_control()).take(40).collect();
    if text.chars().count() > 40 {
        format!("{short}…")
    } else {
        short
    }
}

struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next unread byte; always at a character boundary between tokens.
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn expected(&self, what: &str) -> String {
        match self.peek() {
            None => format!(
                "expected {what} at byte {} (the end of the input)",
                self.pos
            ),
            Some(_) => format!("expected {what} at byte {}", self.pos),
        }
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Consume `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            _ => Err(self.expected("a value")),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, String> {
        if self
            .text
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word))
        {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.expected(&format!("`{word}`")))
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            Err(format!(
                "nesting deeper than {MAX_DEPTH} levels at byte {}",
                self.pos
            ))
        } else {
            Ok(())
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, String> {
        self.check_depth(depth)?;
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.eat(b']') {
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_whitespace();
            items.push(self.value(depth)?);
            self.skip_whitespace();
            if self.eat(b']') {
                return Ok(Value::Array(items));
            }
            if !self.eat(b',') {
                return Err(self.expected("',' or ']'"));
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, String> {
        self.check_depth(depth)?;
        let start = self.pos;
        self.pos += 1; // '{'
        let mut members = Vec::new();
        self.skip_whitespace();
        if self.eat(b'}') {
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.expected("a string key"));
            }
            let key = self.string()?;
            self.skip_whitespace();
            if !self.eat(b':') {
                return Err(self.expected("':'"));
            }
            self.skip_whitespace();
            members.push((key, self.value(depth)?));
            self.skip_whitespace();
            if self.eat(b'}') {
                return match duplicate_key(&members) {
                    Some(key) => Err(format!(
                        "duplicate key \"{}\" in the object at byte {start}",
                        shorten(key)
                    )),
                    None => Ok(Value::Object(members)),
                };
            }
            if !self.eat(b',') {
                return Err(self.expected("',' or '}'"));
            }
        }
    }

    /// A string starting at the opening quote.
    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // '"'
        let mut out = String::new();
        loop {
            // The run up to the next quote, backslash or control character is copied as is
            // (those are ASCII, so the run ends on a character boundary).
            let start = self.pos;
            while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
                self.pos += 1;
            }
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    out.push(self.escape()?);
                }
                Some(byte) => {
                    return Err(format!(
                        "expected control character U+{byte:04X} to be escaped (\\u{byte:04X}) at byte {}",
                        self.pos
                    ))
                }
                None => return Err(self.expected("'\"' closing the string")),
            }
        }
    }

    /// The character of an escape, after its backslash.
    fn escape(&mut self) -> Result<char, String> {
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let at = self.pos.saturating_sub(1);
                self.pos += 1;
                let first = self.hex4()?;
                let code = match first {
                    0xD800..=0xDBFF => {
                        if !(self.eat(b'\\') && self.eat(b'u')) {
                            return Err(format!(
                                "expected a low surrogate '\\uDC00'-'\\uDFFF' after the high surrogate at byte {at}"
                            ));
                        }
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(format!(
                                "expected a low surrogate '\\uDC00'-'\\uDFFF' after the high surrogate at byte {at}"
                            ));
                        }
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    }
                    0xDC00..=0xDFFF => {
                        return Err(format!("lone low surrogate '\\u{first:04X}' at byte {at}"))
                    }
                    other => other,
                };
                return char::from_u32(code)
                    .ok_or_else(|| format!("invalid '\\u' escape at byte {at}"));
            }
            _ => return Err(self.expected("an escape (one of \"\\/bfnrtu) after '\\'")),
        };
        self.pos += 1;
        Ok(c)
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, String> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self
                .peek()
                .and_then(|b| char::from(b).to_digit(16))
                .ok_or_else(|| self.expected("a hex digit"))?;
            code = code * 16 + digit;
            self.pos += 1;
        }
        Ok(code)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a finite `f64`.
    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        self.eat(b'-');
        if self.eat(b'0') {
            if matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.expected("no digit after a leading zero"));
            }
        } else if self.digits() == 0 {
            return Err(self.expected("a digit"));
        }
        if self.eat(b'.') && self.digits() == 0 {
            return Err(self.expected("a digit after '.'"));
        }
        if self.eat(b'e') || self.eat(b'E') {
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if self.digits() == 0 {
                return Err(self.expected("a digit in the exponent"));
            }
        }
        let literal = self.text.get(start..self.pos).unwrap_or_default();
        match literal.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Number(n)),
            _ => Err(format!("number out of range at byte {start}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips(value: &Value) {
        assert_eq!(
            &parse(&value.to_json()).unwrap(),
            value,
            "{}",
            value.to_json()
        );
        assert_eq!(
            &parse(&value.to_json_pretty()).unwrap(),
            value,
            "{}",
            value.to_json_pretty()
        );
    }

    #[test]
    fn parses_every_kind_of_value() {
        let value = parse(
            r#" {"a": [1, -2.5, 3e2, true, false, null, "x"], "b": {}, "c": [], "d": {"e": "f"}} "#,
        )
        .unwrap();
        assert_eq!(
            value,
            Value::object([
                (
                    "a",
                    Value::Array(vec![
                        1.0.into(),
                        (-2.5).into(),
                        300.0.into(),
                        true.into(),
                        false.into(),
                        Value::Null,
                        "x".into(),
                    ])
                ),
                ("b", Value::Object(vec![])),
                ("c", Value::Array(vec![])),
                ("d", Value::object([("e", "f".into())])),
            ])
        );
        round_trips(&value);
        assert_eq!(parse("\t\r\n 7 \n").unwrap(), Value::Number(7.0));
    }

    #[test]
    fn writes_compact_and_pretty() {
        let value = Value::object([
            ("v", 1u32.into()),
            ("list", Value::Array(vec![8.0.into(), 0.1.into()])),
            ("empty", Value::Array(vec![])),
            ("none", Value::Object(vec![])),
            ("s", "a\"b".into()),
        ]);
        assert_eq!(
            value.to_json(),
            r#"{"v":1,"list":[8,0.1],"empty":[],"none":{},"s":"a\"b"}"#
        );
        assert_eq!(
            value.to_json_pretty(),
            "{\n  \"v\": 1,\n  \"list\": [\n    8,\n    0.1\n  ],\n  \"empty\": [],\n  \"none\": {},\n  \"s\": \"a\\\"b\"\n}"
        );
        assert_eq!(Value::Null.to_json_pretty(), "null");
    }

    #[test]
    fn numbers() {
        for (text, expected) in [
            ("0", 0.0),
            ("-0", -0.0),
            ("8", 8.0),
            ("-12.5", -12.5),
            ("1e3", 1000.0),
            ("1E+3", 1000.0),
            ("2.5e-3", 0.0025),
            ("0.1", 0.1),
            ("1e-400", 0.0),
            ("9007199254740993", 9_007_199_254_740_992.0),
        ] {
            assert_eq!(parse(text).unwrap(), Value::Number(expected), "{text}");
        }
        assert!(parse("-0").unwrap().as_f64().unwrap().is_sign_negative());
        for bad in [
            "01",
            "-",
            "+1",
            ".5",
            "1.",
            "1.e3",
            "1e",
            "1e+",
            "0x10",
            "NaN",
            "Infinity",
            "-Infinity",
            "- 1",
            "1_000",
        ] {
            assert!(parse(bad).is_err(), "{bad} should be rejected");
        }
        let error = parse("[1e400]").unwrap_err();
        assert_eq!(error, "number out of range at byte 1");
        assert!(parse("-1e400").is_err());
        // Writing: whole numbers without a fraction, shortest round trip otherwise.
        assert_eq!(number_to_string(8.0), "8");
        assert_eq!(number_to_string(-0.0), "-0");
        assert_eq!(number_to_string(0.1), "0.1");
        assert_eq!(number_to_string(1e21), "1000000000000000000000");
        assert_eq!(number_to_string(f64::NAN), "null");
        assert_eq!(number_to_string(f64::INFINITY), "null");
        assert_eq!(Value::Number(f64::NEG_INFINITY).to_json(), "null");
        for n in [
            0.1,
            1.0 / 3.0,
            -1e-300,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            123_456_789.125,
        ] {
            assert_eq!(
                parse(&number_to_string(n)).unwrap(),
                Value::Number(n),
                "{n}"
            );
        }
    }

    #[test]
    fn as_u64_only_for_exact_whole_numbers() {
        assert_eq!(Value::Number(4096.0).as_u64(), Some(4096));
        assert_eq!(Value::Number(0.0).as_u64(), Some(0));
        assert_eq!(Value::Number(-1.0).as_u64(), None);
        assert_eq!(Value::Number(1.5).as_u64(), None);
        assert_eq!(Value::Number(1e300).as_u64(), None);
        assert_eq!(Value::String("4".into()).as_u64(), None);
    }

    #[test]
    fn every_escape() {
        let parsed = parse(r#""\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20AC""#).unwrap();
        assert_eq!(parsed.as_str(), Some("\" \\ / \u{8} \u{c} \n \r \t A é €"));
        round_trips(&parsed);
        let controls: String = (0u8..0x20).map(char::from).collect();
        let value = Value::String(format!("{controls}\u{7f}\"\\é😀"));
        let text = value.to_json();
        assert!(text.contains("\\u0000") && text.contains("\\u001f") && text.contains("\\n"));
        assert!(!text.chars().any(|c| c < ' '), "{text}");
        round_trips(&value);
        assert_eq!(Value::from("a\tb").to_json(), r#""a\tb""#);
        for bad in [
            r#""\x""#,
            r#""\u12""#,
            r#""\u12G4""#,
            r#""\'""#,
            "\"a\nb\"",
            "\"open",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn surrogate_pairs() {
        assert_eq!(parse(r#""\uD83D\uDE00""#).unwrap().as_str(), Some("😀"));
        assert_eq!(parse(r#""\ud834\udd1e""#).unwrap().as_str(), Some("𝄞"));
        assert_eq!(
            parse(r#""\uDBFF\uDFFF""#).unwrap().as_str(),
            Some("\u{10FFFF}")
        );
        for lone in [
            r#""\uD83D""#,
            r#""\uD83Dx""#,
            r#""\uD83D\n""#,
            r#""\uD83D\u0041""#,
            r#""\uDE00""#,
            r#""a\uDE00\uD83D""#,
        ] {
            let error = parse(lone).unwrap_err();
            assert!(error.contains("surrogate"), "{lone}: {error}");
        }
    }

    #[test]
    fn strict_syntax() {
        for bad in [
            "",
            " ",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\" 1}",
            "{a:1}",
            "{'a':1}",
            "// c\n1",
            "/* c */ 1",
            "1 // c",
            "tru",
            "nul",
            "True",
            "[",
            "{",
            "{\"a\":",
            "]",
            "1 2",
            "{} x",
            "\u{feff}{}",
            "[1]\0",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn errors_name_what_was_expected_and_where() {
        assert_eq!(
            parse(r#"{"model" "llama"}"#).unwrap_err(),
            "expected ':' at byte 9"
        );
        assert_eq!(parse("[1, 2,]").unwrap_err(), "expected a value at byte 6");
        assert_eq!(
            parse("{\"a\": 1,}").unwrap_err(),
            "expected a string key at byte 8"
        );
        assert_eq!(parse("[1 2]").unwrap_err(), "expected ',' or ']' at byte 3");
        assert_eq!(
            parse("{} x").unwrap_err(),
            "expected the end of the input at byte 3"
        );
        assert_eq!(
            parse("[1").unwrap_err(),
            "expected ',' or ']' at byte 2 (the end of the input)"
        );
        assert_eq!(
            parse("\"é\u{1}\"").unwrap_err().split(" at ").nth(1),
            Some("byte 3")
        );
        assert_eq!(
            parse(r#"["\uDE00"]"#).unwrap_err(),
            "lone low surrogate '\\uDE00' at byte 2"
        );
    }

    #[test]
    fn depth_limit() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse(&nested(MAX_DEPTH)).is_ok());
        let error = parse(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert!(error.contains("nesting deeper than 128"), "{error}");
        let objects = format!(
            "{}1{}",
            "{\"a\":".repeat(MAX_DEPTH + 1),
            "}".repeat(MAX_DEPTH + 1)
        );
        assert!(parse(&objects).unwrap_err().contains("nesting"));
        // Hostile depth fails fast, without overflowing the stack.
        assert!(parse(&"[".repeat(1_000_000)).is_err());
        assert!(parse(&"{\"\":".repeat(1_000_000)).is_err());
        let deep = parse(&nested(MAX_DEPTH)).unwrap();
        round_trips(&deep);
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        assert_eq!(
            parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap_err(),
            "duplicate key \"a\" in the object at byte 0"
        );
        assert_eq!(
            parse(r#"[{"x": {"a": 1, "a": 1}}]"#).unwrap_err(),
            "duplicate key \"a\" in the object at byte 7"
        );
        // The same key in different objects is fine; so is a key differing only in case.
        let value = parse(r#"{"a": {"a": 1}, "A": [{"a": 2}, {"a": 3}]}"#).unwrap();
        assert_eq!(
            value.get("a").and_then(|a| a.get("a")),
            Some(&Value::Number(1.0))
        );
        assert_eq!(value.get("missing"), None);
        assert_eq!(Value::Array(vec![]).get("a"), None);
        // Many keys: found fast, wherever the repeat is.
        let mut many: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\": {i}")).collect();
        assert!(parse(&format!("{{{}}}", many.join(","))).is_ok());
        many.push("\"k5\": 0".into());
        assert!(parse(&format!("{{{}}}", many.join(",")))
            .unwrap_err()
            .starts_with("duplicate key \"k5\""));
        // Several repeated keys: the one repeated first in the text is named.
        assert_eq!(
            parse(r#"{"b": 1, "a": 2, "c": 0, "b": 3, "a": 4, "a": 5}"#).unwrap_err(),
            "duplicate key \"b\" in the object at byte 0"
        );
        assert_eq!(
            parse(r#"{"z": 1, "y": 2, "y": 3, "z": 4}"#).unwrap_err(),
            "duplicate key \"y\" in the object at byte 0"
        );
        // The heap sort agrees with the standard sort.
        let mut state = 7u64;
        for len in [0usize, 1, 2, 3, 10, 257] {
            let mut items: Vec<u64> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    state >> 58
                })
                .collect();
            let mut sorted = items.clone();
            sorted.sort_unstable();
            heap_sort(&mut items, |a, b| a < b);
            assert_eq!(items, sorted, "{len}");
        }
        // A built object with a repeated key: lookup returns the last.
        let built = Value::object([("a", Value::from(1u32)), ("a", Value::from(2u32))]);
        assert_eq!(built.get("a"), Some(&Value::Number(2.0)));
    }

    #[test]
    fn accessors() {
        let value =
            parse(r#"{"n": 2.5, "s": "x", "b": true, "z": null, "l": [1], "o": {}}"#).unwrap();
        assert_eq!(value.get("n").and_then(Value::as_f64), Some(2.5));
        assert_eq!(value.get("s").and_then(Value::as_str), Some("x"));
        assert_eq!(value.get("b").and_then(Value::as_bool), Some(true));
        assert!(value.get("z").is_some_and(Value::is_null));
        assert_eq!(
            value.get("l").and_then(Value::as_array).map(<[_]>::len),
            Some(1)
        );
        assert!(value.get("o").and_then(Value::as_object).is_some());
        assert_eq!(value.get("s").and_then(Value::as_f64), None);
        assert_eq!(value.get("n").and_then(Value::as_str), None);
        assert_eq!(Value::from(None::<f64>), Value::Null);
        assert_eq!(Value::from(Some(2u32)), Value::Number(2.0));
    }

    #[test]
    fn big_inputs() {
        let items: Vec<Value> = (0..20_000)
            .map(|i| {
                Value::object([
                    ("index", Value::from(f64::from(i))),
                    ("name", Value::from(format!("item \"{i}\" ✓"))),
                    ("ratio", Value::from(f64::from(i) / 7.0)),
                ])
            })
            .collect();
        let value = Value::object([("items", Value::Array(items))]);
        let text = value.to_json();
        assert!(text.len() > 1_000_000);
        round_trips(&value);
        let long = Value::String("x".repeat(5_000_000));
        assert_eq!(parse(&long.to_json()).unwrap(), long);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn agrees_with_serde_json_where_both_accept() {
        for text in [
            r#"{"a":[1,2.5,-0.001,1e20,"\u00e9\ud83d\ude00",null,true],"b":{"c":{}}}"#,
            r#"[0, -0, 123456789012, 0.30000000000000004]"#,
        ] {
            let ours = parse(text).unwrap();
            let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
            let back: serde_json::Value = serde_json::from_str(&ours.to_json()).unwrap();
            assert_eq!(back, theirs, "{text}");
            assert_eq!(parse(&theirs.to_string()).unwrap(), ours, "{text}");
        }
    }
}
