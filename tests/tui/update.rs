//! `update` is pure: these drive it with messages and look at the state and the effects.

use crate::fixture::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use receipt_review::review::ExportFile;
use receipt_review::triage::model::GapClass;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::{Effect, ItemDecision, Msg, PayloadRef};
use receipt_review::tui::app::{
    App, ClassFilter, Focus, Overlay, Selected, StatusKind, Tab, update,
};

fn decide_effect(effects: &[Effect]) -> &ItemDecision {
    match effects {
        [Effect::Decide(request)] => request,
        other => panic!("expected one Decide, got {other:?}"),
    }
}

#[test]
fn opens_on_duplicates_with_the_first_pending_group_selected() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    assert_eq!(app.tab, Tab::Duplicates);
    // Newest first: dup:140 is the latest group, and pending.
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    // Oldest first, dup:120 comes first but is resolved.
    let mut oldest = App::new(false);
    update(&mut oldest, key('T'));
    send(
        &mut oldest,
        &fx,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    assert_eq!(selected_item(&oldest).as_deref(), Some("dup:110"));
    send(&mut app, &fx, key('j'));
    assert_eq!(app.focus, Focus::List);
    assert_eq!(app.counts.groups, 5);
    assert_eq!(app.counts.groups_pending, 4);
    // dup:130 was decided, then gained a copy.
    assert_eq!(app.counts.groups_new_copy, 1);
}

#[test]
fn counts_after_a_reading_are_the_counts_made_anew() {
    use receipt_review::tui::app::counts::Counts;
    let fx = fixture();
    let first = fx.snapshot.clone();
    let before = Counts::of(&first);
    // A group gone, one changed into another class, one new, the others
    // shared with the first reading.
    let mut second = first.clone();
    let t = std::sync::Arc::make_mut(&mut second.triage);
    t.duplicates.remove(1);
    let changed = std::sync::Arc::make_mut(&mut t.duplicates[2]);
    changed.class = GapClass::Simultaneous;
    let mut extra = (*t.duplicates[0]).clone();
    extra.class = GapClass::Minutes;
    t.duplicates.push(std::sync::Arc::new(extra));
    let after = Counts::after(&second, Some((&first, &before)));
    assert_eq!(after, Counts::of(&second));
    assert_ne!(after.by_class, before.by_class);
    // The same reading again, and none before.
    assert_eq!(Counts::after(&first, Some((&first, &before))), before);
    assert_eq!(Counts::after(&first, None), before);
}

#[test]
fn resolved_conflicts_and_stuck_receipts_are_not_pending() {
    use receipt_review::reading::ItemReview;
    use receipt_review::tui::app::counts::Counts;
    let fx = fixture();
    let mut snap = fx.snapshot.clone();
    let before = Counts::of(&snap);
    assert_eq!((before.conflicts_pending, before.conflicts), (1, 1));
    assert_eq!((before.stuck_pending, before.stuck), (1, 1));
    let review = |resolved| ItemReview {
        resolved,
        decision: Some("acknowledged".into()),
        operator: Some("hanako".into()),
        decided_at_ms: Some(0),
        note: None,
        new_copy_since_decision: false,
        last_log_id: Some(9),
        kept: None,
    };
    snap.reviews.insert("conflict:150".into(), review(true));
    let counts = Counts::of(&snap);
    assert_eq!((counts.conflicts_pending, counts.stuck_pending), (0, 1));
    // A review that is not a resolution leaves the item pending.
    snap.reviews.insert("stuck:160".into(), review(false));
    assert_eq!(Counts::of(&snap).stuck_pending, 1);
    snap.reviews.insert("stuck:160".into(), review(true));
    let counts = Counts::of(&snap);
    assert_eq!((counts.conflicts_pending, counts.stuck_pending), (0, 0));
    assert_eq!(counts.groups_pending, before.groups_pending);
}

