//! The screen's clock, driven through the pure `update`: ages grow with the
//! wall clock, a receipt that passes `--stuck-after` makes the screen read
//! again by itself, `--now` freezes it all, and status messages expire.

use std::sync::Arc;

use crate::fixture::*;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::{Effect, Msg};
use receipt_review::tui::app::{App, Tab, update};

const SECOND: i64 = 1_000;

fn status(app: &App) -> Option<String> {
    app.status.as_ref().map(|s| s.text.clone())
}

/// The fixture with one in-flight receipt that becomes stuck at `at`.
fn with_next_stuck(fx: &Fixture, at: i64) -> IndexedSnapshot {
    let mut snap = fx.snapshot.clone();
    Arc::make_mut(&mut snap.triage).next_stuck_ms = Some(at);
    IndexedSnapshot::new(snap)
}

#[test]
fn the_time_and_the_ages_move_with_the_wall_clock() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 30, false);
    let age = fx.snapshot.triage.stuck[0].age_ms;
    assert_eq!(app.now_ms(), Some(NOW));
    assert_eq!(app.age_ms(age), age);
    let effects = update(&mut app, Msg::Clock(NOW + 90 * SECOND));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.now_ms(), Some(NOW + 90 * SECOND));
    assert_eq!(app.age_ms(age), age + 90 * SECOND);
}

#[test]
fn a_receipt_passing_stuck_after_makes_the_screen_read_again_once() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 30, false);
    let at = NOW + 40 * SECOND;
    update(&mut app, Msg::Loaded(with_next_stuck(&fx, at)));
    assert!(update(&mut app, Msg::Clock(at - 1)).is_empty());
    assert_eq!(update(&mut app, Msg::Clock(at)), vec![Effect::Reload]);
    // Until the reading comes, the same crossing does not ask again.
    assert!(update(&mut app, Msg::Clock(at + SECOND)).is_empty());
    // A reading that still names a later crossing asks again when it comes.
    update(
        &mut app,
        Msg::Loaded(with_next_stuck(&fx, at + 60 * SECOND)),
    );
    assert!(update(&mut app, Msg::Clock(at + 2 * SECOND)).is_empty());
    assert_eq!(
        update(&mut app, Msg::Clock(at + 60 * SECOND)),
        vec![Effect::Reload]
    );
}

#[test]
fn no_reading_is_asked_while_one_is_under_way() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 30, false);
    let at = NOW + 40 * SECOND;
    update(&mut app, Msg::Loaded(with_next_stuck(&fx, at)));
    update(
        &mut app,
        Msg::Progress {
            stage: "reading receipts",
            done: 10,
            total: None,
        },
    );
    assert!(update(&mut app, Msg::Clock(at + SECOND)).is_empty());
}

#[test]
fn now_freezes_the_clock() {
    let fx = fixture();
    let mut app = App::new(false).with_operator("alice").with_frozen_clock();
    update(
        &mut app,
        Msg::Resize {
            width: 120,
            height: 30,
        },
    );
    update(&mut app, Msg::Loaded(with_next_stuck(&fx, NOW + SECOND)));
    let age = fx.snapshot.triage.stuck[0].age_ms;
    assert!(update(&mut app, Msg::Clock(NOW + 3_600 * SECOND)).is_empty());
    assert_eq!(app.now_ms(), Some(NOW));
    assert_eq!(app.age_ms(age), age);
}

#[test]
fn an_outcome_expires_and_a_reading_message_ends_with_the_reading() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 30, false);
    update(&mut app, Msg::Clock(NOW));
    update(
        &mut app,
        Msg::Recorded(Ok("dup:110 recorded as duplicate".into())),
    );
    assert!(status(&app).is_some());
    update(&mut app, Msg::Clock(NOW + 7 * SECOND));
    assert!(status(&app).is_some(), "still shown after 7 s");
    update(&mut app, Msg::Clock(NOW + 9 * SECOND));
    assert_eq!(status(&app), None, "gone after 8 s");

    // "reading it again" stays while the reading is under way, however
    // long, and goes when it is in.
    let effects = update(&mut app, Msg::DatabaseChanged);
    assert_eq!(effects, vec![Effect::Reload]);
    assert_eq!(
        status(&app).as_deref(),
        Some("the database changed; reading it again…")
    );
    update(&mut app, Msg::Clock(NOW + 120 * SECOND));
    assert!(status(&app).is_some());
    update(
        &mut app,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    assert_eq!(status(&app), None);
}

#[test]
fn an_error_stays_longer_than_an_outcome() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 30, false);
    update(&mut app, Msg::Clock(NOW));
    update(
        &mut app,
        Msg::Recorded(Err("bob decided dup:110 first".into())),
    );
    update(&mut app, Msg::Clock(NOW + 20 * SECOND));
    assert!(status(&app).is_some());
    update(&mut app, Msg::Clock(NOW + 31 * SECOND));
    assert_eq!(status(&app), None);
}

#[test]
fn no_key_but_quit_acts_while_the_terminal_is_too_small() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 30, false);
    assert_eq!(app.tab, Tab::Duplicates);
    let selected = app.pos(Tab::Duplicates).selected;
    update(
        &mut app,
        Msg::Resize {
            width: 50,
            height: 12,
        },
    );
    for c in ['x', 'd', 'D', '2', 'j', '/', 'u', 'e', 'r', '?'] {
        let effects = send(&mut app, &fx, key(c));
        assert!(effects.is_empty(), "{c}: {effects:?}");
    }
    assert_eq!(app.tab, Tab::Duplicates);
    assert!(app.overlay.is_none() && app.input.is_none());
    assert_eq!(app.pos(Tab::Duplicates).selected, selected);
    let quit = send(&mut app, &fx, key('q'));
    assert_eq!(quit, vec![Effect::Quit]);
}
