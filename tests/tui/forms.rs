//! The Forms tab: what it shows at both sizes, and its pure update (the
//! period cycle, moving into a form's pathways, opening an example).

use ratatui::crossterm::event::KeyCode;
use receipt_review::forms::Period;
use receipt_review::tui::app::{App, Focus, Tab};

use crate::fixture::*;

fn on_forms(fx: &Fixture, width: u16, height: u16) -> App {
    let mut app = loaded(fx, width, height, false);
    send(&mut app, fx, key('7'));
    assert_eq!(app.tab, Tab::Forms);
    app
}

#[test]
fn forms_80x24() {
    let fx = fixture();
    let app = on_forms(&fx, 80, 24);
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn forms_pathways_160x48() {
    let fx = fixture();
    let mut app = on_forms(&fx, 160, 48);
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn p_cycles_the_period_and_keeps_the_form() {
    let fx = fixture();
    let mut app = on_forms(&fx, 80, 24);
    assert_eq!(app.forms.period, Period::Week);
    send(&mut app, &fx, key('j'));
    let scope = app.forms.selected_form().unwrap().scope.clone();
    let mut seen = Vec::new();
    for _ in 0..4 {
        send(&mut app, &fx, key('p'));
        seen.push(app.forms.period);
        assert_eq!(app.forms.view().unwrap().period, app.forms.period);
        assert!(
            app.status
                .as_ref()
                .unwrap()
                .text
                .contains(app.forms.period.label()),
            "{:?}",
            app.status
        );
    }
    assert_eq!(
        seen,
        [Period::Month, Period::All, Period::Day, Period::Week]
    );
    assert_eq!(app.forms.selected_form().unwrap().scope, scope);
    // Elsewhere p means what it means there (still pending, on Stuck).
    send(&mut app, &fx, key('1'));
    send(&mut app, &fx, key('p'));
    assert_eq!(app.forms.period, Period::Week);
}

#[test]
fn enter_opens_a_forms_pathways_and_then_its_example_item() {
    let fx = fixture();
    let mut app = on_forms(&fx, 80, 24);
    assert_eq!(app.forms.selected_form().unwrap().scope, "site-a/contact");
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.focus, Focus::Detail);
    send(&mut app, &fx, key('j'));
    let finding = app.forms.selected_finding().unwrap().clone();
    assert_eq!(finding.pathway.id(), "two_handlers");
    assert_eq!(finding.example.as_deref(), Some("dup:101"));
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.tab, Tab::Duplicates);
    let (item, _) = app.selected_item().unwrap();
    assert_eq!(item, "dup:101");
    assert!(app.status.as_ref().unwrap().text.contains("two handlers"));
    // Back on Forms, the same form and pathway are selected.
    send(&mut app, &fx, key('7'));
    assert_eq!(app.focus, Focus::List);
    assert_eq!(
        app.forms.selected_finding().unwrap().pathway,
        finding.pathway
    );
}

#[test]
fn an_example_hidden_by_the_filters_is_shown_all_the_same() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // Only minutes groups, and a text that matches none of site-a's.
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('t'));
    send(&mut app, &fx, key('7'));
    send(&mut app, &fx, code(KeyCode::Enter));
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.tab, Tab::Duplicates);
    assert_eq!(app.selected_item().unwrap().0, "dup:130");
    assert_eq!(app.class_filter, Default::default());
}

#[test]
fn a_pathway_without_an_item_says_which_receipt_shows_it() {
    let fx = fixture();
    let mut app = on_forms(&fx, 80, 24);
    send(&mut app, &fx, code(KeyCode::Enter));
    send(&mut app, &fx, key('G'));
    assert_eq!(
        app.forms.selected_finding().unwrap().pathway.id(),
        "retries_absorbed"
    );
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.tab, Tab::Forms);
    let status = &app.status.as_ref().unwrap().text;
    assert!(
        status.contains("receipt #102") && status.contains("nothing to decide"),
        "{status}"
    );
}

#[test]
fn the_filter_narrows_the_forms() {
    let fx = fixture();
    let mut app = on_forms(&fx, 80, 24);
    send(&mut app, &fx, key('/'));
    for c in "SITE-B".chars() {
        send(&mut app, &fx, key(c));
    }
    send(&mut app, &fx, code(KeyCode::Enter));
    let forms = app.forms.view().unwrap();
    let shown: Vec<&str> = app
        .forms
        .rows()
        .iter()
        .map(|&i| forms.rows[i].scope.as_str())
        .collect();
    assert_eq!(shown, ["site-b/quote"]);
    assert!(screen(&app, 80, 24).contains("1 of 5 forms"));
}
