//! `receipt-review simulate URL`: the traffic model ([`crate::traffic`]) sent through HTTP to
//! a running `serve`, with every pathway that makes copies and the genuine second messages, so
//! that the screen has something real to review.
//!
//! - [`form`]: what the form takes, read from its page (`GET /f/{form}`);
//! - [`payload`]: the bodies that carry what a visitor typed into the form's fields;
//! - [`scenario`]: the run's mix of visits, and the requests a visit's attempts become;
//! - [`schedule`]: visitors arriving at a rate, their requests in time order;
//! - [`client`]: the HTTP (the only I/O besides the clock);
//! - [`tally`]: what the server answered, counted.
//!
//! Everything but [`client`] and [`run`]'s loop is pure and deterministic
//! from the seed. The loop hands due requests to a few sender threads and
//! counts their answers; it stops when the plan is done, when told to (a
//! signal), or when the server has stopped answering.

pub mod client;
pub mod form;
pub mod payload;
pub mod scenario;
pub mod schedule;
pub mod tally;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use client::{BadUrl, Target, Unreachable};
pub use scenario::Timing;
pub use tally::AnswerCounts;

use client::{Answer, Client, Sent};
use scenario::Step;
use schedule::Plan;

use crate::model::Millis;

/// A request gets this long for its answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Nothing but failed requests for this long: the server is gone.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(5);

/// The honeypot bots fill when the form page shows none.
pub const DEFAULT_HONEYPOT: &str = "_gotcha";

/// Threads sending requests at once.
pub(crate) const SENDERS: usize = 16;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    pub form: String,
    /// Visitors a second (each makes one to five requests).
    pub rate: f64,
    /// How long visitors keep arriving; `None`: until stopped.
    pub seconds: Option<u64>,
    pub seed: u64,
    /// The honeypot field bots fill (`None`: the page's, else `_gotcha`).
    pub honeypot: Option<String>,
    pub timing: Timing,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every planned request was sent.
    Finished,
    /// Stopped by a signal.
    Stopped,
    /// The server stopped answering.
    ServerGone,
}

/// A run's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub tally: AnswerCounts,
    pub ended: Ended,
    pub elapsed: Duration,
    pub visitors: u64,
    /// The honeypot the bots filled.
    pub honeypot: String,
}

/// What the run tells as it goes.
pub enum Event<'a> {
    /// The form page was read: the run begins.
    Started { honeypot: &'a str },
    /// Once a second.
    Progress(&'a Progress<'a>),
    /// The first 429.
    RateLimited,
}

/// The state of a run, once a second.
pub struct Progress<'a> {
    pub elapsed: Duration,
    pub visitors: u64,
    /// Visitors still arriving (else only their follow-ups remain).
    pub arriving: bool,
    /// Requests planned and not yet sent.
    pub waiting: usize,
    /// When the last of them is due, from now.
    pub last_due_in: Option<Duration>,
    pub tally: &'a AnswerCounts,
}

