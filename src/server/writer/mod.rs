//! The one writer: a thread that owns the database connection and commits
//! the submissions queued meanwhile in ONE transaction (group commit), so
//! that a durable commit (`synchronous=FULL`) is shared by every request
//! waiting for it. A request is answered only after its commit returned.
//!
//! Handlers send [`Request`]s through a channel and await the answer; the
//! async runtime never waits on SQLite. When every handle is gone (the
//! server stopped), the thread finishes the queue and ends.

mod apply;
mod load;
mod recent;

use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

pub use apply::{Job, Outcome, completed_response, pending_response};
use apply::{Seen, apply};
use recent::Recent;

use super::clock::Clock;
use super::metrics::Metrics;

use crate::intake::store::{IntakeStore, Lookup, StoreError};
use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::storage::intake::BatchPlan;

/// The most submissions committed together.
pub const MAX_BATCH: usize = 512;

/// What a key's lookup found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyLookup {
    /// Nothing committed under this key (yet): not proof of a failure.
    NotYet,
    Receipt {
        id: ReceiptId,
        state: ReceiptState,
    },
}

/// Why the writer gave no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WriteError {
    /// The database refused; nothing of this request was committed.
    #[error("{0}")]
    Store(String),
    /// The writer is gone (the server is stopping).
    #[error("the writer has stopped")]
    Gone,
}

enum Work {
    Submit(Job),
    Settle {
        id: ReceiptId,
        /// `Some`: completed with this response; `None`: failed.
        response: Option<String>,
        at_ms: Millis,
    },
}

enum Answer {
    Submitted(Outcome),
    Settled(bool),
}

enum Reply {
    Submit(oneshot::Sender<Result<Outcome, WriteError>>),
    Settle(oneshot::Sender<Result<bool, WriteError>>),
}

enum Request {
    Write(Work, Reply),
    Lookup {
        scope: String,
        key: String,
        reply: oneshot::Sender<Result<KeyLookup, WriteError>>,
    },
}

/// A handle for handlers: cheap to clone.
#[derive(Clone, Debug)]
pub struct WriterHandle {
    tx: mpsc::Sender<Request>,
}

impl WriterHandle {
    pub async fn submit(&self, job: Job) -> Result<Outcome, WriteError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Write(Work::Submit(job), Reply::Submit(reply)))?;
        answer.await.map_err(|_| WriteError::Gone)?
    }

    /// Completes (`Some(response)`) or fails (`None`) an in-flight receipt;
    /// false when it was no longer in flight.
    pub async fn settle(
        &self,
        id: ReceiptId,
        response: Option<String>,
        at_ms: Millis,
    ) -> Result<bool, WriteError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Write(
            Work::Settle {
                id,
                response,
                at_ms,
            },
            Reply::Settle(reply),
        ))?;
        answer.await.map_err(|_| WriteError::Gone)?
    }

    pub async fn lookup(&self, scope: &str, key: &str) -> Result<KeyLookup, WriteError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Lookup {
            scope: scope.to_string(),
            key: key.to_string(),
            reply,
        })?;
        answer.await.map_err(|_| WriteError::Gone)?
    }

    fn send(&self, request: Request) -> Result<(), WriteError> {
        self.tx.send(request).map_err(|_| WriteError::Gone)
    }
}

/// The running writer.
pub struct Writer {
    pub handle: WriterHandle,
    thread: JoinHandle<()>,
}

impl Writer {
    /// Starts the thread on `store`, remembering the receipts stored within
    /// the longest window of `windows` (scope, window, honeypot).
    pub fn start(
        store: IntakeStore,
        windows: &[load::FormWindow],
        clock: Clock,
        metrics: Arc<Metrics>,
    ) -> anyhow::Result<Self> {
        let mut store = store;
        let now = clock.now_ms();
        let recent = load::recent(store.database(), windows, now)?;
        let horizon = windows.iter().map(|w| w.window_ms).max().unwrap_or(0);
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("receipt-writer".into())
            .spawn(move || {
                let store = run(store, recent, horizon, &clock, &metrics, rx);
                if let Err(e) = store.close() {
                    super::log::line(&e.to_string());
                }
            })?;
        Ok(Self {
            handle: WriterHandle { tx },
            thread,
        })
    }

    /// Drops this handle and waits until the thread has answered everything
    /// queued (every other handle must be gone too).
    pub fn finish(self) {
        drop(self.handle);
        let _ = self.thread.join();
    }
}

pub use load::FormWindow;

