//! The screen's reader analyses only what the intake appended: after random
//! appends (exact, edited and partial copies, new messages, times a little out
//! of order, receipts settling, refused attempts, replays, copies the intake
//! absorbed, damaged rows) its
//! triage is the one a full reading of the database gives.

use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use receipt_review::demo::{DemoOptions, generate};
use receipt_review::intake::canonical;
use receipt_review::model::ReceiptId;
use receipt_review::model::Settings;
use receipt_review::model::time::format_rfc3339;
use receipt_review::reading::{self, Extent, Reader, Snapshot};
use receipt_review::storage::{
    Access, ChangeMark, Connections, Location, LogError, Session, Source, Storage, StorageError,
    WriteTx, open_database,
};
use rusqlite::{Connection, params};

/// A database as the program opens it.
type Db = Box<dyn Storage + Send>;

const NOW_MS: i64 = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

fn settings(now_ms: i64) -> Settings {
    Settings::new(now_ms)
}

/// A fresh full analysis of the database, as `report` makes it.
fn full(path: &Path, now_ms: i64) -> Snapshot {
    let db = open_database(path, Access::ReadOnly).unwrap();
    reading::read(&*db, settings(now_ms), &mut |_| {}).unwrap()
}

/// A demo database of `receipts` receipts as of [`NOW_MS`], in `dir`.
fn demo(dir: &tempfile::TempDir, name: &str, receipts: usize, seed: u64) -> PathBuf {
    let path = dir.path().join(name);
    let options = DemoOptions {
        receipts,
        seed,
        now_ms: NOW_MS,
    };
    generate(&path.as_path().into(), &options).unwrap();
    path
}

fn assert_same(incremental: &Snapshot, full: &Snapshot, round: usize) {
    assert_eq!(
        incremental.receipt_count, full.receipt_count,
        "round {round}: receipts"
    );
    assert_eq!(incremental.replays, full.replays, "round {round}: replays");
    assert_eq!(
        incremental.replay_total, full.replay_total,
        "round {round}: replay rows"
    );
    assert_eq!(
        incremental.absorbed, full.absorbed,
        "round {round}: absorbed"
    );
    assert_eq!(
        incremental.absorbed_total, full.absorbed_total,
        "round {round}: absorbed rows"
    );
    // The per-form counts, kept between readings, agree too.
    let forms = |snap| receipt_review::forms::compute(snap, receipt_review::forms::Period::All);
    assert_eq!(forms(incremental), forms(full), "round {round}: forms");
    let (a, b) = (&incremental.triage, &full.triage);
    assert_eq!(a.damaged, b.damaged, "round {round}: damaged");
    assert_eq!(a.stuck, b.stuck, "round {round}: stuck");
    assert_eq!(a.conflicts, b.conflicts, "round {round}: conflicts");
    assert_eq!(
        a.suspected_bots, b.suspected_bots,
        "round {round}: suspected bots"
    );
    assert_eq!(
        a.duplicates.len(),
        b.duplicates.len(),
        "round {round}: groups"
    );
    for (x, y) in a.duplicates.iter().zip(&b.duplicates) {
        assert_eq!(x, y, "round {round}: group");
    }
    assert_eq!(a, b, "round {round}");
}

/// Appends rows the way an intake (and its visitors) would, some of them
/// copies of what is already there.
struct Appender {
    conn: Connection,
    rng: ChaCha8Rng,
    next_key: u64,
    /// False: every receipt is appended at about the latest time, as one
    /// intake whose clock only goes forward appends them.
    reach_back: bool,
}

