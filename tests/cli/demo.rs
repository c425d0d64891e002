//! The demo generator: deterministic, exactly the planted rows, realistic content.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use receipt_review::demo::{DemoOptions, DemoSummary, generate};
use receipt_review::intake::canonical::{canonical_text, parse_object, sha256_hex};
use receipt_review::model::Millis;
use receipt_review::model::time::parse_text;
use receipt_review::traffic::VisitKind;
use receipt_review::triage::model::{DamageReason, GapClass, MatchKind};
use rusqlite::Connection;
use serde_json::Value;

const NOW: Millis = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z
const WINDOW: Millis = 10 * 60 * 1000;
const STUCK_AFTER: Millis = 5 * 60 * 1000;

fn opts(receipts: usize, seed: u64) -> DemoOptions {
    DemoOptions {
        receipts,
        seed,
        now_ms: NOW,
    }
}

fn make(dir: &Path, name: &str, o: &DemoOptions) -> (Connection, DemoSummary) {
    let path = dir.join(name);
    let summary = generate(&path.as_path().into(), o).unwrap();
    (Connection::open(&path).unwrap(), summary)
}

fn count(conn: &Connection, sql: &str) -> usize {
    conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as usize
}

fn dump(conn: &Connection) -> Vec<String> {
    let mut out = Vec::new();
    for table in ["receipts", "key_conflicts", "replays"] {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {table} ORDER BY id"))
            .unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let mut line = format!("{table}:");
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    line.push_str(&format!("{v:?}|"));
                }
                Ok(line)
            })
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

struct Row {
    scope: String,
    key: Option<String>,
    digest: String,
    payload: String,
    state: String,
    created_at: String,
}

