//! Duplicate groups: one sweep per scope in time order.
//!
//! Every copy either continues a live group or starts one (it is then the
//! group's *anchor*, its earliest copy). A group is live while its newest copy
//! is at most a window old. A copy joins, in this order of preference:
//! 1. the group of the newest earlier copy with the same fingerprint (exact;
//!    an exact copy of a near member carries that member's match kind);
//! 2. among live groups whose anchor it is near (partial or edited), the most
//!    recent one (newest copy, then newest anchor).
//!
//! Likeness is judged against anchors only: copies that are only like a
//! non-anchor member start a group of their own.

use rayon::prelude::*;

use super::blocking::{Index, all_but_one_key};
use super::facts::Facts;
use super::model::{DuplicateGroup, GapClass, MatchKind, Member, Millis, Receipt, Settings};
use super::near::{self, Side};

const NONE: u32 = u32::MAX;

/// All duplicate groups of the receipts, ordered by (earliest copy time, id).
pub fn duplicate_groups(
    receipts: &[Receipt],
    facts: &[Facts],
    settings: &Settings,
) -> Vec<DuplicateGroup> {
    // Receipts with something typed, by scope then time (compact keys, no
    // indirection while sorting).
    let mut keys: Vec<(u64, Millis, i64, u32)> = receipts
        .par_iter()
        .zip(facts)
        .enumerate()
        .filter(|(_, (_, f))| !f.is_empty())
        .map(|(i, (r, f))| (f.scope, r.created_ms, r.id, i as u32))
        .collect();
    keys.par_sort_unstable();
    let mut runs: Vec<Vec<u32>> = Vec::new();
    for run in keys.chunk_by(|a, b| a.0 == b.0) {
        let mut items: Vec<u32> = run.iter().map(|k| k.3).collect();
        let scope = |i: &u32| &receipts[*i as usize].scope;
        if items.iter().any(|i| scope(i) != scope(&items[0])) {
            // Two scopes share a hash: split them, keeping time order.
            items.sort_by(|a, b| scope(a).cmp(scope(b)));
            runs.extend(
                items
                    .chunk_by(|a, b| scope(a) == scope(b))
                    .map(<[u32]>::to_vec),
            );
        } else {
            runs.push(items);
        }
    }
    let mut groups: Vec<(Millis, DuplicateGroup)> = runs
        .par_iter()
        .flat_map_iter(|run| Sweep::new(receipts, facts, run, settings.window_ms).run())
        .collect();
    groups.par_sort_unstable_by_key(|(t, g)| (*t, g.members[0].id));
    groups.into_iter().map(|(_, g)| g).collect()
}

struct Group {
    anchor: u32,
    last_ms: Millis,
    members: Vec<u32>,
    registered_epoch: i64,
}

struct Sweep<'a> {
    receipts: &'a [Receipt],
    facts: &'a [Facts],
    /// Global receipt indices of this scope, in time order; "positions" index it.
    items: &'a [u32],
    window_ms: Millis,
    index: Index,
    group_of: Vec<u32>,
    kind: Vec<MatchKind>,
    seen: Vec<u32>,
    groups: Vec<Group>,
    scratch: Vec<u32>,
}

impl<'a> Sweep<'a> {
    fn new(receipts: &'a [Receipt], facts: &'a [Facts], items: &'a [u32], window: Millis) -> Self {
        let window_ms = window.max(0);
        Self {
            receipts,
            facts,
            items,
            window_ms,
            index: Index::new(window_ms),
            group_of: vec![NONE; items.len()],
            kind: vec![MatchKind::Exact; items.len()],
            seen: vec![NONE; items.len()],
            groups: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn receipt(&self, pos: u32) -> &'a Receipt {
        &self.receipts[self.items[pos as usize] as usize]
    }

    fn facts(&self, pos: u32) -> &'a Facts {
        &self.facts[self.items[pos as usize] as usize]
    }

