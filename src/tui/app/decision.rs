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
        Kind::Bot => Tab::Bots,
        Kind::Erasure => Tab::Log,
    })
}

/// True when the items of `tab` take `decision` (`spam` fits two tabs).
pub fn fits(tab: Tab, decision: Decision) -> bool {
    Kind::ALL
        .into_iter()
        .any(|kind| kind.decisions().contains(&decision) && tab_of_kind(kind) == tab)
}

/// The tab whose items are of this kind.
pub fn tab_of_kind(kind: Kind) -> Tab {
    match kind {
        Kind::Duplicate => Tab::Duplicates,
        Kind::Conflict => Tab::Conflicts,
        Kind::Stuck => Tab::Stuck,
        Kind::Bot => Tab::Bots,
        // Erasures are rows of the log alone.
        Kind::Erasure => Tab::Log,
    }
}

/// True for the decisions that change `receipts.state` (asked for confirmation).
pub fn changes_state(decision: Decision) -> bool {
    decision.target_state().is_some()
}
