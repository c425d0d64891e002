//! Where the receipts come from: the `receipts` table, or a view named
//! `receipts` that maps a legacy table's columns, plus the optional
//! `key_conflicts`, `replays` and `absorbed`.
//!
//! Only `SELECT` on these is ever needed to read. Column names are matched
//! case-insensitively (as SQLite does) against a fixed set of known names; no
//! other name is ever put into SQL.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

use super::error::{StorageError, show_path};

/// Whether a relation is a table or a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationKind {
    Table,
    View,
}

impl RelationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::View => "view",
        }
    }
}

/// The columns of `receipts` the tool knows, in the contract's order (`assets/schema.sql`).
pub const RECEIPT_COLUMNS: [&str; 9] = [
    "id",
    "scope",
    "request_key",
    "digest",
    "payload",
    "state",
    "response",
    "created_at",
    "updated_at",
];
/// Columns `receipts` must have.
pub const REQUIRED_RECEIPT_COLUMNS: [&str; 3] = ["id", "payload", "created_at"];
/// Columns `key_conflicts` must have to be used.
pub const CONFLICT_COLUMNS: [&str; 5] = ["id", "receipt_id", "digest", "payload", "received_at"];
/// Columns `replays` and `absorbed` must have to be counted.
pub const COUNTED_COLUMNS: [&str; 1] = ["receipt_id"];

/// Which of the known optional columns `receipts` has (the required ones are
/// always there once a [`Source`] exists).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiptColumns {
    pub scope: bool,
    pub request_key: bool,
    pub digest: bool,
    pub state: bool,
    pub response: bool,
    pub updated_at: bool,
}

impl ReceiptColumns {
    /// Whether the known column `name` is present (required columns always are).
    pub fn has(&self, name: &str) -> bool {
        match name {
            "id" | "payload" | "created_at" => true,
            "scope" => self.scope,
            "request_key" => self.request_key,
            "digest" => self.digest,
            "state" => self.state,
            "response" => self.response,
            "updated_at" => self.updated_at,
            _ => false,
        }
    }
}

/// An optional related table (`key_conflicts`, `replays`, `absorbed`) as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Related {
    Absent,
    /// Present with every column the tool needs.
    Usable(RelationKind),
    /// Present but lacking these needed columns: it is not read.
    Unusable {
        kind: RelationKind,
        missing: Vec<&'static str>,
    },
}

impl Related {
    pub fn is_usable(&self) -> bool {
        matches!(self, Self::Usable(_))
    }
}

/// The shape of the data the tool reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub receipts: RelationKind,
    pub columns: ReceiptColumns,
    /// Every column of `receipts` as declared (unknown ones are fine, and unused).
    pub all_columns: Vec<String>,
    pub key_conflicts: Related,
    pub replays: Related,
    /// Exact copies the intake server absorbed (a table only it writes:
    /// older databases, and other intakes, have none).
    pub absorbed: Related,
}

impl Source {
    pub fn is_view(&self) -> bool {
        self.receipts == RelationKind::View
    }

    /// The optional relations that are there but lack columns the tool
    /// needs (what `check` reports of them), one line each.
    pub fn related_problems(&self) -> Vec<String> {
        let lang = crate::i18n::current();
        let source = self;
        let mut problems = Vec::new();
        for (name, related) in [
            ("key_conflicts", &source.key_conflicts),
            ("replays", &source.replays),
            ("absorbed", &source.absorbed),
        ] {
            if let Related::Unusable { kind, missing } = related {
                let kind = match kind {
                    RelationKind::Table => crate::t!(lang, "terms.relation.table"),
                    RelationKind::View => crate::t!(lang, "terms.relation.view"),
                };
                let columns = missing.join(", ");
                problems.push(if missing.len() == 1 {
                    crate::t!(
                        lang,
                        "check.problem.related_without_column",
                        name = name,
                        kind = kind,
                        columns = columns
                    )
                } else {
                    crate::t!(
                        lang,
                        "check.problem.related_without_columns",
                        name = name,
                        kind = kind,
                        columns = columns
                    )
                });
            }
        }
        problems
    }

