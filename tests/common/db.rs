//! A receipts database opened through storage, as the program opens it, and
//! a connection of the test's own to the same file, for what a test reads or
//! writes in SQL behind the program's back (a trigger, a count, a lock).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use receipt_review::model::ReceiptId;
use receipt_review::storage::{
    self, Access, ChangeMark, Connections, Location, LogError, OpenOptions, Session, Source,
    Storage, StorageError, WriteTx,
};
use rusqlite::Connection;

pub struct Db {
    storage: Box<dyn Storage + Send>,
    path: PathBuf,
    /// Opened when first asked for: a test that never asks adds no
    /// connection (and no side files) of its own.
    conn: OnceCell<Connection>,
}

impl Db {
    /// Opens the SQLite file at `path` with the default options.
    pub fn open(path: &Path, access: Access) -> Result<Db, StorageError> {
        Self::open_with(path, OpenOptions::new(access))
    }

    pub fn open_with(path: &Path, options: OpenOptions) -> Result<Db, StorageError> {
        Ok(Db {
            storage: storage::open_database_with(path, options)?,
            path: path.to_path_buf(),
            conn: OnceCell::new(),
        })
    }

    /// The test's own connection to the file (read-write), not the one the
    /// program reads and writes on: what it writes is committed at once,
    /// as another program's would be.
    pub fn conn(&self) -> &Connection {
        self.conn
            .get_or_init(|| Connection::open(&self.path).expect("open the test's connection"))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The database the program opened, answering as it does.
impl Storage for Db {
    fn begin_read(&self, connections: Connections) -> Result<Box<dyn Session + '_>, StorageError> {
        self.storage.begin_read(connections)
    }

    fn begin_write(&mut self) -> Result<Box<dyn WriteTx + '_>, LogError> {
        self.storage.begin_write()
    }

    fn source(&self) -> &Source {
        self.storage.source()
    }

    fn location(&self) -> &Location {
        self.storage.location()
    }

    fn is_read_only(&self) -> bool {
        self.storage.is_read_only()
    }

    fn read_only_reason(&self) -> Option<&str> {
        self.storage.read_only_reason()
    }

    fn change_mark(&self) -> Result<ChangeMark, StorageError> {
        self.storage.change_mark()
    }

    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError> {
        self.storage.receipt_payload(id)
    }

    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError> {
        self.storage.conflict_payload(id)
    }

    fn scrub(&mut self) -> Result<receipt_review::storage::Scrubbed, StorageError> {
        self.storage.scrub()
    }

    fn schema_problems(&self) -> Vec<String> {
        self.storage.schema_problems()
    }

    fn state_changes_off(&self) -> Option<String> {
        self.storage.state_changes_off()
    }
}
