//! Which rows each tab shows (class and text filters), and the counts the header shows.

use unicode_normalization::UnicodeNormalization;

use crate::model::ReceiptId;
use crate::snapshot::Snapshot;
use crate::triage::model::{Attempt, AttemptSource, Conflict, GapClass, Receipt};

use super::msg::PayloadRef;
use super::search::{SearchIndex, TabIndex};
use super::state::{ClassFilter, Tab};
use crate::snapshot::shown::unshared_middles;

/// The receipts a conflict decision covers: the original, and any legacy
/// duplicate receipts that hold an attempt.
pub fn conflict_receipt_ids(c: &Conflict) -> Vec<ReceiptId> {
    std::iter::once(c.receipt_id)
        .chain(
            c.attempts
                .iter()
                .filter(|a| a.source == AttemptSource::Receipts)
                .map(|a| a.id),
        )
        .collect()
}

pub fn attempt_ref(a: &Attempt) -> PayloadRef {
    match a.source {
        AttemptSource::KeyConflicts => PayloadRef::KeyConflict(a.id),
        AttemptSource::Receipts => PayloadRef::Receipt(a.id),
    }
}

pub fn row_id(snap: &Snapshot, tab: Tab, index: usize) -> Option<String> {
    let t = &snap.triage;
    Some(match tab {
        Tab::Duplicates => t.duplicates.get(index)?.item(),
        Tab::Conflicts => t.conflicts.get(index)?.item(),
        Tab::Stuck => t.stuck.get(index)?.item(),
        Tab::Damaged => format!("damaged:{}", t.damaged.get(index)?.receipt_id),
        Tab::Log => format!("log:{}", snap.log.get(index)?.id),
    })
}

/// The number in a row's id ([`row_id`] without the allocation): the
/// group's first receipt, the receipt, or the log entry. Unique within a tab.
pub fn row_key(snap: &Snapshot, tab: Tab, index: usize) -> Option<i64> {
    let t = &snap.triage;
    Some(match tab {
        Tab::Duplicates => t.duplicates.get(index)?.members[0].id,
        Tab::Conflicts => t.conflicts.get(index)?.receipt_id,
        Tab::Stuck => t.stuck.get(index)?.receipt_id,
        Tab::Damaged => t.damaged.get(index)?.receipt_id,
        Tab::Log => snap.log.get(index)?.id,
    })
}

