//! The triage kept between readings, for a screen that stays open while the
//! intake writes: the facts of every receipt, where each was placed, and the
//! sorted indexes of bodies and request keys. When rows are appended (ids
//! above every id read), only they are inspected, and only what they touch is
//! recomputed: the end of their scopes' sweeps, the campaigns of their
//! bodies, the receipts sharing their keys, conflicts and stuck receipts. The
//! result is the [`Triage`] a full analysis of all rows gives (see the tests).
//!
//! The engine does no I/O. Whoever drives it reads rows, hands them over
//! ([`Engine::begin`], [`Engine::ingest`]), reads again the few receipts
//! [`Engine::wanted`] names ([`Engine::supply`]) and calls [`Engine::analyze`].

use std::collections::HashSet;
use std::sync::Arc;

use super::bots::{self, BodyKey};
use super::conflicts;
use super::facts::{ReceiptFact, Store};
use super::groups::{self, Placement};
use super::hash::HashMap64;
use super::ingest::ingest_by;
use super::inspect::Inspector;
use super::model::{DuplicateGroup, Receipt, Triage};
use super::near::Ctx;
use super::stuck;
use super::{Details, Needs, Supplied};
use crate::model::RowSource;
use crate::model::{Millis, RawConflict, ReceiptId, ReceiptState, Settings};

mod horizon;
mod shared;
mod sorted;
pub use horizon::DEFAULT_WINDOWS;
use shared::SharedAfter;
use sorted::SortedIndex;

/// What is taken of a receipt read again, on the thread that read it.
pub type Take<'a> = dyn Fn(u32, Receipt) -> Supplied + Sync + 'a;

/// One scope whose sweep continues: its run with the added receipts in
/// place, and the position of the earliest added one.
struct Span {
    scope: u32,
    run: Vec<u32>,
    first_new: usize,
}

/// The state of one analysis, kept for the next.
pub struct Engine {
    settings: Settings,
    inspector: Inspector,
    store: Store,
    conflict_rows: Vec<RawConflict>,
    /// How many of `conflict_rows` the last analysis saw, and the sum of
    /// their ids (rows are only ever appended between readings).
    conflicts_seen: (usize, i128),
    details: Details,
    needs: Needs,
    /// By receipt index: where each receipt with fields was placed.
    placements: Vec<Option<Placement>>,
    /// By scope id: receipts with fields in sweep order.
    runs: Vec<Vec<u32>>,
    /// (scope, body) hashes with receipt indices.
    bodies: SortedIndex,
    /// By receipt index: part of a campaign.
    campaigns: Vec<bool>,
    /// Ids of suspected bots, ascending.
    bot_ids: Vec<ReceiptId>,
    /// (scope, request key) hashes with receipt indices.
    keyed: SortedIndex,
    /// Receipts sharing a (scope, request key).
    shared: Vec<Vec<u32>>,
    /// What `wanted` found of the shared keys once the rows being added are
    /// in, for the analysis that follows (with the number of receipts then).
    next_shared: Option<(usize, SharedAfter)>,
    /// Receipts (indices, ascending) that are not completed: in flight or failed.
    unsettled: Vec<u32>,
    /// Receipts before this index are sorted into `unsettled`.
    unsettled_upto: usize,
    /// Shared with the readings made from it (copied when changed while shared).
    triage: Arc<Triage>,
    /// (anchor time, anchor id) of each of `triage.duplicates`.
    dup_keys: Vec<(Millis, ReceiptId)>,
    /// False until the first analysis.
    analysed: bool,
    /// Receipts and damaged rows from these indices on were added since the
    /// last analysis.
    added_from: (usize, usize),
    /// The continued sweeps of the analysis being prepared.
    spans: Vec<Span>,
    /// How many windows before the newest receipt of its scope a receipt
    /// keeps its fields (`None`: always), see [`horizon`].
    horizon: Option<i64>,
    /// By scope id: receipts from this time on keep their fields.
    kept_from: Vec<Millis>,
    /// Receipts (indices, ascending) that kept their fields at the last
    /// analysis.
    holding: Vec<u32>,
}

