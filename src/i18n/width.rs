//! Columns of text by display width, as a terminal shows them: a Japanese
//! character takes two columns, so `format!("{:<8}")` (which counts
//! characters) would push the rest of a row out of line.

use unicode_width::UnicodeWidthStr;

/// The columns `text` takes on a terminal.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text`, then spaces up to `columns` (left-aligned); longer text is kept whole.
pub fn pad_right(text: &str, columns: usize) -> String {
    let fill = columns.saturating_sub(width(text));
    let mut out = String::with_capacity(text.len() + fill);
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', fill));
    out
}

/// Spaces up to `columns`, then `text` (right-aligned); longer text is kept whole.
pub fn pad_left(text: &str, columns: usize) -> String {
    let fill = columns.saturating_sub(width(text));
    let mut out = String::with_capacity(text.len() + fill);
    out.extend(std::iter::repeat_n(' ', fill));
    out.push_str(text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_width_characters_take_two_columns() {
        assert_eq!(pad_right("ab", 4), format!("{:<4}", "ab"));
        assert_eq!(pad_left("7", 3), format!("{:>3}", "7"));
        assert_eq!(pad_right("重複", 6), "重複  ");
        assert_eq!(pad_left("件", 4), "  件");
        assert_eq!(width(&pad_right("処理中のまま", 16)), 16);
        assert_eq!(pad_right("too long", 3), "too long");
    }
}
