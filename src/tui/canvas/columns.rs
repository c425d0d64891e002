//! A list's columns fitted to its width: each column wants some cells and
//! needs at least a few; the most needed are placed first, the others only
//! while there is room, so that on a narrow screen a list drops its least
//! useful columns instead of cutting every one.

use ratatui::style::Style;
use ratatui::text::Span;

use super::text;

/// One column: its header, the cells it wants and needs (its blank
/// separator included), and how much it is needed (higher stays longer).
/// A column that wants nothing takes what is left, if that is what it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub head: &'static str,
    pub want: usize,
    pub min: usize,
    pub keep: u8,
}

impl Column {
    /// The cells it wants: at least its header's, counted in terminal cells
    /// (a Japanese header is twice as wide as its characters), and a blank.
    fn wants(&self) -> usize {
        if self.want == 0 {
            0
        } else {
            self.want.max(text::width(self.head) + 1)
        }
    }
}

pub const fn column(head: &'static str, want: usize, min: usize, keep: u8) -> Column {
    Column {
        head,
        want,
        min,
        keep,
    }
}

/// The cells all the columns want.
pub fn wanted(columns: &[Column]) -> usize {
    columns.iter().map(Column::wants).sum()
}

/// The width of each column in `width` cells (0: left out). Columns are
/// placed by how much they are needed, each at what it wants, else at what
/// is left when that is at least what it needs; what is left at the end
/// goes to columns short of what they want, then to the last one shown.
pub fn fit(columns: &[Column], width: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..columns.len()).collect();
    // Stable: among equals, the leftmost first.
    order.sort_by_key(|&i| std::cmp::Reverse(columns[i].keep));
    let mut widths = vec![0; columns.len()];
    let mut left = width;
    for &i in &order {
        let c = &columns[i];
        let w = if c.want == 0 {
            left
        } else {
            c.wants().min(left)
        };
        if w >= c.min.max(1) {
            widths[i] = w;
            left -= w;
        }
    }
    for &i in &order {
        let want = columns[i].wants();
        if widths[i] > 0 && widths[i] < want {
            let more = (want - widths[i]).min(left);
            widths[i] += more;
            left -= more;
        }
    }
    if let Some(last) = widths.iter().rposition(|&w| w > 0) {
        widths[last] += left;
    }
    widths
}

/// A row's cells as spans, each cut or padded to its column's width (its
/// last cell blank, but for the last column); cells of columns left out
/// are skipped. The texts must already be safe to show.
pub fn spans(cells: Vec<(String, Style)>, widths: &[usize]) -> Vec<Span<'static>> {
    let last = widths.iter().rposition(|&w| w > 0);
    cells
        .into_iter()
        .zip(widths)
        .enumerate()
        .filter(|(_, (_, w))| **w > 0)
        .map(|(i, ((cell, style), &w))| {
            let cell = if Some(i) == last {
                text::pad(&cell, w)
            } else {
                text::pad(&cell, w - 1) + " "
            };
            Span::styled(cell, style)
        })
        .collect()
}

/// The header row's cells.
pub fn heads(columns: &[Column], style: Style) -> Vec<(String, Style)> {
    columns
        .iter()
        .map(|c| (c.head.to_string(), style))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_that_wants_nothing_takes_what_is_left() {
        let columns = [column("a", 10, 10, 9), column("rest", 0, 12, 0)];
        assert_eq!(fit(&columns, 30), [10, 20]);
        assert_eq!(fit(&columns, 20), [20, 0]);
        assert_eq!(wanted(&columns), 10);
    }

    const COLUMNS: [Column; 4] = [
        column("status", 10, 10, 9),
        column("when", 12, 12, 2),
        column("scope", 20, 10, 8),
        column("visitor", 24, 12, 7),
    ];

    #[test]
    fn the_most_needed_columns_are_placed_first() {
        assert_eq!(fit(&COLUMNS, 66), [10, 12, 20, 24]);
        assert_eq!(fit(&COLUMNS, 80), [10, 12, 20, 38]);
        // No room for the time: left out, the rest as wanted.
        assert_eq!(fit(&COLUMNS, 60), [10, 0, 20, 30]);
        // The visitor gets what is left, down to what it needs.
        assert_eq!(fit(&COLUMNS, 43), [10, 0, 20, 13]);
        assert_eq!(fit(&COLUMNS, 35), [10, 0, 25, 0]);
        assert_eq!(fit(&COLUMNS, 0), [0, 0, 0, 0]);
    }

    #[test]
    fn a_header_wider_than_its_column_widens_it_by_its_cells() {
        // 受付日時 takes 8 cells: its column wants 9, not the 5 given.
        let columns = [column("状態", 5, 5, 9), column("受付日時", 5, 5, 8)];
        assert_eq!(wanted(&columns), 5 + 9);
        assert_eq!(fit(&columns, 14), [5, 9]);
        let heads = spans(heads(&columns, Style::default()), &fit(&columns, 14));
        let shown: Vec<&str> = heads.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(shown, ["状態 ", "受付日時 "]);
    }

    #[test]
    fn cells_take_their_columns_width_whatever_their_text() {
        let widths = fit(&COLUMNS, 60);
        let cells = vec![
            ("pending".to_string(), Style::default()),
            ("10:15".to_string(), Style::default()),
            ("site-jp/お問い合わせフォーム".to_string(), Style::default()),
            ("山田太郎".to_string(), Style::default()),
        ];
        let spans = spans(cells, &widths);
        let shown: Vec<usize> = spans.iter().map(|s| text::width(&s.content)).collect();
        assert_eq!(shown, [10, 20, 30]);
        assert_eq!(spans[1].content, "site-jp/お問い合わ… ");
    }
}