#[test]
fn the_selection_asks_for_its_payloads_once() {
    let fx = fixture();
    let mut app = App::new(false);
    let effects = update(
        &mut app,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    // The selection's copies, then the first copies of the rows in sight,
    // for their senders as typed.
    assert_eq!(
        effects,
        vec![Effect::LoadPayloads(vec![
            PayloadRef::Receipt(140),
            PayloadRef::Receipt(141),
            PayloadRef::Receipt(130),
            PayloadRef::Receipt(101),
            PayloadRef::Receipt(110),
            PayloadRef::Receipt(120),
        ])]
    );
    // Asked, not arrived: not asked again.
    assert!(update(&mut app, Msg::Tick).is_empty());
    answer(&mut app, &fx.payloads, &effects);
    let effects = update(&mut app, key('j'));
    assert_eq!(
        effects,
        vec![Effect::LoadPayloads(vec![
            PayloadRef::Receipt(131),
            PayloadRef::Receipt(132)
        ])]
    );
    answer(&mut app, &fx.payloads, &effects);
    // Back to a cached one: nothing to ask.
    assert!(update(&mut app, key('k')).is_empty());
    // Conflicts ask for the refused attempts too.
    let effects = update(&mut app, code(KeyCode::Tab));
    assert_eq!(
        effects,
        vec![Effect::LoadPayloads(vec![
            PayloadRef::Receipt(150),
            PayloadRef::KeyConflict(3),
            PayloadRef::KeyConflict(4)
        ])]
    );
}

#[test]
fn moving_through_the_list() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // Newest first: 140, 130, 101, 110, 120.
    send(&mut app, &fx, key('j'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:130"));
    send(&mut app, &fx, code(KeyCode::Down));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    send(&mut app, &fx, key('G'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    send(&mut app, &fx, key('j'));
    assert_eq!(
        selected_item(&app).as_deref(),
        Some("dup:120"),
        "stays on the last row"
    );
    send(&mut app, &fx, key('g'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    send(&mut app, &fx, key('k'));
    assert_eq!(
        selected_item(&app).as_deref(),
        Some("dup:140"),
        "stays on the first row"
    );
    send(&mut app, &fx, code(KeyCode::PageDown));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    send(&mut app, &fx, code(KeyCode::PageUp));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    send(&mut app, &fx, code(KeyCode::Up));
    assert_eq!(app.pos(Tab::Duplicates).selected, 0);
}

#[test]
fn the_list_scrolls_to_keep_the_selection_visible() {
    let fx = fixture();
    // At 60x16 the list shows 3 rows.
    let mut app = loaded(&fx, 60, 16, false);
    send(&mut app, &fx, key('G'));
    let pos = app.pos(Tab::Duplicates);
    assert_eq!(pos.selected, 4);
    assert_eq!(pos.offset, 2);
    send(&mut app, &fx, key('g'));
    assert_eq!(app.pos(Tab::Duplicates).offset, 0);
}

#[test]
fn tabs_switch_forward_and_back_and_wrap() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    let order = [
        Tab::Conflicts,
        Tab::Stuck,
        Tab::Bots,
        Tab::Damaged,
        Tab::Receipts,
        Tab::Forms,
        Tab::Log,
        Tab::Duplicates,
    ];
    for tab in order {
        send(&mut app, &fx, code(KeyCode::Tab));
        assert_eq!(app.tab, tab);
    }
    send(&mut app, &fx, code(KeyCode::BackTab));
    assert_eq!(app.tab, Tab::Log);
    send(&mut app, &fx, key('3'));
    assert_eq!(app.tab, Tab::Stuck);
    assert_eq!(selected_item(&app).as_deref(), Some("stuck:160"));
    send(&mut app, &fx, key('8'));
    // The log is newest first.
    assert_eq!(selected_item(&app).as_deref(), Some("log:4"));
    // Each tab keeps its own selection.
    send(&mut app, &fx, key('1'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
}

#[test]
fn enter_goes_into_the_detail_and_esc_comes_back() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.focus, Focus::Detail);
    // j scrolls the detail, not the list.
    app.detail_max_scroll = 10;
    send(&mut app, &fx, key('j'));
    send(&mut app, &fx, key('j'));
    assert_eq!(app.detail_scroll, 2);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    // Decisions still work from the detail.
    let effects = send(&mut app, &fx, key('x'));
    assert_eq!(decide_effect(&effects).decision, "distinct");
    send(&mut app, &fx, code(KeyCode::Esc));
    assert_eq!(app.focus, Focus::List);
    // Changing tab returns to the list.
    send(&mut app, &fx, code(KeyCode::Enter));
    send(&mut app, &fx, code(KeyCode::Tab));
    assert_eq!(app.focus, Focus::List);
}

#[test]
fn typing_into_the_filter_never_runs_commands() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('/'));
    for c in "dq".chars() {
        let effects = send(&mut app, &fx, key(c));
        assert!(effects.is_empty(), "{c}: {effects:?}");
    }
    for c in "xscCFpouern?vDtg1".chars() {
        let effects = send(&mut app, &fx, key(c));
        assert!(effects.is_empty(), "{c}: {effects:?}");
    }
    assert!(app.overlay.is_none());
    assert!(app.awaiting.is_empty());
    assert_eq!(app.filter, "dqxscCFpouern?vDtg1");
    assert_eq!(app.tab, Tab::Duplicates);
    // Esc clears it, and every row is back.
    send(&mut app, &fx, code(KeyCode::Esc));
    assert_eq!(app.filter, "");
    assert!(app.input.is_none());
    assert_eq!(app.rows(Tab::Duplicates).len(), 5);
}

#[test]
fn a_filter_typed_before_the_receipts_are_read_finds_them_once_they_are() {
    // The first reading's analysis comes before the receipts its items
    // show, and is not indexed for the filter: a filter typed then finds
    // nothing yet, and the reading that follows finds what it asks.
    let fx = fixture();
    let mut pending = fx.snapshot.clone();
    pending.receipts = Default::default();
    pending.receipts_pending = true;
    let first = IndexedSnapshot::new(pending);
    let mut app = App::new(false);
    send(
        &mut app,
        &fx,
        Msg::Resize {
            width: 80,
            height: 24,
        },
    );
    send(&mut app, &fx, Msg::Loaded(first.clone()));
    assert_eq!(app.rows(Tab::Duplicates).len(), 5);
    send(&mut app, &fx, key('/'));
    for c in "alice".chars() {
        send(&mut app, &fx, key(c));
    }
    assert!(app.rows(Tab::Duplicates).is_empty());
    send(
        &mut app,
        &fx,
        Msg::Loaded(IndexedSnapshot::after(fx.snapshot.clone(), Some(&first))),
    );
    assert_eq!(app.rows(Tab::Duplicates).len(), 1);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    // Typed on, the filter narrows what the complete reading found.
    send(&mut app, &fx, key('@'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
}

#[test]
fn the_filter_matches_scope_key_item_and_field_values() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    let filter = |app: &mut App, text: &str| {
        send(app, &fx, key('/'));
        send(
            app,
            &fx,
            Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
        );
        for c in text.chars() {
            send(app, &fx, key(c));
        }
        send(app, &fx, code(KeyCode::Enter));
    };
    // A Japanese field value (as typed, full-width letters fold too).
    filter(&mut app, "山田");
    assert_eq!(app.rows(Tab::Duplicates), &[1]);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:110"));
    // Case-insensitive, on the visitor's values.
    filter(&mut app, "ALICE@");
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    assert_eq!(app.rows(Tab::Duplicates).len(), 1);
    // The scope.
    filter(&mut app, "site-b");
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    // A request key of a later copy.
    filter(&mut app, "k-131");
    assert_eq!(selected_item(&app).as_deref(), Some("dup:130"));
    // An item id.
    filter(&mut app, "dup:12");
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    // The filter applies to the other tabs too, as each is shown.
    filter(&mut app, "order-7f");
    assert!(app.rows(Tab::Duplicates).is_empty());
    send(&mut app, &fx, key('2'));
    assert_eq!(app.rows(Tab::Conflicts), &[0]);
    send(&mut app, &fx, key('3'));
    assert!(app.rows(Tab::Stuck).is_empty());
    send(&mut app, &fx, key('1'));
    // Enter kept it; Esc in the list clears it.
    assert_eq!(app.filter, "order-7f");
    send(&mut app, &fx, code(KeyCode::Esc));
    assert_eq!(app.filter, "");
    assert_eq!(app.rows(Tab::Duplicates).len(), 5);
}

#[test]
fn a_filter_narrows_the_tab_in_sight_as_typed_and_every_other_tab_when_shown() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    assert_eq!(app.rows(Tab::Duplicates).len(), 5);
    assert_eq!(app.rows(Tab::Conflicts).len(), 1);
    send(&mut app, &fx, key('/'));
    for c in "dup:12".chars() {
        send(&mut app, &fx, key(c));
    }
    // Still typing: the list in sight answers each letter.
    assert_eq!(app.filter, "dup:12");
    assert_eq!(app.rows(Tab::Duplicates).len(), 1);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    // Submitted: every tab shows what the filter holds, when it is shown.
    send(&mut app, &fx, code(KeyCode::Enter));
    send(&mut app, &fx, key('3'));
    assert!(app.rows(Tab::Stuck).is_empty());
    send(&mut app, &fx, key('2'));
    assert_eq!(app.tab, Tab::Conflicts);
    assert!(app.rows(Tab::Conflicts).is_empty());
    send(&mut app, &fx, code(KeyCode::Esc));
    assert_eq!(app.filter, "");
    assert_eq!(app.rows(Tab::Conflicts).len(), 1);
    send(&mut app, &fx, key('1'));
    assert_eq!(app.rows(Tab::Duplicates).len(), 5);
}

#[test]
fn the_class_filter_cycles() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    let classes = [
        (ClassFilter::Only(GapClass::Simultaneous), vec!["dup:101"]),
        (
            ClassFilter::Only(GapClass::Seconds),
            vec!["dup:130", "dup:110"],
        ),
        (
            ClassFilter::Only(GapClass::Minutes),
            vec!["dup:140", "dup:120"],
        ),
        (
            ClassFilter::All,
            vec!["dup:140", "dup:130", "dup:101", "dup:110", "dup:120"],
        ),
    ];
    for (class, items) in classes {
        send(&mut app, &fx, key('t'));
        assert_eq!(app.class_filter, class);
        let shown: Vec<String> = app
            .rows(Tab::Duplicates)
            .iter()
            .map(|&r| app.row_id(Tab::Duplicates, r).unwrap())
            .collect();
        assert_eq!(shown, items);
    }
    // `t` means nothing on another tab.
    send(&mut app, &fx, key('2'));
    send(&mut app, &fx, key('t'));
    assert_eq!(app.class_filter, ClassFilter::All);
}

#[test]
fn each_duplicate_decision_key_records_its_decision() {
    let fx = fixture();
    // Of #140 and #141 (exact copies), #140 is the earliest most complete
    // copy, #141 the latest.
    for (c, decision, kept) in [
        ('d', "duplicate", Some(140)),
        ('c', "correction", Some(141)),
        ('x', "distinct", None),
        ('s', "spam", None),
    ] {
        let mut app = loaded(&fx, 80, 24, false);
        let effects = send(&mut app, &fx, key(c));
        assert_eq!(
            decide_effect(&effects),
            &ItemDecision {
                item: "dup:140".into(),
                decision: decision.into(),
                receipt_ids: vec![140, 141],
                note: None,
                expected_last: None,
                kept,
            }
        );
        assert!(
            status(&app).contains("recording dup:140"),
            "{}",
            status(&app)
        );
        // On to the next pending group.
        assert_eq!(selected_item(&app).as_deref(), Some("dup:130"));
    }
}

#[test]
fn a_decision_carries_the_last_log_id_the_screen_showed() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('j'));
    // A group pending again after a new copy can be decided again.
    let effects = send(&mut app, &fx, key('d'));
    let request = decide_effect(&effects);
    assert_eq!(request.item, "dup:130");
    assert_eq!(request.receipt_ids, vec![130, 131, 132]);
    assert_eq!(request.expected_last, Some(1));
    // A group decided and undone carries the reopening's id.
    let effects = send(&mut app, &fx, key('d'));
    let request = decide_effect(&effects);
    assert_eq!(request.item, "dup:101");
    assert_eq!(request.expected_last, Some(4));
}

