//! The key conflicts kept between readings: the `key_conflicts` rows, and
//! the receipts that share a (scope, request key), brought up to date when
//! rows are added. Only the groups the added receipts made or changed are
//! worked out again: on a legacy table (no UNIQUE key) every receipt may
//! share its key, and remaking every group and every conflict at each
//! refresh cost more than the rest of the refresh.

use std::sync::Arc;

use super::sorted::SortedIndex;
use super::{Added, Facts};
use crate::model::{RawConflict, ReceiptId};
use crate::triage::conflicts;
use crate::triage::facts::FactStore;
use crate::triage::model::{Conflict, Triage};

#[derive(Debug, Default)]
pub(super) struct Conflicts {
    /// The `key_conflicts` rows of the reading.
    pub(super) rows: Vec<RawConflict>,
    /// How many of `rows` the last analysis saw, and the sum of their ids
    /// (rows are only ever appended between readings).
    rows_seen: (usize, i128),
    /// (scope, request key) hashes with receipt indices.
    keyed: SortedIndex,
    /// Receipts sharing a (scope, request key), each group in arrival
    /// order; the groups sorted.
    shared: Vec<Vec<u32>>,
}

/// The shared keys once the added receipts are in.
pub(super) struct SharedAfter {
    /// The (scope, key) hashes of the added receipts.
    added: Vec<(u64, u32)>,
    /// Where, in [`Conflicts::shared`], the groups are that the added
    /// receipts change (ascending).
    replaced: Vec<usize>,
    /// The groups the added receipts made or changed (sorted, as
    /// [`Conflicts::shared`]).
    pub(super) changed: Vec<Vec<u32>>,
}

impl Conflicts {
    pub(super) fn new(rows: Vec<RawConflict>) -> Self {
        Self {
            rows,
            ..Self::default()
        }
    }

    /// The keyed receipts of a first reading, sorted
    /// ([`crate::triage::conflicts::keyed`]), kept for the readings that add
    /// to it.
    pub(super) fn index_keys(&mut self, keyed: Vec<(u64, u32)>) {
        self.keyed = SortedIndex::from_sorted(keyed);
    }

    /// The conflicts of a first reading, of the groups of shared keys it
    /// found.
    pub(super) fn first(&mut self, facts: &Facts, shared: Vec<Vec<u32>>) -> Vec<Arc<Conflict>> {
        self.shared = shared;
        self.all_conflicts(facts)
    }

    /// The analysis saw every row now in `rows`.
    pub(super) fn seen(&mut self) {
        self.rows_seen = (self.rows.len(), id_sum(&self.rows));
    }

    /// The shared keys once the receipts added from index `from` on are in.
    pub(super) fn after_adding(&self, store: &FactStore, from: usize) -> SharedAfter {
        let key_of = |i: u32| conflicts::key_hash(store, i as usize);
        let mut added: Vec<(u64, u32)> = (from..store.receipts.len())
            .filter_map(|i| conflicts::key_hash(store, i).map(|h| (h, i as u32)))
            .collect();
        added.sort_unstable();
        // Each key the added receipts bring (a run of `added`) that a receipt
        // read before has too, or that two of them share: its groups are made
        // again from everything with that key.
        let mut affected: Vec<u64> = Vec::new();
        let mut changed = Vec::new();
        for run in added.chunk_by(|a, b| a.0 == b.0) {
            let h = run[0].0;
            let mut entries = self.keyed.equal(h, key_of);
            if entries.is_empty() && run.len() < 2 {
                continue;
            }
            entries.extend_from_slice(run);
            changed.extend(conflicts::shared_in(store, &entries));
            affected.push(h);
        }
        // In order, as `added` is.
        let replaced: Vec<usize> = if affected.is_empty() {
            Vec::new()
        } else {
            self.shared
                .iter()
                .enumerate()
                .filter(|(_, g)| {
                    conflicts::key_hash(store, g[0] as usize)
                        .is_some_and(|h| affected.binary_search(&h).is_ok())
                })
                .map(|(at, _)| at)
                .collect()
        };
        changed.sort_unstable();
        SharedAfter {
            added,
            replaced,
            changed,
        }
    }

    /// Takes in what `after` found of the receipts `added` brought, and
    /// brings `t.conflicts` up to date. They stay as they were unless the
    /// receipts sharing a key, the `key_conflicts` rows or a receipt such a
    /// row names changed.
    pub(super) fn add(
        &mut self,
        facts: &Facts,
        added: Added,
        mut after: SharedAfter,
        t: &mut Triage,
    ) {
        let store = &facts.store;
        self.keyed.add(std::mem::take(&mut after.added));
        let first_added = [
            store.receipts.get(added.receipts).map(|r| r.id),
            store.damaged.get(added.damaged).map(|d| d.receipt_id),
        ]
        .into_iter()
        .flatten()
        .min();
        let (seen, sum) = self.rows_seen;
        let rows = &self.rows;
        let rows_changed = rows.len() != seen
            || id_sum(rows) != sum
            || first_added.is_some_and(|first| rows.iter().any(|c| c.receipt_id >= first));
        self.take_shared(facts, after, rows_changed, t);
    }

