//! The desk's config file: where it is read from, what it sets, and that
//! the command line wins over it and it over the environment; a file that
//! cannot be used is one line and exit 2, before anything is done.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{NOW, bin, fixture};
use rusqlite::Connection;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The binary with a known environment: the login name, the zone, the locale.
fn desk() -> Command {
    let mut command = bin();
    command
        .env("USER", "bob")
        .env("TZ", "America/New_York")
        .env_remove("NO_COLOR");
    command
}

fn run(command: &mut Command, args: &[&str]) -> Output {
    command.args(args).output().unwrap()
}

/// The line of `config`'s output that starts with `label`.
fn row<'a>(shown: &'a str, label: &str) -> &'a str {
    shown
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label} in {shown}"))
}

#[test]
fn the_command_line_wins_over_the_file_and_the_file_over_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "operator = \"aiko\"\ntz = \"Asia/Tokyo\"\ntheme = \"light\"\n\
         [analysis]\nwindow = \"15m\"\nignore_fields = [\"utm_source\"]\n\
         [keys]\nundo = \"Ctrl-z\"\n",
    );
    let config = config.to_str().unwrap();

    // The file over the environment.
    let o = run(&mut desk(), &["config", "--config-file", config]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = stdout(&o);
    assert!(
        shown.starts_with(&format!("config file  {config} (named by --config-file)")),
        "{shown}"
    );
    assert!(
        row(&shown, "operator").ends_with("aiko  (config file)"),
        "{shown}"
    );
    assert!(
        row(&shown, "time zone").ends_with("Asia/Tokyo  (config file)"),
        "{shown}"
    );
    assert!(row(&shown, "duplicate window").ends_with("15m  (config file)"));
    assert!(row(&shown, "stuck after").ends_with("5m  (default)"));
    assert!(row(&shown, "fields left out").ends_with("utm_source  (config file)"));
    assert!(row(&shown, "colours").ends_with("light  (config file)"));
    assert!(row(&shown, "keys").ends_with("undo = Ctrl-z  (config file)"));

    // The command line over the file.
    let o = run(
        &mut desk(),
        &[
            "config",
            "--config-file",
            config,
            "--operator",
            "carol",
            "--tz",
            "UTC",
            "--window",
            "2m",
            "--ignore-field",
            "ref",
        ],
    );
    let shown = stdout(&o);
    assert!(
        row(&shown, "operator").ends_with("carol  (command line)"),
        "{shown}"
    );
    assert!(
        row(&shown, "time zone").ends_with("UTC  (command line)"),
        "{shown}"
    );
    assert!(row(&shown, "duplicate window").ends_with("2m  (command line)"));
    assert!(row(&shown, "fields left out").ends_with("ref  (command line)"));

    // Without a file: the environment.
    let o = run(&mut desk(), &["config"]);
    let shown = stdout(&o);
    assert!(
        shown.starts_with(&format!(
            "config file  none (nothing at {}/receipt-review/config.toml)",
            common::NO_CONFIG_HOME
        )),
        "{shown}"
    );
    assert!(
        row(&shown, "operator").ends_with("bob  (login name)"),
        "{shown}"
    );
    assert!(
        row(&shown, "time zone").ends_with("America/New_York  (environment, TZ)"),
        "{shown}"
    );
    assert!(row(&shown, "colours").ends_with("dark  (default)"));

    // NO_COLOR wins over the file's theme.
    let o = run(
        desk().env("NO_COLOR", "1"),
        &["config", "--config-file", config],
    );
    assert!(row(&stdout(&o), "colours").ends_with("none  (environment, NO_COLOR)"));
}

#[test]
fn the_files_language_speaks_unless_the_command_line_names_one() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "lang = \"ja\"\n");
    let config = config.to_str().unwrap();
    let o = run(&mut desk(), &["config", "--config-file", config]);
    let shown = stdout(&o);
    assert!(row(&shown, "言語").contains("ja"), "{shown}");
    assert!(row(&shown, "言語").ends_with("（設定ファイル）"), "{shown}");
    // clap's help, too, is in the file's language.
    let o = run(&mut desk(), &["--config-file", config, "report", "--help"]);
    assert!(stdout(&o).contains("使い方"), "{}", stdout(&o));
    let o = run(
        &mut desk(),
        &["--lang", "en", "config", "--config-file", config],
    );
    assert!(row(&stdout(&o), "language").ends_with("en  (command line)"));
}