impl Appender {
    fn existing(&mut self) -> (i64, String, String, i64) {
        let max: i64 = self
            .conn
            .query_row("SELECT max(id) FROM receipts", [], |r| r.get(0))
            .unwrap();
        loop {
            let id = self.rng.random_range(1..=max);
            let row = self.conn.query_row(
                "SELECT id, scope, payload, created_at FROM receipts WHERE id >= ?1 LIMIT 1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, rusqlite::types::Value>(3)?,
                    ))
                },
            );
            let Ok((id, scope, payload, created)) = row else {
                continue;
            };
            let rusqlite::types::Value::Text(created) = created else {
                continue;
            };
            let Ok(at) = receipt_review::model::time::parse_text(&created) else {
                continue;
            };
            if serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&payload).is_ok()
            {
                return (id, scope, payload, at);
            }
        }
    }

    fn insert(&mut self, scope: &str, payload: &serde_json::Value, at_ms: i64, state: &str) -> i64 {
        let text = canonical::canonical_text(&payload.to_string()).unwrap();
        let digest = canonical::sha256_hex(&text);
        self.next_key += 1;
        let key = (self.rng.random_range(0..4) > 0).then(|| format!("inc-{}", self.next_key));
        self.conn
            .execute(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                params![scope, key, digest, text, state, format_rfc3339(at_ms)],
            )
            .unwrap();
        self.conn.last_insert_rowid()
    }

    /// One random append.
    fn append(&mut self, latest_ms: i64) {
        let (id, scope, payload, at) = self.existing();
        let mut fields: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&payload).unwrap();
        let kind = self.rng.random_range(0..12);
        // Mostly after everything so far, sometimes a little before it (two
        // handlers whose clocks disagree), sometimes right after its original.
        let when = match self.rng.random_range(0..6) {
            0 if self.reach_back => at + self.rng.random_range(0..700_000),
            1 => latest_ms - self.rng.random_range(0..5_000),
            _ => latest_ms + self.rng.random_range(0..900_000),
        };
        let state = if self.rng.random_range(0..8) == 0 {
            "in_flight"
        } else {
            "completed"
        };
        match kind {
            // An exact copy (with new noise).
            0..=2 => {
                fields.insert(
                    "event_id".into(),
                    format!("e{}", self.rng.random::<u32>()).into(),
                );
                self.insert(&scope, &serde_json::Value::Object(fields), when, state);
            }
            // An edited copy: a word of the message changed.
            3 | 4 => {
                if let Some(serde_json::Value::String(m)) = fields.get_mut("message") {
                    let mut words: Vec<String> = m.split(' ').map(str::to_string).collect();
                    let at = self.rng.random_range(0..words.len());
                    words[at] = "changed".into();
                    *m = words.join(" ");
                }
                self.insert(&scope, &serde_json::Value::Object(fields), when, state);
            }
            // A partial copy: one field left out.
            5 => {
                let keys: Vec<String> = fields.keys().cloned().collect();
                let drop = &keys[self.rng.random_range(0..keys.len())];
                fields.remove(drop);
                self.insert(&scope, &serde_json::Value::Object(fields), when, state);
            }
            // Somebody else.
            6 => {
                fields.insert(
                    "email".into(),
                    format!("new{}@example.org", self.rng.random::<u32>()).into(),
                );
                fields.insert(
                    "message".into(),
                    format!("a new question number {}", self.rng.random::<u32>()).into(),
                );
                self.insert(&scope, &serde_json::Value::Object(fields), when, state);
            }
            // A refused attempt at an existing key, a replay, and an exact
            // copy the intake absorbed.
            7 => {
                self.conn
                    .execute(
                        "INSERT INTO absorbed (receipt_id, received_at) VALUES (?1, ?2)",
                        params![id, format_rfc3339(when)],
                    )
                    .unwrap();
                self.conn
                    .execute(
                        "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) VALUES (?1, ?2, ?3, ?4)",
                        params![id, "0".repeat(64), "{\"x\":1}", format_rfc3339(when)],
                    )
                    .unwrap();
                self.conn
                    .execute(
                        "INSERT INTO replays (receipt_id, received_at) VALUES (?1, ?2)",
                        params![id, format_rfc3339(when)],
                    )
                    .unwrap();
            }
            // A damaged row.
            8 => {
                self.conn
                    .execute(
                        "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at)
                         VALUES (?1, NULL, ?2, '{\"broken', 'completed', ?3)",
                        params![scope, "0".repeat(64), format_rfc3339(when)],
                    )
                    .unwrap();
            }
            // A bot posting one of a few bodies to any form, as a new
            // sender each time: campaigns across scopes.
            10 => {
                let (_, other_scope, _, _) = self.existing();
                let body = self.rng.random_range(0..3);
                let bot = serde_json::json!({
                    "email": format!("bot{}@example.net", self.rng.random::<u32>()),
                    "message": format!("Cheap followers for your page, offer number {body} today only"),
                });
                self.insert(&other_scope, &bot, when, state);
            }
            // An empty submission: nothing but noise.
            11 => {
                let empty = serde_json::json!({"_csrf": "t", "name": "", "message": null});
                self.insert(&scope, &empty, when, state);
            }
            // A receipt in flight settles (or fails).
            _ => {
                let state = if self.rng.random_range(0..3) == 0 {
                    "failed"
                } else {
                    "completed"
                };
                self.conn
                    .execute(
                        "UPDATE receipts SET state = ?1, updated_at = ?2 WHERE id = (
                           SELECT id FROM receipts WHERE state = 'in_flight' ORDER BY id LIMIT 1)",
                        params![state, format_rfc3339(when)],
                    )
                    .unwrap();
            }
        }
    }
}

