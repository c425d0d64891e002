//! The SQLite engine: one database file, the embedded default. [`Database`]
//! answers [`Storage`], with a [`ReadSession`] for each read and a
//! [`WriteSession`] for each guarded decision; [`intake`] answers the
//! intake's writes.

pub(super) mod check;
pub(super) mod checkpoint;
pub(super) mod file;
pub(super) mod intake;
pub(super) mod load;
mod log_upgrade;
pub(super) mod open;
pub(super) mod review_log;
pub(super) mod schema;
mod scrub;
pub(super) mod session;
pub(super) mod split;
pub(super) mod stream;
pub(super) mod value;
pub(super) mod write;

use std::path::Path;

use self::check::schema_problems;
use self::load::{load_conflict_payload, load_payload};
use self::open::{Database, data_version};
use self::session::ReadSession;
use self::write::WriteSession;
use crate::model::ReceiptId;
use crate::storage::OpenOptions;
use crate::storage::backend::{ChangeMark, Connections, Scrubbed, Session, Storage, WriteTx};
use crate::storage::error::{LogError, StorageError};
use crate::storage::location::Location;
use crate::storage::source::Source;

/// Opens the receipts database file at `path`.
pub(super) fn open_database(
    path: &Path,
    options: OpenOptions,
) -> Result<Box<dyn Storage + Send>, StorageError> {
    Ok(Box::new(Database::open_with(path, options)?))
}

impl Storage for Database {
    fn begin_read(&self, connections: Connections) -> Result<Box<dyn Session + '_>, StorageError> {
        Ok(Box::new(ReadSession::begin(self, connections)?))
    }

    fn begin_write(&mut self) -> Result<Box<dyn WriteTx + '_>, LogError> {
        Ok(Box::new(WriteSession::begin(self)?))
    }

    fn source(&self) -> &Source {
        self.source()
    }

    fn location(&self) -> &Location {
        self.location()
    }

    fn is_read_only(&self) -> bool {
        self.is_read_only()
    }

    fn read_only_reason(&self) -> Option<&str> {
        self.read_only_reason()
    }

    fn change_mark(&self) -> Result<ChangeMark, StorageError> {
        data_version(self.conn())
            .map(ChangeMark::new)
            .map_err(|e| self.error("watching for changes", e))
    }

    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError> {
        load_payload(self, id)
    }

    fn scrub(&mut self) -> Result<Scrubbed, StorageError> {
        scrub::truncate_wal(self.conn())
            .map_err(|e| self.error("checkpointing the erased pages", e))
    }

    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError> {
        load_conflict_payload(self, id)
    }

    fn schema_problems(&self) -> Vec<String> {
        schema_problems(self)
    }
}
