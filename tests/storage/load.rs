//! Reading receipts through the storage boundary: legacy views, every time
//! format, defaults, faithful values, receipts read by id, conflicts and
//! replays, a short read, and what `check` says about the schema.

use crate::support;

use receipt_review::model::time::parse_time;
use receipt_review::model::{RawReceipt, TimeValue};
use receipt_review::storage::{self, Access, Connections, Related};
use rusqlite::Connection;
use support::{create, load, open, receipts_db};

/// 2026-11-29T10:15:30.123Z
const T: i64 = 1_795_947_330_123;

#[test]
fn a_legacy_table_works_through_a_view_with_every_time_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.db");
    // `opened` has no type affinity, so each value keeps the type it was given.
    create(&path)
        .execute_batch(
            "CREATE TABLE tickets (ticket_no INTEGER PRIMARY KEY, site TEXT, body TEXT, opened);
             INSERT INTO tickets VALUES
               (1, 'shop', '{\"a\":1}', '2026-11-29T10:15:30.123Z'),
               (2, 'shop', '{\"a\":2}', '2026-11-29T19:15:30.123+09:00'),
               (3, NULL,   '{\"a\":3}', '2026-11-29 10:15:30.123'),
               (4, 'shop', '{\"a\":4}', 1795947330),
               (5, 'shop', '{\"a\":5}', 1795947330123),
               (6, 'shop', '{\"a\":6}', 1795947330.123);
             CREATE VIEW receipts AS
               SELECT ticket_no AS id, site AS scope, body AS payload, opened AS created_at
               FROM tickets ORDER BY ticket_no DESC;",
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    assert!(db.source().is_view());
    let loaded = load(&*db).unwrap();
    let r = &loaded.receipts;
    // Every row, though the view returns them the other way round.
    assert_eq!(
        r.iter().map(|r| r.id).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(
        r[0].created_at,
        TimeValue::Text("2026-11-29T10:15:30.123Z".into())
    );
    assert_eq!(
        r[2].created_at,
        TimeValue::Text("2026-11-29 10:15:30.123".into())
    );
    assert_eq!(r[3].created_at, TimeValue::Integer(1_795_947_330));
    assert_eq!(r[4].created_at, TimeValue::Integer(T));
    assert_eq!(r[5].created_at, TimeValue::Real(1_795_947_330.123));
    let expected = [T, T, T, T - 123, T, T];
    for (receipt, want) in r.iter().zip(expected) {
        assert_eq!(parse_time(&receipt.created_at), Ok(want), "{receipt:?}");
    }
    // Missing optional columns get their defaults; a NULL scope is ''.
    for receipt in r {
        assert_eq!(receipt.request_key, None);
        assert_eq!(receipt.digest, None);
        assert_eq!(receipt.state, "completed");
        assert_eq!(receipt.updated_at, TimeValue::Null);
        assert!(receipt.payload.is_ok());
    }
    assert_eq!(r[0].scope, "shop");
    assert_eq!(r[2].scope, "");
    assert!(loaded.conflicts.is_empty());
    assert!(loaded.replays.is_empty());
    assert_eq!(loaded.replay_total, 0);
}

#[test]
fn integer_times_in_an_integer_column_load_as_integers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ms.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE events (n INTEGER PRIMARY KEY, data BLOB, at_ms INTEGER, at_s INTEGER,
                                  status TEXT, key TEXT);
             INSERT INTO events VALUES (10, CAST('{\"x\":1}' AS BLOB), 1795947330123, 1795947330,
                                        'in_flight', 'k-10');
             CREATE VIEW receipts AS
               SELECT n AS ID, data AS Payload, at_ms AS created_at, at_s AS updated_at,
                      status AS state, key AS request_key FROM events;",
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    assert!(db.source().columns.state && db.source().columns.request_key);
    let r = &load(&*db).unwrap().receipts[0];
    assert_eq!(r.id, 10);
    assert_eq!(r.payload, Ok("{\"x\":1}".to_string()));
    assert_eq!(r.created_at, TimeValue::Integer(T));
    assert_eq!(r.updated_at, TimeValue::Integer(1_795_947_330));
    assert_eq!(r.state, "in_flight");
    assert_eq!(r.request_key.as_deref(), Some("k-10"));
}

