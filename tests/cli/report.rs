//! The report is right on databases with known answers: the demo generator
//! plants every pathway and returns what it planted; the analysis must find it,
//! in every time format and through a legacy view.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use receipt_review::demo::{DemoOptions, DemoSummary, generate};
use receipt_review::model::Settings;
use receipt_review::storage::{Access, open_database};
use receipt_review::triage::model::{MatchKind, Triage};
use receipt_review::triage::{Analysis, analyze};
use rusqlite::Connection;

use crate::common::rows::load;

const NOW_MS: i64 = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

fn demo(dir: &Path, receipts: usize, seed: u64) -> (std::path::PathBuf, DemoSummary) {
    let path = dir.join(format!("demo-{seed}.db"));
    let summary = generate(
        &path.as_path().into(),
        &DemoOptions {
            receipts,
            seed,
            now_ms: NOW_MS,
        },
    )
    .unwrap();
    (path, summary)
}

fn analyse(path: &Path) -> Analysis {
    let db = open_database(path, Access::ReadOnly).unwrap();
    let loaded = load(&*db).unwrap();
    analyze(&loaded.receipts, &loaded.conflicts, &Settings::new(NOW_MS))
}

struct Score {
    exact_planted: usize,
    exact_found_with_class: usize,
    near_planted: usize,
    near_found: usize,
    reported: usize,
    reported_true: usize,
}

fn score(summary: &DemoSummary, triage: &Triage) -> Score {
    let found: HashMap<Vec<i64>, _> = triage
        .duplicates
        .iter()
        .map(|g| (g.receipt_ids(), g))
        .collect();
    let planted: BTreeSet<Vec<i64>> = summary.groups.iter().map(|g| g.receipt_ids()).collect();
    let mut s = Score {
        exact_planted: 0,
        exact_found_with_class: 0,
        near_planted: 0,
        near_found: 0,
        reported: triage.duplicates.len(),
        reported_true: triage
            .duplicates
            .iter()
            .filter(|g| planted.contains(&g.receipt_ids()))
            .count(),
    };
    for g in &summary.groups {
        let hit = found.get(&g.receipt_ids());
        if g.match_kind() == MatchKind::Exact {
            s.exact_planted += 1;
            if hit.is_some_and(|f| f.class == g.class && f.gaps_ms == g.gaps_ms) {
                s.exact_found_with_class += 1;
            }
        } else {
            s.near_planted += 1;
            if hit.is_some() {
                s.near_found += 1;
            }
        }
    }
    s
}

fn assert_right(summary: &DemoSummary, analysis: &Analysis) {
    let t = &analysis.triage;
    let s = score(summary, t);
    eprintln!(
        "exact {}/{} with class; near {}/{}; reported true {}/{}",
        s.exact_found_with_class,
        s.exact_planted,
        s.near_found,
        s.near_planted,
        s.reported_true,
        s.reported
    );
    assert!(s.exact_planted > 0 && s.near_planted > 0);
    assert_eq!(
        s.exact_found_with_class, s.exact_planted,
        "every exact group, with its class"
    );
    assert!(
        s.near_found * 10 >= s.near_planted * 9,
        "near recall below 90%"
    );
    assert!(
        s.reported_true * 100 >= s.reported * 95,
        "precision below 95%"
    );

    // A genuine second message hours later is never grouped with the first.
    for (a, b) in &summary.follow_ups {
        assert!(
            !t.duplicates
                .iter()
                .any(|g| g.receipt_ids().contains(a) && g.receipt_ids().contains(b)),
            "follow-up {a}/{b} was grouped"
        );
    }
    let window = Settings::new(NOW_MS).window_ms;
    assert!(
        t.duplicates
            .iter()
            .all(|g| g.gaps_ms.iter().all(|&gap| gap <= window))
    );

    let conflicts: Vec<i64> = t.conflicts.iter().map(|c| c.receipt_id).collect();
    let planted: Vec<i64> = summary.conflicts.iter().map(|c| c.receipt_id).collect();
    assert_eq!(conflicts, planted, "exactly the conflicts");
    for (c, p) in t.conflicts.iter().zip(&summary.conflicts) {
        assert_eq!(
            c.attempts.len(),
            p.attempts,
            "attempts of conflict:{}",
            c.receipt_id
        );
    }
    let stuck: Vec<i64> = t.stuck.iter().map(|s| s.receipt_id).collect();
    assert_eq!(stuck, summary.stuck, "exactly the stuck receipts");
    let damaged: Vec<(i64, &str)> = t
        .damaged
        .iter()
        .map(|d| (d.receipt_id, d.reason.as_str()))
        .collect();
    let planted: Vec<(i64, &str)> = summary
        .damaged
        .iter()
        .map(|d| (d.receipt_id, d.reason.as_str()))
        .collect();
    assert_eq!(damaged, planted, "exactly the damaged rows");
    for id in &summary.honeypot_filled {
        assert!(t.suspected_bots.contains(id), "honeypot {id} not flagged");
    }
}

