//! When receipts arrived, per scope, in hourly buckets, and the few facts of
//! each item's receipts that the per-form view needs (a copy's time and
//! request key): what a reading collects from the engine's facts so that the
//! forms can be counted over any period without holding the receipts.
//!
//! A million receipts over a month and a handful of scopes make a few
//! thousand buckets; the copies, conflicts, bots and replayed receipts are as
//! many as the items and the replays.

use std::collections::HashMap;

use super::facts::{FLAG_KEY, NONE16, ReceiptFact, Store};
use super::hash;
use super::model::{Receipt, Triage};
use crate::model::{Millis, ReceiptId};

pub const HOUR_MS: Millis = 3_600_000;

/// What arrived in one scope in one hour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hour {
    pub receipts: u32,
    /// Receipts that came without a request key.
    pub keyless: u32,
}

/// One scope's hours, ascending; hour `h` covers `[h, h + 1) × HOUR_MS`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScopeHours {
    pub scope: String,
    pub hours: Vec<(i64, Hour)>,
}

/// A request key as the engine keeps it: its fixed hash and its keyed check.
pub type KeyMark = (u64, u32);

/// One copy of a duplicate group, as the pathways look at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub created_ms: Millis,
    /// `None` when the copy came without a key.
    pub key: Option<KeyMark>,
}

/// A receipt with its scope (an index into [`Activity::scopes`]) and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub id: ReceiptId,
    pub scope: u32,
    pub created_ms: Millis,
    /// Replays absorbed by its key (for a replayed receipt).
    pub count: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// Ordered by scope.
    pub scopes: Vec<ScopeHours>,
    /// The copies of every duplicate group, group after group in the order of
    /// [`Triage::duplicates`], each group's in the order of its members.
    pub copies: Vec<Copy>,
    /// Where each group's copies start in `copies` (one more than the groups).
    pub starts: Vec<u32>,
    /// When each conflict arose (its latest attempt, else its original), in
    /// the order of [`Triage::conflicts`].
    pub conflicts_ms: Vec<Option<Millis>>,
    /// The suspected bot receipts, ascending by id.
    pub bots: Vec<Placed>,
    /// Receipts whose key absorbed replays, ascending by id.
    pub replayed: Vec<Placed>,
}

