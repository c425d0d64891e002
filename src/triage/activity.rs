//! When receipts arrived, per scope, in hourly buckets, and the few facts of
//! each item's receipts that the per-form view needs (a copy's time and
//! request key, the retries and copies a receipt's response answered): what
//! a reading collects from the engine's facts so that the forms can be
//! counted over any period without holding the receipts.
//!
//! A [`Collector`] kept between readings of the same facts counts only the
//! receipts appended since, and looks up only the receipts of the groups and
//! lists that changed: a refresh must stay within tens of milliseconds at a
//! million receipts, and a walk of every fact alone took about 12 ms there.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::facts::{FLAG_KEY, FactStore, NONE16, ReceiptFact};
use super::hash;
use super::model::{DuplicateGroup, Receipt, Triage};
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

/// One copy of a duplicate group, as the pathways look at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub created_ms: Millis,
    /// The request key's fixed hash; `None` when the copy came without one.
    /// (Two keys that differ and hash alike would count as one: a miscount
    /// of a statistic, which no decision rests on.)
    pub key: Option<u64>,
}

/// A receipt with its scope (an index into [`Activity::scopes`]) and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub id: ReceiptId,
    pub scope: u32,
    pub created_ms: Millis,
    /// Retries its key answered with its response (`replays`).
    pub replays: u32,
    /// Exact copies the intake answered with its response (`absorbed`).
    pub absorbed: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// Ordered by scope.
    pub scopes: Vec<ScopeHours>,
    /// The copies of every duplicate group, group after group in the order of
    /// [`Triage::duplicates`], each group's in the order of its members.
    pub copies: Arc<Vec<Copy>>,
    /// Where each group's copies start in `copies` (one more than the groups).
    pub starts: Arc<Vec<u32>>,
    /// When each conflict arose (its latest attempt, else its original), in
    /// the order of [`Triage::conflicts`].
    pub conflicts_ms: Vec<Option<Millis>>,
    /// The suspected bot receipts, ascending by id.
    pub bots: Vec<Placed>,
    /// Receipts whose response was sent again, to retries with their key or
    /// to exact copies the intake absorbed, ascending by id.
    pub answered: Vec<Placed>,
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
    /// `triage` (found in it), with the replays and absorbed copies per
    /// receipt.
    pub fn collect(
        store: &FactStore,
        triage: &Arc<Triage>,
        replays: &HashMap<ReceiptId, u32>,
        absorbed: &HashMap<ReceiptId, u32>,
    ) -> Self {
        Collector::default().collect(store, triage, replays, absorbed)
    }

    /// The activity of whole receipts (a reading made by hand, as tests and
    /// tools make them): the same summary as [`Activity::collect`] makes of
    /// the engine's facts.
    pub fn of_receipts(
        receipts: &[Receipt],
        triage: &Triage,
        replays: &HashMap<ReceiptId, u32>,
        absorbed: &HashMap<ReceiptId, u32>,
    ) -> Self {
        let mut store = FactStore::new();
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
        Self::collect(&store, &Arc::new(triage.clone()), replays, absorbed)
    }

    /// Bytes held (for measurements; shared copies counted whole).
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
            + (self.bots.capacity() + self.answered.capacity()) * std::mem::size_of::<Placed>()
    }
}

/// What is looked up of a receipt an item names; a receipt's scope, time
/// and key never change in place.
#[derive(Clone, Copy, Debug)]
struct Fact {
    /// The store's scope id.
    scope: u32,
    created_ms: Millis,
    key: Option<u64>,
}

impl Fact {
    fn of(r: &ReceiptFact) -> Self {
        Fact {
            scope: r.scope,
            created_ms: r.created_ms,
            key: r.has_key().then_some(r.key_hash),
        }
    }
}

/// Collects the activity of one store again and again: the hours of the
/// receipts counted so far are kept, and so are the copies of each group
/// (by the group's shared pointer, in the reading's order), the facts of
/// the receipts the lists named, and the lists last made. Any sign that the
/// store is not the one counted (fewer receipts, or another receipt where
/// the last counted one was) starts it over.
#[derive(Debug, Default)]
pub struct Collector {
    /// Hours by the store's scope id.
    hours: Vec<BTreeMap<i64, Hour>>,
    /// How many of the store's receipts are in `hours`, and the last one's id.
    counted: usize,
    last_id: Option<ReceiptId>,
    /// The last reading's items (held, so that a group's address names it
    /// until the next), and its groups' copies.
    triage: Option<Arc<Triage>>,
    copies: Arc<Vec<Copy>>,
    starts: Arc<Vec<u32>>,
    /// Facts of the receipts conflicts, bots, replays and absorbed copies named.
    facts: foldhash::HashMap<ReceiptId, Fact>,
    /// The bots last placed, for the ids they were placed for.
    bots: (Vec<ReceiptId>, Vec<Placed>),
    /// The answered receipts last placed, for what was counted of them.
    answered: (AnsweredCounts, Vec<Placed>),
    /// The store's scope ids in name order, as the lists were placed.
    scope_order: Vec<usize>,
}

