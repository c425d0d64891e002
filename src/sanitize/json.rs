//! JSON whose bytes are safe to print on a terminal.
//!
//! serde_json already escapes C0 controls; this formatter also escapes every
//! other character that [`crate::sanitize::is_unsafe`] flags (DEL, C1, bidi and
//! zero-width characters) as `\uXXXX`. The document decodes to exactly the same
//! strings, so scripts lose nothing.

use std::io;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::sanitize::is_unsafe;

struct TerminalSafe<F>(F);

impl<F: Formatter> Formatter for TerminalSafe<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // ASCII below DEL is never unsafe here (serde_json escapes C0 itself).
        if fragment.bytes().all(|b| b < 0x7f) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_unsafe(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    // Everything else is delegated to the wrapped formatter.
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Pretty-printed, terminal-safe JSON.
pub fn to_string_pretty<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, TerminalSafe(PrettyFormatter::new()));
    // Serialising plain data structures into memory cannot fail.
    value.serialize(&mut ser).expect("serialising to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Pretty-printed, terminal-safe JSON, written to `out`.
pub fn to_writer_pretty<W: io::Write, T: Serialize>(out: W, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, TerminalSafe(PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// The elements of a pretty-printed, terminal-safe array `depth` levels deep,
/// as [`to_writer_pretty`] would write them between `[` and its closing
/// line: each on a new line, indented, separated by commas. Elements are
/// rendered in parallel, in chunks returned in order (the caller writes them
/// one after the other). `view` gives what is serialised for each item.
pub fn pretty_elements<'a, T, V, F>(items: &'a [T], depth: usize, view: F) -> Vec<Vec<u8>>
where
    T: Sync,
    V: Serialize,
    F: Fn(&'a T) -> V + Sync,
{
    const CHUNK: usize = 512;
    let indent = b"  ".repeat(depth);
    items
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut out = Vec::new();
            let mut one = Vec::new();
            for (k, item) in chunk.iter().enumerate() {
                out.extend_from_slice(if c == 0 && k == 0 { b"\n" } else { b",\n" });
                out.extend_from_slice(&indent);
                one.clear();
                let formatter = TerminalSafe(PrettyFormatter::new());
                let mut ser = serde_json::Serializer::with_formatter(&mut one, formatter);
                view(item)
                    .serialize(&mut ser)
                    .expect("serialising to memory");
                // Rendered at the top level: its inner lines move `depth`
                // levels in. A string's own line breaks are escaped, so every
                // raw newline is one the formatter wrote.
                let mut lines = one.split(|&b| b == b'\n');
                out.extend_from_slice(lines.next().unwrap_or_default());
                for line in lines {
                    out.push(b'\n');
                    out.extend_from_slice(&indent);
                    out.extend_from_slice(line);
                }
            }
            out
        })
        .collect()
}

/// One line of terminal-safe JSON (for JSONL).
pub fn to_string_compact<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let formatter = TerminalSafe(serde_json::ser::CompactFormatter);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut ser).expect("serialising to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_are_escaped_and_decode_back() {
        let original = "a\u{1b}[31m\u{202e}b\u{7f}\u{85}c\u{e0041}é日本";
        let text = to_string_compact(&original);
        assert!(text.chars().all(|c| !is_unsafe(c)), "{text}");
        assert_eq!(
            text,
            r#""a\u001b[31m\u202eb\u007f\u0085c\udb40\udc41é日本""#
        );
        let back: String = serde_json::from_str(&text).unwrap();
        assert_eq!(back, original);
    }

    #[test]
    fn elements_rendered_apart_are_those_of_the_whole_array() {
        let items: Vec<serde_json::Value> = (0..1300)
            .map(|i| {
                serde_json::json!({
                    "id": i,
                    "text": format!("line\n{i}\u{202e}\u{7f}"),
                    "list": (0..i % 4).collect::<Vec<_>>(),
                    "empty": [],
                    "nested": {"a": [{"b": i}]},
                })
            })
            .collect();
        for n in [0, 1, 2, 512, 513, 1300] {
            let whole = to_string_pretty(&serde_json::json!({ "x": &items[..n] }));
            let mut joined = String::from("{\n  \"x\": [");
            for chunk in pretty_elements(&items[..n], 2, |v| v) {
                joined.push_str(std::str::from_utf8(&chunk).unwrap());
            }
            joined.push_str(if n == 0 { "]\n}" } else { "\n  ]\n}" });
            assert_eq!(joined, whole, "{n} elements");
        }
    }

    #[test]
    fn pretty_output_is_still_pretty() {
        let text = to_string_pretty(&serde_json::json!({"a": [1, 2]}));
        assert_eq!(text, "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    }
}