    fn side(&self, pos: u32) -> Side<'a> {
        Side {
            receipt: self.receipt(pos),
            facts: self.facts(pos),
        }
    }

    fn run(mut self) -> Vec<(Millis, DuplicateGroup)> {
        for pos in 0..self.items.len() as u32 {
            self.place(pos);
        }
        self.finish()
    }

    fn place(&mut self, pos: u32) {
        let now = self.receipt(pos).created_ms;
        let epoch = self.index.advance(now);
        let horizon = now.saturating_sub(self.window_ms);
        let fingerprint = self.facts(pos).fingerprint;

        // 1. The newest earlier copy with the same fingerprint.
        if let Some(prev) = self.index.newest_with(fingerprint, horizon) {
            let g = self.group_of[prev as usize];
            if self.groups[g as usize].last_ms >= horizon
                && self.receipt(prev).visitor == self.receipt(pos).visitor
            {
                let kind = self.kind[prev as usize];
                self.join(g, pos, kind, epoch);
                return;
            }
        }

        // 2. The most recent live group whose anchor this copy is near.
        let mut best: Option<(u32, MatchKind, (Millis, Millis, i64))> = None;
        let mut candidates = std::mem::take(&mut self.scratch);
        self.candidates(pos, horizon, &mut candidates);
        for &anchor in &candidates {
            let g = self.group_of[anchor as usize];
            let group = &self.groups[g as usize];
            if group.last_ms < horizon {
                continue;
            }
            let Some(kind) = near::likeness(self.side(anchor), self.side(pos)) else {
                continue;
            };
            let a = self.receipt(anchor);
            let recency = (group.last_ms, a.created_ms, a.id);
            if best.as_ref().is_none_or(|b| recency > b.2) {
                best = Some((g, kind, recency));
            }
        }
        self.scratch = candidates;
        if let Some((g, kind, _)) = best {
            self.join(g, pos, kind, epoch);
            return;
        }

        // 3. A new group, with this copy as its anchor.
        let g = self.groups.len() as u32;
        self.groups.push(Group {
            anchor: pos,
            last_ms: now,
            members: vec![pos],
            registered_epoch: epoch,
        });
        self.group_of[pos as usize] = g;
        self.kind[pos as usize] = MatchKind::Exact;
        self.index.note_fingerprint(fingerprint, pos, true);
        self.register_anchor(pos);
    }

    fn join(&mut self, g: u32, pos: u32, kind: MatchKind, epoch: i64) {
        let now = self.receipt(pos).created_ms;
        let fingerprint = self.facts(pos).fingerprint;
        let group = &mut self.groups[g as usize];
        group.members.push(pos);
        group.last_ms = now;
        self.group_of[pos as usize] = g;
        self.kind[pos as usize] = kind;
        let renew = group.registered_epoch < epoch;
        let anchor = group.anchor;
        if renew {
            group.registered_epoch = epoch;
        }
        self.index.note_fingerprint(fingerprint, pos, true);
        if renew {
            // The group outlives its anchor's registration: register it again.
            self.index
                .note_fingerprint(self.facts(anchor).fingerprint, anchor, false);
            self.register_anchor(anchor);
        }
    }

    /// Puts an anchor in the current generation's blocking lists.
    fn register_anchor(&mut self, anchor: u32) {
        let facts = self.facts(anchor);
        let generation = self.index.current_mut();
        let pair_sum = pair_sum(facts);
        for f in facts.fields.iter() {
            let pair = f.pair();
            generation.all_pairs.push(pair, anchor);
            if f.tokens >= 2 {
                generation
                    .all_but_one
                    .push(all_but_one_key(pair_sum, pair, f.key), anchor);
            }
        }
        if let Some(pair) = telling_pair(facts) {
            generation.one_pair.push(pair, anchor);
        }
    }

    /// Anchors (positions) in live generations that may be near `pos`, each once.
    fn candidates(&mut self, pos: u32, horizon: Millis, out: &mut Vec<u32>) {
        out.clear();
        let facts = self.facts(pos);
        let seen = &mut self.seen;
        let mut take = |a: u32| {
            if seen[a as usize] != pos {
                seen[a as usize] = pos;
                out.push(a);
            }
        };
        let could_be_subset =
            facts.fields.len() >= 2 || facts.fields.iter().any(|f| f.is_free_text());
        let pair_sum = pair_sum(facts);
        for generation in self.index.live(horizon) {
            // An anchor this copy is a subset of holds every one of its pairs:
            // one list is enough, the one of its most telling pair.
            if could_be_subset && let Some(pair) = telling_pair(facts) {
                generation.all_pairs.for_each(pair, &mut take);
            }
            for f in facts.fields.iter() {
                // An anchor that is a subset of this copy holds its telling pair.
                generation.one_pair.for_each(f.pair(), &mut take);
                if f.tokens >= 2 {
                    let key = all_but_one_key(pair_sum, f.pair(), f.key);
                    generation.all_but_one.for_each(key, &mut take);
                }
            }
        }
    }

    fn finish(self) -> Vec<(Millis, DuplicateGroup)> {
        let mut out = Vec::new();
        for group in &self.groups {
            if group.members.len() < 2 {
                continue;
            }
            let anchor = self.receipt(group.anchor);
            let members: Vec<Member> = group
                .members
                .iter()
                .map(|&pos| {
                    let kind = self.kind[pos as usize];
                    let r = self.receipt(pos);
                    Member {
                        id: r.id,
                        match_kind: kind,
                        fields: if kind == MatchKind::Exact {
                            Vec::new()
                        } else {
                            near::reason_fields(anchor, r)
                        },
                    }
                })
                .collect();
            let gaps_ms: Vec<Millis> = group
                .members
                .windows(2)
                .map(|w| self.receipt(w[1]).created_ms - self.receipt(w[0]).created_ms)
                .collect();
            let class = GapClass::of_gap(gaps_ms.iter().copied().max().unwrap_or(0));
            let group = DuplicateGroup {
                scope: anchor.scope.clone(),
                class,
                members,
                gaps_ms,
            };
            out.push((anchor.created_ms, group));
        }
        out
    }
}

/// The pair least likely to be shared by chance: the longest value (then the
/// smallest hash, so that the choice never depends on field order).
fn telling_pair(facts: &Facts) -> Option<u64> {
    facts
        .fields
        .iter()
        .map(|f| (std::cmp::Reverse(f.chars), f.pair()))
        .min()
        .map(|(_, pair)| pair)
}

fn pair_sum(facts: &Facts) -> u64 {
    facts
        .fields
        .iter()
        .fold(0u64, |s, f| s.wrapping_add(f.pair()))
}