impl Activity {
    /// The copies of the `i`th duplicate group (empty when not collected).
    pub fn copies_of(&self, i: usize) -> &[Copy] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.copies[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The index of a scope in [`Activity::scopes`].
    pub fn scope_index(&self, scope: &str) -> Option<usize> {
        self.scopes
            .binary_search_by(|s| s.scope.as_str().cmp(scope))
            .ok()
    }

    /// Collects the activity of the receipts in `store` and of the items of
    /// `triage` (found in it), with the replays absorbed per receipt.
    pub fn collect(store: &Store, triage: &Triage, replays: &HashMap<ReceiptId, u32>) -> Self {
        // Scopes in name order: the store's ids mapped to their places.
        let mut names: Vec<(&str, u32)> = (0..store.scopes.len() as u32)
            .map(|id| (store.scopes.name(id), id))
            .collect();
        names.sort_unstable();
        let mut place = vec![0u32; names.len()];
        for (at, &(_, id)) in names.iter().enumerate() {
            place[id as usize] = at as u32;
        }
        let mut buckets: foldhash::HashMap<(u32, i64), Hour> = Default::default();
        // Receipts arrive mostly in time order: the bucket of the last one is
        // most often the next one's too.
        let mut last: Option<((u32, i64), Hour)> = None;
        for r in &store.receipts {
            let at = (place[r.scope as usize], r.created_ms.div_euclid(HOUR_MS));
            let hour = match &mut last {
                Some((k, h)) if *k == at => h,
                _ => {
                    if let Some((k, h)) = last.take() {
                        add(buckets.entry(k).or_default(), h);
                    }
                    &mut last.insert((at, Hour::default())).1
                }
            };
            hour.receipts += 1;
            hour.keyless += u32::from(!r.has_key());
        }
        if let Some((k, h)) = last {
            add(buckets.entry(k).or_default(), h);
        }
        let mut scopes: Vec<ScopeHours> = names
            .iter()
            .map(|&(name, _)| ScopeHours {
                scope: name.to_string(),
                hours: Vec::new(),
            })
            .collect();
        for ((scope, hour), h) in buckets {
            scopes[scope as usize].hours.push((hour, h));
        }
        for s in &mut scopes {
            s.hours.sort_unstable_by_key(|&(hour, _)| hour);
        }
        scopes.retain(|s| !s.hours.is_empty());
        let index = |store_scope: u32| -> u32 {
            let name = store.scopes.name(store_scope);
            scopes
                .binary_search_by(|s| s.scope.as_str().cmp(name))
                .map_or(u32::MAX, |i| i as u32)
        };
        let fact = |id: ReceiptId| store.index_of(id).map(|i| &store.receipts[i as usize]);

        let mut copies = Vec::new();
        let mut starts = Vec::with_capacity(triage.duplicates.len() + 1);
        for g in &triage.duplicates {
            starts.push(copies.len() as u32);
            for m in &g.members {
                let Some(r) = fact(m.id) else { continue };
                copies.push(Copy {
                    created_ms: r.created_ms,
                    key: r.has_key().then_some((r.key_hash, r.key_check)),
                });
            }
        }
        starts.push(copies.len() as u32);
        let conflicts_ms = triage
            .conflicts
            .iter()
            .map(|c| {
                c.attempts
                    .iter()
                    .filter_map(|a| a.at_ms)
                    .max()
                    .or_else(|| fact(c.receipt_id).map(|r| r.created_ms))
            })
            .collect();
        let placed = |id: ReceiptId, count: u32| {
            fact(id).map(|r| Placed {
                id,
                scope: index(r.scope),
                created_ms: r.created_ms,
                count,
            })
        };
        let bots = triage
            .suspected_bots
            .iter()
            .filter_map(|&id| placed(id, 0))
            .collect();
        let mut replayed: Vec<Placed> = replays
            .iter()
            .filter(|&(_, &n)| n > 0)
            .filter_map(|(&id, &n)| placed(id, n))
            .collect();
        replayed.sort_unstable_by_key(|p| p.id);
        Activity {
            scopes,
            copies,
            starts,
            conflicts_ms,
            bots,
            replayed,
        }
    }

    /// The activity of whole receipts (a reading made by hand, as tests and
    /// tools make them): the same summary as [`Activity::collect`] makes of
    /// the engine's facts.
    pub fn of_receipts(
        receipts: &[Receipt],
        triage: &Triage,
        replays: &HashMap<ReceiptId, u32>,
    ) -> Self {
        let mut store = Store::new();
        let random = store.random;
        let mut by_id: Vec<&Receipt> = receipts.iter().collect();
        by_id.sort_by_key(|r| r.id);
        for r in by_id {
            let scope = store.scopes.intern(&r.scope, 0, &random);
            let (key_hash, key_check) = match &r.request_key {
                Some(k) => (hash::str(0, k), random.str(k) as u32),
                None => (0, 0),
            };
            store.receipts.push(ReceiptFact {
                id: r.id,
                created_ms: r.created_ms,
                fingerprint: 0,
                fp_check: 0,
                key_hash,
                fields: 0,
                scope,
                key_check,
                nfields: 0,
                body: NONE16,
                state: r.state,
                flags: if r.request_key.is_some() { FLAG_KEY } else { 0 },
            });
        }
        Self::collect(&store, triage, replays)
    }

    /// Bytes held (for measurements).
    pub fn heap_bytes(&self) -> usize {
        let hours: usize = self
            .scopes
            .iter()
            .map(|s| s.hours.capacity() * std::mem::size_of::<(i64, Hour)>() + s.scope.len())
            .sum();
        hours
            + self.copies.capacity() * std::mem::size_of::<Copy>()
            + self.starts.capacity() * 4
            + self.conflicts_ms.capacity() * 16
            + (self.bots.capacity() + self.replayed.capacity()) * std::mem::size_of::<Placed>()
    }
}

fn add(into: &mut Hour, h: Hour) {
    into.receipts += h.receipts;
    into.keyless += h.keyless;
}
