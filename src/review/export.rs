//! The review log as a file: CSV for spreadsheets, JSONL for programs.
//!
//! Both have one record per log row, in append order, with the columns
//! `id, item, kind, decision, operator, decided_at, receipt_ids, note, reopens,
//! state_before, state_after, updated_at_before, updated_at_after`; an undo is a
//! row whose decision is `reopened`.
//!
//! - CSV (RFC 4180, CRLF, header row) is safe to open in a spreadsheet: a cell
//!   that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
//!   leading `'`, so it is never run as a formula; so does one that starts
//!   with apostrophes and then one of those, so that every cell reads back
//!   unambiguously ([`unquote_cell`] removes the one `'` added).
//!   `receipt_ids` is written `12;13`.
//! - JSONL is faithful: the exact stored strings, `receipt_ids` as an array of
//!   integers, `null` for absent values. Characters a terminal could act on
//!   (C0, DEL, C1, bidi, zero-width) are written as `\uXXXX` escapes, which
//!   every JSON reader decodes to the original, so the file is also safe to
//!   look at.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::{self, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::log::for_each_entry;
use crate::model::{LOG_COLUMNS as COLUMNS, LogEntry};
use crate::storage::{LogError, Storage};

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

fn csv_record(entry: &LogEntry) -> [String; COLUMNS.len()] {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    [
        entry.id.to_string(),
        entry.item.clone(),
        entry.kind.as_str().to_string(),
        entry.decision.as_str().to_string(),
        entry.operator.clone(),
        entry.decided_at.clone(),
        entry
            .receipt_ids
            .iter()
            .map(|id| id.to_string())
            .collect::<Vec<_>>()
            .join(";"),
        opt(&entry.note),
        entry.reopens.map(|id| id.to_string()).unwrap_or_default(),
        opt(&entry.state_before),
        opt(&entry.state_after),
        opt(&entry.updated_at_before),
        opt(&entry.updated_at_after),
    ]
}

/// Writes the whole log to `out`; returns the number of log rows written.
/// With no review log in the database: a CSV header alone, or nothing.
pub fn export(
    storage: &dyn Storage,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<usize, ExportError> {
    let mut out = BufWriter::new(out);
    let n = match format {
        ExportFormat::Csv => {
            let mut csv = csv::WriterBuilder::new()
                .terminator(csv::Terminator::CRLF)
                .from_writer(&mut out);
            csv.write_record(COLUMNS)?;
            let n = for_each_entry(storage, |entry| {
                let record = csv_record(&entry);
                csv.write_record(record.iter().map(|cell| safe_cell(cell).into_owned()))
                    .map_err(ExportError::from)
            })?;
            csv.flush()?;
            n
        }
        ExportFormat::Jsonl => for_each_entry(storage, |entry| {
            out.write_all(crate::sanitize::json::to_string_compact(&entry).as_bytes())?;
            out.write_all(b"\n")?;
            Ok::<(), ExportError>(())
        })?,
    };
    out.flush()?;
    Ok(n)
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
    let name = path.file_name().ok_or_else(|| ExportError::NotAFile {
        path: path.to_path_buf(),
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = create_temp(dir, name)?;
    let n = export(storage, format, temp.as_file_mut())?;
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
        crate::storage::init(&db_path).unwrap();
        let db =
            crate::storage::Database::open(&db_path, crate::storage::Access::ReadOnly).unwrap();
        let result = export_to_file(&db, ExportFormat::Csv, &folder.join("log.csv"));
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
    fn formats_parse() {
        assert_eq!(ExportFormat::parse("CSV"), Some(ExportFormat::Csv));
        assert_eq!(ExportFormat::parse("jsonl"), Some(ExportFormat::Jsonl));
        assert_eq!(ExportFormat::parse("xml"), None);
    }
}
