//! The triage summary: for people (`text`) and for scripts and CI (`json`).

pub mod json;
pub mod safe_json;
pub mod text;

use crate::snapshot::Snapshot;

/// Rows in `receipts`: the ones analysed and the damaged ones.
pub fn receipt_count(s: &Snapshot) -> usize {
    s.receipt_count + s.triage.damaged.len()
}
