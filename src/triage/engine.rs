//! The triage kept between readings, for a screen that stays open while the
//! intake writes: the facts of every receipt, and what each rule found of
//! them. When rows are appended (ids above every id read), only they are
//! inspected, and only what they touch is recomputed: the end of their
//! scopes' sweeps, the campaigns of their bodies, the receipts sharing their
//! keys, conflicts and stuck receipts. The result is the [`Triage`] a full
//! analysis of all rows gives (see the tests).
//!
//! The engine does no I/O. Whoever drives it reads rows, and each reading
//! goes through its steps in turn, each a type of its own:
//!
//! - [`Engine::begin`] (a first reading) or [`Engine::begin_adding`] (a
//!   refresh of an engine analysed before) gives an [`Ingesting`], which
//!   takes the rows read ([`Ingesting::ingest`]);
//! - [`Ingesting::wanted`] works out which receipts the rules must read again
//!   and gives a [`Rereading`], which names them ([`Rereading::wanted`]) and
//!   takes them ([`Rereading::supply`]);
//! - [`Rereading::analyze`] analyses and gives back the [`Engine`], with its
//!   [`Engine::triage`], ready for the next reading.

use std::sync::Arc;

use super::facts::FactStore;
use super::inspect::Inspector;
use super::model::{Receipt, Triage};
use super::near::Ctx;
use super::{RereadList, RereadReceipt, RereadValues, conflicts as keys, stuck};
use crate::model::{Millis, RawConflict, ReceiptId, RowSource, Settings};

mod campaigns;
mod conflicts;
mod duplicates;
mod horizon;
mod recheck;
mod sorted;
mod stage;
mod unsettled;

use campaigns::Campaigns;
use conflicts::{Conflicts, SharedAfter};
use duplicates::{Duplicates, Span};
pub use horizon::DEFAULT_WINDOWS;
use horizon::Horizon;
pub use stage::AnalysisStage;
use unsettled::Unsettled;

/// What is taken of a receipt read again, on the thread that read it.
pub type Take<'a> = dyn Fn(u32, Receipt) -> RereadReceipt + Sync + 'a;

/// An analysed reading, kept for the next one: what was read, and what each
/// rule found and keeps to continue from.
pub struct Engine {
    facts: Facts,
    duplicates: Duplicates,
    campaigns: Campaigns,
    conflicts: Conflicts,
    unsettled: Unsettled,
    horizon: Horizon,
    /// Shared with the readings made from it (copied when changed while shared).
    triage: Arc<Triage>,
}

/// What the rules read: the receipts' facts and the texts read again, with
/// the settings of the reading.
struct Facts {
    settings: Settings,
    inspector: Inspector,
    store: FactStore,
    details: RereadValues,
}

impl Facts {
    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            store: &self.store,
            texts: &self.details.texts,
        }
    }
}

/// Where the rows a reading added begin: receipts and damaged rows from
/// these indices of the store on.
#[derive(Clone, Copy, Debug, Default)]
struct Added {
    receipts: usize,
    damaged: usize,
}

/// A reading taking in rows.
pub struct Ingesting {
    engine: Engine,
    added: Added,
    /// True for a first reading: everything is analysed.
    first: bool,
}

/// A reading taking in the receipts it reads again.
pub struct Rereading {
    engine: Engine,
    added: Added,
    needs: RereadList,
    /// The receipts (indices, ascending) to read again.
    wanted: Vec<u32>,
    /// How a refresh continues (`None`: a first reading).
    refresh: Option<Refresh>,
}

/// What a refresh continues from, worked out with what it reads again.
struct Refresh {
    /// The scopes whose sweeps continue.
    spans: Vec<Span>,
    /// The shared keys once the added receipts are in.
    shared: SharedAfter,
}