/// The receipts and rows counted of replays and of absorbed copies: the same
/// counts are taken for the same lists (a list is placed again otherwise).
type AnsweredCounts = [(usize, u64); 2];

/// With more receipts to find than one in this many of the store's, a walk
/// of every fact is quicker than looking each one up.
const WALK_WHEN: usize = 16;

/// How far ahead in the last reading's groups a group is looked for before
/// it is taken for a new one.
const LOOK_AHEAD: usize = 4;

impl Collector {
    /// Forgets everything: the next collection counts every receipt.
    pub fn reset(&mut self) {
        *self = Collector::default();
    }

    /// The activity of `store`'s receipts and `triage`'s items.
    pub fn collect(
        &mut self,
        store: &FactStore,
        triage: &Arc<Triage>,
        replays: &HashMap<ReceiptId, u32>,
        absorbed: &HashMap<ReceiptId, u32>,
    ) -> Activity {
        let same = self.counted <= store.receipts.len()
            && self
                .counted
                .checked_sub(1)
                .is_none_or(|i| Some(store.receipts[i].id) == self.last_id);
        if !same {
            self.reset();
        }
        self.count_hours(&store.receipts[self.counted..]);
        self.counted = store.receipts.len();
        self.last_id = store.receipts.last().map(|r| r.id);

        // The groups of the last reading, found in order (a group that
        // gained a copy is a new one in its place); the others are new.
        let before: &[Arc<DuplicateGroup>] = self.triage.as_ref().map_or(&[], |t| &t.duplicates);
        let mut kept: Vec<Option<usize>> = Vec::with_capacity(triage.duplicates.len());
        let mut at = 0;
        for g in &triage.duplicates {
            let ahead = before.get(at..).unwrap_or_default();
            let found = ahead
                .iter()
                .take(LOOK_AHEAD)
                .position(|old| Arc::ptr_eq(old, g));
            kept.push(found.map(|k| {
                at += k + 1;
                at - 1
            }));
        }
        let unchanged = before.len() == triage.duplicates.len()
            && kept.iter().enumerate().all(|(i, k)| *k == Some(i));
        let mut missing: Vec<ReceiptId> = triage
            .duplicates
            .iter()
            .zip(&kept)
            .filter(|(_, k)| k.is_none())
            .flat_map(|(g, _)| g.members.iter().map(|m| m.id))
            .collect();
        let members = look_up(store, &mut missing);
        // Only the lists that changed can name a receipt not seen before.
        let old = self.triage.as_deref();
        let conflicts_same = old.is_some_and(|o| {
            o.conflicts.len() == triage.conflicts.len()
                && o.conflicts
                    .iter()
                    .zip(&triage.conflicts)
                    .all(|(a, b)| Arc::ptr_eq(a, b))
        });
        let bots_same = self.bots.0 == triage.suspected_bots;
        let counts = [replays, absorbed].map(|per| {
            let total: u64 = per.values().map(|&n| u64::from(n)).sum();
            (per.len(), total)
        });
        let answered_same = self.answered.0 == counts;
        let mut named: Vec<ReceiptId> = Vec::new();
        if !conflicts_same {
            named.extend(triage.conflicts.iter().map(|c| c.receipt_id));
        }
        if !bots_same {
            named.extend(&triage.suspected_bots);
        }
        if !answered_same {
            named.extend(replays.keys().chain(absorbed.keys()));
        }
        named.retain(|id| !self.facts.contains_key(id));
        self.facts.extend(look_up(store, &mut named));

        if !unchanged {
            let mut copies = Vec::with_capacity(self.copies.len() + missing.len());
            let mut starts = Vec::with_capacity(triage.duplicates.len() + 1);
            for (g, k) in triage.duplicates.iter().zip(&kept) {
                starts.push(copies.len() as u32);
                match *k {
                    Some(k) => {
                        let (a, b) = (self.starts[k] as usize, self.starts[k + 1] as usize);
                        copies.extend_from_slice(&self.copies[a..b]);
                    }
                    None => copies.extend(g.members.iter().filter_map(|m| {
                        members.get(&m.id).map(|f| Copy {
                            created_ms: f.created_ms,
                            key: f.key,
                        })
                    })),
                }
            }
            starts.push(copies.len() as u32);
            self.copies = Arc::new(copies);
            self.starts = Arc::new(starts);
        }
        self.triage = Some(Arc::clone(triage));

        // Scopes in name order, from the store's ids.
        let mut names: Vec<(&str, usize)> = (0..self.hours.len())
            .filter(|&id| !self.hours[id].is_empty())
            .map(|id| (store.scopes.name(id as u32), id))
            .collect();
        names.sort_unstable();
        let mut place = vec![u32::MAX; store.scopes.len().max(self.hours.len())];
        for (at, &(_, id)) in names.iter().enumerate() {
            place[id] = at as u32;
        }
        let scopes = names
            .iter()
            .map(|&(name, id)| ScopeHours {
                scope: name.to_string(),
                hours: self.hours[id].iter().map(|(&h, &n)| (h, n)).collect(),
            })
            .collect();

        let facts = &self.facts;
        let fact = |id: ReceiptId| facts.get(&id);
        let conflicts_ms = triage
            .conflicts
            .iter()
            .map(|c| {
                c.attempts
                    .iter()
                    .filter_map(|a| a.at_ms)
                    .max()
                    .or_else(|| fact(c.receipt_id).map(|f| f.created_ms))
            })
            .collect();
        let placed = |id: ReceiptId, replays: u32, absorbed: u32| {
            fact(id).map(|f| Placed {
                id,
                scope: place.get(f.scope as usize).copied().unwrap_or(u32::MAX),
                created_ms: f.created_ms,
                replays,
                absorbed,
            })
        };
        // The scopes' places change only with a new scope: the lists are
        // made again when their ids (or counts) or the scopes changed.
        let order: Vec<usize> = names.iter().map(|&(_, id)| id).collect();
        let scopes_same = order == self.scope_order;
        self.scope_order = order;
        if !scopes_same || !bots_same {
            let bots = triage
                .suspected_bots
                .iter()
                .filter_map(|&id| placed(id, 0, 0))
                .collect();
            self.bots = (triage.suspected_bots.clone(), bots);
        }
        if !scopes_same || !answered_same {
            let count = |per: &HashMap<ReceiptId, u32>, id| per.get(&id).copied().unwrap_or(0);
            let mut ids: Vec<ReceiptId> = replays.keys().chain(absorbed.keys()).copied().collect();
            ids.sort_unstable();
            ids.dedup();
            let answered = ids
                .into_iter()
                .map(|id| (id, count(replays, id), count(absorbed, id)))
                .filter(|&(_, r, a)| r > 0 || a > 0)
                .filter_map(|(id, r, a)| placed(id, r, a))
                .collect();
            self.answered = (counts, answered);
        }
        Activity {
            scopes,
            copies: Arc::clone(&self.copies),
            starts: Arc::clone(&self.starts),
            conflicts_ms,
            bots: self.bots.1.clone(),
            answered: self.answered.1.clone(),
        }
    }

