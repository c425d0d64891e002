//! Canonical JSON text and its SHA-256 digest.
//!
//! The output is byte-identical to Python's
//! `json.dumps(json.loads(text), sort_keys=True, separators=(',', ':'), ensure_ascii=False, allow_nan=False)`
//! for every JSON object:
//!
//! - object keys sorted by code point (UTF-8 byte order is code point order), nested objects too;
//!   arrays keep their order; a duplicate key keeps its last value;
//! - a number token without `.`, `e` or `E` is an integer of any size, printed exactly (`-0` is `0`);
//! - any other number is parsed as the nearest `f64` and printed as Python's `repr` does: the
//!   shortest digits that round-trip, in fixed notation when `1e-4 <= |x| < 1e16`, otherwise in
//!   scientific notation with a signed, at least two-digit exponent (`1e+16`, `1e-05`);
//! - strings are escaped as Python escapes them with `ensure_ascii=False`.
//!
//! NaN and Infinity literals, floats that overflow to infinity, a top level that is not an object,
//! lone surrogates and broken JSON are a [`CanonicalError`].
//!
//! One documented difference, the same rule for every reader and writer of
//! payloads (intake, `canonical`, `check`, `report`, the screen): a value nested
//! more than [`MAX_DEPTH`] (128) levels deep, the top-level object counting as
//! one, has no canonical text here ([`CanonicalError::TooDeep`]), so its row is
//! damaged; Python accepts nesting up to its recursion limit (about 1000). A
//! web form has no use for such nesting, and a limit keeps the recursion of
//! every step (parsing, writing, fingerprinting) within a small stack.

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

use crate::i18n::Lang;
use crate::t;

/// Why a value has no canonical text. `Display` is in the language of the
/// messages ([`crate::i18n::current`]); [`CanonicalError::message`] in any.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// The text is not JSON (`message` is the parser's own, in English).
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The text is JSON, but its top-level value is not an object.
    NotAnObject { found: &'static str },
    /// `NaN`, `Infinity`, or a number that overflows a 64-bit float (`1e400`).
    NonFinite { text: String },
    /// A `\uD800`-`\uDFFF` escape without its pair: not a Unicode scalar value.
    LoneSurrogate { line: usize, column: usize },
    /// Deeper nesting than the parser accepts.
    TooDeep,
    /// A number whose text is not a JSON number (only possible for a hand-built value).
    BadNumber { text: String },
}

impl CanonicalError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Syntax {
                line,
                column,
                message,
            } => t!(
                lang,
                "error.canonical.syntax",
                line = line,
                column = column,
                message = message
            ),
            Self::NotAnObject { found } => t!(
                lang,
                "error.canonical.not_an_object",
                found = json_kind_in(lang, found)
            ),
            Self::NonFinite { text } => t!(lang, "error.canonical.non_finite", text = text),
            Self::LoneSurrogate { line, column } => t!(
                lang,
                "error.canonical.lone_surrogate",
                line = line,
                column = column
            ),
            Self::TooDeep => t!(lang, "error.canonical.too_deep").to_string(),
            Self::BadNumber { text } => {
                t!(
                    lang,
                    "error.canonical.bad_number",
                    text = format!("{text:?}")
                )
            }
        }
    }
}

impl std::fmt::Display for CanonicalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(crate::i18n::current()))
    }
}

/// What a JSON value is (as [`kind_of`] names it), said in `lang`.
pub fn json_kind_in(lang: Lang, kind: &str) -> &'static str {
    match kind {
        "null" => t!(lang, "terms.json.null"),
        "a boolean" => t!(lang, "terms.json.boolean"),
        "a number" => t!(lang, "terms.json.number"),
        "a string" => t!(lang, "terms.json.string"),
        "an array" => t!(lang, "terms.json.array"),
        _ => t!(lang, "terms.json.object"),
    }
}

/// The deepest nesting that has a canonical text: the top-level object is
/// level 1, an array or object inside it level 2, and so on.
pub const MAX_DEPTH: usize = 128;

/// The canonical text of a JSON object.
pub fn canonical(obj: &Map<String, Value>) -> Result<String, CanonicalError> {
    let mut out = String::with_capacity(256);
    write_object(&mut out, obj, 1)?;
    Ok(out)
}

/// Appends the canonical text of any JSON value (an object's keys sorted,
/// as in [`canonical`]) to `out`.
pub fn write_canonical(out: &mut String, value: &Value) -> Result<(), CanonicalError> {
    write_value(out, value, 1)
}

/// Appends the canonical text of a JSON number token (`1.50` is `1.5`, `-0`
/// is `0`) to `out`.
pub fn write_canonical_number(out: &mut String, text: &str) -> Result<(), CanonicalError> {
    write_number_text(out, text)
}

