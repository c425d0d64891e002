//! Conflicts: the same scope and key arrived with another body. Two sources:
//! rows of `key_conflicts` (refused attempts, grouped under their receipt), and
//! receipts that share (scope, request key) with different digests (a legacy
//! table without the UNIQUE constraint: the earliest is the original).

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::RereadValues;
use super::facts::FactStore;
use super::hash;
use super::model::{Attempt, AttemptSource, Conflict};
use crate::model::time::parse_time;
use crate::model::{RawConflict, ReceiptId};

/// The hash of (scope, request key) of a receipt that has a key.
pub fn key_hash(store: &FactStore, i: usize) -> Option<u64> {
    let r = &store.receipts[i];
    r.has_key()
        .then(|| hash::combine(store.scopes.hash(r.scope), r.key_hash))
}

/// (scope, request key) hashes of the receipts that have a key, sorted.
pub fn keyed(store: &FactStore) -> Vec<(u64, u32)> {
    let mut keyed: Vec<(u64, u32)> = (0..store.receipts.len())
        .into_par_iter()
        .with_min_len(4096)
        .filter_map(|i| key_hash(store, i).map(|h| (h, i as u32)))
        .collect();
    keyed.par_sort_unstable();
    keyed
}

/// The groups of receipts sharing a (scope, key) in `keyed`: receipts
/// (indices) sharing one with another receipt, each group in arrival order
/// (time, id); groups in no particular order.
pub fn shared_in(store: &FactStore, keyed: &[(u64, u32)]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for run in keyed.chunk_by(|a, b| a.0 == b.0) {
        if run.len() < 2 {
            continue;
        }
        let identity = |i: u32| {
            let r = &store.receipts[i as usize];
            (r.scope, r.key_hash, r.key_check)
        };
        let mut copies: Vec<u32> = run.iter().map(|&(_, i)| i).collect();
        copies.sort_by_key(|&i| {
            let r = &store.receipts[i as usize];
            (identity(i), r.created_ms, r.id)
        });
        for same in copies.chunk_by(|&a, &b| identity(a) == identity(b)) {
            if same.len() >= 2 {
                out.push(same.to_vec());
            }
        }
    }
    out.sort_unstable();
    out
}

/// The receipts whose request key text a conflict shows: originals of
/// `key_conflicts` rows and of shared keys.
pub fn originals(store: &FactStore, shared: &[Vec<u32>], rows: &[RawConflict]) -> Vec<u32> {
    let mut out: Vec<u32> = rows
        .iter()
        .filter_map(|r| store.index_of(r.receipt_id))
        .chain(shared.iter().map(|g| g[0]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// All conflicts, ordered by original receipt id, attempts in arrival order.
/// `details` holds the digests of the receipts in `shared` and the keys of
/// the [`originals`].
pub fn conflicts(
    store: &FactStore,
    shared: &[Vec<u32>],
    rows: &[RawConflict],
    details: &RereadValues,
) -> Vec<Conflict> {
    let mut found: BTreeMap<ReceiptId, Conflict> = BTreeMap::new();
    let conflict_of = |index: u32| {
        let r = &store.receipts[index as usize];
        Conflict {
            receipt_id: r.id,
            scope: store.scopes.name(r.scope).to_string(),
            request_key: details.key(index).unwrap_or_default().to_string(),
            attempts: Vec::new(),
        }
    };

    for same in shared {
        let original = same[0];
        let digest = details.digest(original);
        let attempts: Vec<Attempt> = same[1..]
            .iter()
            .filter(|&&i| details.digest(i) != digest)
            .map(|&i| {
                let r = &store.receipts[i as usize];
                Attempt {
                    source: AttemptSource::Receipts,
                    id: r.id,
                    at_ms: Some(r.created_ms),
                    digest: details.digest(i).map(hex::encode).unwrap_or_default(),
                }
            })
            .collect();
        if !attempts.is_empty() {
            let id = store.receipts[original as usize].id;
            found
                .entry(id)
                .or_insert_with(|| conflict_of(original))
                .attempts
                .extend(attempts);
        }
    }

    for row in rows {
        let conflict = found.entry(row.receipt_id).or_insert_with(|| {
            if let Some(i) = store.index_of(row.receipt_id) {
                conflict_of(i)
            } else if let Some(d) = store.damaged_row(row.receipt_id) {
                Conflict {
                    receipt_id: d.id,
                    scope: d.scope.clone(),
                    request_key: d.request_key.clone().unwrap_or_default(),
                    attempts: Vec::new(),
                }
            } else {
                Conflict {
                    receipt_id: row.receipt_id,
                    scope: String::new(),
                    request_key: String::new(),
                    attempts: Vec::new(),
                }
            }
        });
        conflict.attempts.push(Attempt {
            source: AttemptSource::KeyConflicts,
            id: row.id,
            at_ms: parse_time(&row.received_at).ok(),
            digest: row.digest.clone(),
        });
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
