//! The exact copies the intake absorbed, where the screen shows them: the
//! detail pane (a group's copies, a conflict's original, a stuck receipt)
//! and the Forms tab; and nothing of them where the database has no
//! `absorbed` table (the other snapshots, of `fixture()`, say so).

use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::tui::app::Tab;

use crate::fixture::*;

/// The screen's line that holds `text`.
fn line_with<'a>(screen: &'a str, text: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line with {text:?} in\n{screen}"))
}

#[test]
fn a_group_on_a_wide_pane_has_an_absorbed_column_beside_the_replays() {
    let fx = absorbed_fixture();
    let mut app = loaded(&fx, 240, 30, false);
    // dup:101, third newest first.
    keys(&mut app, &fx, "jj");
    insta::assert_snapshot!(screen(&app, 240, 30));
}

#[test]
fn a_group_on_a_narrow_pane_says_them_under_the_copy() {
    let fx = absorbed_fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "jj");
    let text = screen(&app, 160, 48);
    assert!(
        line_with(&text, "dup:101").contains("simultaneous"),
        "{text}"
    );
    // No room for a column: #102 says its two under it; #101 has none, and
    // says nothing of them.
    assert!(!line_with(&text, "replays").contains("absorbed"), "{text}");
    let key_102 = line_with(&text, "key k-102b");
    assert!(key_102.contains("key k-102b · absorbed copies 2"), "{text}");
    assert!(
        !line_with(&text, "key k-101a").contains("absorbed"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn without_the_table_a_group_says_nothing_of_them() {
    let fx = fixture();
    for (width, height) in [(240, 30), (160, 48)] {
        let mut app = loaded(&fx, width, height, false);
        keys(&mut app, &fx, "jj");
        let text = screen(&app, width, height);
        assert!(line_with(&text, "2. #102").contains("completed"), "{text}");
        assert!(!text.contains("absorbed"), "{text}");
    }
}

#[test]
fn a_conflicts_original_and_a_stuck_receipt_say_theirs() {
    let fx = absorbed_fixture();
    let mut app = loaded(&fx, 240, 30, false);
    keys(&mut app, &fx, "2");
    let text = screen(&app, 240, 30);
    assert!(
        line_with(&text, "original  #150").contains("replays 2 · absorbed copies 1"),
        "{text}"
    );
    keys(&mut app, &fx, "3");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn the_forms_tab_counts_them_per_form_and_in_the_pathway() {
    let fx = absorbed_fixture();
    let mut app = loaded(&fx, 160, 48, false);
    send(&mut app, &fx, key('7'));
    assert_eq!(app.tab, Tab::Forms);
    send(&mut app, &fx, code(KeyCode::Enter));
    keys(&mut app, &fx, "jj");
    insta::assert_snapshot!(screen(&app, 160, 48));
    // Enter on it says which receipt answered them: nothing to decide.
    send(&mut app, &fx, code(KeyCode::Enter));
    let status = app.status.as_ref().unwrap().text.clone();
    assert_eq!(
        status,
        "receipt #102: retries and exact copies were answered with its stored response, \
         never stored again; nothing to decide"
    );
}

#[test]
fn in_japanese_too() {
    let fx = absorbed_fixture();
    let mut app = loaded_in(Lang::Ja, &fx, 160, 48);
    keys(&mut app, &fx, "jj");
    let text = screen(&app, 160, 48);
    assert!(
        line_with(&text, "キー k-102b").contains("吸収した重複 2"),
        "{text}"
    );
    send(&mut app, &fx, key('7'));
    send(&mut app, &fx, code(KeyCode::Enter));
    keys(&mut app, &fx, "jj");
    let text = screen(&app, 160, 48);
    let heading = line_with(&text, "再送");
    let at = |word| heading.find(word).unwrap();
    assert!(at("再送") < at("吸収"), "{heading}");
    assert!(text.contains("同一の重複（2 回、"), "{text}");
}
