//! One thread does all database work, so the screen never freezes: a large
//! database is analysed while the UI draws progress, and a busy database
//! delays a decision, not a keypress.

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::throttle::Throttle;
use crate::find::Query;
use crate::i18n::Lang;
use crate::model::{Millis, Settings};
use crate::reading::{self, Extent::Full, Reader, Snapshot};
use crate::review;
use crate::review::{ExportFile, ExportFilter};
use crate::storage::{self, Access, ChangeMark, Location, Storage};
use crate::t;
use crate::tui::app::indexed::IndexedSnapshot;
use crate::tui::app::msg::{
    EraseAsk, ErasePlanned, ItemDecision, Msg, PayloadRef, Reopen, Reopened,
};
use crate::tui::app::words;

/// Only a reading in progress shares the database, and none is while a
/// decision is recorded.
const HELD: &str = "the database is shared only while it is read";

/// How often the worker asks the database whether another connection wrote.
const WATCH_INTERVAL: Duration = Duration::from_millis(500);

/// The first wait before reading again after a lost connection; each
/// failure doubles it, up to [`LONGEST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_secs(1);
const LONGEST_RETRY: Duration = Duration::from_secs(30);

pub enum Request {
    Load,
    Payloads(Vec<PayloadRef>),
    Decide(Vec<ItemDecision>),
    /// Decisions taken as one step (the bulk `D`), written as one batch.
    DecideBatch(Vec<ItemDecision>),
    /// Undo the operator's last step; with the step they agreed to when asked.
    Undo(Option<review::Wide>),
    /// Reopen the decision on one item, as `receipt-review reopen` does,
    /// only while the latest entry is the one the screen showed.
    Reopen(Reopen),
    Export(ExportFile),
    /// Search every receipt, as of this time.
    Find(Query, Millis),
    /// Find the receipts an erasure would take.
    PlanErase(EraseAsk),
    /// Erase them (the operator agreed).
    Erase(EraseAsk),
    Stop,
}

#[derive(Clone, Debug)]
pub struct WorkerConfig {
    pub location: Location,
    pub read_only: bool,
    pub settings: Settings,
    /// `--now` was given: analyse as of that time on every load.
    pub fixed_now: Option<Millis>,
    pub operator: String,
    /// Where exports are written.
    pub export_dir: PathBuf,
    /// The language of the messages the worker sends back.
    pub lang: Lang,
}

pub struct Worker {
    requests: Sender<Request>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    /// Opens the database (an error here is reported before the screen takes
    /// over the terminal) and starts the worker thread.
    pub fn start(config: WorkerConfig, messages: Sender<Msg>) -> anyhow::Result<Worker> {
        let access = if config.read_only {
            Access::ReadOnly
        } else {
            Access::PreferWrite
        };
        let database = storage::open_database(&config.location, access)?;
        let (requests, inbox) = mpsc::channel();
        let handle = thread::Builder::new()
            .name("receipt-review-db".into())
            .spawn(move || State::new(config, database, messages).run(inbox))?;
        Ok(Worker {
            requests,
            handle: Some(handle),
        })
    }

