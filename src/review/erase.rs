//! An erasure as the review log records it: in one write transaction, each
//! receipt's visitor data becomes its tombstone (see docs/erasure.md) and
//! one `erasure` row names them all; then the old bytes are scrubbed from the
//! database's files. Either every receipt is erased and logged, or none is.

use crate::model::erasure::Tombstone;
use crate::model::{Decision, Kind, LogEntry, Millis, NewEntry, ReceiptId, time};
use crate::storage::{Erasing, LogError, Scrubbed, Storage, StorageError};

/// One receipt to erase, with the receipts of its duplicate group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErasedReceipt {
    pub id: ReceiptId,
    /// Its duplicate group's receipts when erased (itself included), or none.
    pub with: Vec<ReceiptId>,
}

/// An erasure to record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EraseRequest {
    pub receipts: Vec<ErasedReceipt>,
    pub operator: String,
    /// Why (the visitor's request, the retention policy): kept in the log.
    pub note: Option<String>,
    pub now_ms: Millis,
}

/// What [`erase`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Erased {
    /// The log row, as stored.
    pub entry: LogEntry,
    /// Whether the old bytes left the files now.
    pub scrubbed: Scrubbed,
}

#[derive(Debug, thiserror::Error)]
pub enum EraseError {
    /// Nothing to erase.
    #[error("no receipt to erase")]
    Nothing,
    /// A receipt is not in the database (rows are never deleted: a number
    /// that was never handed out).
    #[error("no receipt #{0}")]
    NoSuchReceipt(ReceiptId),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// The item id of an erasure: `erase:<smallest receipt id>`.
pub fn erasure_item(receipt_ids: &[ReceiptId]) -> Option<String> {
    receipt_ids
        .iter()
        .min()
        .map(|id| format!("{}:{id}", Kind::Erasure.item_prefix()))
}

/// Erases every receipt of `req` and appends one `erasure` row, in one
/// transaction; then scrubs (see [`Storage::scrub`]).
pub fn erase(storage: &mut dyn Storage, req: &EraseRequest) -> Result<Erased, EraseError> {
    let entry = record(storage, req)?;
    let scrubbed = scrub(storage);
    Ok(Erased { entry, scrubbed })
}

/// [`erase`] without the scrub: for erasures made one after another (a
/// retention's parts), whose old bytes are scrubbed once at the end.
pub fn record(storage: &mut dyn Storage, req: &EraseRequest) -> Result<LogEntry, EraseError> {
    let at = time::format_rfc3339(req.now_ms);
    let operator = req.operator.trim();
    let mut tx = storage.begin_write()?;
    tx.ensure_log()?;
    // What another erasure took first (two servers' retention, two
    // operators) is left out of this one's row.
    let mut ids: Vec<ReceiptId> = Vec::with_capacity(req.receipts.len());
    for receipt in &req.receipts {
        let tombstone = Tombstone {
            at: at.clone(),
            by: operator.to_string(),
            with: receipt.with.clone(),
        };
        match tx.erase_receipt(receipt.id, &tombstone.payload())? {
            Erasing::Erased => ids.push(receipt.id),
            Erasing::AlreadyErased => {}
            Erasing::NoSuchReceipt => return Err(EraseError::NoSuchReceipt(receipt.id)),
        }
    }
    ids.sort_unstable();
    ids.dedup();
    // Nothing left to erase: nothing written (the transaction is dropped).
    let item = erasure_item(&ids).ok_or(EraseError::Nothing)?;
    let note = req.note.as_deref().map(str::trim).filter(|n| !n.is_empty());
    let entry = tx.append(&NewEntry {
        item: &item,
        kind: Kind::Erasure,
        decision: Decision::Erased,
        operator,
        decided_at: &at,
        receipt_ids: &ids,
        note,
        reopens: None,
        state: None,
        kept: None,
        batch: None,
    })?;
    tx.commit()?;
    Ok(entry)
}

/// The old bytes of what was erased, out of the database's files (see
/// [`Storage::scrub`]). The erasure stands whatever the scrub manages; what
/// it could not do is said.
pub fn scrub(storage: &mut dyn Storage) -> Scrubbed {
    storage.scrub().unwrap_or_else(|e: StorageError| {
        Scrubbed::NotNow(crate::sanitize::inline(&e.to_string(), 300))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_erasure_is_named_by_its_smallest_receipt() {
        assert_eq!(erasure_item(&[1908, 1907]).as_deref(), Some("erase:1907"));
        assert_eq!(erasure_item(&[]), None);
    }
}
