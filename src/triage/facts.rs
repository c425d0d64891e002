//! Compact per-receipt facts: what the engine keeps of each receipt once its
//! row has been inspected. No payload and no visitor text is kept: fields are
//! hashes and sizes, keys and scopes are interned, and the few texts a rule
//! needs (the values of an edit candidate, a conflicting key) are read again
//! on demand (see [`super::RereadList`]).
//!
//! Two kinds of hashes are kept. The *fixed* hashes ([`super::hash`]) order
//! fields and block candidates exactly as before, so every choice that
//! depends on an order stays the same. The *keyed* checks (SipHash with a key
//! drawn per process, [`hash::Keyed`]) confirm that equal fixed hashes are equal texts where the
//! rules compare texts: a stranger who can make two values collide under the
//! fixed hash cannot make their checks collide.

use std::collections::{BTreeMap, HashMap};

use super::hash;
use super::model::Damaged;
use super::text;
use crate::model::erasure::Tombstone;
use crate::model::{ReceiptId, ReceiptState};

/// No field (e.g. no body).
pub const NONE16: u16 = u16::MAX;

/// [`ReceiptFact::fields`] of a receipt whose fields were dropped (see
/// [`FactStore::keep_fields`]).
const LET_GO: u32 = u32::MAX;

const TOKENS_MAX: u32 = (1 << 14) - 1;
const CHARS_MAX: u32 = (1 << 16) - 1;
const FREE_TEXT: u32 = 1 << 30;
/// The field names a person: an email address, a phone number, a name.
const NAMES_A_PERSON: u32 = 1 << 31;

/// One visitor field: 20 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct FieldFact {
    value: u64,
    check: u32,
    key: u32,
    info: u32,
}

impl FieldFact {
    pub fn new(key: u32, value: u64, check: u64, tokens: usize, chars: usize) -> Self {
        let t = tokens.min(TOKENS_MAX as usize) as u32;
        let c = chars.min(CHARS_MAX as usize) as u32;
        let free = if text::is_free_text_measure(tokens, chars) {
            FREE_TEXT
        } else {
            0
        };
        Self {
            value,
            check: check as u32,
            key,
            info: t | (c << 14) | free,
        }
    }

    /// This field, marked as naming a person (an email address, a phone number, a name)
    /// when `names` is true.
    pub fn naming_a_person(mut self, names: bool) -> Self {
        if names {
            self.info |= NAMES_A_PERSON;
        }
        self
    }

    /// The field's key names a person, and so the sender (see [`Self::naming_a_person`]).
    #[inline]
    pub fn names_a_person(&self) -> bool {
        self.info & NAMES_A_PERSON != 0
    }

    /// The interned key.
    #[inline]
    pub fn key(&self) -> u32 {
        self.key
    }

    /// Fixed hash of the normalised value.
    #[inline]
    pub fn value(&self) -> u64 {
        self.value
    }

    /// Keyed check of the normalised value.
    #[inline]
    pub fn check(&self) -> u32 {
        self.check
    }

    /// Tokens of the value, saturating at [`Self::tokens_exact`]'s limit.
    #[inline]
    pub fn tokens(&self) -> u32 {
        self.info & TOKENS_MAX
    }

    /// True when [`Self::tokens`] is the exact count.
    #[inline]
    pub fn tokens_exact(&self) -> bool {
        self.tokens() < TOKENS_MAX
    }

    /// Characters of the value, saturating (a hint for choosing blocking keys).
    #[inline]
    pub fn chars_hint(&self) -> u32 {
        (self.info >> 14) & CHARS_MAX
    }

    #[inline]
    pub fn is_free_text(&self) -> bool {
        self.info & FREE_TEXT != 0
    }

    /// Same key and same value text (fixed hash and check).
    #[inline]
    pub fn same_as(&self, other: &FieldFact) -> bool {
        self.key == other.key && self.value == other.value && self.check == other.check
    }

    /// Same value text, whatever the key.
    #[inline]
    pub fn same_value(&self, other: &FieldFact) -> bool {
        self.value == other.value && self.check == other.check
    }
}

pub const FLAG_HONEYPOT: u8 = 1;
pub const FLAG_KEY: u8 = 2;
/// Its visitor data was erased: no fields, and never compared (see
/// [`FactStore::erased`]).
pub const FLAG_ERASED: u8 = 4;

/// One good receipt: 56 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiptFact {
    pub id: ReceiptId,
    pub created_ms: i64,
    /// Fixed hash of all visitor fields in order: equal fingerprints, equal hashes.
    pub fingerprint: u64,
    /// Keyed check of all visitor fields (32 bits, as a field's check).
    pub fp_check: u32,
    /// Fixed hash of the request key (when [`FLAG_KEY`]).
    pub key_hash: u64,
    /// The first of its fields in [`FactStore::fields`].
    pub fields: u32,
    pub scope: u32,
    /// Keyed check of the request key.
    pub key_check: u32,
    pub nfields: u16,
    /// The field that carries the message (see [`FactStore::body`]), or [`NONE16`].
    pub body: u16,
    pub state: ReceiptState,
    pub flags: u8,
}

