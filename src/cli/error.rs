//! Every failure ends as one line on stderr and an exit code:
//! 0 success, 1 failure at run time, 2 bad usage or unusable input.

use std::fmt;

use crate::intake::canonical::CanonicalError;
use crate::sanitize;
use crate::storage::StorageError;

/// Input the command cannot use (exit 2).
#[derive(Debug)]
pub struct Unusable(pub String);

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unusable {}

pub fn unusable(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Unusable(message.into()))
}

/// A finding, not a malfunction: the command already said what it found (exit 1).
#[derive(Debug)]
pub struct Found(pub String);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Found {}

pub fn exit_code(error: &anyhow::Error) -> i32 {
    for cause in error.chain() {
        if cause.is::<Unusable>() || cause.is::<CanonicalError>() {
            return 2;
        }
        if let Some(e) = cause.downcast_ref::<StorageError>() {
            return e.exit_code();
        }
    }
    1
}

/// The error and its causes on one terminal-safe line.
pub fn one_line(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        // anyhow contexts often repeat their cause; say each thing once.
        if parts.last().is_some_and(|last| last.contains(&text)) {
            continue;
        }
        parts.push(text);
    }
    sanitize::clean(&parts.join(": ").replace('\n', " ")).into_owned()
}
