//! The decisions an operator can make, per kind of item (SPEC, Decisions).

use super::state::Tab;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    Duplicate,
    Correction,
    Distinct,
    Spam,
    OriginalStands,
    FollowUp,
    Completed,
    Failed,
    StillPending,
}

impl Decision {
    /// The word recorded in `review_log.decision`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Duplicate => "duplicate",
            Self::Correction => "correction",
            Self::Distinct => "distinct",
            Self::Spam => "spam",
            Self::OriginalStands => "original_stands",
            Self::FollowUp => "follow_up",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::StillPending => "still_pending",
        }
    }

    /// The tab whose items take this decision.
    pub fn tab(self) -> Tab {
        match self {
            Self::Duplicate | Self::Correction | Self::Distinct | Self::Spam => Tab::Duplicates,
            Self::OriginalStands | Self::FollowUp => Tab::Conflicts,
            Self::Completed | Self::Failed | Self::StillPending => Tab::Stuck,
        }
    }

    /// True for the decisions that change `receipts.state` (asked for confirmation).
    pub fn changes_state(self) -> bool {
        matches!(self, Self::Completed | Self::Failed)
    }
}
