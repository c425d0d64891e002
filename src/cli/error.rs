//! Every failure ends as one line on stderr and an exit code:
//! 0 success, 1 failure at run time, 2 bad usage or unusable input.

use std::fmt;

use crate::intake::canonical::CanonicalError;
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

/// Input `command` cannot use, said with where to read how to call it
/// (`...; see receipt-review export --help`).
pub fn usage(command: &str, problem: impl AsRef<str>) -> anyhow::Error {
    unusable(super::usage::line(
        crate::i18n::current(),
        Some(command),
        problem.as_ref(),
    ))
}

/// A finding, not a malfunction: the command already said what it found (exit 1).
#[derive(Debug)]
pub struct Finding(pub String);

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Finding {}

pub fn exit_code(error: &anyhow::Error) -> i32 {
    for cause in error.chain() {
        if cause.is::<Unusable>()
            || cause.is::<CanonicalError>()
            || cause.is::<crate::server::ConfigError>()
            || cause.is::<crate::server::Refused>()
            || cause.is::<crate::server::log::BadFilter>()
        {
            return 2;
        }
        if let Some(e) = cause.downcast_ref::<StorageError>() {
            return e.exit_code();
        }
        if let Some(crate::intake::store::StoreError::Open(
            crate::storage::intake::OpenError::Refused(_),
        )) = cause.downcast_ref()
        {
            return 2;
        }
    }
    1
}