/// A database whose every reading is on one connection, however much
/// there is to read: what the engine reads split, it reads alone.
struct OneConnection(Db);

impl Storage for OneConnection {
    fn begin_read(&self, _: Connections) -> Result<Box<dyn Session + '_>, StorageError> {
        self.0.begin_read(Connections::One)
    }

    fn begin_write(&mut self) -> Result<Box<dyn WriteTx + '_>, LogError> {
        self.0.begin_write()
    }

    fn source(&self) -> &Source {
        self.0.source()
    }

    fn location(&self) -> &Location {
        self.0.location()
    }

    fn is_read_only(&self) -> bool {
        self.0.is_read_only()
    }

    fn read_only_reason(&self) -> Option<&str> {
        self.0.read_only_reason()
    }

    fn change_mark(&self) -> Result<ChangeMark, StorageError> {
        self.0.change_mark()
    }

    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError> {
        self.0.receipt_payload(id)
    }

    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError> {
        self.0.conflict_payload(id)
    }

    fn scrub(&mut self) -> Result<receipt_review::storage::Scrubbed, StorageError> {
        self.0.scrub()
    }

    fn schema_problems(&self) -> Vec<String> {
        self.0.schema_problems()
    }
}

/// A reading on the main connection alone: no helper connection shares it.
fn alone(path: &Path, now_ms: i64) -> Snapshot {
    let db = OneConnection(open_database(path, Access::ReadOnly).unwrap());
    reading::read(&db, settings(now_ms), &mut |_| {}).unwrap()
}

/// A damaged row far above the others: the rowids then span enough for a
/// full reading to be split over several connections.
fn spread_rowids(path: &Path) {
    Connection::open(path)
        .unwrap()
        .execute(
            "INSERT INTO receipts (id, scope, digest, payload, created_at) \
             VALUES (40000, 's', 'x', '[1]', '2026-11-29 09:00:00')",
            [],
        )
        .unwrap();
}

/// How the readings after the first went.
#[derive(Debug, Default)]
struct Rounds {
    incremental: usize,
    /// Full readings because an appended receipt reached back past the
    /// fields the engine kept.
    reached_back: usize,
}

/// A demo database of `(receipts, seed)` in `dir` (with [`spread_rowids`]
/// when `spread`), opened read-only, and a reader of it.
fn opened(
    dir: &tempfile::TempDir,
    name: &str,
    (receipts, seed): (usize, u64),
    spread: bool,
) -> (PathBuf, Db, Reader) {
    let path = demo(dir, name, receipts, seed);
    if spread {
        spread_rowids(&path);
    }
    let db = open_database(&path, Access::ReadOnly).unwrap();
    (path, db, Reader::new(settings(NOW_MS)))
}

/// What a [`run`] appends and how its reader keeps fields.
#[derive(Clone, Copy)]
struct Appends {
    /// With [`spread_rowids`].
    spread: bool,
    /// The reader's `fields_horizon` (with `None` every reading after the
    /// first continues the analysis, however far back a receipt reaches).
    horizon: Option<i64>,
    /// As [`Appender::reach_back`].
    reach_back: bool,
    /// Every reading reads whole every row that may change in place (and
    /// counts the rows); else the readings look at their states only, and
    /// read whole those whose state changed.
    verify_each_time: bool,
}

