//! Several decisions taken as one step (the screen's bulk `D`): written in
//! one short write transaction, their rows marked as one batch (`batch` =
//! the id of the step's first row), so that an undo can reopen the step as
//! the operator took it.

use super::decide::{DecideError, DecisionRequest, Recorded, Writable, check_guard, record_in};
use crate::model::BatchRow;
use crate::storage::Storage;

/// What [`decide_many`] wrote.
#[derive(Debug)]
pub struct BatchRecorded {
    /// The id of the step's first row; `None` when fewer than two rows were
    /// written (a lone row is written on its own, as a single decision is).
    pub batch: Option<i64>,
    pub recorded: Vec<Recorded>,
    /// The requests refused, each with why (another operator decided the
    /// item first, its receipt changed, the request made no sense).
    pub refused: Vec<(String, DecideError)>,
}

/// True for a refusal of one request; false for a failure of the database,
/// which ends the whole step (nothing of it is written).
fn refuses_one(e: &DecideError) -> bool {
    matches!(
        e,
        DecideError::Invalid(_)
            | DecideError::AlreadyDecided { .. }
            | DecideError::NotInFlight { .. }
            | DecideError::ReceiptNotFound { .. }
            | DecideError::ReceiptsIsView
    )
}

/// Records `requests` as one step, in one write transaction: each guarded
/// as [`super::decide()`] guards one (a request refused is left out and said
/// so), the rows written marked as one batch. When the database fails
/// (busy, full, read-only), nothing is written.
pub fn decide_many(
    storage: &mut dyn Storage,
    requests: &[DecisionRequest],
) -> Result<BatchRecorded, DecideError> {
    let writable = Writable::of(storage.source());
    let mut tx = storage.begin_write()?;
    tx.ensure_log()?;
    let mut refused = Vec::new();
    // Which requests stand: a batch is only made of two rows or more.
    let mut standing = Vec::new();
    for req in requests {
        match check_guard(&mut *tx, req) {
            Ok(()) => standing.push(req),
            Err(e) if refuses_one(&e) => refused.push((req.item.clone(), e)),
            Err(e) => return Err(e),
        }
    }
    let as_batch = standing.len() >= 2;
    let mut first: Option<i64> = None;
    let mut recorded = Vec::new();
    for req in standing {
        let batch = as_batch.then(|| first.map_or(BatchRow::First, BatchRow::Of));
        match record_in(&mut *tx, &writable, req, batch) {
            Ok(r) => {
                if as_batch {
                    first.get_or_insert(r.entry.id);
                }
                recorded.push(r);
            }
            Err(e) if refuses_one(&e) => refused.push((req.item.clone(), e)),
            Err(e) => return Err(e),
        }
    }
    // Nothing written: not even the log is made (a rollback).
    if !recorded.is_empty() {
        tx.commit()?;
    }
    Ok(BatchRecorded {
        batch: first,
        recorded,
        refused,
    })
}
