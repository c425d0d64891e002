//! `report --json` on PostgreSQL is byte for byte SQLite's on the same rows:
//! a demo's rows copied across, and a legacy table's rows behind a view
//! whose time column is each of PostgreSQL's time types in turn.

use std::collections::BTreeSet;
use std::path::Path;

use postgres::GenericClient;
use receipt_review::intake::canonical::canonical_text;
use receipt_review::model::time::{format_rfc3339, read_text};
use rusqlite::Connection;
use rusqlite::types::Value;

use crate::common::pg::{pg_database, why};
use crate::support::{NOW, NOW_MS, run};

/// `report --json --now NOW` of `db`'s stdout.
fn report(db: &str) -> String {
    let ran = run(&["report", db, "--json", "--now", NOW]);
    assert_eq!(ran.code, Some(0), "report --json {db}: {}", ran.said());
    ran.stdout
}

/// Fails with a short diff unless the two reports are the same bytes.
fn assert_same_report(sqlite: &str, postgres: &str, case: &str) {
    if sqlite == postgres {
        return;
    }
    let diff = similar::TextDiff::from_lines(sqlite, postgres);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("sqlite", "postgres")
        .to_string();
    let short: Vec<&str> = text.lines().take(80).collect();
    panic!(
        "{case}: report --json differs between SQLite and PostgreSQL \
         ({} and {} bytes):\n{}",
        sqlite.len(),
        postgres.len(),
        short.join("\n")
    );
}

/// A time as stored, when it reads as one (the form a `timestamptz` column
/// can hold); `None` for NULL.
fn readable(value: &Value) -> Option<bool> {
    match value {
        Value::Null => None,
        Value::Text(text) => Some(read_text(text).is_ok()),
        _ => Some(false),
    }
}

fn text(value: Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Text(t) => Some(t),
        Value::Integer(n) => Some(n.to_string()),
        Value::Real(x) => Some(x.to_string()),
        Value::Blob(b) => Some(String::from_utf8_lossy(&b).into_owned()),
    }
}

fn has_table(conn: &Connection, name: &str) -> bool {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .unwrap()
        > 0
}

/// Every row of the SQLite file's `sql` as text (or NULL).
fn sqlite_rows(conn: &Connection, sql: &str) -> Vec<Vec<Option<String>>> {
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| r.get::<_, Value>(i).map(text))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// Removes from the SQLite file the receipts a time column cannot hold (a
/// `created_at` or `updated_at` that does not read as a time), with their
/// key conflicts, replays and absorbed copies; returns their ids.
fn drop_unholdable(conn: &Connection) -> BTreeSet<i64> {
    let mut stmt = conn
        .prepare("SELECT id, created_at, updated_at FROM receipts")
        .unwrap();
    let ids: BTreeSet<i64> = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Value>(1)?,
                r.get::<_, Value>(2)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .filter(|(_, created, updated)| {
            readable(created) != Some(true) || readable(updated) == Some(false)
        })
        .map(|(id, _, _)| id)
        .collect();
    for &id in &ids {
        for table in ["key_conflicts", "replays", "absorbed"] {
            if has_table(conn, table) {
                conn.execute(&format!("DELETE FROM {table} WHERE receipt_id = ?1"), [id])
                    .unwrap();
            }
        }
        conn.execute("DELETE FROM receipts WHERE id = ?1", [id])
            .unwrap();
    }
    ids
}