impl ReceiptFact {
    pub fn honeypot_filled(&self) -> bool {
        self.flags & FLAG_HONEYPOT != 0
    }

    pub fn is_erased(&self) -> bool {
        self.flags & FLAG_ERASED != 0
    }

    pub fn has_key(&self) -> bool {
        self.flags & FLAG_KEY != 0
    }

    pub fn is_empty(&self) -> bool {
        self.nfields == 0
    }

    /// False once its fields were dropped (see [`FactStore::keep_fields`]); the
    /// facts of the receipt itself stay.
    pub fn holds_fields(&self) -> bool {
        self.fields != LET_GO
    }
}

/// Interned names (visitor field keys, scopes) with their hashes.
#[derive(Clone, Debug, Default)]
pub struct Table {
    names: Vec<Box<str>>,
    hashes: Vec<u64>,
    checks: Vec<u64>,
    index: HashMap<Box<str>, u32>,
}

impl Table {
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// The id of `name`, adding it with its fixed hash (seeded by `seed`).
    pub fn intern(&mut self, name: &str, seed: u64, random: &hash::Keyed) -> u32 {
        if let Some(id) = self.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.hashes.push(hash::str(seed, name));
        self.checks.push(random.str(name));
        self.index.insert(name.into(), id);
        id
    }

    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// The fixed hash of the name.
    #[inline]
    pub fn hash(&self, id: u32) -> u64 {
        self.hashes[id as usize]
    }

