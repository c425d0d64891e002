//! What the rest of the program asks of a receipts database, whichever
//! engine holds it. [`Database`] is the SQLite engine: every SQLite-specific
//! part (rowid ranges, `PRAGMA data_version`, `BEGIN IMMEDIATE`, WAL) stays
//! behind these traits.

use super::error::StorageError;
use super::open::Database;
use super::session::{Connections, ReadSession, Session};

/// A receipts database.
pub trait Storage {
    /// Begins a read of one state of the database, on one connection or on
    /// one per core (the engine decides which it can).
    fn begin_read(&self, connections: Connections) -> Result<Box<dyn Session + '_>, StorageError>;

    /// True when `receipts` is a view over a legacy table: its rows may
    /// change in any way, so every reading reads them all.
    fn receipts_is_view(&self) -> bool;
}

impl Storage for Database {
    fn begin_read(&self, connections: Connections) -> Result<Box<dyn Session + '_>, StorageError> {
        Ok(Box::new(ReadSession::begin(self, connections)?))
    }

    fn receipts_is_view(&self) -> bool {
        self.source().is_view()
    }
}