    /// Takes in the groups `after` found, and makes again the conflicts of
    /// the groups it changed, or all of them when `rows_changed` (the
    /// `key_conflicts` rows, or a receipt one names, are not as before).
    fn take_shared(
        &mut self,
        facts: &Facts,
        after: SharedAfter,
        rows_changed: bool,
        t: &mut Triage,
    ) {
        let SharedAfter {
            replaced, changed, ..
        } = after;
        let same_groups = replaced.len() == changed.len()
            && replaced
                .iter()
                .zip(&changed)
                .all(|(&at, g)| self.shared[at] == *g);
        if same_groups {
            if rows_changed {
                t.conflicts = self.all_conflicts(facts);
            }
            return;
        }
        // The receipts whose conflicts may change: the originals of the
        // groups before and after.
        let store = &facts.store;
        let mut originals: Vec<ReceiptId> = replaced
            .iter()
            .map(|&at| self.shared[at][0])
            .chain(changed.iter().map(|g| g[0]))
            .map(|i| store.receipts[i as usize].id)
            .collect();
        originals.sort_unstable();
        originals.dedup();
        let fresh = (!rows_changed).then(|| {
            let rows: Vec<RawConflict> = self
                .rows
                .iter()
                .filter(|c| originals.binary_search(&c.receipt_id).is_ok())
                .cloned()
                .collect();
            conflicts::conflicts(store, &changed, &rows, &facts.details)
        });
        self.shared = merged(std::mem::take(&mut self.shared), &replaced, changed);
        t.conflicts = match fresh {
            Some(fresh) => replace(std::mem::take(&mut t.conflicts), &originals, fresh),
            None => self.all_conflicts(facts),
        };
    }

    /// The conflicts of every group of shared keys and every `key_conflicts` row.
    fn all_conflicts(&self, facts: &Facts) -> Vec<Arc<Conflict>> {
        crate::triage::each_shared(conflicts::conflicts(
            &facts.store,
            &self.shared,
            &self.rows,
            &facts.details,
        ))
    }
}

/// The sum of the ids of `key_conflicts` rows.
fn id_sum(rows: &[RawConflict]) -> i128 {
    rows.iter().map(|c| i128::from(c.id)).sum()
}

/// `old` without the groups at `replaced` (ascending), with `added` merged
/// in; both sorted, and so is the result.
fn merged(old: Vec<Vec<u32>>, replaced: &[usize], added: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    let mut out = Vec::with_capacity(old.len() + added.len() - replaced.len().min(old.len()));
    let mut added = added.into_iter().peekable();
    let mut replaced = replaced.iter().peekable();
    for (at, g) in old.into_iter().enumerate() {
        if replaced.next_if(|&&r| r == at).is_some() {
            continue;
        }
        while let Some(a) = added.next_if(|a| *a < g) {
            out.push(a);
        }
        out.push(g);
    }
    out.extend(added);
    out
}

/// `old` (by receipt id) with the conflicts of `ids` (ascending) taken out
/// and `fresh` (by receipt id, all about `ids`) put in their places: the
/// others stay the same `Arc`s, so that what was made of them is kept.
fn replace(old: Vec<Arc<Conflict>>, ids: &[ReceiptId], fresh: Vec<Conflict>) -> Vec<Arc<Conflict>> {
    let mut out = Vec::with_capacity(old.len() + fresh.len());
    let mut fresh = fresh.into_iter().peekable();
    for c in old {
        while let Some(f) = fresh.next_if(|f| f.receipt_id < c.receipt_id) {
            out.push(Arc::new(f));
        }
        if ids.binary_search(&c.receipt_id).is_err() {
            out.push(c);
        }
    }
    out.extend(fresh.map(Arc::new));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(id: ReceiptId, scope: &str) -> Conflict {
        Conflict {
            receipt_id: id,
            scope: scope.into(),
            request_key: String::new(),
            attempts: Vec::new(),
        }
    }

    #[test]
    fn merging_groups_drops_the_replaced_and_keeps_the_order() {
        let old = vec![vec![1, 4], vec![3, 9], vec![5, 6], vec![8, 10]];
        let out = merged(old, &[1, 3], vec![vec![2, 7], vec![3, 9, 11], vec![12, 13]]);
        assert_eq!(
            out,
            vec![
                vec![1, 4],
                vec![2, 7],
                vec![3, 9, 11],
                vec![5, 6],
                vec![12, 13]
            ]
        );
        assert_eq!(merged(vec![], &[], vec![vec![1, 2]]), vec![vec![1, 2]]);
        assert_eq!(
            merged(vec![vec![1, 2]], &[0], vec![]),
            Vec::<Vec<u32>>::new()
        );
    }

    #[test]
    fn replacing_conflicts_keeps_the_others_as_they_were() {
        let old: Vec<Arc<Conflict>> = [(2, "a"), (5, "b"), (7, "c"), (9, "d")]
            .into_iter()
            .map(|(id, s)| Arc::new(conflict(id, s)))
            .collect();
        // 5 changes, 7 has no conflict left, 6 and 10 are new.
        let fresh = vec![conflict(5, "B"), conflict(6, "e"), conflict(10, "f")];
        let out = replace(old.clone(), &[5, 6, 7, 10], fresh);
        let shown: Vec<(ReceiptId, &str)> = out
            .iter()
            .map(|c| (c.receipt_id, c.scope.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![(2, "a"), (5, "B"), (6, "e"), (9, "d"), (10, "f")]
        );
        assert!(Arc::ptr_eq(&out[0], &old[0]));
        assert!(Arc::ptr_eq(&out[3], &old[3]));
    }
}