    /// The keyed check of the name.
    #[inline]
    pub fn check(&self, id: u32) -> u64 {
        self.checks[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// What is kept of a damaged row besides its [`Damaged`] entry: enough to
/// name a conflict whose original is damaged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedRow {
    pub id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
}

/// Which request keys to keep while reading: those that conflicts and stuck
/// receipts show (so that they need not be read again).
#[derive(Clone, Debug, Default)]
pub struct Capture {
    /// Receipts that `key_conflicts` rows refer to (ascending, see [`Capture::new`]).
    pub originals: Vec<ReceiptId>,
    /// `(now, stuck_after)`: keep the keys of receipts that are stuck then.
    pub stuck: Option<(i64, i64)>,
}

impl Capture {
    /// Keeps the keys of the receipts these `key_conflicts` rows refer to, and
    /// of those stuck as of `now_ms`.
    pub fn new(
        conflict_rows: &[crate::model::RawConflict],
        now_ms: i64,
        stuck_after_ms: i64,
    ) -> Self {
        let mut originals: Vec<ReceiptId> = conflict_rows.iter().map(|c| c.receipt_id).collect();
        originals.sort_unstable();
        originals.dedup();
        Self {
            originals,
            stuck: Some((now_ms, stuck_after_ms)),
        }
    }

    pub fn wants(&self, id: ReceiptId, state: ReceiptState, created_ms: i64) -> bool {
        self.originals.binary_search(&id).is_ok()
            || self.stuck.is_some_and(|(now, after)| {
                state == ReceiptState::InFlight && now.saturating_sub(created_ms) > after
            })
    }
}

/// The facts of every row read: good receipts by id, and damaged rows.
#[derive(Clone, Debug)]
pub struct FactStore {
    /// Good receipts, ascending by id (after [`FactStore::finish`]).
    pub receipts: Vec<ReceiptFact>,
    pub fields: Vec<FieldFact>,
    pub keys: Table,
    pub scopes: Table,
    /// Ascending by receipt id (after [`FactStore::finish`]).
    pub damaged: Vec<Damaged>,
    /// In the order of `damaged`.
    pub damaged_rows: Vec<DamagedRow>,
    /// The key of the keyed checks; one per store, so checks compare within it.
    pub random: hash::Keyed,
    /// What to keep while reading...
    pub capture: Capture,
    /// ...and what was kept: request keys by receipt id.
    pub request_keys: HashMap<ReceiptId, Box<str>>,
    /// The erased receipts' tombstones, by receipt id.
    pub erased: BTreeMap<ReceiptId, Tombstone>,
    /// How many receipts and damaged rows [`FactStore::finish`] last left in
    /// order: rows are appended between readings, so only what follows needs
    /// checking (a million facts take milliseconds to walk).
    ordered: (usize, usize),
}

impl Default for FactStore {
    fn default() -> Self {
        Self::new()
    }
}

impl FactStore {
    pub fn new() -> Self {
        Self {
            receipts: Vec::new(),
            fields: Vec::new(),
            keys: Table::default(),
            scopes: Table::default(),
            damaged: Vec::new(),
            damaged_rows: Vec::new(),
            random: hash::Keyed::new(),
            capture: Capture::default(),
            request_keys: HashMap::new(),
            erased: BTreeMap::new(),
            ordered: (0, 0),
        }
    }

    /// The fields of a receipt that holds them (see [`FactStore::keep_fields`]).
    #[inline]
    pub fn fields_of(&self, r: &ReceiptFact) -> &[FieldFact] {
        if !r.holds_fields() {
            debug_assert!(r.is_empty(), "the fields of receipt {} were dropped", r.id);
            return &[];
        }
        let start = r.fields as usize;
        &self.fields[start..start + r.nfields as usize]
    }

    #[inline]
    pub fn fields_at(&self, index: u32) -> &[FieldFact] {
        self.fields_of(&self.receipts[index as usize])
    }

    /// Hash of a field's (key, value) pair, as the blocking index uses it.
    #[inline]
    pub fn pair(&self, f: &FieldFact) -> u64 {
        hash::combine(self.keys.hash(f.key()), f.value())
    }

    /// The field that carries the message: the longest free-text field by
    /// characters (ties: the first by key hash), chosen at inspection.
    pub fn body(&self, r: &ReceiptFact) -> Option<&FieldFact> {
        if r.body == NONE16 {
            return None;
        }
        // None too for a receipt whose fields were dropped.
        self.fields_of(r).get(usize::from(r.body))
    }

    /// The index of the good receipt with this id.
    pub fn index_of(&self, id: ReceiptId) -> Option<u32> {
        let r = &self.receipts;
        position_of(r, |f| f.id, id).map(|i| i as u32)
    }

    /// The damaged row with this id.
    pub fn damaged_row(&self, id: ReceiptId) -> Option<&DamagedRow> {
        self.damaged_rows
            .binary_search_by_key(&id, |d| d.id)
            .ok()
            .map(|i| &self.damaged_rows[i])
    }

    pub fn max_id(&self) -> Option<ReceiptId> {
        let good = self.receipts.last().map(|r| r.id);
        let bad = self.damaged_rows.last().map(|d| d.id);
        good.max(bad)
    }

    /// Rows read: good and damaged.
    pub fn rows(&self) -> usize {
        self.receipts.len() + self.damaged.len()
    }

    /// Puts receipts and damaged rows in id order (rows from a view may come
    /// in any order). Fields stay where they are.
    pub fn finish(&mut self) {
        let (receipts, damaged) = self.ordered;
        if !in_order_from(&self.receipts, receipts, |r| r.id) {
            self.receipts.sort_unstable_by_key(|r| r.id);
        }
        if !in_order_from(&self.damaged_rows, damaged, |d| d.id) {
            let mut both: Vec<(Damaged, DamagedRow)> = std::mem::take(&mut self.damaged)
                .into_iter()
                .zip(std::mem::take(&mut self.damaged_rows))
                .collect();
            both.sort_by_key(|(d, _)| d.receipt_id);
            (self.damaged, self.damaged_rows) = both.into_iter().unzip();
        }
        self.ordered = (self.receipts.len(), self.damaged_rows.len());
    }

    /// Keeps the fields of the receipts `keep` (indices, ascending) and lets
    /// go of those of the others in `holding` (ascending: every receipt that
    /// may still hold fields). The receipts' own facts stay.
    pub fn keep_fields(&mut self, holding: &[u32], keep: &[u32]) {
        let total: usize = keep
            .iter()
            .map(|&i| self.receipts[i as usize].nfields as usize)
            .sum();
        let mut fields = Vec::with_capacity(total);
        let mut kept = keep.iter().copied().peekable();
        for &i in holding {
            let r = &mut self.receipts[i as usize];
            if kept.next_if_eq(&i).is_some() && r.holds_fields() {
                let start = r.fields as usize;
                r.fields = fields.len() as u32;
                fields.extend_from_slice(&self.fields[start..start + r.nfields as usize]);
            } else {
                r.fields = LET_GO;
            }
        }
        debug_assert!(kept.next().is_none(), "keep is a part of holding");
        self.fields = fields;
    }

    /// Bytes held by the facts (for measurements).
    pub fn heap_bytes(&self) -> usize {
        self.receipts.capacity() * std::mem::size_of::<ReceiptFact>()
            + self.fields.capacity() * std::mem::size_of::<FieldFact>()
    }
}

/// Where `id` is among `n` ascending ids (`id_at` gives each): ids mostly
/// rise by one, so the search starts where an even spread puts it and widens
/// from there. A binary search over a million facts misses the cache at
/// nearly every step; this touches a few neighbouring ones.
fn position_of<T>(items: &[T], id_of: impl Fn(&T) -> ReceiptId, id: ReceiptId) -> Option<usize> {
    let n = items.len();
    let id_at = |i: usize| id_of(&items[i]);
    let last = id_at(n.checked_sub(1)?);
    let first = id_at(0);
    if id < first || id > last {
        return None;
    }
    let span = (i128::from(last) - i128::from(first)) as u128;
    let guess = match span {
        0 => 0,
        _ => ((i128::from(id) - i128::from(first)) as u128 * (n as u128 - 1) / span) as usize,
    };
    let at = id_at(guess);
    // A window around the guess that holds `id` if any does, widened by
    // doubling steps.
    let window = if at == id {
        return Some(guess);
    } else if at < id {
        let (mut lo, mut step) = (guess + 1, 1);
        loop {
            let probe = guess + step;
            if probe >= n {
                break lo..n;
            }
            if id_at(probe) >= id {
                break lo..probe + 1;
            }
            lo = probe + 1;
            step *= 2;
        }
    } else {
        let (mut hi, mut step) = (guess, 1);
        loop {
            if step > guess {
                break 0..hi;
            }
            let probe = guess - step;
            if id_at(probe) <= id {
                break probe..hi;
            }
            hi = probe;
            step *= 2;
        }
    };
    let from = window.start;
    items[window]
        .binary_search_by_key(&id, id_of)
        .ok()
        .map(|k| from + k)
}

/// True when `items` is in order, given that its first `known` items were
/// (when it has not shrunk since).
fn in_order_from<T>(items: &[T], known: usize, id: impl Fn(&T) -> ReceiptId) -> bool {
    let from = if known <= items.len() {
        known.saturating_sub(1)
    } else {
        0
    };
    items[from..].is_sorted_by_key(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn a_position_is_the_one_a_binary_search_finds(
            steps in proptest::collection::vec(
                proptest::prop_oneof![8 => proptest::strategy::Just(1i64), 1 => 2i64..50, 1 => 1000i64..1_000_000],
                0..300,
            ),
            start in -1_000_000i64..1_000_000,
            probes in proptest::collection::vec(0usize..400, 1..40),
            wild in proptest::collection::vec(proptest::num::i64::ANY, 0..5),
        ) {
            let mut ids = Vec::with_capacity(steps.len());
            let mut id = start;
            for s in steps {
                ids.push(id);
                id += s;
            }
            let mut asked: Vec<ReceiptId> = probes
                .iter()
                .map(|&p| if p < ids.len() { ids[p] } else { start + p as i64 - 200 })
                .collect();
            asked.extend(wild);
            asked.extend([i64::MIN, i64::MAX]);
            for id in asked {
                proptest::prop_assert_eq!(
                    position_of(&ids, |&x| x, id),
                    ids.binary_search(&id).ok(),
                    "id {}", id
                );
            }
        }
    }

    #[test]
    fn positions_at_the_ends_of_the_id_range() {
        let ids = [i64::MIN, -3, 0, 7, i64::MAX];
        for (at, &id) in ids.iter().enumerate() {
            assert_eq!(position_of(&ids, |&x| x, id), Some(at));
        }
        assert_eq!(position_of(&ids[..0], |&x| x, 0), None);
        assert_eq!(position_of(&[5], |&x| x, 5), Some(0));
        assert_eq!(position_of(&[5], |&x| x, 6), None);
    }

    #[test]
    fn order_is_checked_from_the_last_known_item() {
        let ids: Vec<ReceiptId> = vec![1, 2, 3, 5, 4];
        let id = |i: &ReceiptId| *i;
        assert!(!in_order_from(&ids, 0, id));
        assert!(!in_order_from(&ids, 4, id), "the appended 4 is before 5");
        assert!(in_order_from(&ids[..4], 4, id));
        assert!(in_order_from(&[1, 2, 3, 5, 6], 4, id));
        // An appended id below the last known one is out of order.
        assert!(!in_order_from(&[1, 2, 3, 5, 4], 3, id));
        // Shorter than what was known: everything is checked again.
        assert!(!in_order_from(&[2, 1], 4, id));
    }

    #[test]
    fn facts_are_compact() {
        assert_eq!(std::mem::size_of::<FieldFact>(), 20);
        assert_eq!(std::mem::size_of::<ReceiptFact>(), 56);
    }

    #[test]
    fn field_measures_saturate() {
        let f = FieldFact::new(3, 9, 7, 5, 40);
        assert_eq!(
            (f.key(), f.value(), f.tokens(), f.chars_hint()),
            (3, 9, 5, 40)
        );
        assert!(f.is_free_text() && f.tokens_exact());
        let g = FieldFact::new(3, 9, 7, 1 << 20, 1 << 20);
        assert!(!g.tokens_exact() && g.is_free_text());
        assert_eq!(g.chars_hint(), CHARS_MAX);
        assert!(!FieldFact::new(0, 0, 0, 4, 7).is_free_text());
    }
}
