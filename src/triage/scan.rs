//! A fast path for payloads the intake wrote: a JSON object that is already
//! in canonical form (keys sorted, no white space, Python's escapes and
//! number forms).
//!
//! For such a text `canonical(parse(text)) == text`, so its digest is the
//! SHA-256 of the stored bytes and its fields can be read in place. Its
//! strings and numbers are checked where they stand; an array or object
//! value (small, in forms: a list of choices, an address) is parsed on its
//! own and compared with its canonical text. Anything else (white space,
//! unsorted or duplicate keys, non-canonical numbers or escapes, deep
//! nesting, broken JSON) is left to the general parser, which decides what it
//! is: this module never calls a payload damaged.

use serde_json::Value as Json;

use crate::intake::canonical;

/// A top-level value of a canonical object; ranges are byte offsets into the
/// scanned text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A string as written between its quotes; `escaped` when it holds a backslash.
    Str {
        raw: std::ops::Range<usize>,
        escaped: bool,
    },
    True,
    False,
    Null,
    /// A number in canonical form: an integer without leading zeros or
    /// `-0`, or a float as Python's `repr` writes it.
    Number(std::ops::Range<usize>),
    /// An array or an object as written, and its parsed value's index in
    /// [`Scanned::nested`].
    Nested {
        raw: std::ops::Range<usize>,
        parsed: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The key as written, which is the key itself (keys with escapes are not
    /// on the fast path).
    pub key: std::ops::Range<usize>,
    pub value: Value,
}

/// Deepest nesting of an array or object value taken on the fast path; the
/// general parser refuses nesting deeper than 128 levels, which must stay
/// its answer.
const MAX_DEPTH: usize = 32;

/// The entries of the last text scanned, and the buffers reused from text to text.
#[derive(Default)]
pub struct Scanned {
    pub entries: Vec<Entry>,
    /// The parsed array and object values, in the order of the entries.
    pub nested: Vec<Json>,
    canonical: String,
}

impl Scanned {
    /// Fills the entries of `text` when it is a canonical object, in order;
    /// returns false (with the entries in any state) when it is not.
    pub fn scan(&mut self, text: &str) -> bool {
        self.entries.clear();
        self.nested.clear();
        if !canonical_object(text, &mut self.entries, &mut self.canonical) {
            return false;
        }
        for e in &self.entries {
            let Value::Nested { raw, .. } = &e.value else {
                continue;
            };
            let raw = &text[raw.clone()];
            let Ok(value) = serde_json::from_str::<Json>(raw) else {
                return false;
            };
            self.canonical.clear();
            if canonical::write_canonical(&mut self.canonical, &value).is_err()
                || self.canonical != raw
            {
                return false;
            }
            self.nested.push(value);
        }
        true
    }
}

/// Byte classes inside a string: 0 plain, 1 quote, 2 backslash, 3 control.
const fn string_classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 3;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 2;
    t
}
static CLASS: [u8; 256] = string_classes();

/// Fills `out` with the entries of `text` when its keys, strings and numbers
/// are canonical, in order (an array or object value is left to
/// [`Scanned::scan`] to check); returns false (with `out` in any state) when
/// the text is not canonical. `buf` is room to write a number's canonical form.
fn canonical_object(text: &str, out: &mut Vec<Entry>, buf: &mut String) -> bool {
    let b = text.as_bytes();
    let n = b.len();
    if n < 2 || b[0] != b'{' || b[n - 1] != b'}' {
        return false;
    }
    if n == 2 {
        return true;
    }
    let mut i = 1;
    let mut previous: Option<&[u8]> = None;
    let mut nested = 0;
    loop {
        // A key: no escapes, strictly after the previous one.
        if b[i] != b'"' {
            return false;
        }
        let Some((end, escaped)) = string_end(b, i + 1) else {
            return false;
        };
        if escaped {
            return false;
        }
        let (key_start, key_end) = (i + 1, end);
        let key = &b[key_start..key_end];
        if previous.is_some_and(|p| p >= key) {
            return false;
        }
        previous = Some(key);
        i = end + 1;
        if i >= n || b[i] != b':' {
            return false;
        }
        i += 1;
        if i >= n {
            return false;
        }
        let (value, next) = match b[i] {
            b'"' => {
                let Some((end, escaped)) = string_end(b, i + 1) else {
                    return false;
                };
                (
                    Value::Str {
                        raw: i + 1..end,
                        escaped,
                    },
                    end + 1,
                )
            }
            b't' if b[i..].starts_with(b"true") => (Value::True, i + 4),
            b'f' if b[i..].starts_with(b"false") => (Value::False, i + 5),
            b'n' if b[i..].starts_with(b"null") => (Value::Null, i + 4),
            b'-' | b'0'..=b'9' => {
                let Some(end) = number_end(text, i, buf) else {
                    return false;
                };
                (Value::Number(i..end), end)
            }
            b'[' | b'{' => {
                let Some(end) = nested_end(&b[i..]) else {
                    return false;
                };
                nested += 1;
                (
                    Value::Nested {
                        raw: i..i + end,
                        parsed: nested - 1,
                    },
                    i + end,
                )
            }
            _ => return false,
        };
        out.push(Entry {
            key: key_start..key_end,
            value,
        });
        i = next;
        if i >= n {
            return false;
        }
        match b[i] {
            b',' => i += 1,
            b'}' => return i == n - 1,
            _ => return false,
        }
        if i >= n {
            return false;
        }
    }
}