#[test]
fn conflict_and_stuck_decisions() {
    let fx = fixture();
    for (c, decision) in [('o', "original_stands"), ('f', "follow_up")] {
        let mut app = loaded(&fx, 80, 24, false);
        send(&mut app, &fx, key('2'));
        let effects = send(&mut app, &fx, key(c));
        let request = decide_effect(&effects);
        assert_eq!(request.item, "conflict:150");
        assert_eq!(request.decision, decision);
        assert_eq!(request.receipt_ids, vec![150]);
    }
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('3'));
    let effects = send(&mut app, &fx, key('p'));
    let request = decide_effect(&effects);
    assert_eq!(request.item, "stuck:160");
    assert_eq!(request.decision, "still_pending");
    assert!(app.overlay.is_none(), "still pending needs no confirmation");
}

#[test]
fn decision_keys_of_other_tabs_do_nothing() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    for c in ['o', 'f', 'C', 'F', 'p'] {
        assert!(send(&mut app, &fx, key(c)).is_empty(), "{c}");
    }
    send(&mut app, &fx, key('3'));
    for c in ['d', 'c', 'x', 's', 'o'] {
        assert!(send(&mut app, &fx, key(c)).is_empty(), "{c}");
    }
    assert!(app.awaiting.is_empty());
}

#[test]
fn completed_asks_first_and_the_default_answer_is_no() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('3'));
    assert!(send(&mut app, &fx, key('C')).is_empty());
    match &app.overlay {
        Some(Overlay::Confirm(c)) => {
            assert!(!c.yes_focused, "the focus starts on No");
            assert!(c.title.contains("stuck:160"));
        }
        other => panic!("expected a confirmation, got {other:?}"),
    }
    // Enter gives the focused answer: No.
    assert!(send(&mut app, &fx, code(KeyCode::Enter)).is_empty());
    assert!(app.overlay.is_none());
    assert!(status(&app).contains("nothing changed"));
    // Moving to Yes and Enter records it.
    send(&mut app, &fx, key('C'));
    send(&mut app, &fx, code(KeyCode::Tab));
    let effects = send(&mut app, &fx, code(KeyCode::Enter));
    let request = decide_effect(&effects);
    assert_eq!(request.decision, "completed");
    assert_eq!(request.receipt_ids, vec![160]);
}

#[test]
fn failed_asks_first_and_y_answers_yes_n_and_esc_no() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('3'));
    send(&mut app, &fx, key('F'));
    assert!(send(&mut app, &fx, key('n')).is_empty());
    send(&mut app, &fx, key('F'));
    assert!(send(&mut app, &fx, code(KeyCode::Esc)).is_empty());
    assert!(app.overlay.is_none());
    send(&mut app, &fx, key('F'));
    // A decision key inside the dialog is not a decision.
    assert!(send(&mut app, &fx, key('C')).is_empty());
    let effects = send(&mut app, &fx, key('y'));
    assert_eq!(decide_effect(&effects).decision, "failed");
}

