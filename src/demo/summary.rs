//! What a demo database holds: the options it is written with and the summary of what it
//! planted, which tests and benchmarks check the analysis against.

use crate::model::{Millis, ReceiptId};
use crate::traffic::VisitKind;
use crate::triage::model::{DamageReason, GapClass, MatchKind};

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoOptions {
    /// Rows in `receipts` (exactly).
    pub receipts: usize,
    pub seed: u64,
    /// The simulated "now": every row is older than this.
    pub now_ms: Millis,
}

/// A planted duplicate group's member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedMember {
    pub id: ReceiptId,
    pub at_ms: Millis,
    /// As the analysis should mark it: the earliest copy is `Exact`.
    pub match_kind: MatchKind,
}

/// Copies of one inquiry that the analysis should group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedGroup {
    pub scope: String,
    pub pathway: VisitKind,
    /// The class of the largest gap.
    pub class: GapClass,
    /// Earliest first.
    pub members: Vec<PlantedMember>,
    pub gaps_ms: Vec<Millis>,
}

impl PlantedGroup {
    /// `Exact` when every member is exact, else the kind of its near member(s).
    pub fn match_kind(&self) -> MatchKind {
        self.members
            .iter()
            .map(|m| m.match_kind)
            .find(|k| *k != MatchKind::Exact)
            .unwrap_or(MatchKind::Exact)
    }

    pub fn receipt_ids(&self) -> Vec<ReceiptId> {
        self.members.iter().map(|m| m.id).collect()
    }
}

/// A receipt whose key came back with another body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedConflict {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub request_key: String,
    /// Rows in `key_conflicts` for it.
    pub attempts: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedDamage {
    pub receipt_id: ReceiptId,
    pub reason: DamageReason,
}

/// What [`generate`] planted. Every list is in ascending receipt id order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DemoSummary {
    /// Rows in `receipts`.
    pub receipts: usize,
    /// Receipts of Japanese inquiries.
    pub japanese_receipts: usize,
    /// Rows in `replays` (retries with the same key, absorbed).
    pub replays: usize,
    /// Duplicate groups the analysis should find (ordered by earliest member id).
    pub groups: Vec<PlantedGroup>,
    /// The same visitor writing again hours later: must NOT be grouped.
    pub follow_ups: Vec<(ReceiptId, ReceiptId)>,
    pub conflicts: Vec<PlantedConflict>,
    /// `in_flight`, older than 5 minutes at `now`.
    pub stuck: Vec<ReceiptId>,
    /// `in_flight`, younger than 5 minutes at `now`: not stuck yet.
    pub fresh_in_flight: Vec<ReceiptId>,
    /// Every receipt of a bot campaign (one body, three or more senders, within minutes).
    pub bots: Vec<ReceiptId>,
    /// The bot receipts whose honeypot field is filled.
    pub honeypot_filled: Vec<ReceiptId>,
    pub bot_campaigns: usize,
    /// Receipts that failed once and were re-claimed by a retry with the same key and body.
    pub reclaimed: Vec<ReceiptId>,
    pub damaged: Vec<PlantedDamage>,
}

impl DemoSummary {
    /// Planted groups of a class and/or match kind (`None`: any).
    pub fn group_count(&self, class: Option<GapClass>, kind: Option<MatchKind>) -> usize {
        self.groups
            .iter()
            .filter(|g| class.is_none_or(|c| g.class == c))
            .filter(|g| kind.is_none_or(|k| g.match_kind() == k))
            .count()
    }

    /// Planted groups that came from one pathway.
    pub fn pathway_count(&self, pathway: VisitKind) -> usize {
        self.groups.iter().filter(|g| g.pathway == pathway).count()
    }

    /// Rows in `key_conflicts`.
    pub fn key_conflict_rows(&self) -> usize {
        self.conflicts.iter().map(|c| c.attempts).sum()
    }

    pub fn damaged_count(&self, reason: DamageReason) -> usize {
        self.damaged.iter().filter(|d| d.reason == reason).count()
    }
}
