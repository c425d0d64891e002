//! The triage engine: pure functions over the rows that storage read.
//!
//! - [`inspect`] checks one row (payload, time, digest, state) and extracts the
//!   visitor fingerprint ([`visitor`]); [`Inspector`] turns rows into compact
//!   [`facts`] in parallel ([`ingest`]), so nothing keeps a payload;
//! - [`needs`] says which few texts the rules must read again (the values of
//!   possible edits, the keys that conflicts and stuck receipts show, digests
//!   of receipts sharing a key); storage reads them into [`RereadValues`];
//! - [`analyze_facts`] runs every check: duplicate groups (exact and near),
//!   key conflicts, stuck receipts, suspected bots, damaged rows;
//! - [`analyze`] does all of that for rows already in memory;
//! - [`engine`] keeps the facts between readings and recomputes only what
//!   appended rows touch;
//! - [`erased`] puts erased receipts (no fields left) back in the groups
//!   they were in.
//!
//! The rules where the design leaves room (free text, "a few words", bots) are
//! constants in [`text`] and [`bots`], documented where they are defined.

pub mod model;

pub mod activity;
mod blocking;
pub mod bots;
mod conflicts;
#[cfg(test)]
mod digest;
pub mod engine;
pub mod erased;
pub mod facts;
mod groups;
mod hash;
mod ingest;
mod inspect;
mod near;
mod scan;
pub mod sentences;
mod sinks;
mod stuck;
pub mod text;
pub mod visitor;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::model::{RawConflict, RawReceipt, ReceiptId, Row, Settings};
pub use facts::FactStore;
pub use ingest::{Ingest, Part, ingest, ingest_by};
pub use inspect::{Inspector, Interners, ReceiptRef, RowMeta, Scratch, inspect, inspect_with};
use model::{Receipt, Triage};
pub use near::Texts;
pub use sinks::{FactSink, ReceiptSink};

/// What [`analyze`] found, with the receipts that passed inspection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// The good receipts, by id.
    pub receipts: Vec<Receipt>,
    pub triage: Triage,
}

/// Runs the whole triage over the rows of `receipts` and `key_conflicts`.
pub fn analyze(
    raws: &[RawReceipt],
    conflict_rows: &[RawConflict],
    settings: &Settings,
) -> Analysis {
    let mut store = FactStore::new();
    let inspector = Inspector::new(settings, store.random);
    let rows: Vec<Row<'_>> = raws.iter().map(RawReceipt::row).collect();
    ingest(&mut store, &inspector, &rows);
    store.finish();
    let mut receipts: Vec<Receipt> = rows
        .par_iter()
        .with_min_len(256)
        .map_init(Scratch::default, |s, row| inspector.receipt(row, s).ok())
        .flatten()
        .collect();
    receipts.par_sort_by_key(|r| r.id);
    let needs = needs(&store, conflict_rows, settings);
    let mut details = RereadValues::default();
    for index in needs.indices() {
        let id = store.receipts[index as usize].id;
        if let Ok(at) = receipts.binary_search_by_key(&id, |r| r.id) {
            details.supply(&store, &needs, index, &receipts[at]);
        }
    }
    let triage = analyze_facts(&store, conflict_rows, &needs, &details, settings);
    Analysis { receipts, triage }
}

/// What the rules must read again, as receipt indices of a [`FactStore`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RereadList {
    /// (receipt, field position): values an edit check may compare. Sorted.
    pub texts: Vec<(u32, u16)>,
    /// Receipts whose request key a conflict or a stuck receipt shows. Sorted.
    pub keys: Vec<u32>,
    /// Receipts sharing a (scope, request key), each group in arrival order.
    pub shared_keys: Vec<Vec<u32>>,
    /// The receipts of `shared_keys`, ascending: looked up for each receipt
    /// read again (scanning the groups each time grew with their number).
    sharing: Vec<u32>,
    /// Stuck receipts, by id.
    pub stuck: Vec<u32>,
}

