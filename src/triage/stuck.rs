//! Receipts stuck `in_flight`: the outcome is unknown, and only a person who
//! checked may settle it. Time alone never makes one failed.

use super::model::{Receipt, ReceiptState, Settings, Stuck};

/// `in_flight` receipts older than `stuck_after` as of `now`, by id.
/// `receipts` are sorted by id.
pub fn stuck(receipts: &[Receipt], settings: &Settings) -> Vec<Stuck> {
    receipts
        .iter()
        .filter(|r| r.state == ReceiptState::InFlight)
        .filter_map(|r| {
            let age_ms = settings.now_ms.saturating_sub(r.created_ms);
            (age_ms > settings.stuck_after_ms).then(|| Stuck {
                receipt_id: r.id,
                scope: r.scope.clone(),
                request_key: r.request_key.clone(),
                age_ms,
            })
        })
        .collect()
}
