//! Names and phone numbers as visitors type them: the list filter (`/`) and
//! the Receipts tab's search find `山田 太郎` by `山田太郎` and `03-1234-5678`
//! by `0312345678`, and the other way round; a full-width space in a query
//! is shown as the operator typed it.

use crate::common;
use crate::fixture::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use receipt_review::i18n::Lang;
use receipt_review::model::Settings;
use receipt_review::tui::app::msg::{Effect, Msg};
use receipt_review::tui::app::{App, Tab, update};
use receipt_review::tui::collection::{Request, Worker, WorkerConfig};
use rusqlite::Connection;

/// Opens the filter, types `text` over what it held, letter by letter (each
/// letter narrowing the rows of the one before), and keeps it (Enter).
fn filter(app: &mut App, fx: &Fixture, text: &str) {
    send(app, fx, key('/'));
    let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
    send(app, fx, Msg::Key(ctrl_u));
    for c in text.chars() {
        send(app, fx, key(c));
    }
    send(app, fx, code(KeyCode::Enter));
}

/// The items the Duplicates tab shows.
fn duplicates(app: &App) -> Vec<String> {
    app.rows(Tab::Duplicates)
        .iter()
        .filter_map(|&row| app.row_id(Tab::Duplicates, row))
        .collect()
}

#[test]
fn the_filter_finds_a_name_with_or_without_its_space() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // 山田太郎 and 佐藤花子 wrote their names without a space.
    for typed in ["山田太郎", "山田 太郎", "山田\u{3000}太郎", "山田  太郎"] {
        filter(&mut app, &fx, typed);
        assert_eq!(duplicates(&app), ["dup:110"], "{typed}");
    }
    filter(&mut app, &fx, "佐藤　花子");
    assert_eq!(duplicates(&app), ["dup:120"]);
    // Between Latin letters a space still parts words.
    filter(&mut app, &fx, "alicesmith");
    assert!(duplicates(&app).is_empty());
    filter(&mut app, &fx, "alice smith");
    assert_eq!(duplicates(&app), ["dup:101"]);
}

#[test]
fn the_filter_finds_a_phone_number_whatever_its_separators() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // 山田太郎 wrote 03-1234-5678.
    for typed in [
        "0312345678",
        "03-1234-5678",
        "03 1234 5678",
        "(03)1234-5678",
        "０３１２３４５６７８",
        "+81 3-1234-5678",
        "12345678",
    ] {
        filter(&mut app, &fx, typed);
        assert_eq!(duplicates(&app), ["dup:110"], "{typed}");
    }
    filter(&mut app, &fx, "0312345679");
    assert!(duplicates(&app).is_empty());
}

#[test]
fn a_full_width_space_in_the_filter_is_shown_as_typed() {
    let fx = fixture();
    for lang in [Lang::En, Lang::Ja] {
        let mut app = loaded_in(lang, &fx, 160, 48);
        filter(&mut app, &fx, "山田\u{3000}太郎");
        let text = screen(&app, 160, 48);
        assert!(!text.contains("\\u{3000}"), "{text}");
        assert!(text.contains("dup:110"), "{text}");
        // The list title holds the filter as typed.
        assert!(text.contains("山田\u{3000}太郎"), "{text}");
    }
}

/// A database of three receipts: 渡辺 美咲 with her phone number written with
/// dashes, then without, and 渡辺 美穂.
fn database(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("receipts.db");
    let o = common::run(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let conn = Connection::open(&db).unwrap();
    let at = "2026-11-29T09:00:00.000Z";
    let visitor = |name: &str, phone: &str| format!(r#"{{"name":"{name}","phone":"{phone}"}}"#);
    common::insert(
        &conn,
        1,
        "k1",
        &visitor("渡辺 美咲", "070-4350-0720"),
        at,
        "completed",
    );
    common::insert(
        &conn,
        2,
        "k2",
        &visitor("渡辺美咲", "07043500720"),
        at,
        "completed",
    );
    common::insert(
        &conn,
        3,
        "k3",
        &visitor("渡辺 美穂", "070-4350-0721"),
        at,
        "completed",
    );
    db
}

#[test]
fn the_receipts_tab_finds_a_name_and_a_phone_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let config = WorkerConfig {
        location: database(dir.path()).into(),
        read_only: true,
        settings: Settings::new(DEMO_NOW),
        fixed_now: Some(DEMO_NOW),
        operator: "alice".into(),
        export_dir: dir.path().to_path_buf(),
        lang: Lang::Ja,
    };
    let worker = Worker::start(config, tx).unwrap();
    worker.send(Request::Load);
    let mut app = App::new(false).with_lang(Lang::Ja).with_operator("alice");
    update(
        &mut app,
        Msg::Resize {
            width: 160,
            height: 48,
        },
    );
    // The first reading, then the Receipts tab.
    loop {
        let msg = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        if matches!(msg, Msg::Loaded(_)) {
            update(&mut app, msg);
            break;
        }
    }
    update(&mut app, key('6'));
    assert_eq!(app.tab, Tab::Receipts);
    let mut search = |typed: &str| -> String {
        update(&mut app, key('/'));
        update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
        );
        for c in typed.chars() {
            update(&mut app, key(c));
        }
        let effects = update(&mut app, code(KeyCode::Enter));
        let Some(Effect::Find { query, now_ms }) = effects
            .into_iter()
            .find(|e| matches!(e, Effect::Find { .. }))
        else {
            panic!("{typed}: no search");
        };
        worker.send(Request::Find(query, now_ms));
        let found = next_answer(&rx);
        assert!(matches!(found, Msg::Found { .. }), "{typed}");
        update(&mut app, found);
        screen(&app, 160, 48)
    };
    for typed in ["渡辺美咲", "渡辺　美咲", "07043500720", "070-4350-0720"] {
        let text = search(typed);
        assert!(
            text.contains("#1 ") && text.contains("#2 "),
            "{typed}: {text}"
        );
        assert!(!text.contains("#3 "), "{typed}: {text}");
        assert!(!text.contains("\\u{3000}"), "{typed}: {text}");
    }
    // The title holds the query as typed.
    let text = search("渡辺　美咲");
    assert!(text.contains("「渡辺\u{3000}美咲」"), "{text}");
}

