//! The one pipeline that reads a database: in full the first time, then only
//! the rows appended since, as long as nothing else changed.
//!
//! A reading goes: begin a [`Session`] → read the receipts into the
//! engine → count the replays and absorbed copies while the engine works
//! out which receipts to read again → read those → analyse → join in the
//! review log. The screen is handed the analysis then, and the receipts its
//! items show follow from [`Reader::fill_receipts`], still in the same state
//! of the database.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::compact_sink::CompactSink;
use super::receipts::Receipts;
use super::shown::{self, ShownIds};
use super::snapshot::{Snapshot, assemble};
use super::stage::{Progress, ReadingStage};
use crate::model::{Millis, ReceiptId, RowSink, Settings};
use crate::storage::{Connections, ReadCursor, Session, Storage, StorageError, Tallies};
use crate::triage::activity::Collector;
use crate::triage::engine::{AnalysisStage, DEFAULT_WINDOWS, Engine, Ingesting, Rereading};
use crate::triage::model::Receipt;
use crate::triage::{FactSink, Ingest, ReceiptSink};

/// The most receipts a refresh keeps from comparing texts for the items'
/// receipts (a large append reads them again rather than hold them all).
const KEEP_TEXTS_READ: usize = 16_384;

/// How much of the database a [`Reader`] read the last time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// Every row.
    Full,
    /// The rows appended since the reading before, and the few that may change.
    Appended,
}

/// Reads a database again and again (the screen's worker): in full the first
/// time, then only the rows appended since, as long as nothing else changed.
/// Rows that may still change in place (receipts in flight or failed, damaged
/// rows) are looked at each time by the columns the intake changes
/// (`state`, `updated_at`), and read again whole when those changed; any
/// other change that the protocol does not make (a row deleted or rewritten)
/// is caught now and then (every `verify_every`) by reading all of those rows
/// whole and comparing the count and the sum of the ids, and the next
/// reading is then a full one.
pub struct Reader {
    settings: Settings,
    engine: Option<Engine>,
    /// The receipts the items showed last time (shared with that reading).
    shown: Receipts,
    /// Their ids, kept up to date group by group.
    shown_ids: ShownIds,
    /// Receipts that changed in place since (to be read again).
    stale: HashSet<ReceiptId>,
    last: Extent,
    /// Rows read and the sum of their ids, to compare with the database.
    sum_ids: i128,
    /// Where the last reading of the receipts ended (the engine's own).
    cursor: Option<ReadCursor>,
    /// Receipts to read again next time besides those that may change.
    touched: Vec<ReceiptId>,
    /// The latest erasure row the last reading saw.
    erasure_seen: Option<i64>,
    /// The rows that may change in place, as they stood at the last reading
    /// ([`Session::state_stamps`]), by id.
    stamps: HashMap<ReceiptId, String>,
    /// Receipts the last reading of appended rows read whole to compare
    /// texts, by id: the items' receipts take them from here rather than
    /// read them again (the new copies are most of both).
    texts_read: Vec<Receipt>,
    verified: Option<Instant>,
    /// Replays and absorbed copies counted so far, brought up to date by
    /// each reading.
    tallies: Tallies,
    pub verify_every: Duration,
    /// How many windows back the engine keeps the fields of receipts (see
    /// `Engine::keep_fields_for`).
    pub fields_horizon: Option<i64>,
    /// How long the last reading took to collect its activity summary (for
    /// measurements).
    activity_took: Duration,
    /// The per-form activity, kept up to date reading by reading.
    activity: Collector,
}

/// The rest of a reading: the receipts its items show, to be read by
/// [`Reader::fill_receipts`] in the same state of the database as the
/// analysis (the session's connections are still in it). Dropping it ends
/// the reading without them.
#[must_use = "the reading ends when this is filled or dropped"]
pub struct PendingReceipts<'db> {
    session: Box<dyn Session + 'db>,
}

impl PendingReceipts<'_> {
    /// Ends the reading without the items' receipts.
    pub fn end(self) -> Result<(), StorageError> {
        self.session.end()
    }
}