/// Parses `json` (which must be one JSON object) and returns its canonical text.
pub fn canonical_text(json: &str) -> Result<String, CanonicalError> {
    let obj = parse_object(json)?;
    canonical(&obj)
}

/// Parses `json` into an object, with the errors of this module.
pub fn parse_object(json: &str) -> Result<Map<String, Value>, CanonicalError> {
    if depth_of(json) > MAX_DEPTH {
        return Err(CanonicalError::TooDeep);
    }
    // The depth was checked above: serde_json's own limit (which refuses
    // level 128 already) must not decide instead.
    let mut de = serde_json::Deserializer::from_str(json);
    de.disable_recursion_limit();
    let parsed = serde::Deserialize::deserialize(&mut de).and_then(|v: Value| de.end().map(|()| v));
    match parsed {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(CanonicalError::NotAnObject {
            found: kind_of(&other),
        }),
        Err(e) => Err(classify_parse_error(json, &e)),
    }
}

/// How deeply the arrays and objects of a JSON text nest (0 for a scalar),
/// counted by their brackets outside strings; for broken JSON, a bound the
/// parser never goes past.
pub fn depth_of(json: &str) -> usize {
    let b = json.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    deepest
}

/// SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex digits.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// SHA-256 hex of the canonical text of `obj`.
pub fn fingerprint(obj: &Map<String, Value>) -> Result<String, CanonicalError> {
    Ok(sha256_hex(&canonical(obj)?))
}

/// SHA-256 hex of the canonical text of the JSON object in `json`.
pub fn digest_of_text(json: &str) -> Result<String, CanonicalError> {
    Ok(sha256_hex(&canonical_text(json)?))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn classify_parse_error(json: &str, e: &serde_json::Error) -> CanonicalError {
    let message = e.to_string();
    let (line, column) = (e.line(), e.column());
    // serde_json says "unexpected end of hex escape" for a leading surrogate without its pair.
    if message.contains("surrogate") || message.contains("end of hex escape") {
        return CanonicalError::LoneSurrogate { line, column };
    }
    if message.contains("recursion limit") {
        return CanonicalError::TooDeep;
    }
    if message.contains("number out of range") {
        return CanonicalError::NonFinite {
            text: number_near(json, line, column),
        };
    }
    if e.is_syntax()
        && let Some(token) = non_finite_literal(json)
    {
        return CanonicalError::NonFinite { text: token };
    }
    // serde_json appends " at line L column C"; keep only the problem.
    let bare = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    CanonicalError::Syntax {
        line,
        column,
        message: bare,
    }
}

/// The number token that ends at (line, column), for an error message.
fn number_near(json: &str, line: usize, column: usize) -> String {
    let Some(text) = json.lines().nth(line.saturating_sub(1)) else {
        return "?".to_string();
    };
    let end = column.min(text.len());
    let start = text[..end]
        .rfind(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .map_or(0, |i| i + 1);
    let token = &text[start..end];
    if token.is_empty() {
        "?".to_string()
    } else {
        token.to_string()
    }
}

/// `NaN`, `Infinity` or `-Infinity` used as a value outside any string, if any.
fn non_finite_literal(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'N' if json[i..].starts_with("NaN") => return Some("NaN".into()),
            b'I' if json[i..].starts_with("Infinity") => {
                let neg = i > 0 && bytes[i - 1] == b'-';
                return Some(if neg { "-Infinity" } else { "Infinity" }.into());
            }
            _ => i += 1,
        }
    }
    None
}

/// Writes `value`, which sits at nesting level `depth` when it is an array
/// or an object.
fn write_value(out: &mut String, value: &Value, depth: usize) -> Result<(), CanonicalError> {
    if matches!(value, Value::Array(_) | Value::Object(_)) && depth > MAX_DEPTH {
        return Err(CanonicalError::TooDeep);
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n)?,
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map, depth)?,
    }
    Ok(())
}

fn write_object(
    out: &mut String,
    map: &Map<String, Value>,
    depth: usize,
) -> Result<(), CanonicalError> {
    // Sorted explicitly: the map's own order depends on serde_json's features.
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_value(out, value, depth + 1)?;
    }
    out.push('}');
    Ok(())
}

/// Escapes as Python's `json` does with `ensure_ascii=False`.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escaped.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(escaped);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn write_number(out: &mut String, n: &Number) -> Result<(), CanonicalError> {
    write_number_text(out, n.as_str())
}

fn write_number_text(out: &mut String, text: &str) -> Result<(), CanonicalError> {
    if text.contains(['.', 'e', 'E']) {
        let x: f64 = text.parse().map_err(|_| CanonicalError::BadNumber {
            text: text.to_string(),
        })?;
        if !x.is_finite() {
            return Err(CanonicalError::NonFinite {
                text: text.to_string(),
            });
        }
        write_float(out, x);
    } else {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(CanonicalError::BadNumber {
                text: text.to_string(),
            });
        }
        // Python's int(): no sign for zero, no leading zeros.
        let trimmed = digits.trim_start_matches('0');
        if trimmed.is_empty() {
            out.push('0');
        } else {
            if text.starts_with('-') {
                out.push('-');
            }
            out.push_str(trimmed);
        }
    }
    Ok(())
}

