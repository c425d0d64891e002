//! The SQLite engine behind [`Storage`]: [`Database`], with a
//! [`ReadSession`] for each read and a [`WriteSession`] for each guarded
//! decision.

use std::path::Path;

use super::backend::{ChangeMark, Connections, Session, Storage, WriteTx};
use super::check::schema_problems;
use super::error::{LogError, StorageError};
use super::load::{load_conflict_payload, load_payload};
use super::open::{Access, Database, data_version};
use super::session::ReadSession;
use super::source::Source;
use super::write::WriteSession;
use crate::model::ReceiptId;

/// Opens the receipts database at `path` with the engine that holds it
/// (SQLite, so far: see [`Database::open`]).
pub fn open_database(
    path: impl AsRef<Path>,
    access: Access,
) -> Result<Box<dyn Storage + Send>, StorageError> {
    Ok(Box::new(Database::open(path, access)?))
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

    fn location(&self) -> &Path {
        self.path()
    }

    fn is_read_only(&self) -> bool {
        self.is_read_only()
    }

    fn read_only_reason(&self) -> Option<&str> {
        self.read_only_reason()
    }

    fn change_mark(&self) -> Result<ChangeMark, StorageError> {
        data_version(self.conn())
            .map(ChangeMark)
            .map_err(|e| self.error("watching for changes", e))
    }

    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError> {
        load_payload(self, id)
    }

    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError> {
        load_conflict_payload(self, id)
    }

    fn schema_problems(&self) -> Vec<String> {
        schema_problems(self)
    }
}
