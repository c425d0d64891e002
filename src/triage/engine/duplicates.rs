//! The duplicate groups kept between readings: where each receipt was
//! placed and each scope's run in sweep order, so that receipts appended to a
//! scope continue its sweep (`groups::resweep`) instead of sweeping it again.

use std::collections::HashSet;
use std::sync::Arc;

use super::Facts;
use crate::model::{Millis, ReceiptId};
use crate::triage::facts::FactStore;
use crate::triage::groups::{self, Placement};
use crate::triage::hash::HashMap64;
use crate::triage::model::DuplicateGroup;

#[derive(Debug, Default)]
pub(super) struct Duplicates {
    /// By receipt index: where each receipt with fields was placed.
    pub(super) placements: Vec<Option<Placement>>,
    /// By scope id: receipts with fields in sweep order.
    pub(super) runs: Vec<Vec<u32>>,
    /// (anchor time, anchor id) of each of `Triage::duplicates`, in order.
    keys: Vec<(Millis, ReceiptId)>,
}

/// One scope whose sweep continues: its run with the added receipts in
/// place, and the position of the earliest added one.
pub(super) struct Span {
    scope: u32,
    run: Vec<u32>,
    first_new: usize,
}

impl Duplicates {
    /// Sweeps every scope; the groups, in the triage's order.
    pub(super) fn sweep(&mut self, facts: &Facts) -> Vec<DuplicateGroup> {
        let store = &facts.store;
        self.runs = groups::scope_runs(store);
        let window = facts.settings.window_ms;
        let found = groups::sweep_runs(facts.ctx(), &self.runs, window, Some(&mut self.placements));
        self.keys = found
            .iter()
            .map(|g| (time_of(store, g.members[0].id), g.members[0].id))
            .collect();
        found
    }

    /// The scopes the receipts added from index `from` on fall in, each with
    /// its run merged.
    pub(super) fn spans(&self, store: &FactStore, from: usize) -> Vec<Span> {
        let key = |j: u32| (store.receipts[j as usize].created_ms, j);
        let mut added: HashMap64<Vec<u32>> = HashMap64::default();
        for i in from..store.receipts.len() {
            let r = &store.receipts[i];
            if !r.is_empty() {
                added.entry(u64::from(r.scope)).or_default().push(i as u32);
            }
        }
        let mut spans: Vec<Span> = added
            .into_iter()
            .map(|(scope, mut new)| {
                new.sort_unstable_by_key(|&j| key(j));
                let old = self.runs.get(scope as usize).map_or(&[][..], |r| &r[..]);
                let first_new = old.partition_point(|&j| key(j) < key(new[0]));
                let mut run = Vec::with_capacity(old.len() + new.len());
                run.extend_from_slice(&old[..first_new]);
                let (mut a, mut b) = (first_new, 0);
                while a < old.len() || b < new.len() {
                    if b == new.len() || (a < old.len() && key(old[a]) < key(new[b])) {
                        run.push(old[a]);
                        a += 1;
                    } else {
                        run.push(new[b]);
                        b += 1;
                    }
                }
                Span {
                    scope: scope as u32,
                    run,
                    first_new,
                }
            })
            .collect();
        spans.sort_unstable_by_key(|s| s.scope);
        spans
    }

    /// The texts the continued sweeps of `spans` may compare that were not
    /// read before: every field of two tokens or more from where each
    /// replays on, and of the anchors of the groups it replays.
    pub(super) fn texts_wanted(&self, facts: &Facts, spans: &[Span]) -> Vec<(u32, u16)> {
        let store = &facts.store;
        let mut texts: Vec<(u32, u16)> = Vec::new();
        for span in spans {
            let start =
                groups::span_start(store, &span.run, span.first_new, facts.settings.window_ms);
            let anchors = span.run[start..span.first_new]
                .iter()
                .filter_map(|&i| self.placements[i as usize].map(|p| p.anchor));
            for i in span.run[start..].iter().copied().chain(anchors) {
                for (p, f) in store.fields_at(i).iter().enumerate() {
                    if f.tokens() >= 2 && !facts.details.texts.contains_key(&(i, p as u16)) {
                        texts.push((i, p as u16));
                    }
                }
            }
        }
        texts.sort_unstable();
        texts.dedup();
        texts
    }

    /// Continues the sweep of each scope in `spans`, and puts the groups it
    /// made or changed in `duplicates` (in the triage's order) in place of
    /// those they were.
    pub(super) fn add(
        &mut self,
        facts: &Facts,
        spans: Vec<Span>,
        duplicates: &mut Vec<Arc<DuplicateGroup>>,
    ) {
        let store = &facts.store;
        self.placements.resize(store.receipts.len(), None);
        if self.runs.len() < store.scopes.len() {
            self.runs.resize(store.scopes.len(), Vec::new());
        }
        let mut touched: HashSet<ReceiptId> = HashSet::new();
        let mut regrouped: Vec<(Millis, DuplicateGroup)> = Vec::new();
        for span in spans {
            let (dups, keys) = (&*duplicates, &self.keys);
            let old_group = |id: ReceiptId| -> Option<&DuplicateGroup> {
                let at = keys.partition_point(|k| *k < (time_of(store, id), id));
                dups.get(at).map(|g| &**g).filter(|g| g.members[0].id == id)
            };
            let r = groups::resweep(
                facts.ctx(),
                &span.run,
                span.first_new,
                facts.settings.window_ms,
                &mut self.placements,
                &old_group,
            );
            touched.extend(r.touched.iter().map(|&a| store.receipts[a as usize].id));
            regrouped.extend(r.groups);
            self.runs[span.scope as usize] = span.run;
        }
        if touched.is_empty() {
            return;
        }
        // Few groups change, mostly late ones: the groups before the first
        // one touched or made stay where they are, and only those after it
        // are walked (taking the touched ones out, merging the new ones in).
        let mut fresh: Vec<((Millis, ReceiptId), Arc<DuplicateGroup>)> = regrouped
            .into_iter()
            .map(|(t, g)| ((t, g.members[0].id), Arc::new(g)))
            .collect();
        fresh.sort_by_key(|(k, _)| *k);
        let first_touched = touched.iter().map(|&id| (time_of(store, id), id)).min();
        let first = first_touched
            .into_iter()
            .chain(fresh.first().map(|f| f.0))
            .min();
        let from = first.map_or(self.keys.len(), |first| {
            self.keys.partition_point(|k| *k < first)
        });
        let tail_keys = self.keys.split_off(from);
        let tail = duplicates.split_off(from);
        // Both sorted: merge.
        let mut fresh = fresh.into_iter().peekable();
        for (key, group) in tail_keys.into_iter().zip(tail) {
            while let Some((k, g)) = fresh.next_if(|f| f.0 < key) {
                self.keys.push(k);
                duplicates.push(g);
            }
            if !touched.contains(&key.1) {
                self.keys.push(key);
                duplicates.push(group);
            }
        }
        for (k, g) in fresh {
            self.keys.push(k);
            duplicates.push(g);
        }
    }
}

fn time_of(store: &FactStore, id: ReceiptId) -> Millis {
    store
        .index_of(id)
        .map_or(0, |i| store.receipts[i as usize].created_ms)
}
