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
//!
//! A sweep can also resume: positions whose placement is already known are
//! replayed (they rebuild the blocking index exactly as the first sweep left
//! it) and only the positions after them are decided. See [`Resume`].

use rayon::prelude::*;

use super::blocking::{Index, all_but_one_key};
use super::facts::{FactStore, ReceiptFact};
use super::model::{DuplicateGroup, GapClass, MatchKind, Member};
use super::near::{self, Ctx};
use crate::model::{Millis, Settings};

const NONE: u32 = u32::MAX;

/// Where a receipt was placed: the index of its group's anchor (itself for an
/// anchor) and how it matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub anchor: u32,
    pub kind: MatchKind,
}

/// A sweep that picks up from known placements (see [`sweep`]).
#[derive(Clone, Debug, Default)]
pub struct Resume {
    /// Positions `0..anchors.len()` are anchors of groups that began before
    /// the replayed positions, with the time of their newest copy so far.
    pub anchors: Vec<Millis>,
    /// The next positions, with their known placements (as positions).
    pub replay: Vec<(u32, MatchKind)>,
}

/// Receipts with visitor fields, by scope id, each scope in sweep order
/// (time, then index, which follows id).
pub fn scope_runs(store: &FactStore) -> Vec<Vec<u32>> {
    let mut runs: Vec<Vec<u32>> = vec![Vec::new(); store.scopes.len()];
    for (i, r) in store.receipts.iter().enumerate() {
        if !r.is_empty() {
            runs[r.scope as usize].push(i as u32);
        }
    }
    runs.par_iter_mut().for_each(|run| {
        if !run.is_sorted_by_key(|&i| store.receipts[i as usize].created_ms) {
            let mut keyed: Vec<(Millis, u32)> = run
                .iter()
                .map(|&i| (store.receipts[i as usize].created_ms, i))
                .collect();
            keyed.par_sort_unstable();
            *run = keyed.into_iter().map(|k| k.1).collect();
        }
    });
    runs
}

/// All duplicate groups, ordered by (earliest copy time, id).
pub fn duplicate_groups(ctx: Ctx<'_>, settings: &Settings) -> Vec<DuplicateGroup> {
    sweep_runs(ctx, &scope_runs(ctx.store), settings.window_ms, None)
}

/// Sweeps every scope's run; with `placements`, also records where every
/// receipt with fields was placed (by receipt index; others `None`).
pub fn sweep_runs(
    ctx: Ctx<'_>,
    runs: &[Vec<u32>],
    window_ms: Millis,
    placements: Option<&mut Vec<Option<Placement>>>,
) -> Vec<DuplicateGroup> {
    let wanted = placements.is_some();
    type Swept = (Vec<(Millis, DuplicateGroup)>, Vec<(u32, Placement)>);
    let pieces: Vec<&[u32]> = runs
        .iter()
        .flat_map(|run| pieces(ctx.store, run, window_ms))
        .collect();
    let swept: Vec<Swept> = pieces
        .par_iter()
        .map(|&items| {
            let placed = sweep(ctx, items, window_ms, &Resume::default());
            let global: Vec<(u32, Placement)> = if wanted {
                placed
                    .iter()
                    .enumerate()
                    .map(|(pos, &(anchor, kind))| {
                        let anchor = items[anchor as usize];
                        (items[pos], Placement { anchor, kind })
                    })
                    .collect()
            } else {
                Vec::new()
            };
            (groups_of(ctx, items, &placed), global)
        })
        .collect();
    let mut all = placements;
    if let Some(p) = all.as_deref_mut() {
        p.clear();
        p.resize(ctx.store.receipts.len(), None);
    }
    let mut groups: Vec<(Millis, DuplicateGroup)> = Vec::new();
    for (g, placed) in swept {
        groups.extend(g);
        if let Some(p) = all.as_deref_mut() {
            for (i, placement) in placed {
                p[i as usize] = Some(placement);
            }
        }
    }
    groups.par_sort_unstable_by_key(|(t, g)| (*t, g.members[0].id));
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Where the replayed span of a continued sweep starts: the first position
/// in the epoch before the one of position `first_new`.
pub fn span_start(store: &FactStore, run: &[u32], first_new: usize, window_ms: Millis) -> usize {
    if first_new >= run.len() {
        return run.len();
    }
    let epoch_ms = window_ms.max(1);
    let epoch = store.receipts[run[first_new] as usize]
        .created_ms
        .div_euclid(epoch_ms);
    let span_ms = epoch.saturating_sub(1).saturating_mul(epoch_ms);
    run[..first_new].partition_point(|&i| store.receipts[i as usize].created_ms < span_ms)
}

/// Cuts a run into pieces that can be swept apart: no group spans a gap of
/// more than a window between two copies (every group is dead after it, so
/// what comes after decides as a fresh sweep would). Pieces are kept large
/// enough that sweeping them one by one costs nothing extra.
fn pieces<'r>(store: &FactStore, run: &'r [u32], window_ms: Millis) -> Vec<&'r [u32]> {
    const LARGE: usize = 1 << 14;
    let created = |i: u32| store.receipts[i as usize].created_ms;
    let mut out = Vec::new();
    let mut start = 0;
    for p in 1..run.len() {
        if p - start >= LARGE && created(run[p]) - created(run[p - 1]) > window_ms.max(0) {
            out.push(&run[start..p]);
            start = p;
        }
    }
    if start < run.len() {
        out.push(&run[start..]);
    }
    out
}

