//! Every row of a receipts database, read whole through the storage boundary
//! (what `storage::load` gave before the engine became private): the tests
//! compare it with what they wrote, or hand it to an engine of their own.
#![allow(dead_code)]

use std::collections::HashMap;

use receipt_review::model::{RawConflict, RawReceipt, ReceiptId};
use receipt_review::storage::{Connections, CountedTable, Storage, StorageError, Tally};

/// Everything triage reads from a database, held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// Every column, ascending by id.
    pub receipts: Vec<RawReceipt>,
    /// With their payloads, ascending by id; empty when there is no usable
    /// `key_conflicts`.
    pub conflicts: Vec<RawConflict>,
    /// Replays per receipt; empty when there is no usable `replays`.
    pub replays: HashMap<ReceiptId, u32>,
    /// All replay rows, including any whose receipt id is not an integer.
    pub replay_total: u64,
    /// Exact copies absorbed per receipt; empty when there is no usable
    /// `absorbed`.
    pub absorbed: HashMap<ReceiptId, u32>,
    /// All absorbed rows, including any whose receipt id is not an integer.
    pub absorbed_total: u64,
}

/// Reads every receipt (every column), key conflict (with its payload),
/// replay and absorbed copy in one read of one state of `db`.
pub fn load(db: &dyn Storage) -> Result<Loaded, StorageError> {
    let mut session = db.begin_read(Connections::One)?;
    // A reading leaves `updated_at` out: the ids it found are read again
    // with every column.
    let mut read: Vec<RawReceipt> = Vec::new();
    session.receipts(None, &mut [&mut read], &mut |_| {})?;
    let mut ids: Vec<ReceiptId> = read.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut receipts: Vec<RawReceipt> = Vec::new();
    session.receipts_by_id(&ids, &mut [&mut receipts], &mut |_| {})?;
    receipts.sort_by_key(|r| r.id);
    assert_eq!(
        receipts.len(),
        read.len(),
        "the rows read by id are the rows read"
    );
    let mut conflicts = session.conflict_rows(None)?;
    for conflict in &mut conflicts {
        conflict.payload = db.conflict_payload(conflict.id)?.unwrap_or_default();
    }
    let mut replays = Tally::new(CountedTable::Replays);
    session.tally(&mut replays)?;
    let mut absorbed = Tally::new(CountedTable::Absorbed);
    session.tally(&mut absorbed)?;
    session.end()?;
    Ok(Loaded {
        receipts,
        conflicts,
        replays: replays.per_receipt,
        replay_total: replays.total,
        absorbed: absorbed.per_receipt,
        absorbed_total: absorbed.total,
    })
}