impl Engine {
    /// Starts a first reading with `settings` (as of their `now_ms`) and the
    /// `key_conflicts` rows. After its analysis, receipts keep their fields
    /// for `windows` windows before the newest of their scope (`None`:
    /// always; see [`DEFAULT_WINDOWS`]).
    pub fn begin(
        settings: &Settings,
        windows: Option<i64>,
        conflict_rows: Vec<RawConflict>,
    ) -> Ingesting {
        let mut store = FactStore::new();
        store.capture =
            super::facts::Capture::new(&conflict_rows, settings.now_ms, settings.stuck_after_ms);
        let engine = Engine {
            facts: Facts {
                settings: settings.clone(),
                inspector: Inspector::new(settings, store.random),
                store,
                details: RereadValues::default(),
            },
            duplicates: Duplicates::default(),
            campaigns: Campaigns::default(),
            conflicts: Conflicts::new(conflict_rows),
            unsettled: Unsettled::default(),
            horizon: Horizon::new(windows),
            triage: Arc::default(),
        };
        Ingesting {
            engine,
            added: Added::default(),
            first: true,
        }
    }

    /// Starts a refresh as of `now_ms`, with `more`, the `key_conflicts`
    /// rows added since (rows are only ever appended). The rows it ingests
    /// must have ids above every id read (what `WHERE id > max` reads).
    pub fn begin_adding(mut self, now_ms: Millis, more: Vec<RawConflict>) -> Ingesting {
        let facts = &mut self.facts;
        facts.settings.now_ms = now_ms;
        self.conflicts.rows.extend(more);
        facts.store.capture =
            super::facts::Capture::new(&self.conflicts.rows, now_ms, facts.settings.stuck_after_ms);
        let added = Added {
            receipts: facts.store.receipts.len(),
            damaged: facts.store.damaged.len(),
        };
        Ingesting {
            engine: self,
            added,
            first: false,
        }
    }

    pub fn store(&self) -> &FactStore {
        &self.facts.store
    }

    pub fn inspector(&self) -> &Inspector {
        &self.facts.inspector
    }

    pub fn settings(&self) -> &Settings {
        &self.facts.settings
    }

    /// The triage of the last analysis.
    pub fn triage(&self) -> &Arc<Triage> {
        &self.triage
    }

    /// The highest id read (good or damaged).
    pub fn max_id(&self) -> Option<ReceiptId> {
        self.facts.store.max_id()
    }

    /// The `key_conflicts` rows of the last reading.
    pub fn conflict_rows(&self) -> &[RawConflict] {
        &self.conflicts.rows
    }
}

impl Ingesting {
    /// Inspects rows (in parallel) and adds them.
    pub fn ingest<S: RowSource + ?Sized>(&mut self, rows: &S) {
        let facts = &mut self.engine.facts;
        super::ingest_by(&mut facts.store, &facts.inspector, rows);
    }

    /// Fills the store with `read` (say, a reading split over several
    /// connections, see `reading::read_split`) instead of
    /// [`Ingesting::ingest`]; the same rules apply to the rows it adds.
    pub fn ingest_with<R>(&mut self, read: impl FnOnce(&Inspector, &mut FactStore) -> R) -> R {
        let facts = &mut self.engine.facts;
        read(&facts.inspector, &mut facts.store)
    }

    pub fn store(&self) -> &FactStore {
        &self.engine.facts.store
    }

    pub fn inspector(&self) -> &Inspector {
        &self.engine.facts.inspector
    }

    /// Works out what the analysis must read again, once every row is in.
    pub fn wanted(self) -> Rereading {
        let Ingesting {
            mut engine,
            added,
            first,
        } = self;
        engine.facts.store.finish();
        let (needs, refresh) = if first {
            engine.first_needs()
        } else {
            let (needs, refresh) = engine.refresh_needs(added);
            (needs, Some(refresh))
        };
        let mut wanted = needs.indices();
        wanted.retain(|&i| !engine.facts.has_details(&needs, i));
        Rereading {
            engine,
            added,
            needs,
            wanted,
            refresh,
        }
    }
}

