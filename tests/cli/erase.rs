//! `erase` on both engines: a visitor's receipts become tombstones in one
//! transaction with one review-log row; their bytes are gone from the
//! database's files; a retry of their key is answered as before; the
//! analysis, `find`, `report` and `export` treat them as erased; and input
//! that cannot be used changes nothing.

use std::path::{Path, PathBuf};
use std::process::Output;

use receipt_review::intake::canonical::canonical_text;
use receipt_review::intake::store::{Claim, IntakeStore, StoreError};
use receipt_review::model::erasure::Tombstone;
use receipt_review::storage::IntakeMode;
use serde_json::{Map, Value, json};

use crate::both;
use crate::common::engine::{Engine, Place};
use crate::common::{bin, run};

const SCOPE: &str = "corp.example/contact";
/// 2026-11-29T10:00:00Z
const T0: i64 = 1_795_946_400_000;
const RESPONSE: &str = r#"{"receipt_no":"R0000001","status":"received"}"#;
/// Strings that belong to Aiko alone; each must leave every file.
const AIKO: [&str; 4] = [
    "aiko.tanaka@example.jp",
    "田中 愛子",
    "070-4350-0720",
    "CONFLICT-BODY-MARKER",
];
const BOB_EMAIL: &str = "bob.smith@example.org";

