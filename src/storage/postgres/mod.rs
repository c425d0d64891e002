//! The PostgreSQL engine: one database a team shares, from several web
//! servers and desks. [`PgDatabase`] answers [`Storage`] (each reading one
//! `REPEATABLE READ` snapshot, each decision a transaction serialised with
//! every other decision), and [`intake`] answers the intake's writes from
//! any number of processes.

mod batch;
pub(super) mod connect;
pub(super) mod intake;
pub(super) mod review_log;
mod rows;
pub(super) mod schema;
mod session;
mod write;

use std::sync::{Mutex, MutexGuard};

use postgres::{Client, Config};

use self::schema::Shape;
use self::session::{PgSession, Split};
use self::write::PgWrite;
use crate::model::ReceiptId;
use crate::storage::backend::{ChangeMark, Connections, Scrubbed, Session, Storage, WriteTx};
use crate::storage::error::{LogError, StorageError};
use crate::storage::location::Location;
use crate::storage::source::Source;
use crate::storage::{Access, OpenOptions};

/// How long a look for notifications waits for the socket.
const HEARING: std::time::Duration = std::time::Duration::from_millis(2);

/// How often listening is tried again once its connection broke.
const RELISTEN_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// A receipts database on a PostgreSQL server.
pub struct PgDatabase {
    client: Mutex<Client>,
    /// Settings to connect again after a connection was lost.
    config: Config,
    location: Location,
    shape: Shape,
    /// How every connection of it is set up (read-only, lock timeout).
    options: OpenOptions,
    /// A connection that listens for the notifications the schema's
    /// triggers send on commit; `None` where LISTEN failed (then the change
    /// mark is polled).
    listener: Mutex<Option<Listener>>,
    /// Connections a split reading used, kept for the next.
    helpers: Mutex<Vec<Client>>,
    /// When listening was last tried again after it broke.
    relisten: Mutex<Option<std::time::Instant>>,
}

struct Listener {
    client: Client,
    heard: i64,
}

/// Opens the database at `location` (a PostgreSQL URL).
pub(super) fn open_database(
    location: &Location,
    options: OpenOptions,
) -> Result<Box<dyn Storage + Send>, StorageError> {
    let config = connect::config(location)?;
    let mut client = connect(location, &config, options)?;
    let shape = schema::detect(&mut client, location)?;
    let listener = listen(location, &config);
    Ok(Box::new(PgDatabase {
        client: Mutex::new(client),
        config,
        location: location.clone(),
        shape,
        options,
        listener: Mutex::new(listener),
        relisten: Mutex::new(None),
        helpers: Mutex::new(Vec::new()),
    }))
}

/// A connection to `location` set up as `options` say: read-only
/// transactions when only reading, the busy timeout as a lock timeout, and
/// no notices below warnings.
fn connect(
    location: &Location,
    config: &Config,
    options: OpenOptions,
) -> Result<Client, StorageError> {
    let mut client = connect::connect(location, config)?;
    let read_only = if options.access == Access::ReadOnly {
        "on"
    } else {
        "off"
    };
    // Without client_min_messages, each decision's `CREATE … IF NOT EXISTS`
    // of the log would say "already exists" in a server's log, part after
    // part of an erasure.
    let settings = format!(
        "SET default_transaction_read_only = {read_only}; SET lock_timeout = {}; \
         SET client_min_messages = warning",
        options.busy_timeout.as_millis().max(1)
    );
    client
        .batch_execute(&settings)
        .map_err(|e| connect::error(location, "opening", &e))?;
    Ok(client)
}

/// Creates the schema at `location` (idempotent).
pub(super) fn init(location: &Location) -> Result<(), StorageError> {
    let config = connect::config(location)?;
    let mut client = connect::connect(location, &config)?;
    schema::create(&mut client, location)
}

fn listen(location: &Location, config: &Config) -> Option<Listener> {
    let mut client = connect::connect(location, config).ok()?;
    client.batch_execute("LISTEN receipt_review").ok()?;
    Some(Listener { client, heard: 0 })
}

impl Listener {
    /// How many notifications were heard so far (those waiting read now,
    /// without blocking); `None` when the connection broke.
    fn hear(&mut self) -> Option<i64> {
        // A wait, however short, lets the client's runtime take in what
        // arrived on the socket; a plain `iter()` only sees what an earlier
        // call took in.
        let mut notifications = self.client.notifications();
        let mut waiting = notifications.timeout_iter(HEARING);
        loop {
            match postgres::fallible_iterator::FallibleIterator::next(&mut waiting) {
                Ok(Some(_)) => self.heard += 1,
                Ok(None) => return Some(self.heard),
                Err(_) => return None,
            }
        }
    }
}

impl PgDatabase {
    /// The connection, connected again when the last one was lost.
    fn client(&self) -> Result<MutexGuard<'_, Client>, StorageError> {
        let mut client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        if client.is_closed() {
            *client = connect(&self.location, &self.config, self.options)?;
        }
        Ok(client)
    }

    fn error(&self, context: &str, e: &postgres::Error) -> StorageError {
        connect::error(&self.location, context, e)
    }
}

