//! The text filter's index: for every row of every tab, the texts the filter
//! compares, folded once when a reading arrives, so that a keypress is one
//! substring scan over one buffer instead of formatting, looking up and
//! normalising every row again.
//!
//! Each row's texts are folded as [`normalize_query`] folds a query
//! (ASCII texts only lower-cased, as the plain comparison did; visitor values
//! as they are, the engine has folded them), de-duplicated within the row
//! (a group's copies mostly say the same) and ended by a `\n`. A folded
//! query never holds a `\n`, so a match never spans two texts: a row matches
//! exactly when one of its texts contains the query. Receipt ids, which match
//! whole, are kept apart, sorted. Each row also has a [`Signature`] of the
//! bytes and pairs of bytes it holds: most rows that cannot match are passed
//! over without reading their text, and the first two letters typed are
//! answered from signatures alone.
//!
//! This file holds the index, its search and the rows a tab shows with it
//! ([`compute`]); [`build`] makes it from a reading (keeping what the last
//! reading's index still has right), [`signature`] works out the rows'
//! signatures, [`fold`] says how texts are compared and [`scan`] what the
//! filter gives by definition.

use std::any::Any;
use std::sync::Arc;

use memchr::memmem;
use rayon::prelude::*;

use crate::find::loose::Loose;
use crate::model::ReceiptId;
use crate::reading::Snapshot;
use crate::reading::shown::ascending_lookup;

use super::tab::{ClassFilter, Tab};
use super::work;
use names::NameMatch;
use signature::Signature;

mod build;
mod fold;
mod names;
mod scan;
mod signature;

pub use fold::normalize_query;
pub use scan::compute_by_scan;

/// Rows per piece of work when both cores look through a list of rows.
const CHUNK_ROWS: usize = 8192;

/// When at least one row in this many of a chunk is asked, its whole text
/// is searched in one pass rather than row by row.
#[cfg(not(test))]
const SCAN_WHOLE: usize = 2;
#[cfg(test)]
const SCAN_WHOLE: usize = 1;

/// Rows per [`Chunk`]: a chunk whose rows are those of the index before is
/// shared with it, so a reading that changed a few rows makes a few chunks.
#[cfg(not(test))]
const CHUNK: usize = 4096;
#[cfg(test)]
const CHUNK: usize = 4;

/// The filter index of one tab; rows in the snapshot's order (the Log tab's
/// too: the caller reverses it), in chunks of [`CHUNK`] rows (the last may
/// hold fewer).
#[derive(Debug, Default)]
pub struct TabIndex {
    chunks: Vec<Arc<Chunk>>,
    /// By chunk: the items its rows were made from (none for tabs made
    /// again each time).
    owners: Vec<Arc<Owners>>,
    len: usize,
    /// The rows' item names are this prefix and each row's first receipt
    /// id (`dup:12`), matched apart from the texts: every row of a tab
    /// holds its prefix, so in the texts a query like "dup:" would read
    /// every row's whole text to find what the prefix alone answers.
    name: Option<&'static str>,
}

/// Consecutive rows of a tab.
#[derive(Debug, Default, PartialEq)]
struct Chunk {
    /// Every row's folded texts, one after the other.
    text: Vec<u8>,
    /// Where each row's texts end in `text`.
    ends: Vec<usize>,
    /// Every row's runs of letters and digits that leaving out a space or
    /// a dash joined (`渡辺美咲`, `07043500720`: see
    /// [`crate::find::loose::joined`]), each ended by a `\n`: a name or a
    /// phone number is looked for in these too. Kept apart, so that a
    /// query that is neither never finds them; they are few and short
    /// (names and numbers, not the messages around them).
    loose: Vec<u8>,
    /// Where each row's runs end in `loose`; empty when no row has any.
    loose_ends: Vec<u32>,
    /// (receipt id, row in the chunk) for queries that are a receipt id, sorted.
    ids: Vec<(ReceiptId, u32)>,
    /// Per row: the bytes and pairs of bytes its text holds ([`Signature`]),
    /// to pass over most rows that cannot match without reading their text;
    /// apart, so that a query of one byte reads only the bytes. Empty when
    /// the rows' texts are short (see `build::SIGNED_FROM`).
    bytes: Vec<[u64; 4]>,
    pairs: Vec<[u64; 16]>,
    /// Per row: its receipts and what else its text was made from (see
    /// [`build::fingerprint`]; none for rows never copied), so that a later
    /// reading copies the text of a row that did not change.
    prints: Vec<Option<u64>>,
    row_ids: Vec<ReceiptId>,
    /// Where each row's receipts end in `row_ids`.
    row_ids_end: Vec<u32>,
}

