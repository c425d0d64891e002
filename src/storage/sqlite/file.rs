//! A look at the file itself before SQLite touches it.
//!
//! SQLite opens almost anything lazily and treats a 0-byte file as an empty
//! database, so the obvious mistakes (a missing path, a directory, an empty or
//! a text file) are recognised here, with plain file reads that change nothing.

use std::fs;
use std::io::Read;
use std::path::Path;

use crate::storage::error::{StorageError, show_path};

/// The first 16 bytes of every SQLite 3 database file.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HEADER_LEN: usize = 100;

/// What the file at a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file of 0 bytes.
    Empty,
    /// A regular file that starts with the SQLite header.
    Sqlite {
        /// The header says WAL mode (file format versions 2).
        wal: bool,
    },
}

/// Inspects `path` without changing anything. A missing path, a directory, a
/// file that cannot be read and a file that is not SQLite are errors.
pub fn inspect(path: &Path) -> Result<FileKind, StorageError> {
    let meta = fs::metadata(path).map_err(|e| StorageError::from_io(path, "inspecting", &e))?;
    if meta.is_dir() {
        return Err(StorageError::IsDirectory {
            path: show_path(path),
        });
    }
    if !meta.is_file() {
        return Err(StorageError::NotSqlite {
            path: show_path(path),
            detail: crate::t!(crate::i18n::current(), "error.storage.reason.not_a_file").into(),
        });
    }
    let mut file = fs::File::open(path).map_err(|e| StorageError::from_io(path, "reading", &e))?;
    if meta.len() == 0 {
        return Ok(FileKind::Empty);
    }
    let mut header = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut header)
        .map_err(|e| StorageError::from_io(path, "reading", &e))?;
    if header.is_empty() {
        return Ok(FileKind::Empty);
    }
    if header.len() < HEADER_LEN || &header[..16] != MAGIC {
        return Err(StorageError::NotSqlite {
            path: show_path(path),
            detail: crate::t!(crate::i18n::current(), "error.storage.reason.no_header").into(),
        });
    }
    Ok(FileKind::Sqlite {
        wal: header[18] == 2 && header[19] == 2,
    })
}

/// Why the file or its folder cannot be written, judged from permissions alone
/// (a file marked read-only is respected even by a user who could override it).
pub fn read_only_reason(path: &Path) -> Option<String> {
    if fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return Some(
            crate::t!(
                crate::i18n::current(),
                "error.storage.reason.file_read_only"
            )
            .into(),
        );
    }
    let folder = folder_of(path);
    if fs::metadata(&folder).is_ok_and(|m| m.permissions().readonly()) {
        return Some(
            crate::t!(
                crate::i18n::current(),
                "error.storage.reason.folder_read_only"
            )
            .into(),
        );
    }
    None
}

/// Whether a file can actually be created in the folder of `path` by this
/// process. Creates and removes one hidden probe file; used only when a
/// writable database in rollback-journal mode is wanted (its journal is
/// created beside it at every write).
pub fn folder_accepts_files(path: &Path) -> bool {
    let folder = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let probe = folder.join(format!(
        ".{name}.receipt-review-probe-{}",
        std::process::id()
    ));
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = fs::remove_file(&probe);
            true
        }
        // Only a refusal counts; anything else (a left-over probe) is no evidence.
        Err(e) => {
            e.kind() != std::io::ErrorKind::PermissionDenied
                && e.kind() != std::io::ErrorKind::ReadOnlyFilesystem
        }
    }
}

/// The folder holding `path` (`.` for a bare file name).
pub fn folder_of(path: &Path) -> std::path::PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_obvious() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.db");
        assert!(matches!(inspect(&p), Err(StorageError::NotFound { .. })));
        assert!(matches!(
            inspect(dir.path()),
            Err(StorageError::IsDirectory { .. })
        ));
        fs::write(&p, b"").unwrap();
        assert_eq!(inspect(&p).unwrap(), FileKind::Empty);
        fs::write(&p, b"id,payload\n1,{}\n").unwrap();
        assert!(matches!(inspect(&p), Err(StorageError::NotSqlite { .. })));
        let mut header = MAGIC.to_vec();
        header.resize(100, 1);
        header[18] = 2;
        header[19] = 2;
        fs::write(&p, &header).unwrap();
        assert_eq!(inspect(&p).unwrap(), FileKind::Sqlite { wal: true });
    }

    #[test]
    fn probing_the_folder_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.db");
        assert!(folder_accepts_files(&p));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(folder_of(Path::new("x.db")), Path::new("."));
    }
}
