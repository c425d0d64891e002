//! Where an item stands, as the screen counts and shows it. The review log
//! calls `still_pending` a resolution; the screen does not: the receipt is
//! still in flight and its outcome unknown, so the item stays pending,
//! marked as looked at.

use crate::i18n::Lang;
use crate::model::Decision;
use crate::reading::ItemReview;
use crate::t;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenStatus {
    /// No decision stands.
    Pending,
    /// A resolved duplicate group gained a copy since its decision.
    NewCopy,
    /// A stuck receipt someone marked still pending.
    LookedAt,
    /// A decision stands.
    Resolved,
}

impl ScreenStatus {
    pub fn of(review: &ItemReview) -> ScreenStatus {
        if review.new_copy_since_decision {
            ScreenStatus::NewCopy
        } else if !review.resolved {
            ScreenStatus::Pending
        } else if review.decision.as_deref() == Some(Decision::StillPending.as_str()) {
            ScreenStatus::LookedAt
        } else {
            ScreenStatus::Resolved
        }
    }

    /// True when the item needs no more work.
    pub fn is_resolved(self) -> bool {
        self == ScreenStatus::Resolved
    }

    /// The list's status word in `lang`: `pending`, `looked at`…
    pub fn word(self, lang: Lang) -> &'static str {
        match self {
            ScreenStatus::Pending => t!(lang, "words.standing.pending"),
            ScreenStatus::NewCopy => t!(lang, "words.standing.new_copy"),
            ScreenStatus::LookedAt => t!(lang, "words.standing.looked_at"),
            ScreenStatus::Resolved => t!(lang, "words.standing.resolved"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(resolved: bool, decision: &str, new_copy: bool) -> ItemReview {
        ItemReview {
            resolved,
            decision: Some(decision.into()),
            new_copy_since_decision: new_copy,
            ..ItemReview::default()
        }
    }

    #[test]
    fn still_pending_is_looked_at_not_resolved() {
        assert_eq!(
            ScreenStatus::of(&ItemReview::default()),
            ScreenStatus::Pending
        );
        let looked = ScreenStatus::of(&review(true, "still_pending", false));
        assert_eq!(looked, ScreenStatus::LookedAt);
        assert!(!looked.is_resolved());
        assert!(ScreenStatus::of(&review(true, "completed", false)).is_resolved());
        assert_eq!(
            ScreenStatus::of(&review(false, "duplicate", true)),
            ScreenStatus::NewCopy
        );
        // Undone: pending again.
        assert_eq!(
            ScreenStatus::of(&review(false, "duplicate", false)),
            ScreenStatus::Pending
        );
    }
}