/// The items a chunk's rows were made from, for tabs whose items a later
/// reading shares (kept, so that no other item takes their address).
#[derive(Default)]
struct Owners {
    items: Vec<Arc<dyn Any + Send + Sync>>,
    /// True when the reading held every receipt of these rows: a later
    /// reading with the same items that holds them too makes the same rows,
    /// and may keep the chunk without working out what they are made of.
    all_held: bool,
}

impl Owners {
    /// True when these are, in order, the items `of` gives for `rows`.
    fn are<'s, T: Send + Sync + 'static>(
        &self,
        rows: std::ops::Range<usize>,
        of: &impl Fn(usize) -> Option<&'s Arc<T>>,
    ) -> bool {
        self.items.len() == rows.len()
            && rows.zip(&self.items).all(|(i, kept)| {
                of(i).is_some_and(|item| std::ptr::addr_eq(Arc::as_ptr(item), Arc::as_ptr(kept)))
            })
    }
}

impl std::fmt::Debug for Owners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Owners({}, {})", self.items.len(), self.all_held)
    }
}

/// The filter index of every tab, for one reading.
#[derive(Debug, Default)]
pub struct SearchIndex {
    tabs: [TabIndex; Tab::COUNT],
}

impl SearchIndex {
    pub fn tab(&self, tab: Tab) -> &TabIndex {
        &self.tabs[tab.index()]
    }

    /// Bytes held (chunks shared with another reading counted whole), for
    /// a look at memory.
    pub fn bytes(&self) -> usize {
        self.tabs
            .iter()
            .flat_map(|t| &t.chunks)
            .map(|c| {
                c.text.capacity()
                    + c.ends.capacity() * 8
                    + c.loose.capacity()
                    + c.loose_ends.capacity() * 4
                    + c.ids.capacity() * 16
                    + c.bytes.capacity() * 32
                    + c.pairs.capacity() * 128
                    + c.prints.capacity() * 16
                    + c.row_ids.capacity() * 8
                    + c.row_ids_end.capacity() * 4
            })
            .sum()
    }
}

impl Chunk {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when its rows have their signatures.
    fn signed(&self) -> bool {
        !self.bytes.is_empty()
    }

    fn row_ids(&self, row: usize) -> &[ReceiptId] {
        let start = if row == 0 {
            0
        } else {
            self.row_ids_end[row - 1] as usize
        };
        &self.row_ids[start..self.row_ids_end[row] as usize]
    }

    fn start(&self, row: usize) -> usize {
        if row == 0 { 0 } else { self.ends[row - 1] }
    }

    /// A row's joined runs.
    fn loose_row(&self, row: usize) -> &[u8] {
        if self.loose_ends.is_empty() {
            return &[];
        }
        let start = if row == 0 {
            0
        } else {
            self.loose_ends[row - 1] as usize
        };
        &self.loose[start..self.loose_ends[row] as usize]
    }

    /// True when this chunk holds the rows with these receipts and
    /// fingerprints, each of which may be copied.
    fn same_rows(&self, prints: &[Option<u64>], row_ids: &[ReceiptId], ends: &[u32]) -> bool {
        self.prints == prints
            && prints.iter().all(Option::is_some)
            && self.row_ids == row_ids
            && self.row_ids_end == ends
    }
}

impl TabIndex {
    /// False for the rows of a reading not indexed yet
    /// ([`SearchIndex::unindexed`]): no query finds any of them.
    fn indexed(&self) -> bool {
        self.len == 0 || !self.chunks.is_empty()
    }