/// What re-sweeping the end of one scope changed.
#[derive(Debug, Default)]
pub struct Resweep {
    /// Anchors (receipt indices) whose groups may have changed: their old
    /// groups are replaced by `groups`.
    pub touched: Vec<u32>,
    /// The groups of two copies or more among the touched anchors, as they
    /// are now, each with its anchor's time.
    pub groups: Vec<(Millis, DuplicateGroup)>,
}

/// Re-sweeps one scope after receipts were added to it. `run` is the scope's
/// receipt indices in sweep order, added ones included, and `first_new` the
/// position of the earliest added one. `placements` (by receipt index) is
/// updated; `old_group` gives the current group of an anchor, by its id.
///
/// Placements before `first_new` cannot change (a sweep never looks ahead).
/// The blocking index there holds only what was registered during the
/// epoch of `first_new` and the one before, so the sweep replays the known
/// placements of that span (rebuilding the index exactly) and decides the
/// rest. Groups begun earlier that are still live then enter with the time
/// of their newest copy before the span.
pub fn resweep<'g>(
    ctx: Ctx<'_>,
    run: &[u32],
    first_new: usize,
    window_ms: Millis,
    placements: &mut [Option<Placement>],
    old_group: &dyn Fn(i64) -> Option<&'g DuplicateGroup>,
) -> Resweep {
    let store = ctx.store;
    let created = |pos: usize| store.receipts[run[pos] as usize].created_ms;
    let from = span_start(store, run, first_new, window_ms);
    let span_ms = created(from).min(created(first_new));
    let lookback = span_ms.saturating_sub(window_ms.max(0));
    let before = run[..from].partition_point(|&i| store.receipts[i as usize].created_ms < lookback);

    // Groups begun before the span that a replayed copy joins.
    let placed = |i: u32| placements[i as usize].expect("placed");
    let in_span: std::collections::HashMap<u32, usize> = run[from..]
        .iter()
        .enumerate()
        .map(|(k, &i)| (i, k))
        .collect();
    let mut external: Vec<u32> = run[from..first_new]
        .iter()
        .map(|&i| placed(i).anchor)
        .filter(|a| !in_span.contains_key(a))
        .collect();
    external.sort_unstable_by_key(|&a| (store.receipts[a as usize].created_ms, a));
    external.dedup();
    let mut last: std::collections::HashMap<u32, Millis> = std::collections::HashMap::new();
    for &i in &run[before..from] {
        let a = placed(i).anchor;
        if external
            .binary_search_by_key(&(store.receipts[a as usize].created_ms, a), |&x| {
                (store.receipts[x as usize].created_ms, x)
            })
            .is_ok()
        {
            last.insert(a, store.receipts[i as usize].created_ms);
        }
    }
    let pre = external.len();
    let items: Vec<u32> = external
        .iter()
        .copied()
        .chain(run[from..].iter().copied())
        .collect();
    let position = |a: u32| -> u32 {
        match in_span.get(&a) {
            Some(&k) => (pre + k) as u32,
            None => external
                .iter()
                .position(|&x| x == a)
                .expect("an external anchor") as u32,
        }
    };
    let resume = Resume {
        anchors: external
            .iter()
            .map(|a| {
                last.get(a)
                    .copied()
                    .unwrap_or(store.receipts[*a as usize].created_ms)
            })
            .collect(),
        replay: run[from..first_new]
            .iter()
            .map(|&i| {
                let p = placed(i);
                (position(p.anchor), p.kind)
            })
            .collect(),
    };
    let swept = sweep(ctx, &items, window_ms, &resume);

    // Old and new anchors of every position from the span on.
    let mut touched: Vec<u32> = run[from..]
        .iter()
        .filter_map(|&i| placements[i as usize].map(|p| p.anchor))
        .collect();
    for (k, &i) in run[from..].iter().enumerate() {
        let (anchor, kind) = swept[pre + k];
        let placement = Placement {
            anchor: items[anchor as usize],
            kind,
        };
        debug_assert!(k >= first_new - from || placements[i as usize] == Some(placement));
        placements[i as usize] = Some(placement);
        touched.push(placement.anchor);
    }
    touched.sort_unstable();
    touched.dedup();

    // The touched groups now: members before the span, then those placed since.
    let start_key = (created(from), run[from]);
    let mut groups = Vec::new();
    for &a in &touched {
        let anchor = &store.receipts[a as usize];
        let mut members: Vec<Member> = match old_group(anchor.id) {
            Some(g) => g
                .members
                .iter()
                .filter(|m| {
                    store
                        .index_of(m.id)
                        .is_some_and(|i| (store.receipts[i as usize].created_ms, i) < start_key)
                })
                .cloned()
                .collect(),
            None if (anchor.created_ms, a) < start_key => {
                vec![member(ctx, a, a, MatchKind::Exact)]
            }
            None => Vec::new(),
        };
        for (k, &i) in run[from..].iter().enumerate() {
            let (anchor_pos, kind) = swept[pre + k];
            if items[anchor_pos as usize] == a {
                members.push(member(ctx, a, i, kind));
            }
        }
        if members.len() >= 2 {
            let mut g = DuplicateGroup {
                scope: store.scopes.name(anchor.scope).to_string(),
                class: GapClass::Simultaneous,
                members,
                gaps_ms: Vec::new(),
            };
            finish_group(store, &mut g);
            groups.push((anchor.created_ms, g));
        }
    }
    Resweep { touched, groups }
}

