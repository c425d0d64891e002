//! `serve DB --config FILE`: the intake server, until SIGTERM or Ctrl-C.

use std::path::Path;

use crate::server::log::{self, LogFormat};
use crate::server::{self, Config};

pub fn run(
    db: &crate::storage::Location,
    config: &Path,
    format: Option<LogFormat>,
) -> anyhow::Result<i32> {
    let config = Config::load(config)?;
    log::init(format.unwrap_or_else(LogFormat::for_stderr))?;
    server::serve(db, config)?;
    Ok(0)
}