/// Answers requests until every handle is gone; gives the store back to
/// be closed.
fn run(
    mut store: IntakeStore,
    mut recent: Recent,
    horizon: Millis,
    clock: &Clock,
    metrics: &Metrics,
    rx: mpsc::Receiver<Request>,
) -> IntakeStore {
    let mut reported: Option<Instant> = None;
    let mut pruned: Option<Instant> = None;
    while let Ok(first) = rx.recv() {
        let mut writes = Vec::new();
        let mut next = Some(first);
        while let Some(request) = next.take() {
            match request {
                Request::Lookup { scope, key, reply } => {
                    let _ = reply.send(lookup(&mut store, &scope, &key));
                }
                Request::Write(work, reply) => writes.push((work, reply)),
            }
            if writes.len() < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        if !writes.is_empty() {
            recent.forget_before(clock.now_ms());
            if pruned.is_none_or(|at| at.elapsed() >= REPORT_EVERY) {
                // Visitors noted for other processes, once their windows ended.
                let _ = store
                    .database()
                    .forget_visitors_before(clock.now_ms() - horizon);
                pruned = Some(Instant::now());
            }
            let (size, started) = (writes.len(), Instant::now());
            write_batch(&mut store, &mut recent, writes);
            metrics.batch(size, started.elapsed());
            if reported.is_none_or(|at| at.elapsed() >= REPORT_EVERY) {
                let forgotten = recent.take_forgotten();
                if !forgotten.is_empty() {
                    report_forgotten(&forgotten, recent.capacity());
                    reported = Some(Instant::now());
                }
            }
        }
    }
    store
}

/// How often the log says that copies went unchecked: once a minute at most.
const REPORT_EVERY: Duration = Duration::from_secs(60);

/// Says which scopes forgot receipts before their window ended: their
/// copies are stored rather than absorbed from now on.
fn report_forgotten(forgotten: &[(String, u64)], capacity: usize) {
    let lang = crate::i18n::current();
    for (scope, count) in forgotten {
        super::log::line(&crate::t!(
            lang,
            "serve.log.copies_unchecked",
            scope = scope,
            count = count,
            capacity = capacity
        ));
    }
}

/// The batch in one transaction; when it fails, each request alone, so that
/// one bad request never takes the others down.
fn write_batch(store: &mut IntakeStore, recent: &mut Recent, writes: Vec<(Work, Reply)>) {
    let (work, replies): (Vec<Work>, Vec<Reply>) = writes.into_iter().unzip();
    match commit(store, recent, &work) {
        Ok(answers) => {
            for (reply, answer) in replies.into_iter().zip(answers) {
                send(reply, Ok(answer));
            }
        }
        Err(e) if work.len() == 1 => {
            let reply = replies.into_iter().next().expect("one reply");
            send(reply, Err(WriteError::Store(e.to_string())));
        }
        Err(_) => {
            for (w, reply) in work.into_iter().zip(replies) {
                let answer = commit(store, recent, std::slice::from_ref(&w))
                    .map(|mut a| a.remove(0))
                    .map_err(|e| WriteError::Store(e.to_string()));
                send(reply, answer);
            }
        }
    }
}

fn send(reply: Reply, answer: Result<Answer, WriteError>) {
    // A client that went away meanwhile gets nothing; what was committed stays.
    match (reply, answer) {
        (Reply::Submit(tx), Ok(Answer::Submitted(o))) => drop(tx.send(Ok(o))),
        (Reply::Settle(tx), Ok(Answer::Settled(b))) => drop(tx.send(Ok(b))),
        (Reply::Submit(tx), Err(e)) => drop(tx.send(Err(e))),
        (Reply::Settle(tx), Err(e)) => drop(tx.send(Err(e))),
        (Reply::Submit(tx), Ok(_)) => drop(tx.send(Err(WriteError::Gone))),
        (Reply::Settle(tx), Ok(_)) => drop(tx.send(Err(WriteError::Gone))),
    }
}

/// The receipts a batch stores, noted in [`Recent`] only once committed;
/// where other processes write the same database, what they noted of the
/// batch's visitors too.
struct BatchSeen<'a> {
    recent: &'a Recent,
    noted: Vec<(String, u128, ReceiptId, Millis)>,
    /// The latest receipt of each of the batch's visitors in the database.
    shared: Vec<(String, u128, ReceiptId, Millis)>,
}