/// Copies every row of receipts, key_conflicts, replays and absorbed from
/// the SQLite file into PostgreSQL, ids and all, times as `timestamptz`.
fn copy_rows(conn: &Connection, client: &mut postgres::Client) {
    client.batch_execute("SET TIME ZONE 'UTC'").unwrap();
    let mut tx = client.transaction().unwrap();
    let copies = [
        (
            "receipts",
            "SELECT id, scope, request_key, digest, payload, state, response, created_at, updated_at \
             FROM receipts ORDER BY id",
            "INSERT INTO receipts (id, scope, request_key, digest, payload, state, response, created_at, updated_at) \
             VALUES ($1::text::bigint, $2, $3, $4, $5, $6, $7, $8::text::timestamptz, $9::text::timestamptz)",
        ),
        (
            "key_conflicts",
            "SELECT id, receipt_id, digest, payload, received_at FROM key_conflicts ORDER BY id",
            "INSERT INTO key_conflicts (id, receipt_id, digest, payload, received_at) \
             VALUES ($1::text::bigint, $2::text::bigint, $3, $4, $5::text::timestamptz)",
        ),
        (
            "replays",
            "SELECT id, receipt_id, received_at FROM replays ORDER BY id",
            "INSERT INTO replays (id, receipt_id, received_at) \
             VALUES ($1::text::bigint, $2::text::bigint, $3::text::timestamptz)",
        ),
        (
            "absorbed",
            "SELECT id, receipt_id, request_key, received_at, digest FROM absorbed ORDER BY id",
            "INSERT INTO absorbed (id, receipt_id, request_key, received_at, digest) \
             VALUES ($1::text::bigint, $2::text::bigint, $3, $4::text::timestamptz, $5)",
        ),
    ];
    for (table, select, insert) in copies {
        if !has_table(conn, table) {
            continue;
        }
        let insert = tx.prepare(insert).unwrap();
        for row in sqlite_rows(conn, select) {
            let params: Vec<&(dyn postgres::types::ToSql + Sync)> = row
                .iter()
                .map(|v| v as &(dyn postgres::types::ToSql + Sync))
                .collect();
            tx.execute(&insert, &params)
                .unwrap_or_else(|e| panic!("copy {table} row {:?}: {}", row[0], why(&e)));
        }
    }
    tx.commit().unwrap();
}

fn sqlite_count(conn: &Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_demo_copied_to_postgres_reports_the_same_bytes() {
    let Some(db) = pg_database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.db");
    let file = file.to_str().unwrap();
    let ran = run(&[
        "demo",
        "--out",
        file,
        "--receipts",
        "2000",
        "--seed",
        "7",
        "--now",
        NOW,
    ]);
    assert_eq!(ran.code, Some(0), "demo: {}", ran.said());
    let conn = Connection::open(file).unwrap();
    let skipped = drop_unholdable(&conn);
    assert!(
        !skipped.is_empty(),
        "the demo plants a receipt whose time does not read"
    );
    let ran = run(&["init", &db.url]);
    assert_eq!(ran.code, Some(0), "init: {}", ran.said());
    let mut client = db.client();
    copy_rows(&conn, &mut client);
    for table in ["receipts", "key_conflicts", "replays", "absorbed"] {
        assert_eq!(
            crate::support::count(&mut client, table),
            sqlite_count(&conn, table),
            "{table} copied"
        );
    }
    drop(conn);
    let sqlite = report(file);
    let postgres = report(&db.url);
    assert_same_report(&sqlite, &postgres, "demo seed 7, 2000 receipts");

    // `find --json` and `check` answer the same too.
    let email = {
        let conn = Connection::open(file).unwrap();
        let payload: String = conn
            .query_row(
                "SELECT payload FROM receipts WHERE payload LIKE '%\"email\":\"%@%' \
                 ORDER BY id LIMIT 1 OFFSET 100",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&payload).unwrap();
        value["email"].as_str().unwrap().to_string()
    };
    for query in [
        email.as_str(),
        "#1200",
        "1200",
        "2026-11-28",
        "11-29 10:00",
        "2026-11-29 08:00 to 09:30",
        "tanaka",
        "please",
    ] {
        let find = |db: &str| {
            let ran = run(&["find", db, query, "--json", "--now", NOW, "--tz", "UTC"]);
            assert_eq!(ran.code, Some(0), "find {query:?} in {db}: {}", ran.said());
            ran.stdout
        };
        assert_same_report(&find(file), &find(&db.url), &format!("find {query:?}"));
    }
    let (sqlite, postgres) = (run(&["check", file]), run(&["check", &db.url]));
    assert_eq!(sqlite.code, Some(1), "check the file: {}", sqlite.said());
    assert_eq!(postgres.code, sqlite.code, "check: {}", postgres.said());
    assert_same_report(&sqlite.stdout, &postgres.stdout, "check");
}

/// The legacy table's rows: visitors sending once or several times (at gaps
/// of a moment, seconds, minutes and beyond the window, some copies edited),
/// and a row that is not JSON.
fn legacy_rows() -> Vec<(i64, String, i64)> {
    let start = NOW_MS - 3 * 3_600_000;
    let mut rows = Vec::new();
    let mut at = start;
    let mut id = 0;
    for visitor in 0..12i64 {
        let copies: &[i64] = match visitor % 6 {
            0 => &[0],
            1 => &[0, 400],
            2 => &[0, 4_300, 9_000],
            3 => &[0, 185_000],
            4 => &[0, 1_500_000],
            _ => &[0, 30_000],
        };
        let name = if visitor % 2 == 0 {
            format!("山田 {visitor}")
        } else {
            format!("Dana Visitor{visitor}")
        };
        for (n, gap) in copies.iter().enumerate() {
            let edited = visitor % 6 == 5 && n == 1;
            let message = if edited {
                format!("Please call me back about order {visitor}, thanks!")
            } else {
                format!("Please call me back about order {visitor}")
            };
            let json = serde_json::json!({
                "name": name,
                "email": format!("v{visitor}@example.org"),
                "message": message,
            });
            id += 1;
            rows.push((
                id,
                canonical_text(&json.to_string()).unwrap(),
                at + gap + 123,
            ));
        }
        at += 7 * 60_000;
    }
    id += 1;
    rows.push((id, "name=Bob&message=hi".to_string(), at));
    rows
}

fn sqlite_legacy(path: &Path, rows: &[(i64, String, i64)]) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE legacy (id INTEGER PRIMARY KEY, body TEXT, at TEXT);
         CREATE VIEW receipts AS SELECT id, body AS payload, at AS created_at FROM legacy;",
    )
    .unwrap();
    for (id, body, at) in rows {
        conn.execute(
            "INSERT INTO legacy (id, body, at) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, body, format_rfc3339(*at)],
        )
        .unwrap();
    }
}

