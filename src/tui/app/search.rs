//! The text filter's index: for every row of every tab, the texts the filter
//! compares, folded once when a reading arrives, so that a keypress is one
//! substring scan over one buffer instead of formatting, looking up and
//! normalising every row again.
//!
//! Each row's texts are folded as [`rows::normalize_query`] folds a query
//! (ASCII texts only lower-cased, as the plain comparison did; visitor values
//! as they are, the engine has folded them), de-duplicated within the row
//! (a group's copies mostly say the same) and ended by a `\n`. A folded
//! query never holds a `\n`, so a match never spans two texts: a row matches
//! exactly when one of its texts contains the query. Receipt ids, which match
//! whole, are kept apart, sorted.

use memchr::memmem;
use rayon::prelude::*;

use crate::snapshot::Snapshot;
use crate::triage::model::{Receipt, ReceiptId};

use super::rows::normalize_query;
use super::state::Tab;

/// Ends each text of a row (a folded query never holds one).
const SEPARATOR: u8 = b'\n';

/// Rows per piece of work when both cores look through a tab.
const CHUNK_ROWS: usize = 8192;

/// The filter index of one tab; rows in the snapshot's order (the Log tab's
/// too: the caller reverses it).
#[derive(Debug, Default)]
pub struct TabIndex {
    /// Every row's folded texts, one after the other.
    text: Vec<u8>,
    /// Where each row's texts end in `text`.
    ends: Vec<usize>,
    /// (receipt id, row) for queries that are a receipt id, sorted.
    ids: Vec<(ReceiptId, u32)>,
    /// Per row: the bytes its text holds, to pass over most rows that
    /// cannot match without looking at their text.
    sets: Vec<[u64; 4]>,
    /// Per row: what its text was made from (see [`fingerprint`]), so that a
    /// later reading copies the text of a row that did not change.
    prints: Vec<u64>,
}

/// The filter index of every tab, for one reading.
#[derive(Debug, Default)]
pub struct SearchIndex {
    tabs: [TabIndex; 5],
}

impl SearchIndex {
    /// Indexes a reading; rows that `previous` indexed the same way are
    /// copied rather than folded again.
    pub fn build(snap: &Snapshot, previous: Option<&SearchIndex>) -> Self {
        let old = |tab: Tab| previous.map(|p| &p.tabs[tab.index()]);
        let t = &snap.triage;
        let receipt = |id| snap.receipt(id);
        let duplicates = Builder::run(
            old(Tab::Duplicates),
            t.duplicates.iter().map(|g| {
                let ids: Vec<ReceiptId> = g.members.iter().map(|m| m.id).collect();
                (fingerprint(snap, &ids, &g.scope), ids)
            }),
            |g_index, b| {
                let g = &t.duplicates[g_index];
                b.fold(&g.item());
                b.fold(&g.scope);
                for m in &g.members {
                    b.receipt(receipt(m.id));
                }
            },
        );
        let conflicts = Builder::run(
            old(Tab::Conflicts),
            t.conflicts.iter().map(|c| {
                let ids = vec![c.receipt_id];
                (fingerprint(snap, &ids, &c.request_key), ids)
            }),
            |i, b| {
                let c = &t.conflicts[i];
                b.fold(&c.item());
                b.fold(&c.scope);
                b.fold(&c.request_key);
                b.receipt(receipt(c.receipt_id));
            },
        );
        let stuck = Builder::run(
            None,
            t.stuck.iter().map(|s| (0, vec![s.receipt_id])),
            |i, b| {
                let s = &t.stuck[i];
                b.fold(&s.item());
                b.fold(&s.scope);
                if let Some(k) = &s.request_key {
                    b.fold(k);
                }
                b.receipt(receipt(s.receipt_id));
            },
        );
        let damaged = Builder::run(
            None,
            t.damaged.iter().map(|d| (0, vec![d.receipt_id])),
            |i, b| {
                let d = &t.damaged[i];
                b.fold(&format!("damaged:{}", d.receipt_id));
                b.fold(d.reason.as_str());
                b.fold(&d.detail);
            },
        );
        let log = Builder::run(
            None,
            snap.log.iter().map(|l| (0, l.receipt_ids.clone())),
            |i, b| {
                let l = &snap.log[i];
                b.fold(&l.item);
                b.fold(&l.decision);
                b.fold(&l.operator);
                if let Some(n) = &l.note {
                    b.fold(n);
                }
            },
        );
        SearchIndex {
            tabs: [duplicates, conflicts, stuck, damaged, log],
        }
    }

    pub fn tab(&self, tab: Tab) -> &TabIndex {
        &self.tabs[tab.index()]
    }

    /// Bytes held, for a look at memory.
    pub fn bytes(&self) -> usize {
        self.tabs
            .iter()
            .map(|t| {
                t.text.capacity()
                    + t.ends.capacity() * 8
                    + t.ids.capacity() * 16
                    + t.sets.capacity() * 32
                    + t.prints.capacity() * 8
            })
            .sum()
    }
}

impl TabIndex {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn start(&self, row: usize) -> usize {
        if row == 0 { 0 } else { self.ends[row - 1] }
    }