impl Seen for BatchSeen<'_> {
    fn latest(&self, scope: &str, visitor: u128) -> Option<(ReceiptId, Millis)> {
        let find = |list: &[(String, u128, ReceiptId, Millis)]| {
            list.iter()
                .rev()
                .find(|(s, v, ..)| *v == visitor && s == scope)
                .map(|&(_, _, id, at)| (id, at))
        };
        if let Some(found) = find(&self.noted) {
            return found.into();
        }
        // The later of what this process remembers and what the database says.
        [find(&self.shared), self.recent.get(scope, visitor)]
            .into_iter()
            .flatten()
            .max_by_key(|&(id, at)| (at, id))
    }

    fn note(&mut self, scope: &str, visitor: u128, id: ReceiptId, at_ms: Millis) {
        self.noted.push((scope.to_string(), visitor, id, at_ms));
    }
}

fn commit(
    store: &mut IntakeStore,
    recent: &mut Recent,
    work: &[Work],
) -> Result<Vec<Answer>, StoreError> {
    let mut seen = BatchSeen {
        recent: &*recent,
        noted: Vec::new(),
        shared: Vec::new(),
    };
    let shares_writes = store.database().shares_writes();
    let answers = store.bulk(|w| {
        if shares_writes {
            seen.shared = visitors_in_database(w, work)?;
        }
        let answers = work
            .iter()
            .map(|item| match item {
                Work::Submit(job) => apply(w, &mut seen, job).map(Answer::Submitted),
                Work::Settle {
                    id,
                    response: Some(text),
                    at_ms,
                } => w.complete(*id, text, *at_ms).map(Answer::Settled),
                Work::Settle {
                    id,
                    response: None,
                    at_ms,
                } => w.fail(*id, *at_ms).map(Answer::Settled),
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        if shares_writes {
            for (scope, visitor, id, at) in &seen.noted {
                w.tx().note_visitor(scope, *visitor, *id, *at)?;
            }
        }
        Ok::<_, StoreError>(answers)
    })?;
    let BatchSeen { noted, .. } = seen;
    for (scope, visitor, id, at) in noted {
        recent.note(&scope, visitor, id, at);
    }
    Ok(answers)
}

/// Where several processes write one database: the batch's keys and
/// visitors read in one go (its visitors locked, in one order, so that two
/// batches never wait on each other) and the latest receipt another process
/// noted for each visitor, so that an exact copy sent to two processes is
/// stored once.
fn visitors_in_database(
    w: &mut crate::intake::store::BulkWrite<'_>,
    work: &[Work],
) -> Result<Vec<(String, u128, ReceiptId, Millis)>, StoreError> {
    let jobs = || {
        work.iter().filter_map(|item| match item {
            Work::Submit(job) => Some(job),
            Work::Settle { .. } => None,
        })
    };
    let mut plan = BatchPlan {
        keys: jobs()
            .filter_map(|job| Some((job.submission.scope(), job.submission.key()?)))
            .collect(),
        visitors: jobs()
            .filter(|job| job.window_ms > 0)
            .filter_map(|job| {
                let since = job.at_ms - job.window_ms;
                Some((job.submission.scope(), job.visitor?, since))
            })
            .collect(),
        receipts: jobs().count(),
    };
    plan.visitors.sort_unstable();
    plan.visitors.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    if work.len() > 1 {
        w.tx().prefetch(&plan)?;
    } else {
        // One submission alone (a batch done again after a failure): no
        // write held back, its visitor locked as it is read.
        for &(_, visitor, _) in &plan.visitors {
            w.tx().serialize_on(visitor as u64 as i64)?;
        }
    }
    let mut found = Vec::new();
    for (scope, visitor, since) in plan.visitors {
        if let Some((id, at)) = w.tx().latest_visitor(scope, visitor, since)? {
            found.push((scope.to_string(), visitor, id, at));
        }
    }
    Ok(found)
}

/// A key's receipt: the one holding it, else the one an exact copy sent
/// with it was absorbed into.
fn lookup(store: &mut IntakeStore, scope: &str, key: &str) -> Result<KeyLookup, WriteError> {
    let err = |e: StoreError| WriteError::Store(e.to_string());
    let found = match store.lookup(scope, key).map_err(err)? {
        Lookup::NotFoundYet => None,
        Lookup::InFlight { id } => Some((id, ReceiptState::InFlight)),
        Lookup::Completed { id, .. } => Some((id, ReceiptState::Completed)),
        Lookup::Failed { id } => Some((id, ReceiptState::Failed)),
    };
    if let Some((id, state)) = found {
        return Ok(KeyLookup::Receipt { id, state });
    }
    let absorbed = store
        .database()
        .absorbed_key_holder(scope, key)
        .map_err(|e| err(e.into()))?;
    Ok(match absorbed {
        Some(holder) => KeyLookup::Receipt {
            id: holder.id,
            state: ReceiptState::parse(&holder.state).unwrap_or(ReceiptState::Completed),
        },
        None => KeyLookup::NotYet,
    })
}
