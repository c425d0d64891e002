//! The review log as a file: CSV for spreadsheets, JSONL for programs.
//!
//! Both have one record per log row, in append order, with the log's own
//! columns ([`LOG_COLUMNS`]: `id, item, kind, decision, operator, decided_at,
//! receipt_ids, note, reopens, state_before, state_after, updated_at_before,
//! updated_at_after, kept, batch`) and then who the row is about
//! ([`VISITOR_COLUMNS`]: `scope, visitor_name, visitor_email`, read from the
//! copy the row covers, see [`visitor`]); an undo is a row whose decision is
//! `reopened`. An [`ExportFilter`] limits the rows to a span of time, some
//! operators, some items.
//!
//! - CSV (RFC 4180, CRLF, header row) is safe to open in a spreadsheet: a cell
//!   that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
//!   leading `'`, so it is never run as a formula; so does one that starts
//!   with apostrophes and then one of those, so that every cell reads back
//!   unambiguously ([`unquote_cell`] removes the one `'` added). Every cell
//!   goes through this, the visitor's own text above all.
//!   `receipt_ids` is written `12;13`. With a BOM ([`ExportFile::EXCEL_CSV`])
//!   the file starts with the bytes EF BB BF, without which Excel on a
//!   Japanese Windows reads UTF-8 as Shift_JIS.
//! - JSONL is faithful: the exact stored strings, `receipt_ids` as an array of
//!   integers, `null` for absent values. Characters a terminal could act on
//!   (C0, DEL, C1, bidi, zero-width) are written as `\uXXXX` escapes, which
//!   every JSON reader decodes to the original, so the file is also safe to
//!   look at.
//!
//! [`LOG_COLUMNS`]: crate::model::LOG_COLUMNS

mod filter;
pub mod visitor;

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use tempfile::NamedTempFile;

use super::log::in_one_read;
use crate::model::{LOG_COLUMNS, LogEntry, ReceiptId};
use crate::storage::{LogError, Session, Storage};

pub use filter::{ExportFilter, ItemMatch};
pub use visitor::Visitor;

/// The columns after the log's own: who the row is about.
pub const VISITOR_COLUMNS: [&str; 3] = ["scope", "visitor_name", "visitor_email"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    Csv,
    Jsonl,
}

impl ExportFormat {
    /// `csv` or `jsonl` (case-insensitive; `json` and `ndjson` mean JSONL).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "csv" => Some(Self::Csv),
            "jsonl" | "json" | "ndjson" => Some(Self::Jsonl),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Jsonl => "jsonl",
        }
    }
}

/// A file the log is exported as: its format and, for CSV, whether it starts
/// with a UTF-8 byte order mark (for Excel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExportFile {
    pub format: ExportFormat,
    /// Only ever written in CSV: JSONL never starts with a BOM.
    pub bom: bool,
}

impl ExportFile {
    pub const CSV: ExportFile = ExportFile {
        format: ExportFormat::Csv,
        bom: false,
    };
    /// CSV that Excel opens as UTF-8, on a Japanese Windows too.
    pub const EXCEL_CSV: ExportFile = ExportFile {
        format: ExportFormat::Csv,
        bom: true,
    };
    pub const JSONL: ExportFile = ExportFile {
        format: ExportFormat::Jsonl,
        bom: false,
    };
}