#[test]
fn read_only_blocks_decisions_and_says_why() {
    let mut fx = fixture();
    fx.snapshot.read_only = Some("the database file is not writable".into());
    let mut app = loaded(&fx, 80, 24, false);
    for c in ['d', 'c', 'x', 's', 'D', 'u', 'n'] {
        let effects = send(&mut app, &fx, key(c));
        assert!(effects.is_empty(), "{c}: {effects:?}");
        assert_eq!(status(&app), "read-only: the database file is not writable");
        assert_eq!(app.status.as_ref().unwrap().kind, StatusKind::Error);
        assert!(app.overlay.is_none() && app.input.is_none());
    }
    send(&mut app, &fx, key('3'));
    for c in ['C', 'F', 'p'] {
        assert!(send(&mut app, &fx, key(c)).is_empty());
        assert!(app.overlay.is_none());
    }
    // Reading and exporting still work.
    assert_eq!(send(&mut app, &fx, key('r')), vec![Effect::Reload]);
    send(&mut app, &fx, key('e'));
    assert_eq!(
        send(&mut app, &fx, key('j')),
        vec![Effect::Export(ExportFile::JSONL)]
    );
}

#[test]
fn an_already_resolved_item_is_not_decided_again() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('G'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    assert!(send(&mut app, &fx, key('x')).is_empty());
    let text = status(&app);
    assert!(
        text.contains("already resolved as correction by hanako"),
        "{text}"
    );
    assert!(text.contains("u undoes"), "{text}");
    // In the operator's zone, as the list shows times; never raw RFC 3339.
    assert!(!text.contains("T11:15"), "{text}");
    assert!(text.contains("2026-11-29 "), "{text}");
}

#[test]
fn a_second_decision_waits_for_the_first() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('d'));
    send(&mut app, &fx, key('k'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    assert!(send(&mut app, &fx, key('s')).is_empty());
    assert!(status(&app).contains("already being recorded"));
    send(
        &mut app,
        &fx,
        Msg::Recorded(Ok("dup:140: duplicate recorded".into())),
    );
    assert_eq!(status(&app), "dup:140: duplicate recorded");
    assert!(app.awaiting.is_empty());
}

#[test]
fn the_bulk_action_counts_only_pending_exact_groups_in_the_view() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // All classes: dup:101, dup:130 (pending again) and dup:140; not the near
    // dup:110, not the resolved dup:120.
    send(&mut app, &fx, key('D'));
    let requests = match &app.overlay {
        Some(Overlay::Confirm(c)) => {
            assert!(
                c.title.starts_with("Resolve 3 pending exact groups"),
                "{}",
                c.title
            );
            assert!(!c.yes_focused);
            match &c.action {
                receipt_review::tui::app::state::ConfirmAction::DecideMany(r) => r.clone(),
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    };
    let items: Vec<&str> = requests.iter().map(|r| r.item.as_str()).collect();
    assert_eq!(items, ["dup:140", "dup:130", "dup:101"]);
    // Each keeps its most complete copy: of exact copies, the earliest.
    let kept: Vec<Option<i64>> = requests.iter().map(|r| r.kept).collect();
    assert_eq!(kept, [Some(140), Some(130), Some(101)]);
    assert!(requests.iter().all(|r| r.decision == "duplicate"));
    // No is the default.
    assert!(send(&mut app, &fx, code(KeyCode::Enter)).is_empty());

    // Only minutes: dup:140.
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('D'));
    let effects = send(&mut app, &fx, key('y'));
    match effects.as_slice() {
        [Effect::DecideMany(requests)] => {
            assert_eq!(requests.len(), 1);
            assert_eq!(requests[0].item, "dup:140");
            assert_eq!(requests[0].receipt_ids, vec![140, 141]);
        }
        other => panic!("{other:?}"),
    }

    // The text filter narrows it too; a view with none says so.
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('/'));
    for c in "山田".chars() {
        send(&mut app, &fx, key(c));
    }
    send(&mut app, &fx, code(KeyCode::Enter));
    assert!(send(&mut app, &fx, key('D')).is_empty());
    assert!(app.overlay.is_none());
    assert_eq!(status(&app), "no pending exact groups in this view");
}

#[test]
fn q_closes_an_overlay_before_quitting() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('?'));
    assert!(matches!(app.overlay, Some(Overlay::Help { .. })));
    assert!(send(&mut app, &fx, key('q')).is_empty());
    assert!(app.overlay.is_none());
    send(&mut app, &fx, key('e'));
    assert!(send(&mut app, &fx, key('q')).is_empty());
    assert!(app.overlay.is_none());
    send(&mut app, &fx, key('D'));
    assert!(send(&mut app, &fx, key('q')).is_empty());
    assert!(app.overlay.is_none());
    send(&mut app, &fx, key('?'));
    assert!(send(&mut app, &fx, code(KeyCode::Esc)).is_empty());
    assert_eq!(send(&mut app, &fx, key('q')), vec![Effect::Quit]);
    // Ctrl-C quits at once, even while typing.
    send(&mut app, &fx, key('/'));
    assert_eq!(
        send(
            &mut app,
            &fx,
            Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
        ),
        vec![Effect::Quit]
    );
}

#[test]
fn notes_go_with_the_next_decision_and_come_back_if_it_fails() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // Newest first: 140, 130, 101, 110, 120.
    for _ in 0..3 {
        send(&mut app, &fx, key('j'));
    }
    assert_eq!(selected_item(&app).as_deref(), Some("dup:110"));
    send(&mut app, &fx, key('n'));
    for c in "called back, same person".chars() {
        assert!(send(&mut app, &fx, key(c)).is_empty());
    }
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(
        app.notes.get("dup:110").map(String::as_str),
        Some("called back, same person")
    );
    assert!(status(&app).contains("next decision on dup:110"));
    // Quitting now would lose the note: asked first.
    assert!(send(&mut app, &fx, key('q')).is_empty());
    assert!(matches!(app.overlay, Some(Overlay::Confirm(_))));
    send(&mut app, &fx, code(KeyCode::Esc));

    let effects = send(&mut app, &fx, key('d'));
    assert_eq!(
        decide_effect(&effects).note.as_deref(),
        Some("called back, same person")
    );
    assert!(app.notes.is_empty());
    send(
        &mut app,
        &fx,
        Msg::Recorded(Err(
            "dup:110 was already decided by bob at 2026-11-29T12:00:00.000Z".into(),
        )),
    );
    assert_eq!(app.status.as_ref().unwrap().kind, StatusKind::Error);
    assert_eq!(
        app.notes.get("dup:110").map(String::as_str),
        Some("called back, same person")
    );
    // An empty note removes it (the decision moved on to dup:101, above).
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    send(&mut app, &fx, key('j'));
    send(&mut app, &fx, key('n'));
    send(
        &mut app,
        &fx,
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    send(&mut app, &fx, code(KeyCode::Enter));
    assert!(app.notes.is_empty());
}

#[test]
fn notes_need_a_decision_item() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('5'));
    send(&mut app, &fx, key('n'));
    assert!(app.input.is_none());
    assert!(status(&app).contains("notes go with a decision"));
}