    /// Counts these receipts into their scopes' hours.
    fn count_hours(&mut self, receipts: &[ReceiptFact]) {
        // Receipts arrive mostly in time order, the scopes' interleaved: each
        // scope's current hour is counted in place, and put in its map only
        // when that scope's next receipt is of another hour.
        let mut current: Vec<(i64, Hour)> = Vec::new();
        for r in receipts {
            let scope = r.scope as usize;
            if scope >= current.len() {
                current.resize(scope + 1, (i64::MIN, Hour::default()));
            }
            let hour = r.created_ms.div_euclid(HOUR_MS);
            let (at, counted) = &mut current[scope];
            if *at != hour {
                if counted.receipts > 0 {
                    add_hour(&mut self.hours, scope, *at, *counted);
                }
                (*at, *counted) = (hour, Hour::default());
            }
            counted.receipts += 1;
            counted.keyless += u32::from(!r.has_key());
        }
        for (scope, (at, counted)) in current.into_iter().enumerate() {
            if counted.receipts > 0 {
                add_hour(&mut self.hours, scope, at, counted);
            }
        }
    }
}

/// The facts of these receipts (those in the store).
fn look_up(store: &FactStore, ids: &mut Vec<ReceiptId>) -> foldhash::HashMap<ReceiptId, Fact> {
    let mut found = foldhash::HashMap::default();
    if ids.is_empty() {
        return found;
    }
    ids.sort_unstable();
    ids.dedup();
    found.reserve(ids.len());
    if ids.len() * WALK_WHEN >= store.receipts.len() {
        // One walk beside the ids: a lookup each misses the cache.
        let mut wanted = ids.iter().copied().peekable();
        for r in &store.receipts {
            while wanted.next_if(|&id| id < r.id).is_some() {}
            if wanted.next_if_eq(&r.id).is_some() {
                found.insert(r.id, Fact::of(r));
            }
            if wanted.peek().is_none() {
                break;
            }
        }
    } else {
        for &id in ids.iter() {
            if let Some(i) = store.index_of(id) {
                found.insert(id, Fact::of(&store.receipts[i as usize]));
            }
        }
    }
    found
}

