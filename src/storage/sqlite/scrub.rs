//! After an erasure: the WAL copied into the database file and cut to
//! nothing. The erasing transaction ran with `secure_delete`, so the pages
//! it wrote hold zeros where the erased values were; the checkpoint puts
//! those pages over the old ones in the file, and the truncation drops every
//! older page image the WAL still held.

use rusqlite::Connection;

use crate::storage::backend::Scrubbed;

/// `PRAGMA wal_checkpoint(TRUNCATE)`: it waits (the busy timeout) for the
/// readers still on an older snapshot; a reader that stays, or a database
/// not in WAL mode (nothing to do), is said as it is.
pub fn truncate_wal(conn: &Connection) -> rusqlite::Result<Scrubbed> {
    let (busy, wal_pages, copied): (i64, i64, i64) =
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?;
    Ok(if busy == 0 && copied >= wal_pages {
        Scrubbed::Done
    } else {
        Scrubbed::NotNow(crate::t!(
            crate::i18n::current(),
            "erase.scrub.readers",
            copied = copied.max(0),
            pages = wal_pages.max(0)
        ))
    })
}