impl Engine {
    pub fn new(settings: &Settings) -> Self {
        let store = Store::new();
        Self {
            settings: settings.clone(),
            inspector: Inspector::new(settings, store.random),
            store,
            conflict_rows: Vec::new(),
            conflicts_seen: (0, 0),
            details: Details::default(),
            needs: Needs::default(),
            placements: Vec::new(),
            runs: Vec::new(),
            bodies: SortedIndex::default(),
            campaigns: Vec::new(),
            bot_ids: Vec::new(),
            keyed: SortedIndex::default(),
            shared: Vec::new(),
            next_shared: None,
            unsettled: Vec::new(),
            unsettled_upto: 0,
            triage: Arc::default(),
            dup_keys: Vec::new(),
            analysed: false,
            added_from: (0, 0),
            spans: Vec::new(),
            horizon: Some(DEFAULT_WINDOWS),
            kept_from: Vec::new(),
            holding: Vec::new(),
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn inspector(&self) -> &Inspector {
        &self.inspector
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The triage of the last analysis.
    pub fn triage(&self) -> &Arc<Triage> {
        &self.triage
    }

    /// True once a first analysis was made: later ones are incremental.
    pub fn analysed(&self) -> bool {
        self.analysed
    }

    /// The highest id read (good or damaged).
    pub fn max_id(&self) -> Option<ReceiptId> {
        self.store.max_id()
    }

    /// The `key_conflicts` rows of the last reading.
    pub fn conflict_rows(&self) -> &[RawConflict] {
        &self.conflict_rows
    }

    /// Starts a reading as of `now_ms`, with the current `key_conflicts`
    /// rows. Rows given to [`Engine::ingest`] next are added.
    pub fn begin(&mut self, now_ms: Millis, conflict_rows: Vec<RawConflict>) {
        self.settings.now_ms = now_ms;
        self.store.capture =
            super::facts::Capture::new(&conflict_rows, now_ms, self.settings.stuck_after_ms);
        self.conflict_rows = conflict_rows;
        self.added_from = (self.store.receipts.len(), self.store.damaged.len());
        self.spans.clear();
    }

    /// [`Engine::begin`] with the `key_conflicts` rows of the last reading
    /// and `more`, those added since (rows are only ever appended).
    pub fn begin_adding(&mut self, now_ms: Millis, more: Vec<RawConflict>) {
        let mut rows = std::mem::take(&mut self.conflict_rows);
        rows.extend(more);
        self.begin(now_ms, rows);
    }

    /// Inspects rows (in parallel) and adds them. After the first analysis
    /// they must have ids above every id read (what `WHERE id > max` reads).
    pub fn ingest<S: RowSource + ?Sized>(&mut self, rows: &S) {
        ingest_by(&mut self.store, &self.inspector, rows);
    }

    /// Fills the store with `read` (say, a reading split over several
    /// connections, see `reading::read_split`) instead of [`Engine::ingest`];
    /// the same rules apply to the rows it adds.
    pub fn ingest_with<R>(&mut self, read: impl FnOnce(&Inspector, &mut Store) -> R) -> R {
        read(&self.inspector, &mut self.store)
    }

    /// [`Engine::supply`] for the receipts `read` reads by index (say, again
    /// on several connections, see `reading::reread_split`): it hands each to
    /// `take` (on any thread), and what that took to `put`.
    pub fn supply_with<R>(
        &mut self,
        read: impl FnOnce(&Store, &Take<'_>, &mut dyn FnMut(u32, Supplied)) -> R,
    ) -> R {
        let (store, needs, details) = (&self.store, &self.needs, &mut self.details);
        let take = |index, r: Receipt| Details::supplied(store, needs, index, &r);
        read(store, &take, &mut |index, supplied| {
            details.put(index, supplied)
        })
    }

    /// Rows to read again on every reading, because they may still change in
    /// place: receipts in flight or failed (the intake settles or claims
    /// them again) and damaged rows. Ascending.
    pub fn volatile_ids(&self) -> Vec<ReceiptId> {
        let mut ids: Vec<ReceiptId> = self
            .unsettled
            .iter()
            .map(|&i| self.store.receipts[i as usize].id)
            .chain(self.store.damaged.iter().map(|d| d.receipt_id))
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Compares the rows with these ids (`ids`, as read again into `rows`)
    /// with what was read before. When at most the states of good receipts
    /// differ, applies them and returns the ids that changed; when anything
    /// else differs or a row is gone, returns `None` (read everything again).
    pub fn recheck<S: RowSource + ?Sized>(
        &mut self,
        ids: &[ReceiptId],
        rows: &S,
    ) -> Option<Vec<ReceiptId>> {
        let mut again = Store::new();
        again.random = self.store.random;
        again.keys = self.store.keys.clone();
        again.scopes = self.store.scopes.clone();
        ingest_by(&mut again, &self.inspector, rows);
        again.finish();
        let mut changed = Vec::new();
        for &id in ids {
            match (self.store.index_of(id), again.index_of(id)) {
                (Some(i), Some(j)) => {
                    let (a, b) = (
                        &self.store.receipts[i as usize],
                        &again.receipts[j as usize],
                    );
                    // Equal fingerprints and checks are equal fields; those
                    // still held are compared too.
                    let same = ReceiptFact {
                        state: a.state,
                        fields: 0,
                        ..*a
                    } == ReceiptFact {
                        state: a.state,
                        fields: 0,
                        ..*b
                    } && (!a.holds_fields()
                        || self.store.fields_of(a) == again.fields_of(b));
                    if !same {
                        return None;
                    }
                    if a.state != b.state {
                        changed.push(id);
                        self.store.receipts[i as usize].state = b.state;
                        match (self.unsettled.binary_search(&i), b.state) {
                            (Ok(at), ReceiptState::Completed) => {
                                self.unsettled.remove(at);
                            }
                            (Err(at), ReceiptState::InFlight | ReceiptState::Failed)
                                if (i as usize) < self.unsettled_upto =>
                            {
                                self.unsettled.insert(at, i);
                            }
                            _ => {}
                        }
                    }
                }
                (None, None) => {
                    let before = self
                        .store
                        .damaged
                        .binary_search_by_key(&id, |d| d.receipt_id)
                        .ok()
                        .map(|k| &self.store.damaged[k]);
                    let now = again
                        .damaged
                        .binary_search_by_key(&id, |d| d.receipt_id)
                        .ok()
                        .map(|k| &again.damaged[k]);
                    if before.is_none() || before != now {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        Some(changed)
    }

    /// The receipts (indices) the next [`Engine::analyze`] wants read again,
    /// to be handed to [`Engine::supply`].
    pub fn wanted(&mut self) -> Vec<u32> {
        self.store.finish();
        if self.analysed {
            let n = self.store.receipts.len();
            let store = &self.store;
            self.unsettled.extend(
                (self.unsettled_upto as u32..n as u32)
                    .filter(|&i| store.receipts[i as usize].state != ReceiptState::Completed),
            );
            self.unsettled_upto = n;
        }
        self.needs = if self.analysed {
            self.spans = self.plan_spans();
            let after = self.shared_after_adding();
            let needs = self.incremental_needs(&after);
            self.next_shared = Some((self.store.receipts.len(), after));
            needs
        } else {
            // The keyed receipts are sorted once: for the needs, and kept
            // for the readings that add to this one.
            let keyed = conflicts::keyed(&self.store);
            let needs =
                super::needs_keyed(&self.store, &keyed, &self.conflict_rows, &self.settings);
            self.keyed = SortedIndex::from_sorted(keyed);
            needs
        };
        let mut wanted = self.needs.indices();
        wanted.retain(|&i| !self.has_details(i));
        wanted
    }

    /// True when nothing that `self.needs` asks of receipt `i` is missing.
    fn has_details(&self, i: u32) -> bool {
        let needs = &self.needs;
        let r = &self.store.receipts[i as usize];
        let key_ok = !r.has_key()
            || self.details.key(i).is_some()
            || self.store.request_keys.contains_key(&r.id)
            || needs.keys.binary_search(&i).is_err();
        let digest_ok = self.details.digest(i).is_some() || !needs.shares_key(i);
        let from = needs.texts.partition_point(|t| t.0 < i);
        let texts_ok = needs.texts[from..]
            .iter()
            .take_while(|t| t.0 == i)
            .all(|t| self.details.texts.contains_key(t));
        key_ok && digest_ok && texts_ok
    }

    /// Takes what was asked of a receipt from it, read again.
    pub fn supply(&mut self, receipt: &Receipt) {
        if let Some(index) = self.store.index_of(receipt.id) {
            self.details
                .supply(&self.store, &self.needs, index, receipt);
        }
    }

    /// Analyses: everything the first time, then only what the rows added
    /// since touch. Call [`Engine::wanted`] (and supply what it names) first.
    pub fn analyze(&mut self) -> &Triage {
        self.analyze_with(&mut |_, _, _| {})
    }

    /// [`Engine::analyze`], telling `step` which step of how many it is at
    /// (a first analysis of a large database takes seconds).
    pub fn analyze_with(&mut self, step: &mut dyn FnMut(&'static str, u64, u64)) -> &Triage {
        self.store.finish();
        for (id, key) in std::mem::take(&mut self.store.request_keys) {
            if let Some(i) = self.store.index_of(id) {
                self.details.set_key(i, key.into_string());
            }
        }
        if self.analysed {
            self.incremental();
            self.let_go_of_old_fields();
        } else {
            // Lets go of the old fields itself, as soon as it can.
            self.full(step);
            self.analysed = true;
        }
        // Worked out again by the next `wanted`.
        self.needs = Needs::default();
        self.added_from = (self.store.receipts.len(), self.store.damaged.len());
        self.conflicts_seen = (self.conflict_rows.len(), id_sum(&self.conflict_rows));
        &self.triage
    }

    fn full(&mut self, step: &mut dyn FnMut(&'static str, u64, u64)) {
        let store = &self.store;
        let settings = &self.settings;
        step("grouping copies", 0, 3);
        self.runs = groups::scope_runs(store);
        let ctx = Ctx {
            store,
            texts: &self.details.texts,
        };
        // Campaigns are found alongside the sweep: it leaves a core idle
        // between its pieces, and they need nothing from it.
        let (runs, placements) = (&self.runs, &mut self.placements);
        let (duplicates, (mut bodies, campaigns)) = rayon::join(
            || groups::sweep_runs(ctx, runs, settings.window_ms, Some(placements)),
            || {
                let bodies = bots::bodies(store);
                let campaigns = bots::campaign_flags(store, &bodies, settings);
                (bodies, campaigns)
            },
        );
        self.dup_keys = duplicates
            .iter()
            .map(|g| (time_of(store, g.members[0].id), g.members[0].id))
            .collect();
        step("looking for campaigns", 1, 3);
        self.campaigns = campaigns;
        self.bot_ids = bots::flagged_ids(store, &self.campaigns);
        // Nothing below reads fields: letting go of them first makes the
        // rest in the room they held (the moment a first reading's memory
        // peaked), and keeps bodies only for the receipts still holding them.
        self.let_go_of_old_fields();
        if self.horizon.is_some() {
            bodies.retain(|e| self.holding.binary_search(&e.1).is_ok());
        }
        self.bodies = SortedIndex::from_sorted(bodies);
        let (store, settings) = (&self.store, &self.settings);
        step("key conflicts and stuck receipts", 2, 3);
        // The receipts sharing a key were found, and the keyed ones
        // indexed, to work out what to read.
        self.shared = std::mem::take(&mut self.needs.shared_keys);
        self.unsettled = (0..store.receipts.len() as u32)
            .filter(|&i| store.receipts[i as usize].state != ReceiptState::Completed)
            .collect();
        self.unsettled_upto = store.receipts.len();
        self.triage = Arc::new(Triage {
            duplicates: super::each_shared(duplicates),
            conflicts: self.all_conflicts(),
            stuck: stuck::stuck(
                store,
                &stuck::stuck_indices(store, settings),
                &self.details,
                settings,
            ),
            suspected_bots: self.bot_ids.clone(),
            damaged: store.damaged.clone(),
        });
    }

    /// Stuck receipts among the unsettled ones (as `stuck::stuck_indices`).
    fn stuck_now(&self) -> Vec<u32> {
        let s = &self.settings;
        self.unsettled
            .iter()
            .copied()
            .filter(|&i| {
                let r = &self.store.receipts[i as usize];
                r.state == ReceiptState::InFlight
                    && s.now_ms.saturating_sub(r.created_ms) > s.stuck_after_ms
            })
            .collect()
    }

    /// The scopes the added receipts fall in, each with its run merged.
    fn plan_spans(&self) -> Vec<Span> {
        let store = &self.store;
        let key = |j: u32| (store.receipts[j as usize].created_ms, j);
        let mut added: HashMap64<Vec<u32>> = HashMap64::default();
        for i in self.added_from.0..store.receipts.len() {
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

    /// What an incremental analysis reads again: the texts of every field an
    /// edit check of the continued sweeps may compare, and the keys and
    /// digests that conflicts and stuck receipts now show (of the groups of
    /// shared keys, only those the added rows changed: the others' were
    /// read before).
    fn incremental_needs(&self, after: &SharedAfter) -> Needs {
        let store = &self.store;
        let mut texts: Vec<(u32, u16)> = Vec::new();
        for span in &self.spans {
            let start =
                groups::span_start(store, &span.run, span.first_new, self.settings.window_ms);
            let anchors = span.run[start..span.first_new]
                .iter()
                .filter_map(|&i| self.placements[i as usize].map(|p| p.anchor));
            for i in span.run[start..].iter().copied().chain(anchors) {
                for (p, f) in store.fields_at(i).iter().enumerate() {
                    if f.tokens() >= 2 && !self.details.texts.contains_key(&(i, p as u16)) {
                        texts.push((i, p as u16));
                    }
                }
            }
        }
        texts.sort_unstable();
        texts.dedup();
        let stuck = self.stuck_now();
        let mut keys = conflicts::originals(store, &after.changed, &self.conflict_rows);
        keys.extend(stuck.iter().copied());
        keys.retain(|&i| {
            let r = &store.receipts[i as usize];
            r.has_key() && self.details.key(i).is_none() && !store.request_keys.contains_key(&r.id)
        });
        keys.sort_unstable();
        keys.dedup();
        Needs::new(texts, keys, after.changed.clone(), stuck)
    }

    fn incremental(&mut self) {
        let settings = self.settings.clone();
        let mut triage = std::mem::take(&mut self.triage);
        let t = Arc::make_mut(&mut triage);
        let (from, damaged_from) = self.added_from;
        let n = self.store.receipts.len();
        self.placements.resize(n, None);
        if self.runs.len() < self.store.scopes.len() {
            self.runs.resize(self.store.scopes.len(), Vec::new());
        }

        // Duplicate groups: continue each touched scope's sweep.
        let spans = std::mem::take(&mut self.spans);
        let mut touched: HashSet<ReceiptId> = HashSet::new();
        let mut regrouped: Vec<(Millis, DuplicateGroup)> = Vec::new();
        for span in spans {
            let ctx = Ctx {
                store: &self.store,
                texts: &self.details.texts,
            };
            let (dups, keys, store) = (&t.duplicates, &self.dup_keys, &self.store);
            let old_group = |id: ReceiptId| -> Option<&DuplicateGroup> {
                let at = keys.partition_point(|k| *k < (time_of(store, id), id));
                dups.get(at).map(|g| &**g).filter(|g| g.members[0].id == id)
            };
            let r = groups::resweep(
                ctx,
                &span.run,
                span.first_new,
                settings.window_ms,
                &mut self.placements,
                &old_group,
            );
            touched.extend(r.touched.iter().map(|&a| store.receipts[a as usize].id));
            regrouped.extend(r.groups);
            self.runs[span.scope as usize] = span.run;
        }
        if !touched.is_empty() {
            // Few groups change, mostly late ones: the groups before the
            // first one touched or made stay where they are, and only those
            // after it are walked (taking the touched ones out, merging the
            // new ones in).
            let store = &self.store;
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
            let from = first.map_or(self.dup_keys.len(), |first| {
                self.dup_keys.partition_point(|k| *k < first)
            });
            let tail_keys = self.dup_keys.split_off(from);
            let tail = t.duplicates.split_off(from);
            // Both sorted: merge.
            let mut fresh = fresh.into_iter().peekable();
            for (key, group) in tail_keys.into_iter().zip(tail) {
                while let Some((k, g)) = fresh.next_if(|f| f.0 < key) {
                    self.dup_keys.push(k);
                    t.duplicates.push(g);
                }
                if !touched.contains(&key.1) {
                    self.dup_keys.push(key);
                    t.duplicates.push(group);
                }
            }
            for (k, g) in fresh {
                self.dup_keys.push(k);
                t.duplicates.push(g);
            }
        }

        // Campaigns: the runs of the added bodies.
        let store = &self.store;
        let body_of = |i: u32| bots::body_key(store, i, &store.receipts[i as usize]).map(|b| b.0);
        self.campaigns.resize(n, false);
        let added: Vec<BodyKey> = (from..n)
            .filter_map(|i| bots::body_key(store, i as u32, &store.receipts[i]))
            .collect();
        // The earliest added copy of each body: a copy more than a window
        // before it keeps its flag (no window holds both), and a flag is
        // decided by the copies within a window either side.
        let created = |i: u32| store.receipts[i as usize].created_ms;
        let mut earliest: HashMap64<Millis> = HashMap64::default();
        for &(h, i) in &added {
            let t = earliest.entry(h).or_insert(Millis::MAX);
            *t = (*t).min(created(i));
        }
        self.bodies.add(added);
        let window = settings.window_ms.max(0);
        let mut maybe: Vec<u32> = (from as u32..n as u32).collect();
        for (h, first) in earliest {
            let mut run = self.bodies.equal(h, body_of);
            run.retain(|b| created(b.1) >= first.saturating_sub(window.saturating_mul(2)));
            for b in run
                .iter()
                .filter(|b| created(b.1) >= first.saturating_sub(window))
            {
                self.campaigns[b.1 as usize] = false;
                maybe.push(b.1);
            }
            bots::mark_run(store, &run, settings.window_ms, &mut self.campaigns);
        }
        maybe.sort_unstable();
        maybe.dedup();
        for i in maybe {
            let r = &store.receipts[i as usize];
            let flagged = r.honeypot_filled() || self.campaigns[i as usize];
            match (self.bot_ids.binary_search(&r.id), flagged) {
                (Err(at), true) => self.bot_ids.insert(at, r.id),
                (Ok(at), false) => {
                    self.bot_ids.remove(at);
                }
                _ => {}
            }
        }

        // Shared keys and conflicts, stuck receipts, damaged rows.
        let mut after = match self.next_shared.take() {
            Some((receipts, after)) if receipts == n => after,
            _ => self.shared_after_adding(),
        };
        self.keyed.add(std::mem::take(&mut after.added));
        // The conflicts stay as they were unless the receipts sharing a key,
        // the `key_conflicts` rows or a receipt such a row names changed.
        let first_added = [
            store.receipts.get(from).map(|r| r.id),
            store.damaged.get(damaged_from).map(|d| d.receipt_id),
        ]
        .into_iter()
        .flatten()
        .min();
        let (seen, sum) = self.conflicts_seen;
        let rows = &self.conflict_rows;
        let rows_changed = rows.len() != seen
            || id_sum(rows) != sum
            || first_added.is_some_and(|first| rows.iter().any(|c| c.receipt_id >= first));
        self.take_shared(after, rows_changed, t);
        let store = &self.store;
        t.stuck = stuck::stuck(store, &self.stuck_now(), &self.details, &settings);
        t.suspected_bots = self.bot_ids.clone();
        t.damaged
            .extend(store.damaged[damaged_from..].iter().cloned());
        self.triage = triage;
    }
}

/// The sum of the ids of `key_conflicts` rows.
fn id_sum(rows: &[RawConflict]) -> i128 {
    rows.iter().map(|c| i128::from(c.id)).sum()
}

fn time_of(store: &Store, id: ReceiptId) -> Millis {
    store
        .index_of(id)
        .map_or(0, |i| store.receipts[i as usize].created_ms)
}
