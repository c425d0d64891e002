//! The demo database: a realistic receipts database written through the intake protocol.
//!
//! Japanese and English contact-form inquiries over several scopes, spread over the days before
//! `now`, with every pathway of seed 004 planted in realistic proportions (second clicks,
//! retries with a new or the same key, reloads, two handlers, bots, genuine follow-ups, edited
//! resends), key conflicts, stuck and fresh in-flight receipts and a few damaged rows. Two weeks
//! of intake, or more days for a big demo (about 2 500 receipts a day).
//! [`generate`] returns a [`DemoSummary`] of what it planted, so the analysis can be checked
//! against it. Same `(seed, now_ms)`, same rows.

mod plan;
mod record;
pub mod scenario;
mod summary;
pub mod texts;

use std::path::Path;
use std::sync::mpsc;

use anyhow::{Context, bail};
use rusqlite::Connection;

use crate::intake::store::{BulkWrite, IntakeStore};
use crate::model::Millis;

const MINUTE: Millis = 60_000;
const HOUR: Millis = 60 * MINUTE;
const DAY: Millis = 24 * HOUR;
/// The main stream covers at least two weeks, ending `END_MARGIN` before `now`; larger demos
/// cover more days (about `PER_DAY` receipts a day, like a busy shared intake), so that copies
/// by chance stay as rare as they are in life.
const MIN_DAYS: i64 = 14;
const MAX_DAYS: i64 = 730;
const PER_DAY: usize = 2_500;
const END_MARGIN: Millis = 30 * MINUTE;

use plan::*;
use record::*;
pub use summary::{
    DemoOptions, DemoSummary, PlantedConflict, PlantedDamage, PlantedGroup, PlantedMember,
};

/// Writes a demo database to `path`, which must not exist or be empty.
pub fn generate(path: &Path, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    if let Ok(meta) = std::fs::metadata(path)
        && meta.len() > 0
    {
        bail!(
            "{}",
            crate::t!(
                crate::i18n::current(),
                "commands.demo_exists",
                path = path.display()
            )
        );
    }
    let result = write(path, opts);
    if result.is_err() {
        // The file was new (or empty): leave nothing half-written behind.
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
    result
}

fn write(path: &Path, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let conn = Connection::open(path).with_context(|| {
        crate::t!(
            crate::i18n::current(),
            "commands.cannot_create",
            path = path.display()
        )
    })?;
    // Loading: a memory journal and no syncs; the file switches to WAL when done.
    conn.execute_batch(
        "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; \
         PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;",
    )?;
    let mut store = IntakeStore::new(conn)?;
    store.create_schema()?;
    let summary = store.bulk(|batch| load(batch, opts))?;
    let conn = store.into_connection();
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        bail!(
            "{}",
            crate::t!(
                crate::i18n::current(),
                "commands.demo_no_wal",
                path = path.display(),
                mode = mode
            )
        );
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA optimize;")?;
    conn.close().map_err(|(_, e)| e)?;
    Ok(summary)
}

/// Plans on a second thread (texts, payloads, canonical form, digests) while this one writes:
/// the planner owns the random generator, so the rows do not depend on thread timing.
fn load(batch: &BulkWrite<'_>, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let (tx, rx) = mpsc::sync_channel::<PlanStep>(4_096);
    let mut recorder = Recorder::default();
    std::thread::scope(|scope| {
        let planner = scope.spawn(move || Generator::new(opts, tx).run());
        let mut outcome = Ok(());
        for msg in rx.iter() {
            if let Err(e) = recorder.take(batch, msg) {
                outcome = Err(e);
                break;
            }
        }
        // Dropping the receiver stops a planner that is still sending.
        drop(rx);
        planner
            .join()
            .map_err(|_| anyhow::anyhow!("the demo planner panicked"))?;
        outcome
    })?;
    Ok(recorder.finish())
}
