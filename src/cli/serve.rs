//! `serve DB --config FILE`: the intake server, until SIGTERM or Ctrl-C.

use std::path::Path;

use crate::server::{self, Config};

pub fn run(db: &crate::storage::Location, config: &Path) -> anyhow::Result<i32> {
    let config = Config::load(config)?;
    server::serve(db, config)?;
    Ok(0)
}