#[test]
fn the_default_place_is_read_and_its_database_is_the_default_one() {
    let f = fixture();
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("receipt-review");
    std::fs::create_dir(&folder).unwrap();
    // A relative path is read from the file's folder.
    std::fs::copy(&f.db, folder.join("desk.db")).unwrap();
    write_config(&folder, "database = \"desk.db\"\ntz = \"Asia/Tokyo\"\n");
    let with_home = || {
        let mut command = desk();
        command.env("XDG_CONFIG_HOME", home.path());
        command
    };
    let o = run(&mut with_home(), &["config"]);
    let shown = stdout(&o);
    let expected = folder.join("config.toml");
    assert!(
        shown.starts_with(&format!("config file  {}\n", expected.display())),
        "{shown}"
    );
    assert!(
        row(&shown, "database").contains("desk.db  (config file)"),
        "{shown}"
    );
    // `report` without DB reads the file's, and shows times in its zone.
    let o = run(&mut with_home(), &["report", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = stdout(&o);
    assert!(report.contains("Asia/Tokyo"), "{report}");
    // `check` too; a DB on the command line wins.
    let o = run(&mut with_home(), &["check"]);
    assert!(
        stdout(&o).contains("5 receipts checked: 1 damaged"),
        "{}",
        stdout(&o)
    );
    let o = run(&mut with_home(), &["check", "/nonexistent/other.db"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("other.db"), "{}", stderr(&o));
    // Without a database anywhere: one line saying how to name one.
    let o = run(&mut desk(), &["report"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "receipt-review: report needs a database file (DB), or database in the config file; \
         see receipt-review report --help\n"
    );
}

#[test]
fn resolve_records_the_files_operator() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "operator = \"aiko\"\n");
    let config = config.to_str().unwrap();
    let o = run(
        &mut desk(),
        &[
            "resolve",
            f.path(),
            "dup:1",
            "distinct",
            "--now",
            NOW,
            "--config-file",
            config,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let conn = Connection::open(&f.db).unwrap();
    let operator: String = conn
        .query_row("SELECT operator FROM review_log", [], |r| r.get(0))
        .unwrap();
    assert_eq!(operator, "aiko");
    // `--operator` wins.
    let o = run(
        &mut desk(),
        &[
            "reopen",
            f.path(),
            "dup:1",
            "--operator",
            "carol",
            "--config-file",
            config,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let operators: Vec<String> = conn
        .prepare("SELECT operator FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(operators, ["aiko", "carol"]);
}

#[test]
fn a_file_that_cannot_be_used_is_one_line_and_exit_2() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let before = std::fs::read(&f.db).unwrap();
    for (text, says) in [
        ("tz = \"Mars/Olympus\"\n", "tz must be an IANA time zone"),
        ("lang = \"fr\"\n", "lang must be en or ja"),
        ("colour = \"dark\"\n", "line 1"),
        (
            "[keys]\nundo = \"d\"\n",
            "undo = \"d\": d is already duplicate on the Duplicates tab",
        ),
        ("[keys]\ndupliate = \"x\"\n", "did you mean duplicate?"),
        ("[keys]\nquit = \"Enter\"\n", "a key is one character"),
        ("[analysis]\nwindow = \"soon\"\n", "[analysis] window"),
        ("operator = \"\\u001b[31mx\"\n", "operator must be a name"),
    ] {
        let config = write_config(dir.path(), text);
        let o = run(
            &mut desk(),
            &[
                "resolve",
                f.path(),
                "dup:1",
                "distinct",
                "--config-file",
                config.to_str().unwrap(),
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{text}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{text}: {err}");
        assert!(err.starts_with("receipt-review: "), "{err}");
        assert!(err.contains(says), "{text}: {err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");
    }
    let o = run(
        &mut desk(),
        &["report", f.path(), "--config-file", "/nonexistent/c.toml"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read the config file /nonexistent/c.toml"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&f.db).unwrap(), before, "nothing was written");
}

#[test]
fn the_readmes_example_is_a_usable_file() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("**Config file.**").unwrap()..];
    let start = section.find("```toml\n").unwrap() + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), example);
    // Its `lang = "ja"` is overruled here, to read the rows in English.
    let o = run(
        &mut desk(),
        &[
            "--lang",
            "en",
            "config",
            "--config-file",
            config.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = stdout(&o);
    assert!(
        row(&shown, "keys").contains("undo = Ctrl-z; duplicate = d/Ctrl-d"),
        "{shown}"
    );
}
