//! Width-aware text: terminal cells, not bytes or chars. A wide (CJK) character
//! takes two cells and is never split; a cut is always marked with `…`.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::sanitize::clean;

pub const ELLIPSIS: char = '…';

/// Cells the text takes on a terminal.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// At most `max` cells; a cut ends with `…`.
pub fn fit(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    format!("{}{ELLIPSIS}", prefix(text, max - 1))
}

/// Exactly `cells` cells: cut with `…` or padded with spaces on the right.
pub fn pad(text: &str, cells: usize) -> String {
    let mut out = fit(text, cells);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cells.saturating_sub(w)));
    out
}

/// Exactly `cells` cells, right-aligned.
pub fn pad_left(text: &str, cells: usize) -> String {
    let cut = fit(text, cells);
    let w = width(&cut);
    let mut out: String = std::iter::repeat_n(' ', cells.saturating_sub(w)).collect();
    out.push_str(&cut);
    out
}

/// At most `max_chars` characters of `text`, for a view that shows only its
/// beginning; a longer text is cut and ends with `…`. Cutting before cleaning
/// and wrapping makes a 1 MB value as cheap to draw as a short one.
pub fn head(text: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => std::borrow::Cow::Owned(format!("{}{ELLIPSIS}", &text[..i])),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Untrusted text made safe (see [`crate::sanitize`]) and fitted to `max` cells.
pub fn safe(text: &str, max: usize) -> String {
    fit(&clean(&head(text, max + 1)), max)
}

/// Untrusted text made safe and padded or cut to exactly `cells` cells.
pub fn safe_pad(text: &str, cells: usize) -> String {
    pad(&clean(&head(text, cells + 1)), cells)
}

/// Lines of at most `cells` cells, broken at a space when one is near, else
/// between characters (a wide character is never split). The text must already
/// be safe; line breaks in it start new lines.
pub fn wrap(text: &str, cells: usize) -> Vec<String> {
    wrap_ranges(text, cells)
        .into_iter()
        .map(|r| text[r].to_string())
        .collect()
}

/// [`wrap`] as byte ranges of `text`, one a line (the space a line breaks
/// at and the line breaks themselves belong to no line).
pub fn wrap_ranges(text: &str, cells: usize) -> Vec<std::ops::Range<usize>> {
    let cells = cells.max(2);
    let mut lines = Vec::new();
    let mut from = 0;
    for paragraph in text.split('\n') {
        // The line is text[start..end]; `used` its cells.
        let mut start = from;
        let mut end = from;
        let mut used = 0;
        for (i, c) in paragraph.char_indices() {
            let at = from + i;
            let w = char_width(c);
            if used + w > cells {
                // Japanese breaks between any two characters: next to a wide
                // one the line ends where it is full (but never before a
                // closing mark such as 。). Elsewhere, prefer to break after
                // the last space in the second half of the line.
                let prev_wide = text[start..end]
                    .chars()
                    .next_back()
                    .is_some_and(|p| char_width(p) == 2);
                let between_wide = (w == 2 || prev_wide) && c != ' ' && !NO_LINE_START.contains(c);
                let break_at = text[start..end]
                    .char_indices()
                    .filter(|(_, ch)| *ch == ' ')
                    .map(|(i, _)| start + i)
                    .next_back()
                    .filter(|&i| !between_wide && width(&text[start..i]) >= cells / 2);
                match break_at {
                    Some(i) => {
                        lines.push(start..i);
                        start = i + 1;
                    }
                    None => {
                        // A closing mark after a wide character takes that
                        // character with it to the next line.
                        let last = text[start..end].char_indices().next_back();
                        // A word of Latin letters (a field name, an email)
                        // is not cut in two: it goes whole to the next line.
                        let word_from = text[start..end]
                            .char_indices()
                            .rev()
                            .take_while(|(_, ch)| in_word(*ch))
                            .last()
                            .map(|(i, _)| start + i);
                        let cut = match last {
                            Some((i, _)) if prev_wide && i > 0 && NO_LINE_START.contains(c) => {
                                start + i
                            }
                            _ => match word_from {
                                Some(w) if in_word(c) && w > start => w,
                                _ => end,
                            },
                        };
                        lines.push(start..cut);
                        start = cut;
                    }
                }
                used = width(&text[start..end]);
            }
            end = at + c.len_utf8();
            used += w;
        }
        lines.push(start..end);
        from += paragraph.len() + 1;
    }
    lines
}

/// Part of a word of Latin letters or digits, or of an identifier.
fn in_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Marks a Japanese line never starts with.
const NO_LINE_START: &str = "、。，．・：；！？）」』】〉》ー…";

/// The longest prefix of at most `cells` cells (no marker).
fn prefix(text: &str, cells: usize) -> &str {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        used += char_width(c);
        if used > cells {
            return &text[..i];
        }
    }
    text
}

