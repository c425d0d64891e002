//! `U` reopens the decision on the item the operator chose, after a
//! question with No focused, through the same guarded path as
//! `receipt-review reopen`; after any undo the selection moves to the item
//! reopened. Pure `update`, a TestBackend screen, and the worker on a demo
//! database.

use crate::fixture::*;
use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::reading::ItemReview;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::{Effect, Msg, Reopen, Reopened};
use receipt_review::tui::app::state::ConfirmAction;
use receipt_review::tui::app::{App, Overlay, Tab};

/// The fixture with `item` selected on the Duplicates tab.
fn on_group(fx: &Fixture, lang: Lang, item: &str, width: u16, height: u16) -> App {
    let mut app = loaded_in(lang, fx, width, height);
    for _ in 0..app.rows(Tab::Duplicates).len() {
        if selected_item(&app).as_deref() == Some(item) {
            return app;
        }
        send(&mut app, fx, code(KeyCode::Down));
    }
    panic!("{item} is not on the Duplicates tab");
}

#[test]
fn capital_u_asks_to_reopen_the_chosen_decision_with_no_focused() {
    let fx = fixture();
    // dup:120: hanako recorded it as a correction.
    let mut app = on_group(&fx, Lang::En, "dup:120", 80, 24);
    let effects = send(&mut app, &fx, key('U'));
    assert!(effects.is_empty(), "{effects:?}");
    let Some(Overlay::Confirm(confirm)) = &app.overlay else {
        panic!("no question: {:?} {}", app.overlay, status(&app));
    };
    assert!(!confirm.yes_focused);
    assert_eq!(confirm.title, "Reopen hanako's decision on dup:120?");
    let said = confirm.lines.join(" ");
    assert!(
        said.contains("hanako recorded dup:120 as correction"),
        "{said}"
    );
    assert!(said.contains("dup:120 goes back to pending"), "{said}");
    assert_eq!(confirm.yes_label, "Yes, reopen dup:120");
    // Enter answers No: nothing is sent.
    let effects = send(&mut app, &fx, code(KeyCode::Enter));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(app.overlay.is_none());
    assert_eq!(status(&app), "cancelled; nothing changed");
    // Again, and yes.
    send(&mut app, &fx, key('U'));
    let Some(Overlay::Confirm(confirm)) = &app.overlay else {
        panic!("{:?}", app.overlay);
    };
    assert!(matches!(&confirm.action, ConfirmAction::Reopen(r) if r.item == "dup:120"));
}

#[test]
fn capital_u_on_an_item_with_no_decision_says_so() {
    let fx = fixture();
    // dup:101 was reopened; dup:140 never decided.
    for item in ["dup:101", "dup:140"] {
        let mut app = on_group(&fx, Lang::En, item, 80, 24);
        let effects = send(&mut app, &fx, key('U'));
        assert!(effects.is_empty(), "{effects:?}");
        assert!(app.overlay.is_none(), "{:?}", app.overlay);
        assert_eq!(
            status(&app),
            format!("{item} has no decision to reopen (it is pending)")
        );
    }
}

#[test]
fn the_reopen_question_80x24() {
    let fx = fixture();
    let mut app = on_group(&fx, Lang::En, "dup:120", 80, 24);
    send(&mut app, &fx, key('U'));
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("Reopen hanako's decision on dup:120?"),
        "{shown}"
    );
    insta::assert_snapshot!(shown);
}

#[test]
fn the_reopen_question_in_japanese() {
    let fx = fixture();
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = on_group(&fx, Lang::Ja, "dup:120", width, height);
        send(&mut app, &fx, key('U'));
        let shown = screen(&app, width, height);
        // The frame's title, the safe answer focused, the yes named.
        for said in [
            "dup:120 の hanako さんの判断を取り消し、未対応に戻しますか？",
            "> [ いいえ ] <",
            "[ はい、dup:120 を未対応に戻す ]",
            "y はい  n いいえ",
        ] {
            assert!(shown.contains(said), "{said} at {width}×{height}:\n{shown}");
        }
        let Some(Overlay::Confirm(confirm)) = &app.overlay else {
            panic!("{:?}", app.overlay);
        };
        assert_eq!(
            confirm.lines,
            [
                "hanako さんが 2026-11-29 11:15 UTC に dup:120 を「訂正」として記録しました。",
                "メモ: 2通目が正しい内容です",
                "dup:120 は未対応に戻ります。判断はレビュー記録に残り、その後に取り消しの行が追加されます。",
            ]
        );
    }
}

#[test]
fn yes_hands_the_item_and_the_entry_shown_to_the_worker() {
    let fx = fixture();
    let mut app = on_group(&fx, Lang::En, "dup:120", 80, 24);
    send(&mut app, &fx, key('U'));
    let effects = send(&mut app, &fx, key('y'));
    assert_eq!(
        effects,
        [Effect::Reopen(Reopen {
            item: "dup:120".into(),
            // The entry the screen showed: reopened only while it is the latest.
            expected_last: Some(2),
        })]
    );
    assert!(app.overlay.is_none());
    assert_eq!(status(&app), "reopening dup:120…");
    // Read-only: nothing is asked.
    let mut snap = fx.snapshot.clone();
    snap.read_only = Some("opened read-only".into());
    send(&mut app, &fx, Msg::Loaded(IndexedSnapshot::new(snap)));
    assert!(send(&mut app, &fx, key('U')).is_empty());
    assert!(app.overlay.is_none());
    assert!(status(&app).contains("read-only"), "{}", status(&app));
}

