//! What the analysis tests share: a time to count from, a receipt of a scope, and the
//! duplicate groups an analysis finds.

use receipt_review::model::{Millis, RawReceipt, ReceiptId, Settings, TimeValue};
use receipt_review::triage::analyze;
use receipt_review::triage::model::DuplicateGroup;
use serde_json::Value;

/// 2026-11-29T10:15:30Z: every receipt's time counts from it.
pub const T0: Millis = 1_795_947_330_000;
pub const S: Millis = 1_000;
pub const MIN: Millis = 60 * S;
pub const H: Millis = 60 * MIN;

/// A completed receipt of `scope`, `at` after [`T0`], its key `key-{id}`.
pub fn receipt(scope: &str, id: ReceiptId, at: Millis, payload: Value) -> RawReceipt {
    RawReceipt {
        id,
        scope: scope.into(),
        request_key: Some(format!("key-{id}")),
        digest: None,
        payload: Ok(payload.to_string()),
        state: "completed".into(),
        created_at: TimeValue::Integer(T0 + at),
        updated_at: TimeValue::Null,
    }
}

/// The duplicate groups the analysis finds among `raws`, none of them damaged.
pub fn groups_with(raws: &[RawReceipt], settings: &Settings) -> Vec<DuplicateGroup> {
    let analysis = analyze(raws, &[], settings);
    assert!(
        analysis.triage.damaged.is_empty(),
        "{:?}",
        analysis.triage.damaged
    );
    analysis
        .triage
        .duplicates
        .into_iter()
        .map(std::sync::Arc::unwrap_or_clone)
        .collect()
}
