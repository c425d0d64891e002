//! What can go wrong with a database file, each as one clear line that names the file.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use rusqlite::ErrorCode;

use crate::i18n::{self, Lang};
use crate::t;

/// Exit code for bad usage or unusable input (README, "Exit codes" under `find`).
pub const EXIT_UNUSABLE: i32 = 2;
/// Exit code for a failure at run time.
pub const EXIT_FAILURE: i32 = 1;

/// A storage failure. `Display` is one line: the file, then the problem, in
/// the language of the messages ([`crate::i18n::current`]);
/// [`StorageError::message`] says it in any. File names are shown
/// terminal-safe (see [`crate::sanitize`]).
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    NotFound {
        path: String,
    },
    IsDirectory {
        path: String,
    },
    NotSqlite {
        path: String,
        detail: String,
    },
    Empty {
        path: String,
    },
    Corrupt {
        path: String,
        detail: String,
    },
    NoReceipts {
        path: String,
    },
    MissingColumn {
        path: String,
        column: &'static str,
    },
    BadReceipts {
        path: String,
        detail: String,
    },
    Busy {
        path: String,
        waited: Duration,
    },
    PermissionDenied {
        path: String,
        detail: String,
    },
    InitRefused {
        path: String,
        reason: String,
    },
    /// The database server cannot be reached (an unknown host, nothing
    /// listening, a URL that does not read).
    Unreachable {
        path: String,
        detail: String,
    },
    /// The server has no such database.
    NoDatabase {
        path: String,
    },
    /// The server refused the connection for another reason.
    ServerRefused {
        path: String,
        detail: String,
    },
    /// The server is older than the engine speaks to.
    ServerTooOld {
        path: String,
        version: String,
    },
    /// The connection broke while working: nothing half-written stays.
    ConnectionLost {
        path: String,
        detail: String,
    },
    /// `context` says what was being done, in English ("reading receipts");
    /// [`doing_in`] says it in another language.
    Other {
        path: String,
        context: String,
        detail: String,
    },
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(i18n::current()))
    }
}

impl StorageError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::NotFound { path } => t!(lang, "error.storage.not_found", path = path),
            Self::IsDirectory { path } => t!(lang, "error.storage.is_directory", path = path),
            Self::NotSqlite { path, detail } => {
                t!(
                    lang,
                    "error.storage.not_sqlite",
                    path = path,
                    detail = detail
                )
            }
            Self::Empty { path } => t!(lang, "error.storage.empty", path = path),
            Self::Corrupt { path, detail } => {
                t!(lang, "error.storage.corrupt", path = path, detail = detail)
            }
            Self::NoReceipts { path } => t!(lang, "error.storage.no_receipts", path = path),
            Self::MissingColumn { path, column } => t!(
                lang,
                "error.storage.missing_column",
                path = path,
                column = column
            ),
            Self::BadReceipts { path, detail } => {
                t!(
                    lang,
                    "error.storage.bad_receipts",
                    path = path,
                    detail = detail
                )
            }
            Self::Busy { path, waited } => t!(
                lang,
                "error.storage.busy",
                path = path,
                waited = human_timeout(*waited, lang)
            ),
            Self::PermissionDenied { path, detail } => t!(
                lang,
                "error.storage.permission_denied",
                path = path,
                detail = detail
            ),
            Self::InitRefused { path, reason } => t!(
                lang,
                "error.storage.init_refused",
                path = path,
                reason = reason
            ),
            Self::Unreachable { path, detail } => {
                t!(
                    lang,
                    "error.storage.unreachable",
                    path = path,
                    detail = detail
                )
            }
            Self::NoDatabase { path } => t!(lang, "error.storage.no_database", path = path),
            Self::ServerRefused { path, detail } => t!(
                lang,
                "error.storage.server_refused",
                path = path,
                detail = detail
            ),
            Self::ServerTooOld { path, version } => t!(
                lang,
                "error.storage.server_too_old",
                path = path,
                version = version
            ),
            Self::ConnectionLost { path, detail } => t!(
                lang,
                "error.storage.connection_lost",
                path = path,
                detail = detail
            ),
            Self::Other {
                path,
                context,
                detail,
            } => t!(
                lang,
                "error.storage.other",
                path = path,
                context = doing_in(lang, context),
                detail = detail
            ),
        }
    }

    /// The process exit code for this error: 2 for unusable input (a database
    /// locked by another process counts: the command cannot use it now), 1 for
    /// a failure at run time (an I/O error).
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Other { .. } | Self::ConnectionLost { .. } => EXIT_FAILURE,
            _ => EXIT_UNUSABLE,
        }
    }

    /// True when the connection to the database server broke (worth
    /// connecting again).
    pub fn is_connection_lost(&self) -> bool {
        matches!(self, Self::ConnectionLost { .. })
    }

    /// True when the database server could not be reached or the
    /// connection broke: worth trying again a little later.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::ConnectionLost { .. } | Self::Unreachable { .. })
    }

    /// True when another process holds the database (worth retrying later).
    pub fn is_busy(&self) -> bool {
        matches!(self, Self::Busy { .. })
    }

    /// Classifies a SQLite error met while working on `path`. `context` says
    /// what was being done ("opening", "reading receipts", ...).
    pub fn from_sqlite(path: &Path, context: &str, waited: Duration, err: rusqlite::Error) -> Self {
        let shown = show_path(path);
        let detail = one_line(&err.to_string());
        match err.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => Self::NotSqlite {
                path: shown,
                detail,
            },
            Some(ErrorCode::DatabaseCorrupt) => Self::Corrupt {
                path: shown,
                detail,
            },
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Self::Busy {
                path: shown,
                waited,
            },
            Some(ErrorCode::PermissionDenied | ErrorCode::AuthorizationForStatementDenied) => {
                Self::PermissionDenied {
                    path: shown,
                    detail,
                }
            }
            _ => Self::Other {
                path: shown,
                context: context.to_string(),
                detail,
            },
        }
    }

    /// Classifies an I/O error met while looking at `path` itself.
    pub fn from_io(path: &Path, context: &str, err: &std::io::Error) -> Self {
        let shown = show_path(path);
        match err.kind() {
            std::io::ErrorKind::NotFound => Self::NotFound { path: shown },
            std::io::ErrorKind::PermissionDenied => Self::PermissionDenied {
                path: shown,
                detail: one_line(&err.to_string()),
            },
            std::io::ErrorKind::IsADirectory => Self::IsDirectory { path: shown },
            _ => Self::Other {
                path: shown,
                context: context.to_string(),
                detail: one_line(&err.to_string()),
            },
        }
    }

    pub(crate) fn other(path: &Path, context: &str, detail: impl std::fmt::Display) -> Self {
        Self::Other {
            path: show_path(path),
            context: context.to_string(),
            detail: one_line(&detail.to_string()),
        }
    }
}