/// Runs the simulation until its plan is done, `stop` is set, or the
/// server stops answering. Fails only when the form cannot be read at the
/// start.
pub fn run(
    options: &Options,
    stop: &AtomicBool,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<Outcome, Unreachable> {
    let start_ms = crate::model::time::now_ms();
    let client = Arc::new(Client::new(
        options.target.clone(),
        &options.form,
        start_ms,
        REQUEST_TIMEOUT,
    ));
    let page = client.open_form()?;
    let mut shape = page.shape;
    let honeypot = options
        .honeypot
        .clone()
        .or_else(|| shape.honeypot.clone())
        .unwrap_or_else(|| DEFAULT_HONEYPOT.to_string());
    shape.bot_field = Some(honeypot.clone());
    events(Event::Started {
        honeypot: &honeypot,
    });
    let plan = Plan::new(
        options.seed,
        options.rate,
        options.seconds.map(|s| (s as Millis).saturating_mul(1000)),
        shape,
        options.timing,
    );
    let (tally, ended, elapsed, visitors) = Runner::start(client).drive(plan, stop, events);
    Ok(Outcome {
        tally,
        ended,
        elapsed,
        visitors,
        honeypot,
    })
}

/// The sender threads and what they report.
struct Runner {
    work: Option<mpsc::Sender<Step>>,
    done: mpsc::Receiver<(Step, Option<Sent>)>,
    /// Set when stopping: steps not yet started are not sent.
    halt: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Runner {
    fn start(client: Arc<Client>) -> Self {
        let (work, inbox) = mpsc::channel::<Step>();
        let inbox = Arc::new(Mutex::new(inbox));
        let (report, done) = mpsc::channel();
        let halt = Arc::new(AtomicBool::new(false));
        let threads = (0..SENDERS)
            .filter_map(|i| {
                let (inbox, report, halt, client) =
                    (inbox.clone(), report.clone(), halt.clone(), client.clone());
                std::thread::Builder::new()
                    .name(format!("simulate-{i}"))
                    .spawn(move || {
                        loop {
                            let next = inbox.lock().unwrap_or_else(|e| e.into_inner()).recv();
                            let Ok(step) = next else { return };
                            let sent = (!halt.load(Ordering::Relaxed)).then(|| client.send(&step));
                            if report.send((step, sent)).is_err() {
                                return;
                            }
                        }
                    })
                    .ok()
            })
            .collect();
        Self {
            work: Some(work),
            done,
            halt,
            threads,
        }
    }

    fn drive(
        mut self,
        mut plan: Plan,
        stop: &AtomicBool,
        events: &mut dyn FnMut(Event<'_>),
    ) -> (AnswerCounts, Ended, Duration, u64) {
        let began = Instant::now();
        let mut tally = AnswerCounts::default();
        let mut outstanding = 0usize;
        let mut next_tick = Duration::from_secs(1);
        let mut failing_since: Option<Instant> = None;
        let mut told_rate = false;
        let ended = loop {
            if stop.load(Ordering::Relaxed) {
                break Ended::Stopped;
            }
            if failing_since.is_some_and(|t| t.elapsed() >= GIVE_UP_AFTER) {
                break Ended::ServerGone;
            }
            let now_ms = began.elapsed().as_millis() as Millis;
            while plan.next_at().is_some_and(|at| at <= now_ms) {
                let Some(step) = plan.pop() else { break };
                if let Some(work) = &self.work
                    && work.send(step).is_ok()
                {
                    outstanding += 1;
                } else {
                    tally.skip();
                }
            }
            let next_due = plan.next_at();
            if next_due.is_none() && outstanding == 0 {
                break Ended::Finished;
            }
            let until_due = next_due.map_or(Duration::from_millis(100), |at| {
                Duration::from_millis(at.saturating_sub(now_ms).max(0) as u64)
            });
            let until_tick = next_tick.saturating_sub(began.elapsed());
            let wait = until_due
                .min(until_tick)
                .clamp(Duration::from_millis(1), Duration::from_millis(100));
            match self.done.recv_timeout(wait) {
                Ok(first) => {
                    let mut take = |(step, sent): (Step, Option<Sent>)| {
                        outstanding -= 1;
                        let Some(sent) = sent else {
                            tally.skip();
                            return;
                        };
                        match &sent.answer {
                            Answer::Http { status, .. } => {
                                failing_since = None;
                                if *status == 429 && !told_rate {
                                    told_rate = true;
                                    events(Event::RateLimited);
                                }
                            }
                            Answer::None(_) => {
                                failing_since.get_or_insert_with(Instant::now);
                            }
                        }
                        tally.add(&step, &sent);
                    };
                    take(first);
                    while let Ok(more) = self.done.try_recv() {
                        take(more);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break Ended::ServerGone,
            }
            if began.elapsed() >= next_tick {
                next_tick += Duration::from_secs(1);
                let now_ms = began.elapsed().as_millis() as Millis;
                let progress = Progress {
                    elapsed: began.elapsed(),
                    visitors: plan.visitors(),
                    arriving: plan.arriving(),
                    waiting: plan.waiting(),
                    last_due_in: plan
                        .last_at()
                        .map(|at| Duration::from_millis(at.saturating_sub(now_ms).max(0) as u64)),
                    tally: &tally,
                };
                events(Event::Progress(&progress));
            }
        };
        // Stop: requests being sent finish (within their timeout); the
        // rest is counted as not sent.
        self.halt.store(true, Ordering::Relaxed);
        self.work = None;
        while outstanding > 0 {
            match self.done.recv() {
                Ok((step, Some(sent))) => {
                    outstanding -= 1;
                    tally.add(&step, &sent);
                }
                Ok((_, None)) => {
                    outstanding -= 1;
                    tally.skip();
                }
                Err(_) => break,
            }
        }
        plan.stop_arrivals();
        while plan.pop().is_some() {
            tally.skip();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        (tally, ended, began.elapsed(), plan.visitors())
    }
}
