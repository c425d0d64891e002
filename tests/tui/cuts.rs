//! Nothing a person needs is cut where there is room, and what the screen
//! shows is explained: decisions in the log, the active filter, the detail's
//! lines and times, the comparison's marks, a bot group's message and the
//! Forms chart's days.

use crate::find::tokyo;
use crate::fixture::*;
use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::model::Decision;
use receipt_review::reading::LogLine;
use receipt_review::tui::app::msg::PayloadRef;
use receipt_review::tui::app::{App, Overlay};

fn typed(app: &mut App, fx: &Fixture, keys: &str) {
    for c in keys.chars() {
        send(app, fx, key(c));
    }
}

fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

// --- The log's decisions -------------------------------------------------------

#[test]
fn the_log_shows_every_decision_whole_at_160_columns() {
    let mut fx = fixture();
    // One entry of each decision, the newest first in the list.
    for (i, decision) in Decision::ALL.iter().enumerate() {
        fx.snapshot.log.push(LogLine {
            id: 100 + i as i64,
            item: "dup:140".into(),
            kind: "dup".into(),
            decision: decision.as_str().into(),
            operator: "alice".into(),
            decided_at_ms: Some(T0 + 80 * MIN + i as i64 * MIN),
            receipt_ids: vec![140, 141],
            note: Some("checked by phone".into()),
            reopens: None,
            kept: None,
            batch: None,
        });
    }
    for lang in Lang::ALL {
        let mut app = loaded_in(lang, &fx, 160, 48);
        typed(&mut app, &fx, "8");
        let screen = rows(&app, 160, 48);
        for decision in Decision::ALL {
            let word = decision.label_in(lang);
            assert!(
                screen.iter().any(|row| row.contains(&format!(" {word} "))),
                "{lang:?}: {word} is cut\n{}",
                screen.join("\n")
            );
        }
    }
}

// --- The list's title ----------------------------------------------------------

#[test]
fn the_list_title_shows_the_active_filters_first() {
    let fx = fixture();
    for (lang, filter, class, pending) in [
        (
            Lang::En,
            "filter \"site-a\"",
            "class simultaneous",
            "pending only",
        ),
        (Lang::Ja, "絞り込み「site-a」", "間隔 同時", "未対応のみ"),
    ] {
        // Every filter at once: the class, pending only and a text.
        let mut app = loaded_in(lang, &fx, 80, 24);
        typed(&mut app, &fx, "tP/site-a");
        send(&mut app, &fx, code(KeyCode::Enter));
        let screen = rows(&app, 80, 24);
        let title = screen
            .iter()
            .find(|row| {
                row.starts_with(&format!(
                    " {} ·",
                    if lang == Lang::En {
                        "Duplicates"
                    } else {
                        "重複"
                    }
                ))
            })
            .unwrap_or_else(|| panic!("{lang:?}: no title\n{}", screen.join("\n")));
        for (what, word) in [("filter", filter), ("class", class), ("pending", pending)] {
            assert!(
                title.contains(word),
                "{lang:?}: {what} not shown: {title:?}"
            );
        }
        // The filters come before the count, which may be shortened.
        let count = if lang == Lang::En { " of " } else { " 件中 " };
        if let Some(at) = title.find(count) {
            assert!(title.find(filter).unwrap() < at, "{title:?}");
        }
        assert!(width(title) <= 80, "{title:?}");
    }
}

// --- The detail's lines and times ----------------------------------------------

/// The detail pane's part of each row at 160 columns (the list is on the left).
fn detail_rows(screen: &[String], from: usize) -> Vec<String> {
    screen
        .iter()
        .map(|row| {
            let mut at = 0;
            let mut out = String::new();
            for c in row.chars() {
                if at >= from {
                    out.push(c);
                }
                at += width(c.encode_utf8(&mut [0; 4]));
            }
            out.trim_end().to_string()
        })
        .collect()
}

/// Where the detail pane starts: the column of its title.
fn detail_x(screen: &[String], title: &str) -> usize {
    screen
        .iter()
        .find_map(|row| row.find(&format!(" {title} ")).map(|i| width(&row[..i])))
        .expect("a detail title")
}

#[test]
fn the_detail_wraps_its_lines_instead_of_cutting_them() {
    let fx = absorbed_fixture();
    for (lang, title, whole) in [
        (Lang::En, "Detail", "absorbed copies 1"),
        (Lang::Ja, "詳細", "吸収した重複 1"),
    ] {
        // A conflict whose original was absorbed once: its facts line is long.
        let mut app = loaded_in(lang, &fx, 160, 48);
        app.zone = tokyo();
        typed(&mut app, &fx, "2");
        let screen = rows(&app, 160, 48);
        let detail = detail_rows(&screen, detail_x(&screen, title));
        let text = detail.join("\n");
        assert!(text.contains(whole), "{lang:?}:\n{text}");
        // Above the comparison (whose cells are cut on purpose), no line is cut.
        for line in detail
            .iter()
            .take_while(|l| !l.contains('#') || !l.contains("  "))
        {
            assert!(!line.ends_with('…'), "{lang:?}: {line:?}\n{text}");
        }
        for line in &detail {
            if line.contains(whole) || line.contains("#150") {
                assert!(!line.ends_with('…'), "{lang:?}: {line:?}\n{text}");
            }
        }
    }
}

/// True when the text holds a raw RFC 3339 time (2026-11-29T11:05:30.123Z).
fn has_rfc3339(text: &str) -> bool {
    regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
        .unwrap()
        .is_match(text)
}

