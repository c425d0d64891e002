//! A full reading of the receipts into facts, on every core: each thread reads
//! a range of rowids on a connection of its own ([`storage::split`]) and
//! inspects each row as it reads it, straight from SQLite's buffers. The
//! parts are appended in rowid order, so the facts are those of a reading on
//! one connection (see the tests).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::storage::split::{Helpers, Range};
use crate::storage::stream::{self, Origin};
use crate::storage::{Database, StorageError};
use rusqlite::Connection;

use crate::model::ReceiptId;
use crate::snapshot::Compact;
use crate::triage::model::Receipt;
use crate::triage::{Ingest, Inspector, Part, Scratch, Store};

/// Rows per batch of a reading again; rows between reports of progress.
const BATCH_ROWS: usize = 256;

/// How many helper connections to open: one per core besides the main one.
pub fn helpers_wanted() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        - 1
}

/// Reads every receipt into `store` with the main connection and the helpers
/// (see [`Helpers::open`]); `None` when they cannot be used (the caller then
/// reads on the main connection alone). `progress` hears the rows read so far.
/// Gives back the helpers, still in their read transactions, for
/// [`reread_split`].
pub fn read_split(
    db: &Database,
    helpers: Helpers,
    inspector: &Inspector,
    store: &mut Store,
    progress: &mut dyn FnMut(u64),
) -> Option<Result<Vec<Connection>, StorageError>> {
    let (conns, ranges, each) = helpers.split(db)?;
    // Facts sized once (rowids may have gaps: then this is too much).
    let rows_hint = each.min(1 << 22) as usize;
    let origin = Origin::of(db);
    let columns = &db.source().columns;
    let ingest = Ingest::begin(store, inspector);
    let done = AtomicU64::new(0);
    // Each thread: its range, read and inspected batch by batch.
    let work = |conn: &Connection, range: Range, each: &mut dyn FnMut(u64)| {
        let mut part = Part::with_capacity(rows_hint);
        let mut scratch = Scratch::keeping_normals();
        let mut since = 0u64;
        let mut tell = |n: u64| each(done.fetch_add(n, Ordering::Relaxed) + n);
        let read = stream::each_rowid(conn, origin, columns, range, &mut |row| {
            ingest.inspect_row(&mut part, row, &mut scratch);
            since += 1;
            if since == BATCH_ROWS as u64 {
                tell(std::mem::take(&mut since));
            }
        });
        if since > 0 {
            tell(since);
        }
        read.map(|_| part)
    };
    let mut kept = Vec::with_capacity(conns.len());
    let parts: Result<Vec<Part>, StorageError> = std::thread::scope(|scope| {
        let work = &work;
        let threads: Vec<_> = conns
            .into_iter()
            .zip(ranges[1..].iter().copied())
            .map(|(conn, range)| scope.spawn(move || (work(&conn, range, &mut |_| {}), conn)))
            .collect();
        let first = work(db.conn(), ranges[0], progress);
        let rest = threads.into_iter().map(|t| match t.join() {
            Ok((part, conn)) => {
                kept.push(conn);
                part
            }
            Err(panic) => std::panic::resume_unwind(panic),
        });
        std::iter::once(first).chain(rest).collect()
    });
    let parts = match parts {
        Ok(parts) => parts,
        Err(e) => {
            ingest.finish(store, []);
            return Some(Err(e));
        }
    };
    ingest.finish(store, parts);
    Some(Ok(kept))
}

/// The receipts at these indices of `store` (ascending), read again and
/// inspected in full, each connection (the main one, then the helpers that
/// [`read_split`] gave back) a share of them in order; of every good one that
/// still matches an index, `each` hears what `keep` takes of it (on the
/// thread that read it), in index order. What [`reread_each`] does on the
/// main connection alone. Gives the helpers back, still in their read
/// transactions, for [`read_compact_split`].
///
/// [`reread_each`]: crate::snapshot::reread_each
pub fn reread_split<T: Send>(
    db: &Database,
    helpers: Vec<Connection>,
    inspector: &Inspector,
    store: &Store,
    indices: &[u32],
    keep: &(dyn Fn(u32, Receipt) -> T + Sync),
    each: &mut dyn FnMut(u32, T),
) -> Result<Vec<Connection>, StorageError> {
    let ids: Vec<ReceiptId> = indices
        .iter()
        .map(|&i| store.receipts[i as usize].id)
        .collect();
    let share = ids.len().div_ceil(helpers.len() + 1).max(1);
    let mut shares = ids.chunks(share);
    let origin = Origin::of(db);
    let columns = &db.source().columns;
    let work = |conn: &Connection, ids: &[ReceiptId], each: &mut dyn FnMut(u32, T)| {
        let (mut scratch, mut buf) = (Scratch::default(), String::new());
        stream::read_ids_on(conn, origin, columns, ids, BATCH_ROWS, &mut |b| {
            for i in 0..b.len() {
                if let Ok(r) = inspector.receipt(&b.row(i, &mut buf), &mut scratch)
                    && let Some(index) = store.index_of(r.id)
                {
                    each(index, keep(index, r));
                }
            }
            b
        })
    };
    let first = shares.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let work = &work;
        // The helpers' receipts wait for the main share to be handed over.
        let threads: Vec<_> = helpers
            .into_iter()
            .zip(shares.chain(std::iter::repeat(&[][..])))
            .map(|(conn, ids)| {
                scope.spawn(move || {
                    let mut found = Vec::new();
                    let read = work(&conn, ids, &mut |index, r| found.push((index, r)));
                    (read.map(|_| found), conn)
                })
            })
            .collect();
        let read = work(db.conn(), first, each);
        let mut kept = Vec::with_capacity(threads.len());
        let mut failed = read.err();
        for t in threads {
            let (found, conn) = t
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            kept.push(conn);
            match found {
                Ok(found) if failed.is_none() => {
                    for (index, r) in found {
                        each(index, r);
                    }
                }
                Ok(_) => {}
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        failed.map_or(Ok(kept), Err)
    })
}

