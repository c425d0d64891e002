//! The triage summary: for people (`text`) and for scripts and CI (`json`).

mod forms_json;
pub mod forms_text;
pub mod json;
/// Terminal-safe JSON (it lives with [`crate::sanitize`], which the review
/// log's JSONL export uses as well).
pub use crate::sanitize::json as safe_json;
pub mod text;

use crate::reading::Snapshot;

/// Rows in `receipts`: the ones analysed and the damaged ones.
pub fn receipt_count(s: &Snapshot) -> usize {
    s.receipt_count + s.triage.damaged.len()
}