/// The length of the array or object at the start of `b`, found by its
/// brackets (strings skipped, and canonical); `None` when it is unterminated,
/// holds a string in non-canonical form or nests deeper than [`MAX_DEPTH`].
/// What lies between the brackets is checked by parsing.
fn nested_end(b: &[u8]) -> Option<usize> {
    let mut depth = 0;
    let mut i = 0;
    loop {
        match *b.get(i)? {
            b'"' => {
                let (end, _) = string_end(b, i + 1)?;
                i = end;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
            }
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The index of the closing quote of a string whose content starts at `i`,
/// and whether it holds escapes; `None` when the string is not in canonical
/// form (a raw control character, an escape Python would not write) or unterminated.
#[inline]
fn string_end(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        // Jump eight bytes at a time to the first quote, backslash or control.
        while let Some(word) = b.get(i..i + 8) {
            let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let special = special_bytes(w);
            if special != 0 {
                i += (special.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        match CLASS[*b.get(i)? as usize] {
            0 => i += 1,
            1 => return Some((i, escaped)),
            2 => {
                escaped = true;
                i = escape_end(b, i + 1)?;
            }
            _ => return None,
        }
    }
}

/// The high bit of each byte of `w` that is a quote, a backslash or below
/// 0x20; exact for the lowest such byte (bits above it may be spurious).
#[inline]
fn special_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    // Bytes below 0x20 borrow into their high bit; bytes >= 0x80 are masked out by !w.
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    quote | backslash | control
}

/// The index after an escape whose letter is at `i`, when Python writes that
/// escape with `ensure_ascii=False`: `\" \\ \n \r \t \b \f`, and `\u00XX`
/// (lower-case hex) for the other characters below 0x20.
fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f' => Some(i + 1),
        b'u' => {
            let hex = b.get(i + 1..i + 5)?;
            if hex[0] != b'0' || hex[1] != b'0' {
                return None;
            }
            let digit = |c: u8| match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                _ => None,
            };
            let v = digit(hex[2])? * 16 + digit(hex[3])?;
            let short_form = matches!(v, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
            (v < 0x20 && !short_form).then_some(i + 5)
        }
        _ => None,
    }
}

/// The end of a canonical number starting at `i` (followed by `,` or `}`):
/// an integer without leading zeros or `-0`, or a float written as Python's
/// `repr` writes it.
fn number_end(text: &str, i: usize, buf: &mut String) -> Option<usize> {
    let b = text.as_bytes();
    let mut j = i;
    if b[j] == b'-' {
        j += 1;
    }
    let digits = j;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    let count = j - digits;
    if count == 0 {
        return None;
    }
    if matches!(b.get(j), Some(b'.' | b'e' | b'E')) {
        while j < b.len() && matches!(b[j], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
            j += 1;
        }
        let token = &text[i..j];
        buf.clear();
        let canonical = canonical::write_canonical_number(buf, token).is_ok() && buf == token;
        return (canonical && matches!(b.get(j), Some(b',' | b'}'))).then_some(j);
    }
    if b[digits] == b'0' && (count > 1 || digits > i) {
        return None; // a leading zero, or -0
    }
    match b.get(j) {
        Some(b',' | b'}') => Some(j),
        _ => None,
    }
}

/// The text of a string written with canonical escapes.
pub fn unescape(raw: &str, out: &mut String) {
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let b = rest.as_bytes();
        let (c, len) = match b[at + 1] {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            _ => {
                let v = u32::from_str_radix(&rest[at + 2..at + 6], 16).unwrap_or(0);
                (char::from_u32(v).unwrap_or('\u{fffd}'), 6)
            }
        };
        out.push(c);
        rest = &rest[at + len..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intake::canonical::canonical_text;
    use proptest::prelude::*;

    fn scan(text: &str) -> Option<Vec<Entry>> {
        let mut s = Scanned::default();
        s.scan(text).then_some(s.entries)
    }

    #[test]
    fn intake_payloads_take_the_fast_path() {
        let t = r#"{"a":"x","b":true,"c":false,"d":null,"e":-12,"f":"q\"\\\n\u001f","g":0}"#;
        let e = scan(t).expect("canonical");
        assert_eq!(e.len(), 7);
        assert_eq!(&t[e[0].key.clone()], "a");
        assert_eq!(
            e[0].value,
            Value::Str {
                raw: 6..7,
                escaped: false
            }
        );
        let Value::Number(n) = e[4].value.clone() else {
            panic!("{:?}", e[4]);
        };
        assert_eq!(&t[n], "-12");
        let mut s = String::new();
        let Value::Str { raw, escaped: true } = e[5].value.clone() else {
            panic!("{:?}", e[5]);
        };
        unescape(&t[raw], &mut s);
        assert_eq!(s, "q\"\\\n\u{1f}");
        assert_eq!(scan("{}"), Some(vec![]));
        assert_eq!(canonical_text(t).unwrap(), t);
    }

    #[test]
    fn floats_and_nested_values_in_canonical_form_take_the_fast_path() {
        let t = r#"{"a":[],"b":[{"qty":2,"sku":"S-1"},null,"x\n"],"c":53.44,"d":{"k":[1.5,-0.0]},"e":1e+16,"f":-1.5e-07,"g":"y"}"#;
        let mut s = Scanned::default();
        assert!(s.scan(t), "{t}");
        assert_eq!(canonical_text(t).unwrap(), t);
        let parsed: serde_json::Map<String, Json> = serde_json::from_str(t).unwrap();
        let mut numbers = Vec::new();
        for (e, (key, value)) in s.entries.iter().zip(&parsed) {
            assert_eq!(&t[e.key.clone()], key);
            match &e.value {
                Value::Nested { raw, parsed } => {
                    assert_eq!(&s.nested[*parsed], value);
                    assert_eq!(
                        serde_json::from_str::<Json>(&t[raw.clone()]).unwrap(),
                        *value
                    );
                }
                Value::Number(raw) => numbers.push(&t[raw.clone()]),
                _ => {}
            }
        }
        assert_eq!(s.nested.len(), 3);
        assert_eq!(numbers, ["53.44", "1e+16", "-1.5e-07"]);
        // Deep, but within the limit.
        let deep = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(scan(&deep).is_some());
    }

    #[test]
    fn anything_else_goes_the_general_way() {
        let too_deep = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        for t in [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{ "a":1}"#,
            r#"{"a":1} "#,
            r#"{"a":1.50}"#,
            r#"{"a":1e5}"#,
            r#"{"a":1E+16}"#,
            r#"{"a":1.}"#,
            r#"{"a":1.5.5}"#,
            r#"{"a":1e400}"#,
            r#"{"a":100000.0e0}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":01.5}"#,
            r#"{"a":[1, 2]}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":[1}"#,
            r#"{"a":[1]]}"#,
            r#"{"a":[1.50]}"#,
            r#"{"a":{"c":1,"b":2}}"#,
            r#"{"a":{"b":1,"b":2}}"#,
            r#"{"a":["\u00e9"]}"#,
            r#"{"a":["x]"}"#,
            r#"{"a":[NaN]}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":"\/"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a\"":1}"#,
            r#"{"a":tru}"#,
            r#"{"a":"x""#,
            r#"{"a":"x",}"#,
            r#"{"a"}"#,
            r#"{"a":}"#,
            "[]",
            "{",
            &too_deep,
        ] {
            assert_eq!(scan(t), None, "{t}");
        }
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::string::string_regex("[a-zA-Z é日\\\\\"\n\t\u{1}\u{7f}\u{1f}]{0,12}")
                .unwrap()
                .prop_map(|s| serde_json::Value::String(s).to_string()),
            Just("true".to_string()),
            Just("null".to_string()),
            (-1000i64..1000).prop_map(|n| n.to_string()),
            proptest::sample::select(vec![
                "1.5", "1.50", "-0.0", "0.1", "1e5", "1e+16", "1e-05", "1E-05", "2.5e-07", "100.0"
            ])
            .prop_map(str::to_string),
            proptest::sample::select(vec![
                "[1, 2]",
                "[1,2]",
                "[]",
                "{}",
                "[[],{}]",
                "{\"b\":1,\"a\":2}",
                "{\"a\":2,\"b\":1}",
                "[{\"qty\":2,\"sku\":\"S\"}]",
                "[1.0,\"\\u00e9\"]",
                "[1.0,\"é\"]",
                "{\"a\":{\"a\":[null]}}",
            ])
            .prop_map(str::to_string),
            Just(r#""\u0041""#.to_string()),
        ]
    }

    proptest! {
        /// The fast path accepts a text exactly when it is its own canonical form.
        #[test]
        fn accepted_texts_are_canonical(
            entries in proptest::collection::vec(("[a-c]{1,2}", value()), 0..6),
            spaced in any::<bool>(),
        ) {
            let sep = if spaced { ", " } else { "," };
            let body: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(k.as_str())))
                .collect();
            let text = format!("{{{}}}", body.join(sep));
            let canonical = canonical_text(&text);
            if let Some(found) = scan(&text) {
                prop_assert_eq!(canonical.as_deref(), Ok(text.as_str()));
                prop_assert_eq!(found.len(), entries.len());
            } else if let Ok(c) = canonical {
                prop_assert_ne!(c, text);
            }
        }
    }
}
