//! Undo, as the operator did it: the operator's last step is reopened as one
//! step. A single decision is reopened at once; a step that reaches further
//! (a bulk decision of many items, a decision on a bot group of many
//! receipts) is reopened only once the operator, told how far it reaches,
//! said yes ([`UndoOutcome::Ask`], then again with
//! [`UndoRequest::confirmed`]).
//!
//! Each item is guarded as [`super::undo_last`] guards one: an item that
//! another operator decided since (or that was reopened since) is left as it
//! is, and the answer says which. Everything is one short write transaction.

use super::decide::{DecideError, Undone, Writable, append_reopening, check_operator};
use crate::model::{BatchRow, Kind, LogEntry, Millis};
use crate::storage::{Storage, WriteTx};

/// A step whose undo the operator is asked about first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wide {
    /// Decisions taken as one step (the bulk `D`): `decisions` of them still
    /// stand and would be reopened; `left` were decided (or reopened) since
    /// and would be left as they are.
    Batch {
        batch: i64,
        decisions: usize,
        left: usize,
    },
    /// One decision that covers many receipts (a bot group).
    Group {
        entry: i64,
        item: String,
        receipts: usize,
    },
}

impl Wide {
    /// True when `confirmed` is the same step (its counts may have moved:
    /// each item is guarded again when it is reopened).
    fn same_step(&self, confirmed: Option<&Wide>) -> bool {
        match (self, confirmed) {
            (Wide::Batch { batch: a, .. }, Some(Wide::Batch { batch: b, .. })) => a == b,
            (Wide::Group { entry: a, .. }, Some(Wide::Group { entry: b, .. })) => a == b,
            _ => false,
        }
    }
}

/// An operator's undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoRequest {
    pub operator: String,
    pub now_ms: Millis,
    /// The step the operator agreed to reopen when asked; `None` when not
    /// asked yet.
    pub confirmed: Option<Wide>,
}

/// What a step's undo wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchUndone {
    /// The step reopened (its first row's id).
    pub batch: i64,
    /// One per decision reopened, in append order.
    pub undone: Vec<Undone>,
    /// For each item left as it is: the entry that stands for it now.
    pub left: Vec<LogEntry>,
}

/// What [`undo`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UndoOutcome {
    /// The operator has no decision to undo.
    Nothing,
    /// Nothing written: the operator is to be asked about this step first.
    Ask(Wide),
    /// One decision reopened.
    One(Box<Undone>),
    /// A step of several decisions reopened as one step.
    Batch(BatchUndone),
}

/// Undoes the operator's last step (see the module's notes): their latest
/// decision still in force, with the rest of its batch when it was one of
/// a bulk decision.
pub fn undo(storage: &mut dyn Storage, req: &UndoRequest) -> Result<UndoOutcome, DecideError> {
    let operator = check_operator(&req.operator)?;
    let writable = Writable::of(storage.source());
    let mut tx = storage.begin_write()?;
    if !tx.log_exists()? {
        return Ok(UndoOutcome::Nothing);
    }
    tx.ensure_log()?;
    let target = tx.latest_standing_decision_by(operator)?;
    // A later decision of this operator, not in force and not reopened, has
    // been overtaken: undo never reaches past it to an older step, unless it
    // is a row of the same step (then it is one of the items left).
    let overtaken = tx.latest_unreopened_decision_by(operator, target.as_ref().map(|t| t.id))?;
    if let Some(overtaken) = overtaken
        && (overtaken.batch.is_none() || overtaken.batch != target.as_ref().and_then(|t| t.batch))
        && let Some(latest) = tx.latest_entry(&overtaken.item)?
        && latest.operator != operator
    {
        return Err(DecideError::Superseded {
            id: latest.id,
            item: latest.item,
            operator: latest.operator,
            decided_at: latest.decided_at,
            decision: latest.decision,
        });
    }
    let Some(target) = target else {
        return Ok(UndoOutcome::Nothing);
    };
    let confirmed = req.confirmed.as_ref();
    if let Some(batch) = target.batch {
        let (standing, left) = step_rows(&mut *tx, batch)?;
        let wide = Wide::Batch {
            batch,
            decisions: standing.len(),
            left: left.len(),
        };
        if !wide.same_step(confirmed) {
            return Ok(UndoOutcome::Ask(wide));
        }
        let as_batch = standing.len() >= 2;
        let mut first = None;
        let mut undone = Vec::new();
        for row in standing {
            let step = as_batch.then(|| first.map_or(BatchRow::First, BatchRow::Of));
            let u = append_reopening(&mut *tx, &writable, row, operator, None, req.now_ms, step)?;
            if as_batch {
                first.get_or_insert(u.entry.id);
            }
            undone.push(u);
        }
        tx.commit()?;
        return Ok(UndoOutcome::Batch(BatchUndone {
            batch,
            undone,
            left,
        }));
    }
    if target.kind == Kind::Bot && target.receipt_ids.len() > 1 {
        let wide = Wide::Group {
            entry: target.id,
            item: target.item.clone(),
            receipts: target.receipt_ids.len(),
        };
        if !wide.same_step(confirmed) {
            return Ok(UndoOutcome::Ask(wide));
        }
    }
    let undone = append_reopening(
        &mut *tx, &writable, target, operator, None, req.now_ms, None,
    )?;
    tx.commit()?;
    Ok(UndoOutcome::One(Box::new(undone)))
}

/// A step's decisions: those still in force (the latest entry of their
/// item), and for the others the entry that stands now.
fn step_rows(
    tx: &mut dyn WriteTx,
    batch: i64,
) -> Result<(Vec<LogEntry>, Vec<LogEntry>), DecideError> {
    let mut standing = Vec::new();
    let mut left = Vec::new();
    for row in tx.batch_entries(batch)? {
        if row.is_reopening() {
            continue;
        }
        match tx.latest_entry(&row.item)? {
            Some(latest) if latest.id == row.id => standing.push(row),
            Some(latest) => left.push(latest),
            // Not reachable: the row itself is an entry of its item.
            None => left.push(row),
        }
    }
    Ok((standing, left))
}
