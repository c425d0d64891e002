//! The filter's index finds, on a demo database, the rows that comparing
//! every row with the filter finds: on every tab, under every class filter,
//! typed from scratch or letter by letter (each query narrowing the last).

use receipt_review::demo::{DemoOptions, generate};
use receipt_review::model::Settings;
use receipt_review::reading::{self, Snapshot};
use receipt_review::storage::{Access, open_database};
use receipt_review::triage::model::GapClass;
use receipt_review::tui::app::search::{
    Known, SearchIndex, compute, compute_by_scan, narrows, normalize_query,
};
use receipt_review::tui::app::{ClassFilter, Tab};

const NOW_MS: i64 = 1_795_947_330_123;

fn demo(receipts: usize) -> (tempfile::TempDir, Snapshot) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.db");
    let options = DemoOptions {
        receipts,
        seed: 4,
        now_ms: NOW_MS,
    };
    generate(&path.as_path().into(), &options).unwrap();
    let db = open_database(&path, Access::ReadOnly).unwrap();
    let snap = reading::read_with_receipts(&*db, Settings::new(NOW_MS), &mut |_| {}).unwrap();
    (dir, snap)
}

/// Queries: fixed ones, and pieces of what the items show.
fn queries(snap: &Snapshot) -> Vec<String> {
    let mut out: Vec<String> = [
        "",
        "shop",
        "smith",
        "dup:1",
        "corp.ex",
        "tanaka",
        "x",
        "lp/ai",
        "SMITH",
        "Ｓｍｉｔｈ",
        "  smith  ",
        "conflict:",
        "stuck:",
        "damaged:",
        "payload",
        "@",
        "1",
        "10",
        "0",
        "01",
        "zzzz-none",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    let t = &snap.triage;
    for g in t.duplicates.iter().step_by(97) {
        out.push(g.members.last().unwrap().id.to_string());
        out.push(g.scope.clone());
    }
    for r in snap.receipts.to_vec().iter().step_by(131) {
        if let Some((_, v)) = r.visitor.0.first() {
            out.push(v.chars().take(7).collect());
        }
        if let Some(k) = &r.request_key {
            out.push(k.to_uppercase());
        }
    }
    out
}

#[test]
fn the_index_finds_the_rows_the_scan_finds() {
    let (_dir, snap) = demo(4_000);
    assert!(!snap.triage.duplicates.is_empty() && !snap.triage.conflicts.is_empty());
    finds_what_the_scan_finds(&snap, &queries(&snap));
}

/// A reading whose receipts are still being read: its rows' texts are
/// short, and their chunks keep no signatures.
#[test]
fn an_index_of_rows_without_their_receipts_finds_the_rows_the_scan_finds() {
    let (_dir, snap) = demo(4_000);
    let asked = queries(&snap);
    let mut bare = snap;
    bare.receipts = Default::default();
    let search = finds_what_the_scan_finds(&bare, &asked);
    let rows: usize = Tab::ALL.iter().map(|&t| search.tab(t).len()).sum();
    // A bot group keeps the ids of its many receipts (8 bytes each).
    let bot_ids: usize = bare
        .triage
        .bot_groups
        .iter()
        .map(|g| g.receipts.len())
        .sum();
    // A row's signature alone takes 160 bytes.
    assert!(
        search.bytes() < rows * 100 + bot_ids * 8,
        "{} bytes for {rows} rows",
        search.bytes()
    );
}

/// Builds the index of `snap` and checks what it finds; returns it.
fn finds_what_the_scan_finds(snap: &Snapshot, queries: &[String]) -> SearchIndex {
    let search = SearchIndex::build(snap, None);
    let classes = [
        ClassFilter::All,
        ClassFilter::Only(GapClass::Simultaneous),
        ClassFilter::Only(GapClass::Minutes),
    ];
    for query in queries {
        for tab in Tab::ALL {
            for class in classes {
                let expected = compute_by_scan(snap, tab, class, query);
                let q = normalize_query(query);
                let found = compute(snap, &search, tab, class, &q, Known::Nothing);
                assert_eq!(found, expected, "{tab:?} {class:?} {query:?}");
            }
        }
        // Letter by letter, each query narrowing the rows of the one before.
        for tab in Tab::ALL {
            let mut shown: Option<(String, Vec<usize>)> = None;
            for end in query.char_indices().map(|(i, c)| i + c.len_utf8()) {
                let typed = &query[..end];
                let q = normalize_query(typed);
                let known = shown
                    .as_ref()
                    .filter(|(before, _)| !before.is_empty() && narrows(before, &q))
                    .map_or(Known::Nothing, |(_, rows)| Known::Among(rows));
                let found = compute(snap, &search, tab, ClassFilter::All, &q, known);
                let expected = compute_by_scan(snap, tab, ClassFilter::All, typed);
                assert_eq!(found, expected, "{tab:?} typed {typed:?}");
                shown = Some((q, found));
            }
        }
    }
    search
}

#[test]
fn an_index_built_from_the_last_one_is_the_same() {
    let (_dir, snap) = demo(1_500);
    let fresh = SearchIndex::build(&snap, None);
    // The first reading comes without receipts: nothing of it may be copied.
    let mut bare = snap.clone();
    bare.receipts = Default::default();
    let before = SearchIndex::build(&bare, None);
    let copied = SearchIndex::build(&snap, Some(&before));
    let again = SearchIndex::build(&snap, Some(&fresh));
    for query in queries(&snap) {
        let q = normalize_query(&query);
        for tab in Tab::ALL {
            let expected = compute(&snap, &fresh, tab, ClassFilter::All, &q, Known::Nothing);
            assert_eq!(
                compute(&snap, &copied, tab, ClassFilter::All, &q, Known::Nothing),
                expected
            );
            assert_eq!(
                compute(&snap, &again, tab, ClassFilter::All, &q, Known::Nothing),
                expected
            );
        }
    }
}

/// The first reading of a database reaches the screen before the receipts
/// its items show, not indexed: every row is listed, no query finds any (the
/// list says it has not seen them), and the reading with the receipts that
/// follows, indexed after it, finds what the scan finds.
#[test]
fn a_reading_not_indexed_lists_every_row_and_the_next_finds_what_the_scan_finds() {
    let (_dir, snap) = demo(1_500);
    let mut bare = snap.clone();
    bare.receipts = Default::default();
    let unindexed = SearchIndex::unindexed(&bare);
    let asked = queries(&snap);
    for tab in Tab::ALL {
        let all = compute(&bare, &unindexed, tab, ClassFilter::All, "", Known::Nothing);
        assert_eq!(all, compute_by_scan(&bare, tab, ClassFilter::All, ""));
        assert!(
            !all.is_empty() || matches!(tab, Tab::Log | Tab::Receipts | Tab::Forms),
            "{tab:?}"
        );
        for query in asked.iter().filter(|q| !normalize_query(q).is_empty()) {
            let q = normalize_query(query);
            for known in [Known::Nothing, Known::Among(&all)] {
                let found = compute(&bare, &unindexed, tab, ClassFilter::All, &q, known);
                assert_eq!(found, Vec::<usize>::new(), "{tab:?} {query:?}");
            }
        }
    }
    let full = SearchIndex::build(&snap, Some(&unindexed));
    for query in &asked {
        let q = normalize_query(query);
        for tab in Tab::ALL {
            let expected = compute_by_scan(&snap, tab, ClassFilter::All, query);
            let shown: &[usize] = &[];
            let known = [Known::Nothing, Known::Before(unindexed.tab(tab), shown)];
            for known in known {
                let found = compute(&snap, &full, tab, ClassFilter::All, &q, known);
                assert_eq!(found, expected, "{tab:?} {query:?}");
            }
        }
    }
}
