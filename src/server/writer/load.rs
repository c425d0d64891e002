//! At start, the receipts stored within each form's window, read back from
//! the database: a copy sent just before a restart is still absorbed after it.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde_json::Value;

use super::recent::Recent;
use crate::intake::store::StoreError;
use crate::model::Millis;
use crate::server::fingerprint::visitor_hash;
use crate::storage::intake::IntakeDatabase;

/// A form's part in absorbing copies.
#[derive(Clone, Debug)]
pub struct FormWindow {
    pub scope: String,
    pub window_ms: Millis,
    pub honeypot: Option<String>,
}

/// How many rows older than the horizon are read before the scan stops
/// (receipts written by other tools need not be in time order).
const OLD_ROWS_BEFORE_STOP: usize = 1000;

pub fn recent(
    db: &mut dyn IntakeDatabase,
    forms: &[FormWindow],
    now_ms: Millis,
) -> Result<Recent, StoreError> {
    let mut recent = Recent::new(forms.iter().map(|f| (f.scope.as_str(), f.window_ms)));
    let horizon = forms.iter().map(|f| f.window_ms).max().unwrap_or(0);
    if horizon <= 0 {
        return Ok(recent);
    }
    let mut by_scope: HashMap<&str, Vec<&FormWindow>> = HashMap::new();
    for f in forms.iter().filter(|f| f.window_ms > 0) {
        by_scope.entry(f.scope.as_str()).or_default().push(f);
    }
    // Newest first, so that a scope that fills its index keeps the newest.
    let mut found: HashMap<&str, Vec<(Millis, u128, i64)>> = HashMap::new();
    let mut old_in_a_row = 0;
    let mut full = 0;
    let capacity = recent.capacity();
    db.newest_completed(&mut |row| {
        let Some(created) = row.created_ms else {
            return ControlFlow::Continue(());
        };
        if now_ms.saturating_sub(created) > horizon {
            old_in_a_row += 1;
            return if old_in_a_row >= OLD_ROWS_BEFORE_STOP {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            };
        }
        old_in_a_row = 0;
        let Some((&scope, windows)) = by_scope.get_key_value(row.scope) else {
            return ControlFlow::Continue(());
        };
        let kept = found.entry(scope).or_default();
        if kept.len() >= capacity {
            return ControlFlow::Continue(());
        }
        let Ok(Value::Object(payload)) = serde_json::from_str::<Value>(row.payload) else {
            return ControlFlow::Continue(());
        };
        for w in windows {
            if now_ms.saturating_sub(created) <= w.window_ms
                && let Some(hash) = visitor_hash(scope, &payload, w.honeypot.as_deref())
            {
                kept.push((created, hash, row.id));
            }
        }
        if kept.len() >= capacity {
            full += 1;
            if full == by_scope.len() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    for (scope, mut kept) in found {
        kept.sort_unstable();
        for (created, hash, id) in kept {
            recent.note(scope, hash, id, created);
        }
    }
    Ok(recent)
}
