//! What the review tests share: the time they decide at, and a decision
//! request as the screen and `resolve` make one.

use receipt_review::model::{Decision, LogEntry};
use receipt_review::review::{self, DecisionRequest};
use receipt_review::storage::Storage;

/// When every decision here is made: 2026-11-29T10:15:30.123Z.
pub const T0: i64 = 1_795_947_330_123;

/// `operator`'s `decision` on `item`, covering the receipts `ids`, at [`T0`].
pub fn request(item: &str, decision: Decision, operator: &str, ids: &[i64]) -> DecisionRequest {
    let (kind, _) = review::parse_item(item).unwrap();
    DecisionRequest {
        item: item.to_string(),
        kind,
        decision,
        operator: operator.to_string(),
        note: None,
        receipt_ids: ids.to_vec(),
        now_ms: T0,
        expected_last: None,
        kept: None,
    }
}

/// Records [`request`]'s decision, which must be accepted, and returns its log row.
pub fn decided(
    storage: &mut dyn Storage,
    item: &str,
    decision: Decision,
    operator: &str,
    ids: &[i64],
) -> LogEntry {
    review::decide(storage, &request(item, decision, operator, ids))
        .unwrap()
        .entry
}
