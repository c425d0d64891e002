//! A form's `retention`: at start and then once a day, `serve` erases the
//! receipts of each such form's scope that arrived longer ago than its
//! retention. It is the erasure `receipt-review erase --older-than` makes
//! (tombstones, one review-log row, then the scrub: docs/erasure.md), as the
//! operator `retention`, so that the audit says who erased them and why.
//!
//! A run works on a blocking thread with a connection of its own beside the
//! writer's. Each of its transactions and each of the writer's wait for the
//! other (SQLite's busy timeout, PostgreSQL's row locks), so a large erasure,
//! such as a first run on years of receipts, is cut into parts of [`PART`]
//! receipts, each its own transaction and log row, and the old bytes are
//! scrubbed once at the end of the run rather than after each part (on
//! PostgreSQL that is `VACUUM FULL`, which holds the tables while it runs). A
//! failure is logged and tried again at the next run; it never stops the
//! server. Stopping the server ends the loop at once, and a run in progress
//! before its next part (a reading of the analysis under way is finished
//! first).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use super::clock::Clock;
use super::config::Config;
use super::metrics::Metrics;
use crate::erase::{Plan, Who};
use crate::model::{Millis, Settings, time};
use crate::sanitize::inline;
use crate::storage::{self, Access, Location, Scrubbed, Storage};
use crate::t;

/// The operator an erasure by retention is recorded as.
pub const OPERATOR: &str = "retention";
/// The most receipts erased in one transaction, which the intake waits for:
/// a few hundred milliseconds at most, well within its busy timeout.
pub const PART: usize = 500;

/// The job: the forms with a retention, and what a run needs.
#[derive(Debug)]
pub struct Retention {
    db: Location,
    forms: Vec<Kept>,
    clock: Clock,
    every: Duration,
    metrics: Arc<Metrics>,
}

/// One form's retention, as a run applies it.
#[derive(Debug)]
struct Kept {
    form: String,
    scope: String,
    /// As the config spells it (`2y`).
    period: String,
    ms: Millis,
    /// Receipts it erased whose old bytes a scrub has not taken out yet.
    unscrubbed: AtomicBool,
}

impl Kept {
    /// The review log's note: stored data, so one stable text in no
    /// operator's language.
    fn note(&self) -> String {
        format!("retention {} (forms.toml, form {})", self.period, self.form)
    }
}

/// What a run did for one form.
#[derive(Default)]
struct Outcome {
    erased: usize,
    took: Duration,
    error: Option<String>,
    /// The server stopped before every part was erased.
    stopped: bool,
}

impl Retention {
    /// The job for `config`'s forms on `db`, or `None` when no form has a
    /// retention.
    pub fn of(db: &Location, config: &Config, metrics: Arc<Metrics>) -> Option<Self> {
        let mut forms: Vec<Kept> = Vec::new();
        for form in config.forms.values() {
            let Some(retention) = &form.retention else {
                continue;
            };
            // Forms that share a scope have one retention (the config
            // refuses two): the first of them erases for all.
            if forms.iter().any(|k| k.scope == form.scope) {
                continue;
            }
            metrics.retention_erased(&form.name, 0);
            forms.push(Kept {
                form: form.name.clone(),
                scope: form.scope.clone(),
                period: retention.period.clone(),
                ms: retention.ms,
                unscrubbed: AtomicBool::new(false),
            });
        }
        (!forms.is_empty()).then(|| Self {
            db: db.clone(),
            forms,
            clock: config.clock.clone(),
            every: config.retention_every,
            metrics,
        })
    }

    /// Applies the retention now and then every `retention_every` of the
    /// config, on the current runtime, until `stop` holds true.
    pub fn spawn(self, stop: watch::Receiver<bool>) -> JoinHandle<()> {
        tokio::spawn(self.run_daily(stop))
    }