impl From<ExportFormat> for ExportFile {
    fn from(format: ExportFormat) -> Self {
        ExportFile { format, bom: false }
    }
}

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Log(#[from] LogError),
    /// The folder of the output file cannot be written (or does not exist).
    #[error("{}", crate::t!(crate::i18n::current(), "error.export.folder", dir = .dir.display(), error = .source))]
    Folder { dir: PathBuf, source: io::Error },
    #[error("{}", crate::t!(crate::i18n::current(), "error.export.not_a_file", path = .path.display()))]
    NotAFile { path: PathBuf },
    #[error("{}", crate::t!(crate::i18n::current(), "error.export.write", path = .path.display(), error = .source))]
    Write { path: PathBuf, source: io::Error },
    #[error("{}", crate::t!(crate::i18n::current(), "error.export.io", error = .0))]
    Io(#[from] io::Error),
    #[error("{}", crate::t!(crate::i18n::current(), "error.export.csv", error = .0))]
    Csv(#[from] csv::Error),
    #[error("{}", crate::t!(crate::i18n::current(), "error.export.json", error = .0))]
    Json(#[from] serde_json::Error),
}

/// Characters that make a spreadsheet treat a cell as a formula (or that
/// spreadsheets strip before looking for one).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// True for text that a leading `'` must protect: it starts like a formula,
/// possibly behind apostrophes (which then need one more to stay readable).
fn needs_quote(text: &str) -> bool {
    text.trim_start_matches('\'').starts_with(FORMULA_STARTS)
}

/// The cell as written to CSV: a leading `'` when it would start like a
/// formula (`=1+1` → `'=1+1`), and when it is apostrophes followed by a
/// formula start (`'=1` → `''=1`), so that no two texts give the same cell.
pub fn safe_cell(text: &str) -> Cow<'_, str> {
    if needs_quote(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The text a [`safe_cell`] cell was made from (for a program reading the CSV).
pub fn unquote_cell(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if needs_quote(rest) => rest,
        _ => cell,
    }
}

/// The header: the log's columns, then who each row is about.
pub fn columns() -> impl Iterator<Item = &'static str> {
    LOG_COLUMNS.into_iter().chain(VISITOR_COLUMNS)
}

/// A log row and who it is about: one record of either format. The
/// JSONL line is this serialised; the CSV cells are its values, column by
/// column, so a field added to [`LogEntry`] (and to `LOG_COLUMNS`) is in
/// both files at once.
#[derive(Serialize)]
struct Record<'a> {
    #[serde(flatten)]
    entry: &'a LogEntry,
    scope: Option<&'a str>,
    visitor_name: Option<&'a str>,
    visitor_email: Option<&'a str>,
}

impl<'a> Record<'a> {
    fn new(entry: &'a LogEntry, visitor: Option<&'a Visitor>) -> Self {
        Record {
            entry,
            scope: visitor.and_then(|v| v.scope.as_deref()),
            visitor_name: visitor.and_then(|v| v.name.as_deref()),
            visitor_email: visitor.and_then(|v| v.email.as_deref()),
        }
    }

    /// The cells in [`columns`] order, as text: absent values empty, lists
    /// joined with `;` (`12;13`). Not yet safe for a spreadsheet: see
    /// [`safe_cell`].
    fn cells(&self) -> Vec<String> {
        let value = serde_json::to_value(self).expect("a log row serialises");
        columns().map(|column| cell_text(&value[column])).collect()
    }
}

fn cell_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(cell_text).collect::<Vec<_>>().join(";"),
        other => other.to_string(),
    }
}

/// The receipt a row is about, whose visitor the export names: the copy
/// the decision kept, else the earliest of its receipts (the one its item
/// is named after), or the item's own receipt when the row lists none.
fn covered_receipt(entry: &LogEntry) -> Option<ReceiptId> {
    entry
        .kept
        .or_else(|| entry.receipt_ids.first().copied())
        .or_else(|| super::parse_item(&entry.item).ok().map(|(_, id)| id))
}

/// The rows `filter` keeps, in append order, and the visitor of each
/// receipt they cover: all of one state of the database, read at once.
fn rows_and_visitors(
    storage: &dyn Storage,
    filter: &ExportFilter,
) -> Result<(Vec<LogEntry>, HashMap<ReceiptId, Visitor>), LogError> {
    in_one_read(storage, |session| read_rows_and_visitors(session, filter))
}

