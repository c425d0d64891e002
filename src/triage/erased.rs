//! Erased receipts back in the duplicate groups they were in.
//!
//! An erased receipt has no fields, so the sweep cannot place it; its
//! tombstone lists the receipts of its group when it was erased (`with`). A
//! group still found among the receipts that kept their fields takes the
//! erased ones back; a group whose receipts were erased (all of them, or all
//! but one) is made again from the tombstones. So a group keeps its size, its
//! item id (`dup:<earliest id>`) and the decisions recorded on it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::facts::FactStore;
use super::groups::finish_group;
use super::model::{DuplicateGroup, MatchKind, Member, Triage};
use crate::model::{Millis, ReceiptId};

/// `triage` with the erased receipts of `store` put back in their groups;
/// `None` when the store holds none (nothing to change).
pub fn keep_groups(store: &FactStore, triage: &Triage) -> Option<Triage> {
    if store.erased.values().all(|t| t.with.len() < 2) {
        return None;
    }
    let mut groups: Vec<DuplicateGroup> = triage.duplicates.iter().map(|g| (**g).clone()).collect();
    let mut owner: HashMap<ReceiptId, usize> = HashMap::new();
    for (g, group) in groups.iter().enumerate() {
        for m in &group.members {
            owner.insert(m.id, g);
        }
    }
    // Receipts whose group is gone: joined by the ids their tombstones list.
    let mut orphans = Clusters::default();
    for (&id, tombstone) in store.erased.iter().filter(|(_, t)| t.with.len() >= 2) {
        if owner.contains_key(&id) {
            continue;
        }
        match tombstone.with.iter().find_map(|w| owner.get(w).copied()) {
            Some(g) => {
                groups[g].members.push(erased_member(id));
                owner.insert(id, g);
            }
            None => {
                for &w in &tombstone.with {
                    if store.index_of(w).is_some() {
                        orphans.join(id, w);
                    }
                }
            }
        }
    }
    let mut changed: Vec<usize> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if group
            .members
            .iter()
            .any(|m| m.match_kind == MatchKind::Erased)
        {
            changed.push(g);
        }
    }
    for ids in orphans.groups() {
        // A receipt that kept its fields but lost its group mates to the
        // erasure may have found a new group since: it stays there.
        let ids: Vec<ReceiptId> = ids
            .into_iter()
            .filter(|id| store.erased.contains_key(id) || !owner.contains_key(id))
            .collect();
        if ids.len() < 2 {
            continue;
        }
        let scope = store
            .index_of(ids[0])
            .map(|i| {
                store
                    .scopes
                    .name(store.receipts[i as usize].scope)
                    .to_string()
            })
            .unwrap_or_default();
        let members = ids
            .iter()
            .map(|&id| {
                if store.erased.contains_key(&id) {
                    erased_member(id)
                } else {
                    // The earliest copy that kept its fields matches itself.
                    Member {
                        id,
                        match_kind: MatchKind::Exact,
                        fields: Vec::new(),
                        sentence_changes: Vec::new(),
                    }
                }
            })
            .collect();
        groups.push(DuplicateGroup {
            scope,
            class: super::model::GapClass::of_gap(0),
            members,
            gaps_ms: Vec::new(),
        });
        changed.push(groups.len() - 1);
    }
    let time = |id: ReceiptId| -> Millis {
        store
            .index_of(id)
            .map_or(0, |i| store.receipts[i as usize].created_ms)
    };
    for &g in &changed {
        let group = &mut groups[g];
        group.members.sort_by_key(|m| (time(m.id), m.id));
        finish_group(store, group);
    }
    groups.sort_by_key(|g| (time(g.members[0].id), g.members[0].id));
    Some(Triage {
        duplicates: super::each_shared(groups),
        ..triage.clone()
    })
}

fn erased_member(id: ReceiptId) -> Member {
    Member {
        id,
        match_kind: MatchKind::Erased,
        fields: Vec::new(),
        sentence_changes: Vec::new(),
    }
}

/// Receipt ids joined into clusters (union by the smallest id).
#[derive(Default)]
struct Clusters {
    parent: BTreeMap<ReceiptId, ReceiptId>,
}

impl Clusters {
    fn root(&mut self, id: ReceiptId) -> ReceiptId {
        let mut at = *self.parent.entry(id).or_insert(id);
        while let Some(&up) = self.parent.get(&at) {
            if up == at {
                break;
            }
            at = up;
        }
        self.parent.insert(id, at);
        at
    }

    fn join(&mut self, a: ReceiptId, b: ReceiptId) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            self.parent.insert(ra.max(rb), ra.min(rb));
        }
    }

    /// Each cluster's ids, ascending, clusters in order of their smallest id.
    fn groups(mut self) -> Vec<Vec<ReceiptId>> {
        let ids: Vec<ReceiptId> = self.parent.keys().copied().collect();
        let mut by_root: BTreeMap<ReceiptId, Vec<ReceiptId>> = BTreeMap::new();
        for id in ids {
            let root = self.root(id);
            by_root.entry(root).or_default().push(id);
        }
        by_root.into_values().collect()
    }
}

/// The triage a reading shows: `triage`, or its copy with the erased receipts
/// in their groups.
pub fn shown(store: &FactStore, triage: Arc<Triage>) -> Arc<Triage> {
    match keep_groups(store, &triage) {
        Some(kept) => Arc::new(kept),
        None => triage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_join_through_shared_ids() {
        let mut c = Clusters::default();
        c.join(5, 9);
        c.join(12, 13);
        c.join(9, 3);
        c.join(40, 40);
        assert_eq!(c.groups(), vec![vec![3, 5, 9], vec![12, 13], vec![40]]);
    }
}
