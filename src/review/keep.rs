//! Which copy of a duplicate group a decision keeps as the one to answer.
//!
//! - `duplicate` keeps the copy the operator chose, else the most complete
//!   one: the most visitor fields filled in (the fingerprint's fields, so a
//!   timestamp or a token never counts), the earliest among equals. The
//!   earliest copy is often the half-empty one a second handler posted.
//! - `correction` keeps the copy the operator chose, else the latest, which
//!   supersedes the others.
//! - No other decision keeps a copy.

use crate::model::{Decision, ReceiptId};

/// A copy as the choice sees it: its receipt and how many visitor fields
/// it has filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub id: ReceiptId,
    pub filled: usize,
}

/// True for the decisions that keep one copy: `duplicate` and `correction`.
pub fn keeps(decision: Decision) -> bool {
    matches!(decision, Decision::Duplicate | Decision::Correction)
}

/// The copy with the most fields filled in, the earliest among equals.
/// `copies` are in the group's order, earliest first.
pub fn most_complete(copies: &[Candidate]) -> Option<ReceiptId> {
    let mut best: Option<Candidate> = None;
    for &c in copies {
        if best.is_none_or(|b| c.filled > b.filled) {
            best = Some(c);
        }
    }
    best.map(|c| c.id)
}

/// The latest copy (`copies` earliest first).
pub fn latest(copies: &[Candidate]) -> Option<ReceiptId> {
    copies.last().map(|c| c.id)
}

/// The copy `decision` keeps when the operator chose none.
pub fn default_kept(decision: Decision, copies: &[Candidate]) -> Option<ReceiptId> {
    match decision {
        Decision::Duplicate => most_complete(copies),
        Decision::Correction => latest(copies),
        _ => None,
    }
}

/// The copy `decision` keeps: `chosen` when it is one of the copies, else
/// the default; `None` for a decision that keeps none.
pub fn kept(
    decision: Decision,
    copies: &[Candidate],
    chosen: Option<ReceiptId>,
) -> Option<ReceiptId> {
    if !keeps(decision) {
        return None;
    }
    match chosen {
        Some(id) if copies.iter().any(|c| c.id == id) => Some(id),
        _ => default_kept(decision, copies),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copies(filled: &[(ReceiptId, usize)]) -> Vec<Candidate> {
        filled
            .iter()
            .map(|&(id, filled)| Candidate { id, filled })
            .collect()
    }

    #[test]
    fn duplicate_keeps_the_most_complete_copy_and_the_earliest_among_equals() {
        // The earliest copy is the half-empty one.
        let c = copies(&[(80, 2), (81, 5), (82, 5)]);
        assert_eq!(kept(Decision::Duplicate, &c, None), Some(81));
        // All equal: the earliest.
        let c = copies(&[(12, 3), (13, 3)]);
        assert_eq!(kept(Decision::Duplicate, &c, None), Some(12));
        assert_eq!(most_complete(&[]), None);
    }

    #[test]
    fn correction_keeps_the_latest_and_a_choice_wins() {
        let c = copies(&[(80, 2), (81, 5), (82, 4)]);
        assert_eq!(kept(Decision::Correction, &c, None), Some(82));
        assert_eq!(kept(Decision::Correction, &c, Some(80)), Some(80));
        assert_eq!(kept(Decision::Duplicate, &c, Some(80)), Some(80));
        // A choice that is not a copy (the group changed) is not kept.
        assert_eq!(kept(Decision::Duplicate, &c, Some(7)), Some(81));
    }

    #[test]
    fn other_decisions_keep_nothing() {
        let c = copies(&[(80, 2), (81, 5)]);
        for d in [Decision::Distinct, Decision::Spam, Decision::NotSpam] {
            assert_eq!(kept(d, &c, Some(81)), None, "{d}");
            assert!(!keeps(d));
        }
    }
}
