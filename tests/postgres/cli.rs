//! Every command on a PostgreSQL database named by its URL: what each says
//! and exits with, what it writes, and that none shows the password.

use std::collections::BTreeSet;

use receipt_review::intake::canonical::{canonical_text, sha256_hex};

use crate::common::pg::{pg_database, without_password};
use crate::support::{NOW, count, password, report_json, run_hiding};

/// The receipts `check` must call damaged: a payload that is not a JSON
/// object, or a digest that is not the payload's.
fn damaged_rows(client: &mut postgres::Client) -> BTreeSet<i64> {
    client
        .query("SELECT id, digest, payload FROM receipts", &[])
        .unwrap()
        .iter()
        .filter(|row| {
            let (digest, payload): (String, String) = (row.get(1), row.get(2));
            match canonical_text(&payload) {
                Ok(canon) => sha256_hex(&canon) != digest,
                Err(_) => true,
            }
        })
        .map(|row| row.get(0))
        .collect()
}

#[test]
fn the_commands_work_on_a_url_and_never_show_its_password() {
    let Some(db) = pg_database() else { return };
    let url = db.url.as_str();
    let secret = password(url);
    let shown = without_password(url);
    let run = |args: &[&str]| run_hiding(secret.as_deref(), args);

    // init, twice: the second leaves what the first made.
    for round in 0..2 {
        let ran = run(&["init", url]);
        assert_eq!(ran.code, Some(0), "init round {round}: {}", ran.said());
        assert!(
            ran.stderr.contains(&shown),
            "init names the database: {}",
            ran.said()
        );
    }
    let mut client = db.client();
    for table in ["receipts", "key_conflicts", "replays", "absorbed"] {
        assert_eq!(count(&mut client, table), 0, "{table} after init");
    }

    let ran = run(&[
        "demo",
        "--out",
        url,
        "--receipts",
        "300",
        "--seed",
        "2",
        "--now",
        NOW,
    ]);
    assert_eq!(ran.code, Some(0), "demo: {}", ran.said());
    let receipts = count(&mut client, "receipts");
    assert!(
        (295..=300).contains(&receipts),
        "the demo wrote {receipts} receipts"
    );

    // report: the header names the database without its password.
    let ran = run(&["report", url, "--now", NOW]);
    assert_eq!(ran.code, Some(0), "report: {}", ran.said());
    let header = ran.stdout.lines().next().unwrap_or_default();
    assert!(
        header.starts_with(&format!("{shown} — {receipts} receipts")),
        "report header: {header:?}, want it to start with {shown:?}"
    );

    // check: the planted damage, row by row, and exit 1.
    let damaged = damaged_rows(&mut client);
    assert!(!damaged.is_empty(), "the demo plants damaged rows");
    let ran = run(&["check", url]);
    assert_eq!(ran.code, Some(1), "check: {}", ran.said());
    let listed: BTreeSet<i64> = ran
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("damaged receipt "))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect();
    assert_eq!(
        listed,
        damaged,
        "check lists the damaged rows: {}",
        ran.said()
    );
    assert!(
        ran.stdout.contains(&format!(
            "{receipts} receipts checked: {} damaged",
            damaged.len()
        )),
        "check's summary: {}",
        ran.said()
    );

    // find: a visitor's email finds their receipt.
    let (id, email): (i64, String) = client
        .query(
            "SELECT id, payload FROM receipts WHERE payload LIKE '{%' ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .find_map(|row| {
            let payload: String = row.get(1);
            let value: serde_json::Value = serde_json::from_str(&payload).ok()?;
            let email = value.get("email")?.as_str()?.to_string();
            (!email.is_empty()).then(|| (row.get(0), email))
        })
        .expect("a receipt with an email");
    let ran = run(&["find", url, &email, "--now", NOW]);
    assert_eq!(ran.code, Some(0), "find {email}: {}", ran.said());
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with(&format!("#{id} "))),
        "find {email} shows receipt #{id}: {}",
        ran.said()
    );
    let ran = run(&["find", url, &email, "--json", "--now", NOW]);
    assert_eq!(ran.code, Some(0), "find --json: {}", ran.said());
    let found: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert!(
        found["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["receipt_id"] == id),
        "find --json: {}",
        ran.said()
    );

    // resolve: the first operator's decision stands; the second is told whose.
    let report = report_json(url);
    let item = report["duplicates"][0]["item"]
        .as_str()
        .expect("the demo plants duplicates")
        .to_string();
    let ran = run(&[
        "resolve",
        url,
        &item,
        "duplicate",
        "--operator",
        "a",
        "--now",
        NOW,
    ]);
    assert_eq!(ran.code, Some(0), "resolve by a: {}", ran.said());
    assert!(
        ran.stdout
            .starts_with(&format!("{item}: duplicate recorded by a")),
        "resolve by a: {}",
        ran.said()
    );
    let ran = run(&[
        "resolve",
        url,
        &item,
        "duplicate",
        "--operator",
        "b",
        "--now",
        NOW,
    ]);
    assert_eq!(ran.code, Some(1), "resolve by b: {}", ran.said());
    assert_eq!(ran.stderr_lines().len(), 1, "one line: {}", ran.said());
    assert!(
        ran.stderr
            .contains(&format!("{item} already decided by a at ")),
        "resolve by b names who decided first: {}",
        ran.said()
    );
    let log: Vec<(String, String, String)> = client
        .query(
            "SELECT item, decision, operator FROM review_log ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        log,
        vec![(item.clone(), "duplicate".into(), "a".into())],
        "only a's decision is in the log"
    );

    // export: the decision, with its item and operator.
    let ran = run(&["export", url]);
    assert_eq!(ran.code, Some(0), "export: {}", ran.said());
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.starts_with("id,item,kind,decision,operator,")),
        "export's header: {}",
        ran.said()
    );
    assert_eq!(lines.len(), 2, "a header and one row: {}", ran.said());
    assert!(
        lines[1].starts_with(&format!("1,{item},duplicate,duplicate,a,")),
        "export's row: {}",
        ran.said()
    );

    // reopen: pending again, and b may decide now.
    let ran = run(&["reopen", url, &item, "--operator", "b"]);
    assert_eq!(ran.code, Some(0), "reopen: {}", ran.said());
    let reopened: (String, String, Option<i64>) = client
        .query_one(
            "SELECT decision, operator, reopens FROM review_log ORDER BY id DESC LIMIT 1",
            &[],
        )
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .unwrap();
    assert_eq!(reopened, ("reopened".into(), "b".into(), Some(1)));
    let report = report_json(url);
    let status = report["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["item"] == item.as_str())
        .map(|d| d["status"].clone());
    assert_eq!(status, Some("pending".into()), "{item} after reopen");
    let ran = run(&[
        "resolve",
        url,
        &item,
        "distinct",
        "--operator",
        "b",
        "--now",
        NOW,
    ]);
    assert_eq!(
        ran.code,
        Some(0),
        "resolve by b after reopen: {}",
        ran.said()
    );
    assert_eq!(count(&mut client, "review_log"), 3);
}