#[test]
fn odd_values_are_kept_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.db");
    // A receipts table without the contract's constraints, as a careless intake made it.
    let conn = create(&path);
    conn.execute_batch(
        "CREATE TABLE receipts (id INTEGER PRIMARY KEY, scope, request_key, digest, payload,
                                state, response, created_at, updated_at, extra_column);",
    )
    .unwrap();
    let mut insert = conn
        .prepare("INSERT INTO receipts (id, scope, digest, payload, state, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .unwrap();
    use rusqlite::types::Value;
    let t = |s: &str| Value::Text(s.to_string());
    let rows: Vec<[Value; 6]> = vec![
        [
            1.into(),
            Value::Null,
            t("d1"),
            Value::Blob(b"{\"ok\":true}".to_vec()),
            t("completed"),
            t("2026-11-29 10:15:30"),
        ],
        [
            2.into(),
            t("s"),
            t("d2"),
            Value::Blob(vec![0xff, 0xfe, 0x00]),
            t("completed"),
            t("2026-11-29 10:15:30"),
        ],
        [
            3.into(),
            t("s"),
            t("d3"),
            Value::Null,
            t("completed"),
            t("2026-11-29 10:15:30"),
        ],
        [
            4.into(),
            t("s"),
            Value::Null,
            42.into(),
            Value::Null,
            Value::Null,
        ],
        [
            5.into(),
            7.into(),
            t("d5"),
            t("{}"),
            t("failed"),
            Value::Blob(vec![0xff]),
        ],
        [
            6.into(),
            t("s"),
            t("d6"),
            t("{}"),
            t("completed"),
            Value::Real(1_795_947_330.5),
        ],
    ];
    for row in &rows {
        insert
            .execute(rusqlite::params_from_iter(row.iter()))
            .unwrap();
    }
    drop(insert);
    drop(conn);
    let db = open(&path, Access::ReadOnly).unwrap();
    let r = load(&*db).unwrap().receipts;
    assert_eq!(r.len(), 6, "every row is kept");
    assert_eq!(r[0].scope, "");
    assert_eq!(r[0].payload, Ok("{\"ok\":true}".into()));
    assert!(
        r[1].payload
            .as_ref()
            .unwrap_err()
            .contains("BLOB of 3 bytes"),
        "{:?}",
        r[1].payload
    );
    assert_eq!(r[2].payload, Err("payload is NULL".into()));
    assert!(r[3].payload.is_err());
    assert_eq!(r[3].digest, None);
    assert_eq!(r[3].state, "", "a NULL state stays visible, not defaulted");
    assert_eq!(r[3].created_at, TimeValue::Null);
    assert_eq!(r[4].scope, "7");
    assert!(matches!(r[4].created_at, TimeValue::Other(_)));
    assert_eq!(r[5].created_at, TimeValue::Real(1_795_947_330.5));
    assert_eq!(r[0].digest.as_deref(), Some("d1"));
}

#[test]
fn a_non_integer_id_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE t (ref TEXT, body TEXT, at TEXT);
             INSERT INTO t VALUES ('A-17', '{}', '2026-01-01 00:00:00');
             CREATE VIEW receipts AS SELECT ref AS id, body AS payload, at AS created_at FROM t;",
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    let err = load(&*db).unwrap_err();
    let text = support::one_line(&err, &path);
    assert!(text.contains("\"A-17\", not an integer"), "{text}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn ids_in_a_row_are_read_as_the_rows_each_id_finds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("untyped.db");
    // No column types: ids keep whatever type they were written with, and
    // an id may be there twice.
    let mut rows: Vec<String> = (1..=30)
        .filter(|i| ![6, 7, 20].contains(i))
        .map(|i| format!("({i}, '{{\"n\":{i}}}', '2026-01-01 00:00:00')"))
        .collect();
    rows.extend(
        [
            "(6.0, '{\"n\":\"six\"}', '2026-01-01 00:00:00')",
            "(5.5, '{}', '2026-01-01 00:00:00')",
            "('7', '{}', '2026-01-01 00:00:00')",
            "(12, '{\"n\":\"twelve again\"}', '2026-01-01 00:00:00')",
        ]
        .map(String::from),
    );
    create(&path)
        .execute_batch(&format!(
            "CREATE TABLE receipts (id, payload, created_at);
             INSERT INTO receipts VALUES {};",
            rows.join(", ")
        ))
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    let read = |ids: &[i64]| {
        let mut session = db.begin_read(Connections::One).unwrap();
        let mut rows: Vec<RawReceipt> = Vec::new();
        let n = session
            .receipts_by_id(ids, &mut [&mut rows], &mut |_| {})
            .unwrap();
        session.end().unwrap();
        assert_eq!(n, rows.len() as u64);
        let mut got: Vec<(i64, String)> = rows
            .iter()
            .map(|r| (r.id, format!("{:?}", r.payload)))
            .collect();
        got.sort();
        got
    };
    let one_by_one = |ids: &[i64]| {
        let mut all: Vec<(i64, String)> = ids.iter().flat_map(|&id| read(&[id])).collect();
        all.sort();
        all
    };
    // In a row, close together with gaps, asked twice, far apart.
    let lists: [Vec<i64>; 4] = [
        (1..=25).chain([27, 40]).collect(),
        (1..=29).step_by(3).collect(),
        vec![2, 4, 6, 6, 8, 10, 12, 12, 14, 16, 18, 30],
        vec![1, 12, 29],
    ];
    for ids in &lists {
        assert_eq!(read(ids), one_by_one(ids), "{ids:?}");
    }
    let ids = &lists[0];
    let one_by_one: Vec<(i64, String)> = ids.iter().flat_map(|&id| read(&[id])).collect();
    // 6.0 is found as 6; 5.5, '7', 20 and 40 are not there; 12 is there twice.
    let found: Vec<i64> = one_by_one.iter().map(|r| r.0).collect();
    assert!(found.contains(&6) && !found.contains(&7) && !found.contains(&20));
    assert_eq!(found.iter().filter(|&&id| id == 12).count(), 2);
    assert_eq!(found.len(), 25 - 2 + 1 + 1);
}

