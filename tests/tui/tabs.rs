//! The tab bar: every tab keeps a name and its count in sight, at 80 columns
//! in both languages, with counts as large as a real day's.

use crate::fixture::*;
use receipt_review::i18n::Lang;
use receipt_review::tui::app::App;

/// The fixture's screen, its counts those of a busy demo database: the
/// widest a tab bar has to hold (three digits for duplicates, four for the log).
fn busy(lang: Lang, width: u16, height: u16) -> App {
    let fx = fixture();
    let mut app = loaded_in(lang, &fx, width, height);
    let c = &mut app.counts;
    (c.groups_pending, c.groups) = (198, 198);
    (c.conflicts_pending, c.conflicts) = (19, 19);
    (c.stuck_pending, c.stuck) = (3, 3);
    (c.bot_groups_pending, c.bot_groups) = (20, 20);
    c.damaged = 3;
    c.log = 1024;
    app
}

/// The tab bar's row: the one that starts with the first tab's number.
fn tab_bar(app: &App, width: u16, height: u16) -> String {
    rows(app, width, height)
        .into_iter()
        .find(|row| row.starts_with(">1") || row.starts_with(" 1"))
        .expect("a tab bar")
}

/// The tab bar cut into its tabs, each trimmed.
fn tabs(bar: &str) -> Vec<String> {
    bar.split('│').map(|t| t.trim().to_string()).collect()
}

const COUNTS: [Option<&str>; 8] = [
    Some("198"),
    Some("19"),
    Some("3"),
    Some("20"),
    Some("3"),
    None,
    None,
    Some("1024"),
];

fn names_and_counts_at_80(lang: Lang, names: [&str; 8]) {
    let app = busy(lang, 80, 24);
    let bar = tab_bar(&app, 80, 24);
    let tabs = tabs(&bar);
    assert_eq!(tabs.len(), 8, "{bar:?}");
    for (i, tab) in tabs.iter().enumerate() {
        let tab = tab.trim_start_matches('>');
        let number = (i + 1).to_string();
        assert!(tab.starts_with(&number), "tab {number} in {bar:?}");
        let rest = tab[number.len()..].trim_start();
        assert!(
            rest.starts_with(names[i]),
            "tab {number} is not named {}: {bar:?}",
            names[i]
        );
        if let Some(count) = COUNTS[i] {
            assert!(
                rest.ends_with(&format!(" {count}")),
                "tab {number} does not count {count}: {bar:?}"
            );
        }
    }
}

#[test]
fn every_japanese_tab_shows_a_name_and_its_count_at_80_columns() {
    names_and_counts_at_80(
        Lang::Ja,
        [
            "重複",
            "競合",
            "滞留",
            "ボット",
            "破損",
            "受付",
            "フォーム",
            "記録",
        ],
    );
}

#[test]
fn every_english_tab_shows_a_name_and_its_count_at_80_columns() {
    names_and_counts_at_80(
        Lang::En,
        ["Dup", "Conf", "Stk", "Bot", "Dmg", "Rcp", "Frm", "Log"],
    );
}

#[test]
fn at_160_columns_the_tabs_have_their_full_names() {
    for (lang, names) in [
        (
            Lang::En,
            [
                "Duplicates 198/198",
                "Conflicts 19/19",
                "Stuck 3/3",
                "Bots 20/20",
                "Damaged 3",
                "Receipts –",
                "Forms",
                "Log 1024",
            ],
        ),
        (
            Lang::Ja,
            [
                "重複 198/198",
                "競合 19/19",
                "滞留 3/3",
                "ボット 20/20",
                "破損 3",
                "受付 –",
                "フォーム",
                "記録 1024",
            ],
        ),
    ] {
        let app = busy(lang, 160, 48);
        let bar = tab_bar(&app, 160, 48);
        let tabs = tabs(&bar);
        for (i, name) in names.iter().enumerate() {
            let shown = tabs[i].trim_start_matches('>');
            let expected = format!("{} {name}", i + 1);
            let shown = if i == 7 {
                // The last tab is followed by the legend of its counts.
                shown.split("  ").next().unwrap_or(shown).trim()
            } else {
                shown
            };
            assert_eq!(shown, expected, "{lang:?}: {bar:?}");
        }
    }
}

#[test]
fn tabs_80x24_ja() {
    let app = busy(Lang::Ja, 80, 24);
    insta::assert_snapshot!(rows(&app, 80, 24).join("\n"));
}

#[test]
fn tabs_80x24_en() {
    let app = busy(Lang::En, 80, 24);
    insta::assert_snapshot!(rows(&app, 80, 24).join("\n"));
}
