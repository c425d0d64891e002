//! The Bots tab: its list and detail on screen, and the spam / not-spam
//! decisions with their confirmation, as pure `update` steps.

use crate::fixture::*;
use ratatui::crossterm::event::KeyCode;
use receipt_review::tui::app::msg::{Effect, ItemDecision};
use receipt_review::tui::app::state::ConfirmAction;
use receipt_review::tui::app::{App, Overlay, Tab};

/// The Bots tab, on the campaign: the oldest group, last (newest first).
fn on_bots(fx: &Fixture, width: u16, height: u16) -> App {
    let mut app = loaded(fx, width, height, false);
    send(&mut app, fx, key('4'));
    assert_eq!(app.tab, Tab::Bots);
    send(&mut app, fx, key('G'));
    app
}

#[test]
fn bots_80x24() {
    let fx = bots_fixture();
    let app = on_bots(&fx, 80, 24);
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn bots_160x48() {
    let fx = bots_fixture();
    let app = on_bots(&fx, 160, 48);
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn bots_detail_80x24() {
    let fx = bots_fixture();
    let mut app = on_bots(&fx, 80, 24);
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn bots_detail_160x48() {
    let fx = bots_fixture();
    let mut app = on_bots(&fx, 160, 48);
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn bots_spam_confirm_80x24() {
    let fx = bots_fixture();
    let mut app = on_bots(&fx, 80, 24);
    send(&mut app, &fx, key('s'));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

fn spam_request() -> ItemDecision {
    ItemDecision {
        item: "bot:201".into(),
        decision: "spam".into(),
        receipt_ids: vec![201, 202, 203],
        note: None,
        expected_last: None,
        kept: None,
    }
}

#[test]
fn spam_asks_first_with_the_count_and_no_is_the_default() {
    let fx = bots_fixture();
    let mut app = on_bots(&fx, 80, 24);
    assert!(send(&mut app, &fx, key('s')).is_empty());
    match &app.overlay {
        Some(Overlay::Confirm(c)) => {
            assert_eq!(c.title, "Mark 3 receipts as spam?");
            assert!(
                c.lines[0].contains("all 3 receipts of bot:201"),
                "{:?}",
                c.lines
            );
            assert!(!c.yes_focused);
            assert_eq!(c.action, ConfirmAction::Decide(spam_request()));
        }
        other => panic!("{other:?}"),
    }
    // Enter gives the focused answer: No. Nothing is recorded.
    assert!(send(&mut app, &fx, code(KeyCode::Enter)).is_empty());
    assert!(app.overlay.is_none());
    // Asked again and answered yes: one decision for the whole group.
    send(&mut app, &fx, key('s'));
    let effects = send(&mut app, &fx, key('y'));
    assert_eq!(effects, vec![Effect::Decide(spam_request())]);
    assert!(app.awaiting.contains_key("bot:201"));
}

#[test]
fn not_spam_is_recorded_at_once_and_undo_is_one_step() {
    let fx = bots_fixture();
    let mut app = on_bots(&fx, 80, 24);
    send(&mut app, &fx, key('k'));
    let effects = send(&mut app, &fx, key('N'));
    assert_eq!(
        effects,
        vec![Effect::Decide(ItemDecision {
            item: "bot:210".into(),
            decision: "not_spam".into(),
            receipt_ids: vec![210, 211],
            note: None,
            expected_last: None,
            kept: None,
        })]
    );
    assert_eq!(send(&mut app, &fx, key('u')), vec![Effect::Undo]);
    // The Bots keys do nothing on other tabs: `N` is free there.
    send(&mut app, &fx, key('3'));
    assert!(send(&mut app, &fx, key('N')).is_empty());
}

#[test]
fn the_filter_works_on_the_bots_tab() {
    let fx = bots_fixture();
    let mut app = on_bots(&fx, 80, 24);
    assert_eq!(app.rows(Tab::Bots).len(), 2);
    for c in "/site-b".chars() {
        send(&mut app, &fx, key(c));
    }
    assert_eq!(app.rows(Tab::Bots), &[0]);
    send(&mut app, &fx, code(KeyCode::Esc));
    for c in "/bot3@".chars() {
        send(&mut app, &fx, key(c));
    }
    assert_eq!(app.rows(Tab::Bots), &[0]);
}

#[test]
fn a_bot_groups_senders_come_from_its_payloads_when_not_held() {
    use receipt_review::tui::app::msg::PayloadRef;
    // The screen holds the receipts of the other items only; a bot
    // receipt's sender is read from its payload when its group is shown.
    let mut fx = bots_fixture();
    fx.snapshot.receipts = fixture().snapshot.receipts;
    for n in 1..=3 {
        fx.payloads.insert(
            PayloadRef::Receipt(200 + n),
            format!(r#"{{"email":"Bot{n}@Spam.example","message":"buy now"}}"#),
        );
    }
    let mut app = on_bots(&fx, 160, 48);
    let wanted = app.wanted_payloads();
    assert!(wanted.contains(&PayloadRef::Receipt(201)), "{wanted:?}");
    send(&mut app, &fx, code(KeyCode::Enter));
    let shown = screen(&app, 160, 48);
    for n in 1..=3 {
        assert!(shown.contains(&format!("Bot{n}@Spam.example")), "{shown}");
    }
}