#[test]
fn the_detail_says_times_as_the_list_does_in_the_operators_zone() {
    let fx = fixture();
    let bots = bots_fixture();
    for lang in Lang::ALL {
        // Each tab's detail: a group, a conflict, a stuck receipt, a log entry.
        for (fx, keys) in [
            (&fx, ""),
            (&fx, "2"),
            (&fx, "3"),
            (&fx, "8j"),
            (&bots, "4G"),
        ] {
            let mut app = loaded_in(lang, fx, 160, 48);
            app.zone = tokyo();
            typed(&mut app, fx, keys);
            let text = rows(&app, 160, 48).join("\n");
            assert!(!has_rfc3339(&text), "{lang:?} {keys:?}:\n{text}");
        }
        // dup:140's first copy, 11:05:30 UTC, as the list says it in Tokyo.
        let app = loaded_in(lang, &fx, 160, 48);
        let mut app = app;
        app.zone = tokyo();
        let text = rows(&app, 160, 48).join("\n");
        assert!(text.contains("11-29 20:05"), "{lang:?}:\n{text}");
    }
}

// --- The comparison's marks ----------------------------------------------------

#[test]
fn every_bookkeeping_field_is_marked_not_compared() {
    let mut fx = fixture();
    // dup:140's copies: a bookkeeping field the same in both, one that differs.
    for (id, event) in [(140, "e-1"), (141, "e-2")] {
        let r = PayloadRef::Receipt(id);
        let mut map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&fx.payloads[&r]).unwrap();
        map.insert("utm_source".into(), "google".into());
        map.insert("event_id".into(), event.into());
        fx.payloads
            .insert(r, serde_json::Value::Object(map).to_string());
    }
    for lang in Lang::ALL {
        let app = loaded_in(lang, &fx, 160, 48);
        let screen = rows(&app, 160, 48);
        for field in ["utm_source", "event_id"] {
            let line = screen
                .iter()
                .find(|l| l.contains(&format!(" {field} ")))
                .unwrap_or_else(|| panic!("{field}:\n{}", screen.join("\n")));
            assert!(line.contains(&format!("· {field}")), "{lang:?}: {line:?}");
        }
    }
}

#[test]
fn the_help_says_what_a_dash_and_an_empty_cell_mean() {
    let fx = fixture();
    for (lang, dash, empty) in [
        (Lang::En, "the field is not in this copy at all", "(blank)"),
        (Lang::Ja, "この受付にはその項目がありません", "（空欄）"),
    ] {
        let mut app = loaded_in(lang, &fx, 120, 300);
        app.overlay = Some(Overlay::Help { scroll: 0 });
        let text = rows(&app, 120, 300).join("\n");
        let row = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{lang:?}: {needle}\n{text}"))
                .to_string()
        };
        assert!(row(dash).contains("—"), "{lang:?}");
        assert!(!row(empty).trim_matches(['│', ' ']).is_empty());
    }
}

// --- A bot group's message -----------------------------------------------------

#[test]
fn a_bot_groups_detail_shows_the_message_its_receipts_share() {
    let fx = bots_fixture();
    for (lang, title) in [(Lang::En, "Detail"), (Lang::Ja, "詳細")] {
        // The campaign: the oldest group, last.
        let mut app = loaded_in(lang, &fx, 160, 48);
        typed(&mut app, &fx, "4G");
        let screen = rows(&app, 160, 48);
        let detail = detail_rows(&screen, detail_x(&screen, title)).join(" ");
        assert!(
            detail.contains("boost your search ranking today with our seo package"),
            "{lang:?}:\n{}",
            screen.join("\n")
        );
    }
}

// --- The Forms chart's days ----------------------------------------------------

#[test]
fn the_forms_chart_labels_its_first_and_last_day() {
    let fx = fixture();
    for lang in Lang::ALL {
        let mut app = loaded_in(lang, &fx, 80, 24);
        typed(&mut app, &fx, "7");
        let screen = rows(&app, 80, 24);
        // The chart's bars, and the row under them.
        let is_bar = |c: char| ('▁'..='█').contains(&c);
        let top = screen
            .iter()
            .position(|row| row.chars().any(is_bar))
            .expect("a chart");
        let bar_rows = screen[top..]
            .iter()
            .take_while(|row| row.chars().any(is_bar))
            .count();
        let axis = &screen[top + bar_rows];
        // The week before the fixture's now (2026-11-29 12:15 UTC), to today.
        assert!(
            axis.contains("11-22"),
            "{lang:?}: {axis:?}\n{}",
            screen.join("\n")
        );
        assert!(axis.contains("11-29"), "{lang:?}: {axis:?}");
        // The first day under the first bar, the last day ending under the last.
        let first_bar = screen[top..top + bar_rows]
            .iter()
            .filter_map(|row| row.find(is_bar).map(|i| width(&row[..i])))
            .min()
            .unwrap();
        let last_bar = screen[top..top + bar_rows]
            .iter()
            .filter_map(|row| row.rfind(is_bar).map(|i| width(&row[..i])))
            .max()
            .unwrap();
        let at = |needle: &str| width(&axis[..axis.find(needle).unwrap()]);
        assert!(at("11-22") <= first_bar + 1, "{lang:?}: {axis:?}");
        assert_eq!(at("11-29") + 5, last_bar + 1, "{lang:?}: {axis:?}");
    }
}
