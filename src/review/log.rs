//! Reading the review log, each answer from one state of the database. Every
//! function here only reads, and treats a database without a review log as
//! one where nothing was decided yet.

use crate::model::time;
use crate::model::{LogEntry, Millis};
use crate::storage::{Connections, LogError, Session, Storage};

impl LogEntry {
    /// `decided_at` in unix milliseconds, when it parses.
    pub fn decided_ms(&self) -> Option<Millis> {
        time::parse_text(&self.decided_at).ok()
    }
}

/// Runs `ask` on a read of one state of `storage`, then ends the read.
pub(crate) fn in_one_read<T, E: From<LogError>>(
    storage: &dyn Storage,
    ask: impl FnOnce(&mut dyn Session) -> Result<T, E>,
) -> Result<T, E> {
    let mut session = storage
        .begin_read(Connections::One)
        .map_err(LogError::from)?;
    let answer = ask(&mut *session);
    let ended = session.end().map_err(LogError::from);
    let answer = answer?;
    ended?;
    Ok(answer)
}

/// True when the database has a usable review log (an error when it has one
/// this tool did not make). Never creates anything.
pub fn log_exists(storage: &dyn Storage) -> Result<bool, LogError> {
    in_one_read(storage, |s| s.log_exists())
}

/// The whole log in append order (empty when there is none).
pub fn read_log(storage: &dyn Storage) -> Result<Vec<LogEntry>, LogError> {
    in_one_read(storage, |s| s.read_log())
}

/// Every entry for one item, in append order.
pub fn history(storage: &dyn Storage, item: &str) -> Result<Vec<LogEntry>, LogError> {
    in_one_read(storage, |s| s.history(item))
}

/// The latest entry for one item, if any.
pub fn latest_entry(storage: &dyn Storage, item: &str) -> Result<Option<LogEntry>, LogError> {
    in_one_read(storage, |s| s.latest_entry(item))
}

/// The id of the newest entry (`None` when there is none): a cheap way to
/// notice that someone else has appended since the last look.
pub fn latest_log_id(storage: &dyn Storage) -> Result<Option<i64>, LogError> {
    in_one_read(storage, |s| s.latest_log_id())
}
