//! One submission's work inside the writer's transaction: the protocol of
//! SPEC's intake server, on top of the store's claim / complete / fail.

use rusqlite::{OptionalExtension, params};

use crate::intake::store::{BulkWrite, Claim, StoreError, Submission};
use crate::model::time::format_rfc3339;
use crate::model::{Millis, ReceiptId, ReceiptState};

/// A checked submission, ready for the writer.
#[derive(Clone, Debug)]
pub struct Job {
    pub submission: Submission,
    pub at_ms: Millis,
    /// The hash of its visitor fields ([`crate::server::fingerprint`]);
    /// `None`: never absorbed.
    pub visitor: Option<u128>,
    /// The form's window for exact copies; 0: off.
    pub window_ms: Millis,
    /// No action: the receipt is completed in the same transaction.
    pub complete_now: bool,
}

/// What the writer did with a submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A new receipt, completed and committed: answer `response` (201).
    Stored { id: ReceiptId, response: String },
    /// A new receipt, committed `in_flight`: run the action.
    Claimed { id: ReceiptId },
    /// The same key and body as a completed receipt: its stored response
    /// (a `replays` row).
    Replayed {
        id: ReceiptId,
        response: Option<String>,
    },
    /// The same key and body while the first is still in flight (or was
    /// failed meanwhile): nothing written.
    InFlight { id: ReceiptId },
    /// The same key with another body: refused (a `key_conflicts` row).
    Conflict { id: ReceiptId },
    /// An exact copy of a completed receipt within the window: its response
    /// (an `absorbed` row), never a second receipt.
    Absorbed { id: ReceiptId, response: String },
}

/// The body of a completed receipt's answer, stored as its `response`.
pub fn completed_response(id: ReceiptId) -> String {
    format!(r#"{{"receipt":{id},"state":"completed"}}"#)
}

/// Where [`apply`] looks for the receipt an exact copy repeats, and notes
/// the receipts it stores.
pub trait Seen {
    fn latest(&self, visitor: u128) -> Option<(ReceiptId, Millis)>;
    fn note(&mut self, visitor: u128, id: ReceiptId, at_ms: Millis);
}

pub fn apply(w: &BulkWrite<'_>, seen: &mut dyn Seen, job: &Job) -> Result<Outcome, StoreError> {
    let s = &job.submission;
    // The usual case, a new receipt that repeats nothing recent: one row
    // written once. A held key falls through to the whole protocol below.
    if job.complete_now
        && copy_candidate(seen, job).is_none()
        && let Some((id, response)) = w.store_completed(s, job.at_ms, completed_response)?
    {
        if let Some(visitor) = job.visitor {
            seen.note(visitor, id, job.at_ms);
        }
        return Ok(Outcome::Stored { id, response });
    }
    let mut holder = None;
    if let Some(key) = s.key() {
        holder = key_holder(w, s.scope(), key)?;
        // The original is still being processed: answer 409 and write
        // nothing (the store's claim would count a replay).
        if let Some((id, digest, state)) = &holder
            && digest == s.digest()
            && state == "in_flight"
        {
            return Ok(Outcome::InFlight { id: *id });
        }
    }
    if holder.is_none()
        && let Some(absorbed) = absorb(w, seen, job)?
    {
        return Ok(absorbed);
    }
    let claim = match w.claim_prepared(s, job.at_ms) {
        Ok(claim) => claim,
        Err(StoreError::Conflict { receipt_id, .. }) => {
            return Ok(Outcome::Conflict { id: receipt_id });
        }
        Err(e) => return Err(e),
    };
    match claim {
        Claim::New { id } | Claim::Reclaimed { id } => {
            if let Some(visitor) = job.visitor {
                seen.note(visitor, id, job.at_ms);
            }
            if !job.complete_now {
                return Ok(Outcome::Claimed { id });
            }
            let response = completed_response(id);
            w.complete(id, &response, job.at_ms)?;
            Ok(Outcome::Stored { id, response })
        }
        Claim::Replay {
            id,
            state: ReceiptState::Completed,
            response,
        } => Ok(Outcome::Replayed { id, response }),
        Claim::Replay { id, .. } => Ok(Outcome::InFlight { id }),
    }
}

/// The receipt holding a scope's key: id, digest, state.
fn key_holder(
    w: &BulkWrite<'_>,
    scope: &str,
    key: &str,
) -> Result<Option<(ReceiptId, String, String)>, StoreError> {
    Ok(w.connection()
        .prepare_cached(
            "SELECT id, digest, state FROM receipts WHERE scope = ?1 AND request_key = ?2",
        )?
        .query_row(params![scope, key], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?)
}

/// The receipt stored last with the job's visitor fields within its window.
fn copy_candidate(seen: &dyn Seen, job: &Job) -> Option<ReceiptId> {
    if job.window_ms <= 0 {
        return None;
    }
    let (id, at) = seen.latest(job.visitor?)?;
    (job.at_ms.saturating_sub(at) <= job.window_ms).then_some(id)
}

/// An exact copy of a completed receipt within the window: counted in
/// `absorbed` and answered with the original's response.
fn absorb(
    w: &BulkWrite<'_>,
    seen: &mut dyn Seen,
    job: &Job,
) -> Result<Option<Outcome>, StoreError> {
    let Some(id) = copy_candidate(seen, job) else {
        return Ok(None);
    };
    let original: Option<(String, Option<String>)> = w
        .connection()
        .prepare_cached("SELECT state, response FROM receipts WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((state, Some(response))) = original else {
        return Ok(None);
    };
    if state != "completed" {
        return Ok(None);
    }
    w.connection()
        .prepare_cached(
            "INSERT INTO absorbed (receipt_id, request_key, received_at) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![id, job.submission.key(), format_rfc3339(job.at_ms)])?;
    Ok(Some(Outcome::Absorbed { id, response }))
}
