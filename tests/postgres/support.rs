//! What the PostgreSQL tests share: running the binary, the password of a
//! URL (to make sure no output shows it), counting rows, a valid receipt.

use std::process::Output;

use postgres::GenericClient;
use receipt_review::intake::canonical::{canonical_text, sha256_hex};

use crate::common;

/// The analysis time the tests pass with `--now`.
pub const NOW: &str = "2026-11-29T12:00:00Z";
/// [`NOW`] in unix milliseconds.
pub const NOW_MS: i64 = 1_795_953_600_000;

/// What one run of the binary did.
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    fn of(output: Output) -> Self {
        Self {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Its exit code, stdout and stderr, for an assertion's message.
    pub fn said(&self) -> String {
        format!(
            "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code,
            shorten(&self.stdout, 4_000),
            shorten(&self.stderr, 4_000)
        )
    }

    /// The lines on stderr.
    pub fn stderr_lines(&self) -> Vec<&str> {
        self.stderr.lines().collect()
    }
}

fn shorten(text: &str, most: usize) -> &str {
    match text.char_indices().nth(most) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Runs the binary (in English) with `args`.
pub fn run(args: &[&str]) -> Ran {
    Ran::of(
        common::bin()
            .args(args)
            .env_remove("PGPASSWORD")
            .output()
            .expect("run receipt-review"),
    )
}

/// Runs the binary and checks that `secret` (a password) is nowhere in
/// what it printed.
pub fn run_hiding(secret: Option<&str>, args: &[&str]) -> Ran {
    let ran = run(args);
    if let Some(secret) = secret {
        assert_hidden(&ran, secret, args[0]);
    }
    ran
}

pub fn assert_hidden(ran: &Ran, secret: &str, command: &str) {
    assert!(
        !ran.stdout.contains(secret) && !ran.stderr.contains(secret),
        "`{command}` printed the password:\n{}",
        ran.said().replace(secret, "<PASSWORD>")
    );
}

/// The `user:password@` password of a URL, when it has one.
pub fn password(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    let (user_info, _) = authority.rsplit_once('@')?;
    let (_, password) = user_info.split_once(':')?;
    (!password.is_empty()).then(|| password.to_string())
}

/// `url` with its password replaced by `password` (added when it has none).
pub fn with_password(url: &str, password: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (user_info, host) = authority.rsplit_once('@').expect("a URL with a user name");
    let user = user_info
        .split_once(':')
        .map_or(user_info, |(user, _)| user);
    format!("{scheme}://{user}:{password}@{host}{tail}")
}

/// How many rows `table` holds.
pub fn count(client: &mut impl GenericClient, table: &str) -> i64 {
    client
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap_or_else(|e| panic!("count {table}: {}", common::pg::why(&e)))
        .get(0)
}

/// A visitor's form, different for each `n`, as canonical text.
pub fn payload(n: i64) -> String {
    let json = serde_json::json!({
        "name": format!("Visitor {n}"),
        "email": format!("visitor{n}@example.com"),
        "message": format!("Question number {n}: when does order {} arrive?", 7_000 + n * 37),
    });
    canonical_text(&json.to_string()).unwrap()
}

/// Inserts a completed receipt with a valid digest, as an intake would.
pub fn insert_receipt(client: &mut impl GenericClient, id: i64, payload: &str, at: &str) {
    let digest = sha256_hex(payload);
    client
        .execute(
            "INSERT INTO receipts (id, scope, request_key, digest, payload, state, created_at) \
             VALUES ($1, 'corp/contact', $2, $3, $4, 'completed', $5::text::timestamptz)",
            &[&id, &format!("k{id}"), &digest, &payload, &at],
        )
        .unwrap_or_else(|e| panic!("insert receipt {id}: {}", common::pg::why(&e)));
}

/// The report as JSON.
pub fn report_json(db: &str) -> serde_json::Value {
    let ran = run(&["report", db, "--json", "--now", NOW]);
    assert_eq!(ran.code, Some(0), "report --json: {}", ran.said());
    serde_json::from_str(&ran.stdout).expect("report --json prints JSON")
}

#[test]
fn now_ms_is_now() {
    assert_eq!(receipt_review::model::time::read_text(NOW).unwrap(), NOW_MS);
}

#[test]
fn passwords_are_found_and_replaced() {
    let url = "postgres://desk:s3cret@db.example:5432/intake?sslmode=require";
    assert_eq!(password(url).as_deref(), Some("s3cret"));
    assert_eq!(password("postgres://desk@db.example/intake"), None);
    assert_eq!(
        with_password(url, "other"),
        "postgres://desk:other@db.example:5432/intake?sslmode=require"
    );
    assert_eq!(
        with_password("postgres://desk@h/db", "x"),
        "postgres://desk:x@h/db"
    );
}