const KEEP_ALL: Appends = Appends {
    spread: false,
    horizon: None,
    reach_back: true,
    verify_each_time: true,
};

fn run(seed: u64, receipts: usize, rounds: usize, how: Appends) -> Rounds {
    let Appends {
        spread,
        horizon,
        reach_back,
        verify_each_time,
    } = how;
    let dir = tempfile::tempdir().unwrap();
    let (path, db, mut reader) = opened(&dir, "inc.db", (receipts, seed), spread);
    reader.verify_every = match verify_each_time {
        true => std::time::Duration::ZERO,
        false => std::time::Duration::from_secs(3600),
    };
    reader.fields_horizon = horizon;
    let (first, _) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
    assert_eq!(reader.last_extent(), Extent::Full);
    assert_same(&first, &full(&path, NOW_MS), 0);
    assert_same(&first, &alone(&path, NOW_MS), 0);
    let count = first.receipt_count;
    let held = |reader: &Reader| reader.fields_held().unwrap().0;
    if horizon.is_some() {
        assert!(held(&reader) < count / 2, "{} of {count}", held(&reader));
    } else {
        assert!(
            held(&reader) > count * 9 / 10,
            "{} of {count}",
            held(&reader)
        );
    }
    let mut seen = Rounds::default();

    let mut appender = Appender {
        conn: Connection::open(&path).unwrap(),
        rng: ChaCha8Rng::seed_from_u64(seed),
        next_key: 0,
        reach_back,
    };
    // The demo's receipts end half an hour before now.
    let mut latest = if reach_back {
        NOW_MS - 3_600_000
    } else {
        NOW_MS
    };
    for round in 1..=rounds {
        let appends = appender.rng.random_range(1..40);
        for _ in 0..appends {
            appender.append(latest);
            latest += appender.rng.random_range(0..120_000);
        }
        // Time passes too: receipts in flight become stuck.
        let now = latest + appender.rng.random_range(0..600_000);
        let (snap, _) = reader.read(&*db, now, &mut |_| {}).unwrap();
        match reader.last_extent() {
            Extent::Appended => seen.incremental += 1,
            Extent::Full => {
                assert!(horizon.is_some(), "round {round}: a full reading");
                seen.reached_back += 1;
            }
        }
        assert_same(&snap, &full(&path, now), round);
        if horizon.is_some() {
            assert!(
                held(&reader) < count / 2,
                "round {round}: {}",
                held(&reader)
            );
        }
    }

    // Copies were absorbed along the way, and counted.
    let absorbed: i64 = appender
        .conn
        .query_row("SELECT count(*) FROM absorbed", [], |r| r.get(0))
        .unwrap();
    assert!(absorbed > 0);

    // An undone decision puts a receipt back in flight: the screen says so.
    let id: i64 = appender
        .conn
        .query_row(
            "SELECT id FROM receipts WHERE state = 'completed' AND json_valid(payload) ORDER BY id LIMIT 1 OFFSET 7",
            [],
            |r| r.get(0),
        )
        .unwrap();
    appender
        .conn
        .execute(
            "UPDATE receipts SET state = 'in_flight' WHERE id = ?1",
            [id],
        )
        .unwrap();
    reader.recheck(&[id]);
    let before = reader.fields_held().unwrap();
    let (snap, _) = reader.read(&*db, latest, &mut |_| {}).unwrap();
    // Its fields may have been let go: it is compared by its fingerprint.
    assert_eq!(reader.last_extent(), Extent::Appended);
    assert_eq!(reader.fields_held().unwrap(), before);
    assert!(snap.triage.stuck.iter().any(|s| s.receipt_id == id));
    assert_same(&snap, &full(&path, latest), rounds + 1);

    // A row changed in a way the intake never changes one: a full reading,
    // once the reader looks for one.
    reader.verify_every = std::time::Duration::ZERO;
    appender
        .conn
        .execute("DELETE FROM receipts WHERE id = 5", [])
        .unwrap();
    let (snap, _) = reader.read(&*db, latest, &mut |_| {}).unwrap();
    assert_eq!(reader.last_extent(), Extent::Full);
    assert_same(&snap, &full(&path, latest), rounds + 2);
    assert_same(&snap, &alone(&path, latest), rounds + 2);
    // And the readings after it are incremental again.
    appender.append(latest);
    let (snap, _) = reader.read(&*db, latest, &mut |_| {}).unwrap();
    if horizon.is_none() {
        assert_eq!(reader.last_extent(), Extent::Appended);
    }
    assert_same(&snap, &full(&path, latest), rounds + 3);
    seen
}

