//! The screen in Japanese: the canvas's own words from the Japanese
//! catalogue, and double-width text that never breaks alignment, at 80×24
//! and 160×48 (snapshots beside the English ones).

use crate::find::{found, miss_scan, taro_scan, tokyo};
use crate::fixture::*;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::tui::app::{App, Tab};
use unicode_width::UnicodeWidthStr;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// The fixture's screen in Japanese, after `typed`.
fn japanese(fx: &Fixture, (width, height): (u16, u16), typed: &str) -> App {
    let mut app = loaded_in(Lang::Ja, fx, width, height);
    keys(&mut app, fx, typed);
    app
}

/// The cells of row `y` a person sees: a cell hidden behind a wide character is left out.
fn visible_row(buffer: &Buffer, y: u16) -> Vec<(u16, String)> {
    let mut cells = Vec::new();
    let mut x = 0;
    while x < buffer.area.width {
        let symbol = buffer[(x, y)].symbol().to_string();
        let w = UnicodeWidthStr::width(symbol.as_str()).max(1) as u16;
        cells.push((x, symbol));
        x += w;
    }
    cells
}

fn row_text(buffer: &Buffer, y: u16) -> String {
    visible_row(buffer, y).into_iter().map(|(_, s)| s).collect()
}

/// Every x where `needle` starts in row `y`.
fn xs_of(buffer: &Buffer, y: u16, needle: &str) -> Vec<u16> {
    let cells = visible_row(buffer, y);
    (0..cells.len())
        .filter(|&i| {
            let rest: String = cells[i..].iter().map(|(_, s)| s.as_str()).collect();
            rest.starts_with(needle)
        })
        .map(|i| cells[i].0)
        .collect()
}

/// The first row of the screen holding `needle`.
fn row_of(buffer: &Buffer, needle: &str) -> u16 {
    (0..buffer.area.height)
        .find(|&y| !xs_of(buffer, y, needle).is_empty())
        .unwrap_or_else(|| panic!("{needle} not on screen"))
}

/// Each row, as seen, is exactly as wide as the terminal: a double-width
/// character never pushes a row past its edge nor leaves it short.
fn rows_fill_the_width(buffer: &Buffer) {
    for y in 0..buffer.area.height {
        let text = row_text(buffer, y);
        assert_eq!(
            UnicodeWidthStr::width(text.as_str()),
            usize::from(buffer.area.width),
            "row {y}: {text:?}"
        );
    }
}

/// A snapshot of the screen, once every row is checked to fit.
fn shown(app: &App, width: u16, height: u16) -> String {
    let terminal = render(app, width, height);
    rows_fill_the_width(terminal.backend().buffer());
    terminal.backend().to_string()
}

// --- Snapshots ------------------------------------------------------------------

