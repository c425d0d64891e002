//! One consistent reading of a receipts database: the analysis plus what the
//! review log says about each item. The report, `resolve` and the TUI all work
//! from a snapshot, so they agree on what is pending.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;

use anyhow::Context;
use rayon::prelude::*;

mod receipts;
pub(crate) mod shown;
pub use receipts::{Compact, Receipts, View};

use crate::model::{Millis, ReceiptId, Settings};
use crate::review::{self, Kind, LogEntry, Status};
use crate::storage::stream::{self, Batch};
use crate::storage::{self, Database, StorageError};
use crate::triage::{
    self, Details, Inspector, Scratch, Store,
    engine::{Engine, Stage},
    facts,
    model::{Receipt, Triage},
};

/// Rows per batch read: large enough to keep both cores busy inspecting one
/// batch while the next is read, small enough to keep memory flat.
const BATCH_ROWS: usize = 8192;

/// The most receipts a refresh keeps from comparing texts for the items'
/// receipts (a large append reads them again rather than hold them all).
const KEEP_TEXTS_READ: usize = 16_384;

/// What the review log says about one item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemReview {
    /// The latest log entry is a decision that still covers every copy.
    pub resolved: bool,
    /// The latest decision (also kept when a new copy made the item pending again).
    pub decision: Option<String>,
    pub operator: Option<String>,
    pub decided_at_ms: Option<Millis>,
    pub note: Option<String>,
    /// A resolved duplicate group that has gained a copy since its decision.
    pub new_copy_since_decision: bool,
    /// The id of the latest review_log entry for this item: a decision is
    /// recorded only if this is still the latest (two operators never overwrite
    /// each other silently).
    pub last_log_id: Option<i64>,
}

/// One review_log entry, as the Log tab shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub id: i64,
    pub item: String,
    pub kind: String,
    pub decision: String,
    pub operator: String,
    pub decided_at_ms: Option<Millis>,
    pub receipt_ids: Vec<ReceiptId>,
    pub note: Option<String>,
    pub reopens: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub database: PathBuf,
    /// Why decisions are off, when they are (read-only file or folder, `--read-only`).
    pub read_only: Option<String>,
    /// Why decisions may not change `receipts.state` (read-only, or `receipts` is a view).
    pub state_changes_off: Option<String>,
    pub settings: Settings,
    /// Receipts that passed inspection.
    pub receipt_count: usize,
    /// The receipts the items show (members of duplicate groups, conflict
    /// originals, stuck receipts), compact and shared between readings;
    /// empty from [`read`], which serves reports, and filled by
    /// [`read_for_screen`] and [`Reader::fill_receipts`].
    pub receipts: Receipts,
    /// True while the receipts the items show are still being read (the
    /// analysis is handed to the screen first): what is said of their texts,
    /// such as which items a text filter matches, is not yet the whole answer.
    pub receipts_pending: bool,
    /// Retries absorbed by each receipt's key.
    pub replays: HashMap<ReceiptId, u32>,
    pub replay_total: u64,
    /// Shared with the screen's reader, which keeps it for the next reading.
    pub triage: Arc<Triage>,
    /// Keyed by item id (`dup:12`); an item absent here is pending.
    pub reviews: HashMap<String, ItemReview>,
    /// The review log in append order.
    pub log: Vec<LogLine>,
}

impl Snapshot {
    pub fn review(&self, item: &str) -> ItemReview {
        self.reviews.get(item).cloned().unwrap_or_default()
    }

    /// The receipt with this id, if it passed inspection and an item shows
    /// it (made whole for the caller: ask for the few that are drawn), with
    /// an empty `digest` (see [`Receipts`]).
    pub fn receipt(&self, id: ReceiptId) -> Option<Receipt> {
        self.receipts.get(id)
    }

    /// The receipt with this id in its compact form, without copying it.
    pub fn receipt_view(&self, id: ReceiptId) -> Option<View<'_>> {
        self.receipts.view(id)
    }

    pub fn replays_of(&self, id: ReceiptId) -> u32 {
        self.replays.get(&id).copied().unwrap_or(0)
    }
}

