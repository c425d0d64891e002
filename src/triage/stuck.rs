//! Receipts stuck `in_flight`: the outcome is unknown, and only a person who
//! checked may settle it. Time alone never makes one failed.

use super::RereadValues;
use super::facts::FactStore;
use super::model::Stuck;
use crate::model::{Millis, ReceiptState, Settings};

/// Indices of `in_flight` receipts older than `stuck_after` as of `now`, by id.
pub fn stuck_indices(store: &FactStore, settings: &Settings) -> Vec<u32> {
    store
        .receipts
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.state == ReceiptState::InFlight
                && age(r.created_ms, settings) > settings.stuck_after_ms
        })
        .map(|(i, _)| i as u32)
        .collect()
}

/// When the first `in_flight` receipt that is not stuck yet becomes stuck
/// (the screen's clock reads again then), among `indices`.
pub fn next_stuck_ms(
    store: &FactStore,
    indices: impl IntoIterator<Item = u32>,
    settings: &Settings,
) -> Option<Millis> {
    indices
        .into_iter()
        .map(|i| &store.receipts[i as usize])
        .filter(|r| {
            r.state == ReceiptState::InFlight
                && age(r.created_ms, settings) <= settings.stuck_after_ms
        })
        .map(|r| {
            r.created_ms
                .saturating_add(settings.stuck_after_ms)
                .saturating_add(1)
        })
        .min()
}

fn age(created_ms: i64, settings: &Settings) -> i64 {
    settings.now_ms.saturating_sub(created_ms)
}

/// The stuck receipts, by id; `details` holds their request keys.
pub fn stuck(
    store: &FactStore,
    indices: &[u32],
    details: &RereadValues,
    settings: &Settings,
) -> Vec<Stuck> {
    indices
        .iter()
        .map(|&i| {
            let r = &store.receipts[i as usize];
            Stuck {
                receipt_id: r.id,
                scope: store.scopes.name(r.scope).to_string(),
                request_key: details.key(i).map(str::to_string),
                age_ms: age(r.created_ms, settings),
            }
        })
        .collect()
}