#[test]
fn the_selection_is_kept_by_item_id_across_a_reload() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('j'));
    send(&mut app, &fx, key('j'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    assert_eq!(app.pos(Tab::Duplicates).selected, 2);
    // A newer group arrives, above it: the row moves, the selection follows.
    let mut next = fx.snapshot.clone();
    let mut extra = (*next.triage.duplicates[2]).clone();
    extra.members[0].id = 199;
    std::sync::Arc::make_mut(&mut next.triage)
        .duplicates
        .push(extra.into());
    send(
        &mut app,
        &fx,
        Msg::Loaded(IndexedSnapshot::new(next.clone())),
    );
    assert_eq!(app.pos(Tab::Duplicates).selected, 3);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    // The selected group disappears: the nearest row is selected.
    std::sync::Arc::make_mut(&mut next.triage)
        .duplicates
        .remove(2);
    send(&mut app, &fx, Msg::Loaded(IndexedSnapshot::new(next)));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:110"));
}

#[test]
fn the_selection_follows_its_group_when_an_earlier_copy_names_it() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('g'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:140"));
    let shown = app.pos(Tab::Duplicates).selected;
    // An earlier copy joins the group: it is now named by that copy, and
    // another group takes the row the selection was on.
    let mut next = fx.snapshot.clone();
    let triage = std::sync::Arc::make_mut(&mut next.triage);
    let last = triage.duplicates.len() - 1;
    let mut group = (*triage.duplicates[last]).clone();
    let mut earlier = group.members[0].clone();
    earlier.id = 99;
    group.members.insert(0, earlier);
    triage.duplicates.remove(last);
    triage.duplicates.insert(0, group.into());
    send(&mut app, &fx, Msg::Loaded(IndexedSnapshot::new(next)));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:99"));
    // The oldest now: last, newest first.
    assert_eq!(app.pos(Tab::Duplicates).selected, 4);
    assert_ne!(app.pos(Tab::Duplicates).selected, shown);
    assert!(
        status(&app).contains("dup:140 is now dup:99"),
        "{}",
        status(&app)
    );
}

#[test]
fn undo_export_reload_and_database_changes_are_effects() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    assert_eq!(send(&mut app, &fx, key('u')), vec![Effect::Undo]);
    send(&mut app, &fx, key('e'));
    assert!(matches!(app.overlay, Some(Overlay::Export { .. })));
    assert_eq!(
        send(&mut app, &fx, code(KeyCode::Enter)),
        vec![Effect::Export(ExportFile::CSV)]
    );
    // The choices in order: CSV, CSV for Excel, JSONL, round the end.
    send(&mut app, &fx, key('e'));
    send(&mut app, &fx, code(KeyCode::Right));
    assert_eq!(
        send(&mut app, &fx, code(KeyCode::Enter)),
        vec![Effect::Export(ExportFile::EXCEL_CSV)]
    );
    send(&mut app, &fx, key('e'));
    send(&mut app, &fx, code(KeyCode::Right));
    send(&mut app, &fx, code(KeyCode::Right));
    assert_eq!(
        send(&mut app, &fx, code(KeyCode::Enter)),
        vec![Effect::Export(ExportFile::JSONL)]
    );
    send(&mut app, &fx, key('e'));
    send(&mut app, &fx, code(KeyCode::Left));
    assert_eq!(
        app.overlay,
        Some(Overlay::Export {
            choice: ExportFile::JSONL
        })
    );
    send(&mut app, &fx, code(KeyCode::Left));
    assert_eq!(
        send(&mut app, &fx, code(KeyCode::Enter)),
        vec![Effect::Export(ExportFile::EXCEL_CSV)]
    );
    send(&mut app, &fx, key('e'));
    assert_eq!(
        send(&mut app, &fx, key('b')),
        vec![Effect::Export(ExportFile::EXCEL_CSV)]
    );
    assert_eq!(status(&app), "exporting the review log as CSV for Excel…");
    send(&mut app, &fx, key('e'));
    assert_eq!(
        send(&mut app, &fx, key('c')),
        vec![Effect::Export(ExportFile::CSV)]
    );
    send(
        &mut app,
        &fx,
        Msg::Exported(Ok("/tmp/review-log.csv".into())),
    );
    assert_eq!(status(&app), "review log exported to /tmp/review-log.csv");
    assert_eq!(send(&mut app, &fx, key('r')), vec![Effect::Reload]);
    assert_eq!(
        send(&mut app, &fx, Msg::DatabaseChanged),
        vec![Effect::Reload]
    );
}

#[test]
fn the_raw_view_loads_what_it_shows() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('5'));
    // Newest first: the last damaged row.
    assert_eq!(app.selected(), Some(Selected::Damaged(2)));
    // A damaged row's payload is read only on demand.
    let effects = update(&mut app, key('v'));
    assert_eq!(
        effects,
        vec![Effect::LoadPayloads(vec![PayloadRef::Receipt(172)])]
    );
    assert!(app.raw_view);
    update(&mut app, key('v'));
    assert!(!app.raw_view);
}

