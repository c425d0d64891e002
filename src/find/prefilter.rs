//! A cheap look at a payload's text before it is folded in full: its
//! letters lower-cased and its runs of white space made one space, as
//! folding would, while the characters that are common in the payloads and
//! never fold to anything else (kana, CJK ideographs, Japanese punctuation)
//! stand as one byte that no needle holds. Full-width ASCII becomes ASCII,
//! as NFKC makes it; JSON escapes are read as what they stand for. A payload
//! with any other character is not projected at all: it is folded in full
//! instead.
//!
//! So a needle found in a value's folded text is always found in the
//! projection: the projection only ever lets too many payloads through.

/// Stands for a character that cannot be part of a needle's match.
const OTHER: u8 = 0xFF;

/// Stands for the long vowel mark `ー`, which cannot be part of a needle's
/// match either.
pub(super) const LONG_MARK: u8 = 0xFE;

/// Writes the projection of `text` (a JSON text: its escapes are read as
/// what they stand for) into `out`; false when `text` holds a character
/// this cannot project (then `out` is to be ignored).
pub fn project(text: &str, out: &mut Vec<u8>) -> bool {
    project_into(text, &mut Sink::<false>::new(out))
}

/// [`project`], compacted as [`super::loose`] compacts a text, as far as an
/// ASCII query can tell: a run of spaces, dashes, brackets and long vowel
/// marks between two digits is left out (what is left out between Japanese
/// characters no ASCII query holds). So an ASCII compact query found in a
/// value's compact form is always found here.
pub fn project_compact(text: &str, out: &mut Vec<u8>) -> bool {
    project_into(text, &mut Sink::<true>::new(out))
}

/// An ASCII text (a request key) lower-cased into `out`, compacted when
/// `compact` is set: the projection of a text that is no JSON.
pub fn lower_ascii(text: &str, compact: bool, out: &mut Vec<u8>) {
    debug_assert!(text.is_ascii());
    fn each<const COMPACT: bool>(text: &str, out: &mut Vec<u8>) {
        let mut sink = Sink::<COMPACT>::new(out);
        for b in text.bytes() {
            sink.push(b.to_ascii_lowercase());
        }
    }
    match compact {
        true => each::<true>(text, out),
        false => each::<false>(text, out),
    }
}

/// Where a projection is written; when compacting, a run of what parts
/// digits is taken back as soon as a digit follows it (one pass: this runs
/// over every payload when a phone number is searched for).
struct Sink<'a, const COMPACT: bool> {
    out: &'a mut Vec<u8>,
    /// Where a run after a digit began, or [`NO_RUN`].
    run: usize,
}

const NO_RUN: usize = usize::MAX;

impl<'a, const COMPACT: bool> Sink<'a, COMPACT> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        out.clear();
        Sink { out, run: NO_RUN }
    }

    #[inline]
    fn push(&mut self, b: u8) {
        if COMPACT {
            if matches!(b, b' ' | b'-' | b'(' | b')' | LONG_MARK) {
                if self.run == NO_RUN && self.out.last().is_some_and(u8::is_ascii_digit) {
                    self.run = self.out.len();
                }
            } else if self.run != NO_RUN {
                if b.is_ascii_digit() {
                    self.out.truncate(self.run);
                }
                self.run = NO_RUN;
            }
        }
        self.out.push(b);
    }
}

fn project_into<const COMPACT: bool>(text: &str, out: &mut Sink<'_, COMPACT>) -> bool {
    out.out.reserve(text.len());
    let mut space = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !COMPACT && is_plain(b) {
            // A run of visible ASCII is lower-cased at once: most of a
            // payload is, and this runs over every payload.
            let run = bytes[i..].iter().take_while(|&&c| is_plain(c)).count();
            if std::mem::take(&mut space) {
                out.push(b' ');
            }
            out.out
                .extend(bytes[i..i + run].iter().map(u8::to_ascii_lowercase));
            i += run;
            continue;
        }
        let u = if b == b'\\' {
            let Some((u, used)) = escape(&bytes[i + 1..]) else {
                return false;
            };
            i += 1 + used;
            u
        } else if b < 0x80 {
            i += 1;
            u32::from(b)
        } else if (0xE0..0xF0).contains(&b) {
            // Three bytes (kana, ideographs, full-width forms): the text is
            // UTF-8, so both continuation bytes are there.
            let u = (u32::from(b & 0x0F) << 12)
                | (u32::from(bytes[i + 1] & 0x3F) << 6)
                | u32::from(bytes[i + 2] & 0x3F);
            i += 3;
            u
        } else {
            let c = text[i..].chars().next().expect("a char starts here");
            i += c.len_utf8();
            u32::from(c)
        };
        if !put(u, &mut space, out) {
            return false;
        }
    }
    true
}

