//! The items' receipts made compact as they are read, one sink per
//! connection (see [`ReadSession::receipts_by_id`]).
//!
//! [`ReadSession::receipts_by_id`]: crate::storage::ReadSession::receipts_by_id

use std::collections::HashMap;

use super::receipts::CompactReceipts;
use crate::model::{ReceiptId, Row, RowSink};
use crate::triage::{Inspector, Scratch};

/// What the reading that checked a receipt whole knew of it: its
/// fingerprint with its keyed check (equal for exact copies, which have the
/// same visitor fields), and whether a honeypot field was filled.
pub type CheckedFingerprint = ((u64, u32), bool);

/// Makes the good receipts it receives compact, inspecting each on the thread
/// that read it. `known` gives the [`CheckedFingerprint`] of a receipt checked whole
/// in the same state of the database: an exact copy of a receipt this sink
/// heard before takes that one's fields, and its payload is not checked again.
pub struct CompactSink<'a> {
    inspector: &'a Inspector,
    known: &'a (dyn Fn(ReceiptId) -> Option<CheckedFingerprint> + Sync),
    compact: CompactReceipts,
    scratch: Scratch,
    /// The first receipt of each fingerprint read whole by this sink.
    first_of: HashMap<(u64, u32), ReceiptId>,
}

impl<'a> CompactSink<'a> {
    pub fn new(
        inspector: &'a Inspector,
        known: &'a (dyn Fn(ReceiptId) -> Option<CheckedFingerprint> + Sync),
        room: usize,
    ) -> Self {
        Self {
            inspector,
            known,
            compact: CompactReceipts::for_receipts(room),
            scratch: Scratch::default(),
            first_of: HashMap::new(),
        }
    }

    pub fn into_compact(self) -> CompactReceipts {
        self.compact
    }
}

impl RowSink for CompactSink<'_> {
    fn row(&mut self, row: &Row<'_>) {
        let fingerprint = (self.known)(row.id);
        if let Some((print, honeypot)) = fingerprint
            && let Some(&of) = self.first_of.get(&print)
            && let Some(meta) = Inspector::row_meta(row)
            && self.compact.push_copy(&meta, honeypot, of)
        {
            return;
        }
        if let Ok(r) = self.inspector.receipt_ref(row, &mut self.scratch) {
            self.compact.push(&r);
            if let Some((print, _)) = fingerprint {
                self.first_of.entry(print).or_insert(r.meta.id);
            }
        }
    }
}
