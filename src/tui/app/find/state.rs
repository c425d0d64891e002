//! What the Receipts tab holds between messages.

use std::sync::Arc;

use crate::find::{Outcome, Query, Scan};

#[derive(Clone, Debug, Default)]
pub struct FindState {
    /// The search as last typed (Enter runs it; `/` starts from it).
    pub text: String,
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
