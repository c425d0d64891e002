//! The demo database: the traffic model ([`crate::traffic`]) written through the intake
//! protocol into a new database.
//!
//! Japanese and English contact-form inquiries over several scopes, spread over the days before
//! `now`, with every pathway that makes copies planted in realistic proportions (second clicks,
//! retries with a new or the same key, reloads, two handlers, bots, genuine follow-ups, edited
//! resends), key conflicts, failed actions retried, and beside the model stuck and fresh
//! in-flight receipts and a few damaged rows. Two weeks
//! of intake, or more days for a big demo (about 2 500 receipts a day).
//! [`generate`] returns a [`DemoSummary`] of what it planted, so the analysis can be checked
//! against it. Same `(seed, now_ms)`, same rows.

mod plan;
mod record;
pub mod scenario;
mod summary;

use std::sync::mpsc;

use crate::intake::store::{BulkWrite, IntakeStore, StoreError};
use crate::model::Millis;
use crate::storage::Location;
use crate::storage::intake::{IntakeMode, OpenError};

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

/// Writes a demo database at `location`, which must be new (a file that
/// does not exist or is empty, a database with no receipts).
pub fn generate(location: &Location, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let result = write(location, opts);
    if let (Err(e), Some(path)) = (&result, location.file())
        && !is_refused(e)
    {
        // The file was new (or empty): leave nothing half-written behind.
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
    result
}

/// True when the database was refused as it was found (and so left alone).
fn is_refused(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<StoreError>(),
        Some(StoreError::Open(OpenError::Refused(_)))
    )
}

fn write(location: &Location, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let mut store = IntakeStore::open_at(location, IntakeMode::Load)?;
    let summary = store.bulk(|batch| load(batch, opts))?;
    store.close()?;
    Ok(summary)
}

/// Plans on a second thread (texts, payloads, canonical form, digests) while this one writes:
/// the planner owns the random generator, so the rows do not depend on thread timing.
fn load(batch: &mut BulkWrite<'_>, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
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