/// Reads and analyses the database once, and joins in the review log: what
/// the report, `check` and `resolve` work from. The receipts themselves are
/// not kept (see [`Snapshot::receipts`]).
pub fn read(
    db: &dyn Storage,
    settings: Settings,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<Snapshot> {
    let now_ms = settings.now_ms;
    let mut reader = Reader::new(settings);
    let (snap, pending) = reader.read(db, now_ms, progress)?;
    pending.end()?;
    Ok(snap)
}

/// [`read`], with the receipts the items show.
pub fn read_with_receipts(
    db: &dyn Storage,
    settings: Settings,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<Snapshot> {
    let now_ms = settings.now_ms;
    let mut reader = Reader::new(settings);
    let (mut snap, pending) = reader.read(db, now_ms, progress)?;
    reader.fill_receipts(pending, &mut snap, progress)?;
    Ok(snap)
}

impl Reader {
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            engine: None,
            shown: Receipts::default(),
            shown_ids: ShownIds::default(),
            stale: HashSet::new(),
            last: Extent::Full,
            sum_ids: 0,
            cursor: None,
            touched: Vec::new(),
            erasure_seen: None,
            stamps: HashMap::new(),
            texts_read: Vec::new(),
            verified: None,
            tallies: Tallies::default(),
            verify_every: Duration::from_secs(30),
            fields_horizon: Some(DEFAULT_WINDOWS),
            activity_took: Duration::ZERO,
            activity: Collector::default(),
        }
    }

    /// How many receipts the engine holds the fields of, and how many
    /// fields (see `Engine::fields_held`).
    pub fn fields_held(&self) -> Option<(usize, usize)> {
        self.engine.as_ref().map(Engine::fields_held)
    }

    /// How long the last reading took to collect the per-form activity.
    pub fn activity_took(&self) -> Duration {
        self.activity_took
    }

    /// How much the last reading read.
    pub fn last_extent(&self) -> Extent {
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
        self.cursor = None;
        self.shown = Receipts::default();
        self.stale.clear();
        self.stamps.clear();
        self.texts_read.clear();
        self.tallies = Tallies::default();
        self.activity.reset();
    }

    /// Reads and analyses the database as of `now_ms`. The snapshot's
    /// receipts are left to [`Reader::fill_receipts`], which takes the
    /// reading's [`PendingReceipts`].
    pub fn read<'db>(
        &mut self,
        db: &'db dyn Storage,
        now_ms: Millis,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<(Snapshot, PendingReceipts<'db>)> {
        // A reading of the appended rows that finds it must read everything
        // starts over, once: the reading after `forget` is a full one.
        match self.read_once(db, now_ms, progress)? {
            Some(read) => Ok(read),
            None => {
                self.forget();
                Ok(self
                    .read_once(db, now_ms, progress)?
                    .expect("a full reading never starts over"))
            }
        }
    }

    /// One reading; `None` when the appended rows reach back past what the
    /// engine kept (then everything is to be read).
    fn read_once<'db>(
        &mut self,
        db: &'db dyn Storage,
        now_ms: Millis,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<Option<(Snapshot, PendingReceipts<'db>)>> {
        // A full reading is split over every core (see storage::split).
        let first = self.engine.is_none();
        let connections = |full: bool| {
            if full {
                Connections::EveryCore
            } else {
                Connections::One
            }
        };
        let mut session = db.begin_read(connections(first))?;
        // An erasure rewrote payloads in place: everything is read again.
        let erasure = session.latest_erasure_id()?;
        let erased_since = erasure != self.erasure_seen;
        self.erasure_seen = erasure;
        let appended = !first
            && !erased_since
            && !db.source().is_view()
            && self.unchanged_but_appended(&mut *session)?;
        if !appended {
            self.forget();
            if !first {
                // A reading that has to read everything reads it split.
                session.end()?;
                session = db.begin_read(connections(true))?;
            }
        }
        let mut settings = self.settings.clone();
        settings.now_ms = now_ms;
        let mut ingesting = match self.engine.take() {
            Some(engine) if appended => {
                let after = engine.conflict_rows().last().map(|c| c.id);
                engine.begin_adding(now_ms, session.conflict_rows(after)?)
            }
            _ => Engine::begin(&settings, self.fields_horizon, session.conflict_rows(None)?),
        };
        let after = if appended { self.cursor.take() } else { None };
        let read_before = ingesting.store().rows() as u64;
        let (sum_ids, cursor) =
            ingest(&mut *session, &mut ingesting, after.as_ref(), &mut |done| {
                progress(Progress::new(
                    ReadingStage::Receipts,
                    read_before + done,
                    None,
                ))
            })?;
        self.cursor = Some(cursor);
        if appended && ingesting.reaches_back() {
            // An appended receipt is to be compared with receipts whose
            // fields the engine dropped: a full reading analyses it.
            return Ok(None);
        }
        progress(Progress::new(ReadingStage::Replays, 0, None));
        // The tallies are read while the engine works out what to read again.
        let tallies = &mut self.tallies;
        let (read, mut supplying) = std::thread::scope(|scope| {
            let wanted = scope.spawn(move || ingesting.wanted());
            let read = tallies
                .each_mut()
                .into_iter()
                .try_for_each(|tally| session.tally(tally));
            let supplying = wanted
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (read, supplying)
        });
        read?;
        // The receipts the analysis compares in full are read again (counted).
        let ids: Vec<ReceiptId> = supplying
            .wanted()
            .iter()
            .map(|&i| supplying.store().receipts[i as usize].id)
            .collect();
        let keep = appended && ids.len() <= KEEP_TEXTS_READ;
        self.texts_read = supply(
            &mut *session,
            &mut supplying,
            &ids,
            keep,
            &mut |done, total| progress(Progress::new(ReadingStage::Texts, done, Some(total))),
        )?;
        let engine = self.engine.insert(supplying.analyze(&mut |stage| {
            progress(Progress::new(
                ReadingStage::Analysis(stage),
                stage.step(),
                Some(AnalysisStage::COUNT),
            ))
        }));
        // The engine keeps its own triage for the next refresh; the reading
        // shows erased receipts in the groups they were in.
        let triage = crate::triage::erased::shown(engine.store(), Arc::clone(engine.triage()));
        let receipt_count = engine.store().receipts.len();
        let total = engine.store().rows() as u64;
        if appended {
            self.sum_ids += sum_ids;
        } else {
            self.sum_ids = sum_ids;
            self.verified = Some(Instant::now());
        }
        self.last = if appended {
            Extent::Appended
        } else {
            Extent::Full
        };
        progress(Progress::new(ReadingStage::ReviewLog, total, Some(total)));
        let mut snap = assemble(db, &mut *session, settings, receipt_count, triage)?;
        snap.erased_receipts = engine.store().erased.len();
        let started = Instant::now();
        let (replays, absorbed) = (&self.tallies.replays, &self.tallies.absorbed);
        snap.activity = Arc::new(self.activity.collect(
            engine.store(),
            &snap.triage,
            &replays.per_receipt,
            &absorbed.per_receipt,
        ));
        self.activity_took = started.elapsed();
        snap.replays = replays.per_receipt.clone();
        snap.replay_total = replays.total;
        snap.absorbed = absorbed.per_receipt.clone();
        snap.absorbed_total = db.source().absorbed.is_usable().then_some(absorbed.total);
        Ok(Some((snap, PendingReceipts { session })))
    }

    /// True when the engine's reading can go on with the rows appended
    /// since: the rows that may change in place read again and applied, and
    /// (when due) the database checked to hold what was read.
    fn unchanged_but_appended(&mut self, session: &mut dyn Session) -> anyhow::Result<bool> {
        let Some(engine) = self.engine.as_mut() else {
            return Ok(false);
        };
        match &self.cursor {
            Some(cursor) if !session.committed_below(cursor)? => {}
            _ => return Ok(false),
        }
        let touched = std::mem::take(&mut self.touched);
        let mut ids = engine.volatile_ids();
        ids.extend(&touched);
        ids.sort_unstable();
        ids.dedup();
        let due = self
            .verified
            .is_none_or(|t| t.elapsed() >= self.verify_every);
        let stamps = session.state_stamps(&ids)?;
        if stamps.len() != ids.len() {
            // A row that may change in place is gone.
            return Ok(false);
        }
        // Read whole: the rows whose state changed since the last reading
        // (or that it did not look at), those touched, or all when due.
        let mut reread: Vec<ReceiptId> = match due {
            true => ids,
            false => stamps
                .iter()
                .filter(|(id, stamp)| self.stamps.get(id) != Some(stamp))
                .map(|(id, _)| *id)
                .chain(touched)
                .collect(),
        };
        reread.sort_unstable();
        reread.dedup();
        self.stamps = stamps.into_iter().collect();
        let rows = session.receipts_held(&reread)?;
        let Some(changed) = engine.recheck(&reread, &*rows) else {
            return Ok(false);
        };
        // Receipts shown with their old state are read again.
        self.stale.extend(changed);
        if !due {
            return Ok(true);
        }
        let Some(max) = engine.max_id() else {
            return Ok(false);
        };
        Ok(session.holds(
            max,
            engine.store().rows(),
            self.sum_ids,
            engine.conflict_rows(),
            &self.tallies,
        )?)
    }

    /// Puts in `snap` the receipts its items show: those shown last time are
    /// kept, the others read in the state of the database the analysis saw,
    /// so that what an item says of its receipts is what they say. Ends the
    /// reading. `progress` is told how many were read.
    pub fn fill_receipts(
        &mut self,
        pending: PendingReceipts<'_>,
        snap: &mut Snapshot,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<()> {
        let PendingReceipts { mut session } = pending;
        let filled = self.fill(&mut *session, snap, progress);
        let ended = session.end();
        filled?;
        Ok(ended?)
    }

    fn fill(
        &mut self,
        session: &mut dyn Session,
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
        let asked = unread.len() as u64;
        let mut count = |done| {
            progress(Progress::new(
                ReadingStage::ItemsReceipts,
                done,
                Some(asked),
            ))
        };
        count(0);
        let inspector = engine.inspector().clone();
        let connections = session.connections();
        self.shown = if known.is_empty() {
            // The facts of the engine's store are those of the rows read
            // now: exact copies among them share their fields.
            let store = engine.store();
            let fingerprint = |id| {
                let r = &store.receipts[store.index_of(id)? as usize];
                Some(((r.fingerprint, r.fp_check), r.honeypot_filled()))
            };
            let room = unread.len().div_ceil(connections);
            let mut sinks: Vec<CompactSink<'_>> = (0..connections)
                .map(|_| CompactSink::new(&inspector, &fingerprint, room))
                .collect();
            session.receipts_by_id(&unread, &mut as_sinks(&mut sinks), &mut count)?;
            let mut sinks = sinks.into_iter().map(CompactSink::into_compact);
            let mut read = sinks.next().unwrap_or_default();
            for later in sinks {
                read.append(later);
            }
            self.shown.next_compact(&shown, &missing, read)
        } else {
            let keep = |r: Receipt| Some(r);
            let mut sinks: Vec<ReceiptSink<'_, Receipt>> = (0..connections)
                .map(|_| ReceiptSink::new(&inspector, &keep))
                .collect();
            session.receipts_by_id(&unread, &mut as_sinks(&mut sinks), &mut count)?;
            let read = sinks.into_iter().flat_map(ReceiptSink::into_kept);
            self.shown
                .next_reading(&shown, &missing, |each| -> Result<(), StorageError> {
                    known.into_iter().chain(read).for_each(each);
                    Ok(())
                })?
        };
        self.stale.clear();
        snap.receipts = self.shown.clone();
        Ok(())
    }
}

/// The sinks as a reading takes them.
fn as_sinks<S: RowSink>(sinks: &mut [S]) -> Vec<&mut dyn RowSink> {
    sinks.iter_mut().map(|s| s as &mut dyn RowSink).collect()
}

/// Reads the receipts (those after `after`, or all) into the engine's store;
/// gives the sum of the ids of the rows read, good and damaged, and where
/// the reading ended.
fn ingest(
    session: &mut dyn Session,
    engine: &mut Ingesting,
    after: Option<&ReadCursor>,
    progress: &mut dyn FnMut(u64),
) -> Result<(i128, ReadCursor), StorageError> {
    engine.ingest_with(|inspector, store| {
        let before = (store.receipts.len(), store.damaged.len());
        let ingest = Ingest::begin(store, inspector);
        // Facts sized once (rowids may have gaps: then this is too much).
        let rows_hint = session.rows_each().map_or(0, |n| n.min(1 << 22) as usize);
        let mut sinks: Vec<FactSink<'_, '_>> = (0..session.connections())
            .map(|_| FactSink::new(&ingest, rows_hint))
            .collect();
        let read = session.receipts(after, &mut as_sinks(&mut sinks), progress);
        let parts = match read {
            Ok(..) => sinks.into_iter().flat_map(FactSink::into_parts).collect(),
            Err(_) => Vec::new(),
        };
        ingest.finish(store, parts);
        let (_, cursor) = read?;
        let good = store.receipts[before.0..].iter().map(|r| i128::from(r.id));
        let damaged = store.damaged[before.1..]
            .iter()
            .map(|d| i128::from(d.receipt_id));
        Ok((good.chain(damaged).sum(), cursor))
    })
}

/// Reads again the receipts with these ids and hands the engine what it asked
/// of each; gives them back whole when `keep` (the items' receipts take them
/// from there). `progress` is told how many of how many were read.
fn supply(
    session: &mut dyn Session,
    engine: &mut Rereading,
    ids: &[ReceiptId],
    keep: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<Receipt>, StorageError> {
    let asked = ids.len() as u64;
    progress(0, asked);
    let connections = session.connections();
    let inspector = engine.inspector().clone();
    engine.supply_with(|store, _, take, put| {
        let taken = |r: Receipt| {
            let index = store.index_of(r.id)?;
            // Boxed: most readings keep none, and a receipt is large
            // beside what is taken of it.
            let whole = keep.then(|| Box::new(r.clone()));
            Some((index, take(index, r), whole))
        };
        let mut sinks: Vec<ReceiptSink<'_, _>> = (0..connections)
            .map(|_| ReceiptSink::new(&inspector, &taken))
            .collect();
        session.receipts_by_id(ids, &mut as_sinks(&mut sinks), &mut |done| {
            progress(done, asked)
        })?;
        let mut whole = Vec::new();
        for (index, supplied, r) in sinks.into_iter().flat_map(ReceiptSink::into_kept) {
            put(index, supplied);
            whole.extend(r.map(|r| *r));
        }
        whole.sort_unstable_by_key(|r| r.id);
        Ok(whole)
    })
}
