//! Where two values of a differing field differ: the words that changed, or
//! the characters in text written without spaces (Japanese), so that
//! `8月中…` against `12月中…` shows `12` and `8`, not the whole field. A
//! change deep in a long value is shown with a little of what comes before it.

use std::ops::Range;
use std::time::Duration;

use ratatui::style::Style;
use ratatui::text::Span;
use similar::{ChangeTag, TextDiff};
use unicode_width::UnicodeWidthChar;

use super::super::text;

/// Byte ranges of a text.
pub type Ranges = Vec<Range<usize>>;

/// The most bytes of each value compared (a frame stays cheap; the part
/// shown is far shorter).
const COMPARED_BYTES: usize = 16 * 1024;
/// A comparison that takes longer is approximated.
const TIMEOUT: Duration = Duration::from_millis(15);

/// True for text compared word by word: it has spaces between its words
/// and no wide (CJK) characters, which are written without them.
fn by_words(text: &str) -> bool {
    text.contains(' ') && !text.chars().any(|c| c.width() == Some(2))
}

fn cut(text: &str) -> &str {
    if text.len() <= COMPARED_BYTES {
        return text;
    }
    let mut end = COMPARED_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The ranges of `old` and of `new` that differ between the two.
pub fn changed(old: &str, new: &str) -> (Ranges, Ranges) {
    let (old, new) = (cut(old), cut(new));
    let mut config = TextDiff::configure();
    config.timeout(TIMEOUT);
    let diff = if by_words(old) && by_words(new) {
        config.diff_words(old, new)
    } else {
        config.diff_chars(old, new)
    };
    let (mut at_old, mut at_new) = (0, 0);
    let (mut in_old, mut in_new) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            ChangeTag::Equal => {
                at_old += len;
                at_new += len;
            }
            ChangeTag::Delete => {
                in_old.push(at_old..at_old + len);
                at_old += len;
            }
            ChangeTag::Insert => {
                in_new.push(at_new..at_new + len);
                at_new += len;
            }
        }
    }
    (joined(old, in_old), joined(new, in_new))
}

/// Ranges in order, those apart by white space only made one.
fn joined(text: &str, ranges: Ranges) -> Ranges {
    let mut out: Ranges = Vec::new();
    for r in ranges {
        match out.last_mut() {
            Some(last) if text[last.end..r.start].trim().is_empty() => last.end = r.end,
            _ => out.push(r),
        }
    }
    out
}

/// Ranges in order, overlapping ones made one (the first copy's, from each
/// later copy's comparison).
pub fn union(mut ranges: Ranges) -> Ranges {
    ranges.sort_by_key(|r| r.start);
    let mut out: Ranges = Vec::new();
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Where a value starts to be shown so that its first change is in sight
/// in `lines` lines of `cells`: 0 when it is anyway, else a line's worth of
/// cells before the change (after a space when one is there).
fn shown_from(text: &str, first: usize, cells: usize, lines: usize) -> usize {
    let room = cells * lines.saturating_sub(2).max(1);
    if text::width(&text[..first]) <= room {
        return 0;
    }
    let mut from = first;
    let mut used = 0;
    for (i, c) in text[..first].char_indices().rev() {
        used += c.width().unwrap_or(0);
        if used > cells {
            break;
        }
        from = i;
    }
    // Start at a word when one starts in the context.
    match text[from..first].find(' ') {
        Some(space) if from + space + 1 < first => from + space + 1,
        _ => from,
    }
}

/// A value as lines of at most `cells` cells (at most `max_lines`, the last
/// ending with `…` when more would follow), its `changed` ranges in the
/// `changed` style. When the first change would fall below what is shown,
/// the value is shown from a little before it, marked with a leading `…`.
pub fn lines(
    text: &str,
    changed: &[Range<usize>],
    cells: usize,
    max_lines: usize,
    plain: Style,
    marked: Style,
) -> Vec<Vec<Span<'static>>> {
    let from = changed
        .first()
        .map_or(0, |r| shown_from(text, r.start, cells, max_lines));
    let (shown, shift, lead) = if from > 0 {
        (
            format!("{}{}", text::ELLIPSIS, &text[from..]),
            from,
            text::ELLIPSIS.len_utf8(),
        )
    } else {
        (text.to_string(), 0, 0)
    };
    // The ranges in `shown`.
    let ranges: Ranges = changed
        .iter()
        .filter(|r| r.end > shift)
        .map(|r| (r.start.max(shift) - shift + lead)..(r.end - shift + lead))
        .collect();
    let mut wrapped = text::wrap_ranges(&shown, cells);
    let more = wrapped.len() > max_lines.max(1);
    wrapped.truncate(max_lines.max(1));
    let count = wrapped.len();
    wrapped
        .into_iter()
        .enumerate()
        .map(|(n, line)| {
            let mut line = line;
            let ellipsis = more && n + 1 == count;
            if ellipsis {
                // Room for the `…`: the line's end drops until it fits.
                while line.end > line.start && text::width(&shown[line.clone()]) > cells.max(2) - 1
                {
                    let mut end = line.end - 1;
                    while !shown.is_char_boundary(end) {
                        end -= 1;
                    }
                    line.end = end;
                }
            }
            let mut spans = styled(&shown, line, &ranges, plain, marked);
            if ellipsis {
                spans.push(Span::styled(text::ELLIPSIS.to_string(), plain));
            }
            spans
        })
        .collect()
}