/// [`wrap`] limited to `max_lines`; when more would follow the last line ends with `…`.
pub fn wrap_at_most(text: &str, cells: usize, max_lines: usize) -> Vec<String> {
    let mut lines = wrap(text, cells);
    if max_lines > 0 && lines.len() > max_lines {
        lines.truncate(max_lines);
        if let Some(last) = lines.last_mut() {
            *last = format!("{}{ELLIPSIS}", prefix(last, cells.max(2) - 1));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_latin_word_beside_japanese_goes_whole_to_the_next_line() {
        let lines = wrap("項目（event_id、submitted_at など）", 20);
        assert_eq!(lines, ["項目（event_id、", "submitted_at など）"]);
        // A word longer than a line is cut where the line is full.
        assert_eq!(
            wrap("あsubmitted_at_and_more", 8),
            ["あ", "submitte", "d_at_and", "_more"]
        );
    }

    #[test]
    fn wide_characters_are_never_split() {
        assert_eq!(fit("山田太郎", 5), "山田…");
        assert_eq!(width(&fit("山田太郎", 5)), 5);
        assert_eq!(fit("山田太郎", 4), "山…");
        assert_eq!(fit("山田太郎", 8), "山田太郎");
        assert_eq!(pad("山田太郎", 6), "山田… ");
        assert_eq!(width(&pad("山田太郎", 6)), 6);
        assert_eq!(pad_left("ab", 4), "  ab");
    }

    #[test]
    fn cuts_are_marked() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abcdef", 1), "…");
        assert_eq!(fit("abcdef", 0), "");
    }

    #[test]
    fn wrapping_prefers_spaces_and_respects_width() {
        assert_eq!(wrap("hello big world", 10), vec!["hello big", "world"]);
        for line in wrap("お問い合わせ内容の確認をお願いします", 7) {
            assert!(width(&line) <= 7, "{line}");
        }
        assert_eq!(wrap("a\nb", 5), vec!["a", "b"]);
        // Japanese fills its lines, a space in it or not, and a closing
        // mark such as 。 never starts a line.
        assert_eq!(
            wrap("読み直してください。v で表示します。", 12),
            vec!["読み直してく", "ださい。v で", "表示します。"]
        );
        assert_eq!(
            wrap("確認してください。", 8),
            vec!["確認して", "くださ", "い。"]
        );
        let cut = wrap_at_most("one two three four five six", 9, 2);
        assert_eq!(cut.len(), 2);
        assert!(cut[1].ends_with('…'));
        assert!(cut.iter().all(|l| width(l) <= 9));
    }

    #[test]
    fn a_long_text_is_cut_before_it_is_cleaned_and_still_marked() {
        assert_eq!(head("abcdef", 3), "abc…");
        assert_eq!(head("abc", 3), "abc");
        assert_eq!(head("日本語です", 2), "日本…");
        let huge = "x".repeat(1_000_000);
        assert_eq!(safe(&huge, 5), "xxxx…");
        assert_eq!(width(&safe_pad(&huge, 7)), 7);
        // Zero-width characters take no cells: the cut is still marked.
        let marks = format!("e{}", "\u{301}".repeat(50));
        assert!(safe(&marks, 4).ends_with('…'));
    }

    #[test]
    fn unsafe_text_is_cleaned_before_fitting() {
        assert_eq!(safe("a\x1b[2Jb", 20), "a\\x1b[2Jb");
        assert_eq!(safe("x\u{202e}y", 4), "x\\u…");
    }
}