/// On a demo database, the filter's index finds what comparing every row
/// finds for names and phone numbers written another way than the
/// visitor wrote them, typed letter by letter (each letter narrowing the
/// rows of the one before when it can), and the row of the receipt they
/// came from is among them.
#[test]
fn the_index_finds_names_and_phones_as_the_scan_does() {
    use receipt_review::demo::{DemoOptions, generate};
    use receipt_review::reading;
    use receipt_review::storage::{Access, open_database};
    use receipt_review::tui::app::ClassFilter;
    use receipt_review::tui::app::search::{
        Known, SearchIndex, compute, compute_by_scan, narrows, normalize_query,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.db");
    let options = DemoOptions {
        receipts: 3_000,
        seed: 5,
        now_ms: DEMO_NOW,
    };
    generate(&path.as_path().into(), &options).unwrap();
    let db = open_database(&path, Access::ReadOnly).unwrap();
    let snap = reading::read_with_receipts(&*db, Settings::new(DEMO_NOW), &mut |_| {}).unwrap();
    let search = SearchIndex::build(&snap, None);
    // The first copy of some groups: its name without its space, its phone
    // without its dashes and with spaces for them.
    let mut queries: Vec<(String, usize)> = Vec::new();
    for (row, g) in snap.triage.duplicates.iter().enumerate().step_by(7) {
        let Some(r) = snap.receipt(g.members[0].id) else {
            continue;
        };
        for (key, value) in &r.visitor.0 {
            if key == "name" && value.contains(' ') && !value.is_ascii() {
                queries.push((value.replace(' ', ""), row));
            }
            if key == "phone" && value.contains('-') {
                queries.push((value.replace('-', ""), row));
                queries.push((value.replace('-', " "), row));
            }
        }
    }
    assert!(queries.len() >= 20, "{queries:?}");
    for (query, row) in &queries {
        let mut shown: Option<(String, Vec<usize>)> = None;
        for end in query.char_indices().map(|(i, c)| i + c.len_utf8()) {
            let typed = &query[..end];
            let q = normalize_query(typed);
            let known = shown
                .as_ref()
                .filter(|(before, _)| !before.is_empty() && narrows(before, &q))
                .map_or(Known::Nothing, |(_, rows)| Known::Among(rows));
            let tab = Tab::Duplicates;
            let found = compute(&snap, &search, tab, ClassFilter::All, &q, known);
            let expected = compute_by_scan(&snap, tab, ClassFilter::All, typed);
            assert_eq!(found, expected, "typed {typed:?}");
            shown = Some((q, found));
        }
        let (_, rows) = shown.unwrap();
        assert!(rows.contains(row), "{query:?}: row {row} not in {rows:?}");
    }
}

/// The screen's text with its lines run together and without spaces and
/// box lines: what a hint says, wherever it was wrapped.
fn unwrapped(screen: &str) -> String {
    screen
        .lines()
        .map(|l| l.split(" Hidden by").next().unwrap_or(l))
        .flat_map(str::chars)
        .filter(|c| !matches!(c, ' ' | '│' | '"'))
        .collect()
}

/// The Receipts tab's hint (80×24) and its help (160×48) give examples in
/// the operator's language: Japanese times, a Japanese name and phone on
/// the Japanese screen, English ones on the English screen.
#[test]
fn the_search_hints_give_examples_in_the_screens_language() {
    let fx = fixture();
    let hint_and_help = |lang| {
        let mut app = loaded_in(lang, &fx, 80, 24);
        send(&mut app, &fx, key('6'));
        let hint = unwrapped(&screen(&app, 80, 24));
        update(
            &mut app,
            Msg::Resize {
                width: 160,
                height: 48,
            },
        );
        send(&mut app, &fx, key('?'));
        (hint, unwrapped(&screen(&app, 160, 48)))
    };
    let (hint, help) = hint_and_help(Lang::Ja);
    for shown in [&hint, &help] {
        for example in ["昨日10時", "12月3日", "10時～11時"] {
            assert!(shown.contains(example), "{example}: {shown}");
        }
        assert!(!shown.contains("yesterday"), "{shown}");
    }
    for example in ["渡辺", "070-"] {
        assert!(hint.contains(example), "{example}: {hint}");
    }
    let (hint, help) = hint_and_help(Lang::En);
    for shown in [&hint, &help] {
        assert!(shown.contains("yesterday10:00"), "{shown}");
        assert!(!shown.contains("昨日"), "{shown}");
    }
}