impl Storage for PgDatabase {
    fn begin_read(&self, connections: Connections) -> Result<Box<dyn Session + '_>, StorageError> {
        let split = match connections {
            Connections::One => None,
            Connections::EveryCore => Some(Split {
                connections: std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
                pool: &self.helpers,
                config: &self.config,
            }),
        };
        Ok(Box::new(PgSession::begin(
            self.client()?,
            &self.shape,
            &self.location,
            split,
        )?))
    }

    fn begin_write(&mut self) -> Result<Box<dyn WriteTx + '_>, LogError> {
        let client = self.client()?;
        Ok(Box::new(PgWrite::begin(client, &self.shape)?))
    }

    fn source(&self) -> &Source {
        &self.shape.source
    }

    fn location(&self) -> &Location {
        &self.location
    }

    fn is_read_only(&self) -> bool {
        self.options.access == Access::ReadOnly
    }

    fn read_only_reason(&self) -> Option<&str> {
        None
    }

    fn change_mark(&self) -> Result<ChangeMark, StorageError> {
        let mut listener = self.listener.lock().unwrap_or_else(|e| e.into_inner());
        if listener.is_none() {
            // Listen again (after the server came back), at most twice a minute.
            let mut tried = self.relisten.lock().unwrap_or_else(|e| e.into_inner());
            if tried.is_none_or(|at| at.elapsed() >= RELISTEN_EVERY) {
                *tried = Some(std::time::Instant::now());
                *listener = listen(&self.location, &self.config);
            }
        }
        if let Some(l) = listener.as_mut() {
            match l.hear() {
                Some(heard) => return Ok(ChangeMark::new(heard)),
                // The listening connection broke: poll from now on.
                None => *listener = None,
            }
        }
        drop(listener);
        // Without notifications: the newest transaction id the server has
        // handed out moves with every commit that wrote anything.
        let row = self
            .client()?
            .query_one("SELECT pg_snapshot_xmax(pg_current_snapshot())::text", &[])
            .map_err(|e| self.error("watching for changes", &e))?;
        let mark: String = row.get(0);
        Ok(ChangeMark::new(mark.parse().unwrap_or(0)))
    }

    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError> {
        let row = self
            .client()?
            .query_opt(
                "SELECT \"payload\"::text FROM receipts WHERE id = $1",
                &[&id],
            )
            .map_err(|e| self.error("reading a payload", &e))?;
        Ok(row.map(|r| r.get::<_, Option<String>>(0).unwrap_or_default()))
    }

    fn scrub(&mut self) -> Result<Scrubbed, StorageError> {
        // An UPDATE leaves the old row versions in the pages, and a plain
        // VACUUM only marks their room free: VACUUM FULL writes each table
        // anew and removes the old files. It locks the table while it runs
        // (the intake waits), so it waits a few seconds for the lock at most.
        let mut tables = vec!["receipts"];
        if self.shape.source.key_conflicts.is_usable() {
            tables.push("key_conflicts");
        }
        let mut client = self.client()?;
        let result = client
            .batch_execute("SET lock_timeout = '10s'")
            .and_then(|()| {
                tables
                    .iter()
                    .try_for_each(|t| client.batch_execute(&format!("VACUUM FULL {t}")))
            });
        let _ = client.batch_execute("RESET lock_timeout");
        match result {
            Ok(()) => Ok(Scrubbed::Done),
            Err(e) if e.as_db_error().is_some() => Ok(Scrubbed::NotNow(crate::sanitize::inline(
                &e.as_db_error()
                    .map(|d| d.message().to_string())
                    .unwrap_or_default(),
                200,
            ))),
            Err(e) => Err(self.error("rewriting the erased tables", &e)),
        }
    }

    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError> {
        if !self.shape.source.key_conflicts.is_usable() {
            return Ok(None);
        }
        let row = self
            .client()?
            .query_opt(
                "SELECT \"payload\"::text FROM key_conflicts WHERE id = $1",
                &[&id],
            )
            .map_err(|e| self.error("reading a conflicting attempt", &e))?;
        Ok(row.map(|r| r.get::<_, Option<String>>(0).unwrap_or_default()))
    }

    fn schema_problems(&self) -> Vec<String> {
        let lang = crate::i18n::current();
        let source = &self.shape.source;
        let mut problems = Vec::new();
        if !source.is_view() && source.columns.request_key {
            let unique = self.client().ok().and_then(|mut c| {
                c.query_one(
                    "SELECT EXISTS (SELECT 1 FROM pg_index i \
                     WHERE i.indrelid = 'receipts'::regclass AND i.indisunique \
                       AND (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a \
                            WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)) \
                           = ARRAY['request_key', 'scope'])",
                    &[],
                )
                .ok()
                .map(|r| r.get::<_, bool>(0))
            });
            if unique == Some(false) {
                problems.push(crate::t!(lang, "check.problem.no_unique_key").to_string());
            }
        }
        problems.extend(source.related_problems());
        problems
    }
}
