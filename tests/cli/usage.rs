//! Usage errors name the mistake in one line, with the command's own
//! `--help`, and exit 2; `--help` gives every argument a line; both speak
//! the language `--lang` or the locale asks for.

use crate::common;

use std::process::{Command, Output};

use common::{NOW, bin, fixture};

/// The program in a known locale (English unless `env` says otherwise).
fn run_in(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd: Command = bin();
    cmd.env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C");
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.args(args).output().expect("run receipt-review")
}

fn run(args: &[&str]) -> Output {
    run_in(&[], args)
}

/// The one line on stderr of a run that exited 2.
fn refused(o: &Output) -> String {
    let err = String::from_utf8(o.stderr.clone()).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
    err.trim_end().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn a_missing_database_is_named_with_the_commands_help() {
    assert_eq!(
        refused(&run(&["report"])),
        "receipt-review: report needs a database file (DB), or database in the config file; \
         see receipt-review report --help"
    );
    assert_eq!(
        refused(&run(&["resolve", "x.db"])),
        "receipt-review: resolve needs an item (ITEM, e.g. dup:12) and a decision (DECISION); \
         see receipt-review resolve --help"
    );
    for command in ["report", "find", "check", "export", "init"] {
        let line = refused(&run(&[command]));
        assert!(line.contains("a database file (DB)"), "{line}");
        assert!(
            line.ends_with(&format!("see receipt-review {command} --help")),
            "{line}"
        );
    }
}

#[test]
fn a_window_must_be_a_positive_duration() {
    for (option, value) in [
        ("--window", "-5m"),
        ("--window", "0"),
        ("--window", "0s"),
        ("--stuck-after", "-1h"),
        ("--stuck-after", "0"),
    ] {
        let line = refused(&run(&["report", "x.db", option, value]));
        assert_eq!(
            line,
            format!(
                "receipt-review: {option} must be a positive duration (more than 0, e.g. 90s, 10m), \
                 not \"{value}\"; see receipt-review report --help"
            )
        );
    }
    let line = refused(&run(&["find", "x.db", "bob", "--window", "soon"]));
    assert!(line.contains("--window must be a duration"), "{line}");
    assert!(line.ends_with("see receipt-review find --help"), "{line}");
    // A positive window is still taken.
    let f = fixture();
    let o = run(&["report", f.path(), "--window", "10m", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn each_error_points_to_its_own_commands_help() {
    for (args, says, command) in [
        (
            vec!["export", "x.db", "--format", "xml"],
            "--format cannot be xml: use one of csv, jsonl",
            "export",
        ),
        (
            vec!["report", "x.db", "--jsn"],
            "unknown option --jsn (did you mean --json?)",
            "report",
        ),
        (
            vec!["check", "x.db", "--window", "5m"],
            "unknown option --window",
            "check",
        ),
        (
            vec!["report", "x.db", "--now", "yesterday"],
            "--now must be a time",
            "report",
        ),
        (
            vec!["report", "x.db", "--period", "year"],
            "--period must be 24h, 7d, 30d or all, not \"year\"",
            "report",
        ),
        (vec!["demo", "--receipts", "many"], "--receipts", "demo"),
    ] {
        let line = refused(&run(&args));
        assert!(line.contains(says), "{args:?}: {line}");
        assert!(
            line.ends_with(&format!("see receipt-review {command} --help")),
            "{args:?}: {line}"
        );
    }
    let line = refused(&run(&["frobnicate", "x.db", "y"]));
    assert_eq!(
        line,
        "receipt-review: unknown command frobnicate; see receipt-review --help"
    );
}

#[test]
fn init_into_a_missing_folder_names_the_folder_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("no-such-folder");
    let db = folder.join("receipts.db");
    let line = refused(&run(&["init", db.to_str().unwrap()]));
    assert_eq!(
        line,
        format!(
            "receipt-review: cannot create {}: the folder {} does not exist; see receipt-review init --help",
            db.display(),
            folder.display()
        )
    );
    assert!(!folder.exists());
}

/// The argument and option lines of a `--help`: (name, help text).
fn help_lines(help: &str) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    let mut in_args = false;
    for line in help.lines() {
        if !line.starts_with(' ') {
            in_args =
                line.ends_with(':') && !line.starts_with("Usage") && !line.starts_with("Commands");
            continue;
        }
        if !in_args {
            continue;
        }
        let trimmed = line.trim_start();
        let (name, text) = match trimmed.find("  ") {
            Some(at) => (&trimmed[..at], trimmed[at..].trim()),
            None => (trimmed, ""),
        };
        lines.push((name.to_string(), text.to_string()));
    }
    lines
}

#[test]
fn check_help_lists_only_what_check_uses_and_every_argument_has_a_line() {
    let o = run(&["check", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    for unused in ["--window", "--stuck-after", "--ignore-field", "--now"] {
        assert!(!help.contains(unused), "{help}");
    }
    let names: Vec<String> = help_lines(&help).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "[DB]",
            "--lang <LANG>",
            "--config-file <FILE>",
            "-h, --help"
        ],
        "{help}"
    );

    for command in [
        "report",
        "find",
        "check",
        "resolve",
        "export",
        "canonical",
        "init",
        "demo",
    ] {
        let help = stdout(&run(&[command, "--help"]));
        let lines = help_lines(&help);
        assert!(lines.len() >= 3, "{command}: {help}");
        for (name, text) in lines {
            assert!(!text.is_empty(), "{command} {name} has no help:\n{help}");
        }
    }
    let resolve = help_lines(&stdout(&run(&["resolve", "--help"])));
    let positionals: Vec<&str> = resolve
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| n.starts_with('<'))
        .collect();
    assert_eq!(
        positionals,
        ["<DB>", "<ITEM>", "<DECISION>"],
        "in the order typed"
    );
    for name in ["<DB>", "--note <NOTE>", "--operator <NAME>"] {
        assert!(
            resolve.iter().any(|(n, t)| n == name && !t.is_empty()),
            "{name}: {resolve:?}"
        );
    }
}

#[test]
fn lang_ja_speaks_japanese_errors_and_help() {
    let line = refused(&run(&["--lang", "ja", "report"]));
    assert_eq!(
        line,
        "receipt-review: report にはデータベースファイル（DB）（または設定ファイルの database）の指定が必要です\
         （receipt-review report --help を参照してください）"
    );
    // After the command too.
    assert_eq!(refused(&run(&["report", "--lang=ja"])), line);
    let line = refused(&run(&["--lang", "ja", "report", "x.db", "--window", "-5m"]));
    assert!(line.contains("--window：0 より大きい時間"), "{line}");
    assert!(line.contains("「-5m」"), "{line}");

    let o = run(&["--lang", "ja", "report", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    assert!(help.contains("使い方: receipt-review report"), "{help}");
    let lines = help_lines(&help);
    let json = lines.iter().find(|(n, _)| n == "--json").unwrap();
    assert_eq!(
        json.1,
        "概要の代わりに、仕様どおりの JSON 形式で出力します。"
    );
    assert!(help.contains("（既定値: all）"), "{help}");
    assert!(!help.contains("[default"), "{help}");
    assert!(
        !help.contains("Options:") && help.contains("オプション:"),
        "{help}"
    );
}

#[test]
fn the_locale_chooses_the_language_and_lang_overrides_it() {
    let ja = [("LANG", "ja_JP.UTF-8")];
    let line = refused(&run_in(&ja, &["report"]));
    assert!(line.contains("データベースファイル"), "{line}");
    let line = refused(&run_in(&ja, &["--lang", "en", "report"]));
    assert!(line.contains("report needs a database file"), "{line}");
    // LC_ALL comes first, as POSIX reads it.
    let line = refused(&run_in(
        &[("LC_ALL", "C"), ("LANG", "ja_JP.UTF-8")],
        &["report"],
    ));
    assert!(line.contains("report needs a database file"), "{line}");
    let line = refused(&run_in(
        &[("LC_MESSAGES", "ja_JP.UTF-8")],
        &["init", "/no/such/x.db"],
    ));
    assert!(line.contains("フォルダ /no/such がありません"), "{line}");
}

#[test]
fn an_unknown_language_is_refused() {
    for args in [
        vec!["--lang", "xx", "report", "x.db"],
        vec!["report", "x.db", "--lang=fr"],
        vec!["--lang"],
    ] {
        let line = refused(&run(&args));
        assert!(line.contains("--lang must be en or ja"), "{args:?}: {line}");
    }
    let line = refused(&run_in(&[("LANG", "ja_JP.UTF-8")], &["--lang", "xx"]));
    assert!(line.contains("--lang には en か ja"), "{line}");
}

#[test]
fn commands_still_work_in_japanese() {
    let f = fixture();
    let o = run(&["--lang", "ja", "report", f.path(), "--json", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["counts"]["receipts"], 5);
    assert_eq!(run(&["--lang", "ja", "--version"]).status.code(), Some(0));
}