fn fields(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn aiko() -> Map<String, Value> {
    fields(json!({
        "name": "田中 愛子",
        "email": "aiko.tanaka@example.jp",
        "phone": "070-4350-0720",
        "message": "見積もりをお願いします。来月から導入を検討しています。"
    }))
}

/// Aiko's inquiry twice 2 s apart (keys k1, k2), a refused body with k1,
/// and Bob's inquiry: receipts 1, 2 and 3.
fn intake(place: &Place) {
    let mut store = IntakeStore::open_at(place.location(), IntakeMode::Plain).unwrap();
    for (key, at) in [("k1", T0), ("k2", T0 + 2_000)] {
        let claim = store.claim(SCOPE, Some(key), &aiko(), at).unwrap();
        store.complete(claim.id(), RESPONSE, at + 100).unwrap();
    }
    let mut changed = aiko();
    changed.insert(
        "message".into(),
        json!("CONFLICT-BODY-MARKER: please call instead"),
    );
    assert!(matches!(
        store.claim(SCOPE, Some("k1"), &changed, T0 + 5_000),
        Err(StoreError::Conflict { .. })
    ));
    let bob = fields(json!({"name": "Bob Smith", "email": BOB_EMAIL, "message": "Call me back"}));
    let claim = store.claim(SCOPE, Some("k3"), &bob, T0 + 60_000).unwrap();
    store.complete(claim.id(), RESPONSE, T0 + 60_100).unwrap();
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file the database's bytes are in: the SQLite file and its WAL, or
/// the PostgreSQL database's folder (after a checkpoint; the server's own
/// write-ahead log is outside it, as the README says).
fn files_of(place: &Place) -> Vec<PathBuf> {
    match place.engine() {
        Engine::Sqlite => {
            let path = place.path();
            let wal = PathBuf::from(format!("{}-wal", path.display()));
            [path.to_path_buf(), wal]
                .into_iter()
                .filter(|p| p.exists())
                .collect()
        }
        Engine::Postgres => {
            let pg = place.pg().unwrap();
            let mut admin = pg.admin();
            admin.batch_execute("CHECKPOINT").unwrap();
            let dir: String = admin.query_one("SHOW data_directory", &[]).unwrap().get(0);
            let oid: u32 = admin
                .query_one(
                    "SELECT oid FROM pg_database WHERE datname = $1",
                    &[&pg.name()],
                )
                .unwrap()
                .get(0);
            let folder = Path::new(&dir).join("base").join(oid.to_string());
            std::fs::read_dir(&folder)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .collect()
        }
    }
}

/// The files (of `files`) that hold `needle`.
fn holding(files: &[PathBuf], needle: &str) -> Vec<PathBuf> {
    let needle = needle.as_bytes();
    files
        .iter()
        .filter(|f| {
            std::fs::read(f)
                .unwrap_or_default()
                .windows(needle.len())
                .any(|w| w == needle)
        })
        .cloned()
        .collect()
}

fn erasing_a_visitor_leaves_no_byte_of_them_and_keeps_the_audit(engine: Engine) {
    let place = Place::new(engine);
    intake(&place);
    let before = files_of(&place);
    assert!(
        !holding(&before, "CONFLICT-BODY-MARKER").is_empty(),
        "the grep finds what is there"
    );
    let digests: Vec<(String,)> = place.rows("SELECT digest FROM receipts ORDER BY id");

    let o = run(&[
        "erase",
        place.arg(),
        "--email",
        "Aiko.Tanaka@Example.JP",
        "--operator",
        "desk",
        "--note",
        "request 2026-12-07-01",
        "--yes",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let said = stdout(&o);
    assert!(
        said.starts_with("Receipts holding the email Aiko.Tanaka@Example.JP: 2\n"),
        "{said}"
    );
    assert!(
        said.contains("#1") && said.contains("#2") && !said.contains("#3 "),
        "{said}"
    );
    assert!(said.contains("erased as erase:1 (receipts: 2;"), "{said}");
    assert!(
        said.contains("the erased values are gone from the files"),
        "{said}"
    );

    // The rows: tombstones, the digests as they were, Bob untouched.
    let rows: Vec<(i64, String, String)> =
        place.rows("SELECT id, payload, digest FROM receipts ORDER BY id");
    for (id, payload, digest) in &rows[..2] {
        let tombstone = Tombstone::of_row(payload, Some(digest)).expect("a tombstone");
        assert_eq!(tombstone.by, "desk");
        assert_eq!(tombstone.with, vec![1, 2], "receipt {id}");
    }
    assert!(rows[2].1.contains(BOB_EMAIL));
    let after: Vec<(String,)> = place.rows("SELECT digest FROM receipts ORDER BY id");
    assert_eq!(after, digests);
    let (conflict,): (String,) = place.one("SELECT payload FROM key_conflicts");
    assert!(conflict.starts_with("{\"_erased\""), "{conflict}");
    let log: Vec<(String, String, String, String, String, String)> =
        place.rows("SELECT item, kind, decision, operator, receipt_ids, note FROM review_log");
    assert_eq!(
        log,
        vec![(
            "erase:1".into(),
            "erasure".into(),
            "erased".into(),
            "desk".into(),
            "[1,2]".into(),
            "request 2026-12-07-01".into()
        )]
    );

    // No byte of Aiko in any file; Bob's are still there.
    let files = files_of(&place);
    for needle in AIKO {
        assert_eq!(holding(&files, needle), Vec::<PathBuf>::new(), "{needle}");
    }
    assert!(!holding(&files, BOB_EMAIL).is_empty());

    // The analysis and the commands treat them as erased.
    let report = run(&["report", place.arg(), "--json"]);
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    let group = &report["duplicates"][0];
    assert_eq!(group["item"], "dup:1");
    assert_eq!(group["members"][0]["match"], "erased");
    assert_eq!(group["members"][1]["match"], "erased");
    assert_eq!(report["damaged"].as_array().map(Vec::len), Some(0));
    assert_eq!(report["counts"]["erased"], 2);
    assert_eq!(report["counts"]["receipts"], 3);
    let text = stdout(&run(&["report", place.arg()]));
    assert!(
        text.contains("Receipts erased on request or by retention: 2 "),
        "{text}"
    );
    assert_eq!(report["bots"].as_array().map(Vec::len).unwrap_or(0), 0);
    let find = run(&["find", place.arg(), "aiko.tanaka@example.jp"]);
    let find = stdout(&find);
    assert!(find.starts_with("No receipt matches"), "{find}");
    assert!(
        find.contains("Receipts erased on request or by retention: 2."),
        "{find}"
    );
    let export = run(&["export", place.arg(), "--format", "jsonl"]);
    let row: Value = serde_json::from_str(stdout(&export).lines().next().unwrap()).unwrap();
    assert_eq!(row["item"], "erase:1");
    assert_eq!(row["visitor_email"], Value::Null);
    let check = run(&["check", place.arg()]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
}
both!(erasing_a_visitor_leaves_no_byte_of_them_and_keeps_the_audit);

fn a_retry_of_an_erased_receipts_key_is_answered_as_before(engine: Engine) {
    let place = Place::new(engine);
    intake(&place);
    let o = run(&[
        "erase",
        place.arg(),
        "--receipt",
        "1",
        "--note",
        "ref-2",
        "--operator",
        "desk",
        "--yes",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut store = IntakeStore::open_at(place.location(), IntakeMode::Plain).unwrap();
    // The same body again: a replay of the stored answer, byte for byte.
    let claim = store
        .claim(SCOPE, Some("k1"), &aiko(), T0 + 90_000)
        .unwrap();
    assert_eq!(
        claim,
        Claim::Replay {
            id: 1,
            state: receipt_review::model::ReceiptState::Completed,
            response: Some(RESPONSE.to_string()),
        }
    );
    // Another body: a conflict, as before the erasure.
    let mut other = aiko();
    other.insert("message".into(), json!("something else"));
    assert!(matches!(
        store.claim(SCOPE, Some("k1"), &other, T0 + 91_000),
        Err(StoreError::Conflict { .. })
    ));
    // The receipt keeps its place in its group, erased.
    let report = run(&["report", place.arg(), "--json"]);
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    let members = &report["duplicates"][0]["members"];
    assert_eq!(members[0]["id"], 1);
    assert_eq!(members[0]["match"], "erased");
    assert_eq!(members[1]["match"], "exact");
}
both!(a_retry_of_an_erased_receipts_key_is_answered_as_before);

#[test]
fn input_that_cannot_be_used_erases_nothing() {
    let place = Place::new(Engine::Sqlite);
    intake(&place);
    let bytes = || std::fs::read(place.path()).unwrap();
    let payloads = || -> Vec<(String,)> { place.rows("SELECT payload FROM receipts ORDER BY id") };
    let before = payloads();
    let tries: [(&[&str], i32, &str); 7] = [
        (&[], 2, "--email"),
        (&["--receipt", "99"], 2, "no receipt has the number #99"),
        (
            &["--email", "aiko.tanaka@example.jp", "--yes"],
            2,
            "needs a note",
        ),
        (
            &[
                "--email",
                "aiko.tanaka@example.jp",
                "--note",
                "from aiko.tanaka@example.jp",
                "--yes",
            ],
            2,
            "the note contains \"aiko.tanaka@example.jp\"",
        ),
        (
            &["--email", "aiko.tanaka@example.jp", "--note", "ref"],
            2,
            "add --yes",
        ),
        (
            &["--email", "nobody@example.jp", "--note", "ref", "--yes"],
            1,
            "nothing to erase",
        ),
        (
            &["--older-than", "-2y", "--note", "ref", "--yes"],
            2,
            "--older-than",
        ),
    ];
    for (args, code, says) in tries {
        let mut all = vec!["erase", place.arg()];
        all.extend_from_slice(args);
        let o = bin()
            .args(&all)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(payloads(), before, "{args:?} changed a payload");
    }
    let bytes_before = bytes();
    let o = run(&[
        "erase",
        place.arg(),
        "--email",
        "aiko.tanaka@example.jp",
        "--dry-run",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).ends_with("nothing was erased (--dry-run)\n"),
        "{}",
        stdout(&o)
    );
    assert_eq!(bytes(), bytes_before, "a dry run writes nothing");
    assert_eq!(
        canonical_text(&before[0].0).unwrap(),
        before[0].0,
        "untouched payloads are the intake's own"
    );
}

#[test]
fn a_phone_number_is_matched_by_its_digits() {
    let place = Place::new(Engine::Sqlite);
    intake(&place);
    let o = run(&[
        "erase",
        place.arg(),
        "--phone",
        "+81 70 4350 0720",
        "--dry-run",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("Receipts holding the phone number +81 70 4350 0720: 2\n"),
        "{}",
        stdout(&o)
    );
    // A part of the number is no match.
    let o = run(&["erase", place.arg(), "--phone", "4350-0720", "--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}

#[test]
fn older_than_erases_what_arrived_before_the_period_of_one_form_or_all() {
    let place = Place::new(Engine::Sqlite);
    intake(&place);
    // A day and 30 s after the first receipt: Aiko's two are older than a
    // day, Bob's (a minute after) is not.
    let now = "2026-11-30T10:00:30Z";
    let o = run(&[
        "erase",
        place.arg(),
        "--older-than",
        "1d",
        "--scope",
        "another/form",
        "--now",
        now,
        "--note",
        "retention",
        "--yes",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("nothing to erase"), "{}", stderr(&o));
    let o = run(&[
        "erase",
        place.arg(),
        "--older-than",
        "1d",
        "--scope",
        SCOPE,
        "--now",
        now,
        "--note",
        "retention",
        "--yes",
        "--operator",
        "policy",
        "--tz",
        "UTC",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with(&format!(
            "Receipts of {SCOPE} that arrived before 2026-11-29 10:00:30 UTC: 2\n"
        )),
        "{}",
        stdout(&o)
    );
    let erased: Vec<(i64, String)> = place.rows("SELECT id, payload FROM receipts ORDER BY id");
    assert!(erased[0].1.starts_with("{\"_erased\"") && erased[1].1.starts_with("{\"_erased\""));
    assert!(erased[2].1.contains(BOB_EMAIL));
    // Again: nothing older is left to erase.
    let o = run(&[
        "erase",
        place.arg(),
        "--older-than",
        "1d",
        "--now",
        now,
        "--note",
        "retention",
        "--yes",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}

fn an_erasure_that_another_made_first_is_not_written_twice(engine: Engine) {
    use receipt_review::review::erase::{EraseError, EraseRequest, ErasedReceipt, record};
    use receipt_review::storage::{Access, open_database};
    let place = Place::new(engine);
    intake(&place);
    let request = |operator: &str| EraseRequest {
        receipts: vec![
            ErasedReceipt {
                id: 1,
                with: vec![1, 2],
            },
            ErasedReceipt {
                id: 2,
                with: vec![1, 2],
            },
        ],
        operator: operator.into(),
        note: Some("retention 30d".into()),
        now_ms: T0 + 86_400_000,
    };
    // Two servers' retention, one after the other on the same receipts.
    let mut first = open_database(place.location(), Access::PreferWrite).unwrap();
    let mut second = open_database(place.location(), Access::PreferWrite).unwrap();
    let entry = record(&mut *first, &request("retention")).unwrap();
    assert_eq!(entry.receipt_ids, vec![1, 2]);
    assert!(matches!(
        record(&mut *second, &request("retention")),
        Err(EraseError::Nothing)
    ));
    assert_eq!(place.count("review_log"), 1);
    let (by,): (String,) = place.one("SELECT payload FROM receipts WHERE id = 1");
    assert_eq!(Tombstone::of_row(&by, None).unwrap().by, "retention");
}
both!(an_erasure_that_another_made_first_is_not_written_twice);