/// Visible ASCII but the backslash: its projection is itself, lower-cased.
#[inline]
fn is_plain(b: u8) -> bool {
    (0x21..0x7F).contains(&b) && b != b'\\'
}

/// The character an escape (after its backslash) stands for, and the bytes it took.
fn escape(rest: &[u8]) -> Option<(u32, usize)> {
    let u = match *rest.first()? {
        b'n' => 0x0A,
        b't' => 0x09,
        b'r' => 0x0D,
        b'f' => 0x0C,
        b'b' => 0x08,
        b'"' => 0x22,
        b'\\' => 0x5C,
        b'/' => 0x2F,
        b'u' => {
            let hex = std::str::from_utf8(rest.get(1..5)?).ok()?;
            let u = u32::from_str_radix(hex, 16).ok()?;
            // A surrogate pair is not worth reading here: folded in full instead.
            if (0xD800..=0xDFFF).contains(&u) {
                return None;
            }
            return Some((u, 5));
        }
        _ => return None,
    };
    Some((u, 1))
}

/// Appends one character's projection; false when it has none.
#[inline]
fn put<const COMPACT: bool>(u: u32, space: &mut bool, out: &mut Sink<'_, COMPACT>) -> bool {
    if matches!(u, 0x09..=0x0D | 0x20 | 0x3000) {
        *space = true;
        return true;
    }
    if std::mem::take(space) {
        out.push(b' ');
    }
    match u {
        0..=0x7F => out.push((u as u8).to_ascii_lowercase()),
        // Full-width ASCII: NFKC makes it ASCII.
        0xFF01..=0xFF5E => out.push(((u - 0xFEE0) as u8).to_ascii_lowercase()),
        // The long vowel mark (full and half width) stands apart: between
        // digits it is a dash (see `super::loose`).
        0x30FC | 0xFF70 => out.push(LONG_MARK),
        // Hiragana, katakana (with their sound marks), CJK ideographs,
        // Japanese punctuation and brackets, the katakana middle dot,
        // half-width katakana: never ASCII once folded.
        0x3041..=0x3096
        | 0x3099..=0x309E
        | 0x30A1..=0x30FE
        | 0x4E00..=0x9FFF
        | 0x3001..=0x3002
        | 0x300C..=0x300F
        | 0x3010..=0x3011
        | 0x301C
        | 0xFF65..=0xFF9F => out.push(OTHER),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::text::normalize_text;

    fn projected(text: &str) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        project(text, &mut out).then_some(out)
    }

    #[test]
    fn ascii_is_lower_cased_and_spaces_folded() {
        assert_eq!(projected("John  \t Smith").unwrap(), b"john smith");
        assert_eq!(projected("ＪＯＨＮ　Ｓｍｉｔｈ").unwrap(), b"john smith");
        assert_eq!(
            projected(r#"Line\nTwo \u0041\u3042 \"q\""#).unwrap(),
            b"line two a\xff \"q\""
        );
        assert!(projected("a\\u00e9").is_none());
        assert!(projected("café").is_none());
    }

    /// Whatever a value folds to, the projection holds it (kana and CJK as
    /// stand-ins): never a needle missed.
    #[test]
    fn a_folded_value_is_found_in_the_projection() {
        for text in [
            "山田 太郎 taro@EXAMPLE.jp",
            "お見積もりをお願いします。会議室用の椅子を20脚、「机」を4台です。",
            "ＴＡＲＯ＠ｅｘａｍｐｌｅ．ｊｐ　ｶﾀｶﾅ",
            "Call me at +1 676 555 0139",
        ] {
            let folded = normalize_text(text);
            let ascii: String = folded
                .chars()
                .map(|c| if c.is_ascii() { c } else { '\u{FFFD}' })
                .collect();
            let p = projected(text).unwrap();
            for piece in ascii.split('\u{FFFD}').filter(|p| !p.trim().is_empty()) {
                let piece = piece.trim();
                assert!(
                    memchr::memmem::find(&p, piece.as_bytes()).is_some(),
                    "{piece:?} of {text:?}"
                );
            }
        }
    }
}