#[test]
fn a_failed_first_load_and_a_failed_reload() {
    let fx = fixture();
    let mut app = App::new(false);
    update(
        &mut app,
        Msg::Progress {
            stage: "reading receipts",
            done: 10,
            total: Some(100),
        },
    );
    assert!(app.progress.is_some());
    // Keys before the first reading do nothing harmful.
    assert!(update(&mut app, key('d')).is_empty());
    assert!(update(&mut app, key('j')).is_empty());
    update(&mut app, Msg::LoadFailed("no such table: receipts".into()));
    assert_eq!(app.load_error.as_deref(), Some("no such table: receipts"));
    assert_eq!(update(&mut app, key('r')), vec![Effect::Reload]);
    send(
        &mut app,
        &fx,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    assert!(app.load_error.is_none());
    update(&mut app, Msg::LoadFailed("database is locked".into()));
    assert!(app.stale);
    assert!(
        app.snapshot.is_some(),
        "the previous reading stays on screen"
    );
    assert!(status(&app).contains("database is locked"));
}

// --- Newest or oldest first, pending only ----------------------------------

fn shown_items(app: &App, tab: Tab) -> Vec<String> {
    app.rows(tab)
        .iter()
        .map(|&r| app.row_id(tab, r).unwrap())
        .collect()
}

#[test]
fn t_turns_every_list_and_the_selection_stays_on_its_item() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    assert!(app.list_view.newest_first);
    assert_eq!(
        shown_items(&app, Tab::Duplicates),
        ["dup:140", "dup:130", "dup:101", "dup:110", "dup:120"]
    );
    send(&mut app, &fx, key('j'));
    send(&mut app, &fx, key('j'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    send(&mut app, &fx, key('8'));
    assert_eq!(selected_item(&app).as_deref(), Some("log:4"));
    send(&mut app, &fx, key('1'));
    send(&mut app, &fx, key('T'));
    assert!(!app.list_view.newest_first);
    assert_eq!(status(&app), "oldest first (T turns it)");
    assert_eq!(
        shown_items(&app, Tab::Duplicates),
        ["dup:120", "dup:110", "dup:101", "dup:130", "dup:140"]
    );
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    // Every list turned, each keeping its selection.
    send(&mut app, &fx, key('8'));
    assert_eq!(
        shown_items(&app, Tab::Log),
        ["log:1", "log:2", "log:3", "log:4"]
    );
    assert_eq!(selected_item(&app).as_deref(), Some("log:4"));
    send(&mut app, &fx, key('5'));
    assert_eq!(
        shown_items(&app, Tab::Damaged),
        ["damaged:170", "damaged:171", "damaged:172"]
    );
    // A filter keeps the order.
    send(&mut app, &fx, key('1'));
    send(&mut app, &fx, key('/'));
    for c in "site-a".chars() {
        send(&mut app, &fx, key(c));
    }
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(shown_items(&app, Tab::Duplicates), ["dup:101", "dup:130"]);
    send(&mut app, &fx, key('T'));
    assert_eq!(shown_items(&app, Tab::Duplicates), ["dup:130", "dup:101"]);
    assert_eq!(selected_item(&app).as_deref(), Some("dup:101"));
    // Not on the Receipts and Forms tabs.
    assert_eq!(
        receipt_review::tui::app::keymap::Keymap::default().lookup(
            receipt_review::tui::app::keymap::Mode::Main {
                tab: Tab::Forms,
                detail: false
            },
            &KeyEvent::new(KeyCode::Char('T'), KeyModifiers::SHIFT)
        ),
        None
    );
}

#[test]
fn p_shows_only_the_pending_items_and_again_every_item() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // dup:120 is resolved; dup:130 is pending again (new copy).
    send(&mut app, &fx, key('G'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    send(&mut app, &fx, key('P'));
    assert!(app.list_view.pending_only);
    assert_eq!(
        shown_items(&app, Tab::Duplicates),
        ["dup:140", "dup:130", "dup:101", "dup:110"]
    );
    // The selection was hidden: the nearest shown row.
    assert_eq!(selected_item(&app).as_deref(), Some("dup:110"));
    assert!(
        status(&app).contains("pending items only"),
        "{}",
        status(&app)
    );
    // Other lists with decisions narrow too; those without do not.
    assert_eq!(shown_items(&app, Tab::Conflicts), ["conflict:150"]);
    assert_eq!(shown_items(&app, Tab::Damaged).len(), 3);
    // A reading in which dup:110 is resolved takes it out.
    let mut next = fx.snapshot.clone();
    next.reviews.insert(
        "dup:110".into(),
        receipt_review::reading::ItemReview {
            resolved: true,
            decision: Some("duplicate".into()),
            last_log_id: Some(5),
            ..Default::default()
        },
    );
    send(&mut app, &fx, Msg::Loaded(IndexedSnapshot::new(next)));
    assert_eq!(
        shown_items(&app, Tab::Duplicates),
        ["dup:140", "dup:130", "dup:101"]
    );
    send(&mut app, &fx, key('P'));
    assert!(!app.list_view.pending_only);
    assert_eq!(shown_items(&app, Tab::Duplicates).len(), 5);
}

/// The fixture as read again after `decision` on `item` was recorded (a
/// stuck receipt completed or failed is no longer in flight, so no longer
/// stuck).
fn after_decision(fx: &Fixture, item: &str, decision: &str) -> IndexedSnapshot {
    use receipt_review::reading::{ItemReview, LogLine};
    let mut next = fx.snapshot.clone();
    let id = next.log.len() as i64 + 1;
    next.log.push(LogLine {
        id,
        item: item.into(),
        kind: item.split(':').next().unwrap().into(),
        decision: decision.into(),
        operator: "alice".into(),
        decided_at_ms: Some(NOW),
        receipt_ids: vec![],
        note: None,
        reopens: None,
        kept: None,
        batch: None,
    });
    let gone = item.starts_with("stuck:") && matches!(decision, "completed" | "failed");
    if gone {
        std::sync::Arc::make_mut(&mut next.triage)
            .stuck
            .retain(|s| s.item() != item);
    } else {
        next.reviews.insert(
            item.into(),
            ItemReview {
                resolved: true,
                decision: Some(decision.into()),
                operator: Some("alice".into()),
                decided_at_ms: Some(NOW),
                note: None,
                new_copy_since_decision: false,
                last_log_id: Some(id),
                kept: None,
            },
        );
    }
    IndexedSnapshot::new(next)
}

#[test]
fn the_header_counts_follow_every_decision() {
    let fx = fixture();
    let app = loaded(&fx, 160, 48, false);
    let (pending, resolved) = (app.counts.pending(), app.counts.resolved());
    // 4 groups, the conflict and the stuck receipt are pending; dup:120 resolved.
    assert_eq!((pending, resolved), (6, 1));
    for (item, decision, after) in [
        ("stuck:160", "completed", (5, 2)),
        ("stuck:160", "failed", (5, 2)),
        // Looked at: still pending, not resolved.
        ("stuck:160", "still_pending", (6, 1)),
        ("conflict:150", "original_stands", (5, 2)),
        ("conflict:150", "follow_up", (5, 2)),
        ("dup:110", "duplicate", (5, 2)),
    ] {
        let mut app = loaded(&fx, 160, 48, false);
        send(
            &mut app,
            &fx,
            Msg::Loaded(after_decision(&fx, item, decision)),
        );
        let c = app.counts.clone();
        assert_eq!((c.pending(), c.resolved()), after, "{item} {decision}");
        // The tabs agree: what they count pending is the header's.
        assert_eq!(
            c.groups_pending + c.conflicts_pending + c.stuck_pending + c.bot_groups_pending,
            c.pending()
        );
        if decision == "still_pending" {
            assert_eq!(c.looked_at, 1);
            assert_eq!(c.stuck_pending, 1);
            send(&mut app, &fx, key('3'));
            // Not resolved, so it can be decided once the outcome is known.
            let effects = send(&mut app, &fx, key('F'));
            assert!(effects.is_empty());
            assert!(matches!(app.overlay, Some(Overlay::Confirm(_))));
        }
        if decision == "completed" {
            assert_eq!((c.stuck, c.stuck_done), (0, 1));
        }
    }
    // A bot group decided spam is resolved too.
    let fx = bots_fixture();
    let app = loaded(&fx, 160, 48, false);
    let before = (app.counts.pending(), app.counts.resolved());
    assert_eq!(before, (8, 1));
    let mut app = loaded(&fx, 160, 48, false);
    send(
        &mut app,
        &fx,
        Msg::Loaded(after_decision(&fx, "bot:201", "spam")),
    );
    assert_eq!((app.counts.pending(), app.counts.resolved()), (7, 2));
}

#[test]
fn decisions_and_undos_are_told_in_plain_words() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('2'));
    send(&mut app, &fx, key('f'));
    assert_eq!(status(&app), "recording conflict:150 as follow-up…");
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('2'));
    send(&mut app, &fx, key('o'));
    assert_eq!(status(&app), "recording conflict:150 as original stands…");
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('3'));
    send(&mut app, &fx, key('p'));
    assert_eq!(status(&app), "recording stuck:160 as still pending…");
    // The confirmation before completed says nothing of failing.
    let mut app = loaded(&fx, 80, 24, false);
    send(&mut app, &fx, key('3'));
    send(&mut app, &fx, key('C'));
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation");
    };
    let text = c.lines.join("\n");
    assert!(!text.contains("Time alone"), "{text}");
    assert!(
        !text.contains("in_flight") && !text.contains("receipts.state"),
        "{text}"
    );
    assert!(text.contains("only if it is still in flight"), "{text}");
    send(&mut app, &fx, key('n'));
    send(&mut app, &fx, key('F'));
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation");
    };
    let text = c.lines.join("\n");
    assert!(
        text.contains("Time alone never makes a receipt failed"),
        "{text}"
    );
    assert!(text.contains("frees its key"), "{text}");
    use receipt_review::i18n::Lang;
    use receipt_review::model::Decision;
    use receipt_review::tui::app::words;
    assert_eq!(
        words::recorded("conflict:150", Decision::FollowUp, Lang::En),
        "conflict:150: recorded as follow-up"
    );
    assert_eq!(
        words::recorded("stuck:160", Decision::StillPending, Lang::En),
        "stuck:160: recorded as still pending"
    );
    assert_eq!(
        words::undone("conflict:150", Decision::OriginalStands, Lang::En)
            + &words::undone_state_back(160, "completed", Lang::En),
        "conflict:150: original stands undone, pending again; receipt #160 is in flight again (it was completed)"
    );
    assert_eq!(
        words::recorded("conflict:150", Decision::FollowUp, Lang::Ja),
        "conflict:150: 「要返信」を記録しました"
    );
}

