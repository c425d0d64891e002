//! Which tab takes which decision, and which decisions ask first. The
//! vocabulary itself is the review log's (`review::Decision`).

pub use crate::review::Decision;
use crate::review::Kind;

use super::tab::Tab;

/// The tab whose items take this decision (`None` for a reopening).
pub fn tab_of(decision: Decision) -> Option<Tab> {
    decision.kind().map(|kind| match kind {
        Kind::Duplicate => Tab::Duplicates,
        Kind::Conflict => Tab::Conflicts,
        Kind::Stuck => Tab::Stuck,
    })
}

/// True for the decisions that change `receipts.state` (asked for confirmation).
pub fn changes_state(decision: Decision) -> bool {
    decision.target_state().is_some()
}
