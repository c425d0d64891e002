//! The Receipts tab: typing a search, the effect it hands the worker, what
//! comes back (hits, a young in-flight receipt, a miss), the jump to an
//! item, the `z` key; pure `update` and TestBackend snapshots.

use crate::fixture::*;
use ratatui::crossterm::event::KeyCode;
use receipt_review::find::{FormCounts, FoundIn, Query, Scan, scan::Match};
use receipt_review::model::{Millis, Zone};
use receipt_review::tui::app::msg::{Effect, Msg};
use receipt_review::tui::app::{App, Focus, Tab, update};

fn ctrl_u() -> Msg {
    Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('u'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    ))
}

pub(crate) fn tokyo() -> Zone {
    Zone::parse("Asia/Tokyo").unwrap()
}

/// The fixture's screen in Tokyo, on the Receipts tab.
fn on_receipts(fx: &Fixture, width: u16, height: u16) -> App {
    let mut app = loaded(fx, width, height, false);
    app.zone = tokyo();
    send(&mut app, fx, key('6'));
    assert_eq!(app.tab, Tab::Receipts);
    app
}

/// Opens the search line (`/`), types `text` over what it held and
/// presses Enter: the effects.
fn search(app: &mut App, fx: &Fixture, text: &str) -> Vec<Effect> {
    send(app, fx, key('/'));
    send(app, fx, ctrl_u());
    for c in text.chars() {
        send(app, fx, key(c));
    }
    send(app, fx, code(KeyCode::Enter))
}

fn matched(id: i64, scope: &str, state: &str, at: Millis, payload: &str, found: FoundIn) -> Match {
    Match {
        id,
        scope: scope.into(),
        request_key: Some(format!("key-{id}")),
        state: state.into(),
        created_ms: Some(at),
        payload: Ok(payload.into()),
        found,
        erased: None,
    }
}

fn tallies() -> Vec<(String, FormCounts)> {
    vec![(
        "site-a/contact".into(),
        FormCounts {
            receipts: 16,
            in_flight: 2,
            recent: 1,
            in_span: 0,
            erased: 0,
        },
    )]
}

/// What the worker finds for a search of "taro": a young in-flight receipt
/// in no item, and the two copies of `dup:110`.
pub(crate) fn taro_scan() -> Scan {
    let payload = r#"{"email":"taro@example.jp","message":"届きましたか？","name":"山田太郎","phone":"03-1234-5678"}"#;
    Scan {
        matches: vec![
            matched(
                900,
                "site-jp/お問い合わせ",
                "in_flight",
                NOW - 2 * MIN,
                payload,
                FoundIn::Field("email".into()),
            ),
            matched(
                111,
                "site-jp/お問い合わせ",
                "completed",
                T0 + 20_000,
                payload,
                FoundIn::Field("email".into()),
            ),
            matched(
                110,
                "site-jp/お問い合わせ",
                "completed",
                T0,
                payload,
                FoundIn::Field("email".into()),
            ),
        ],
        total: 3,
        tallies: tallies(),
        read: 16,
    }
}

pub(crate) fn miss_scan() -> Scan {
    Scan {
        matches: Vec::new(),
        total: 0,
        tallies: tallies(),
        read: 16,
    }
}