#[test]
fn appends_give_the_triage_of_a_full_reading() {
    for seed in [1, 2, 3] {
        let rounds = run(seed, 1_500, 12, KEEP_ALL);
        assert_eq!(rounds.incremental, 12);
    }
}

#[test]
fn appends_and_states_changed_in_place_read_by_their_states_alone_give_a_full_reading() {
    let how = Appends {
        verify_each_time: false,
        ..KEEP_ALL
    };
    for seed in [1, 2, 3] {
        let rounds = run(seed, 1_500, 12, how);
        assert_eq!(rounds.incremental, 12);
    }
}

#[test]
fn appends_continue_an_analysis_that_let_go_of_old_fields() {
    // Three windows kept, the fewest with which receipts appended at about
    // the latest time never reach back past them.
    let how = Appends {
        horizon: Some(3),
        reach_back: false,
        ..KEEP_ALL
    };
    for seed in [1, 2, 3] {
        let rounds = run(seed, 1_500, 12, how);
        assert_eq!(rounds.incremental, 12, "seed {seed}");
    }
}

#[test]
fn appends_reaching_back_past_the_fields_kept_are_read_in_full() {
    let how = Appends {
        horizon: Reader::new(settings(NOW_MS)).fields_horizon,
        ..KEEP_ALL
    };
    let rounds = run(6, 1_500, 12, how);
    assert!(rounds.reached_back >= 2, "{rounds:?}");
}

#[test]
fn a_first_reading_split_over_connections_is_the_reading_of_one() {
    for seed in [4, 5] {
        let how = Appends {
            spread: true,
            ..KEEP_ALL
        };
        run(seed, 2_000, 6, how);
    }
}

#[test]
fn the_items_receipts_follow_the_appends() {
    items_follow_the_appends(false);
}

#[test]
fn the_items_receipts_of_a_split_reading_follow_the_appends() {
    items_follow_the_appends(true);
}

/// `spread` as in [`run`]: the first reading's items' receipts are then read
/// on its helper connections too.
fn items_follow_the_appends(spread: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (path, db, mut reader) = opened(&dir, "items.db", (800, 9), spread);
    // Copies appended right after old originals change old items too; they
    // are to continue the reading, not start it again.
    reader.fields_horizon = None;
    let (mut snap, pending) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
    reader
        .fill_receipts(pending, &mut snap, &mut |_| {})
        .unwrap();
    let fresh = reading::read_with_receipts(&*db, settings(NOW_MS), &mut |_| {}).unwrap();
    assert_eq!(snap.receipts.to_vec(), fresh.receipts.to_vec(), "first");
    assert!(snap.receipts.len() > 100);
    let mut appender = Appender {
        conn: Connection::open(&path).unwrap(),
        rng: ChaCha8Rng::seed_from_u64(9),
        next_key: 0,
        reach_back: true,
    };
    // Round after round (receipts settle, so some are read again; the
    // compact parts pile up and are merged).
    for round in 0..12 {
        for _ in 0..30 {
            appender.append(NOW_MS - 60_000);
        }
        let (mut snap, pending) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
        reader
            .fill_receipts(pending, &mut snap, &mut |_| {})
            .unwrap();
        let fresh = reading::read_with_receipts(&*db, settings(NOW_MS), &mut |_| {}).unwrap();
        assert_eq!(
            snap.receipts.to_vec(),
            fresh.receipts.to_vec(),
            "round {round}"
        );
        assert!(!snap.receipts.is_empty());
    }
}