#[test]
fn brackets_choose_the_copy_kept_and_the_decision_carries_it() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // dup:110 is the fourth group, newest first.
    for _ in 0..3 {
        send(&mut app, &fx, key('j'));
    }
    assert_eq!(selected_item(&app).as_deref(), Some("dup:110"));
    // Nothing chosen: d keeps the most complete copy, #110.
    assert!(app.keep.is_empty());
    // `]` marks the next copy; past the last it stays there.
    assert!(send(&mut app, &fx, key(']')).is_empty());
    assert_eq!(app.keep.get("dup:110"), Some(&111));
    assert!(
        status(&app).contains("keep #111 (copy 2 of 2)"),
        "{}",
        status(&app)
    );
    send(&mut app, &fx, key(']'));
    assert_eq!(app.keep.get("dup:110"), Some(&111));
    // In the detail pane too.
    send(&mut app, &fx, code(KeyCode::Enter));
    send(&mut app, &fx, key('['));
    assert_eq!(app.keep.get("dup:110"), Some(&110));
    send(&mut app, &fx, key('['));
    assert_eq!(app.keep.get("dup:110"), Some(&110));
    send(&mut app, &fx, key(']'));
    // The decision keeps the copy chosen, and the choice goes with it.
    let effects = send(&mut app, &fx, key('d'));
    assert_eq!(decide_effect(&effects).kept, Some(111));
    assert!(!app.keep.contains_key("dup:110"));

    // A choice is for c too (else c keeps the latest).
    let mut app = loaded(&fx, 80, 24, false);
    for _ in 0..3 {
        send(&mut app, &fx, key('j'));
    }
    send(&mut app, &fx, key('['));
    let effects = send(&mut app, &fx, key('c'));
    assert_eq!(decide_effect(&effects).kept, Some(110));
    // And for no other decision.
    let mut app = loaded(&fx, 80, 24, false);
    for _ in 0..3 {
        send(&mut app, &fx, key('j'));
    }
    send(&mut app, &fx, key(']'));
    let effects = send(&mut app, &fx, key('x'));
    assert_eq!(decide_effect(&effects).kept, None);
}

#[test]
fn a_resolved_group_keeps_what_was_recorded() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // Oldest first, as these groups were written.
    send(&mut app, &fx, key('T'));
    // dup:120, resolved as a correction keeping #121.
    send(&mut app, &fx, key('g'));
    assert_eq!(selected_item(&app).as_deref(), Some("dup:120"));
    send(&mut app, &fx, key('['));
    assert!(app.keep.is_empty());
    assert!(
        status(&app).contains("already resolved"),
        "{}",
        status(&app)
    );
    // `[` and `]` mean nothing on another tab.
    send(&mut app, &fx, key('2'));
    assert!(send(&mut app, &fx, key(']')).is_empty());
    assert!(app.keep.is_empty());
}

fn undo_confirm(app: &App) -> receipt_review::tui::app::state::Confirm {
    match &app.overlay {
        Some(Overlay::Confirm(c)) => (**c).clone(),
        other => panic!("no confirmation: {other:?}"),
    }
}