/// The groups of two or more copies among swept positions, each with the time
/// of its anchor.
pub fn groups_of(
    ctx: Ctx<'_>,
    items: &[u32],
    placed: &[(u32, MatchKind)],
) -> Vec<(Millis, DuplicateGroup)> {
    let store = ctx.store;
    let mut size = vec![0u32; items.len()];
    for &(anchor, _) in placed {
        size[anchor as usize] += 1;
    }
    let mut slot = vec![NONE; items.len()];
    // Each group with the time of its newest copy so far.
    let mut out: Vec<(Millis, DuplicateGroup, Millis)> = Vec::new();
    for (pos, &(anchor, kind)) in placed.iter().enumerate() {
        let a = anchor as usize;
        if size[a] < 2 {
            continue;
        }
        let at = store.receipts[items[pos] as usize].created_ms;
        if slot[a] == NONE {
            slot[a] = out.len() as u32;
            let r = &store.receipts[items[a] as usize];
            out.push((
                r.created_ms,
                DuplicateGroup {
                    scope: store.scopes.name(r.scope).to_string(),
                    class: GapClass::Simultaneous,
                    members: Vec::with_capacity(size[a] as usize),
                    gaps_ms: Vec::with_capacity(size[a] as usize - 1),
                },
                at,
            ));
        }
        let member = member(ctx, items[a], items[pos], kind);
        let (_, g, last) = &mut out[slot[a] as usize];
        if !g.members.is_empty() {
            g.gaps_ms.push(at - *last);
        }
        *last = at;
        g.members.push(member);
    }
    out.into_iter()
        .map(|(t, mut g, _)| {
            g.class = GapClass::of_gap(g.gaps_ms.iter().copied().max().unwrap_or(0));
            (t, g)
        })
        .collect()
}

/// A member of the group anchored at receipt `anchor`.
pub fn member(ctx: Ctx<'_>, anchor: u32, index: u32, kind: MatchKind) -> Member {
    let store = ctx.store;
    Member {
        id: store.receipts[index as usize].id,
        match_kind: kind,
        fields: if kind == MatchKind::Exact {
            Vec::new()
        } else {
            near::reason_fields(store, anchor, index)
        },
        sentence_changes: if kind == MatchKind::Edited {
            near::sentence_changes(ctx, anchor, index)
        } else {
            Vec::new()
        },
    }
}