fn read_rows_and_visitors(
    session: &mut dyn Session,
    filter: &ExportFilter,
) -> Result<(Vec<LogEntry>, HashMap<ReceiptId, Visitor>), LogError> {
    let mut rows = Vec::new();
    session.each_entry(&mut |entry| {
        if filter.keeps(&entry) {
            rows.push(entry);
        }
        ControlFlow::Continue(())
    })?;
    let mut ids: Vec<ReceiptId> = rows.iter().filter_map(covered_receipt).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut visitors = HashMap::with_capacity(ids.len());
    if !ids.is_empty() {
        let held = session.receipts_held(&ids).map_err(LogError::from)?;
        let mut buf = String::new();
        for i in 0..held.len() {
            let row = held.row(i, &mut buf);
            visitors.insert(row.id, Visitor::of(row.scope, row.payload.ok()));
        }
    }
    Ok((rows, visitors))
}

/// Writes the whole log to `out`; returns the number of log rows written.
/// With no review log in the database: a CSV header alone, or nothing.
pub fn export(
    storage: &dyn Storage,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<usize, ExportError> {
    export_with(storage, format.into(), &ExportFilter::default(), out)
}

/// Writes the rows `filter` keeps to `out` as `file`; returns how many.
pub fn export_with(
    storage: &dyn Storage,
    file: ExportFile,
    filter: &ExportFilter,
    out: &mut dyn Write,
) -> Result<usize, ExportError> {
    let (rows, visitors) = rows_and_visitors(storage, filter)?;
    let visitor_of = |entry: &LogEntry| covered_receipt(entry).and_then(|id| visitors.get(&id));
    let mut out = BufWriter::new(out);
    match file.format {
        ExportFormat::Csv => {
            if file.bom {
                out.write_all(BOM)?;
            }
            let mut csv = csv::WriterBuilder::new()
                .terminator(csv::Terminator::CRLF)
                .from_writer(&mut out);
            csv.write_record(columns())?;
            for entry in &rows {
                let cells = Record::new(entry, visitor_of(entry)).cells();
                csv.write_record(cells.iter().map(|cell| safe_cell(cell).into_owned()))?;
            }
            csv.flush()?;
        }
        ExportFormat::Jsonl => {
            for entry in &rows {
                let record = Record::new(entry, visitor_of(entry));
                out.write_all(crate::sanitize::json::to_string_compact(&record).as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
    }
    out.flush()?;
    Ok(rows.len())
}

/// An empty temporary file beside the export's final name (`.NAME.XXXXXX.tmp`), removed
/// when dropped unless persisted. Opened here rather than by `tempfile_in` so that the
/// file gets the mode any new file of the user gets (not 0600), and a failure names the
/// folder's error rather than a random name the user never chose.
fn create_temp(dir: &Path, name: &OsStr) -> Result<NamedTempFile, ExportError> {
    // A folder marked read-only is respected even by a user who could
    // override it (as the database's folder is, see `storage::file`).
    if fs::metadata(dir).is_ok_and(|m| m.is_dir() && m.permissions().readonly()) {
        return Err(ExportError::Folder {
            dir: dir.to_path_buf(),
            source: io::Error::new(io::ErrorKind::PermissionDenied, "the folder is read-only"),
        });
    }
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .make_in(dir, |path| {
            OpenOptions::new().write(true).create_new(true).open(path)
        })
        .map_err(|source| ExportError::Folder {
            dir: dir.to_path_buf(),
            source,
        })
}

/// Writes the export to `path` whole or not at all: into a temporary file in
/// the same folder, synced, then renamed over `path` (an existing file is
/// replaced). On any error the temporary file is removed and `path` is left
/// as it was.
pub fn export_to_file(
    storage: &dyn Storage,
    format: ExportFormat,
    path: &Path,
) -> Result<usize, ExportError> {
    export_to_file_with(storage, format.into(), &ExportFilter::default(), path)
}

/// [`export_to_file`] of the rows `filter` keeps, as `file`.
pub fn export_to_file_with(
    storage: &dyn Storage,
    file: ExportFile,
    filter: &ExportFilter,
    path: &Path,
) -> Result<usize, ExportError> {
    let name = path.file_name().ok_or_else(|| ExportError::NotAFile {
        path: path.to_path_buf(),
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = create_temp(dir, name)?;
    let n = export_with(storage, file, filter, temp.as_file_mut())?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| ExportError::Write {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_starts_are_neutralised() {
        for hostile in ["=1+1", "+1", "-2", "@x", "\tx", "\rx"] {
            assert_eq!(safe_cell(hostile), format!("'{hostile}"));
        }
        for fine in ["", "12;13", "note", "'quoted'", "'", " =x", "日本語"] {
            assert_eq!(safe_cell(fine), fine);
            assert_eq!(unquote_cell(fine), fine);
        }
    }

    #[test]
    fn every_cell_reads_back_to_its_text() {
        // Without the extra apostrophe, `=1` and `'=1` would both be `'=1`.
        for (text, cell) in [
            ("=1", "'=1"),
            ("'=1", "''=1"),
            ("''-2", "'''-2"),
            ("'x", "'x"),
            ("''", "''"),
        ] {
            assert_eq!(safe_cell(text), cell);
            assert_eq!(unquote_cell(cell), text);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_marked_read_only_is_refused_even_for_root() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("ro");
        fs::create_dir(&folder).unwrap();
        fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
        let db_path = dir.path().join("receipts.db");
        let location = crate::storage::Location::File(db_path);
        crate::storage::init(&location).unwrap();
        let db =
            crate::storage::open_database(&location, crate::storage::Access::ReadOnly).unwrap();
        let result = export_to_file(&*db, ExportFormat::Csv, &folder.join("log.csv"));
        let left = fs::read_dir(&folder).unwrap().count();
        fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
        let err = result.unwrap_err();
        assert!(matches!(err, ExportError::Folder { .. }), "{err:?}");
        assert!(
            err.to_string().ends_with("the folder is read-only"),
            "{err}"
        );
        assert_eq!(left, 0);
    }

    #[test]
    fn every_field_of_a_log_row_has_its_column_in_order() {
        let entry = LogEntry {
            id: 7,
            item: "dup:12".into(),
            kind: crate::model::Kind::Duplicate,
            decision: crate::model::Decision::Duplicate,
            operator: "aiko".into(),
            decided_at: "2026-11-29T10:00:00.000Z".into(),
            receipt_ids: vec![12, 13],
            note: None,
            reopens: None,
            state_before: None,
            state_after: None,
            updated_at_before: None,
            updated_at_after: None,
            kept: None,
            batch: None,
        };
        let visitor = Visitor {
            scope: Some("corp/contact".into()),
            name: Some("=HYPERLINK(1)".into()),
            email: None,
        };
        let line = crate::sanitize::json::to_string_compact(&Record::new(&entry, Some(&visitor)));
        let at: Vec<usize> = columns()
            .map(|c| {
                line.find(&format!("\"{c}\":"))
                    .unwrap_or_else(|| panic!("{c} missing from {line}"))
            })
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{line}");
        let fields = serde_json::from_str::<serde_json::Map<String, Value>>(&line)
            .unwrap()
            .len();
        assert_eq!(
            fields,
            columns().count(),
            "a field without a column: {line}"
        );
        let cells = Record::new(&entry, Some(&visitor)).cells();
        assert_eq!(cells[0], "7");
        assert_eq!(cells[6], "12;13");
        assert_eq!(cells[7], "");
        assert_eq!(
            cells[LOG_COLUMNS.len()..],
            ["corp/contact", "=HYPERLINK(1)", ""]
        );
    }

    #[test]
    fn formats_parse() {
        assert_eq!(ExportFormat::parse("CSV"), Some(ExportFormat::Csv));
        assert_eq!(ExportFormat::parse("jsonl"), Some(ExportFormat::Jsonl));
        assert_eq!(ExportFormat::parse("xml"), None);
    }
}