/// Searches `text` and answers with `scan`, as the worker would.
pub(crate) fn found(app: &mut App, fx: &Fixture, text: &str, scan: Scan) -> Query {
    let effects = search(app, fx, text);
    let [Effect::Find { query, now_ms }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(*now_ms, NOW);
    update(
        app,
        Msg::Found {
            query: query.clone(),
            result: Ok(scan),
        },
    );
    query.clone()
}

#[test]
fn typing_on_the_tab_starts_a_search_and_enter_hands_it_to_the_worker() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    // Any character on the list starts the search with itself.
    for c in "#110".chars() {
        send(&mut app, &fx, key(c));
    }
    let effects = send(&mut app, &fx, code(KeyCode::Enter));
    let [Effect::Find { query, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(query.id, Some(110));
    assert_eq!(query.needle, None);
    assert_eq!(app.find.searching.as_ref(), Some(query));
    assert!(app.input.is_none());
    // `/` opens an empty line; ↑ brings back what was searched.
    send(&mut app, &fx, key('/'));
    assert_eq!(app.input.as_ref().map(|i| i.text()), Some(""));
    send(&mut app, &fx, code(KeyCode::Up));
    assert_eq!(app.input.as_ref().map(|i| i.text()), Some("#110"));
    send(&mut app, &fx, code(KeyCode::Esc));
    // Times typed are read in the operator's zone: 19:15 in Tokyo is 10:15 UTC.
    let effects = search(&mut app, &fx, "taro 19:15");
    let [Effect::Find { query, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let span = query.span.unwrap();
    assert_eq!(Zone::UTC.format_minutes(span.from_ms), "2026-11-29 09:45");
    assert_eq!(query.needle.as_deref(), Some("taro"));
}

#[test]
fn a_bad_search_is_a_message_not_a_search() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    let effects = search(&mut app, &fx, "taro 25:61");
    assert!(effects.is_empty(), "{effects:?}");
    let e = app.find.error.clone().unwrap();
    assert!(e.starts_with("no such time of day: 25:61"), "{e}");
    assert!(screen(&app, 80, 24).contains("no such time of day: 25:61"));
    // An empty search.
    assert!(search(&mut app, &fx, "").is_empty());
    assert!(
        app.find
            .error
            .as_deref()
            .unwrap()
            .starts_with("nothing to search for")
    );
    // A failed read is said too.
    let query = receipt_review::find::parse("taro", Zone::UTC, NOW).unwrap();
    update(
        &mut app,
        Msg::Found {
            query,
            result: Err("database is locked".into()),
        },
    );
    assert!(
        app.find
            .error
            .as_deref()
            .unwrap()
            .contains("database is locked")
    );
}

#[test]
fn hits_are_joined_with_the_items_and_j_goes_to_the_item() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    found(&mut app, &fx, "taro", taro_scan());
    let outcome = app.find.outcome.as_ref().unwrap();
    let ids: Vec<i64> = outcome.hits.iter().map(|h| h.receipt_id).collect();
    assert_eq!(ids, vec![900, 111, 110]);
    assert!(outcome.hits[0].outcome_unknown);
    assert!(outcome.hits[0].items.is_empty());
    assert_eq!(outcome.hits[2].items[0].item, "dup:110");
    assert_eq!(outcome.hits[2].items[0].status, "pending");
    assert_eq!(app.rows(Tab::Receipts), &[0, 1, 2]);
    // J on a receipt in no item says so and stays (in its detail pane: on
    // the list J is typed).
    send(&mut app, &fx, code(KeyCode::Enter));
    send(&mut app, &fx, key('J'));
    assert_eq!(app.tab, Tab::Receipts);
    assert!(
        app.status
            .as_ref()
            .unwrap()
            .text
            .contains("in no duplicate group")
    );
    // Down to #110, Enter reads it, J goes to its group.
    send(&mut app, &fx, code(KeyCode::Esc));
    send(&mut app, &fx, code(KeyCode::Down));
    send(&mut app, &fx, code(KeyCode::Down));
    assert!(screen(&app, 80, 24).contains("Enter, then J goes to dup:110"));
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.focus, Focus::Detail);
    assert!(screen(&app, 80, 24).contains("J goes to dup:110 on the Duplicates tab"));
    send(&mut app, &fx, key('J'));
    assert_eq!(app.tab, Tab::Duplicates);
    let snap = app.snapshot.as_ref().unwrap();
    let row = app.rows(Tab::Duplicates)[app.pos(Tab::Duplicates).selected];
    assert_eq!(snap.triage.duplicates[row].item(), "dup:110");
}

#[test]
fn z_shows_utc_and_back() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 160, 48);
    let before = screen(&app, 160, 48);
    assert!(
        before.contains("as of 2026-11-29 21:15 JST (Asia/Tokyo)"),
        "{before}"
    );
    // On the list `z` is typed: it works from the detail pane and other tabs.
    send(&mut app, &fx, key('1'));
    send(&mut app, &fx, key('z'));
    send(&mut app, &fx, key('6'));
    assert!(app.show_utc);
    assert!(screen(&app, 160, 48).contains("as of 2026-11-29 12:15 UTC"));
    send(&mut app, &fx, key('1'));
    send(&mut app, &fx, key('z'));
    assert!(!app.show_utc);
}