#[test]
fn a_demo_into_a_database_that_holds_receipts_is_refused() {
    let Some(db) = pg_database() else { return };
    let url = db.url.as_str();
    let secret = password(url);
    let run = |args: &[&str]| run_hiding(secret.as_deref(), args);
    let demo = |seed: &str| {
        run(&[
            "demo",
            "--out",
            url,
            "--receipts",
            "60",
            "--seed",
            seed,
            "--now",
            NOW,
        ])
    };
    let ran = demo("4");
    assert_eq!(ran.code, Some(0), "the first demo: {}", ran.said());
    let mut client = db.client();
    let tables = ["receipts", "key_conflicts", "replays", "absorbed"];
    let before: Vec<i64> = tables.iter().map(|t| count(&mut client, t)).collect();
    assert!(before[0] > 0);

    let ran = demo("5");
    let after: Vec<i64> = tables.iter().map(|t| count(&mut client, t)).collect();
    assert_eq!(after, before, "nothing added: {}", ran.said());
    assert_eq!(ran.stderr_lines().len(), 1, "one line: {}", ran.said());
    assert!(
        ran.stderr.contains(&without_password(url)),
        "names the database: {}",
        ran.said()
    );
    assert_eq!(
        ran.code,
        Some(2),
        "a database that already holds receipts is unusable input (exit 2), \
         as a non-empty file is: {}",
        ran.said()
    );
}

#[test]
fn a_stuck_receipt_decided_completed_changes_its_state_and_reopen_puts_it_back() {
    let Some(db) = pg_database() else { return };
    let url = db.url.as_str();
    let secret = password(url);
    let run = |args: &[&str]| run_hiding(secret.as_deref(), args);
    let ran = run(&[
        "demo",
        "--out",
        url,
        "--receipts",
        "300",
        "--seed",
        "2",
        "--now",
        NOW,
    ]);
    assert_eq!(ran.code, Some(0), "demo: {}", ran.said());
    let report = report_json(url);
    let stuck = &report["stuck"][0];
    let item = stuck["item"]
        .as_str()
        .expect("the demo plants stuck receipts");
    let id = stuck["receipt_id"].as_i64().unwrap();
    let mut client = db.client();
    let state = |client: &mut postgres::Client| -> (String, Option<String>) {
        let row = client
            .query_one(
                "SELECT state, to_char(updated_at AT TIME ZONE 'UTC', \
                 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') FROM receipts WHERE id = $1",
                &[&id],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    let (before, updated_before) = state(&mut client);
    assert_eq!(before, "in_flight");

    let ran = run(&[
        "resolve",
        url,
        item,
        "completed",
        "--operator",
        "a",
        "--now",
        NOW,
    ]);
    assert_eq!(
        ran.code,
        Some(0),
        "resolve {item} completed: {}",
        ran.said()
    );
    let (after, updated_after) = state(&mut client);
    assert_eq!(after, "completed", "the decision sets the receipt's state");
    assert_ne!(updated_after, updated_before, "and its updated_at");
    let logged: (String, Option<String>, Option<String>, Option<String>) = client
        .query_one(
            "SELECT decision, state_before, state_after, updated_at_after FROM review_log",
            &[],
        )
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .unwrap();
    assert_eq!(
        logged,
        (
            "completed".into(),
            Some("in_flight".into()),
            Some("completed".into()),
            updated_after.clone()
        )
    );

    // Reopened: back in flight, as nobody changed the receipt since.
    let ran = run(&["reopen", url, item, "--operator", "a"]);
    assert_eq!(ran.code, Some(0), "reopen {item}: {}", ran.said());
    assert_eq!(state(&mut client).0, "in_flight");
}
