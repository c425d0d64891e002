//! The triage summary: for people (`text`) and for scripts and CI (`json`).

pub mod json;
pub mod safe_json;
pub mod text;

use std::collections::HashMap;

use crate::triage::model::{Millis, Settings, Triage};

/// What the review log says about one item, as a report shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemReview {
    /// `pending` or `resolved`.
    pub resolved: bool,
    pub decision: Option<String>,
    /// A resolved duplicate group that has gained a copy since its decision.
    pub new_copy_since_decision: bool,
}

/// Everything a report is made from: one consistent reading of the database.
pub struct ReportInput<'a> {
    pub database: &'a str,
    pub settings: &'a Settings,
    pub receipts: usize,
    pub replays: u64,
    pub triage: &'a Triage,
    /// Keyed by item id (`dup:12`); an item absent here is pending.
    pub reviews: &'a HashMap<String, ItemReview>,
}

impl ReportInput<'_> {
    pub fn review(&self, item: &str) -> ItemReview {
        self.reviews.get(item).cloned().unwrap_or_default()
    }

    pub fn now_ms(&self) -> Millis {
        self.settings.now_ms
    }
}
