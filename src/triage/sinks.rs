//! What the analysis makes of the rows a reading hands over, one
//! [`RowSink`] per connection that reads: the facts of every row
//! ([`FactSink`]), or receipts inspected in full ([`ReceiptSink`]). A sink
//! that receives a batch at a time inspects it on every core; one that receives
//! rows one by one is the only one on its thread.

use rayon::prelude::*;

use super::ingest::{Ingest, Part};
use super::inspect::{Inspector, Scratch};
use super::model::Receipt;
use crate::model::{Row, RowSink, RowSource};

/// Inspects rows into facts (see [`Ingest`]): the parts of all sinks, in the
/// order of the sinks, are what [`Ingest::finish`] appends.
pub struct FactSink<'i, 'n> {
    ingest: &'i Ingest<'n>,
    parts: Vec<Part>,
    scratch: Scratch,
    /// Rows the first part is sized for.
    rows_hint: usize,
}

impl<'i, 'n> FactSink<'i, 'n> {
    /// One sink per connection; each row it receives is inspected on its own
    /// thread, with scratch kept from row to row.
    pub fn new(ingest: &'i Ingest<'n>, rows_hint: usize) -> Self {
        Self {
            ingest,
            parts: Vec::new(),
            scratch: Scratch::default(),
            rows_hint,
        }
    }

    pub fn into_parts(self) -> Vec<Part> {
        self.parts
    }
}

impl RowSink for FactSink<'_, '_> {
    fn row(&mut self, row: &Row<'_>) {
        if self.parts.is_empty() {
            self.parts.push(Part::with_capacity(self.rows_hint));
        }
        let part = self.parts.last_mut().expect("a part");
        self.ingest.inspect_row(part, row, &mut self.scratch);
    }

    fn rows(&mut self, rows: &dyn RowSource) {
        let parts = self.ingest.inspect_in_chunks(rows);
        self.parts.extend(parts);
    }
}

/// Inspects rows in full into [`Receipt`]s, of which it keeps what `keep`
/// takes (on the thread that inspected it), in the order read. Damaged rows
/// are left out.
pub struct ReceiptSink<'k, T> {
    inspector: &'k Inspector,
    keep: &'k (dyn Fn(Receipt) -> Option<T> + Sync),
    kept: Vec<T>,
    scratch: Scratch,
    buf: String,
}

impl<'k, T: Send> ReceiptSink<'k, T> {
    pub fn new(inspector: &'k Inspector, keep: &'k (dyn Fn(Receipt) -> Option<T> + Sync)) -> Self {
        Self {
            inspector,
            keep,
            kept: Vec::new(),
            scratch: Scratch::default(),
            buf: String::new(),
        }
    }

    pub fn into_kept(self) -> Vec<T> {
        self.kept
    }
}

impl<T: Send> RowSink for ReceiptSink<'_, T> {
    fn row(&mut self, row: &Row<'_>) {
        if let Ok(r) = self.inspector.receipt(row, &mut self.scratch)
            && let Some(t) = (self.keep)(r)
        {
            self.kept.push(t);
        }
    }

    fn rows(&mut self, rows: &dyn RowSource) {
        let (inspector, keep) = (self.inspector, self.keep);
        if rows.len() < 64 {
            let mut buf = std::mem::take(&mut self.buf);
            for i in 0..rows.len() {
                self.row(&rows.row(i, &mut buf));
            }
            self.buf = buf;
            return;
        }
        let found: Vec<T> = (0..rows.len())
            .into_par_iter()
            .with_min_len(64)
            .map_init(
                || (Scratch::default(), String::new()),
                |(s, buf), i| inspector.receipt(&rows.row(i, buf), s).ok().and_then(keep),
            )
            .flatten()
            .collect();
        self.kept.extend(found);
    }
}