/// What the reading that checked a receipt whole knew of it: its
/// fingerprint with its keyed check (equal for exact copies, which have the
/// same visitor fields), and whether a honeypot field was filled.
pub type Fingerprint = ((u64, u32), bool);

/// The good receipts with these ids (ascending), read and made compact, each
/// connection (the main one, then the helpers) a share of them in order, every
/// row inspected on the thread that read it; `progress` hears how many rows
/// were read so far.
///
/// `known` gives the [`Fingerprint`] of a receipt checked whole in the same
/// read transaction (all connections in it): an exact copy of a receipt
/// read before it in its share takes that one's fields, and its payload is
/// not checked again.
pub fn read_compact_split(
    db: &Database,
    helpers: Vec<Connection>,
    inspector: &Inspector,
    ids: &[ReceiptId],
    known: &(dyn Fn(ReceiptId) -> Option<Fingerprint> + Sync),
    progress: &mut dyn FnMut(u64),
) -> Result<Compact, StorageError> {
    let share = ids.len().div_ceil(helpers.len() + 1).max(1);
    let mut shares = ids.chunks(share);
    let origin = Origin::of(db);
    let columns = &db.source().columns;
    let done = AtomicU64::new(0);
    let work = |conn: &Connection, ids: &[ReceiptId], each: &mut dyn FnMut(u64)| {
        let mut compact = Compact::for_receipts(ids.len());
        let (mut scratch, mut buf) = (Scratch::keeping_normals(), String::new());
        // The first receipt of each fingerprint read whole in this share.
        let mut first_of: HashMap<(u64, u32), ReceiptId> = HashMap::new();
        let read = stream::read_ids_on(conn, origin, columns, ids, BATCH_ROWS, &mut |b| {
            for i in 0..b.len() {
                let row = b.row(i, &mut buf);
                let fingerprint = known(row.id);
                if let Some((print, honeypot)) = fingerprint
                    && let Some(&of) = first_of.get(&print)
                    && let Some(meta) = Inspector::row_meta(&row)
                    && compact.push_copy(&meta, honeypot, of)
                {
                    continue;
                }
                if let Ok(r) = inspector.receipt_ref(&row, &mut scratch) {
                    compact.push(&r);
                    if let Some((print, _)) = fingerprint {
                        first_of.entry(print).or_insert(r.meta.id);
                    }
                }
            }
            each(done.fetch_add(b.len() as u64, Ordering::Relaxed) + b.len() as u64);
            b
        });
        read.map(|_| compact)
    };
    let first = shares.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let work = &work;
        let threads: Vec<_> = helpers
            .into_iter()
            .zip(shares)
            .map(|(conn, ids)| scope.spawn(move || work(&conn, ids, &mut |_| {})))
            .collect();
        let mut all = work(db.conn(), first, progress);
        for t in threads {
            let later = t
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            all = all.and_then(|mut all| {
                all.append(later?);
                Ok(all)
            });
        }
        // The helpers' last rows, read after the main share was done.
        progress(done.load(Ordering::Relaxed));
        all
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{DemoOptions, generate};
    use crate::model::Settings;
    use crate::storage::Access;
    use crate::triage::Details;

    const NOW: i64 = 1_795_947_330_000;

    /// A demo database, with damaged rows far above the others so that the
    /// rowid range is wide enough to split.
    fn database(dir: &tempfile::TempDir) -> std::path::PathBuf {
        let path = dir.path().join("r.db");
        let opts = DemoOptions {
            receipts: 3000,
            seed: 7,
            now_ms: NOW,
        };
        generate(&path, &opts).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let insert = "INSERT INTO receipts (id, scope, digest, payload, created_at) \
                      VALUES (?1, 's', 'x', ?2, ?3)";
        conn.execute(
            insert,
            rusqlite::params![40_000, vec![0xffu8, 0xfe], "2026-11-29 10:00:00"],
        )
        .unwrap();
        conn.execute(
            insert,
            rusqlite::params![50_000, "{\"a\":\"b\"}", "yesterday"],
        )
        .unwrap();
        conn.execute(
            insert,
            rusqlite::params![60_000, "[1]", "2026-11-29 10:00:00"],
        )
        .unwrap();
        path
    }

    /// What a store says of each row, with names in place of interned ids
    /// (which depend on which thread met a name first).
    fn facts(store: &Store) -> Vec<String> {
        let mut out: Vec<String> = store
            .receipts
            .iter()
            .map(|r| {
                let fields: Vec<_> = store
                    .fields_of(r)
                    .iter()
                    .map(|f| (store.keys.name(f.key()), f.value(), f.check(), f.tokens()))
                    .collect();
                let r2 = crate::triage::facts::ReceiptFact {
                    fields: 0,
                    scope: 0,
                    ..*r
                };
                format!("{r2:?} {} {fields:?}", store.scopes.name(r.scope))
            })
            .collect();
        out.extend(store.damaged.iter().map(|d| format!("{d:?}")));
        out.extend(store.damaged_rows.iter().map(|d| format!("{d:?}")));
        let mut keys: Vec<_> = store.request_keys.iter().collect();
        keys.sort();
        out.push(format!("{keys:?}"));
        out
    }

    /// Reads with the helpers or without; `like` gives the key of the checks.
    fn read(db: &Database, split: bool, like: Option<&Store>) -> Store {
        let settings = Settings::new(NOW);
        let helpers = split.then(|| Helpers::open(db, 1).expect("helpers"));
        let tx = db.conn().unchecked_transaction().unwrap();
        let conflicts = crate::storage::load_conflict_rows(db, None, false).unwrap();
        let mut store = Store::new();
        if let Some(other) = like {
            store.random = other.random;
        }
        store.capture =
            crate::triage::facts::Capture::new(&conflicts, NOW, settings.stuck_after_ms);
        let inspector = Inspector::new(&settings, store.random);
        match helpers {
            Some(h) => read_split(db, h, &inspector, &mut store, &mut |_| {})
                .expect("split")
                .map(drop)
                .unwrap(),
            None => crate::snapshot::read_facts(db, &inspector, &mut store, None, &mut |_| {})
                .map(drop)
                .unwrap(),
        };
        tx.commit().unwrap();
        store.finish();
        store
    }

    #[test]
    fn a_split_reading_gives_the_facts_of_one_reading() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(database(&dir), Access::ReadOnly).unwrap();
        let one = read(&db, false, None);
        let split = read(&db, true, Some(&one));
        assert_eq!(split.rows(), 3003);
        assert_eq!(split.damaged.len(), one.damaged.len());
        assert!(one.damaged.len() >= 3);
        assert_eq!(facts(&split), facts(&one));
    }

    #[test]
    fn a_split_reading_again_gives_the_receipts_of_one_reading_again() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(database(&dir), Access::ReadOnly).unwrap();
        let store = read(&db, false, None);
        let inspector = Inspector::new(&Settings::new(NOW), store.random);
        // Every third receipt: a share for each connection.
        let indices: Vec<u32> = (0..store.receipts.len() as u32).step_by(3).collect();
        let (conns, tx) = one_helper(&db);
        let split = reread_kept(&db, conns, &inspector, &store, &indices, &|_, r| r);
        let one = crate::snapshot::reread(&db, &inspector, &store, &indices).unwrap();
        tx.commit().unwrap();
        assert!(one.len() > 900);
        assert_eq!(split, one);
        // No helpers: the main connection reads them all.
        let alone = reread_kept(&db, Vec::new(), &inspector, &store, &indices, &|_, r| r);
        assert_eq!(alone, one);
    }

    /// One helper connection, in the read transaction begun on the main one.
    fn one_helper(db: &Database) -> (Vec<Connection>, rusqlite::Transaction<'_>) {
        let helpers = Helpers::open(db, 1).expect("helpers");
        let tx = db.conn().unchecked_transaction().unwrap();
        let (conns, _, _) = helpers.split(db).expect("split");
        (conns, tx)
    }

    /// What [`reread_split`] hands over, in order.
    fn reread_kept<T: Send>(
        db: &Database,
        conns: Vec<Connection>,
        inspector: &Inspector,
        store: &Store,
        indices: &[u32],
        keep: &(dyn Fn(u32, Receipt) -> T + Sync),
    ) -> Vec<(u32, T)> {
        let mut kept = Vec::new();
        reread_split(db, conns, inspector, store, indices, keep, &mut |i, t| {
            kept.push((i, t))
        })
        .unwrap();
        kept
    }

    #[test]
    fn what_a_split_reading_again_takes_of_each_receipt_is_what_one_reading_supplies() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(database(&dir), Access::ReadOnly).unwrap();
        let store = read(&db, false, None);
        let settings = Settings::new(NOW);
        let inspector = Inspector::new(&settings, store.random);
        let conflicts = crate::storage::load_conflict_rows(&db, None, false).unwrap();
        let needs = crate::triage::needs(&store, &conflicts, &settings);
        let indices = needs.indices();
        assert!(indices.len() > 10, "{}", indices.len());
        let (conns, tx) = one_helper(&db);
        let mut split = Details::new(&store);
        let take = |i, r: Receipt| Details::supplied(&store, &needs, i, &r);
        for (i, supplied) in reread_kept(&db, conns, &inspector, &store, &indices, &take) {
            split.put(i, supplied);
        }
        let mut one = Details::new(&store);
        for (i, r) in crate::snapshot::reread(&db, &inspector, &store, &indices).unwrap() {
            one.supply(&store, &needs, i, &r);
        }
        tx.commit().unwrap();
        assert!(!one.texts.is_empty());
        assert_eq!(split, one);
    }

    #[test]
    fn a_compact_split_reading_gives_the_receipts_of_one_reading() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(database(&dir), Access::ReadOnly).unwrap();
        let store = read(&db, false, None);
        let inspector = Inspector::new(&Settings::new(NOW), store.random);
        // Every receipt: the exact copies among them take their fields from
        // the copy read before them (when told their fingerprints).
        let indices: Vec<u32> = (0..store.receipts.len() as u32).collect();
        // Besides good receipts: a damaged row and an id no row has.
        let mut ids: Vec<ReceiptId> = indices
            .iter()
            .map(|&i| store.receipts[i as usize].id)
            .chain([40_000, 45_000])
            .collect();
        ids.sort_unstable();
        let helpers = Helpers::open(&db, 1).expect("helpers");
        let tx = db.conn().unchecked_transaction().unwrap();
        let one: Vec<Receipt> = crate::snapshot::reread(&db, &inspector, &store, &indices)
            .unwrap()
            .into_iter()
            // The items' receipts keep no digest (no screen shows it).
            .map(|(_, r)| Receipt {
                digest: String::new(),
                ..r
            })
            .collect();
        assert!(one.len() > 2900);
        let fingerprint = |id| {
            let r = &store.receipts[store.index_of(id)? as usize];
            Some(((r.fingerprint, r.fp_check), r.honeypot_filled()))
        };
        let unknown = |_| None;
        let compact = |helpers: Vec<Connection>, known: &(dyn Fn(_) -> _ + Sync)| {
            let (mut seen, mut told) = (0, 0);
            let read = read_compact_split(&db, helpers, &inspector, &ids, known, &mut |n| {
                assert!(n >= seen, "progress never goes back");
                seen = n;
                told += 1;
            })
            .unwrap();
            assert_eq!(seen, ids.len() as u64 - 1, "every row read is told");
            assert!(told > 1);
            let copies = read.copies();
            let receipts = crate::snapshot::Receipts::default()
                .next_compact(&ids, &ids, read)
                .to_vec();
            (receipts, copies)
        };
        let (conns, _, _) = helpers.split(&db).expect("split");
        let (split, copies) = compact(conns, &fingerprint);
        assert_eq!(split, one);
        assert!(copies > 200, "{copies} exact copies");
        let (alone, copies) = compact(Vec::new(), &fingerprint);
        assert_eq!(alone, one);
        assert!(copies > 200, "{copies} exact copies");
        assert_eq!(compact(Vec::new(), &unknown), (one, 0));
        tx.commit().unwrap();
    }

    #[test]
    fn a_commit_before_the_main_reading_starts_means_reading_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = database(&dir);
        let db = Database::open(&path, Access::ReadOnly).unwrap();
        let helpers = Helpers::open(&db, 1).expect("helpers");
        let writer = rusqlite::Connection::open(&path).unwrap();
        writer
            .execute("UPDATE receipts SET state = 'failed' WHERE id = 1", [])
            .unwrap();
        let tx = db.conn().unchecked_transaction().unwrap();
        assert!(helpers.split(&db).is_none());
        tx.commit().unwrap();
        // Nothing committed in between: the split goes ahead.
        let helpers = Helpers::open(&db, 1).expect("helpers");
        let tx = db.conn().unchecked_transaction().unwrap();
        let (conns, ranges, _) = helpers.split(&db).expect("split");
        assert_eq!((conns.len(), ranges.len()), (1, 2));
        tx.commit().unwrap();
    }
}
