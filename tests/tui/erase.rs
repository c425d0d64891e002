//! `E` on the Receipts tab: the reason is typed first, the worker finds what
//! the erasure takes, the question says how many with No focused, and only
//! Yes hands the erasure to the worker; pure `update`.

use crate::find::{found, taro_scan};
use crate::fixture::*;
use ratatui::crossterm::event::KeyCode;
use receipt_review::erase::Who;
use receipt_review::tui::app::msg::{Effect, EraseAsk, ErasePlanned, Msg};
use receipt_review::tui::app::state::ConfirmAction;
use receipt_review::tui::app::{App, Input, Overlay, StatusKind, Tab, update};

/// The Receipts tab with taro's receipts found, the newest's detail open.
fn on_taros_receipt(fx: &Fixture) -> App {
    let mut app = loaded(fx, 160, 48, false);
    receipts_tab(&mut app, fx);
    app
}

fn receipts_tab(app: &mut App, fx: &Fixture) {
    send(app, fx, key('6'));
    assert_eq!(app.tab, Tab::Receipts);
    found(app, fx, "taro@example.jp", taro_scan());
    send(app, fx, code(KeyCode::Enter));
}

fn type_line(app: &mut App, fx: &Fixture, text: &str) -> Vec<Effect> {
    for c in text.chars() {
        send(app, fx, key(c));
    }
    send(app, fx, code(KeyCode::Enter))
}

fn ask() -> EraseAsk {
    EraseAsk {
        who: Who::Email("taro@example.jp".into()),
        note: "request 12-07-01".into(),
    }
}

#[test]
fn e_asks_why_then_the_worker_plans_then_the_question_then_the_erasure() {
    let fx = fixture();
    let mut app = on_taros_receipt(&fx);
    let effects = send(&mut app, &fx, key('E'));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(
        app.input,
        Some(Input::EraseNote {
            who: Who::Email("taro@example.jp".into()),
            text: String::new()
        })
    );
    let shown = screen(&app, 160, 48);
    assert!(
        shown.contains("why erase the data of taro@example.jp (the request's reference):"),
        "{shown}"
    );
    let effects = type_line(&mut app, &fx, "request 12-07-01");
    assert_eq!(effects, vec![Effect::PlanErase(ask())]);

    let effects = update(
        &mut app,
        Msg::ErasePlanned(Ok(ErasePlanned {
            ask: ask(),
            receipts: vec![110, 111, 900],
        })),
    );
    assert!(effects.is_empty());
    let Some(Overlay::Confirm(confirm)) = &app.overlay else {
        panic!("{:?}", app.overlay);
    };
    assert_eq!(
        confirm.title,
        "Erase the data of taro@example.jp? Receipts: 3"
    );
    assert!(!confirm.yes_focused, "No has the focus");
    assert!(matches!(confirm.action, ConfirmAction::Erase(_)));
    let shown = screen(&app, 160, 48);
    assert!(shown.contains("receipts: #110, #111, #900"), "{shown}");
    assert!(shown.contains("reason: request 12-07-01"), "{shown}");

    // Enter on the focused No: nothing.
    let effects = send(&mut app, &fx, code(KeyCode::Enter));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(app.overlay.is_none());

    // Again, and Yes.
    update(
        &mut app,
        Msg::ErasePlanned(Ok(ErasePlanned {
            ask: ask(),
            receipts: vec![110, 111, 900],
        })),
    );
    let effects = send(&mut app, &fx, key('y'));
    assert_eq!(effects, vec![Effect::Erase(ask())]);
    update(
        &mut app,
        Msg::Erased(Ok("erased as erase:110 (receipts: 3)".into())),
    );
    let status = app.status.clone().unwrap();
    assert_eq!(status.kind, StatusKind::Success);
    assert_eq!(status.text, "erased as erase:110 (receipts: 3)");
}

#[test]
fn an_erasure_needs_a_reason_and_a_writable_database() {
    let fx = fixture();
    let mut app = on_taros_receipt(&fx);
    send(&mut app, &fx, key('E'));
    let effects = type_line(&mut app, &fx, "   ");
    assert!(effects.is_empty(), "{effects:?}");
    let status = app.status.clone().unwrap();
    assert_eq!(status.kind, StatusKind::Error);
    assert!(status.text.contains("needs a reason"), "{}", status.text);

    // The worker refused the plan (the reason names the visitor): said, nothing asked.
    update(
        &mut app,
        Msg::ErasePlanned(Err("the reason contains \"taro@example.jp\"".into())),
    );
    assert!(app.overlay.is_none());
    assert_eq!(app.status.clone().unwrap().kind, StatusKind::Error);

    let mut fx = fixture();
    fx.snapshot.read_only = Some("the database file is not writable".into());
    let mut read_only = loaded(&fx, 160, 48, false);
    receipts_tab(&mut read_only, &fx);
    let effects = send(&mut read_only, &fx, key('E'));
    assert!(effects.is_empty());
    assert!(read_only.input.is_none());
    let status = read_only.status.clone().unwrap();
    assert!(status.text.contains("read-only"), "{}", status.text);
}

#[test]
fn e_types_into_the_search_on_the_list_and_erases_only_from_the_detail() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    send(&mut app, &fx, key('6'));
    found(&mut app, &fx, "taro@example.jp", taro_scan());
    // On the list a character is a search.
    send(&mut app, &fx, key('E'));
    assert!(
        matches!(app.input, Some(Input::Find { .. })),
        "{:?}",
        app.input
    );
}