    pub fn send(&self, request: Request) {
        // A worker that has stopped has already reported why.
        let _ = self.requests.send(request);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.requests.send(Request::Stop);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

struct State {
    config: WorkerConfig,
    /// Shared with the reading in progress, which holds it until the
    /// items' receipts are read.
    database: Rc<dyn Storage>,
    messages: Sender<Msg>,
    /// Where the database stood when it was last read.
    change_mark: Option<ChangeMark>,
    /// The last reading, shared with the screen (its triage finds the items
    /// decisions are about; its index is copied from for the next one).
    last: Option<IndexedSnapshot>,
    /// The reading before, held until the screen has surely dropped it, so
    /// that it is freed here and not on the screen's thread.
    retired: Option<IndexedSnapshot>,
    /// A reading was handed over since memory was last given back.
    to_give_back: bool,
    /// Keeps the analysis between readings, so that a reading after the
    /// intake appended rows only analyses those.
    reader: Reader,
    /// After a lost connection: when to read again, and the wait after that.
    retry: Option<(Instant, Duration)>,
}

impl State {
    fn new(config: WorkerConfig, database: Box<dyn Storage + Send>, messages: Sender<Msg>) -> Self {
        let reader = Reader::new(config.settings.clone());
        let database: Box<dyn Storage> = database;
        Self {
            config,
            database: Rc::from(database),
            messages,
            change_mark: None,
            last: None,
            retired: None,
            to_give_back: false,
            reader,
            retry: None,
        }
    }

    fn run(mut self, inbox: Receiver<Request>) {
        loop {
            match inbox.recv_timeout(WATCH_INTERVAL) {
                Ok(Request::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(request) => self.handle(request),
                Err(RecvTimeoutError::Timeout) => self.watch(),
            }
        }
    }

    fn send(&self, msg: Msg) {
        let _ = self.messages.send(msg);
    }

    fn handle(&mut self, request: Request) {
        match request {
            Request::Load => self.load(),
            Request::Payloads(refs) => {
                let loaded = refs.into_iter().map(|r| (r, self.payload(r))).collect();
                self.send(Msg::Payloads(loaded));
            }
            Request::Decide(requests) => {
                let outcome = self.decide(requests);
                self.send(Msg::Recorded(outcome));
                self.load();
            }
            Request::DecideBatch(requests) => {
                let outcome = self.decide_batch(requests);
                self.send(Msg::Recorded(outcome));
                self.load();
            }
            Request::Undo(confirmed) => {
                // A step that reaches far is asked about first: nothing changed.
                if let Some(outcome) = self.undo(confirmed) {
                    self.send(Msg::Undone(outcome));
                    self.load();
                }
            }
            Request::Reopen(reopen) => {
                let outcome = self.reopen(&reopen);
                self.send(Msg::Undone(outcome));
                self.load();
            }
            Request::Export(format) => {
                let outcome = self.export(format);
                self.send(Msg::Exported(outcome));
            }
            Request::Find(query, now_ms) => {
                let result = crate::find::search(&*self.database, &query, now_ms)
                    .map_err(|e| crate::sanitize::error_line(&e));
                self.send(Msg::Found { query, result });
            }
            Request::PlanErase(ask) => {
                let planned = self.plan_erase(ask);
                self.send(Msg::ErasePlanned(planned));
            }
            Request::Erase(ask) => {
                let outcome = self.erase(&ask);
                self.send(Msg::Erased(outcome));
                // An erasure rewrote payloads: the reading starts over.
                self.load();
            }
            Request::Stop => {}
        }
    }

    /// What an erasure would take, as `receipt-review erase --dry-run` lists it;
    /// a note that keeps an erased value is refused here, before the question.
    fn plan_erase(&self, ask: EraseAsk) -> Result<ErasePlanned, String> {
        let lang = self.config.lang;
        let plan = crate::erase::Plan::of(&*self.database, &ask.who, &self.settings())
            .map_err(|e| crate::sanitize::error_line(&e))?;
        if let Some(value) = crate::erase::note_names(&ask.note, &plan.erased_values()) {
            return Err(crate::t!(
                lang,
                "status.erase.note_names_visitor",
                value = crate::sanitize::inline(value, 60)
            ));
        }
        Ok(ErasePlanned {
            receipts: plan.selection.chosen.iter().map(|c| c.id).collect(),
            ask,
        })
    }

    /// The erasure, planned again as of now (what changed since the question
    /// is taken as it is now), through the command line's own path.
    fn erase(&mut self, ask: &EraseAsk) -> Result<String, String> {
        let lang = self.config.lang;
        let plan = crate::erase::Plan::of(&*self.database, &ask.who, &self.settings())
            .map_err(|e| crate::sanitize::error_line(&e))?;
        if plan.is_empty() {
            return Err(crate::t!(lang, "status.erase.nothing").into());
        }
        let erased = plan
            .erase(
                Rc::get_mut(&mut self.database).expect(HELD),
                &self.config.operator,
                Some(ask.note.clone()),
                crate::model::time::now_ms(),
            )
            .map_err(|e| crate::sanitize::inline(&e.to_string(), 300))?;
        let done = crate::t!(
            lang,
            "status.erase.done",
            n = erased.entry.receipt_ids.len(),
            item = crate::sanitize::inline(&erased.entry.item, 40)
        );
        Ok(match erased.scrubbed {
            crate::storage::Scrubbed::Done => done,
            crate::storage::Scrubbed::NotNow(why) => crate::t!(
                lang,
                "status.erase.not_scrubbed",
                done = done,
                why = crate::sanitize::inline(&why, 200)
            ),
        })
    }

    fn settings(&self) -> Settings {
        let mut settings = self.config.settings.clone();
        settings.now_ms = self
            .config
            .fixed_now
            .unwrap_or_else(crate::model::time::now_ms);
        settings
    }

    fn load(&mut self) {
        let messages = self.messages.clone();
        let mut throttle = Throttle::default();
        let lang = self.config.lang;
        let mut progress = |p: reading::Progress| {
            let stage = words::stage(p.stage, lang);
            if throttle.due(stage, Instant::now()) {
                let _ = messages.send(Msg::Progress {
                    stage,
                    done: p.done,
                    total: p.total,
                });
            }
        };
        self.change_mark = self.database.change_mark().ok();
        let now = self.settings().now_ms;
        let database = Rc::clone(&self.database);
        let read = self.reader.read(&*database, now, &mut progress);
        let (mut snap, pending) = match read {
            Ok(read) => read,
            Err(e) => return self.failed(&e),
        };
        self.retry = None;
        if self.config.read_only && snap.read_only.is_none() {
            snap.read_only = Some(t!(self.config.lang, "worker.opened_read_only").into());
        }
        if self.reader.last_extent() == Full {
            // The analysis first; the receipts its items show follow.
            let mut first = snap.clone();
            first.receipts_pending = true;
            self.publish(first);
        }
        match self.reader.fill_receipts(pending, &mut snap, &mut progress) {
            Ok(()) => {
                // A full reading leaves the allocator holding what its
                // analysis passed through: given back before the filter
                // index is made, the screen's peak is about 30 MB lower at
                // 1M. A refresh leaves it to `watch` (it takes milliseconds,
                // which a refresh cannot spare).
                if self.reader.last_extent() == Full {
                    crate::memory::give_back_freed();
                }
                self.publish(snap)
            }
            Err(e) => self.failed(&e),
        }
    }

    /// Says why a reading failed; a lost connection is tried again, each
    /// time waiting twice as long.
    fn failed(&mut self, e: &anyhow::Error) {
        self.reader.forget();
        let why = crate::sanitize::error_line(e);
        let transient = e
            .downcast_ref::<crate::storage::StorageError>()
            .is_some_and(crate::storage::StorageError::is_transient);
        if !transient {
            self.retry = None;
            self.send(Msg::LoadFailed(why));
            return;
        }
        let wait = self
            .retry
            .map_or(FIRST_RETRY, |(_, wait)| (wait * 2).min(LONGEST_RETRY));
        self.retry = Some((Instant::now() + wait, wait));
        self.send(Msg::LoadFailed(t!(
            self.config.lang,
            "worker.retrying",
            why = why,
            seconds = wait.as_secs()
        )));
    }

    /// Indexes a reading for the filter (rows unchanged since the last
    /// reading are copied) and hands it to the screen, keeping a share.
    fn publish(&mut self, snap: Snapshot) {
        self.send(Msg::Progress {
            stage: words::indexing(self.config.lang),
            done: 0,
            total: None,
        });
        let reading = IndexedSnapshot::after(snap, self.last.as_ref());
        let retired = self.last.replace(reading.clone());
        self.send(Msg::Loaded(reading));
        // Let go of the reading before the last only once the screen has the
        // new one: what no later reading shares takes a while to free.
        self.retired = retired;
        self.to_give_back = true;
    }

    /// Reloads by itself when another connection (the intake, a colleague) wrote.
    fn watch(&mut self) {
        if let Some((at, _)) = self.retry
            && Instant::now() >= at
        {
            return self.load();
        }
        // Half a second after a reading was handed over, the screen has
        // taken the new one.
        self.retired = None;
        if std::mem::take(&mut self.to_give_back) {
            // The reading before, and what making this one passed through.
            crate::memory::give_back_freed();
        }
        let Ok(mark) = self.database.change_mark() else {
            return;
        };
        if self.change_mark.is_some_and(|seen| seen != mark) {
            // The screen answers with a reload request; remember the mark
            // now so that one change is announced once.
            self.change_mark = Some(mark);
            self.send(Msg::DatabaseChanged);
        }
    }

    fn payload(&self, r: PayloadRef) -> Result<String, String> {
        let found = match r {
            PayloadRef::Receipt(id) => self.database.receipt_payload(id),
            PayloadRef::KeyConflict(id) => self.database.conflict_payload(id),
        };
        match found {
            Ok(Some(text)) => Ok(text),
            Ok(None) => Err(t!(self.config.lang, "worker.payload_gone").into()),
            Err(e) => Err(crate::sanitize::inline(&e.to_string(), 200)),
        }
    }

    fn read_only_reason(&self) -> Option<String> {
        if self.config.read_only {
            return Some(t!(self.config.lang, "worker.opened_read_only").into());
        }
        self.database.read_only_reason().map(str::to_string)
    }

    fn decide(&mut self, requests: Vec<ItemDecision>) -> Result<String, String> {
        let lang = self.config.lang;
        if let Some(reason) = self.read_only_reason() {
            return Err(t!(lang, "status.read_only", reason = reason));
        }
        let Some(IndexedSnapshot { snapshot: snap, .. }) = &self.last else {
            return Err(t!(lang, "worker.still_loading").into());
        };
        let total = requests.len();
        let mut recorded = Vec::new();
        let mut refused = Vec::new();
        for request in requests {
            match record(
                Rc::get_mut(&mut self.database).expect(HELD),
                snap,
                &self.config.operator,
                &request,
                lang,
            ) {
                Ok(text) => recorded.push(text),
                Err(text) => refused.push(text),
            }
        }
        match (total, recorded.len()) {
            (1, 1) => Ok(recorded.remove(0)),
            (1, 0) => Err(refused.remove(0)),
            _ if refused.is_empty() => Ok(t!(lang, "worker.recorded_many", n = recorded.len())),
            _ => Err(t!(
                lang,
                "worker.recorded_refused",
                recorded = recorded.len(),
                refused = refused.len(),
                first = refused[0]
            )),
        }
    }

    /// Records a bulk decision as one step; its rows form one batch.
    fn decide_batch(&mut self, requests: Vec<ItemDecision>) -> Result<String, String> {
        let lang = self.config.lang;
        if let Some(reason) = self.read_only_reason() {
            return Err(t!(lang, "status.read_only", reason = reason));
        }
        let Some(IndexedSnapshot { snapshot: snap, .. }) = &self.last else {
            return Err(t!(lang, "worker.still_loading").into());
        };
        let mut refused = Vec::new();
        let mut full = Vec::new();
        for request in &requests {
            match full_request(snap, &self.config.operator, request, lang) {
                Ok(r) => full.push(r),
                Err(why) => refused.push(why),
            }
        }
        let database = Rc::get_mut(&mut self.database).expect(HELD);
        let written = review::decide_many(database, &full)
            .map_err(|e| crate::sanitize::inline(&e.message(lang), 200))?;
        refused.extend(written.refused.iter().map(|(item, e)| {
            crate::sanitize::inline(&format!("{item}: {}", e.message(lang)), 200)
        }));
        let recorded = match written.recorded.len() {
            0 => t!(lang, "worker.batch.nothing").to_string(),
            1 => t!(lang, "worker.batch.one").to_string(),
            n => t!(lang, "worker.batch.many", n = n),
        };
        match refused.first() {
            None => Ok(recorded),
            Some(first) => Err(t!(
                lang,
                "worker.batch.refused",
                recorded = recorded,
                n = refused.len(),
                first = first
            )),
        }
    }

    /// `Some` with what the undo did; `None` when the operator is being asked first.
    fn undo(&mut self, confirmed: Option<review::Wide>) -> Option<Result<Reopened, String>> {
        let lang = self.config.lang;
        if let Some(reason) = self.read_only_reason() {
            return Some(Err(t!(lang, "status.read_only", reason = reason)));
        }
        let request = review::UndoRequest {
            operator: self.config.operator.clone(),
            now_ms: crate::model::time::now_ms(),
            confirmed,
        };
        let outcome = review::undo(Rc::get_mut(&mut self.database).expect(HELD), &request);
        Some(match outcome {
            Ok(review::UndoOutcome::Ask(wide)) => {
                self.send(Msg::UndoAsks(wide));
                return None;
            }
            Ok(review::UndoOutcome::One(undone)) => {
                // A receipt put back in flight changed in place: read it again.
                self.recheck(std::slice::from_ref(&undone));
                Ok(Reopened {
                    text: describe_undo(&undone, lang),
                    items: vec![undone.reopened.item.clone()],
                })
            }
            Ok(review::UndoOutcome::Batch(step)) => {
                self.recheck(&step.undone);
                Ok(Reopened {
                    text: describe_batch_undo(&step, &self.config.operator, lang),
                    items: step
                        .undone
                        .iter()
                        .map(|u| u.reopened.item.clone())
                        .collect(),
                })
            }
            Ok(review::UndoOutcome::Nothing) => Err(t!(lang, "worker.nothing_to_undo").into()),
            Err(e) => Err(crate::sanitize::inline(&e.message(lang), 200)),
        })
    }

    /// `U`: the decision on one item reopened through the same guarded path
    /// as `receipt-review reopen`.
    fn reopen(&mut self, reopen: &Reopen) -> Result<Reopened, String> {
        let lang = self.config.lang;
        if let Some(reason) = self.read_only_reason() {
            return Err(t!(lang, "status.read_only", reason = reason));
        }
        let request = review::ReopenRequest {
            item: reopen.item.clone(),
            operator: self.config.operator.clone(),
            note: None,
            now_ms: crate::model::time::now_ms(),
            expected_last: reopen.expected_last,
        };
        let database = Rc::get_mut(&mut self.database).expect(HELD);
        match review::reopen_with(database, &request) {
            Ok(Some(undone)) => {
                self.recheck(std::slice::from_ref(&undone));
                Ok(Reopened {
                    text: describe_undo(&undone, lang),
                    items: vec![undone.reopened.item.clone()],
                })
            }
            Ok(None) => {
                let item = crate::sanitize::inline(&reopen.item, 40);
                Err(t!(lang, "status.reopen.gone", item = item))
            }
            Err(e) => Err(crate::sanitize::inline(&e.message(lang), 200)),
        }
    }

    /// Receipts an undo put back in flight changed in place: read them again.
    fn recheck(&mut self, undone: &[review::Undone]) {
        let ids: Vec<_> = undone
            .iter()
            .filter_map(|u| match &u.state {
                review::StateRevert::Reverted { receipt_id, .. } => Some(*receipt_id),
                _ => None,
            })
            .collect();
        if !ids.is_empty() {
            self.reader.recheck(&ids);
        }
    }

    fn export(&self, file: ExportFile) -> Result<PathBuf, String> {
        let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S");
        let path = self
            .config
            .export_dir
            .join(format!("review-log-{stamp}.{}", file.format.as_str()));
        review::export_to_file_with(&*self.database, file, &ExportFilter::default(), &path)
            .map(|_| path)
            .map_err(|e| crate::sanitize::inline(&e.to_string(), 200))
    }
}

/// The decision the operator made on the screen, as review records it: the
/// item found in the last reading, who, when, and the copy it keeps (the
/// default, when the screen could not tell yet).
fn full_request(
    snap: &Snapshot,
    operator: &str,
    request: &ItemDecision,
    lang: Lang,
) -> Result<review::DecisionRequest, String> {
    let target = reading::find_item(snap, &request.item)
        .ok_or_else(|| t!(lang, "worker.item_gone", item = request.item))?;
    let decision =
        review::Decision::parse_for(target.kind, &request.decision).map_err(|e| e.message(lang))?;
    let kept = request.kept.or_else(|| {
        let g = snap
            .triage
            .duplicates
            .iter()
            .find(|g| g.item() == request.item)?;
        review::keep::default_kept(decision, &snap.keep_candidates(g)?)
    });
    Ok(review::DecisionRequest {
        item: request.item.clone(),
        kind: target.kind,
        decision,
        operator: operator.to_string(),
        note: request.note.clone(),
        receipt_ids: request.receipt_ids.clone(),
        now_ms: crate::model::time::now_ms(),
        expected_last: request.expected_last,
        kept,
    })
}

/// Records one decision through the same path as `receipt-review resolve`.
fn record(
    database: &mut dyn Storage,
    snap: &Snapshot,
    operator: &str,
    request: &ItemDecision,
    lang: Lang,
) -> Result<String, String> {
    let full = full_request(snap, operator, request, lang)?;
    review::decide(database, &full)
        .map(|recorded| match recorded.entry.kept {
            Some(kept) => words::recorded_keeping(&request.item, full.decision, kept, lang),
            None => words::recorded(&request.item, full.decision, lang),
        })
        .map_err(|e| crate::sanitize::inline(&e.message(lang), 200))
}

/// What a step's undo did, in one line: how many reopened, how many left and why.
fn describe_batch_undo(step: &review::BatchUndone, operator: &str, lang: Lang) -> String {
    let n = step.undone.len();
    let mut text = if n == 1 {
        t!(lang, "worker.undo.reopened_one", n = n)
    } else {
        t!(lang, "worker.undo.reopened_many", n = n)
    };
    if step.left.is_empty() {
        return text;
    }
    let reopened = step.left.iter().filter(|e| e.is_reopening()).count();
    let mut others: Vec<&str> = step
        .left
        .iter()
        .filter(|e| !e.is_reopening())
        .map(|e| e.operator.as_str())
        .collect();
    let decided = others.len();
    others.sort_unstable();
    others.dedup();
    let comma = t!(lang, "words.list.comma");
    let mut why = Vec::new();
    if decided > 0 {
        let who: Vec<String> = others
            .iter()
            .map(|o| {
                if *o == operator {
                    t!(lang, "worker.undo.you").to_string()
                } else {
                    crate::sanitize::inline(o, 30)
                }
            })
            .collect();
        why.push(t!(
            lang,
            "worker.undo.decided_again",
            n = decided,
            who = who.join(comma)
        ));
    }
    if reopened > 0 {
        why.push(t!(lang, "worker.undo.already_reopened", n = reopened));
    }
    let left = step.left.len();
    let why = why.join(comma);
    text.push_str(&if left == 1 {
        t!(lang, "worker.undo.left_one", n = left, why = why)
    } else {
        t!(lang, "worker.undo.left_many", n = left, why = why)
    });
    text
}

/// What an undo did, in one line for the status bar.
fn describe_undo(undone: &review::Undone, lang: Lang) -> String {
    let item = crate::sanitize::inline(&undone.reopened.item, 40);
    let what = words::undone(&item, undone.reopened.decision, lang);
    match &undone.state {
        review::StateRevert::NoStateChange => what,
        review::StateRevert::Reverted { receipt_id, from } => {
            what + &words::undone_state_back(*receipt_id, from, lang)
        }
        review::StateRevert::Kept {
            receipt_id,
            now_state,
        } => what + &words::undone_state_kept(*receipt_id, now_state.as_deref(), lang),
    }
}