impl RereadList {
    pub fn new(
        texts: Vec<(u32, u16)>,
        keys: Vec<u32>,
        shared_keys: Vec<Vec<u32>>,
        stuck: Vec<u32>,
    ) -> Self {
        let mut sharing: Vec<u32> = shared_keys.iter().flatten().copied().collect();
        sharing.sort_unstable();
        RereadList {
            texts,
            keys,
            shared_keys,
            sharing,
            stuck,
        }
    }

    /// True when receipt `index` shares its (scope, request key).
    pub fn shares_key(&self, index: u32) -> bool {
        self.sharing.binary_search(&index).is_ok()
    }

    /// Every receipt to read again, ascending.
    pub fn indices(&self) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .texts
            .iter()
            .map(|t| t.0)
            .chain(self.keys.iter().copied())
            .chain(self.sharing.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Texts read again for the rules (see [`RereadList`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RereadValues {
    pub texts: Texts,
    keys: HashMap<u32, String>,
    /// SHA-256 of the receipts that share a key (on a legacy table, of
    /// nearly every receipt: 32 bytes each, not 64 hex digits).
    digests: HashMap<u32, [u8; 32]>,
}

impl RereadValues {
    /// The request keys the store kept while reading.
    pub fn new(store: &FactStore) -> Self {
        let mut d = Self::default();
        for (id, key) in &store.request_keys {
            if let Some(i) = store.index_of(*id) {
                d.keys.insert(i, key.to_string());
            }
        }
        d
    }

    /// Records the request key of receipt `index`.
    pub fn set_key(&mut self, index: u32, key: String) {
        self.keys.insert(index, key);
    }

    /// The request key of a receipt (when it has one and it was read).
    pub fn key(&self, index: u32) -> Option<&str> {
        self.keys.get(&index).map(String::as_str)
    }

    pub fn digest(&self, index: u32) -> Option<[u8; 32]> {
        self.digests.get(&index).copied()
    }

    /// Takes what `needs` asks of receipt `index` from its re-read `receipt`
    /// (inspected with the same settings). A receipt whose fields no longer
    /// match its facts supplies no texts.
    pub fn supply(&mut self, store: &FactStore, needs: &RereadList, index: u32, receipt: &Receipt) {
        self.put(index, Self::supplied(store, needs, index, receipt));
    }

    /// What [`RereadValues::supply`] takes of a receipt, on any thread: a reading
    /// again on several connections keeps this much of each receipt until
    /// it is put in, not the whole receipt.
    pub fn supplied(
        store: &FactStore,
        needs: &RereadList,
        index: u32,
        receipt: &Receipt,
    ) -> RereadReceipt {
        let from = needs.texts.partition_point(|t| t.0 < index);
        let wanted = needs.texts[from..].iter().take_while(|t| t.0 == index);
        let texts = wanted
            .filter_map(|&(_, pos)| {
                let fields = store.fields_at(index);
                let f = &fields[pos as usize];
                let name = store.keys.name(f.key());
                let (_, v) = receipt.visitor.0.iter().find(|(k, v)| {
                    k == name
                        && hash::str(hash::SEED_VALUE, v) == f.value()
                        && store.random.str(v) as u32 == f.check()
                })?;
                Some((pos, v.as_str().into()))
            })
            .collect();
        // (A receipt's digest is the hex of its payload's SHA-256.)
        let mut digest = [0u8; 32];
        let digest = (needs.shares_key(index)
            && hex::decode_to_slice(&receipt.digest, &mut digest).is_ok())
        .then_some(digest);
        RereadReceipt {
            key: receipt.request_key.clone(),
            digest,
            texts,
        }
    }

    /// Puts in what [`RereadValues::supplied`] took of receipt `index`.
    pub fn put(&mut self, index: u32, supplied: RereadReceipt) {
        if let Some(key) = supplied.key {
            self.keys.insert(index, key);
        }
        if let Some(digest) = supplied.digest {
            self.digests.insert(index, digest);
        }
        for (pos, text) in supplied.texts {
            self.texts.insert((index, pos), text);
        }
    }
}

/// What a receipt read again supplies of what [`RereadList`] asks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RereadReceipt {
    key: Option<String>,
    digest: Option<[u8; 32]>,
    texts: Vec<(u16, Box<str>)>,
}

/// What the rules will need to read again from the database.
pub fn needs(store: &FactStore, conflict_rows: &[RawConflict], settings: &Settings) -> RereadList {
    needs_keyed(store, &conflicts::keyed(store), conflict_rows, settings)
}

/// [`needs`], given the receipts' (scope, request key) hashes
/// ([`conflicts::keyed`]), which the engine keeps for later readings.
pub fn needs_keyed(
    store: &FactStore,
    keyed: &[(u64, u32)],
    conflict_rows: &[RawConflict],
    settings: &Settings,
) -> RereadList {
    let texts = text_needs(store);
    let shared_keys = conflicts::shared_in(store, keyed);
    let stuck = stuck::stuck_indices(store, settings);
    let mut keys = conflicts::originals(store, &shared_keys, conflict_rows);
    keys.extend(
        stuck
            .iter()
            .filter(|&&i| store.receipts[i as usize].has_key()),
    );
    // Keys kept while reading need not be read again.
    keys.retain(|&i| {
        let r = &store.receipts[i as usize];
        r.has_key() && !store.request_keys.contains_key(&r.id)
    });
    keys.sort_unstable();
    keys.dedup();
    RereadList::new(texts, keys, shared_keys, stuck)
}

/// The keys of [`text_needs`] of receipt `i`: one for each field with two
/// tokens or more, with its position.
fn edit_keys(store: &FactStore, i: usize, out: &mut Vec<(u64, u16)>) {
    out.clear();
    let r = &store.receipts[i];
    let fields = store.fields_of(r);
    if !fields.iter().any(|f| f.tokens() >= 2) {
        return;
    }
    let mut pairs = [0u64; 32];
    let many = fields.len() > pairs.len();
    let pair_at = |p: usize| store.pair(&fields[p]);
    let mut sum = 0u64;
    for (p, f) in fields.iter().enumerate() {
        let pair = store.pair(f);
        if !many {
            pairs[p] = pair;
        }
        sum = sum.wrapping_add(pair);
    }
    let scope = u64::from(r.scope);
    for (p, f) in fields.iter().enumerate() {
        if f.tokens() >= 2 {
            let pair = if many { pair_at(p) } else { pairs[p] };
            let k = hash::combine(
                hash::combine(scope, sum.wrapping_sub(pair)),
                u64::from(f.key()),
            );
            out.push((k, p as u16));
        }
    }
}

/// The values an edit check may compare: an edited copy and its anchor have
/// the same scope and the same fields but one, whose key they share, so they
/// share the hash of (scope, the other fields, that key). Among receipts that
/// share it, the values that differ and whose sizes allow an edit are needed.
fn text_needs(store: &FactStore) -> Vec<(u32, u16)> {
    let keys_of = |i: usize, out: &mut Vec<(u64, u16)>| edit_keys(store, i, out);
    let n = store.receipts.len();
    // Keys seen twice or more: a bitmap of key hashes marks every key seen,
    // and the keys met again (with a few false ones) mark a second, smaller
    // one. Testing a bit is much cheaper than looking keys up in a table.
    let count: usize = store.receipts.iter().map(|r| r.nfields as usize).sum();
    let bits = (count.max(1) * 8)
        .next_power_of_two()
        .clamp(1 << 16, 1 << 30);
    let shift = 64 - bits.trailing_zeros();
    let seen: Vec<AtomicU64> = (0..bits / 64).map(|_| AtomicU64::new(0)).collect();
    let at = |k: u64| {
        let bit = (k >> shift) as usize;
        (bit >> 6, 1u64 << (bit & 63))
    };
    // The keys met again (each as often as met again, besides the false ones).
    let repeated: Vec<u64> = (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .fold(
            || (Vec::new(), Vec::new()),
            |(mut repeated, mut buf): (Vec<u64>, Vec<(u64, u16)>), i| {
                keys_of(i, &mut buf);
                for &(k, _) in buf.iter() {
                    let (word, mask) = at(k);
                    if seen[word].fetch_or(mask, Ordering::Relaxed) & mask != 0 {
                        repeated.push(k);
                    }
                }
                (repeated, buf)
            },
        )
        .map(|(repeated, _)| repeated)
        .flatten_iter()
        .collect();
    drop(seen);
    if repeated.is_empty() {
        return Vec::new();
    }
    // They are few: a bitmap of them a few times their number stays in the
    // cache while every key is tested against it (a key it holds falsely has
    // a run of its own below, which needs nothing).
    let again_bits = (repeated.len() * 32)
        .next_power_of_two()
        .clamp(1 << 16, bits);
    let again_shift = 64 - again_bits.trailing_zeros();
    let mut again = vec![0u64; again_bits / 64];
    for k in repeated {
        let bit = (k >> again_shift) as usize;
        again[bit >> 6] |= 1u64 << (bit & 63);
    }
    let is_again = |k: u64| {
        let bit = (k >> again_shift) as usize;
        again[bit >> 6] & (1u64 << (bit & 63)) != 0
    };
    let mut members: Vec<Member> = (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .fold(
            || (Vec::new(), Vec::new()),
            |(mut found, mut buf): (Vec<Member>, Vec<(u64, u16)>), i| {
                keys_of(i, &mut buf);
                found.extend(
                    buf.iter()
                        .filter(|(k, _)| is_again(*k))
                        .map(|&(k, p)| (k, i as u32, p)),
                );
                (found, buf)
            },
        )
        .map(|(found, _)| found)
        .flatten_iter()
        .collect();
    drop(again);
    members.par_sort_unstable();
    needed_texts(store, &members)
}

/// (key, receipt, field position)
type Member = (u64, u32, u16);

/// The texts needed among `members` (sorted): in each run of one key, the
/// values that differ from another's and whose sizes allow an edit.
fn needed_texts(store: &FactStore, members: &[Member]) -> Vec<(u32, u16)> {
    let field = |m: &(u64, u32, u16)| store.fields_at(m.1)[m.2 as usize];
    // Runs on every core: they are hundreds of thousands at a million rows.
    let mut out: Vec<(u32, u16)> = members
        .par_chunk_by(|a, b| a.0 == b.0)
        .flat_map_iter(|run| {
            let every = run.len() > 64;
            run.iter()
                .enumerate()
                .filter(move |&(x, a)| {
                    every || {
                        let fa = field(a);
                        let named = near::names_the_sender(store.fields_at(a.1), a.2 as usize);
                        run.iter().enumerate().any(|(y, b)| {
                            let fb = field(b);
                            x != y && !fa.same_value(&fb) && near::edit_needs_texts(&fa, &fb, named)
                        })
                    }
                })
                .map(|(_, a)| (a.1, a.2))
        })
        .collect();
    out.par_sort_unstable();
    out.dedup();
    out
}

/// Runs every check over the facts; `details` holds what `needs` asked for.
pub fn analyze_facts(
    store: &FactStore,
    conflict_rows: &[RawConflict],
    needs: &RereadList,
    details: &RereadValues,
    settings: &Settings,
) -> Triage {
    let bots = bots::suspected_bots(store, settings);
    analyze_facts_with(store, conflict_rows, needs, details, settings, bots)
}

/// [`analyze_facts`] with the suspected bots and their groups already found
/// ([`bots::suspected_bots`] needs no text read again).
pub fn analyze_facts_with(
    store: &FactStore,
    conflict_rows: &[RawConflict],
    needs: &RereadList,
    details: &RereadValues,
    settings: &Settings,
    (suspected_bots, bot_groups): (Vec<ReceiptId>, Vec<Arc<model::BotGroup>>),
) -> Triage {
    let ctx = near::Ctx {
        store,
        texts: &details.texts,
    };
    let conflicts = conflicts::conflicts(store, &needs.shared_keys, conflict_rows, details);
    let duplicates = groups::duplicate_groups(ctx, settings);
    let triage = Triage {
        duplicates: each_shared(duplicates),
        conflicts: each_shared(conflicts),
        stuck: stuck::stuck(store, &needs.stuck, details, settings),
        next_stuck_ms: stuck::next_stuck_ms(store, 0..store.receipts.len() as u32, settings),
        suspected_bots,
        bot_groups,
        damaged: store.damaged.clone(),
    };
    erased::keep_groups(store, &triage).unwrap_or(triage)
}

/// Each item in an `Arc` of its own, in a vector of just their number.
/// Collected in place, the vector of `Arc`s would keep the room its items
/// took: for a million receipts' duplicate groups, 10 MB for 0.8 MB of
/// pointers, for as long as the triage lives.
pub(crate) fn each_shared<T>(items: Vec<T>) -> Vec<Arc<T>> {
    let mut shared = Vec::with_capacity(items.len());
    shared.extend(items.into_iter().map(Arc::new));
    shared
}

#[cfg(test)]
mod tests {
    #[test]
    fn needs_know_which_receipts_share_a_key_and_read_each_once() {
        let needs = super::RereadList::new(
            vec![(7, 0), (3, 1)],
            vec![4],
            vec![vec![9, 2], vec![7, 5]],
            vec![],
        );
        let sharing: Vec<u32> = (0..12).filter(|&i| needs.shares_key(i)).collect();
        assert_eq!(sharing, vec![2, 5, 7, 9]);
        assert_eq!(needs.indices(), vec![2, 3, 4, 5, 7, 9]);
        assert!(!super::RereadList::default().shares_key(0));
    }

    #[test]
    fn shared_items_keep_no_room_of_their_own_vector() {
        let items: Vec<[u64; 12]> = (0..1000).map(|i| [i; 12]).collect();
        let shared = super::each_shared(items);
        assert_eq!((shared.len(), shared.capacity()), (1000, 1000));
        assert_eq!(shared[999][11], 999);
    }

    use super::*;
    use crate::demo::{DemoOptions, generate};
    use crate::model::RowSink;
    use crate::storage::{Access, Connections, Location, open_database};

    /// [`text_needs`] the plain way: every key counted in a table.
    fn text_needs_by_table(store: &FactStore) -> Vec<(u32, u16)> {
        let mut by_key: HashMap<u64, Vec<(u32, u16)>> = HashMap::new();
        let mut buf = Vec::new();
        for i in 0..store.receipts.len() {
            edit_keys(store, i, &mut buf);
            for &(k, p) in &buf {
                by_key.entry(k).or_default().push((i as u32, p));
            }
        }
        let mut members: Vec<Member> = by_key
            .into_iter()
            .filter(|(_, v)| v.len() >= 2)
            .flat_map(|(k, v)| v.into_iter().map(move |(i, p)| (k, i, p)))
            .collect();
        members.sort_unstable();
        needed_texts(store, &members)
    }

    #[test]
    fn the_bitmaps_find_the_texts_a_table_of_keys_finds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let now_ms = 1_795_947_330_000;
        for (receipts, seed) in [(0, 1), (40, 2), (6000, 3)] {
            generate(
                &Location::File(path.clone()),
                &DemoOptions {
                    receipts,
                    seed,
                    now_ms,
                },
            )
            .unwrap();
            let db = open_database(Location::File(path.clone()), Access::ReadOnly).unwrap();
            let settings = Settings::new(now_ms);
            let mut store = FactStore::new();
            let inspector = Inspector::new(&settings, store.random);
            let mut raw: Vec<RawReceipt> = Vec::new();
            let mut session = db.begin_read(Connections::One).unwrap();
            session
                .receipts(None, &mut [&mut raw as &mut dyn RowSink], &mut |_| {})
                .unwrap();
            session.end().unwrap();
            let rows: Vec<Row<'_>> = raw.iter().map(RawReceipt::row).collect();
            ingest(&mut store, &inspector, &rows);
            store.finish();
            let found = text_needs(&store);
            assert_eq!(found, text_needs_by_table(&store), "{receipts} receipts");
            assert!(receipts < 6000 || found.len() > 10, "{}", found.len());
            drop(db);
            std::fs::remove_file(&path).unwrap();
        }
    }
}