/// The stage while the receipts the items show are read: the screen has the
/// analysis already, and says so from its first frame.
pub const READING_RECEIPTS: &str = "reading the items' receipts";

/// How far a [`read`] has got, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub stage: &'static str,
    pub done: u64,
    pub total: Option<u64>,
}

/// Reads and analyses the database, and joins in the review log. The
/// receipts themselves are not kept (see [`Snapshot::receipts`]).
pub fn read(
    db: &Database,
    settings: Settings,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<Snapshot> {
    read_with(db, settings, false, progress)
}

/// [`read`], with the receipts that the screen's items show.
pub fn read_for_screen(
    db: &Database,
    settings: Settings,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<Snapshot> {
    read_with(db, settings, true, progress)
}

fn read_with(
    db: &Database,
    settings: Settings,
    with_receipts: bool,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<Snapshot> {
    // Helper connections start their reading first (see storage::split).
    let helpers = storage::split::Helpers::open(db, crate::reading::helpers_wanted());
    // One read transaction: the receipts, what is read again, conflicts and
    // replays all come from one snapshot of the database.
    let tx = db.read_transaction()?;
    let conflicts = storage::load_conflict_rows(db, None, false)?;
    let mut store = Store::new();
    store.capture = facts::Capture::new(&conflicts, settings.now_ms, settings.stuck_after_ms);
    let inspector = Inspector::new(&settings, store.random);
    let mut reading = |done| {
        progress(Progress {
            stage: "reading receipts",
            done,
            total: None,
        })
    };
    let split = helpers
        .and_then(|h| crate::reading::read_split(db, h, &inspector, &mut store, &mut reading));
    let helpers = match split {
        Some(read) => read?,
        None => read_facts(db, &inspector, &mut store, None, &mut reading).map(|_| Vec::new())?,
    };
    store.finish();
    let rows = store.rows() as u64;
    progress(Progress {
        stage: "analysing",
        done: 0,
        total: Some(rows),
    });
    // Suspected bots need no text read again: they are found meanwhile.
    let (triage, replays, replay_total, spent) = std::thread::scope(|scope| {
        let bots = scope.spawn(|| triage::bots::suspected_bots(&store, &settings));
        let (replays, replay_total) = storage::load_replays(db)?;
        let needs = triage::needs(&store, &conflicts, &settings);
        let mut details = Details::new(&store);
        // The helpers, in the same state of the database, share the reading.
        let indices = needs.indices();
        if helpers.is_empty() {
            reread_each(db, &inspector, &store, &indices, &mut |index, receipt| {
                details.supply(&store, &needs, index, &receipt)
            })?;
        } else {
            crate::reading::reread_split(
                db,
                helpers,
                &inspector,
                &store,
                &indices,
                &|index, receipt| Details::supplied(&store, &needs, index, &receipt),
                &mut |index, supplied| details.put(index, supplied),
            )?;
        }
        let bots = bots
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let triage =
            triage::analyze_facts_with(&store, &conflicts, &needs, &details, &settings, bots);
        anyhow::Ok((Arc::new(triage), replays, replay_total, (needs, details)))
    })?;
    crate::memory::free_later(spent);
    let receipts = if with_receipts {
        progress(Progress {
            stage: READING_RECEIPTS,
            done: rows,
            total: Some(rows),
        });
        let shown = shown_receipts(&store, &triage);
        let read: Vec<Receipt> = reread(db, &inspector, &store, &shown)?
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        Receipts::from(read)
    } else {
        Receipts::default()
    };
    if let Some(tx) = tx {
        tx.commit().map_err(|e| db.error("ending a read", e))?;
    }
    progress(Progress {
        stage: "reading the review log",
        done: rows,
        total: Some(rows),
    });
    let mut snap = assemble(db, settings, store.receipts.len(), triage)?;
    crate::memory::free_later(store);
    snap.receipts = receipts;
    snap.replays = replays;
    snap.replay_total = replay_total;
    Ok(snap)
}

/// How a [`Reader`] read the database the last time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Every row.
    Full,
    /// The rows appended since the reading before, and the few that may change.
    Incremental,
}

/// Reads a database again and again (the screen's worker): in full the first
/// time, then only the rows appended since, as long as nothing else changed.
/// Rows that may still change in place (receipts in flight or failed, damaged
/// rows) are read again each time; any other change that the protocol does
/// not make (a row deleted or rewritten) is caught by comparing the count and
/// the sum of the ids now and then (every `verify_every`), and the next reading
/// is then a full one.
pub struct Reader {
    settings: Settings,
    engine: Option<Engine>,
    /// The receipts the items showed last time (shared with that reading).
    shown: Receipts,
    /// Their ids, kept up to date group by group.
    shown_ids: shown::Shown,
    /// Receipts that changed in place since (to be read again).
    stale: std::collections::HashSet<ReceiptId>,
    last: Reading,
    /// Rows read and the sum of their ids, to compare with the database.
    sum_ids: i128,
    /// Receipts to read again next time besides those that may change.
    touched: Vec<ReceiptId>,
    /// Receipts the last incremental reading read whole to compare texts,
    /// by id: the items' receipts take them from here rather than read
    /// them again (the new copies are most of both).
    texts_read: Vec<Receipt>,
    verified: Option<std::time::Instant>,
    /// Replays counted so far, brought up to date by each reading.
    replays: storage::Replays,
    /// A full reading's helper connections, for [`Reader::fill_receipts`].
    spare: Vec<rusqlite::Connection>,
    /// True while a reading's read transaction is left open on the
    /// database's connection for [`Reader::fill_receipts`].
    read_open: bool,
    pub verify_every: std::time::Duration,
    /// How many windows back the engine keeps the fields of receipts (see
    /// `Engine::begin`).
    pub fields_horizon: Option<i64>,
}

impl Reader {
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            engine: None,
            shown: Receipts::default(),
            shown_ids: shown::Shown::default(),
            stale: Default::default(),
            last: Reading::Full,
            sum_ids: 0,
            touched: Vec::new(),
            texts_read: Vec::new(),
            verified: None,
            replays: storage::Replays::default(),
            spare: Vec::new(),
            read_open: false,
            verify_every: std::time::Duration::from_secs(30),
            fields_horizon: Some(crate::triage::engine::DEFAULT_WINDOWS),
        }
    }

    /// How many receipts the engine holds the fields of, and how many
    /// fields (see `Engine::fields_held`).
    pub fn fields_held(&self) -> Option<(usize, usize)> {
        self.engine.as_ref().map(Engine::fields_held)
    }

    /// How the last reading went.
    pub fn last_reading(&self) -> Reading {
        self.last
    }

    /// These receipts changed in place (say, an undone decision put one back
    /// in flight): the next reading reads them again.
    pub fn recheck(&mut self, ids: &[ReceiptId]) {
        self.touched.extend_from_slice(ids);
    }

    /// The next reading will be a full one.
    pub fn forget(&mut self) {
        self.engine = None;
        self.shown = Receipts::default();
        self.stale.clear();
        self.texts_read.clear();
        self.spare.clear();
        self.replays = storage::Replays::default();
    }

    /// Reads and analyses the database as of `now_ms`; the snapshot's
    /// receipts are left to [`Reader::fill_receipts`].
    pub fn read(
        &mut self,
        db: &Database,
        now_ms: Millis,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<Snapshot> {
        self.end_read(db)?;
        // A first reading is split over every core: its helper connections
        // start before its transaction does (see storage::split).
        let first = self.engine.is_none();
        let mut helpers = first
            .then(|| storage::split::Helpers::open(db, crate::reading::helpers_wanted()))
            .flatten();
        let mut tx = db.read_transaction()?;
        let incremental = match self.engine.as_mut() {
            Some(engine) if !db.source().is_view() => {
                let touched = std::mem::take(&mut self.touched);
                continue_reading(db, engine, &mut self.stale, &touched)? && {
                    let due = self
                        .verified
                        .is_none_or(|t| t.elapsed() >= self.verify_every);
                    !due || (verify(db, engine, self.sum_ids)? && self.replays.unchanged(db)?)
                }
            }
            _ => false,
        };
        if !incremental {
            self.forget();
            // A reading that had to start over starts again, split.
            if !first && let Some(t) = tx.take() {
                t.commit().map_err(|e| db.error("ending a read", e))?;
                helpers = storage::split::Helpers::open(db, crate::reading::helpers_wanted());
                tx = db.read_transaction()?;
            }
        }
        let mut settings = self.settings.clone();
        settings.now_ms = now_ms;
        let mut engine = match self.engine.take() {
            Some(engine) => {
                let after = engine.conflict_rows().last().map(|c| c.id);
                let more = storage::load_conflict_rows(db, after, false)?;
                engine.begin_adding(now_ms, more)
            }
            None => {
                let rows = storage::load_conflict_rows(db, None, false)?;
                Engine::begin(&settings, self.fields_horizon, rows)
            }
        };
        let after = if incremental {
            engine.store().max_id()
        } else {
            None
        };
        let read_before = engine.store().rows() as u64;
        let mut sum_ids: i128 = 0;
        let mut rows = 0u64;
        let mut reading = |done| {
            progress(Progress {
                stage: "reading receipts",
                done: read_before + done,
                total: None,
            })
        };
        let split = helpers.and_then(|h| {
            engine.ingest_with(|inspector, store| {
                crate::reading::read_split(db, h, inspector, store, &mut reading)
            })
        });
        // The helpers, still in the same state of the database, share the
        // reading again of the texts to compare.
        let helpers = match split {
            Some(read) => read?,
            None => {
                pipeline(
                    &mut |sink| {
                        stream::stream_receipts_with(db, after, BATCH_ROWS, false, &mut |batch| {
                            rows += batch.len() as u64;
                            sum_ids += batch.ids().map(i128::from).sum::<i128>();
                            reading(rows);
                            sink(batch)
                        })
                    },
                    &mut |batch| engine.ingest(batch),
                )?;
                Vec::new()
            }
        };
        if incremental && engine.reaches_back() {
            // An appended receipt is to be compared with receipts whose
            // fields the engine let go: a full reading analyses it.
            drop(tx);
            drop(engine);
            self.forget();
            return self.read(db, now_ms, progress);
        }
        if !incremental {
            // Every row read is in the store, good or damaged.
            let store = engine.store();
            sum_ids = store
                .receipts
                .iter()
                .map(|r| i128::from(r.id))
                .sum::<i128>()
                + store
                    .damaged
                    .iter()
                    .map(|d| i128::from(d.receipt_id))
                    .sum::<i128>();
        }
        let total = engine.store().rows() as u64;
        progress(Progress {
            stage: "analysing: reading replays",
            done: 0,
            total: None,
        });
        // The replays are read while the engine works out what to read again.
        let replays = &mut self.replays;
        let (read, mut engine) = std::thread::scope(|scope| {
            let wanted = scope.spawn(move || engine.wanted());
            let read = replays.read(db);
            let wanted = wanted
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (read, wanted)
        });
        read?;
        let inspector = engine.inspector().clone();
        // The analysis shows where it is: the receipts it compares in full
        // are read again (counted), then its steps.
        let asked = engine.wanted().len() as u64;
        let mut count = |done| {
            progress(Progress {
                stage: "analysing: reading texts to compare",
                done,
                total: Some(asked),
            })
        };
        count(0);
        self.texts_read.clear();
        let helpers = if helpers.is_empty() {
            let ids: Vec<ReceiptId> = engine
                .wanted()
                .iter()
                .map(|&i| engine.store().receipts[i as usize].id)
                .collect();
            let keep = incremental && ids.len() <= KEEP_TEXTS_READ;
            let texts_read = &mut self.texts_read;
            reread_ids_counted(
                db,
                &inspector,
                &ids,
                &mut |receipt| {
                    engine.supply(&receipt);
                    if keep {
                        texts_read.push(receipt);
                    }
                },
                &mut count,
            )?;
            self.texts_read.sort_unstable_by_key(|r| r.id);
            Vec::new()
        } else {
            // Counted as they are handed over (the helpers' shares last).
            let mut done = 0u64;
            let helpers = engine.supply_with(|store, wanted, take, put| {
                crate::reading::reread_split(
                    db,
                    helpers,
                    &inspector,
                    store,
                    wanted,
                    take,
                    &mut |i, supplied| {
                        put(i, supplied);
                        done += 1;
                        if done.is_multiple_of(4096) {
                            count(done);
                        }
                    },
                )
            })?;
            count(done);
            helpers
        };
        let engine = self.engine.insert(engine.analyze(&mut |stage| {
            progress(Progress {
                stage: stage.label(),
                done: stage.step(),
                total: Some(Stage::COUNT),
            })
        }));
        let triage = Arc::clone(engine.triage());
        let receipt_count = engine.store().receipts.len();
        // The helpers, still in their read transactions, share the reading
        // of the items' receipts that follows.
        self.spare = helpers;
        if incremental {
            self.sum_ids += sum_ids;
        } else {
            self.sum_ids = sum_ids;
            self.verified = Some(std::time::Instant::now());
        }
        self.last = if incremental {
            Reading::Incremental
        } else {
            Reading::Full
        };
        progress(Progress {
            stage: "reading the review log",
            done: total,
            total: Some(total),
        });
        let mut snap = assemble(db, settings, receipt_count, triage)?;
        snap.replays = self.replays.per_receipt.clone();
        snap.replay_total = self.replays.total;
        // The read transaction lasts until `fill_receipts` has read the
        // items' receipts (as a full reading's helpers stay in theirs): they
        // are read in the state of the database the analysis saw, so what an
        // item says of its receipts is what they say (and the facts of the
        // engine's store are theirs).
        if let Some(mut tx) = tx {
            tx.set_drop_behavior(rusqlite::DropBehavior::Ignore);
            self.read_open = true;
        }
        Ok(snap)
    }

    /// Puts in `snap` the receipts its items show: those shown last time are
    /// kept, the others read, in the read transaction of [`Reader::read`],
    /// which this ends. `progress` hears how many were read.
    pub fn fill_receipts(
        &mut self,
        db: &Database,
        snap: &mut Snapshot,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<()> {
        let filled = self.fill(db, snap, progress);
        let ended = self.end_read(db);
        filled?;
        Ok(ended?)
    }

    /// Ends the read transaction the last reading left open, if it did.
    fn end_read(&mut self, db: &Database) -> Result<(), StorageError> {
        if std::mem::take(&mut self.read_open) && !db.conn().is_autocommit() {
            db.conn()
                .execute_batch("COMMIT")
                .map_err(|e| db.error("ending a read", e))?;
        }
        Ok(())
    }

    fn fill(
        &mut self,
        db: &Database,
        snap: &mut Snapshot,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<()> {
        let Some(engine) = self.engine.as_ref() else {
            return Ok(());
        };
        // Every receipt an item shows passed inspection.
        let shown = self.shown_ids.update(&snap.triage);
        // Read: those not shown last time, and those changed since.
        let missing: Vec<ReceiptId> = {
            let mut known = shown::ascending_lookup(self.shown.ids());
            let mut stale: Vec<ReceiptId> = self.stale.iter().copied().collect();
            stale.sort_unstable();
            let mut stale = shown::ascending_lookup(&stale);
            shown
                .iter()
                .copied()
                .filter(|&id| !known(id) || stale(id))
                .collect()
        };
        // Those this reading read already need no reading again.
        let mut texts_read = std::mem::take(&mut self.texts_read).into_iter().peekable();
        let (mut known, mut unread) = (Vec::new(), Vec::new());
        for &id in &missing {
            while texts_read.next_if(|r| r.id < id).is_some() {}
            match texts_read.next_if(|r| r.id == id) {
                Some(r) => known.push(r),
                None => unread.push(id),
            }
        }
        progress(Progress {
            stage: READING_RECEIPTS,
            done: 0,
            total: Some(unread.len() as u64),
        });
        let inspector = engine.inspector().clone();
        let asked = unread.len() as u64;
        let mut count = |done| {
            progress(Progress {
                stage: READING_RECEIPTS,
                done,
                total: Some(asked),
            })
        };
        let spare = std::mem::take(&mut self.spare);
        // Those kept are shared with the reading before; those read are
        // added, made compact as they come (after a full reading, on every
        // connection, each row inspected where it was read).
        self.shown = if known.is_empty() && !spare.is_empty() {
            // Still in the analysis' read transaction (see `Reader::read`):
            // the facts of the store are those of the rows read now.
            let store = engine.store();
            let fingerprint = |id| {
                let r = &store.receipts[store.index_of(id)? as usize];
                Some(((r.fingerprint, r.fp_check), r.honeypot_filled()))
            };
            let read = crate::reading::read_compact_split(
                db,
                spare,
                &inspector,
                &unread,
                &fingerprint,
                &mut count,
            )?;
            self.shown.next_compact(&shown, &missing, read)
        } else {
            self.shown.next_reading(&shown, &missing, |each| {
                known.into_iter().for_each(&mut *each);
                reread_ids_counted(db, &inspector, &unread, each, &mut count)
            })?
        };
        self.stale.clear();
        snap.receipts = self.shown.clone();
        Ok(())
    }
}

/// Reads again the rows that may have changed in place and applies their
/// new states; false when something else changed (then read everything).
fn continue_reading(
    db: &Database,
    engine: &mut Engine,
    stale: &mut std::collections::HashSet<ReceiptId>,
    touched: &[ReceiptId],
) -> Result<bool, StorageError> {
    let mut ids = engine.volatile_ids();
    ids.extend_from_slice(touched);
    ids.sort_unstable();
    ids.dedup();
    let mut batches: Vec<Batch> = Vec::new();
    stream::read_receipts_by_id(db, &ids, BATCH_ROWS, &mut |b| {
        batches.push(b);
        Batch::with_capacity(BATCH_ROWS)
    })?;
    match engine.recheck(&ids, &stream::Batches(batches)) {
        Some(changed) => {
            // Receipts shown with their old state are read again.
            stale.extend(changed.iter().copied());
            Ok(true)
        }
        None => Ok(false),
    }
}

/// True when the database holds the rows read (by count and sum of ids).
fn verify(db: &Database, engine: &Engine, sum_ids: i128) -> Result<bool, StorageError> {
    let Some(max) = engine.max_id() else {
        return Ok(false);
    };
    let Some((count, sum)) = storage::count_and_sum_ids(db, max)? else {
        return Ok(false);
    };
    let rows = engine.conflict_rows();
    let conflicts_ok = match rows.last() {
        None => true,
        Some(last) => {
            let sum: i128 = rows.iter().map(|c| i128::from(c.id)).sum();
            storage::count_and_sum_conflict_ids(db, last.id)?
                .is_some_and(|(n, s)| n == rows.len() as i64 && i128::from(s) == sum)
        }
    };
    Ok(conflicts_ok && count == engine.store().rows() as i64 && i128::from(sum) == sum_ids)
}

/// The snapshot of an analysis: the review log joined in.
fn assemble(
    db: &Database,
    settings: Settings,
    receipt_count: usize,
    triage: Arc<Triage>,
) -> anyhow::Result<Snapshot> {
    let statuses = review::load_statuses(db.conn()).context("reading review_log")?;
    let log = review::read_log(db.conn()).context("reading review_log")?;
    let mut reviews = HashMap::new();
    let t = &triage;
    // Most items have no log entry: only those whose id one names are
    // written out, into one buffer, and their receipts listed.
    let mut named: Vec<ReceiptId> = statuses
        .keys()
        .filter_map(|k| review::parse_item(k).ok())
        .map(|(_, id)| id)
        .collect();
    named.sort_unstable();
    named.dedup();
    let mut item = String::new();
    let mut review = |prefix: &str, id: ReceiptId, ids: &dyn Fn() -> Vec<ReceiptId>| {
        use std::fmt::Write;
        if named.binary_search(&id).is_err() {
            return;
        }
        item.clear();
        let _ = write!(item, "{prefix}:{id}");
        if let Some(status) = statuses.get(&item) {
            reviews.insert(
                item.clone(),
                item_review(&status.latest, status.status(&ids())),
            );
        }
    };
    // With no log (or none yet) there is nothing to join: a reading has many items.
    if !statuses.is_empty() {
        for g in &t.duplicates {
            review("dup", g.members[0].id, &|| g.receipt_ids());
        }
        for c in &t.conflicts {
            review("conflict", c.receipt_id, &|| vec![c.receipt_id]);
        }
        for s in &t.stuck {
            review("stuck", s.receipt_id, &|| vec![s.receipt_id]);
        }
    }
    Ok(Snapshot {
        database: db.path().to_path_buf(),
        read_only: db
            .read_only_reason()
            .map(str::to_string)
            .or_else(|| db.is_read_only().then(|| "opened read-only".to_string())),
        state_changes_off: db.state_changes_off(),
        settings,
        receipt_count,
        receipts: Receipts::default(),
        receipts_pending: false,
        replays: HashMap::new(),
        replay_total: 0,
        triage,
        reviews,
        log: log.iter().map(log_line).collect(),
    })
}

/// Indices of the receipts the items show: members of duplicate groups,
/// conflict originals (and receipts holding an attempt), stuck receipts.
pub fn shown_receipts(store: &Store, t: &Triage) -> Vec<u32> {
    shown_ids(t)
        .into_iter()
        .filter_map(|id| store.index_of(id))
        .collect()
}

/// The ids of the receipts the items show (see [`shown_receipts`]), ascending.
pub fn shown_ids(t: &Triage) -> Vec<ReceiptId> {
    let ids = t
        .duplicates
        .iter()
        .flat_map(|g| g.members.iter().map(|m| m.id))
        .chain(t.conflicts.iter().flat_map(|c| {
            std::iter::once(c.receipt_id).chain(
                c.attempts
                    .iter()
                    .filter(|a| a.source == triage::model::AttemptSource::Receipts)
                    .map(|a| a.id),
            )
        }))
        .chain(t.stuck.iter().map(|s| s.receipt_id));
    let mut out: Vec<ReceiptId> = ids.collect();
    out.par_sort_unstable();
    out.dedup();
    out
}

/// Streams receipts (all, or those with an id above `after`) through the
/// inspector into `store`: one batch is inspected on the worker threads while
/// the next is read. `progress` hears the rows read so far.
pub fn read_facts(
    db: &Database,
    inspector: &Inspector,
    store: &mut Store,
    after: Option<ReceiptId>,
    progress: &mut dyn FnMut(u64),
) -> Result<u64, StorageError> {
    let mut read = 0u64;
    pipeline(
        &mut |sink| {
            stream::stream_receipts_with(db, after, BATCH_ROWS, false, &mut |batch| {
                read += batch.len() as u64;
                progress(read);
                sink(batch)
            })
        },
        &mut |batch| triage::ingest_by(store, inspector, batch),
    )
}

/// The receipts at these indices of `store`, read again and inspected in full,
/// with their indices (a receipt gone or changed since is left out).
pub fn reread(
    db: &Database,
    inspector: &Inspector,
    store: &Store,
    indices: &[u32],
) -> Result<Vec<(u32, Receipt)>, StorageError> {
    let mut out: Vec<(u32, Receipt)> = Vec::with_capacity(indices.len());
    reread_each(db, inspector, store, indices, &mut |index, r| {
        out.push((index, r))
    })?;
    Ok(out)
}

/// [`reread`], handing each receipt to `each` as its batch is done (in order).
pub fn reread_each(
    db: &Database,
    inspector: &Inspector,
    store: &Store,
    indices: &[u32],
    each: &mut (dyn FnMut(u32, Receipt) + Send),
) -> Result<(), StorageError> {
    let ids: Vec<ReceiptId> = indices
        .iter()
        .map(|&i| store.receipts[i as usize].id)
        .collect();
    reread_ids(db, inspector, &ids, &mut |r| {
        if let Some(index) = store.index_of(r.id) {
            each(index, r)
        }
    })
}

/// The good receipts with these ids (ascending), read again and inspected in
/// full, handed to `each` in order as their batch is done.
pub fn reread_ids(
    db: &Database,
    inspector: &Inspector,
    ids: &[ReceiptId],
    each: &mut (dyn FnMut(Receipt) + Send),
) -> Result<(), StorageError> {
    reread_ids_counted(db, inspector, ids, each, &mut |_| {})
}

/// [`reread_ids`], telling `read` how many rows were read so far.
pub fn reread_ids_counted(
    db: &Database,
    inspector: &Inspector,
    ids: &[ReceiptId],
    each: &mut (dyn FnMut(Receipt) + Send),
    read: &mut dyn FnMut(u64),
) -> Result<(), StorageError> {
    let mut done = 0u64;
    pipeline(
        &mut |sink| {
            stream::read_receipts_by_id(db, ids, BATCH_ROWS, &mut |batch| {
                done += batch.len() as u64;
                read(done);
                sink(batch)
            })
        },
        &mut |batch| {
            let found: Vec<Receipt> = (0..batch.len())
                .into_par_iter()
                .with_min_len(64)
                .map_init(
                    || (Scratch::default(), String::new()),
                    |(s, buf), i| inspector.receipt(&batch.row(i, buf), s).ok(),
                )
                .flatten()
                .collect();
            for r in found {
                each(r);
            }
        },
    )?;
    Ok(())
}

/// Takes a full batch and gives back an empty one to fill.
type Sink<'s> = &'s mut dyn FnMut(Batch) -> Batch;

/// Runs `produce` on this thread (it owns the connection) and `consume` on
/// another, handing batches over and recycling their buffers.
fn pipeline<T>(
    produce: &mut dyn FnMut(Sink<'_>) -> Result<T, StorageError>,
    consume: &mut (dyn FnMut(&Batch) + Send),
) -> Result<T, StorageError> {
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(1);
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    std::thread::scope(|scope| {
        let consumer = scope.spawn(move || {
            for mut batch in full_rx {
                consume(&batch);
                batch.clear();
                if empty_tx.send(batch).is_err() {
                    break;
                }
            }
        });
        let result = produce(&mut |batch| {
            // A consumer that died has dropped its end; its panic is raised below.
            let _ = full_tx.send(batch);
            empty_rx
                .try_recv()
                .unwrap_or_else(|_| Batch::with_capacity(BATCH_ROWS))
        });
        drop(full_tx);
        if let Err(panic) = consumer.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

fn item_review(latest: &LogEntry, status: Status) -> ItemReview {
    let last_log_id = Some(latest.id);
    match status {
        Status::Pending => ItemReview {
            last_log_id,
            ..ItemReview::default()
        },
        Status::Resolved {
            decision,
            operator,
            decided_at,
            note,
        } => ItemReview {
            resolved: true,
            decision: Some(decision.as_str().to_string()),
            operator: Some(operator),
            decided_at_ms: crate::time::parse_text(&decided_at).ok(),
            note,
            new_copy_since_decision: false,
            last_log_id,
        },
        Status::PendingNewCopy {
            decision,
            operator,
            decided_at,
            note,
            ..
        } => ItemReview {
            resolved: false,
            decision: Some(decision.as_str().to_string()),
            operator: Some(operator),
            decided_at_ms: crate::time::parse_text(&decided_at).ok(),
            note,
            new_copy_since_decision: true,
            last_log_id,
        },
    }
}

fn log_line(e: &LogEntry) -> LogLine {
    LogLine {
        id: e.id,
        item: e.item.clone(),
        kind: e.kind.as_str().to_string(),
        decision: e.decision.as_str().to_string(),
        operator: e.operator.clone(),
        decided_at_ms: e.decided_ms(),
        receipt_ids: e.receipt_ids.clone(),
        note: e.note.clone(),
        reopens: e.reopens,
    }
}

/// An item of the current analysis that a decision can be recorded on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: Kind,
    pub receipt_ids: Vec<ReceiptId>,
}

/// Finds `dup:12`, `conflict:40` or `stuck:77` in the snapshot.
pub fn find_item(snap: &Snapshot, item: &str) -> Option<Target> {
    let (kind, id) = review::parse_item(item).ok()?;
    let t = &snap.triage;
    let receipt_ids = match kind {
        Kind::Duplicate => t
            .duplicates
            .iter()
            .find(|g| g.members[0].id == id)?
            .receipt_ids(),
        Kind::Conflict => vec![t.conflicts.iter().find(|c| c.receipt_id == id)?.receipt_id],
        Kind::Stuck => vec![t.stuck.iter().find(|s| s.receipt_id == id)?.receipt_id],
    };
    Some(Target { kind, receipt_ids })
}