    /// The same index, its rows named by `prefix` and their first receipt.
    fn named(self, prefix: &'static str) -> Self {
        TabIndex {
            name: Some(prefix),
            ..self
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The rows (ascending) that match a folded, non-empty query: those with
    /// a text containing it (a name or a phone number: whose compact text
    /// does, see [`Loose`]), and those holding the receipt it names. With
    /// `among`, only those rows (ascending) are looked at for text — the rows
    /// of a query this one extends — and ids are looked up in full.
    pub fn matching(&self, query: &str, among: Option<&[usize]>) -> Vec<usize> {
        if !self.indexed() {
            return Vec::new();
        }
        let mut out = match Loose::of(query) {
            None => self.holding(query, among),
            // Found in a compact text when found in the text itself or in
            // a run its compact form joined.
            Some(loose) => {
                let mut rows: Vec<usize> = Vec::new();
                for form in loose.forms() {
                    rows.extend(self.holding(form, among));
                    rows.extend(self.holding_joined(form, among));
                }
                rows.sort_unstable();
                rows.dedup();
                rows
            }
        };
        if let Some(id) = as_receipt_id(query) {
            let mut named: Vec<usize> = Vec::new();
            for (k, c) in self.chunks.iter().enumerate() {
                let from = c.ids.partition_point(|e| e.0 < id);
                named.extend(
                    c.ids[from..]
                        .iter()
                        .take_while(|e| e.0 == id)
                        .map(|e| k * CHUNK + e.1 as usize),
                );
            }
            if !named.is_empty() {
                out.extend(named);
                out.sort_unstable();
                out.dedup();
            }
        }
        out
    }

    /// The rows (ascending, among `among` when given) with a joined run
    /// holding `needle`: one pass over each chunk's, which are short.
    fn holding_joined(&self, needle: &str, among: Option<&[usize]>) -> Vec<usize> {
        let finder = memmem::Finder::new(needle.as_bytes());
        let found: Vec<usize> = self
            .chunks
            .par_iter()
            .enumerate()
            .with_min_len(CHUNK_ROWS / CHUNK)
            .flat_map_iter(|(k, c)| {
                let mut rows = Vec::new();
                let mut at = 0;
                while let Some(p) = finder.find(&c.loose[at..]) {
                    let r = c.loose_ends.partition_point(|&e| e as usize <= at + p);
                    rows.push(k * CHUNK + r);
                    at = c.loose_ends[r] as usize;
                }
                rows
            })
            .collect();
        match among {
            None => found,
            Some(rows) => {
                let mut held = ascending_lookup(rows);
                found.into_iter().filter(|&r| held(r)).collect()
            }
        }
    }

    /// The rows (ascending, among `among` when given) with a text holding
    /// `needle` or a name (`dup:12`) holding it.
    fn holding(&self, query: &str, among: Option<&[usize]>) -> Vec<usize> {
        let needle = query.as_bytes();
        let wanted = Signature::of(needle);
        // Every row holds the empty query: its (empty) signature decides.
        let exact = needle.is_empty() || Signature::decides(needle);
        // Only the words the query sets are looked at.
        let words = |sets: &[u64]| -> Vec<(usize, u64)> {
            sets.iter()
                .copied()
                .enumerate()
                .filter(|&(_, m)| m != 0)
                .collect()
        };
        let (want_bytes, want_pairs) = (words(&wanted.bytes), words(&wanted.pairs));
        let finder = memmem::Finder::new(needle);
        // A row without every byte and pair of bytes of the query cannot
        // hold it; for one byte or two letters, one that has them does.
        let signed = |c: &Chunk, r: usize| {
            let (bytes, pairs) = (&c.bytes[r], &c.pairs[r]);
            want_bytes.iter().all(|&(w, m)| bytes[w] & m == m)
                && want_pairs.iter().all(|&(w, m)| pairs[w] & m == m)
        };
        let names = NameMatch::of(self.name, needle);
        // (A row's receipts are not looked at when no name can hold it.)
        let named = |c: &Chunk, r: usize| {
            !matches!(names, NameMatch::No) && names.hold(c.row_ids(r).first().copied())
        };
        let holds = |c: &Chunk, r: usize| {
            let text = || finder.find(&c.text[c.start(r)..c.ends[r]]).is_some();
            named(c, r)
                || match c.signed() {
                    true => signed(c, r) && (exact || text()),
                    false => text(),
                }
        };
        // Read row by row: when signatures or names answer, and when the
        // query looks like an item name (mostly answered by the names; the
        // texts that hold one are few, and their signatures tell).
        let direct = exact || !matches!(names, NameMatch::No);
        // The rows of chunk `k` that hold the query, among `rows` (rows of
        // the chunk, ascending) when given.
        let in_chunk = |k: usize, rows: Option<&[usize]>| -> Vec<usize> {
            let c = &self.chunks[k];
            let base = k * CHUNK;
            let asked = rows.map_or(c.len(), <[usize]>::len);
            if direct || asked * SCAN_WHOLE < c.len() {
                return match rows {
                    Some(rows) => rows
                        .iter()
                        .copied()
                        .filter(|&r| holds(c, r - base))
                        .collect(),
                    None => (0..c.len())
                        .filter(|&r| holds(c, r))
                        .map(|r| base + r)
                        .collect(),
                };
            }
            // Most rows are asked: one pass over the chunk's text finds the
            // rows holding the query (a match never spans two rows: each
            // ends with a separator the query cannot hold).
            let mut found = Vec::new();
            let mut at = 0;
            while let Some(p) = finder.find(&c.text[at..]) {
                let r = c.ends.partition_point(|&e| e <= at + p);
                found.push(base + r);
                at = c.ends[r];
            }
            if rows.is_none() && matches!(names, NameMatch::No) {
                return found;
            }
            let mut held = ascending_lookup(&found);
            match rows {
                None => (base..base + c.len())
                    .filter(|&r| held(r) || named(c, r - base))
                    .collect(),
                Some(rows) => rows
                    .iter()
                    .copied()
                    .filter(|&r| held(r) || named(c, r - base))
                    .collect(),
            }
        };
        // Both cores share a long list: the screen waits for the answer.
        match among {
            Some(rows) => {
                let rows = &rows[..rows.partition_point(|&r| r < self.len)];
                // The rows asked, chunk by chunk.
                let mut parts: Vec<(usize, &[usize])> = Vec::new();
                let mut rest = rows;
                while let Some(&first) = rest.first() {
                    let k = first / CHUNK;
                    let n = rest.partition_point(|&r| r < (k + 1) * CHUNK);
                    parts.push((k, &rest[..n]));
                    rest = &rest[n..];
                }
                parts
                    .par_iter()
                    .with_min_len(CHUNK_ROWS / CHUNK)
                    .flat_map_iter(|&(k, rows)| in_chunk(k, Some(rows)))
                    .collect()
            }
            None => (0..self.chunks.len())
                .into_par_iter()
                .with_min_len(CHUNK_ROWS / CHUNK)
                .flat_map_iter(|k| in_chunk(k, None))
                .collect(),
        }
    }
}

impl TabIndex {
    /// [`TabIndex::matching`] (with no `among`) for an index made after
    /// `before`, whose matching rows for the same query were `rows_before`
    /// (ascending): a chunk the two share (same rows, texts and receipts) keeps
    /// its rows, and only the others are searched. After a refresh most are
    /// shared, and searching them all again was most of the screen's update.
    pub fn matching_after(
        &self,
        query: &str,
        before: &TabIndex,
        rows_before: &[usize],
    ) -> Vec<usize> {
        let kept = |k: usize| {
            before
                .chunks
                .get(k)
                .zip(self.chunks.get(k))
                .is_some_and(|(b, c)| Arc::ptr_eq(b, c))
        };
        if !(0..self.chunks.len()).any(kept) {
            return self.matching(query, None);
        }
        let changed: Vec<usize> = (0..self.chunks.len())
            .filter(|&k| !kept(k))
            .flat_map(|k| k * CHUNK..self.len.min((k + 1) * CHUNK))
            .collect();
        let mut out = self.matching(query, Some(&changed));
        out.extend(
            rows_before
                .iter()
                .copied()
                .filter(|&r| r < self.len && kept(r / CHUNK)),
        );
        out.sort_unstable();
        out.dedup();
        out
    }
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

/// True when the rows matching the folded query `after` are among those
/// matching `before` (typing on narrows the rows: "smith" after "smit"),
/// so that only those need be looked at. A name or a phone number is
/// compared without what parts it ([`Loose`]): `0-4` finds `0(4`, which
/// `-4` does not.
pub fn narrows(before: &str, after: &str) -> bool {
    match (Loose::of(before), Loose::of(after)) {
        (None, None) | (Some(_), None) => after.contains(before),
        (Some(b), Some(a)) => a.narrows(&b),
        // A run of letters and digits found in a compact text is in the
        // text itself, when no left-out run could have stood in it.
        (None, Some(a)) => {
            before.chars().all(char::is_alphanumeric)
                && a.forms().iter().all(|f| f.contains(before))
        }
    }
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
    work::items(match known {
        Known::Among(rows) if !query.is_empty() => rows.len(),
        _ => index.len(),
    });
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

/// The id a query names, when it is one as ids are written (digits, no
/// leading zero): the old comparison was `id.to_string() == query`.
fn as_receipt_id(query: &str) -> Option<ReceiptId> {
    let digits = !query.is_empty() && query.bytes().all(|b| b.is_ascii_digit());
    if !digits || (query.len() > 1 && query.starts_with('0')) {
        return None;
    }
    query.parse().ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::reading::{LogLine, Snapshot};
    use crate::triage::model::{DamageReason, Damaged, MatchKind};

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
            kept: None,
            batch: None,
        }
    }

    /// Texts that fold in every way the filter folds: case, width,
    /// compatibility forms, white space, ASCII and not.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop::sample::select(vec![
                "a", "B", "smith", "SMITH", "Ａ", "ｂ", "ß", "SS", "İ", "ﬁ", " ", "  ", "\t", "\n",
                "問い", "ｶ", "12", "0", "dup:", "é", "e\u{301}", "-", "\u{202e}", "stuck:", "ged:",
                "uc", "漢", "字", "(", "ー", "\u{3000}", "+81",
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
                .push(log_line(id, item, note.clone(), vec![id * 10, id * 10 + 1]));
            let t = std::sync::Arc::make_mut(&mut snap.triage);
            // The same texts as a stuck receipt's scope and key.
            t.stuck.push(crate::triage::model::Stuck {
                receipt_id: id * 10 + 1,
                scope: detail.clone(),
                request_key: note.clone(),
                age_ms: 0,
            });
            t.damaged.push(Damaged {
                receipt_id: id * 10,
                reason: DamageReason::Payload,
                detail: detail.into(),
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
            for tab in [Tab::Stuck, Tab::Damaged, Tab::Log] {
                let before = compute_by_scan(&snap, tab, ClassFilter::All, &typed);
                let q = normalize_query(&typed);
                prop_assert_eq!(&compute(&snap, &search, tab, ClassFilter::All, &q, Known::Nothing), &before);
                let longer = format!("{typed}{more}");
                let expected = compute_by_scan(&snap, tab, ClassFilter::All, &longer);
                let q2 = normalize_query(&longer);
                let known = match !q.is_empty() && narrows(&q, &q2) {
                    true => Known::Among(&before),
                    false => Known::Nothing,
                };
                prop_assert_eq!(&compute(&snap, &search, tab, ClassFilter::All, &q2, known), &expected);
            }
        }
    }

    #[test]
    fn an_exact_copy_is_found_by_its_values_when_the_earliest_copy_is_not_held() {
        use crate::model::ReceiptState;
        use crate::triage::model::{DuplicateGroup, GapClass, Member, Receipt, VisitorFields};
        let receipt = |id: ReceiptId, key: &str, message: &str| Receipt {
            id,
            scope: "s".into(),
            request_key: Some(key.into()),
            digest: "ab".repeat(32),
            state: ReceiptState::Completed,
            created_ms: 0,
            updated_ms: None,
            visitor: VisitorFields(vec![("message".into(), message.into())]),
            honeypot_filled: false,
        };
        let exact = |id| Member {
            id,
            match_kind: MatchKind::Exact,
            fields: Vec::new(),
            sentence_changes: Vec::new(),
        };
        let group = |first, second| DuplicateGroup {
            scope: "s".into(),
            class: GapClass::Seconds,
            members: vec![exact(first), exact(second)],
            gaps_ms: vec![1000],
        };
        let mut snap = Snapshot::default();
        let t = Arc::make_mut(&mut snap.triage);
        t.duplicates = vec![Arc::new(group(1, 2)), Arc::new(group(3, 4))];
        // The earliest copy of the first group is not held (gone since).
        snap.receipts = vec![
            receipt(2, "k-2", "hello there"),
            receipt(3, "k-3", "good morning"),
            receipt(4, "k-4", "good morning"),
        ]
        .into();
        let search = SearchIndex::build(&snap, None);
        let find = |q: &str| {
            compute(
                &snap,
                &search,
                Tab::Duplicates,
                ClassFilter::All,
                q,
                Known::Nothing,
            )
        };
        assert_eq!(find("hello"), [0]);
        assert_eq!(find("morning"), [1]);
        // A later exact copy's own request key is found too.
        assert_eq!(find("k-4"), [1]);
        for q in ["hello", "morning", "k-4", "k-2"] {
            let scan = compute_by_scan(&snap, Tab::Duplicates, ClassFilter::All, q);
            assert_eq!(find(q), scan, "{q}");
        }
    }

    #[test]
    fn a_row_holding_the_query_often_is_one_row() {
        // Rows 0, 2 and 4 hold "abc" several times, in one text and in
        // several; a chunk's rows are searched whole or row by row.
        let snap = snapshot(vec![
            ("abcabc abc".into(), Some("abc".into()), "xabcx".into()),
            ("ab".into(), None, "bc".into()),
            ("abc".into(), None, "abcabc".into()),
            ("xyz".into(), None, "abxc".into()),
            ("zabcz".into(), Some("ABC abc".into()), "abc".into()),
            ("q".into(), None, "q".into()),
        ]);
        let search = SearchIndex::build(&snap, None);
        let all: Vec<usize> = (0..6).collect();
        let damaged = search.tab(Tab::Damaged);
        assert_eq!(damaged.matching("", None), all);
        assert_eq!(damaged.matching("", Some(&[1, 4])), vec![1, 4]);
        for among in [None, Some(&all[..]), Some(&[0, 4][..]), Some(&[2][..])] {
            let found = search.tab(Tab::Damaged).matching("abc", among);
            let expected: Vec<usize> = [0, 2, 4]
                .into_iter()
                .filter(|r| among.is_none_or(|a| a.contains(r)))
                .collect();
            assert_eq!(found, expected, "among {among:?}");
        }
    }

    #[test]
    fn ids_match_whole_and_as_written() {
        let snap = snapshot(vec![("dup:7".into(), None, "x".into()); 3]);
        let search = SearchIndex::build(&snap, None);
        let log = |q: &str| log_rows(&snap, &search, q);
        assert_eq!(log("21"), vec![1]); // log 2 names receipts 20 and 21
        assert_eq!(log("021"), Vec::<usize>::new());
        assert_eq!(log("2"), Vec::<usize>::new());
        assert_eq!(log("7"), vec![2, 1, 0]); // every item is dup:7
    }

    #[test]
    fn a_huge_text_is_folded_once_when_indexed_and_never_while_filtering() {
        use super::fold::FOLDED_BYTES;
        let folded = || FOLDED_BYTES.with(std::cell::Cell::get);
        let huge = "Ｗord ".repeat(200_000); // 1.2 MB, not ASCII
        let snap = snapshot(vec![(huge.clone(), None, "x".into())]);
        let before = folded();
        let search = SearchIndex::build(&snap, None);
        let indexing = folded() - before;
        assert!(
            (huge.len()..2 * huge.len()).contains(&indexing),
            "{indexing}"
        );
        let before = folded();
        for q in ["w", "wo", "wor", "word", "wordz"] {
            log_rows(&snap, &search, q);
        }
        assert_eq!(log_rows(&snap, &search, "word word"), vec![0]);
        assert_eq!(log_rows(&snap, &search, "wordz"), Vec::<usize>::new());
        // Only queries may be folded while filtering, never the row's text.
        assert!(folded() - before <= "wowordwordwordzword word".len());
    }

    /// The log's rows for a folded query.
    fn log_rows(snap: &Snapshot, search: &SearchIndex, q: &str) -> Vec<usize> {
        compute(snap, search, Tab::Log, ClassFilter::All, q, Known::Nothing)
    }

    #[test]
    fn unchanged_rows_are_copied_from_the_last_reading() {
        let a = snapshot(vec![("dup:1".into(), Some("Ｎote".into()), "d".into())]);
        let first = SearchIndex::build(&a, None);
        let again = SearchIndex::build(&a, Some(&first));
        assert_eq!(
            again.tabs[Tab::Log.index()].chunks,
            first.tabs[Tab::Log.index()].chunks
        );
    }

    /// A demo reading, with the receipts its items show.
    fn demo() -> (tempfile::TempDir, Snapshot) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.db");
        let now_ms = 1_795_947_330_123;
        let options = crate::demo::DemoOptions {
            receipts: 400,
            seed: 3,
            now_ms,
        };
        let location = crate::storage::Location::File(path);
        crate::demo::generate(&location, &options).unwrap();
        let db =
            crate::storage::open_database(&location, crate::storage::Access::ReadOnly).unwrap();
        let settings = crate::model::Settings::new(now_ms);
        let snap = crate::reading::read_with_receipts(&*db, settings, &mut |_| {}).unwrap();
        (dir, snap)
    }

    /// Every tab of `a` holds the rows of `b`, chunk by chunk.
    fn assert_same_rows(a: &SearchIndex, b: &SearchIndex) {
        for tab in Tab::ALL {
            let (x, y) = (a.tab(tab), b.tab(tab));
            assert_eq!(x.len, y.len, "{tab:?}");
            assert_eq!(x.chunks, y.chunks, "{tab:?}");
        }
    }

    #[test]
    fn an_index_updated_from_the_last_one_is_the_one_built_anew() {
        let (_dir, snap) = demo();
        let first = SearchIndex::build(&snap, None);
        let groups = snap.triage.duplicates.len();
        assert!(groups > 4 * CHUNK, "{groups} groups");
        // Rows changed at the end, in the middle, gone and added: whatever
        // changed, the index made from the last one is the one made anew.
        let mut at_end = snap.clone();
        let t = Arc::make_mut(&mut at_end.triage);
        let last = t.duplicates.len() - 1;
        Arc::make_mut(&mut t.duplicates[last])
            .scope
            .push_str("-moved");
        let extra = t.duplicates[0].clone();
        t.duplicates.push(extra);
        let updated = SearchIndex::build(&at_end, Some(&first));
        assert_same_rows(&updated, &SearchIndex::build(&at_end, None));
        // Only the chunks holding a changed row were made again.
        let (old, new) = (first.tab(Tab::Duplicates), updated.tab(Tab::Duplicates));
        let shared = (0..old.chunks.len())
            .filter(|&k| Arc::ptr_eq(&old.chunks[k], &new.chunks[k]))
            .count();
        assert_eq!(shared, last / CHUNK);
        let mut in_middle = snap.clone();
        let t = Arc::make_mut(&mut in_middle.triage);
        t.duplicates.remove(groups / 2);
        Arc::make_mut(&mut t.duplicates[groups / 3]).members.pop();
        t.conflicts.rotate_left(1);
        let updated = SearchIndex::build(&in_middle, Some(&first));
        assert_same_rows(&updated, &SearchIndex::build(&in_middle, None));
        // The first reading comes without its receipts.
        let mut bare = snap.clone();
        bare.receipts = Default::default();
        let before = SearchIndex::build(&bare, None);
        assert_same_rows(&SearchIndex::build(&snap, Some(&before)), &first);
        assert_same_rows(&SearchIndex::build(&bare, Some(&first)), &before);
    }

    #[test]
    fn rows_kept_from_the_index_before_are_the_rows_searched_again() {
        let (_dir, snap) = demo();
        let first = SearchIndex::build(&snap, None);
        // A later reading: one group changed at the end, one gone from the
        // middle, one added, a conflict moved.
        let mut later = snap.clone();
        let t = Arc::make_mut(&mut later.triage);
        let last = t.duplicates.len() - 1;
        Arc::make_mut(&mut t.duplicates[last]).scope = "smith-moved".into();
        t.duplicates.remove(last / 2);
        let extra = t.duplicates[0].clone();
        t.duplicates.push(extra);
        t.conflicts.rotate_left(1);
        let updated = SearchIndex::build(&later, Some(&first));
        let (old, new) = (first.tab(Tab::Duplicates), updated.tab(Tab::Duplicates));
        assert!(
            (0..new.chunks.len()).any(|k| Arc::ptr_eq(&old.chunks[k], &new.chunks[k])),
            "some chunks are shared"
        );
        let member = snap.triage.duplicates[3].members[0].id.to_string();
        let classes = [
            ClassFilter::All,
            ClassFilter::Only(crate::triage::model::GapClass::Minutes),
        ];
        for q in [
            "smith",
            "a",
            "moved",
            "dup:1",
            "co",
            member.as_str(),
            "zzzz",
        ] {
            for tab in [Tab::Duplicates, Tab::Conflicts, Tab::Stuck] {
                for class in classes {
                    let shown = compute(&snap, &first, tab, class, q, Known::Nothing);
                    let known = Known::Before(first.tab(tab), &shown);
                    let found = compute(&later, &updated, tab, class, q, known);
                    let expected = compute_by_scan(&later, tab, class, q);
                    assert_eq!(found, expected, "{tab:?} {class:?} {q:?}");
                }
            }
        }
    }
}
