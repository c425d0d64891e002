//! How the lists arrange the rows the filters found: newest or oldest
//! first (`T`), every item or the pending ones only (`P`). Both apply to
//! every list at once, and the list's title says which is on.

use super::tab::Tab;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListView {
    /// Newest first (the default): the morning's work is at the top.
    pub newest_first: bool,
    /// Only the items no decision resolves (the tabs with decisions).
    pub pending_only: bool,
}

impl Default for ListView {
    fn default() -> Self {
        ListView {
            newest_first: true,
            pending_only: false,
        }
    }
}

/// The tabs whose order `T` turns: the lists of the reading.
pub const ORDERED: &[Tab] = Tab::ORDERED;

/// The tabs `P` narrows: those whose items take decisions.
pub const DECIDING: &[Tab] = Tab::DECIDING;

impl ListView {
    /// The rows to show of those a tab's filters `found` (as the filter
    /// gives them: in reading order, oldest first, the log's newest first),
    /// keeping under "pending only" the rows `pending` says are.
    pub fn arrange(
        &self,
        tab: Tab,
        found: &[usize],
        pending: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        super::work::items(found.len());
        let narrowed = self.pending_only && DECIDING.contains(&tab);
        let mut rows: Vec<usize> = if narrowed {
            found.iter().copied().filter(|&r| pending(r)).collect()
        } else {
            found.to_vec()
        };
        let found_newest_first = tab == Tab::Log;
        if ORDERED.contains(&tab) && self.newest_first != found_newest_first {
            rows.reverse();
        }
        rows
    }
}

/// Where `row` is in `rows`, which run one way (up or down) as the filter
/// and [`ListView::arrange`] leave them.
pub fn position(rows: &[usize], row: usize) -> Option<usize> {
    let descending = rows.len() > 1 && rows[0] > rows[rows.len() - 1];
    if descending {
        rows.binary_search_by(|r| row.cmp(r)).ok()
    } else {
        rows.binary_search(&row).ok()
    }
}

/// The row of `now` nearest to where `before[at]` was: itself if kept, else
/// the next one kept after it, else the one before it.
pub fn nearest(before: &[usize], at: usize, now: &[usize]) -> usize {
    let kept = |i: usize| position(now, before[i]);
    if at >= before.len() {
        return 0;
    }
    (at..before.len())
        .chain((0..at).rev())
        .find_map(kept)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_turns_the_reading_order_and_pending_only_narrows() {
        let view = ListView::default();
        let found = [0, 1, 2, 3];
        assert_eq!(
            view.arrange(Tab::Duplicates, &found, |_| true),
            [3, 2, 1, 0]
        );
        // The log comes newest first already.
        assert_eq!(view.arrange(Tab::Log, &[3, 2, 1], |_| true), [3, 2, 1]);
        let oldest = ListView {
            newest_first: false,
            pending_only: true,
        };
        assert_eq!(oldest.arrange(Tab::Log, &[3, 2, 1], |_| false), [1, 2, 3]);
        assert_eq!(oldest.arrange(Tab::Stuck, &found, |r| r % 2 == 0), [0, 2]);
        // Lists without decisions are never narrowed.
        assert_eq!(oldest.arrange(Tab::Damaged, &found, |_| false), found);
    }

    #[test]
    fn positions_in_either_order() {
        assert_eq!(position(&[9, 5, 2], 5), Some(1));
        assert_eq!(position(&[2, 5, 9], 9), Some(2));
        assert_eq!(position(&[2, 5, 9], 4), None);
        assert_eq!(nearest(&[9, 7, 5, 2], 1, &[9, 5, 2]), 1);
        assert_eq!(nearest(&[9, 7, 5, 2], 3, &[9, 7]), 1);
        assert_eq!(nearest(&[9, 7], 0, &[]), 0);
    }
}