fn add_hour(hours: &mut Vec<BTreeMap<i64, Hour>>, scope: usize, at: i64, h: Hour) {
    if scope >= hours.len() {
        hours.resize_with(scope + 1, BTreeMap::new);
    }
    let into = hours[scope].entry(at).or_default();
    into.receipts += h.receipts;
    into.keyless += h.keyless;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ReceiptState;
    use crate::triage::model::{GapClass, MatchKind, Member, VisitorFields};

    fn receipt(id: ReceiptId, scope: &str, key: Option<&str>, created_ms: Millis) -> Receipt {
        Receipt {
            id,
            scope: scope.into(),
            request_key: key.map(str::to_string),
            digest: String::new(),
            state: ReceiptState::Completed,
            created_ms,
            updated_ms: None,
            visitor: VisitorFields::default(),
            honeypot_filled: false,
        }
    }

    fn store_of(receipts: &[Receipt]) -> FactStore {
        let mut store = FactStore::new();
        let random = store.random;
        for r in receipts {
            let scope = store.scopes.intern(&r.scope, 0, &random);
            store.receipts.push(ReceiptFact {
                id: r.id,
                created_ms: r.created_ms,
                fingerprint: 0,
                fp_check: 0,
                key_hash: r.request_key.as_deref().map_or(0, |k| hash::str(0, k)),
                fields: 0,
                scope,
                key_check: 0,
                nfields: 0,
                body: NONE16,
                state: r.state,
                flags: if r.request_key.is_some() { FLAG_KEY } else { 0 },
            });
        }
        store
    }

    #[test]
    fn a_collector_kept_between_readings_gives_what_a_fresh_one_gives() {
        let mut receipts: Vec<Receipt> = (1..=40)
            .map(|i| {
                let scope = if i % 3 == 0 { "b" } else { "a" };
                let key = (i % 4 != 0).then(|| format!("k{i}"));
                receipt(i, scope, key.as_deref(), i * 20 * 60_000)
            })
            .collect();
        let group = |ids: &[i64]| {
            Arc::new(DuplicateGroup {
                scope: "a".into(),
                class: GapClass::Minutes,
                members: ids
                    .iter()
                    .map(|&id| Member {
                        id,
                        match_kind: MatchKind::Exact,
                        fields: vec![],
                        sentence_changes: Vec::new(),
                    })
                    .collect(),
                gaps_ms: vec![60_000; ids.len() - 1],
            })
        };
        let mut triage = Triage {
            duplicates: vec![group(&[1, 2])],
            suspected_bots: vec![5],
            ..Triage::default()
        };
        let replays = HashMap::from([(7, 2u32)]);
        let mut absorbed = HashMap::from([(7, 1u32), (9, 3)]);
        let mut kept = Collector::default();
        let first = kept.collect(
            &store_of(&receipts),
            &Arc::new(triage.clone()),
            &replays,
            &absorbed,
        );
        assert_eq!(
            first,
            Activity::collect(
                &store_of(&receipts),
                &Arc::new(triage.clone()),
                &replays,
                &absorbed
            )
        );
        let answered: Vec<_> = first
            .answered
            .iter()
            .map(|p| (p.id, p.replays, p.absorbed))
            .collect();
        assert_eq!(answered, [(7, 2, 1), (9, 0, 3)]);
        // Receipts appended, a group changed, another bot.
        receipts.extend((41..=60).map(|i| receipt(i, "c", None, i * 20 * 60_000)));
        triage.duplicates = vec![Arc::clone(&triage.duplicates[0]), group(&[41, 42, 43])];
        triage.suspected_bots.push(50);
        // And an exact copy of an appended receipt absorbed.
        absorbed.insert(41, 1);
        let store = store_of(&receipts);
        let again = kept.collect(&store, &Arc::new(triage.clone()), &replays, &absorbed);
        assert_eq!(
            again,
            Activity::collect(&store, &Arc::new(triage.clone()), &replays, &absorbed)
        );
        assert_eq!(
            again.answered.last().map(|p| (p.id, p.absorbed)),
            Some((41, 1))
        );
        assert_eq!(again.copies_of(1).len(), 3);
        assert_eq!(again.copies_of(1)[0].key, None);
        let c = &again.scopes[again.scope_index("c").unwrap()];
        assert_eq!(c.hours.iter().map(|(_, h)| h.keyless).sum::<u32>(), 20);
        // Another store (fewer receipts): counted again from the start.
        let fewer = store_of(&receipts[..10]);
        assert_eq!(
            kept.collect(&fewer, &Arc::default(), &HashMap::new(), &HashMap::new()),
            Activity::collect(&fewer, &Arc::default(), &HashMap::new(), &HashMap::new())
        );
    }
}