/// Why the review log could not be read or written (or a guarded decision
/// made). Its messages are those of the decision path: short, no file name;
/// in the language of the messages, as [`LogError::message`] says them.
#[derive(Debug)]
pub enum LogError {
    /// The engine failed; `failure` says how, `detail` is its message.
    Engine { failure: Failure, detail: String },
    /// A review log exists but was not made by this tool.
    Schema(String),
    /// A row that the table's checks should have made impossible.
    BadRow { id: i64, detail: String },
    /// Beginning a read failed (said as the storage says it).
    Storage(StorageError),
}

impl LogError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Engine { detail, .. } => t!(lang, "error.log.engine", detail = detail),
            Self::Schema(detail) => t!(lang, "error.log.schema", detail = detail),
            Self::BadRow { id, detail } => t!(lang, "error.log.bad_row", id = id, detail = detail),
            Self::Storage(e) => e.message(lang),
        }
    }
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(i18n::current()))
    }
}

/// Like `#[error(transparent)]`: a storage error is this error, not its cause.
impl std::error::Error for LogError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Storage(e) => std::error::Error::source(e),
            _ => None,
        }
    }
}

impl From<StorageError> for LogError {
    fn from(e: StorageError) -> Self {
        Self::Storage(e)
    }
}

/// How an engine failed, as far as someone deciding needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Another program holds the write lock (still, after the busy timeout).
    Busy,
    ReadOnly,
    /// The disk is full, or the database is at its size limit.
    Full,
    Other,
}

impl From<rusqlite::Error> for LogError {
    fn from(e: rusqlite::Error) -> Self {
        let failure = match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Failure::Busy,
            Some(ErrorCode::ReadOnly) => Failure::ReadOnly,
            Some(ErrorCode::DiskFull) => Failure::Full,
            _ => Failure::Other,
        };
        // A failed CHECK quotes its expression, line breaks and all.
        let text = e.to_string();
        let detail =
            crate::sanitize::inline(&text.split_whitespace().collect::<Vec<_>>().join(" "), 200);
        Self::Engine { failure, detail }
    }
}

/// A path as it may be shown on one terminal line.
pub fn show_path(path: &Path) -> String {
    crate::sanitize::clean(&path.display().to_string()).into_owned()
}

/// Any text made safe and kept to one line.
fn one_line(text: &str) -> String {
    crate::sanitize::inline(text.trim(), 200)
}

