//! Terminal-safe text.
//!
//! Payloads, keys, scopes and notes come from strangers. Before any of them is
//! shown to a person (TUI, report, check) every character that a terminal could
//! act on, or that could make text lie about its order or content, is replaced
//! by a visible escape: C0 and C1 controls, ESC, DEL, bidi controls, zero-width
//! and other format characters, line and paragraph separators. The escapes are
//! plain ASCII, so sanitising twice changes nothing.

mod error_line;
pub mod json;

pub use error_line::error_line;

use std::borrow::Cow;
use std::fmt::Write as _;

/// True for a character that must never reach a terminal as itself.
pub fn is_unsafe(c: char) -> bool {
    let u = c as u32;
    c.is_control() // C0, DEL, C1
        || matches!(u,
            0x00AD                      // soft hyphen (invisible)
            | 0x0600..=0x0605
            | 0x061C                    // Arabic letter mark (bidi)
            | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2
            | 0x180E
            | 0x200B..=0x200F           // zero-width space/joiners, LRM, RLM
            | 0x2028..=0x2029           // line and paragraph separators
            | 0x202A..=0x202E           // bidi embeddings and overrides
            | 0x2060..=0x2064           // word joiner, invisible operators
            | 0x2066..=0x206F           // bidi isolates, deprecated format chars
            | 0xFEFF                    // zero-width no-break space / BOM
            | 0xFFF9..=0xFFFB           // interlinear annotations
            | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001 | 0xE0020..=0xE007F) // tag characters
}

fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        }
    }
}

/// The text with every unsafe character shown as a visible escape (`\x1b`,
/// `\u{202e}`, `\n`). Allocates only when something had to be escaped.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`clean`], but keeps line breaks as separate lines (for a payload or a
/// note shown over several rows). `\r\n` counts as one break; a lone `\r` is
/// escaped because it would let text overwrite itself.
pub fn clean_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| clean(line.strip_suffix('\r').unwrap_or(line)).into_owned())
        .collect()
}

/// One line of at most `max_chars` characters, cleaned; a cut is marked with `…`.
pub fn inline(text: &str, max_chars: usize) -> String {
    let cleaned = clean(text);
    if cleaned.chars().count() <= max_chars {
        return cleaned.into_owned();
    }
    let mut out: String = cleaned.chars().take(max_chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_passes_untouched() {
        for s in ["hello", "お問い合わせ内容", "née ☃ 😀", ""] {
            assert!(matches!(clean(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(clean("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(clean("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
        assert_eq!(clean("c1\u{9b}31m"), "c1\\x9b31m");
        assert_eq!(clean("del\x7f"), "del\\x7f");
        assert_eq!(clean("nul\0"), "nul\\x00");
    }

    #[test]
    fn bidi_and_zero_width_become_visible() {
        assert_eq!(clean("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            clean("a\u{2066}b\u{200b}c\u{feff}"),
            "a\\u{2066}b\\u{200b}c\\u{feff}"
        );
        assert_eq!(
            clean("\u{061c}\u{200e}\u{200f}"),
            "\\u{061c}\\u{200e}\\u{200f}"
        );
    }

    #[test]
    fn overwrite_tricks_are_inert() {
        assert_eq!(clean("paid\rUNPAID"), "paid\\rUNPAID");
        assert_eq!(clean("ok\x08\x08no"), "ok\\x08\\x08no");
    }

    #[test]
    fn cleaning_twice_changes_nothing() {
        let once = clean("x\x1b[31m\u{202e}y\n").into_owned();
        assert_eq!(clean(&once), once);
    }

    #[test]
    fn lines_keep_breaks_but_not_carriage_returns() {
        assert_eq!(clean_lines("a\r\nb\rc\nd"), vec!["a", "b\\rc", "d"]);
    }

    #[test]
    fn inline_cuts_with_a_marker() {
        assert_eq!(inline("abcdef", 4), "abc…");
        assert_eq!(inline("abcd", 4), "abcd");
        assert_eq!(inline("a\nb", 10), "a\\nb");
    }
}
