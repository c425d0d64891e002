//! The schema on PostgreSQL (`assets/schema_postgres.sql`), `init`, and
//! the shape of what is there: `receipts` a table or a view, its columns
//! and the types of its times, in the connection's current schema.

use postgres::Client;

use super::connect::error;
use crate::storage::error::StorageError;
use crate::storage::location::Location;
use crate::storage::source::{
    CONFLICT_COLUMNS, COUNTED_COLUMNS, REQUIRED_RECEIPT_COLUMNS, ReceiptColumns, Related,
    RelationKind, Source,
};

/// The tables, indexes and the trigger that wakes screens.
pub const SCHEMA_SQL: &str = include_str!("../../../assets/schema_postgres.sql");

/// The review log, created by the first write.
pub const REVIEW_LOG_SQL: &str = include_str!("../../../assets/review_log_postgres.sql");

/// Creates what is missing of the schema; what is there is left as it is.
/// One transaction, serialised with any other `init` or `serve` start.
pub fn create(client: &mut Client, location: &Location) -> Result<(), StorageError> {
    let mut tx = client
        .transaction()
        .map_err(|e| error(location, "init", &e))?;
    tx.batch_execute("SELECT pg_advisory_xact_lock(7262627265766965); ")
        .and_then(|()| tx.batch_execute(SCHEMA_SQL))
        .map_err(|e| error(location, "init", &e))?;
    tx.commit().map_err(|e| error(location, "init", &e))
}

/// True when every table and trigger of the schema is there.
pub fn complete(client: &mut Client) -> Result<bool, postgres::Error> {
    Ok(client
        .query_one(
            "SELECT count(*) = 5 AND EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'receipts_notify'                      AND tgrelid = to_regclass('receipts'))              FROM unnest(ARRAY['receipts', 'key_conflicts', 'replays', 'absorbed',                                'recent_visitors']) AS t(name)              WHERE to_regclass(t.name) IS NOT NULL",
            &[],
        )?
        .get(0))
}

/// How a time column is stored, which decides how it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeColumn {
    /// `timestamptz`: read as RFC 3339 UTC text with milliseconds.
    WithZone,
    /// `timestamp`: read as UTC.
    WithoutZone,
    /// Whole numbers: unix seconds or milliseconds.
    Integer,
    /// Other numbers.
    Real,
    /// Text (or anything else) as it is.
    Text,
}

impl TimeColumn {
    fn of(data_type: &str) -> Self {
        match data_type {
            "timestamp with time zone" => Self::WithZone,
            "timestamp without time zone" => Self::WithoutZone,
            "bigint" | "integer" | "smallint" => Self::Integer,
            "numeric" | "double precision" | "real" => Self::Real,
            _ => Self::Text,
        }
    }

    /// The SQL that reads `column` for rows of receipts: a timestamp as
    /// it is (taken in binary form), anything else as text.
    pub fn select_for_rows(self, column: &str) -> String {
        match self {
            Self::WithZone | Self::WithoutZone => format!("\"{column}\""),
            _ => self.select(column),
        }
    }

    /// The SQL that reads `column` (a fixed name of the contract) as text.
    pub fn select(self, column: &str) -> String {
        match self {
            Self::WithZone => format!(
                "to_char(\"{column}\" AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
            ),
            Self::WithoutZone => {
                format!("to_char(\"{column}\", 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")
            }
            Self::Integer | Self::Real | Self::Text => format!("\"{column}\"::text"),
        }
    }
}

/// What the engine found of the contract's relations.
#[derive(Clone, Debug)]
pub struct Shape {
    pub source: Source,
    pub created_at: TimeColumn,
    pub updated_at: TimeColumn,
    pub received_at: TimeColumn,
}

/// Reads the shape of `receipts`, `key_conflicts`, `replays` and `absorbed`
/// in the current schema.
pub fn detect(client: &mut Client, location: &Location) -> Result<Shape, StorageError> {
    let err = |e: postgres::Error| error(location, "reading the schema", &e);
    let kind = |client: &mut Client, name: &str| -> Result<Option<RelationKind>, StorageError> {
        let row = client
            .query_opt(
                "SELECT c.relkind::text FROM pg_class c \
                 WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace",
                &[&name],
            )
            .map_err(err)?;
        Ok(row.map(|r| match r.get::<_, String>(0).as_str() {
            "v" | "m" => RelationKind::View,
            _ => RelationKind::Table,
        }))
    };
    let columns = |client: &mut Client,
                   name: &str|
     -> Result<Vec<(String, String)>, StorageError> {
        let rows = client
            .query(
                "SELECT column_name::text, data_type::text FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
                &[&name],
            )
            .map_err(err)?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    };
    let receipts = kind(client, "receipts")?.ok_or_else(|| StorageError::NoReceipts {
        path: location.shown(),
    })?;
    let all = columns(client, "receipts")?;
    if all.is_empty() {
        return Err(StorageError::BadReceipts {
            path: location.shown(),
            detail: crate::t!(crate::i18n::current(), "error.storage.reason.no_columns").into(),
        });
    }
    let type_of = |name: &str| {
        all.iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(name))
            .map(|(_, t)| t.as_str())
    };
    let has = |name: &str| type_of(name).is_some();
    for column in REQUIRED_RECEIPT_COLUMNS {
        if !has(column) {
            return Err(StorageError::MissingColumn {
                path: location.shown(),
                column,
            });
        }
    }
    let mut related = |name: &str, needed: &[&'static str]| -> Result<Related, StorageError> {
        let Some(kind) = kind(client, name)? else {
            return Ok(Related::Absent);
        };
        let present = columns(client, name)?;
        let missing: Vec<&'static str> = needed
            .iter()
            .copied()
            .filter(|n| !present.iter().any(|(c, _)| c.eq_ignore_ascii_case(n)))
            .collect();
        Ok(if missing.is_empty() {
            Related::Usable(kind)
        } else {
            Related::Unusable { kind, missing }
        })
    };
    let key_conflicts = related("key_conflicts", &CONFLICT_COLUMNS)?;
    let replays = related("replays", &COUNTED_COLUMNS)?;
    let absorbed = related("absorbed", &COUNTED_COLUMNS)?;
    let received_at = if key_conflicts.is_usable() {
        columns(client, "key_conflicts")?
            .iter()
            .find(|(c, _)| c == "received_at")
            .map_or(TimeColumn::Text, |(_, t)| TimeColumn::of(t))
    } else {
        TimeColumn::Text
    };
    let source = Source {
        receipts,
        columns: ReceiptColumns {
            scope: has("scope"),
            request_key: has("request_key"),
            digest: has("digest"),
            state: has("state"),
            response: has("response"),
            updated_at: has("updated_at"),
        },
        all_columns: all.iter().map(|(c, _)| c.clone()).collect(),
        key_conflicts,
        replays,
        absorbed,
    };
    Ok(Shape {
        created_at: TimeColumn::of(type_of("created_at").unwrap_or("text")),
        updated_at: TimeColumn::of(type_of("updated_at").unwrap_or("text")),
        received_at,
        source,
    })
}