#[test]
fn a_first_reading_tells_how_its_analysis_goes() {
    let dir = tempfile::tempdir().unwrap();
    let path = demo(&dir, "progress.db", 3_000, 5);
    let db = open_database(&path, Access::ReadOnly).unwrap();
    let mut reader = Reader::new(settings(NOW_MS));
    let mut seen: Vec<reading::Progress> = Vec::new();
    let (mut snap, pending) = reader.read(&*db, NOW_MS, &mut |p| seen.push(p)).unwrap();
    reader
        .fill_receipts(pending, &mut snap, &mut |p| seen.push(p))
        .unwrap();
    let analysing: Vec<&reading::Progress> = seen
        .iter()
        .filter(|p| p.stage.label().starts_with("analysing"))
        .collect();
    // Its steps, in order, each with a count that moves.
    let stages: Vec<&str> = analysing.iter().map(|p| p.stage.label()).collect();
    for step in [
        "analysing: reading texts to compare",
        "analysing: grouping copies",
        "analysing: looking for campaigns",
        "analysing: key conflicts and stuck receipts",
    ] {
        assert!(stages.contains(&step), "{step} not told: {stages:?}");
    }
    let texts: Vec<u64> = analysing
        .iter()
        .filter(|p| p.stage == reading::ReadingStage::Texts)
        .map(|p| p.done)
        .collect();
    assert!(texts.len() >= 2 && texts.windows(2).all(|w| w[0] <= w[1]));
    assert!(texts.last() > texts.first(), "{texts:?}");
    let steps: Vec<u64> = analysing
        .iter()
        .filter(|p| p.total == Some(3))
        .map(|p| p.done)
        .collect();
    assert_eq!(steps, vec![0, 1, 2]);
    // The items' receipts are counted as they are read.
    let items = seen
        .iter()
        .filter(|p| p.stage == reading::ReadingStage::ItemsReceipts)
        .map(|p| p.done)
        .max();
    assert_eq!(items, Some(snap.receipts.len() as u64));
}

/// What an item says of its receipts is what they say, read with it: the
/// items' receipts are read in the state of the database the analysis saw,
/// though the intake settles the stuck receipts in between (a first reading
/// split over connections or not).
#[test]
fn the_items_receipts_are_read_as_the_analysis_saw_them() {
    use receipt_review::model::ReceiptState;
    for spread in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (path, db, mut reader) = opened(&dir, "settling.db", (2_000, 3), spread);
        let (mut snap, pending) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
        let stuck: Vec<i64> = snap.triage.stuck.iter().map(|s| s.receipt_id).collect();
        assert!(stuck.len() >= 2, "{stuck:?}");
        let settled = Connection::open(&path)
            .unwrap()
            .execute(
                "UPDATE receipts SET state = 'completed', updated_at = ?1 \
                 WHERE state = 'in_flight'",
                [format_rfc3339(NOW_MS)],
            )
            .unwrap();
        assert!(settled >= stuck.len());
        reader
            .fill_receipts(pending, &mut snap, &mut |_| {})
            .unwrap();
        for &id in &stuck {
            let state = snap.receipts.get(id).map(|r| r.state);
            assert_eq!(state, Some(ReceiptState::InFlight), "receipt {id}");
        }
        // The reading's transaction ended: the WAL can be checkpointed whole.
        let (busy, _, _): (i64, i64, i64) = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(busy, 0, "the reading's transaction ended");
        // The next reading sees them settled: no longer stuck.
        let (mut next, pending) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
        reader
            .fill_receipts(pending, &mut next, &mut |_| {})
            .unwrap();
        assert!(next.triage.stuck.is_empty());
        assert_eq!(next.triage, full(&path, NOW_MS).triage);
    }
}