/// The filter text as it is compared: NFKC, case-folded, white space folded,
/// the way the triage engine normalises visitor field values.
pub fn normalize_query(text: &str) -> String {
    #[cfg(test)]
    FOLDED_BYTES.with(|n| n.set(n.get() + text.len()));
    let folded = caseless::default_case_fold_str(&text.nfkc().collect::<String>());
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
thread_local! {
    /// The bytes [`normalize_query`] has folded on this thread: tests count
    /// what a step folds, where a clock would only say how long it took.
    pub static FOLDED_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// True when `hay`, compared case-insensitively, contains the normalised query.
fn contains(hay: &str, query: &str) -> bool {
    if hay.is_ascii() && query.is_ascii() {
        let (h, q) = (hay.as_bytes(), query.as_bytes());
        return q.len() <= h.len() && h.windows(q.len()).any(|w| w.eq_ignore_ascii_case(q));
    }
    normalize_query(hay).contains(query)
}

fn receipt_matches(r: &Receipt, query: &str) -> bool {
    r.request_key.as_deref().is_some_and(|k| contains(k, query))
        || r.visitor.0.iter().any(|(_, value)| value.contains(query))
}

fn id_matches(id: ReceiptId, query: &str) -> bool {
    query.bytes().all(|b| b.is_ascii_digit()) && id.to_string() == query
}

/// What the rows shown before tell of the rows a query gives.
#[derive(Clone, Copy, Debug)]
pub enum Known<'a> {
    /// Nothing: every row is looked at.
    Nothing,
    /// The rows this tab showed for a query that this one extends (same
    /// class filter): the rows matching "smith" are among those matching
    /// "smit".
    Among(&'a [usize]),
    /// The rows this tab showed for this same query and class filter with
    /// the index before this one (a reading ago): a chunk of rows the two
    /// indexes share keeps them.
    Before(&'a TabIndex, &'a [usize]),
}

/// The rows a tab shows, in its order: indices into the snapshot's lists
/// (for the log, newest first), found with the reading's filter index.
/// `query` is folded ([`normalize_query`]).
pub fn compute(
    snap: &Snapshot,
    search: &SearchIndex,
    tab: Tab,
    class: ClassFilter,
    query: &str,
    known: Known<'_>,
) -> Vec<usize> {
    let index = search.tab(tab);
    let mut rows: Vec<usize> = match known {
        _ if query.is_empty() => (0..index.len()).collect(),
        Known::Nothing => index.matching(query, None),
        Known::Among(rows) => index.matching(query, Some(&ascending(rows))),
        Known::Before(before, rows) => index.matching_after(query, before, &ascending(rows)),
    };
    if tab == Tab::Duplicates && class != ClassFilter::All {
        let groups = &snap.triage.duplicates;
        rows.retain(|&i| groups.get(i).is_some_and(|g| class.admits(g.class)));
    }
    if tab == Tab::Log {
        rows.reverse();
    }
    rows
}

/// Rows as an index takes them: ascending (the log's are shown newest first).
fn ascending(rows: &[usize]) -> std::borrow::Cow<'_, [usize]> {
    if rows.is_sorted() {
        rows.into()
    } else {
        let mut rows = rows.to_vec();
        rows.sort_unstable();
        rows.into()
    }
}

/// The rows a tab shows, by comparing every row with the filter: the
/// definition that [`compute`] and its index must agree with (the tests
/// compare them).
pub fn compute_by_scan(snap: &Snapshot, tab: Tab, class: ClassFilter, filter: &str) -> Vec<usize> {
    let query = normalize_query(filter);
    let q = query.as_str();
    let any = q.is_empty();
    let t = &snap.triage;
    let receipt = |id: ReceiptId| snap.receipt(id);
    match tab {
        Tab::Duplicates => t
            .duplicates
            .iter()
            .enumerate()
            .filter(|(_, g)| class.admits(g.class))
            .filter(|(_, g)| {
                any || contains(&g.item(), q)
                    || contains(&g.scope, q)
                    || g.members.iter().any(|m| {
                        id_matches(m.id, q) || receipt(m.id).is_some_and(|r| receipt_matches(&r, q))
                    })
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Conflicts => t
            .conflicts
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                any || contains(&c.item(), q)
                    || contains(&c.scope, q)
                    || contains(&c.request_key, q)
                    || id_matches(c.receipt_id, q)
                    || receipt(c.receipt_id).is_some_and(|r| receipt_matches(&r, q))
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Stuck => t
            .stuck
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                any || contains(&s.item(), q)
                    || contains(&s.scope, q)
                    || s.request_key.as_deref().is_some_and(|k| contains(k, q))
                    || id_matches(s.receipt_id, q)
                    || receipt(s.receipt_id).is_some_and(|r| receipt_matches(&r, q))
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Damaged => t
            .damaged
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                any || id_matches(d.receipt_id, q)
                    || contains(&format!("damaged:{}", d.receipt_id), q)
                    || contains(d.reason.as_str(), q)
                    || contains(&d.detail, q)
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Log => (0..snap.log.len())
            .rev()
            .filter(|&i| {
                let l = &snap.log[i];
                any || contains(&l.item, q)
                    || contains(&l.decision, q)
                    || contains(&l.operator, q)
                    || l.note.as_deref().is_some_and(|n| contains(n, q))
                    || l.receipt_ids.iter().any(|&id| id_matches(id, q))
            })
            .collect(),
    }
}

/// Totals for the header and the tab bar, over the whole reading (filters aside).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub receipts: usize,
    pub groups: usize,
    pub groups_pending: usize,
    pub groups_new_copy: usize,
    /// Per class: simultaneous, seconds, minutes.
    pub by_class: [usize; 3],
    pub exact: usize,
    pub conflicts: usize,
    pub conflicts_pending: usize,
    pub stuck: usize,
    pub stuck_pending: usize,
    pub damaged: usize,
    pub log: usize,
    pub bots: usize,
}

impl Counts {
    pub fn of(snap: &Snapshot) -> Self {
        Self::after(snap, None)
    }

    /// [`Counts::of`], given the counts of an earlier reading: only the
    /// groups that are not the earlier reading's are looked into.
    pub fn after(snap: &Snapshot, previous: Option<(&Snapshot, &Counts)>) -> Self {
        let t = &snap.triage;
        let class_index = |c: GapClass| GapClass::ALL.iter().position(|x| *x == c).unwrap_or(0);
        let mut counts = Counts {
            receipts: snap.receipt_count + t.damaged.len(),
            groups: t.duplicates.len(),
            conflicts: t.conflicts.len(),
            stuck: t.stuck.len(),
            damaged: t.damaged.len(),
            log: snap.log.len(),
            bots: t.suspected_bots.len(),
            ..Counts::default()
        };
        // Totals are sums over groups: those gone are taken off the earlier
        // totals and those new added (a reading has many groups, few new).
        let (gone, new) = match previous {
            Some((before, c)) => {
                (counts.by_class, counts.exact) = (c.by_class, c.exact);
                unshared_middles(&before.triage.duplicates, &t.duplicates)
            }
            None => (&[][..], &t.duplicates[..]),
        };
        for g in gone {
            counts.by_class[class_index(g.class)] -= 1;
            counts.exact -= usize::from(g.is_exact());
        }
        for g in new {
            counts.by_class[class_index(g.class)] += 1;
            counts.exact += usize::from(g.is_exact());
        }
        // A reading has many items and few reviews: the reviews are counted.
        // `reviews` holds only items of this reading, and no two groups share
        // an anchor (nor two conflicts or stuck receipts a receipt), so each
        // names one item.
        counts.groups_pending = t.duplicates.len();
        counts.conflicts_pending = t.conflicts.len();
        counts.stuck_pending = t.stuck.len();
        for (name, r) in &snap.reviews {
            let resolved = usize::from(r.resolved);
            if name.starts_with("dup:") {
                counts.groups_new_copy += usize::from(r.new_copy_since_decision);
                counts.groups_pending -= resolved;
            } else if name.starts_with("conflict:") {
                counts.conflicts_pending -= resolved;
            } else if name.starts_with("stuck:") {
                counts.stuck_pending -= resolved;
            }
        }
        counts
    }

    pub fn pending(&self) -> usize {
        self.groups_pending + self.conflicts_pending + self.stuck_pending
    }

    pub fn items(&self) -> usize {
        self.groups + self.conflicts + self.stuck
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_fold_case_width_and_space() {
        assert_eq!(normalize_query("  Taro   YAMADA "), "taro yamada");
        assert_eq!(normalize_query("ＡＢＣ"), "abc");
        assert!(contains("Form-Contact", "contact"));
        assert!(contains("お問い合わせ", "問い"));
        assert!(!contains("abc", "abcd"));
    }
}