impl Rereading {
    /// The receipts (indices into [`Rereading::store`], ascending) to read
    /// again and hand to [`Rereading::supply`].
    pub fn wanted(&self) -> &[u32] {
        &self.wanted
    }

    pub fn store(&self) -> &FactStore {
        &self.engine.facts.store
    }

    pub fn inspector(&self) -> &Inspector {
        &self.engine.facts.inspector
    }

    /// Takes what was asked of a receipt from it, read again.
    pub fn supply(&mut self, receipt: &Receipt) {
        let facts = &mut self.engine.facts;
        if let Some(index) = facts.store.index_of(receipt.id) {
            facts
                .details
                .supply(&facts.store, &self.needs, index, receipt);
        }
    }

    /// [`Rereading::supply`] for the receipts `read` reads by index (the
    /// wanted ones; say, again on several connections, see
    /// `reading::reread_split`): it hands each to `take` (on any thread),
    /// and what that took to `put`.
    pub fn supply_with<R>(
        &mut self,
        read: impl FnOnce(&FactStore, &[u32], &Take<'_>, &mut dyn FnMut(u32, RereadReceipt)) -> R,
    ) -> R {
        let facts = &mut self.engine.facts;
        let (store, needs, details) = (&facts.store, &self.needs, &mut facts.details);
        let take = |index, r: Receipt| RereadValues::supplied(store, needs, index, &r);
        read(store, &self.wanted, &take, &mut |index, supplied| {
            details.put(index, supplied)
        })
    }

    /// Analyses: everything on a first reading, telling `step` each
    /// [`AnalysisStage`] it comes to (that takes seconds on a large database); on a
    /// refresh, only what the rows added touch.
    pub fn analyze(self, step: &mut dyn FnMut(AnalysisStage)) -> Engine {
        let Rereading {
            mut engine,
            added,
            needs,
            refresh,
            ..
        } = self;
        let facts = &mut engine.facts;
        for (id, key) in std::mem::take(&mut facts.store.request_keys) {
            if let Some(i) = facts.store.index_of(id) {
                facts.details.set_key(i, key.into_string());
            }
        }
        match refresh {
            // Lets go of the old fields itself, as soon as it can.
            None => engine.full(needs, step),
            Some(refresh) => {
                engine.refresh(added, refresh);
                engine.let_go_of_old_fields(added.receipts);
            }
        }
        engine.conflicts.seen();
        engine
    }
}

impl Facts {
    /// True when nothing that `needs` asks of receipt `i` is missing.
    fn has_details(&self, needs: &RereadList, i: u32) -> bool {
        let (store, details) = (&self.store, &self.details);
        let r = &store.receipts[i as usize];
        let key_ok = !r.has_key()
            || details.key(i).is_some()
            || store.request_keys.contains_key(&r.id)
            || needs.keys.binary_search(&i).is_err();
        let digest_ok = details.digest(i).is_some() || !needs.shares_key(i);
        let from = needs.texts.partition_point(|t| t.0 < i);
        let texts_ok = needs.texts[from..]
            .iter()
            .take_while(|t| t.0 == i)
            .all(|t| details.texts.contains_key(t));
        key_ok && digest_ok && texts_ok
    }
}

impl Engine {
    /// What a first reading reads again (see [`super::needs`]).
    fn first_needs(&mut self) -> (RereadList, Option<Refresh>) {
        let facts = &self.facts;
        // The keyed receipts are sorted once: for the needs, and kept for
        // the readings that add to this one.
        let keyed = keys::keyed(&facts.store);
        let needs = super::needs_keyed(&facts.store, &keyed, &self.conflicts.rows, &facts.settings);
        self.conflicts.index_keys(keyed);
        (needs, None)
    }