/// The spans of `text[line]`, `ranges` in the `marked` style.
fn styled(
    text: &str,
    line: Range<usize>,
    ranges: &[Range<usize>],
    plain: Style,
    marked: Style,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut at = line.start;
    for r in ranges {
        let (start, end) = (r.start.max(line.start), r.end.min(line.end));
        if start >= end {
            continue;
        }
        if at < start {
            spans.push(Span::styled(text[at..start].to_string(), plain));
        }
        spans.push(Span::styled(text[start..end].to_string(), marked));
        at = end;
    }
    if at < line.end {
        spans.push(Span::styled(text[at..line.end].to_string(), plain));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str, ranges: &[Range<usize>]) -> Vec<String> {
        ranges.iter().map(|r| text[r.clone()].to_string()).collect()
    }

    #[test]
    fn words_differ_in_spaced_text_and_characters_in_japanese() {
        let (old, new) = changed("Order 2 boxes", "Order 3 boxes, express");
        assert_eq!(pieces("Order 2 boxes", &old), ["2 boxes"]);
        assert_eq!(pieces("Order 3 boxes, express", &new), ["3 boxes, express"]);
        let (a, b) = ("8月中に納品希望です", "12月中に納品希望です");
        let (old, new) = changed(a, b);
        assert_eq!(pieces(a, &old), ["8"]);
        assert_eq!(pieces(b, &new), ["12"]);
        let (a, b) = (
            "明日の午後に電話をください。",
            "明日の午前中に電話をください。",
        );
        let (old, new) = changed(a, b);
        assert_eq!(pieces(a, &old), ["後"]);
        assert_eq!(pieces(b, &new), ["前中"]);
    }

    #[test]
    fn a_change_deep_in_a_long_value_is_shown_with_what_comes_before() {
        let head = "word ".repeat(60);
        let text = format!("{head}changed here and then the end");
        let at = head.len();
        let changed: Ranges = std::iter::once(at..at + 7).collect();
        let shown = lines(
            &text,
            &changed,
            20,
            3,
            Style::default(),
            Style::default().add_modifier(ratatui::style::Modifier::BOLD),
        );
        assert!(shown.len() <= 3);
        let all: String = shown
            .iter()
            .flatten()
            .map(|s| s.content.to_string())
            .collect();
        assert!(all.starts_with('…'), "{all}");
        assert!(all.contains("changed"), "{all}");
        for line in &shown {
            let w: usize = line.iter().map(|s| text::width(&s.content)).sum();
            assert!(w <= 20, "{line:?}");
        }
        let marked: Vec<&str> = shown
            .iter()
            .flatten()
            .filter(|s| {
                s.style
                    .add_modifier
                    .contains(ratatui::style::Modifier::BOLD)
            })
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked.concat(), "changed");
    }
}