    /// Reads the shape of `receipts`, `key_conflicts`, `replays` and `absorbed`.
    /// `busy_timeout` is the connection's, for the message of a Busy error.
    pub fn detect(
        conn: &Connection,
        path: &Path,
        busy_timeout: Duration,
    ) -> Result<Source, StorageError> {
        let sqlite = |e| StorageError::from_sqlite(path, "reading the schema", busy_timeout, e);
        let receipts = relation_kind(conn, "receipts")
            .map_err(sqlite)?
            .ok_or_else(|| StorageError::NoReceipts {
                path: show_path(path),
            })?;
        let all_columns =
            column_names(conn, "receipts").map_err(|e| match e.sqlite_error_code() {
                // A view over a table that is gone, or with a broken definition.
                None | Some(rusqlite::ErrorCode::Unknown) => StorageError::BadReceipts {
                    path: show_path(path),
                    detail: crate::sanitize::inline(&e.to_string(), 200),
                },
                _ => sqlite(e),
            })?;
        if all_columns.is_empty() {
            return Err(StorageError::BadReceipts {
                path: show_path(path),
                detail: crate::t!(crate::i18n::current(), "error.storage.reason.no_columns").into(),
            });
        }
        let has = |name: &str| all_columns.iter().any(|c| c.eq_ignore_ascii_case(name));
        for column in REQUIRED_RECEIPT_COLUMNS {
            if !has(column) {
                return Err(StorageError::MissingColumn {
                    path: show_path(path),
                    column,
                });
            }
        }
        let columns = ReceiptColumns {
            scope: has("scope"),
            request_key: has("request_key"),
            digest: has("digest"),
            state: has("state"),
            response: has("response"),
            updated_at: has("updated_at"),
        };
        let key_conflicts = related(conn, "key_conflicts", &CONFLICT_COLUMNS).map_err(sqlite)?;
        let replays = related(conn, "replays", &COUNTED_COLUMNS).map_err(sqlite)?;
        let absorbed = related(conn, "absorbed", &COUNTED_COLUMNS).map_err(sqlite)?;
        Ok(Source {
            receipts,
            columns,
            all_columns,
            key_conflicts,
            replays,
            absorbed,
        })
    }
}

/// `table` or `view` for a relation in the main schema, if present.
pub fn relation_kind(conn: &Connection, name: &str) -> rusqlite::Result<Option<RelationKind>> {
    let kind: Option<String> = conn
        .query_row(
            "SELECT type FROM main.sqlite_master \
             WHERE type IN ('table', 'view') AND name = ?1 COLLATE NOCASE LIMIT 1",
            [name],
            |row| row.get(0),
        )
        .optional()?;
    Ok(kind.map(|k| {
        if k == "view" {
            RelationKind::View
        } else {
            RelationKind::Table
        }
    }))
}

/// The declared column names of a table or view (works for views too).
pub fn column_names(conn: &Connection, relation: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1, 'main')")?;
    let names = stmt.query_map([relation], |row| row.get::<_, String>(0))?;
    names.collect()
}

fn related(conn: &Connection, name: &str, needed: &[&'static str]) -> rusqlite::Result<Related> {
    let Some(kind) = relation_kind(conn, name)? else {
        return Ok(Related::Absent);
    };
    let columns = match column_names(conn, name) {
        Ok(c) => c,
        // A broken view: present, but nothing can be read from it.
        Err(e)
            if e.sqlite_error_code()
                .is_none_or(|c| c == rusqlite::ErrorCode::Unknown) =>
        {
            Vec::new()
        }
        Err(e) => return Err(e),
    };
    let missing: Vec<&'static str> = needed
        .iter()
        .copied()
        .filter(|n| !columns.iter().any(|c| c.eq_ignore_ascii_case(n)))
        .collect();
    Ok(if missing.is_empty() {
        Related::Usable(kind)
    } else {
        Related::Unusable { kind, missing }
    })
}