/// Receipts that share a request key (a table without the intake's UNIQUE
/// constraint, as a legacy intake left it): the screen's reader finds the
/// conflicts a full reading finds, first and after appends.
#[test]
fn receipts_sharing_a_key_give_the_conflicts_of_a_full_reading() {
    use receipt_review::triage::model::AttemptSource;
    let dir = tempfile::tempdir().unwrap();
    let path = demo(&dir, "legacy.db", 600, 11);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA foreign_keys = OFF;
         CREATE TABLE loose (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, request_key TEXT,
           digest TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'completed',
           response TEXT, created_at TEXT NOT NULL, updated_at TEXT);
         INSERT INTO loose SELECT id, scope, request_key, digest, payload, state, response,
           created_at, updated_at FROM receipts;
         DROP TABLE receipts;
         ALTER TABLE loose RENAME TO receipts;",
    )
    .unwrap();
    let mut appender = Appender {
        conn,
        rng: ChaCha8Rng::seed_from_u64(11),
        next_key: 0,
        reach_back: true,
    };
    // A receipt again under the key of another one: a different body, a
    // second after it or (`later`) from then on.
    // With `named`, the receipt is one that `key_conflicts` rows name.
    let share_a_key_of = |appender: &mut Appender, named: bool, n: usize, later: Option<i64>| {
        for k in 0..n {
            let (id, scope, _, at) = if named {
                appender
                    .conn
                    .query_row(
                        "SELECT r.id, r.scope, r.payload, r.created_at FROM receipts r
                         JOIN key_conflicts c ON c.receipt_id = r.id
                         WHERE r.request_key IS NOT NULL
                         ORDER BY r.id LIMIT 1 OFFSET ?1",
                        [k as i64],
                        |r| {
                            let at: String = r.get(3)?;
                            let at = receipt_review::model::time::parse_text(&at).unwrap();
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, at))
                        },
                    )
                    .unwrap()
            } else {
                appender.existing()
            };
            let key: Option<String> = appender
                .conn
                .query_row(
                    "SELECT request_key FROM receipts WHERE id = ?1",
                    [id],
                    |r| r.get(0),
                )
                .unwrap();
            let Some(key) = key else { continue };
            let payload = serde_json::json!({"message": format!("another body {k}")});
            let when = later.map_or(at + 1_000, |t| t + k as i64 * 1_000);
            let new = appender.insert(&scope, &payload, when, "completed");
            appender
                .conn
                .execute(
                    "UPDATE receipts SET request_key = ?1 WHERE id = ?2",
                    params![key, new],
                )
                .unwrap();
        }
    };
    let share_a_key = |appender: &mut Appender, n: usize, later: Option<i64>| {
        share_a_key_of(appender, false, n, later)
    };
    share_a_key(&mut appender, 12, None);
    let db = open_database(&path, Access::ReadOnly).unwrap();
    let mut reader = Reader::new(settings(NOW_MS));
    let (snap, _) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
    let from_receipts = |s: &Snapshot| {
        s.triage
            .conflicts
            .iter()
            .filter(|c| {
                c.attempts
                    .iter()
                    .any(|a| a.source == AttemptSource::Receipts)
            })
            .count()
    };
    assert!(from_receipts(&snap) >= 5, "{}", from_receipts(&snap));
    assert_same(&snap, &full(&path, NOW_MS), 0);
    let mut before = snap;
    for round in 1..=4 {
        // The last round shares the keys of receipts with refused attempts:
        // their conflicts hold both.
        share_a_key_of(
            &mut appender,
            round == 4,
            4,
            Some(NOW_MS + round as i64 * 60_000),
        );
        // Two receipts added together under a key no receipt had before,
        // with two bodies: a conflict of their own.
        for k in 0..2 {
            let at = NOW_MS + round as i64 * 60_000 + 30_000 + k;
            let body = serde_json::json!({"message": format!("pair {round} body {k}")});
            let new = appender.insert("contact", &body, at, "completed");
            appender
                .conn
                .execute(
                    "UPDATE receipts SET request_key = ?1 WHERE id = ?2",
                    params![format!("pair-{round}"), new],
                )
                .unwrap();
        }
        let (snap, _) = reader.read(&*db, NOW_MS, &mut |_| {}).unwrap();
        assert_eq!(reader.last_extent(), Extent::Appended);
        assert_same(&snap, &full(&path, NOW_MS), round);
        assert!(
            snap.triage
                .conflicts
                .iter()
                .any(|c| c.request_key == format!("pair-{round}")),
            "round {round}: the pair's conflict"
        );
        // Only the conflicts of the keys shared anew are made again: the
        // others are the same ones as before (what was made of them is kept).
        let (old, new) = (&before.triage.conflicts, &snap.triage.conflicts);
        let kept = new
            .iter()
            .filter(|c| old.iter().any(|o| std::sync::Arc::ptr_eq(o, c)))
            .count();
        assert!(
            kept + 4 >= old.len(),
            "round {round}: {kept} of {} kept",
            old.len()
        );
        before = snap;
    }
}