/// Gaps and class of a group whose members are in place.
pub fn finish_group(store: &FactStore, g: &mut DuplicateGroup) {
    let time = |id| {
        store
            .index_of(id)
            .map_or(0, |i| store.receipts[i as usize].created_ms)
    };
    let times: Vec<Millis> = g.members.iter().map(|m| time(m.id)).collect();
    g.gaps_ms = times.windows(2).map(|w| w[1] - w[0]).collect();
    g.class = GapClass::of_gap(g.gaps_ms.iter().copied().max().unwrap_or(0));
}

/// Sweeps one scope's receipts (`items`, receipt indices in sweep order) and
/// returns the placement of every position: its anchor's position and kind.
/// Positions covered by `resume` keep what it says.
pub fn sweep(
    ctx: Ctx<'_>,
    items: &[u32],
    window_ms: Millis,
    resume: &Resume,
) -> Vec<(u32, MatchKind)> {
    let mut s = Sweep::new(ctx, items, window_ms);
    let pre = resume.anchors.len();
    for (pos, &last) in resume.anchors.iter().enumerate() {
        s.group_of[pos] = pos as u32;
        s.last_ms[pos] = last;
        s.registered_epoch[pos] = s.index.epoch_of(last);
    }
    for (i, &(anchor, kind)) in resume.replay.iter().enumerate() {
        s.replay((pre + i) as u32, anchor, kind);
    }
    for pos in (pre + resume.replay.len())..items.len() {
        s.place(pos as u32);
    }
    s.group_of
        .iter()
        .zip(&s.kind)
        .map(|(&g, &k)| (g, k))
        .collect()
}

struct Sweep<'a> {
    ctx: Ctx<'a>,
    /// Receipt indices of this scope, in time order; "positions" index it.
    items: &'a [u32],
    window_ms: Millis,
    index: Index,
    /// The anchor position of each position's group.
    group_of: Vec<u32>,
    kind: Vec<MatchKind>,
    seen: Vec<u32>,
    /// At anchor positions: the time of the group's newest copy...
    last_ms: Vec<Millis>,
    /// ...and the epoch the anchor was last registered in.
    registered_epoch: Vec<i64>,
    scratch: Vec<u32>,
}

impl<'a> Sweep<'a> {
    fn new(ctx: Ctx<'a>, items: &'a [u32], window: Millis) -> Self {
        let window_ms = window.max(0);
        let n = items.len();
        Self {
            ctx,
            items,
            window_ms,
            index: Index::new(window_ms),
            group_of: vec![NONE; n],
            kind: vec![MatchKind::Exact; n],
            seen: vec![NONE; n],
            last_ms: vec![0; n],
            registered_epoch: vec![0; n],
            scratch: Vec::new(),
        }
    }