/// Python's `repr(float)` for a finite `x`.
pub fn python_float_repr(x: f64) -> String {
    let mut out = String::new();
    write_float(&mut out, x);
    out
}

fn write_float(out: &mut String, x: f64) {
    if x.is_sign_negative() {
        out.push('-');
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e16", "5e-324", "0e0".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci
        .split_once('e')
        .expect("LowerExp always has an exponent");
    let exp: i32 = exp.parse().expect("LowerExp exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i32;
    // The value is 0.DIGITS * 10^decpt.
    let decpt = exp + 1;
    if (-3..=16).contains(&decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            for _ in 0..-decpt {
                out.push('0');
            }
            out.push_str(&digits);
        } else if decpt < n {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        } else {
            out.push_str(&digits);
            for _ in 0..decpt - n {
                out.push('0');
            }
            out.push_str(".0");
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (1e-5, "1e-05"),
            (1e-4, "0.0001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.2345678901234568e16, "1.2345678901234568e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (123.456, "123.456"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
        ];
        for (x, want) in cases {
            assert_eq!(python_float_repr(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn integers_are_exact() {
        assert_eq!(
            canonical_text(r#"{"a":-0,"b":123456789012345678901234567890,"c":-7}"#).unwrap(),
            r#"{"a":0,"b":123456789012345678901234567890,"c":-7}"#
        );
    }

    #[test]
    fn keys_sorted_duplicates_last_wins() {
        assert_eq!(
            canonical_text(r#"{"b":1,"a":{"z":[3,1,2],"y":null},"b":2}"#).unwrap(),
            r#"{"a":{"y":null,"z":[3,1,2]},"b":2}"#
        );
    }

    #[test]
    fn strings_escape_like_python() {
        assert_eq!(
            canonical_text(r#"{"s":"a\"b\\c\n\r\t\b\f\u0001\u001f\u007f é 日本 😀"}"#).unwrap(),
            "{\"s\":\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\u{7f} é 日本 😀\"}"
        );
    }

    #[test]
    fn errors_are_typed() {
        assert!(matches!(
            canonical_text("[1]"),
            Err(CanonicalError::NotAnObject { .. })
        ));
        assert!(matches!(
            canonical_text(r#"{"a":NaN}"#),
            Err(CanonicalError::NonFinite { .. })
        ));
        assert!(matches!(
            canonical_text(r#"{"a":1e400}"#),
            Err(CanonicalError::NonFinite { .. })
        ));
        assert!(matches!(
            canonical_text(r#"{"a":"\ud800"}"#),
            Err(CanonicalError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            canonical_text(r#"{"a":"\udc00x"}"#),
            Err(CanonicalError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            canonical_text(r#"{"a":"\ud800\u0041"}"#),
            Err(CanonicalError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            canonical_text(r#"{"a":"#),
            Err(CanonicalError::Syntax { .. })
        ));
    }

    /// An object whose innermost array sits at level `depth` (the object is 1).
    fn nested(depth: usize) -> String {
        format!(
            "{{\"a\":{}1{}}}",
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        )
    }

    #[test]
    fn nesting_up_to_128_levels_is_read_and_deeper_is_refused() {
        for depth in [2, 127, MAX_DEPTH] {
            let text = nested(depth);
            assert_eq!(depth_of(&text), depth);
            assert_eq!(
                canonical_text(&text).as_deref(),
                Ok(text.as_str()),
                "{depth}"
            );
        }
        for depth in [MAX_DEPTH + 1, 1000] {
            assert_eq!(canonical_text(&nested(depth)), Err(CanonicalError::TooDeep));
        }
        // Brackets inside strings are text, not nesting.
        assert_eq!(depth_of(r#"{"a":"[[[{\"[","b":[1]}"#), 2);
        // Trailing text after the object is still an error.
        assert!(matches!(
            canonical_text(r#"{"a":1} x"#),
            Err(CanonicalError::Syntax { .. })
        ));
    }

    #[test]
    fn a_hand_built_value_is_held_to_the_same_depth() {
        let mut value = Value::from(1);
        for _ in 0..MAX_DEPTH - 1 {
            value = Value::Array(vec![value]);
        }
        let mut map = Map::new();
        map.insert("a".into(), value.clone());
        assert_eq!(canonical(&map).unwrap(), nested(MAX_DEPTH));
        map.insert("a".into(), Value::Array(vec![value]));
        assert_eq!(canonical(&map), Err(CanonicalError::TooDeep));
        assert_eq!(fingerprint(&map), Err(CanonicalError::TooDeep));
    }
}