fn rows(conn: &Connection) -> BTreeMap<i64, Row> {
    let mut stmt = conn
        .prepare("SELECT id, scope, request_key, digest, payload, state, created_at FROM receipts")
        .unwrap();
    stmt.query_map([], |r| {
        Ok((
            r.get(0)?,
            Row {
                scope: r.get(1)?,
                key: r.get(2)?,
                digest: r.get(3)?,
                payload: r.get(4)?,
                state: r.get(5)?,
                created_at: r.get(6)?,
            },
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

type Fields = BTreeMap<String, String>;

fn visitor_fields(payload: &str) -> Fields {
    let obj = parse_object(payload).unwrap();
    ["name", "email", "phone", "company", "subject", "message"]
        .iter()
        .filter_map(|k| {
            let v = obj.get(*k)?.as_str()?.trim().to_string();
            (!v.is_empty()).then(|| (k.to_string(), v))
        })
        .collect()
}

#[test]
fn same_seed_and_now_give_identical_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (a, sa) = make(dir.path(), "a.db", &opts(1_500, 42));
    let (b, sb) = make(dir.path(), "b.db", &opts(1_500, 42));
    assert_eq!(sa, sb);
    assert_eq!(dump(&a), dump(&b));
    let (c, _) = make(dir.path(), "c.db", &opts(1_500, 43));
    assert_ne!(dump(&a), dump(&c), "another seed, other rows");
}

#[test]
fn refuses_to_overwrite_a_non_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("taken.db");
    std::fs::write(&path, b"precious").unwrap();
    let err = generate(&path.as_path().into(), &opts(100, 1)).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"precious");
    // Nothing is left behind when the file cannot be written.
    let nowhere = dir.path().join("missing-folder").join("demo.db");
    let err = generate(&nowhere.as_path().into(), &opts(10, 1)).unwrap_err();
    assert!(err.to_string().contains("cannot create"), "{err}");
    assert!(!nowhere.exists());
    // An empty file is fine.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    generate(&empty.as_path().into(), &opts(50, 1)).unwrap();
}

#[test]
fn exact_receipt_counts_for_any_size() {
    let dir = tempfile::tempdir().unwrap();
    for n in [0usize, 1, 7, 39, 40, 333] {
        let (conn, s) = make(dir.path(), &format!("n{n}.db"), &opts(n, 9));
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM receipts"), n, "n={n}");
        assert_eq!(s.receipts, n);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
}

#[test]
fn planted_items_match_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(20_000, 7);
    let (conn, s) = make(dir.path(), "demo.db", &o);
    check_planted(&conn, &s, 20_000);
}

/// Every planted item is in the rows as the summary says, and nothing else is planted by chance.
fn check_planted(conn: &Connection, s: &DemoSummary, receipts: usize) {
    let all = rows(conn);
    assert_eq!(all.len(), receipts);
    assert_eq!(s.receipts, receipts);

    // replays and conflicts
    assert!(s.replays > 0);
    assert_eq!(count(conn, "SELECT COUNT(*) FROM replays"), s.replays);
    assert!(!s.conflicts.is_empty());
    assert_eq!(
        count(conn, "SELECT COUNT(*) FROM key_conflicts"),
        s.key_conflict_rows()
    );
    for c in &s.conflicts {
        let n = count(
            conn,
            &format!(
                "SELECT COUNT(*) FROM key_conflicts WHERE receipt_id = {}",
                c.receipt_id
            ),
        );
        assert_eq!(n, c.attempts);
        assert!(c.attempts >= 1);
        let row = &all[&c.receipt_id];
        assert_eq!(row.key.as_deref(), Some(c.request_key.as_str()));
        assert_eq!(row.scope, c.scope);
    }

    // in flight: stuck and fresh, nothing else
    let in_flight: HashSet<i64> = all
        .iter()
        .filter(|(_, r)| r.state == "in_flight")
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(in_flight.len(), s.stuck.len() + s.fresh_in_flight.len());
    assert!(s.stuck.len() >= 3 && s.fresh_in_flight.len() >= 2);
    for id in &s.stuck {
        let at = parse_text(&all[id].created_at).unwrap();
        assert!(in_flight.contains(id));
        assert!(NOW - at > STUCK_AFTER, "stuck {id} is {} ms old", NOW - at);
    }
    for id in &s.fresh_in_flight {
        let at = parse_text(&all[id].created_at).unwrap();
        assert!(in_flight.contains(id));
        assert!(NOW - at < STUCK_AFTER && NOW > at);
    }
    assert_eq!(
        count(conn, "SELECT COUNT(*) FROM receipts WHERE state = 'failed'"),
        0
    );
    assert!(!s.reclaimed.is_empty());

    // damaged rows, each of the three kinds, and nothing else damaged
    for reason in [
        DamageReason::Payload,
        DamageReason::Time,
        DamageReason::Digest,
    ] {
        assert!(s.damaged_count(reason) >= 1, "{reason:?}");
    }
    let damaged: HashSet<i64> = s.damaged.iter().map(|d| d.receipt_id).collect();
    for d in &s.damaged {
        let row = &all[&d.receipt_id];
        match d.reason {
            DamageReason::Payload => assert!(canonical_text(&row.payload).is_err()),
            DamageReason::Time => assert!(parse_text(&row.created_at).is_err()),
            DamageReason::Digest => {
                let canonical = canonical_text(&row.payload).unwrap();
                assert_ne!(sha256_hex(&canonical), row.digest);
            }
            DamageReason::State => unreachable!(),
        }
    }
    let mut total_bytes = 0usize;
    for (id, row) in &all {
        if damaged.contains(id) {
            continue;
        }
        assert_eq!(canonical_text(&row.payload).unwrap(), row.payload, "{id}");
        assert_eq!(sha256_hex(&row.payload), row.digest, "{id}");
        let at = parse_text(&row.created_at).unwrap();
        assert!(at < NOW && at > NOW - 800 * 24 * 3_600_000, "{id}");
        total_bytes += row.payload.len();
    }
    let average = total_bytes / (all.len() - damaged.len());
    assert!(
        (330..=560).contains(&average),
        "average payload {average} bytes"
    );

    // groups: one scope, the class of the largest gap, exact members equal to the earliest
    for pathway in [
        VisitKind::SecondClick,
        VisitKind::RetryNewKey,
        VisitKind::Reload,
        VisitKind::TwoHandlers,
        VisitKind::EditedResend,
    ] {
        assert!(s.pathway_count(pathway) > 0, "{pathway:?}");
    }
    for class in GapClass::ALL {
        assert!(s.group_count(Some(class), None) > 0, "{class:?}");
    }
    for kind in [MatchKind::Exact, MatchKind::Partial, MatchKind::Edited] {
        assert!(s.group_count(None, Some(kind)) > 0, "{kind:?}");
    }
    for g in &s.groups {
        let first = visitor_fields(&all[&g.members[0].id].payload);
        let mut last_at = None;
        for (i, m) in g.members.iter().enumerate() {
            let row = &all[&m.id];
            assert_eq!(row.scope, g.scope);
            let at = parse_text(&row.created_at).unwrap();
            assert_eq!(at, m.at_ms);
            if let Some(prev) = last_at {
                assert_eq!(g.gaps_ms[i - 1], at - prev);
                assert!(at - prev <= WINDOW);
            }
            last_at = Some(at);
            let fields = visitor_fields(&row.payload);
            match m.match_kind {
                MatchKind::Exact => assert_eq!(fields, first, "group {:?}", g.receipt_ids()),
                MatchKind::Partial => {
                    let (small, big) = if fields.len() < first.len() {
                        (&fields, &first)
                    } else {
                        (&first, &fields)
                    };
                    assert!(small.len() < big.len());
                    assert!(small.iter().all(|(k, v)| big.get(k) == Some(v)));
                }
                MatchKind::Edited => {
                    assert_eq!(fields.len(), first.len());
                    let differing: Vec<&String> = fields
                        .iter()
                        .filter(|(k, v)| first.get(*k) != Some(*v))
                        .map(|(k, _)| k)
                        .collect();
                    assert_eq!(differing, ["message"], "the free-text field is edited");
                }
                MatchKind::Erased => panic!("the demo erases nothing: {:?}", g.receipt_ids()),
            }
        }
        let max = *g.gaps_ms.iter().max().unwrap();
        assert_eq!(g.class, GapClass::of_gap(max));
        match g.pathway {
            VisitKind::TwoHandlers => assert_eq!(g.class, GapClass::Simultaneous),
            VisitKind::SecondClick | VisitKind::RetryNewKey => {
                assert_eq!(g.class, GapClass::Seconds)
            }
            VisitKind::Reload => assert_eq!(g.class, GapClass::Minutes),
            VisitKind::EditedResend => assert_ne!(g.class, GapClass::Simultaneous),
            other => panic!("a group planted by {other:?}"),
        }
        // a new key per copy, or none
        let keys: Vec<_> = g
            .members
            .iter()
            .filter_map(|m| all[&m.id].key.clone())
            .collect();
        let distinct: HashSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len());
    }

    // follow-ups: the same visitor, hours later
    assert!(!s.follow_ups.is_empty());
    for (a, b) in &s.follow_ups {
        let (ra, rb) = (&all[a], &all[b]);
        let gap = parse_text(&rb.created_at).unwrap() - parse_text(&ra.created_at).unwrap();
        assert!(gap > 2 * WINDOW, "{gap}");
        let (fa, fb) = (visitor_fields(&ra.payload), visitor_fields(&rb.payload));
        assert_eq!(fa.get("email"), fb.get("email"));
    }

    // bots: the same body from three or more senders within the window
    assert!(s.bot_campaigns > 0);
    let mut by_body: BTreeMap<String, Vec<(Millis, String)>> = BTreeMap::new();
    for id in &s.bots {
        let row = &all[id];
        let fields = visitor_fields(&row.payload);
        by_body.entry(fields["message"].clone()).or_default().push((
            parse_text(&row.created_at).unwrap(),
            fields["email"].clone(),
        ));
    }
    assert_eq!(by_body.len(), s.bot_campaigns);
    for senders in by_body.values() {
        let emails: HashSet<_> = senders.iter().map(|s| &s.1).collect();
        assert!(emails.len() >= 3 && emails.len() == senders.len());
        let span =
            senders.iter().map(|s| s.0).max().unwrap() - senders.iter().map(|s| s.0).min().unwrap();
        assert!(span <= WINDOW);
    }
    assert!(!s.honeypot_filled.is_empty());
    for id in &s.honeypot_filled {
        let obj = parse_object(&all[id].payload).unwrap();
        let filled = ["_gotcha", "bot-field", "hp", "honeypot"].iter().any(|k| {
            obj.get(*k)
                .and_then(Value::as_str)
                .is_some_and(|v| !v.is_empty())
        });
        assert!(filled, "{id}");
    }
    // and nobody else fills a honeypot
    let bot_ids: HashSet<i64> = s.honeypot_filled.iter().copied().collect();
    for (id, row) in &all {
        if damaged.contains(id) || bot_ids.contains(id) {
            continue;
        }
        let obj = parse_object(&row.payload).unwrap();
        for k in ["_gotcha", "bot-field", "hp", "honeypot"] {
            if let Some(v) = obj.get(k) {
                assert_eq!(v, "", "{id}");
            }
        }
    }

    // nothing looks like a copy or a bot campaign by chance
    let mut group_of: BTreeMap<i64, usize> = BTreeMap::new();
    for (i, g) in s.groups.iter().enumerate() {
        for m in &g.members {
            group_of.insert(m.id, i);
        }
    }
    let bot_set: HashSet<i64> = s.bots.iter().copied().collect();
    let mut by_fingerprint: BTreeMap<(String, Fields), Vec<(Millis, i64)>> = BTreeMap::new();
    let mut by_message: BTreeMap<(String, String), Vec<(Millis, String)>> = BTreeMap::new();
    for (id, row) in &all {
        if damaged.contains(id) || bot_set.contains(id) {
            continue;
        }
        let fields = visitor_fields(&row.payload);
        let at = parse_text(&row.created_at).unwrap();
        if let Some(m) = fields.get("message") {
            by_message
                .entry((row.scope.clone(), m.clone()))
                .or_default()
                .push((at, fields.get("email").cloned().unwrap_or_default()));
        }
        by_fingerprint
            .entry((row.scope.clone(), fields))
            .or_default()
            .push((at, *id));
    }
    for copies in by_fingerprint.values_mut() {
        copies.sort();
        for w in copies.windows(2) {
            if w[1].0 - w[0].0 <= WINDOW {
                let (a, b) = (group_of.get(&w[0].1), group_of.get(&w[1].1));
                assert!(
                    a.is_some() && a == b,
                    "unplanned copies {} and {}",
                    w[0].1,
                    w[1].1
                );
            }
        }
    }
    for senders in by_message.values_mut() {
        senders.sort();
        for (i, first) in senders.iter().enumerate() {
            let emails: HashSet<&String> = senders[i..]
                .iter()
                .take_while(|s| s.0 - first.0 <= WINDOW)
                .map(|s| &s.1)
                .collect();
            assert!(emails.len() < 3, "an unplanned bot-like body: {senders:?}");
        }
    }

    // noise fields make every click unique
    let first_group = &s.groups[0];
    let e0 = parse_object(&all[&first_group.members[0].id].payload).unwrap();
    let e1 = parse_object(&all[&first_group.members[1].id].payload).unwrap();
    assert_ne!(e0.get("event_id"), e1.get("event_id"));

    // Japanese text
    assert!(s.japanese_receipts > all.len() / 3);
    let japanese = all
        .values()
        .filter(|r| {
            r.payload.chars().any(|c| {
                ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c)
            })
        })
        .count();
    assert!(
        japanese >= s.japanese_receipts,
        "{japanese} < {}",
        s.japanese_receipts
    );
    // several scopes
    let scopes: HashSet<&str> = all.values().map(|r| r.scope.as_str()).collect();
    assert!(scopes.len() >= 4, "{scopes:?}");
}