#[test]
fn undo_of_a_batch_asks_with_the_count_and_no_focused() {
    use receipt_review::review::Wide;
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // `u` asks the runtime; the runtime answers that it reaches far.
    assert_eq!(send(&mut app, &fx, key('u')), vec![Effect::Undo]);
    let wide = Wide::Batch {
        batch: 40,
        decisions: 101,
        left: 0,
    };
    assert!(send(&mut app, &fx, Msg::UndoAsks(wide.clone())).is_empty());
    let c = undo_confirm(&app);
    assert_eq!(c.title, "Reopen all 101 decisions of that batch?");
    assert!(!c.yes_focused);
    assert_eq!(c.no_label, "No");
    // Enter gives the focused answer, No: nothing is undone.
    assert!(send(&mut app, &fx, code(KeyCode::Enter)).is_empty());
    assert!(app.overlay.is_none());
    assert!(status(&app).contains("nothing changed"), "{}", status(&app));
    // Asked again and answered yes: the step confirmed goes to the runtime.
    send(&mut app, &fx, Msg::UndoAsks(wide.clone()));
    assert_eq!(
        send(&mut app, &fx, key('y')),
        vec![Effect::UndoConfirmed(wide)]
    );
    assert!(status(&app).contains("undoing"), "{}", status(&app));

    // Items decided since are named as left.
    send(
        &mut app,
        &fx,
        Msg::UndoAsks(Wide::Batch {
            batch: 40,
            decisions: 99,
            left: 2,
        }),
    );
    let c = undo_confirm(&app);
    assert_eq!(c.title, "Reopen all 99 decisions of that batch?");
    assert!(
        c.lines
            .iter()
            .any(|l| l.contains("2 of them were decided or reopened by someone since")),
        "{:?}",
        c.lines
    );
    assert_eq!(c.yes_label, "Yes, reopen 99");
}

#[test]
fn undo_of_a_bot_group_decision_asks_with_its_receipts() {
    use receipt_review::review::Wide;
    let fx = bots_fixture();
    let mut app = loaded(&fx, 80, 24, false);
    let wide = Wide::Group {
        entry: 7,
        item: "bot:201".into(),
        receipts: 3,
    };
    send(&mut app, &fx, Msg::UndoAsks(wide.clone()));
    let c = undo_confirm(&app);
    assert_eq!(c.title, "Reopen bot:201: 3 receipts?");
    assert!(
        c.lines[0].contains("all 3 receipts of bot:201"),
        "{:?}",
        c.lines
    );
    assert!(!c.yes_focused);
    // Esc cancels; y confirms.
    assert!(send(&mut app, &fx, code(KeyCode::Esc)).is_empty());
    send(&mut app, &fx, Msg::UndoAsks(wide.clone()));
    assert_eq!(
        send(&mut app, &fx, key('y')),
        vec![Effect::UndoConfirmed(wide)]
    );
}

#[test]
fn a_tab_out_of_sight_on_its_newest_row_opens_on_what_arrived_since() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // The Log, seen once on its newest entry, then left.
    send(&mut app, &fx, key('8'));
    assert_eq!(app.pos(Tab::Log).selected, 0);
    let newest_before = selected_item(&app);
    send(&mut app, &fx, key('1'));
    send(
        &mut app,
        &fx,
        Msg::Loaded(after_decision(&fx, "dup:110", "duplicate")),
    );
    send(&mut app, &fx, key('8'));
    assert_eq!(app.pos(Tab::Log).selected, 0);
    // The entry the decision appended (the fixture's log holds four).
    assert_eq!(selected_item(&app).as_deref(), Some("log:5"));
    assert_ne!(selected_item(&app), newest_before);

    // The tab in sight keeps its item: the operator is reading it.
    let mut app = loaded(&fx, 160, 48, false);
    send(&mut app, &fx, key('8'));
    let reading = selected_item(&app);
    send(
        &mut app,
        &fx,
        Msg::Loaded(after_decision(&fx, "dup:110", "duplicate")),
    );
    assert_eq!(selected_item(&app), reading);
    assert_eq!(app.pos(Tab::Log).selected, 1);
}

/// What the visitor typed into `field` of receipt `id`: its payload as stored, not the
/// reading's folded value.
fn typed(fx: &Fixture, id: i64, field: &str) -> String {
    let payload = fx.payloads[&PayloadRef::Receipt(id)].as_str();
    let value: serde_json::Value = serde_json::from_str(payload).unwrap();
    value[field].as_str().unwrap().to_string()
}

#[test]
fn y_copies_the_first_copys_email_and_says_so_or_says_why_not() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 32, false);
    let (item, ids) = app.selected_item().unwrap();
    let email = typed(&fx, ids[0], "email");
    let effects = send(&mut app, &fx, key('y'));
    assert_eq!(effects, vec![Effect::Copy(email.clone())], "{item}");
    assert_eq!(status(&app), format!("copied {email} to the clipboard"));

    // The stuck receipt's, on its tab.
    keys(&mut app, &fx, "3");
    let effects = send(&mut app, &fx, key('y'));
    assert_eq!(effects, vec![Effect::Copy("erin@example.com".into())]);

    // A damaged row is no receipt to copy from: nothing copied, and the status says why.
    keys(&mut app, &fx, "5");
    let effects = send(&mut app, &fx, key('y'));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(status(&app), "select a receipt to copy its email");
}

#[test]
fn shift_y_offers_what_to_copy_and_copies_the_choice() {
    let fx = fixture();
    let mut app = loaded(&fx, 120, 32, false);
    let (item, ids) = app.selected_item().unwrap();
    let field = |name: &str| typed(&fx, ids[0], name);
    assert!(send(&mut app, &fx, key('Y')).is_empty());
    let shown = screen(&app, 120, 32);
    assert!(shown.contains("Copy to the clipboard"), "{shown}");
    assert!(shown.contains(&field("email")), "{shown}");
    assert!(shown.contains(&item), "{shown}");

    // A key picks at once; the menu closes. The name is copied as typed, not as the
    // reading folds it for comparing.
    let effects = send(&mut app, &fx, key('n'));
    assert_eq!(effects, vec![Effect::Copy(field("name"))]);
    let folded = fx.snapshot.receipt_view(ids[0]).unwrap();
    let folded = folded.fields().find(|(k, _)| *k == "name").unwrap().1;
    assert_ne!(field("name"), folded, "the fixture's name has capitals");
    assert!(!screen(&app, 120, 32).contains("Copy to the clipboard"));
    assert!(status(&app).starts_with("copied the name to the clipboard: "));

    // Down then Enter: the choice after the email; `i` the item id, `r` the receipt number.
    send(&mut app, &fx, key('Y'));
    send(&mut app, &fx, code(KeyCode::Down));
    let effects = send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(effects, vec![Effect::Copy(field("name"))]);
    send(&mut app, &fx, key('Y'));
    assert_eq!(
        send(&mut app, &fx, key('i')),
        vec![Effect::Copy(item.clone())]
    );
    send(&mut app, &fx, key('Y'));
    assert_eq!(
        send(&mut app, &fx, key('r')),
        vec![Effect::Copy(ids[0].to_string())]
    );
    // Esc copies nothing.
    send(&mut app, &fx, key('Y'));
    assert!(send(&mut app, &fx, code(KeyCode::Esc)).is_empty());
    assert!(!screen(&app, 120, 32).contains("Copy to the clipboard"));
}