    async fn run_daily(self, mut stop: watch::Receiver<bool>) {
        let every = self.every.max(Duration::from_millis(1));
        let job = Arc::new(self);
        // The first tick is at once: the run at start.
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                _ = stop.wait_for(|stopped| *stopped) => return,
                _ = ticks.tick() => {}
            }
            let (job, stop) = (Arc::clone(&job), stop.clone());
            // The database's clients block: off the async workers.
            let _ = tokio::task::spawn_blocking(move || job.run(&|| *stop.borrow())).await;
        }
    }

    /// One run: each form's old receipts erased, the old bytes scrubbed,
    /// one event per form.
    fn run(&self, stopping: &dyn Fn() -> bool) {
        let now = self.clock.now_ms();
        let started = Instant::now();
        let planned = self.open().and_then(|db| {
            let plans = self.plan(&*db, now)?;
            Ok((db, plans))
        });
        let (mut db, plans) = match planned {
            Ok(planned) => planned,
            Err(error) => {
                for form in &self.forms {
                    let outcome = Outcome {
                        took: started.elapsed(),
                        error: Some(error.clone()),
                        ..Outcome::default()
                    };
                    log(form, now, &outcome, None);
                }
                return;
            }
        };
        let planned = started.elapsed();
        let outcomes: Vec<Outcome> = (self.forms.iter().zip(&plans))
            .map(|(form, plan)| {
                let mut outcome = self.erase(&mut *db, form, plan, now, stopping);
                // Its time with the planning the forms share.
                outcome.took += planned;
                outcome
            })
            .collect();
        let concerned = |form: &Kept, outcome: &Outcome| {
            outcome.erased > 0 || form.unscrubbed.load(Ordering::Relaxed)
        };
        let scrubbed = (self.forms.iter().zip(&outcomes))
            .any(|(form, outcome)| concerned(form, outcome))
            .then(|| crate::review::erase::scrub(&mut *db));
        for (form, outcome) in self.forms.iter().zip(&outcomes) {
            let scrubbed = scrubbed.as_ref().filter(|_| concerned(form, outcome));
            if let Some(scrubbed) = scrubbed {
                let done = matches!(scrubbed, Scrubbed::Done);
                form.unscrubbed.store(!done, Ordering::Relaxed);
            }
            log(form, now, outcome, scrubbed);
        }
    }

    /// A connection of the run's own: the writer keeps its own for the intake.
    fn open(&self) -> Result<Box<dyn Storage + Send>, String> {
        let db = storage::open_database(&self.db, Access::PreferWrite)
            .map_err(|e| inline(&e.to_string(), 300))?;
        match db.read_only_reason() {
            Some(reason) => Err(inline(reason, 300)),
            None => Ok(db),
        }
    }

    /// Each form's receipts that arrived before `now` less its retention,
    /// from one reading of the analysis for all the forms.
    fn plan(&self, db: &dyn Storage, now: Millis) -> Result<Vec<Plan>, String> {
        let whos: Vec<Who> = (self.forms.iter())
            .map(|form| Who::OlderThan {
                before_ms: now - form.ms,
                scope: Some(form.scope.clone()),
            })
            .collect();
        Plan::of_each(db, &whos, &Settings::new(now)).map_err(|e| inline(&e.to_string(), 300))
    }

    /// Erases `plan` in parts, until the server stops.
    fn erase(
        &self,
        db: &mut dyn Storage,
        form: &Kept,
        plan: &Plan,
        now: Millis,
        stopping: &dyn Fn() -> bool,
    ) -> Outcome {
        let started = Instant::now();
        let mut outcome = Outcome::default();
        for part in plan.parts(PART) {
            if stopping() {
                outcome.stopped = true;
                break;
            }
            let erased = match part.record(db, OPERATOR, Some(form.note()), now) {
                Ok(entry) => entry.receipt_ids.len(),
                // Another process erased them first.
                Err(crate::review::erase::EraseError::Nothing) => 0,
                Err(e) => {
                    outcome.error = Some(inline(&e.to_string(), 300));
                    break;
                }
            };
            outcome.erased += erased;
            self.metrics.retention_erased(&form.form, erased as u64);
        }
        outcome.took = started.elapsed();
        outcome
    }
}

/// One event with a form's run: what it names comes from the config and
/// the database's own words, never a receipt's field.
macro_rules! event {
    ($level:ident, $form:expr, $before:expr, $outcome:expr, $scrubbed:expr, $message:expr) => {
        tracing::$level!(
            target: "receipt_review::retention",
            form = $form.form.as_str(),
            scope = $form.scope.as_str(),
            retention = $form.period.as_str(),
            before = $before.as_str(),
            erased = $outcome.erased as u64,
            scrubbed = $scrubbed,
            took_ms = $outcome.took.as_secs_f64() * 1000.0,
            stopped = $outcome.stopped,
            error = $outcome.error.as_deref(),
            "{}",
            inline(&$message, 400)
        )
    };
}

fn log(form: &Kept, now: Millis, outcome: &Outcome, scrubbed: Option<&Scrubbed>) {
    let lang = crate::i18n::current();
    let before = time::format_rfc3339(now - form.ms);
    let done = scrubbed.map(|s| matches!(s, Scrubbed::Done));
    let (name, period, count) = (&form.form, &form.period, outcome.erased);
    if let Some(error) = &outcome.error {
        let message = t!(
            lang,
            "serve.log.retention_failed",
            form = name,
            period = period,
            count = count,
            before = before,
            error = error
        );
        event!(warn, form, before, outcome, done, message);
    } else if outcome.stopped {
        let message = t!(
            lang,
            "serve.log.retention_stopped",
            form = name,
            period = period,
            count = count,
            before = before
        );
        event!(info, form, before, outcome, done, message);
    } else if let Some(Scrubbed::NotNow(why)) = scrubbed {
        let message = t!(
            lang,
            "serve.log.retention_not_scrubbed",
            form = name,
            period = period,
            count = count,
            before = before,
            why = why
        );
        event!(warn, form, before, outcome, done, message);
    } else {
        let message = t!(
            lang,
            "serve.log.retention_done",
            form = name,
            period = period,
            count = count,
            before = before
        );
        event!(info, form, before, outcome, done, message);
    }
}