#[test]
fn the_analysis_finds_what_the_demo_planted() {
    let dir = tempfile::tempdir().unwrap();
    for seed in [1, 2, 3] {
        let (path, summary) = demo(dir.path(), 4_000, seed);
        assert_right(&summary, &analyse(&path));
    }
}

/// Rewrites `created_at` into another format, in place.
fn convert_times(path: &Path, expression: &str) {
    let conn = Connection::open(path).unwrap();
    // Damaged times stay as they are (they must stay damaged).
    conn.execute_batch(&format!(
        "UPDATE receipts SET created_at = {expression}
         WHERE julianday(created_at) IS NOT NULL;"
    ))
    .unwrap();
}

#[test]
fn every_time_format_gives_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (path, summary) = demo(dir.path(), 3_000, 7);
    let reference = analyse(&path);
    assert_right(&summary, &reference);
    for (name, expression) in [
        ("sqlite-text", "strftime('%Y-%m-%d %H:%M:%f', created_at)"),
        (
            "unix-ms",
            "CAST(round((julianday(created_at) - 2440587.5) * 86400000.0) AS INTEGER)",
        ),
        (
            "rfc3339-offset",
            "strftime('%Y-%m-%dT%H:%M:%f', created_at, '+9 hours') || '+09:00'",
        ),
    ] {
        let copy = dir.path().join(format!("{name}.db"));
        std::fs::copy(&path, &copy).unwrap();
        for side in ["-wal", "-shm"] {
            let from = format!("{}{side}", path.display());
            if Path::new(&from).exists() {
                std::fs::copy(&from, format!("{}{side}", copy.display())).unwrap();
            }
        }
        convert_times(&copy, expression);
        let converted = analyse(&copy);
        assert_eq!(converted.triage, reference.triage, "{name}");
    }
}

#[test]
fn unix_seconds_lose_only_sub_second_detail() {
    let dir = tempfile::tempdir().unwrap();
    let (path, summary) = demo(dir.path(), 3_000, 11);
    convert_times(
        &path,
        "CAST((julianday(created_at) - 2440587.5) * 86400.0 AS INTEGER)",
    );
    let analysis = analyse(&path);
    let planted: Vec<i64> = summary.damaged.iter().map(|d| d.receipt_id).collect();
    let damaged: Vec<i64> = analysis
        .triage
        .damaged
        .iter()
        .map(|d| d.receipt_id)
        .collect();
    assert_eq!(damaged, planted);
    let stuck: Vec<i64> = analysis.triage.stuck.iter().map(|s| s.receipt_id).collect();
    assert_eq!(stuck, summary.stuck);
}

#[test]
fn a_legacy_table_through_a_view_gives_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (path, summary) = demo(dir.path(), 3_000, 5);
    let reference = analyse(&path);
    let legacy = dir.path().join("legacy.db");
    let conn = Connection::open(&legacy).unwrap();
    conn.execute_batch(&format!(
        "ATTACH '{}' AS demo;
         CREATE TABLE submissions AS SELECT id AS submission_no, scope AS site_form,
            request_key AS idem, digest AS body_sha, payload AS body, state AS status,
            created_at AS received FROM demo.receipts;
         CREATE TABLE key_conflicts AS SELECT * FROM demo.key_conflicts;
         CREATE TABLE replays AS SELECT * FROM demo.replays;
         DETACH demo;
         CREATE VIEW receipts AS SELECT submission_no AS id, site_form AS scope,
            idem AS request_key, body_sha AS digest, body AS payload, status AS state,
            received AS created_at FROM submissions;",
        path.display()
    ))
    .unwrap();
    drop(conn);
    let through_view = analyse(&legacy);
    assert_eq!(through_view.triage, reference.triage);
    assert_right(&summary, &through_view);
}