#[test]
fn conflicts_and_replays_are_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "full.db", 3);
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "INSERT INTO key_conflicts (id, receipt_id, digest, payload, received_at) VALUES
               (2, 1, 'other', '{\"message\":\"changed\"}', '2026-11-29T10:20:00Z'),
               (1, 3, 'x', '{}', 1795947330);
             INSERT INTO replays (receipt_id, received_at) VALUES
               (1, '2026-11-29T10:00:01Z'), (1, '2026-11-29T10:00:02Z'), (2, '2026-11-29T10:00:03Z');",
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    let loaded = load(&*db).unwrap();
    assert_eq!(loaded.receipts.len(), 3);
    let r = &loaded.receipts[0];
    assert_eq!(r.scope, "site-a");
    assert_eq!(r.request_key.as_deref(), Some("key-1"));
    assert_eq!(r.digest.as_deref(), Some(format!("{:064x}", 1).as_str()));
    assert_eq!(loaded.conflicts.len(), 2);
    assert_eq!(loaded.conflicts[0].id, 1);
    // TEXT affinity stored the number as text; it is handed over as stored.
    assert_eq!(
        loaded.conflicts[0].received_at,
        TimeValue::Text("1795947330".into())
    );
    assert_eq!(loaded.conflicts[1].receipt_id, 1);
    assert_eq!(loaded.conflicts[1].payload, "{\"message\":\"changed\"}");
    assert_eq!(loaded.replays.get(&1), Some(&2));
    assert_eq!(loaded.replays.get(&2), Some(&1));
    assert_eq!(loaded.replays.get(&3), None);
    assert_eq!(loaded.replay_total, 3);
}

#[test]
fn receipt_payload_reads_one_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "p.db", 2);
    let db = open(&path, Access::ReadOnly).unwrap();
    assert_eq!(
        db.receipt_payload(2).unwrap().as_deref(),
        Some("{\"message\":\"hello number 2\",\"name\":\"Visitor 2\"}")
    );
    assert_eq!(db.receipt_payload(99).unwrap(), None);
}

#[test]
fn a_read_holds_no_read_transaction_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "live.db", 20);
    let intake = Connection::open(&path).unwrap();
    intake.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    intake
        .execute(
            "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
             VALUES ('s', 'later', 'd', '{}', '2026-01-01 00:00:00')",
            [],
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    assert_eq!(load(&*db).unwrap().receipts.len(), 21);
    // The read ended with its session: the intake can checkpoint the whole
    // WAL while the tool stays open.
    let (busy, _, _): (i64, i64, i64) = intake
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(busy, 0, "a reader still holds the WAL");
    assert_eq!(load(&*db).unwrap().receipts.len(), 21);
}

#[test]
fn schema_check_of_a_database_made_by_init_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "clean.db", 1);
    let db = open(&path, Access::ReadOnly).unwrap();
    assert_eq!(db.schema_problems(), Vec::<String>::new());
    // (The notes, which `check` does not print, are checked beside the code.)
}

#[test]
fn schema_check_finds_a_missing_unique_key_and_unusable_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("loose.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE receipts (id INTEGER PRIMARY KEY, scope TEXT, request_key TEXT,
                                    payload TEXT, created_at TEXT, notes TEXT);
             CREATE UNIQUE INDEX partial_key ON receipts(scope, request_key) WHERE id > 10;
             CREATE TABLE key_conflicts (id INTEGER PRIMARY KEY, payload TEXT);",
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    assert_eq!(
        db.source().key_conflicts,
        Related::Unusable {
            kind: storage::RelationKind::Table,
            missing: vec!["receipt_id", "digest", "received_at"]
        }
    );
    let problems = db.schema_problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("UNIQUE(scope, request_key)"));
    assert!(
        problems[1].contains(
            "key_conflicts is a table without the columns receipt_id, digest, received_at"
        )
    );
    // The unusable table is not read; reading still works.
    assert!(load(&*db).unwrap().conflicts.is_empty());

    let keyed = dir.path().join("keyed.db");
    create(&keyed)
        .execute_batch(
            "CREATE TABLE receipts (id INTEGER PRIMARY KEY, scope TEXT, request_key TEXT,
                                    payload TEXT, created_at TEXT, UNIQUE(request_key, scope));",
        )
        .unwrap();
    let db = open(&keyed, Access::ReadOnly).unwrap();
    assert!(db.schema_problems().is_empty());
}

#[test]
fn schema_check_of_a_view() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE t (n INTEGER, body TEXT, at TEXT);
             CREATE VIEW receipts AS SELECT n AS id, body AS payload, at AS created_at FROM t;",
        )
        .unwrap();
    let db = open(&path, Access::ReadOnly).unwrap();
    assert!(db.schema_problems().is_empty(), "a view needs no UNIQUE");
}
