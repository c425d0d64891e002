//! What the Receipts tab holds between messages.

use std::sync::Arc;

use crate::find::{Outcome, Query, Scan};

/// How many searches ↑ can bring back.
pub const HISTORY_KEPT: usize = 20;

#[derive(Clone, Debug, Default)]
pub struct FindState {
    /// The searches run, newest first, each once: the search line shows
    /// the last one dim, and ↑ brings them back.
    pub history: Vec<String>,
    /// A search sent to the worker and not answered yet.
    pub searching: Option<Query>,
    /// The last search answered and what the scan found, kept to join again
    /// with each new reading (a decision changes an item's status).
    pub scanned: Option<(Query, Arc<Scan>)>,
    /// The hits joined with the current reading.
    pub outcome: Option<Outcome>,
    /// Why the last search could not run (a bad time, an empty query, a
    /// failed read), one line, already safe to show.
    pub error: Option<String>,
}

impl FindState {
    /// The last search run, which the empty search line shows dim.
    pub fn last_search(&self) -> Option<&str> {
        self.history.first().map(String::as_str)
    }

    /// Keeps a search run as the newest (an earlier copy of it goes).
    pub fn remember(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        self.history.retain(|q| q != text);
        self.history.insert(0, text.to_string());
        self.history.truncate(HISTORY_KEPT);
    }
}
