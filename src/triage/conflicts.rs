//! Conflicts: the same scope and key arrived with another body. Two sources:
//! rows of `key_conflicts` (refused attempts, grouped under their receipt), and
//! receipts that share (scope, request key) with different digests (a legacy
//! table without the UNIQUE constraint: the earliest is the original).

use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;

use super::hash;
use super::model::{Attempt, AttemptSource, Conflict, RawConflict, RawReceipt, Receipt, ReceiptId};
use crate::time::parse_time;

/// All conflicts, ordered by original receipt id, attempts in arrival order.
/// `receipts` are the good ones, sorted by id; `raws` are every row read.
pub fn conflicts(raws: &[RawReceipt], receipts: &[Receipt], rows: &[RawConflict]) -> Vec<Conflict> {
    let mut found: BTreeMap<ReceiptId, Conflict> = BTreeMap::new();

    for (original, attempts) in legacy_duplicate_keys(receipts) {
        let conflict = found
            .entry(original.id)
            .or_insert_with(|| empty_conflict(original.id, &original.scope, &original.request_key));
        conflict.attempts.extend(attempts);
    }

    if !rows.is_empty() {
        // What is known of originals that are damaged (or missing: nothing).
        let wanted: HashSet<ReceiptId> = rows
            .iter()
            .map(|r| r.receipt_id)
            .filter(|id| find(receipts, *id).is_none())
            .collect();
        let raw_by_id: HashMap<ReceiptId, &RawReceipt> = if wanted.is_empty() {
            HashMap::new()
        } else {
            raws.iter()
                .filter(|r| wanted.contains(&r.id))
                .map(|r| (r.id, r))
                .collect()
        };
        for row in rows {
            let conflict = found.entry(row.receipt_id).or_insert_with(|| {
                if let Some(r) = find(receipts, row.receipt_id) {
                    empty_conflict(r.id, &r.scope, &r.request_key)
                } else if let Some(r) = raw_by_id.get(&row.receipt_id) {
                    empty_conflict(r.id, &r.scope, &r.request_key)
                } else {
                    empty_conflict(row.receipt_id, "", &None)
                }
            });
            conflict.attempts.push(Attempt {
                source: AttemptSource::KeyConflicts,
                id: row.id,
                at_ms: parse_time(&row.received_at).ok(),
                digest: row.digest.clone(),
            });
        }
    }

    let mut out: Vec<Conflict> = found.into_values().collect();
    for c in &mut out {
        // Arrival order; attempts whose time is unknown go last.
        c.attempts.sort_by_key(|a| {
            (
                a.at_ms.is_none(),
                a.at_ms,
                a.id,
                a.source == AttemptSource::Receipts,
            )
        });
    }
    out
}

fn empty_conflict(id: ReceiptId, scope: &str, key: &Option<String>) -> Conflict {
    Conflict {
        receipt_id: id,
        scope: scope.to_string(),
        request_key: key.clone().unwrap_or_default(),
        attempts: Vec::new(),
    }
}

fn find(receipts: &[Receipt], id: ReceiptId) -> Option<&Receipt> {
    receipts
        .binary_search_by_key(&id, |r| r.id)
        .ok()
        .map(|i| &receipts[i])
}

/// Receipts sharing (scope, request key) with more than one digest: the
/// earliest and the later copies whose digest differs from it.
fn legacy_duplicate_keys(receipts: &[Receipt]) -> Vec<(&Receipt, Vec<Attempt>)> {
    let mut keyed: Vec<(u64, u32)> = receipts
        .par_iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let key = r.request_key.as_deref()?;
            let h = hash::combine(
                hash::str(hash::SEED_SCOPE, &r.scope),
                hash::str(0x4B45, key),
            );
            Some((h, i as u32))
        })
        .collect();
    keyed.par_sort_unstable();
    let mut out = Vec::new();
    for run in keyed.chunk_by(|a, b| a.0 == b.0) {
        if run.len() < 2 {
            continue;
        }
        let mut copies: Vec<&Receipt> = run.iter().map(|&(_, i)| &receipts[i as usize]).collect();
        copies.sort_by(|a, b| {
            (&a.scope, &a.request_key, a.created_ms, a.id).cmp(&(
                &b.scope,
                &b.request_key,
                b.created_ms,
                b.id,
            ))
        });
        for same in copies.chunk_by(|a, b| a.scope == b.scope && a.request_key == b.request_key) {
            let original = same[0];
            let attempts: Vec<Attempt> = same[1..]
                .iter()
                .filter(|r| r.digest != original.digest)
                .map(|r| Attempt {
                    source: AttemptSource::Receipts,
                    id: r.id,
                    at_ms: Some(r.created_ms),
                    digest: r.digest.clone(),
                })
                .collect();
            if !attempts.is_empty() {
                out.push((original, attempts));
            }
        }
    }
    out
}