#[test]
fn receipts_hits_80x24() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    found(&mut app, &fx, "taro", taro_scan());
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn receipts_young_in_flight_160x48() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 160, 48);
    found(&mut app, &fx, "taro", taro_scan());
    send(&mut app, &fx, code(KeyCode::Enter));
    let shown = screen(&app, 160, 48);
    assert!(shown.contains("outcome not known yet — do not tell the visitor it failed"));
    insta::assert_snapshot!(shown);
}

#[test]
fn receipts_hit_detail_80x24() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    found(&mut app, &fx, "taro", taro_scan());
    send(&mut app, &fx, code(KeyCode::End));
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn receipts_miss_80x24() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    found(&mut app, &fx, "nobody@example.org", miss_scan());
    let shown = screen(&app, 80, 24);
    assert!(shown.contains("No receipt matches"), "{shown}");
    insta::assert_snapshot!(shown);
}

#[test]
fn receipts_miss_160x48() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 160, 48);
    found(
        &mut app,
        &fx,
        "nobody@example.org yesterday 10:00",
        miss_scan(),
    );
    let shown = screen(&app, 160, 48);
    assert!(
        shown.contains("A miss is not proof that the request never arrived"),
        "{shown}"
    );
    insta::assert_snapshot!(shown);
}

#[test]
fn receipts_empty_80x24() {
    let fx = fixture();
    let app = on_receipts(&fx, 80, 24);
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn every_time_on_the_screen_is_in_the_operators_zone() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    app.zone = tokyo();
    // The log: 11:25 UTC is 20:25 in Tokyo, in the list and the detail.
    send(&mut app, &fx, key('8'));
    let log = screen(&app, 160, 48);
    assert!(log.contains("11-29 20:25 alice"), "{log}");
    assert!(!log.contains("11-29 11:25"), "{log}");
    // The detail says it as the list does (11:26 UTC, the entry reopening it).
    assert!(log.contains("by alice at 11-29 20:26."), "{log}");
    // A stuck receipt's detail: #160 arrived at 11:10:30 UTC.
    send(&mut app, &fx, key('3'));
    let stuck = screen(&app, 160, 48);
    assert!(stuck.contains("since 11-29 20:10"), "{stuck}");
    // z: UTC again.
    send(&mut app, &fx, key('z'));
    assert!(screen(&app, 160, 48).contains("since 11-29 11:10"));
    send(&mut app, &fx, key('8'));
    assert!(screen(&app, 160, 48).contains("11-29 11:25 alice"));
}

#[test]
fn a_key_bound_elsewhere_starts_a_search_but_a_tab_switch_switches() {
    let fx = fixture();
    let mut app = on_receipts(&fx, 80, 24);
    // `h` goes back from a detail pane: on the list it is the search's first letter.
    send(&mut app, &fx, key('h'));
    assert_eq!(app.input.as_ref().map(|i| i.text()), Some("h"));
    send(&mut app, &fx, code(KeyCode::Esc));
    send(&mut app, &fx, key('1'));
    assert_eq!(app.tab, Tab::Duplicates);
    send(&mut app, &fx, key('6'));
    send(&mut app, &fx, key('@'));
    assert_eq!(app.input.as_ref().map(|i| i.text()), Some("@"));
}