fn postgres_legacy(client: &mut impl GenericClient, rows: &[(i64, String, i64)]) {
    client
        .batch_execute(
            "SET TIME ZONE 'UTC';
             CREATE TABLE legacy (id bigint, body text, at_tz timestamptz, at_ts timestamp, \
                                  at_ms bigint, at_text text);",
        )
        .unwrap();
    for (id, body, at) in rows {
        let text = format_rfc3339(*at);
        client
            .execute(
                "INSERT INTO legacy (id, body, at_tz, at_ts, at_ms, at_text) \
                 VALUES ($1, $2, $3::text::timestamptz, $3::text::timestamp, $4, $3)",
                &[id, body, &text, at],
            )
            .unwrap_or_else(|e| panic!("legacy row {id}: {}", why(&e)));
    }
}

#[test]
fn a_view_over_a_legacy_table_reports_the_same_bytes_whatever_its_time_type() {
    let Some(db) = pg_database() else { return };
    let rows = legacy_rows();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("legacy.db");
    sqlite_legacy(&file, &rows);
    let sqlite = report(file.to_str().unwrap());
    let counts: serde_json::Value = serde_json::from_str(&sqlite).unwrap();
    assert!(
        counts["counts"]["duplicate_groups"].as_u64() > Some(2) && counts["counts"]["damaged"] == 1,
        "the legacy rows make items: {}",
        counts["counts"]
    );
    let mut client = db.client();
    postgres_legacy(&mut client, &rows);
    for column in ["at_tz", "at_ts", "at_ms", "at_text"] {
        // A view's column cannot change its type in place (CREATE OR
        // REPLACE refuses): the view is made again.
        client
            .batch_execute(&format!(
                "DROP VIEW IF EXISTS receipts; \
                 CREATE VIEW receipts AS SELECT id, body AS payload, {column} AS created_at FROM legacy"
            ))
            .unwrap();
        let postgres = report(&db.url);
        assert_same_report(&sqlite, &postgres, &format!("legacy view over {column}"));
    }
}
