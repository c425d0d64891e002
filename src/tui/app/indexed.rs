//! A snapshot with its filter index and totals: a reading as the screen takes it in.

use std::sync::Arc;

use crate::reading::Snapshot;

use super::counts::Counts;
use super::fresh::{self, GroupChange};
use super::search::SearchIndex;

/// A reading as the screen takes it: the snapshot, its filter index and its
/// totals, all made off the UI thread and shared with the worker rather than
/// copied, so that taking in a reading costs the screen little.
#[derive(Clone, Debug)]
pub struct IndexedSnapshot {
    pub snapshot: Arc<Snapshot>,
    pub search: Arc<SearchIndex>,
    pub counts: Counts,
    /// The groups new or grown since the reading before (none for a first).
    pub fresh: Vec<(crate::model::ReceiptId, GroupChange)>,
    /// The groups of the reading before that this one no longer has.
    pub gone: Vec<crate::model::ReceiptId>,
}

impl IndexedSnapshot {
    /// A reading indexed from scratch.
    pub fn new(snapshot: Snapshot) -> Self {
        Self::after(snapshot, None)
    }

    /// A reading whose rows unchanged since `previous` are copied from its
    /// index; one whose items' receipts are still to come is not indexed
    /// (see [`SearchIndex::unindexed`]).
    pub fn after(snapshot: Snapshot, previous: Option<&IndexedSnapshot>) -> Self {
        // Side by side: the counts walk every group, as the index does.
        let (search, counts) = rayon::join(
            || {
                if snapshot.receipts_pending {
                    SearchIndex::unindexed(&snapshot)
                } else {
                    SearchIndex::build(&snapshot, previous.map(|p| &*p.search))
                }
            },
            || Counts::after(&snapshot, previous.map(|p| (&*p.snapshot, &p.counts))),
        );
        let (fresh, gone) = previous
            .map(|p| {
                (
                    fresh::between(&p.snapshot, &snapshot),
                    fresh::gone(&p.snapshot, &snapshot),
                )
            })
            .unwrap_or_default();
        IndexedSnapshot {
            counts,
            fresh,
            gone,
            snapshot: Arc::new(snapshot),
            search: Arc::new(search),
        }
    }
}