#[test]
fn duplicates_ja_80x24() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "");
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn duplicates_detail_ja_160x48() {
    let fx = fixture();
    // dup:110, a partial copy of a Japanese message, fourth newest first.
    let app = japanese(&fx, (160, 48), "jjj");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn duplicates_detail_ja_80x24() {
    let fx = fixture();
    let mut app = japanese(&fx, (80, 24), "jjj");
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn resolved_group_ja_160x48() {
    let fx = fixture();
    // dup:120, resolved as a correction with a note: the oldest, last.
    let app = japanese(&fx, (160, 48), "G");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn conflicts_ja_80x24() {
    let fx = fixture();
    let mut app = japanese(&fx, (80, 24), "2");
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn conflicts_ja_160x48() {
    let fx = fixture();
    let app = japanese(&fx, (160, 48), "2");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn stuck_ja_80x24() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "3");
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn stuck_ja_160x48() {
    let fx = fixture();
    let app = japanese(&fx, (160, 48), "3");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn bots_ja_80x24() {
    let fx = bots_fixture();
    // The campaign: the oldest group, last.
    let mut app = japanese(&fx, (80, 24), "4G");
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn bots_ja_160x48() {
    let fx = bots_fixture();
    let app = japanese(&fx, (160, 48), "4G");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn damaged_ja_80x24() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "5");
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn damaged_ja_160x48() {
    let fx = fixture();
    let app = japanese(&fx, (160, 48), "5");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

/// The Receipts tab in Tokyo, after a search answered with `scan`.
fn receipts_found(
    fx: &Fixture,
    size: (u16, u16),
    text: &str,
    scan: receipt_review::find::Scan,
) -> App {
    let mut app = japanese(fx, size, "");
    app.zone = tokyo();
    send(&mut app, fx, key('6'));
    assert_eq!(app.tab, Tab::Receipts);
    found(&mut app, fx, text, scan);
    app
}

#[test]
fn receipts_hit_ja_80x24() {
    let fx = fixture();
    let mut app = receipts_found(&fx, (80, 24), "taro", taro_scan());
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn receipts_hit_ja_160x48() {
    let fx = fixture();
    let mut app = receipts_found(&fx, (160, 48), "taro", taro_scan());
    send(&mut app, &fx, code(KeyCode::Enter));
    let text = shown(&app, 160, 48);
    // The young in-flight receipt's warning, in the catalogue's words.
    assert!(
        text.contains("結果はまだ分かりません。訪問者に「失敗した」とは伝えないでください"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn receipts_miss_ja_80x24() {
    let fx = fixture();
    let app = receipts_found(&fx, (80, 24), "nobody@example.org", miss_scan());
    let text = shown(&app, 80, 24);
    assert!(
        text.contains("「nobody@example.org」に一致する受付はありません。"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn receipts_miss_ja_160x48() {
    let fx = fixture();
    let app = receipts_found(
        &fx,
        (160, 48),
        "nobody@example.org yesterday 10:00",
        miss_scan(),
    );
    let text = shown(&app, 160, 48);
    assert!(
        text.contains("見つからなくても、問い合わせが届かなかったとは限りません"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn forms_pathways_ja_80x24() {
    let fx = fixture();
    let mut app = japanese(&fx, (80, 24), "7");
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn forms_pathways_ja_160x48() {
    let fx = fixture();
    let mut app = japanese(&fx, (160, 48), "7");
    send(&mut app, &fx, code(KeyCode::Enter));
    let text = shown(&app, 160, 48);
    assert!(text.contains("考えられる原因"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn log_ja_80x24() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "8j");
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn log_ja_160x48() {
    let fx = fixture();
    let app = japanese(&fx, (160, 48), "8j");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn confirm_failed_ja_80x24() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "3F");
    insta::assert_snapshot!(shown(&app, 80, 24));
}

#[test]
fn confirm_failed_ja_160x48() {
    let fx = fixture();
    let app = japanese(&fx, (160, 48), "3F");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

#[test]
fn export_dialog_ja_80x24() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "e");
    let text = shown(&app, 80, 24);
    assert!(text.contains("レビュー記録を書き出す"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn export_dialog_ja_160x48() {
    let fx = fixture();
    let app = japanese(&fx, (160, 48), "e");
    insta::assert_snapshot!(shown(&app, 160, 48));
}

// --- Alignment ------------------------------------------------------------------

#[test]
fn list_columns_line_up_under_their_japanese_headers() {
    let fx = fixture();
    for size in SIZES {
        let app = japanese(&fx, size, "");
        let terminal = render(&app, size.0, size.1);
        let buffer = terminal.backend().buffer();
        let header = row_of(buffer, "状態 ");
        let column = |head: &str| xs_of(buffer, header, head)[0];
        let (item, received, scope, visitor) = (
            column("案件"),
            column("受付日時"),
            column("フォーム"),
            column("訪問者"),
        );
        for (id, form, who) in [
            ("dup:140", "site-b/quote", "Carol"),
            ("dup:110", "site-jp/お問い合わせ", "山田太郎"),
            ("dup:120", "site-jp/お問い合わせ", "佐藤花子"),
        ] {
            // The list's row: its id under the item header (the detail
            // beside it may name the item too).
            let y = (header + 1..buffer.area.height)
                .find(|&y| xs_of(buffer, y, id).contains(&item))
                .unwrap_or_else(|| panic!("{size:?}: {id} not in the list"));
            assert_eq!(xs_of(buffer, y, "11-29")[0], received, "{size:?}: {id}");
            assert_eq!(xs_of(buffer, y, form)[0], scope, "{size:?}: {id}");
            assert_eq!(xs_of(buffer, y, who)[0], visitor, "{size:?}: {id}");
        }
        // No header is cut where its column has room for it.
        assert!(!row_text(buffer, header).contains('…'), "{size:?}");
    }
}

#[test]
fn the_copies_of_a_group_line_up_under_their_japanese_headers() {
    let fx = fixture();
    // dup:140, two exact copies.
    let app = japanese(&fx, (160, 48), "");
    let terminal = render(&app, 160, 48);
    let buffer = terminal.backend().buffer();
    let header = row_of(buffer, "受付番号 ");
    let column = |head: &str| xs_of(buffer, header, head)[0];
    let (receipt, time, class, state, matched) = (
        column("受付番号"),
        column("時刻 (UTC)"),
        column("間隔の分類"),
        column("状態"),
        column("一致"),
    );
    let second = row_of(buffer, "2. #141");
    assert_eq!(xs_of(buffer, second, "#141")[0], receipt);
    assert_eq!(xs_of(buffer, second, "11:08:30.123")[0], time);
    assert_eq!(xs_of(buffer, second, "数分差")[0], class);
    assert_eq!(xs_of(buffer, second, "処理完了")[0], state);
    assert_eq!(xs_of(buffer, second, "同一")[0], matched);
}

#[test]
fn the_forms_pathways_line_up_with_japanese_titles() {
    let fx = fixture();
    let mut app = japanese(&fx, (160, 48), "7");
    send(&mut app, &fx, code(KeyCode::Enter));
    let terminal = render(&app, 160, 48);
    let buffer = terminal.backend().buffer();
    // Each pathway's count ends in the same column, whatever its title's width.
    let rows: Vec<u16> = (0..buffer.area.height)
        .filter(|&y| {
            let text = row_text(buffer, y);
            ["件 ", "回 "].iter().any(|unit| text.contains(unit)) && text.contains("例: ")
        })
        .collect();
    assert!(rows.len() >= 2, "pathways on screen: {rows:?}");
    let unit_at: Vec<u16> = rows
        .iter()
        .map(|&y| {
            let cells = visible_row(buffer, y);
            cells
                .iter()
                .find(|(_, s)| s == "件" || s == "回")
                .map(|(x, _)| *x)
                .unwrap()
        })
        .collect();
    assert!(
        unit_at.windows(2).all(|w| w[0] == w[1]),
        "units at {unit_at:?}"
    );
}

#[test]
fn the_canvas_says_its_own_words_in_japanese() {
    let fx = fixture();
    for size in SIZES {
        let app = japanese(&fx, size, "");
        let text = screen(&app, size.0, size.1);
        for word in [
            "未対応 ",
            "対応済み ",
            "詳細",
            "状態",
            "受付日時",
            "担当者 alice",
        ] {
            assert!(text.contains(word), "{size:?}: {word}\n{text}");
        }
        for english in ["Detail", "received", "operator", "as of", "keep #"] {
            assert!(!text.contains(english), "{size:?}: {english}\n{text}");
        }
    }
    // Visitor data stays as it was typed.
    let app = japanese(&fx, (160, 48), "");
    let text = screen(&app, 160, 48);
    assert!(
        text.contains("Carol") && text.contains("site-b/quote"),
        "{text}"
    );
}

#[test]
fn the_english_screen_is_unchanged_by_the_catalogue() {
    // The same state in both languages: only our words differ.
    let fx = fixture();
    let en = screen(&loaded_in(Lang::En, &fx, 160, 48), 160, 48);
    let default = screen(&loaded(&fx, 160, 48, false), 160, 48);
    assert_eq!(en, default);
    assert!(en.contains("keep #140: most complete · c keeps #141, the latest · [/] choose"));
    let ja = screen(&loaded_in(Lang::Ja, &fx, 160, 48), 160, 48);
    assert!(ja.contains("#140 を残す: いちばん入力が多い · c なら最新の #141 · [/] で選ぶ"));
}

#[test]
fn a_dialog_over_japanese_text_keeps_its_border_whole() {
    // The stuck receipt's explanation, in Japanese, runs under the dialog's
    // left border: a wide character there must not hide it.
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "3F");
    let terminal = render(&app, 80, 24);
    let buffer = terminal.backend().buffer();
    let top = row_of(buffer, "┌");
    let left = xs_of(buffer, top, "┌")[0];
    let bottom = row_of(buffer, "└");
    for y in top + 1..bottom {
        assert_eq!(
            xs_of(buffer, y, "│").first(),
            Some(&left),
            "row {y}: {:?}",
            row_text(buffer, y)
        );
    }
}

#[test]
fn help_loading_and_too_small_in_japanese() {
    let fx = fixture();
    let app = japanese(&fx, (80, 24), "?");
    let text = shown(&app, 80, 24);
    assert!(
        text.contains("キーと用語 — j/k でスクロール · Esc、q、? で閉じる"),
        "{text}"
    );

    let app = App::new(false)
        .with_lang(Lang::Ja)
        .with_database("/srv/intake/receipts.db");
    let text = shown(&app, 80, 24);
    assert!(
        text.contains("/srv/intake/receipts.db を読み込み中…"),
        "{text}"
    );
    assert!(
        text.contains("大きなデータベースは少し時間がかかります。q で終了します。"),
        "{text}"
    );

    let app = loaded_in(Lang::Ja, &fx, 30, 8);
    let text = screen(&app, 30, 8);
    assert!(text.contains("端末が小さすぎます"), "{text}");
}

#[test]
fn the_copies_table_names_the_zone_its_times_are_in() {
    let fx = fixture();
    for (lang, head) in [(Lang::En, "time (JST)"), (Lang::Ja, "時刻 (JST)")] {
        let mut app = loaded_in(lang, &fx, 160, 48);
        app.zone = tokyo();
        let text = screen(&app, 160, 48);
        assert!(text.contains(head), "{lang:?}\n{text}");
        // dup:140's first copy, 11:05:30 UTC.
        assert!(text.contains("20:05:30.123"), "{lang:?}\n{text}");
        assert!(!text.contains("(UTC)"), "{lang:?}\n{text}");
    }
}