    /// The rows (ascending) that match a folded, non-empty query: those with
    /// a text containing it, and those holding the receipt it names. With
    /// `among`, only those rows (ascending) are looked at for text — the rows
    /// of a query this one extends — and ids are looked up in full.
    pub fn matching(&self, query: &str, among: Option<&[usize]>) -> Vec<usize> {
        let needle = query.as_bytes();
        let wanted = byte_set(needle);
        let finder = memmem::Finder::new(needle);
        // A row without every byte of the query cannot hold it; with one
        // byte, one that has it does.
        let holds = |r: usize| {
            let set = &self.sets[r];
            let has_all = (0..4).all(|w| set[w] & wanted[w] == wanted[w]);
            has_all
                && (needle.len() == 1
                    || finder
                        .find(&self.text[self.start(r)..self.ends[r]])
                        .is_some())
        };
        // Both cores share a long list: the screen waits for the answer.
        let mut out: Vec<usize> = match among {
            Some(rows) => rows
                .par_chunks(CHUNK_ROWS)
                .flat_map_iter(|rows| rows.iter().copied().filter(|&r| r < self.len() && holds(r)))
                .collect(),
            None => (0..self.len())
                .into_par_iter()
                .with_min_len(CHUNK_ROWS)
                .filter(|&r| holds(r))
                .collect(),
        };
        if let Some(id) = as_receipt_id(query) {
            let from = self.ids.partition_point(|e| e.0 < id);
            let named: Vec<usize> = self.ids[from..]
                .iter()
                .take_while(|e| e.0 == id)
                .map(|e| e.1 as usize)
                .collect();
            if !named.is_empty() {
                out.extend(named);
                out.sort_unstable();
                out.dedup();
            }
        }
        out
    }
}

/// The bytes a text holds, as a 256-bit set.
fn byte_set(text: &[u8]) -> [u64; 4] {
    let mut set = [0u64; 4];
    for &b in text {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    set
}

/// The id a query names, when it is one as ids are written (digits, no
/// leading zero): the old comparison was `id.to_string() == query`.
fn as_receipt_id(query: &str) -> Option<ReceiptId> {
    let digits = !query.is_empty() && query.bytes().all(|b| b.is_ascii_digit());
    if !digits || (query.len() > 1 && query.starts_with('0')) {
        return None;
    }
    query.parse().ok()
}

/// What a row's text is made of: its receipts' ids, which of them the
/// reading holds (the first reading of a database comes before its
/// receipts), and one text of its own. A receipt's texts (scope, key,
/// fields) are written once and never change in place.
fn fingerprint(snap: &Snapshot, ids: &[ReceiptId], text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ids.hash(&mut h);
    text.hash(&mut h);
    for &id in ids {
        snap.receipt(id).is_some().hash(&mut h);
    }
    // 0 means "never copy".
    h.finish() | 1
}

/// Collects one tab's rows.
struct Builder<'a> {
    index: TabIndex,
    old: Option<&'a TabIndex>,
    /// The texts of the row being built, before de-duplication.
    row: Vec<String>,
}

impl<'a> Builder<'a> {
    /// Builds a tab from its rows' (fingerprint, receipt ids), calling
    /// `texts` for a row whose text cannot be copied from `old`.
    fn run(
        old: Option<&'a TabIndex>,
        rows: impl Iterator<Item = (u64, Vec<ReceiptId>)>,
        mut texts: impl FnMut(usize, &mut Builder<'a>),
    ) -> TabIndex {
        let mut b = Builder {
            index: TabIndex::default(),
            old,
            row: Vec::new(),
        };
        for (i, (print, ids)) in rows.enumerate() {
            if !b.copy(print, &ids) {
                texts(i, &mut b);
                b.row.sort_unstable();
                b.row.dedup();
                for t in b.row.drain(..) {
                    b.index.text.extend_from_slice(t.as_bytes());
                    b.index.text.push(SEPARATOR);
                }
            }
            let start = b.index.ends.last().copied().unwrap_or(0);
            b.index.sets.push(byte_set(&b.index.text[start..]));
            b.index.ends.push(b.index.text.len());
            b.index.prints.push(print);
            b.index.ids.extend(ids.iter().map(|&id| (id, i as u32)));
        }
        b.index.ids.sort_unstable();
        b.index.text.shrink_to_fit();
        b.index
    }

    /// Copies the text of the old row with this fingerprint, found by its
    /// first receipt; false when there is none.
    fn copy(&mut self, print: u64, ids: &[ReceiptId]) -> bool {
        let (Some(old), Some(&first)) = (self.old, ids.first()) else {
            return false;
        };
        if print == 0 {
            return false;
        }
        let from = old.ids.partition_point(|e| e.0 < first);
        let found = old.ids[from..]
            .iter()
            .take_while(|e| e.0 == first)
            .map(|e| e.1 as usize)
            .find(|&r| old.prints[r] == print);
        match found {
            Some(r) => {
                let text = &old.text[old.start(r)..old.ends[r]];
                self.index.text.extend_from_slice(text);
                true
            }
            None => false,
        }
    }

    /// A text compared as the filter compares it: folded like a query,
    /// except that an ASCII text is only lower-cased.
    fn fold(&mut self, text: &str) {
        let folded = if text.is_ascii() {
            text.to_ascii_lowercase()
        } else {
            normalize_query(text)
        };
        self.row.push(folded);
    }

    /// A receipt's request key (folded) and visitor values (already folded).
    fn receipt(&mut self, r: Option<&Receipt>) {
        let Some(r) = r else { return };
        if let Some(k) = &r.request_key {
            self.fold(k);
        }
        for (_, value) in &r.visitor.0 {
            self.row.push(value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::snapshot::LogLine;
    use crate::triage::model::{DamageReason, Damaged};
    use crate::tui::app::rows::{compute, compute_by_scan};
    use crate::tui::app::state::ClassFilter;

    fn log_line(id: i64, item: String, note: Option<String>, ids: Vec<i64>) -> LogLine {
        LogLine {
            id,
            item,
            kind: "duplicate".into(),
            decision: "duplicate".into(),
            operator: "Aiko".into(),
            decided_at_ms: None,
            receipt_ids: ids,
            note,
            reopens: None,
        }
    }

    /// Texts that fold in every way the filter folds: case, width,
    /// compatibility forms, white space, ASCII and not.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop::sample::select(vec![
                "a", "B", "smith", "SMITH", "Ａ", "ｂ", "ß", "SS", "İ", "ﬁ", " ", "  ", "\t", "\n",
                "問い", "ｶ", "12", "0", "dup:", "é", "e\u{301}", "-", "\u{202e}",
            ]),
            0..6,
        )
        .prop_map(|parts| parts.concat())
    }