fn human_timeout(d: Duration, lang: Lang) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        t!(lang, "terms.duration.s", n = ms / 1000)
    } else {
        t!(lang, "terms.duration.ms", n = ms)
    }
}

/// What was being done when an error came (`StorageError::Other`'s
/// context), said in `lang`; a context not listed here is said as given.
pub fn doing_in(lang: Lang, context: &str) -> String {
    let key = match context {
        "opening" => "error.storage.doing.opening",
        "inspecting" => "error.storage.doing.inspecting",
        "reading" => "error.storage.doing.reading",
        "reading the schema" => "error.storage.doing.reading_schema",
        "starting a read" => "error.storage.doing.starting_read",
        "ending a read" => "error.storage.doing.ending_read",
        "init" => "error.storage.doing.init",
        "reading receipts" => "error.storage.doing.reading_receipts",
        "reading a payload" => "error.storage.doing.reading_payload",
        "reading a conflicting attempt" => "error.storage.doing.reading_attempt",
        "reading key_conflicts" => "error.storage.doing.reading_key_conflicts",
        "counting key_conflicts" => "error.storage.doing.counting_key_conflicts",
        "counting receipts" => "error.storage.doing.counting_receipts",
        "reading replays" => "error.storage.doing.reading_replays",
        "counting replays" => "error.storage.doing.counting_replays",
        "reading absorbed" => "error.storage.doing.reading_absorbed",
        "counting absorbed" => "error.storage.doing.counting_absorbed",
        "watching for changes" => "error.storage.doing.watching",
        _ => return context.to_string(),
    };
    i18n::text(lang, key).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line_and_name_the_file() {
        let p = Path::new("/tmp/x\nevil\x1b[2J.db");
        let errors = [
            StorageError::NotFound { path: show_path(p) },
            StorageError::Busy {
                path: show_path(p),
                waited: Duration::from_secs(5),
            },
            StorageError::other(p, "reading receipts", "line one\nline two"),
        ];
        for e in errors {
            let text = e.to_string();
            assert!(!text.contains('\n'), "{text}");
            assert!(!text.contains('\x1b'), "{text}");
            assert!(text.starts_with("/tmp/x\\nevil\\x1b[2J.db"), "{text}");
        }
    }

    #[test]
    fn busy_says_how_long_it_waited() {
        let e = StorageError::Busy {
            path: "a.db".into(),
            waited: Duration::from_millis(250),
        };
        assert_eq!(
            e.to_string(),
            "a.db: the database is locked by another process (still busy after 250 ms); try again later"
        );
        assert_eq!(e.exit_code(), 2);
        assert_eq!(StorageError::Empty { path: "a".into() }.exit_code(), 2);
        assert_eq!(
            e.message(Lang::Ja),
            "a.db: データベースは別のプロセスが使用中です（250ミリ秒待ちましたが空きません）。しばらくしてからやり直してください"
        );
    }

    #[test]
    fn every_message_names_the_file_in_both_languages() {
        let p = "a.db".to_string();
        let errors = [
            StorageError::NotFound { path: p.clone() },
            StorageError::IsDirectory { path: p.clone() },
            StorageError::NotSqlite {
                path: p.clone(),
                detail: "file is not a database".into(),
            },
            StorageError::Empty { path: p.clone() },
            StorageError::Corrupt {
                path: p.clone(),
                detail: "x".into(),
            },
            StorageError::NoReceipts { path: p.clone() },
            StorageError::MissingColumn {
                path: p.clone(),
                column: "payload",
            },
            StorageError::BadReceipts {
                path: p.clone(),
                detail: "x".into(),
            },
            StorageError::PermissionDenied {
                path: p.clone(),
                detail: "x".into(),
            },
            StorageError::InitRefused {
                path: p.clone(),
                reason: "x".into(),
            },
            StorageError::other(Path::new("a.db"), "reading receipts", "disk I/O error"),
        ];
        for e in &errors {
            for lang in Lang::ALL {
                let text = e.message(lang);
                assert!(text.starts_with("a.db"), "{text}");
                assert!(!text.contains('{'), "{text}");
            }
            assert_eq!(e.to_string(), e.message(Lang::En));
        }
        assert_eq!(
            errors[6].message(Lang::Ja),
            "a.db: receipts に `payload` 列がありません（必要な列: id, payload, created_at）"
        );
        assert_eq!(
            errors[10].message(Lang::Ja),
            "a.db: 受付の読み込み中にエラーが起きました: disk I/O error"
        );
        assert_eq!(
            errors[10].message(Lang::En),
            "a.db: reading receipts: disk I/O error"
        );
    }
}
