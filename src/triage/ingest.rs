//! Inspecting many rows, on any number of threads, into one [`FactStore`]: each
//! thread fills its own [`Part`], and [`Ingest::finish`] appends the parts in
//! order.

use std::ops::Range;
use std::sync::RwLock;

use super::facts::{DamagedRow, FactStore, FieldFact, ReceiptFact, Table};
use super::inspect::{Inspector, Interners, Scratch};
use super::model::Damaged;
use crate::model::erasure::Tombstone;
use crate::model::{ReceiptId, Row, RowSource};

/// Inspects rows in parallel into a [`FactStore`]: facts of good receipts, in the
/// order given, and damaged rows.
pub fn ingest(store: &mut FactStore, inspector: &Inspector, rows: &[Row<'_>]) {
    ingest_by(store, inspector, rows);
}

/// [`ingest`] of the rows of any [`RowSource`].
pub fn ingest_by<S: RowSource + ?Sized>(store: &mut FactStore, inspector: &Inspector, rows: &S) {
    let ingest = Ingest::begin(store, inspector);
    let parts = ingest.inspect_in_chunks(rows);
    ingest.finish(store, parts);
}

/// Inspecting rows on any number of threads into one [`FactStore`]: each thread
/// fills its own [`Part`] (names are interned in tables shared by all), and
/// [`Ingest::finish`] appends the parts in the order given.
pub struct Ingest<'i> {
    inspector: &'i Inspector,
    capture: super::facts::Capture,
    keys: RwLock<Table>,
    scopes: RwLock<Table>,
}

/// Parts of at least this many rows are appended to the store on every core.
const PARALLEL_COPY: usize = 1 << 16;

/// The facts of some rows, in the order inspected.
#[derive(Debug, Default)]
pub struct Part {
    receipts: Vec<ReceiptFact>,
    fields: Vec<FieldFact>,
    damaged: Vec<(Damaged, DamagedRow)>,
    keys: Vec<(i64, Box<str>)>,
    erased: Vec<(ReceiptId, Tombstone)>,
}

impl Part {
    pub fn with_capacity(rows: usize) -> Self {
        Self {
            receipts: Vec::with_capacity(rows),
            fields: Vec::with_capacity(rows * 6),
            damaged: Vec::new(),
            keys: Vec::new(),
            erased: Vec::new(),
        }
    }

    /// Rows inspected: good and damaged.
    pub fn rows(&self) -> usize {
        self.receipts.len() + self.damaged.len()
    }
}

impl<'i> Ingest<'i> {
    /// Takes the name tables of `store` until [`Ingest::finish`].
    pub fn begin(store: &mut FactStore, inspector: &'i Inspector) -> Self {
        Self {
            inspector,
            capture: store.capture.clone(),
            keys: RwLock::new(std::mem::take(&mut store.keys)),
            scopes: RwLock::new(std::mem::take(&mut store.scopes)),
        }
    }

    /// Inspects rows `range` of `rows` into `part`; `s` and `buf` are the
    /// calling thread's, reused from call to call.
    pub fn inspect<S: RowSource + ?Sized>(
        &self,
        part: &mut Part,
        rows: &S,
        range: Range<usize>,
        s: &mut Scratch,
        buf: &mut String,
    ) {
        for i in range {
            self.inspect_row(part, &rows.row(i, buf), s);
        }
    }

    /// Inspects `rows` on every core, cut into chunks: their parts, in order.
    pub fn inspect_in_chunks<S: RowSource + ?Sized>(&self, rows: &S) -> Vec<Part> {
        use rayon::prelude::*;
        const CHUNK: usize = 512;
        let n = rows.len();
        (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(n);
                let mut part = Part::with_capacity(range.len());
                self.inspect(
                    &mut part,
                    rows,
                    range,
                    &mut Scratch::default(),
                    &mut String::new(),
                );
                part
            })
            .collect()
    }

    /// Inspects one row into `part` (see [`Ingest::inspect`]).
    pub fn inspect_row(&self, part: &mut Part, row: &Row<'_>, s: &mut Scratch) {
        let names = Interners {
            keys: &self.keys,
            scopes: &self.scopes,
        };
        match self.inspector.facts(row, s, &names, &mut part.fields) {
            Ok(f) => {
                if let Some(key) = row.request_key
                    && self.capture.wants(f.id, f.state, f.created_ms)
                {
                    part.keys.push((f.id, key.into()));
                }
                if let Some(tombstone) = s.tombstone.take() {
                    part.erased.push((f.id, tombstone));
                }
                part.receipts.push(f);
            }
            Err(d) => part.damaged.push((d, Inspector::damaged_row(row))),
        }
    }

    /// Gives the name tables back and appends the parts, in order.
    pub fn finish(self, store: &mut FactStore, parts: impl IntoIterator<Item = Part>) {
        store.keys = self.keys.into_inner().expect("names");
        store.scopes = self.scopes.into_inner().expect("names");
        for mut part in parts {
            if store.receipts.is_empty() && store.fields.is_empty() {
                // The first part of an empty store becomes its facts: a full
                // reading moves, rather than copies, a good share of them.
                std::mem::swap(&mut store.receipts, &mut part.receipts);
                std::mem::swap(&mut store.fields, &mut part.fields);
            }
            let base = store.fields.len() as u32;
            let shift = |mut r: ReceiptFact| {
                r.fields += base;
                r
            };
            if part.receipts.len() >= PARALLEL_COPY {
                // On every core: a large copy is mostly the kernel handing
                // over fresh pages (a hundred thousand at a million rows).
                use rayon::prelude::*;
                store.fields.par_extend(part.fields.par_iter().copied());
                store
                    .receipts
                    .par_extend(part.receipts.into_par_iter().map(shift));
            } else {
                store.fields.extend_from_slice(&part.fields);
                store.receipts.extend(part.receipts.into_iter().map(shift));
            }
            for (d, row) in part.damaged {
                store.damaged.push(d);
                store.damaged_rows.push(row);
            }
            store.request_keys.extend(part.keys);
            store.erased.extend(part.erased);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ReceiptState, Settings};
    use crate::triage::facts::NONE16;
    use crate::triage::hash;

    #[test]
    fn parts_are_appended_in_order_with_their_fields() {
        let part = |ids: Range<i64>| {
            let mut p = Part::default();
            for id in ids {
                p.receipts.push(ReceiptFact {
                    id,
                    created_ms: id,
                    fingerprint: 0,
                    fp_check: 0,
                    key_hash: 0,
                    fields: p.fields.len() as u32,
                    scope: 0,
                    key_check: 0,
                    nfields: 2,
                    body: NONE16,
                    state: ReceiptState::Completed,
                    flags: 0,
                });
                p.fields.push(FieldFact::new(1, id as u64, 0, 1, 1));
                p.fields.push(FieldFact::new(2, !(id as u64), 0, 1, 1));
            }
            p
        };
        // A large part (copied on every core) between two small ones.
        let n = PARALLEL_COPY as i64 + 5;
        let mut store = FactStore::new();
        let inspector = Inspector::new(&Settings::new(0), hash::Keyed::new());
        let ingest = Ingest::begin(&mut store, &inspector);
        ingest.finish(&mut store, [part(0..3), part(3..n), part(n..n + 2)]);
        assert_eq!(store.receipts.len() as i64, n + 2);
        for (k, r) in store.receipts.iter().enumerate() {
            assert_eq!(r.id, k as i64);
            let f = store.fields_of(r);
            assert_eq!((f[0].value(), f[1].value()), (r.id as u64, !(r.id as u64)));
        }
    }
}
