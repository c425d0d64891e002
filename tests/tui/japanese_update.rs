//! The screen in Japanese: `update` stays pure, and every message, question
//! and answer it makes (and the worker's) speaks the screen's language, while
//! an English screen beside it says the same things in English.

use std::time::Duration;

use crate::fixture::*;
use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::review::Wide;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::{Effect, ItemDecision, Msg};
use receipt_review::tui::app::state::Confirm;
use receipt_review::tui::app::{App, Overlay, update};
use receipt_review::tui::collection::Request;

/// An 80×24 screen in `lang` that has read the fixture.
fn loaded_in(fx: &Fixture, lang: Lang) -> App {
    let mut app = App::new(false).with_lang(lang).with_operator("alice");
    update(
        &mut app,
        Msg::Resize {
            width: 80,
            height: 24,
        },
    );
    send(
        &mut app,
        fx,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    app
}

fn status(app: &App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

fn confirm(app: &App) -> Confirm {
    match &app.overlay {
        Some(Overlay::Confirm(c)) => (**c).clone(),
        other => panic!("no confirmation: {other:?}"),
    }
}

/// Kana or kanji: a text without any is English left behind.
fn japanese(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[test]
fn a_decision_is_announced_in_japanese_and_in_english_beside_it() {
    let fx = fixture();
    let mut ja = loaded_in(&fx, Lang::Ja);
    let mut en = loaded_in(&fx, Lang::En);
    for app in [&mut ja, &mut en] {
        let effects = send(app, &fx, key('d'));
        assert!(matches!(effects.as_slice(), [Effect::Decide(r)] if r.item == "dup:140"));
    }
    assert_eq!(status(&ja), "dup:140 を「重複」として記録しています…");
    assert_eq!(status(&en), "recording dup:140 as duplicate…");
    // A conflict's follow-up, in words, not as stored.
    let mut ja = loaded_in(&fx, Lang::Ja);
    send(&mut ja, &fx, key('2'));
    send(&mut ja, &fx, key('f'));
    assert_eq!(
        status(&ja),
        "conflict:150 を「要返信」として記録しています…"
    );
    // An item already resolved says so, with who and the decision.
    let mut ja = loaded_in(&fx, Lang::Ja);
    send(&mut ja, &fx, key('G'));
    assert!(send(&mut ja, &fx, key('x')).is_empty());
    let text = status(&ja);
    assert!(
        text.starts_with("dup:120 はすでに対応済みです（訂正、hanako、"),
        "{text}"
    );
    assert!(
        text.contains("u で自分の直前の判断を取り消せます"),
        "{text}"
    );
}

#[test]
fn filters_and_views_are_told_in_japanese() {
    let fx = fixture();
    let mut app = loaded_in(&fx, Lang::Ja);
    send(&mut app, &fx, key('/'));
    for c in "dup:1".chars() {
        send(&mut app, &fx, key(c));
    }
    send(&mut app, &fx, code(KeyCode::Enter));
    let shown = app.rows(app.tab).len();
    assert!(shown > 1, "{shown}");
    assert_eq!(
        status(&app),
        format!("絞り込み「dup:1」: このタブで {shown} 行（Esc で解除）")
    );
    send(&mut app, &fx, code(KeyCode::Esc));
    assert_eq!(status(&app), "絞り込みを解除しました");
    send(&mut app, &fx, key('T'));
    assert_eq!(status(&app), "古い順（T で切り替え）");
    send(&mut app, &fx, key('P'));
    assert!(status(&app).starts_with("未対応の案件だけを表示しています"));
    send(&mut app, &fx, key('t'));
    assert_eq!(status(&app), "同時の重複グループを表示しています");
}

#[test]
fn the_bulk_question_and_the_state_question_speak_japanese() {
    let fx = fixture();
    let mut app = loaded_in(&fx, Lang::Ja);
    send(&mut app, &fx, key('D'));
    let c = confirm(&app);
    assert_eq!(
        c.title,
        "未対応の同一グループ 3 件を「重複」として対応済みにしますか？"
    );
    assert!(c.lines[0].contains("3 グループ"), "{:?}", c.lines);
    assert!(c.lines.iter().all(|l| japanese(l)), "{:?}", c.lines);
    assert_eq!(
        (c.yes_label.as_str(), c.no_label.as_str()),
        ("はい、3 件を対応済みにする", "いいえ")
    );
    send(&mut app, &fx, key('n'));
    assert_eq!(status(&app), "キャンセルしました。何も変更していません");

    send(&mut app, &fx, key('3'));
    send(&mut app, &fx, key('F'));
    let c = confirm(&app);
    assert_eq!(c.title, "stuck:160 を「処理失敗」にしますか？");
    let text = c.lines.join("\n");
    assert!(text.contains("キーが解放され"), "{text}");
    assert!(
        !text.contains("in flight") && !text.contains("Time alone"),
        "{text}"
    );
}

#[test]
fn undoing_a_batch_asks_in_japanese_with_its_count() {
    let fx = fixture();
    let mut app = loaded_in(&fx, Lang::Ja);
    assert_eq!(send(&mut app, &fx, key('u')), vec![Effect::Undo]);
    assert_eq!(status(&app), "直前の判断を取り消しています…");
    let wide = Wide::Batch {
        batch: 40,
        decisions: 99,
        left: 2,
    };
    send(&mut app, &fx, Msg::UndoAsks(wide.clone()));
    let c = confirm(&app);
    assert_eq!(
        c.title,
        "その一括の判断 99 件をすべて取り消し、未対応に戻しますか？"
    );
    assert_eq!(
        c.lines,
        [
            "直前の操作で 101 件の判断をまとめて記録しました。",
            "取り消すと 99 件の案件が未対応に戻ります。ほかは何も変わりません。",
            "そのうち 2 件は、その後ほかの人が判断したか未対応に戻したため、そのままにします。",
        ]
    );
    assert_eq!(c.yes_label, "はい、99 件を未対応に戻す");
    assert!(!c.yes_focused);
    assert_eq!(
        send(&mut app, &fx, key('y')),
        vec![Effect::UndoConfirmed(wide)]
    );
    assert_eq!(status(&app), "直前の操作を取り消しています…");
}

#[test]
fn a_bot_group_is_marked_spam_after_a_japanese_question() {
    let fx = bots_fixture();
    let mut app = loaded_in(&fx, Lang::Ja);
    send(&mut app, &fx, key('4'));
    send(&mut app, &fx, key('s'));
    let c = confirm(&app);
    assert!(c.title.starts_with("受付 ") && c.title.ends_with("件をスパムにしますか？"));
    assert!(c.lines.iter().all(|l| japanese(l)), "{:?}", c.lines);
    assert!(c.yes_label.ends_with("件はスパム"), "{}", c.yes_label);
}

#[test]
fn the_worker_answers_in_the_screen_language() {
    let dir = tempfile::tempdir().unwrap();
    let (worker, rx) = demo_worker(dir.path(), 3, false, "aiko", Lang::Ja);
    worker.send(Request::Load);
    // Its progress is told in Japanese too.
    let reading = loop {
        match rx.recv_timeout(Duration::from_secs(60)).unwrap() {
            Msg::Progress { stage, .. } => assert!(japanese(stage), "{stage}"),
            Msg::Loaded(r) if !r.snapshot.receipts_pending => break r,
            Msg::LoadFailed(why) => panic!("{why}"),
            _ => {}
        }
    };
    let exact: Vec<ItemDecision> = every_exact_group_as_duplicate(&reading.snapshot);
    assert!(exact.len() >= 3, "{} exact groups", exact.len());
    // One decision: its words, and the copy it keeps.
    let one = exact[0].clone();
    worker.send(Request::Decide(vec![one.clone()]));
    match next_answer(&rx) {
        Msg::Recorded(Ok(text)) => {
            let prefix = format!("{}: 「重複」を記録しました（#", one.item);
            assert!(text.starts_with(&prefix), "{text}");
            assert!(text.ends_with(" を残します）"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // Decided again: refused, in Japanese.
    worker.send(Request::Decide(vec![one]));
    match next_answer(&rx) {
        Msg::Recorded(Err(text)) => assert!(japanese(&text), "{text}"),
        other => panic!("{other:?}"),
    }
    // The rest as one step, then undone as one.
    let rest = exact[1..].to_vec();
    let n = rest.len();
    worker.send(Request::DecideBatch(rest));
    match next_answer(&rx) {
        Msg::Recorded(Ok(text)) => assert_eq!(
            text,
            format!("{n} 件の判断を 1 回の操作として記録しました（u でまとめて未対応に戻せます）")
        ),
        other => panic!("{other:?}"),
    }
    worker.send(Request::Undo(None));
    let wide = match next_answer(&rx) {
        Msg::UndoAsks(wide) => wide,
        other => panic!("{other:?}"),
    };
    worker.send(Request::Undo(Some(wide)));
    match next_answer(&rx) {
        Msg::Undone(Ok(undone)) => {
            assert_eq!(
                undone.text,
                format!("{n} 件の判断を取り消し、未対応に戻しました")
            )
        }
        other => panic!("{other:?}"),
    }
}
