//! Where a receipts database is: a SQLite file, or a PostgreSQL database
//! named by a URL. Everything above storage names a database by its
//! [`Location`]; only the engines look inside.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

/// A receipts database as the user named it.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite database file.
    File(PathBuf),
    /// A PostgreSQL database: libpq's URL form (`postgres://…` or
    /// `postgresql://…`), password and all. Never shown as it is: see
    /// [`Location::shown`].
    Postgres(String),
}

impl Location {
    /// Reads what the user typed where a command takes `DB`: a URL of
    /// PostgreSQL's, else a file's path.
    pub fn parse(arg: &OsStr) -> Location {
        match arg.to_str() {
            Some(text) if is_postgres_url(text) => Location::Postgres(text.to_string()),
            _ => Location::File(PathBuf::from(arg)),
        }
    }

    /// The file, for a SQLite database.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Postgres(_) => None,
        }
    }

    /// True for a database on a PostgreSQL server.
    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }

    /// The database as it may be shown on one terminal line or written to a
    /// log: the file's path, or the URL without its password.
    pub fn shown(&self) -> String {
        let text = match self {
            Location::File(path) => path.display().to_string(),
            Location::Postgres(url) => without_password(url),
        };
        crate::sanitize::clean(&text).into_owned()
    }
}

/// An empty path: nothing named yet.
impl Default for Location {
    fn default() -> Self {
        Location::File(PathBuf::new())
    }
}

/// What a command line gives: clap reads `DB` through this.
impl From<std::ffi::OsString> for Location {
    fn from(arg: std::ffi::OsString) -> Self {
        Location::parse(&arg)
    }
}

impl From<&Location> for Location {
    fn from(location: &Location) -> Self {
        location.clone()
    }
}

impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Self {
        Location::File(path.clone())
    }
}

/// Read as a command line's `DB` is.
impl From<&str> for Location {
    fn from(text: &str) -> Self {
        Location::parse(OsStr::new(text))
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Location::File(path)
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Self {
        Location::File(path.to_path_buf())
    }
}

/// Shows the database without its password, so that a `{:?}` in a log or a
/// panic message cannot leak it either.
impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown())
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown())
    }
}

fn is_postgres_url(text: &str) -> bool {
    ["postgres://", "postgresql://"].iter().any(|scheme| {
        text.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    })
}

/// The URL with the password of its user part taken out (`user:secret@` →
/// `user@`), and any `password=` query parameter too.
fn without_password(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(name, _)| name);
            format!("{user}@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|pair| {
                    !pair
                        .split('=')
                        .next()
                        .is_some_and(|name| name.eq_ignore_ascii_case("password"))
                })
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Location {
        Location::parse(OsStr::new(text))
    }

    #[test]
    fn urls_name_postgres_and_anything_else_a_file() {
        assert!(parse("postgres://h/db").is_postgres());
        assert!(parse("PostgreSQL://h/db").is_postgres());
        assert_eq!(
            parse("receipts.db"),
            Location::File(PathBuf::from("receipts.db"))
        );
        assert_eq!(
            parse("postgres.db"),
            Location::File(PathBuf::from("postgres.db"))
        );
    }

    #[test]
    fn a_shown_url_has_no_password() {
        let shown = parse("postgres://desk:s3cret@db.example:5432/intake?sslmode=require").shown();
        assert_eq!(
            shown,
            "postgres://desk@db.example:5432/intake?sslmode=require"
        );
        let shown = parse("postgresql://desk@h/db?password=s3cret&application_name=x").shown();
        assert_eq!(shown, "postgresql://desk@h/db?application_name=x");
        assert_eq!(
            format!("{:?}", parse("postgres://u:p%40ss@h/db")),
            "postgres://u@h/db"
        );
        let shown = parse("postgres://u:pw@h/db?password=x").shown();
        assert!(!shown.contains("pw") && !shown.contains('x'), "{shown}");
    }
}