    fn snapshot(rows: Vec<(String, Option<String>, String)>) -> Snapshot {
        let mut snap = Snapshot::default();
        for (i, (item, note, detail)) in rows.into_iter().enumerate() {
            let id = i as i64 + 1;
            snap.log
                .push(log_line(id, item, note, vec![id * 10, id * 10 + 1]));
            snap.triage.damaged.push(Damaged {
                receipt_id: id * 10,
                reason: DamageReason::Payload,
                detail,
            });
        }
        snap
    }

    proptest! {
        /// The index gives the rows that comparing every row gives, for a
        /// query typed from scratch and for one that extends the last.
        #[test]
        fn the_index_finds_what_the_scan_finds(
            rows in proptest::collection::vec((text(), proptest::option::of(text()), text()), 0..12),
            typed in text(),
            more in text(),
        ) {
            let snap = snapshot(rows);
            let search = SearchIndex::build(&snap, None);
            for tab in [Tab::Damaged, Tab::Log] {
                let before = compute_by_scan(&snap, tab, ClassFilter::All, &typed);
                let q = normalize_query(&typed);
                prop_assert_eq!(&compute(&snap, &search, tab, ClassFilter::All, &q, None), &before);
                let longer = format!("{typed}{more}");
                let expected = compute_by_scan(&snap, tab, ClassFilter::All, &longer);
                let q2 = normalize_query(&longer);
                let among = q2.contains(q.as_str()).then_some(before.as_slice());
                prop_assert_eq!(&compute(&snap, &search, tab, ClassFilter::All, &q2, among), &expected);
            }
        }
    }

    #[test]
    fn ids_match_whole_and_as_written() {
        let snap = snapshot(vec![("dup:7".into(), None, "x".into()); 3]);
        let search = SearchIndex::build(&snap, None);
        let log = |q: &str| compute(&snap, &search, Tab::Log, ClassFilter::All, q, None);
        assert_eq!(log("21"), vec![1]); // log 2 names receipts 20 and 21
        assert_eq!(log("021"), Vec::<usize>::new());
        assert_eq!(log("2"), Vec::<usize>::new());
        assert_eq!(log("7"), vec![2, 1, 0]); // every item is dup:7
    }

    #[test]
    fn a_huge_text_is_folded_once_and_scanned_fast() {
        let huge = "Ｗord ".repeat(200_000); // 1.2 MB, not ASCII
        let snap = snapshot(vec![(huge, None, "x".into())]);
        let search = SearchIndex::build(&snap, None);
        let started = std::time::Instant::now();
        for q in ["w", "wo", "wor", "word", "wordz"] {
            compute(&snap, &search, Tab::Log, ClassFilter::All, q, None);
        }
        assert!(started.elapsed() < std::time::Duration::from_millis(200));
        assert_eq!(
            compute(
                &snap,
                &search,
                Tab::Log,
                ClassFilter::All,
                "word word",
                None
            ),
            vec![0]
        );
    }

    #[test]
    fn unchanged_rows_are_copied_from_the_last_reading() {
        let a = snapshot(vec![("dup:1".into(), Some("Ｎote".into()), "d".into())]);
        let first = SearchIndex::build(&a, None);
        let again = SearchIndex::build(&a, Some(&first));
        assert_eq!(
            again.tabs[Tab::Log.index()].text,
            first.tabs[Tab::Log.index()].text
        );
    }
}
