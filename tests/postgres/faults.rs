//! A database that cannot be reached or entered: `report`, `init` and
//! `check` each say so in one line naming it (never its password), exit 2,
//! and give up quickly.

use std::time::{Duration, Instant};

use crate::common::pg::{pg_database, with_path, without_password};
use crate::support::{Ran, password, run, with_password};

const COMMANDS: [&str; 3] = ["report", "init", "check"];

/// A password no server here accepts, easy to look for in output.
const WRONG: &str = "Wr0ngPassw0rd4Tests";

/// Runs each command on `url` and checks what every fault must do; returns
/// the runs for more checks.
fn refused(url: &str, secrets: &[&str], within: Duration) -> Vec<(&'static str, Ran)> {
    COMMANDS
        .iter()
        .map(|&command| {
            let started = Instant::now();
            let ran = run(&[command, url]);
            let took = started.elapsed();
            let shown = without_password(url);
            assert_eq!(ran.code, Some(2), "{command} {shown}: {}", ran.said());
            assert_eq!(
                ran.stderr_lines().len(),
                1,
                "{command} {shown}: one line: {}",
                ran.said()
            );
            assert!(
                ran.stdout.is_empty(),
                "{command} {shown}: nothing on stdout: {}",
                ran.said()
            );
            assert!(
                ran.stderr.contains(&shown),
                "{command} {shown}: the line names the database: {}",
                ran.said()
            );
            for secret in secrets {
                crate::support::assert_hidden(&ran, secret, command);
            }
            assert!(
                took < within,
                "{command} {shown}: gave up after {took:?}, more than {within:?}"
            );
            (command, ran)
        })
        .collect()
}

#[test]
fn a_wrong_password_is_one_line_without_either_password() {
    let Some(db) = pg_database() else { return };
    let Some(right) = password(&db.url) else {
        eprintln!("skipping: the test cluster's URL has no password");
        return;
    };
    let url = with_password(&db.url, WRONG);
    for (command, ran) in refused(&url, &[WRONG, &right], Duration::from_secs(15)) {
        assert!(
            ran.stderr.contains("password"),
            "{command}: says the password was refused: {}",
            ran.said()
        );
    }
    // Nothing was made in the database.
    let tables: i64 = db
        .client()
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 0);
}

#[test]
fn an_unknown_database_is_one_line() {
    let Some(db) = pg_database() else { return };
    let url = with_path(&db.url, "no_such_db");
    let secrets: Vec<String> = password(&db.url).into_iter().collect();
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    for (command, ran) in refused(&url, &secrets, Duration::from_secs(15)) {
        assert!(
            ran.stderr.contains("no such database"),
            "{command}: says the database is not there: {}",
            ran.said()
        );
    }
}

#[test]
fn an_unknown_host_is_one_line_and_quick() {
    // Needs no cluster: nothing answers anyway.
    let url = format!("postgres://u:{WRONG}@nonexistent.invalid/db");
    for (command, ran) in refused(&url, &[WRONG], Duration::from_secs(15)) {
        assert!(
            ran.stderr.contains("cannot reach the database server"),
            "{command}: {}",
            ran.said()
        );
    }
}

#[test]
fn a_closed_port_is_one_line() {
    let url = format!("postgres://u:{WRONG}@127.0.0.1:1/db");
    for (command, ran) in refused(&url, &[WRONG], Duration::from_secs(15)) {
        assert!(
            ran.stderr.contains("cannot reach the database server"),
            "{command}: {}",
            ran.said()
        );
    }
}