    #[inline]
    fn receipt(&self, pos: u32) -> &'a ReceiptFact {
        &self.ctx.store.receipts[self.items[pos as usize] as usize]
    }

    fn place(&mut self, pos: u32) {
        let now = self.receipt(pos).created_ms;
        let epoch = self.index.advance(now);
        let horizon = now.saturating_sub(self.window_ms);
        let fingerprint = self.receipt(pos).fingerprint;

        // 1. The newest earlier copy with the same fingerprint.
        if let Some(prev) = self.index.newest_with(fingerprint, horizon) {
            let g = self.group_of[prev as usize];
            if self.last_ms[g as usize] >= horizon
                && self.receipt(prev).fp_check == self.receipt(pos).fp_check
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
            let last = self.last_ms[g as usize];
            if last < horizon {
                continue;
            }
            let (ia, ib) = (self.items[anchor as usize], self.items[pos as usize]);
            let Some(kind) = near::likeness(self.ctx, ia, ib) else {
                continue;
            };
            let a = self.receipt(anchor);
            let recency = (last, a.created_ms, a.id);
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
        self.create(pos, now, epoch);
    }

    /// Places a position whose placement is known, with the same effect on
    /// the index as [`Self::place`] had.
    fn replay(&mut self, pos: u32, anchor: u32, kind: MatchKind) {
        let now = self.receipt(pos).created_ms;
        let epoch = self.index.advance(now);
        if anchor == pos {
            self.create(pos, now, epoch);
        } else {
            self.join(anchor, pos, kind, epoch);
        }
    }

    fn create(&mut self, pos: u32, now: Millis, epoch: i64) {
        let p = pos as usize;
        self.group_of[p] = pos;
        self.kind[p] = MatchKind::Exact;
        self.last_ms[p] = now;
        self.registered_epoch[p] = epoch;
        let fingerprint = self.receipt(pos).fingerprint;
        self.index.note_fingerprint(fingerprint, pos, true);
        self.register_anchor(pos);
    }

    fn join(&mut self, g: u32, pos: u32, kind: MatchKind, epoch: i64) {
        let now = self.receipt(pos).created_ms;
        let fingerprint = self.receipt(pos).fingerprint;
        self.last_ms[g as usize] = now;
        self.group_of[pos as usize] = g;
        self.kind[pos as usize] = kind;
        let renew = self.registered_epoch[g as usize] < epoch;
        if renew {
            self.registered_epoch[g as usize] = epoch;
        }
        self.index.note_fingerprint(fingerprint, pos, true);
        if renew {
            // The group outlives its anchor's registration: register it again.
            self.index
                .note_fingerprint(self.receipt(g).fingerprint, g, false);
            self.register_anchor(g);
        }
    }

    /// Puts an anchor in the current generation's blocking lists.
    fn register_anchor(&mut self, anchor: u32) {
        let store = self.ctx.store;
        let fields = store.fields_at(self.items[anchor as usize]);
        let generation = self.index.current_mut();
        let pair_sum = pair_sum(store, fields);
        let mut telling: Option<(std::cmp::Reverse<u32>, u64)> = None;
        for f in fields {
            let pair = store.pair(f);
            generation.all_pairs.push(pair, anchor);
            if f.tokens() >= 2 {
                let key_hash = store.keys.hash(f.key());
                generation
                    .all_but_one
                    .push(all_but_one_key(pair_sum, pair, key_hash), anchor);
            }
            let t = (std::cmp::Reverse(f.chars_hint()), pair);
            if telling.is_none_or(|best| t < best) {
                telling = Some(t);
            }
        }
        if let Some((_, pair)) = telling {
            generation.one_pair.push(pair, anchor);
        }
    }

    /// Anchors (positions) in live generations that may be near `pos`, each once.
    fn candidates(&mut self, pos: u32, horizon: Millis, out: &mut Vec<u32>) {
        out.clear();
        let store = self.ctx.store;
        let fields = store.fields_at(self.items[pos as usize]);
        let seen = &mut self.seen;
        let mut take = |a: u32| {
            if seen[a as usize] != pos {
                seen[a as usize] = pos;
                out.push(a);
            }
        };
        let could_be_subset = fields.len() >= 2 || fields.iter().any(|f| f.is_free_text());
        let pair_sum = pair_sum(store, fields);
        let telling = telling_pair(store, fields);
        for generation in self.index.live(horizon) {
            // An anchor this copy is a subset of holds every one of its pairs:
            // one list is enough, the one of its most telling pair.
            if could_be_subset && let Some(pair) = telling {
                generation.all_pairs.for_each(pair, &mut take);
            }
            for f in fields {
                let pair = store.pair(f);
                // An anchor that is a subset of this copy holds its telling pair.
                generation.one_pair.for_each(pair, &mut take);
                if f.tokens() >= 2 {
                    let key = all_but_one_key(pair_sum, pair, store.keys.hash(f.key()));
                    generation.all_but_one.for_each(key, &mut take);
                }
            }
        }
    }
}

/// The pair least likely to be shared by chance: the longest value (then the
/// smallest hash, so that the choice never depends on field order). Any fixed
/// choice finds the same candidates; a rare pair finds them fastest.
fn telling_pair(store: &FactStore, fields: &[super::facts::FieldFact]) -> Option<u64> {
    fields
        .iter()
        .map(|f| (std::cmp::Reverse(f.chars_hint()), store.pair(f)))
        .min()
        .map(|(_, pair)| pair)
}

fn pair_sum(store: &FactStore, fields: &[super::facts::FieldFact]) -> u64 {
    fields
        .iter()
        .fold(0u64, |s, f| s.wrapping_add(store.pair(f)))
}
