//! The command line in Japanese: every message and error of each
//! subcommand when the locale says `ja`, the same exit codes, and the JSON
//! outputs byte for byte as in English.

use crate::common;

use std::process::Output;

use common::{NOW, bin, fixture};
use rusqlite::Connection;

/// The binary run under a Japanese locale.
fn run_ja(args: &[&str]) -> Output {
    bin()
        .env("LANG", "ja_JP.UTF-8")
        .args(args)
        .output()
        .expect("run receipt-review")
}

fn run_en(args: &[&str]) -> Output {
    common::run(args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// One line on stderr, `receipt-review: ` then Japanese words.
fn one_japanese_line(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("receipt-review: "), "{err}");
    assert!(has_japanese(&err), "{err}");
    err
}

fn has_japanese(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[test]
fn report_speaks_japanese_and_its_json_does_not_change() {
    let f = fixture();
    let o = run_ja(&["report", f.path(), "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for heading in [
        "受付 5 件",
        "重複",
        "未対応 1",
        "競合",
        "滞留",
        "破損した行（分析していません）",
        "受付 5 ",
        "フォーム別（",
        "考えられる原因",
    ] {
        assert!(text.contains(heading), "{heading:?} missing:\n{text}");
    }
    for english in [
        "Duplicates",
        "pending",
        "Forms (",
        "likely pathways",
        "receipts,",
    ] {
        assert!(!text.contains(english), "{english:?} left:\n{text}");
    }

    let en = run_en(&["report", f.path(), "--json", "--now", NOW]);
    let ja = run_ja(&["report", f.path(), "--json", "--now", NOW]);
    assert_eq!(ja.status.code(), Some(0));
    assert_eq!(ja.stdout, en.stdout, "report --json follows the language");
}

#[test]
fn rows_stay_in_line_with_double_width_words() {
    let f = fixture();
    let text = stdout(&run_ja(&["report", f.path(), "--now", NOW]));
    // The summary's counts end in one column, Japanese labels or not.
    let ends: Vec<usize> = text
        .lines()
        .skip(2)
        .take(6)
        .map(|line| {
            let count_end = line.find(|c: char| c.is_ascii_digit()).unwrap()
                + line
                    .chars()
                    .skip_while(|c| !c.is_ascii_digit())
                    .take_while(|c| c.is_ascii_digit())
                    .count();
            unicode_width::UnicodeWidthStr::width(&line[..count_end])
        })
        .collect();
    assert!(ends.iter().all(|&e| e == 22), "{ends:?}\n{text}");
}

#[test]
fn a_database_without_a_required_column_is_one_japanese_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE receipts(id INTEGER PRIMARY KEY, created_at TEXT);")
        .unwrap();
    let o = run_ja(&["report", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = one_japanese_line(&o);
    assert!(err.contains("`payload` 列がありません"), "{err}");

    let o = run_ja(&["report", dir.path().join("nothing.db").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        one_japanese_line(&o).contains("ファイルがありません"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn find_explains_in_japanese() {
    let f = fixture();
    let o = run_ja(&["find", f.path(), "@25:61", "--now", NOW]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        one_japanese_line(&o).contains("25:61 という時刻はありません"),
        "{}",
        stderr(&o)
    );

    let o = run_ja(&["find", f.path(), "nobody@nowhere.example", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("「nobody@nowhere.example」に一致する受付はありません"),
        "{text}"
    );
    assert!(text.contains("届かなかったとは限りません"), "{text}");

    let o = run_ja(&["find", f.path(), "aiko@example.jp", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("「aiko@example.jp」に一致する受付が 3 件あります"),
        "{text}"
    );
    assert!(text.contains("dup:1 未対応"), "{text}");
    // Visitor data as it was typed.
    assert!(text.contains("name: Aiko Tanaka"), "{text}");

    let en = run_en(&["find", f.path(), "aiko@example.jp", "--json", "--now", NOW]);
    let ja = run_ja(&["find", f.path(), "aiko@example.jp", "--json", "--now", NOW]);
    assert_eq!(ja.stdout, en.stdout, "find --json follows the language");
}

#[test]
fn check_names_damaged_rows_in_japanese() {
    let f = fixture();
    let o = run_ja(&["check", f.path()]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("破損した受付 5: 送信データ: "), "{text}");
    assert!(
        text.contains("受付 5 件を確認しました: 破損 1 件"),
        "{text}"
    );
}

#[test]
fn resolve_records_and_refuses_in_japanese() {
    let f = fixture();
    let resolve = |item: &str, decision: &str, operator: &str| {
        run_ja(&[
            "resolve",
            f.path(),
            item,
            decision,
            "--operator",
            operator,
            "--now",
            NOW,
        ])
    };
    let o = resolve("conflict:1", "follow_up", "aiko");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("conflict:1: 「要返信」を記録しました（担当 aiko、"),
        "{}",
        stdout(&o)
    );

    let o = resolve("conflict:1", "original_stands", "bob");
    assert_eq!(o.status.code(), Some(1));
    let err = one_japanese_line(&o);
    assert!(
        err.contains("aiko さんがすでに判断しています（要返信）"),
        "{err}"
    );

    let o = resolve("dup:1", "later", "bob");
    assert_eq!(o.status.code(), Some(2));
    let err = one_japanese_line(&o);
    assert!(
        err.contains("重複グループの判断に「later」はありません"),
        "{err}"
    );
    // The values to type stay as they are typed.
    assert!(
        err.contains("duplicate, correction, distinct, spam"),
        "{err}"
    );

    let o = resolve("dup:999", "duplicate", "bob");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        one_japanese_line(&o).contains("案件 dup:999 はありません"),
        "{}",
        stderr(&o)
    );

    let o = resolve("dup:1", "duplicate", "bad\tname");
    assert_eq!(o.status.code(), Some(2));
    assert!(one_japanese_line(&o).contains("担当者名"), "{}", stderr(&o));
}

#[test]
fn export_init_canonical_and_demo_speak_japanese() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("log.csv");
    let o = run_ja(&["export", f.path(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("書き出しました"), "{}", stderr(&o));

    let db = dir.path().join("new.db");
    let o = run_ja(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("を作成しました（WAL モード）"),
        "{}",
        stderr(&o)
    );
    let o = run_ja(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        one_japanese_line(&o).contains("初期化しませんでした"),
        "{}",
        stderr(&o)
    );

    let o = bin()
        .env("LANG", "ja_JP.UTF-8")
        .arg("canonical")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"[1, 2]")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        one_japanese_line(&o).contains("JSON オブジェクトではありません（最上位の値が配列です）"),
        "{}",
        stderr(&o)
    );

    let o = run_ja(&["demo", "--out", f.path(), "--receipts", "10"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        one_japanese_line(&o).contains("デモは新しいファイルにだけ書き込みます"),
        "{}",
        stderr(&o)
    );
}

/// Runs of three or more English words, outside what is data: quoted text,
/// and words that carry digits or the punctuation of scopes, keys, emails,
/// ids, options and zone names.
fn english_runs(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        // Quoted values are data (a time as stored, a query as typed).
        let mut unquoted = String::new();
        for (i, part) in line.split('"').enumerate() {
            if i % 2 == 0 {
                unquoted.push_str(part);
            }
            unquoted.push(' ');
        }
        let mut run: Vec<&str> = Vec::new();
        for token in unquoted.split(|c: char| c.is_whitespace() || !c.is_ascii()) {
            let word = token.trim_matches(|c: char| ",;()".contains(c));
            let is_word = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic());
            if is_word {
                run.push(word);
                continue;
            }
            if run.len() >= 3 {
                found.push(run.join(" "));
            }
            run.clear();
        }
        if run.len() >= 3 {
            found.push(run.join(" "));
        }
    }
    found
}

#[test]
fn no_english_sentence_is_left_in_the_report_of_a_demo() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let o = run_en(&[
        "demo",
        "--out",
        db.to_str().unwrap(),
        "--receipts",
        "3000",
        "--seed",
        "7",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for period in ["all", "7d"] {
        let o = run_ja(&[
            "report",
            db.to_str().unwrap(),
            "--now",
            NOW,
            "--period",
            period,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = stdout(&o);
        assert!(text.contains("考えられる原因"), "{text}");
        let left = english_runs(&text);
        assert!(
            left.is_empty(),
            "English left in Japanese: {left:?}\n{text}"
        );
    }
    // The checker finds what it looks for.
    assert_eq!(
        english_runs("重複 306 groups, 306 pending   simultaneous 53"),
        Vec::<String>::new()
    );
    assert_eq!(
        english_runs("Largest duplicate groups"),
        vec!["Largest duplicate groups".to_string()]
    );
    assert_eq!(
        english_runs("受付 5: the file does not exist \"quoted words are data\""),
        vec!["the file does not exist".to_string()]
    );
}