/// The fixture read again after dup:120 was reopened.
fn dup_120_reopened(fx: &Fixture) -> IndexedSnapshot {
    let mut next = fx.snapshot.clone();
    next.reviews.insert(
        "dup:120".into(),
        ItemReview {
            last_log_id: Some(5),
            ..Default::default()
        },
    );
    IndexedSnapshot::new(next)
}

fn undone(items: &[&str]) -> Msg {
    Msg::Undone(Ok(Reopened {
        text: "dup:120: correction undone, pending again".into(),
        items: items.iter().map(|i| i.to_string()).collect(),
    }))
}

#[test]
fn after_an_undo_the_selection_moves_to_the_item_reopened() {
    let fx = fixture();
    // `u` on another tab: the answer takes the screen to what it reopened.
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('3'));
    assert_eq!(send(&mut app, &fx, key('u')), [Effect::Undo]);
    send(&mut app, &fx, undone(&["dup:120", "dup:110"]));
    assert_eq!(app.tab, Tab::Duplicates);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    assert_eq!(status(&app), "dup:120: correction undone, pending again");
    // The reading that follows keeps it there.
    send(&mut app, &fx, Msg::Loaded(dup_120_reopened(&fx)));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
}

#[test]
fn an_item_hidden_when_reopened_is_selected_once_a_reading_shows_it() {
    let fx = fixture();
    // Pending items only: dup:120, resolved, is not shown until reopened.
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('P'));
    send(&mut app, &fx, key('8'));
    send(&mut app, &fx, undone(&["dup:120"]));
    assert_eq!(app.tab, Tab::Log);
    send(&mut app, &fx, Msg::Loaded(dup_120_reopened(&fx)));
    assert_eq!(app.tab, Tab::Duplicates);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    // A text filter that hides it is cleared.
    let mut app = loaded(&fx, 80, 24, false);
    for c in "/site-b\r".chars() {
        let msg = if c == '\r' {
            code(KeyCode::Enter)
        } else {
            key(c)
        };
        send(&mut app, &fx, msg);
    }
    assert_eq!(app.filter, "site-b");
    send(&mut app, &fx, undone(&["dup:120"]));
    send(&mut app, &fx, Msg::Loaded(dup_120_reopened(&fx)));
    assert_eq!(app.filter, "");
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
}

fn log_of(db: &std::path::Path) -> Vec<(i64, String, String, String, Option<i64>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.prepare("SELECT id, item, decision, operator, reopens FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn the_worker_reopens_the_chosen_item_through_the_guarded_path() {
    use receipt_review::tui::collection::Request;
    let dir = tempfile::tempdir().unwrap();
    let (worker, rx) = demo_worker(dir.path(), 4, false, "aiko", Lang::En);
    let db = dir.path().join("worker.db");
    worker.send(Request::Load);
    let reading = loop {
        match rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap() {
            Msg::Loaded(r) if !r.snapshot.receipts_pending => break r,
            Msg::LoadFailed(why) => panic!("{why}"),
            _ => {}
        }
    };
    let exact = every_exact_group_as_duplicate(&reading.snapshot);
    // Two decisions: the one chosen is the older, which `u` would not reach.
    for request in &exact[..2] {
        worker.send(Request::Decide(vec![request.clone()]));
        assert!(matches!(next_answer(&rx), Msg::Recorded(Ok(_))));
    }
    let decided = log_of(&db);
    let (chosen, other) = (&exact[0].item, &exact[1].item);
    let chosen_id = decided[0].0;
    assert_eq!(&decided[0].1, chosen);

    // The screen showed another entry as the latest: refused, nothing written.
    worker.send(Request::Reopen(Reopen {
        item: chosen.clone(),
        expected_last: Some(chosen_id + 1),
    }));
    match next_answer(&rx) {
        Msg::Undone(Err(text)) => assert!(text.contains("already decided by aiko"), "{text}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(log_of(&db), decided);

    // As shown: a reopening of that entry, by this operator.
    worker.send(Request::Reopen(Reopen {
        item: chosen.clone(),
        expected_last: Some(chosen_id),
    }));
    match next_answer(&rx) {
        Msg::Undone(Ok(reopened)) => {
            assert_eq!(reopened.items, std::slice::from_ref(chosen));
            assert_eq!(
                reopened.text,
                format!("{chosen}: duplicate undone, pending again")
            );
        }
        other => panic!("{other:?}"),
    }
    let log = log_of(&db);
    assert_eq!(log.len(), 3);
    let (_, item, decision, operator, reopens) = &log[2];
    assert_eq!(
        (item, decision.as_str(), operator.as_str(), *reopens),
        (chosen, "reopened", "aiko", Some(chosen_id))
    );
    // The other decision stands.
    assert!(
        log.iter()
            .any(|(_, i, d, _, _)| i == other && d == "duplicate")
    );

    // Again: nothing left to reopen, nothing written.
    worker.send(Request::Reopen(Reopen {
        item: chosen.clone(),
        expected_last: Some(chosen_id),
    }));
    match next_answer(&rx) {
        Msg::Undone(Err(text)) => assert_eq!(
            text,
            format!("{chosen} has no decision to reopen any more: it was reopened since")
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(log_of(&db).len(), 3);
}