    /// What a refresh reads again: the texts of every field an edit check of
    /// the continued sweeps may compare, and the keys and digests that
    /// conflicts and stuck receipts now show (of the groups of shared keys,
    /// only those the added rows changed: the others' were read before).
    fn refresh_needs(&mut self, added: Added) -> (RereadList, Refresh) {
        let facts = &self.facts;
        let store = &facts.store;
        self.unsettled.take_in(store);
        let spans = self.duplicates.spans(store, added.receipts);
        let texts = self.duplicates.texts_wanted(facts, &spans);
        let shared = self.conflicts.after_adding(store, added.receipts);
        let stuck = self.unsettled.stuck(store, &facts.settings);
        let mut keys = keys::originals(store, &shared.changed, &self.conflicts.rows);
        keys.extend(stuck.iter().copied());
        keys.retain(|&i| {
            let r = &store.receipts[i as usize];
            r.has_key() && facts.details.key(i).is_none() && !store.request_keys.contains_key(&r.id)
        });
        keys.sort_unstable();
        keys.dedup();
        let needs = RereadList::new(texts, keys, shared.changed.clone(), stuck);
        (needs, Refresh { spans, shared })
    }

    /// The first analysis, rule by rule.
    fn full(&mut self, mut needs: RereadList, step: &mut dyn FnMut(AnalysisStage)) {
        step(AnalysisStage::GroupingCopies);
        // Campaigns are found alongside the sweep: it leaves a core idle
        // between its pieces, and they need nothing from it.
        let (duplicates, facts) = (&mut self.duplicates, &self.facts);
        let (groups, flags) = rayon::join(
            || duplicates.sweep(facts),
            || Campaigns::find(&facts.store, &facts.settings),
        );
        step(AnalysisStage::LookingForCampaigns);
        self.campaigns = Campaigns::new(&self.facts.store, flags);
        // Nothing below reads fields: dropping them first makes the
        // rest in the room they held (the moment a first reading's memory
        // peaked).
        self.let_go_of_old_fields(0);
        step(AnalysisStage::ConflictsAndStuck);
        let facts = &self.facts;
        let store = &facts.store;
        // The receipts sharing a key were found, and the keyed ones
        // indexed, to work out what to read.
        let shared = std::mem::take(&mut needs.shared_keys);
        self.unsettled = Unsettled::of(store);
        self.triage = Arc::new(Triage {
            duplicates: super::each_shared(groups),
            conflicts: self.conflicts.first(facts, shared),
            stuck: stuck::stuck(
                store,
                &stuck::stuck_indices(store, &facts.settings),
                &facts.details,
                &facts.settings,
            ),
            next_stuck_ms: self.unsettled.next_stuck_ms(store, &facts.settings),
            suspected_bots: self.campaigns.bot_ids().to_vec(),
            bot_groups: self.campaigns.groups(store, &facts.settings),
            damaged: store.damaged.clone(),
        });
    }

    /// A refresh: each rule takes in what the rows `added` touch.
    fn refresh(&mut self, added: Added, refresh: Refresh) {
        let mut triage = std::mem::take(&mut self.triage);
        let t = Arc::make_mut(&mut triage);
        let facts = &self.facts;
        let store = &facts.store;
        self.duplicates.add(facts, refresh.spans, &mut t.duplicates);
        let runs = &self.duplicates.runs;
        self.campaigns
            .add(store, &facts.settings, runs, added.receipts);
        t.suspected_bots = self.campaigns.bot_ids().to_vec();
        t.bot_groups = self.campaigns.groups(store, &facts.settings);
        self.conflicts.add(facts, added, refresh.shared, t);
        t.stuck = stuck::stuck(
            store,
            &self.unsettled.stuck(store, &facts.settings),
            &facts.details,
            &facts.settings,
        );
        t.next_stuck_ms = self.unsettled.next_stuck_ms(store, &facts.settings);
        t.damaged
            .extend(store.damaged[added.damaged..].iter().cloned());
        self.triage = triage;
    }
}
