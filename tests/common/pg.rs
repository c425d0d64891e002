//! A PostgreSQL database of its own for each test, created on the cluster
//! that `RECEIPT_REVIEW_TEST_PG` names (scripts/pg_cluster.sh starts one,
//! .ci/run sets it) and dropped with the value.
//!
//! ```ignore
//! let Some(db) = common::pg::pg_database() else { return };
//! let mut client = db.client();
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use postgres::{Client, NoTls};

/// The URL of a superuser's connection to the test cluster.
pub const ENV: &str = "RECEIPT_REVIEW_TEST_PG";

pub struct PgDatabase {
    /// The URL of this database, for the code under test.
    pub url: String,
    admin_url: String,
    name: String,
}

/// A fresh database, or `None` (with a line on stderr) when no cluster is
/// given outside CI. Under CI a missing cluster is a failure, not a skip.
pub fn pg_database() -> Option<PgDatabase> {
    let admin_url = cluster()?;
    assert!(
        admin_url.starts_with("postgres://") || admin_url.starts_with("postgresql://"),
        "{ENV} must be a postgres:// URL"
    );
    // Test binaries run at once and threads within them: the pid and the
    // counter keep names apart, the time keeps apart runs that reuse a pid.
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!(
        "rr_t_{}_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos
    );
    let db = PgDatabase {
        url: with_path(&admin_url, &name),
        admin_url,
        name,
    };
    db.admin()
        .batch_execute(&format!("CREATE DATABASE {}", db.name))
        .unwrap_or_else(|e| panic!("create database {}: {}", db.name, why(&e)));
    Some(db)
}

/// True when there is a cluster to test on; false (with a line on stderr)
/// when there is none outside CI. Under CI a missing cluster is a failure.
pub fn wanted() -> bool {
    cluster().is_some()
}

/// The URL `ENV` gives, or `None` (said on stderr) outside CI.
fn cluster() -> Option<String> {
    match std::env::var(ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            if std::env::var_os("CI").is_some_and(|ci| !ci.is_empty()) {
                panic!("the PostgreSQL tests need {ENV} (set by .ci/run)");
            }
            eprintln!("skipping: no PostgreSQL (set {ENV}, see scripts/pg_cluster.sh)");
            None
        }
    }
}

impl PgDatabase {
    /// A new connection to this database.
    pub fn client(&self) -> Client {
        Client::connect(&self.url, NoTls)
            .unwrap_or_else(|e| panic!("connect to {}: {}", self.url_without_password(), why(&e)))
    }

    /// The URL to show in messages.
    pub fn url_without_password(&self) -> String {
        without_password(&self.url)
    }

    /// The database's name, as `pg_database` knows it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URL of the cluster's maintenance database, with the superuser.
    pub fn admin_url(&self) -> &str {
        &self.admin_url
    }

    /// A new superuser connection to the maintenance database.
    pub fn admin(&self) -> Client {
        Client::connect(&self.admin_url, NoTls).unwrap_or_else(|e| {
            panic!(
                "connect to {}: {}",
                without_password(&self.admin_url),
                why(&e)
            )
        })
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        // FORCE: a server or pool under test may still hold connections.
        if let Ok(mut admin) = Client::connect(&self.admin_url, NoTls) {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// The error with its causes: the client's own message is only the kind
/// ("db error", "error connecting to server").
pub fn why(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// `url` with its path (the database) replaced by `database`; the query stays.
pub fn with_path(url: &str, database: &str) -> String {
    let (base, query) = url.split_at(url.find('?').unwrap_or(url.len()));
    let (_, end) = authority(base);
    format!("{}/{database}{query}", &base[..end])
}

/// `url` without the password in its user information.
pub fn without_password(url: &str) -> String {
    let (start, end) = authority(url);
    let auth = &url[start..end];
    match auth.rfind('@') {
        Some(at) => {
            let user = &auth[..at];
            let user = user.split_once(':').map_or(user, |(user, _)| user);
            format!("{}{user}{}{}", &url[..start], &auth[at..], &url[end..])
        }
        None => url.to_string(),
    }
}

/// Where the authority (`user:password@host:port`) starts and ends; a `/`
/// in a password must be percent-encoded, so the first one after `://` ends it.
fn authority(url: &str) -> (usize, usize) {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?'])
        .map_or(url.len(), |i| start + i);
    (start, end)
}
