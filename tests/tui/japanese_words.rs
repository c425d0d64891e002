//! The Japanese screen's wording as a person reads it: Japanese punctuation
//! between receipt numbers, no database words, the desk's own phrasing.

use crate::fixture::*;
use receipt_review::i18n::Lang;

fn typed(lang: Lang, keys: &str, (width, height): (u16, u16)) -> Vec<String> {
    let fx = fixture();
    let mut app = loaded_in(lang, &fx, width, height);
    for c in keys.chars() {
        send(&mut app, &fx, key(c));
    }
    rows(&app, width, height)
}

#[test]
fn a_log_entry_lists_its_receipts_with_the_languages_comma() {
    // The Log tab, its second newest entry: dup:101, receipts #101 and #102.
    let ja = typed(Lang::Ja, "8j", (160, 48)).join("\n");
    assert!(ja.contains("受付 #101、#102"), "{ja}");
    assert!(!ja.contains("#101, #102"), "{ja}");
    let en = typed(Lang::En, "8j", (160, 48)).join("\n");
    assert!(en.contains("receipts #101, #102"), "{en}");
}

#[test]
fn the_state_dialog_names_no_database_table() {
    // The Stuck tab, F: the question before a receipt is marked failed.
    for (lang, words) in [
        (Lang::Ja, ["テーブル", "receipts"]),
        (Lang::En, ["table", "receipts "]),
    ] {
        let screen = typed(lang, "3F", (80, 24)).join("\n");
        let dialog: String = screen
            .lines()
            .skip_while(|l| !l.contains('┌'))
            .take_while(|l| !l.contains('└'))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(!dialog.is_empty(), "{screen}");
        for word in words {
            assert!(!dialog.contains(word), "{lang:?}: {word}\n{dialog}");
        }
    }
    let ja = typed(Lang::Ja, "3F", (160, 48)).join("\n");
    assert!(
        ja.contains("受付 #160 は、まだ処理中の場合に限り「処理失敗」になります。"),
        "{ja}"
    );
}

#[test]
fn the_stuck_detail_says_what_p_does_in_plain_words() {
    // At 80 columns the detail pane is as wide as the screen, under the list:
    // its wrapped lines read as one text once the spaces are taken out.
    let text: String = typed(Lang::Ja, "3", (80, 24))
        .concat()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    assert!(
        text.contains("まだ結果が分からない場合はp（保留）を押します。"),
        "{text}"
    );
}
