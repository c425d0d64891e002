//! The review screen: `app` (state + pure update), `canvas` (pure drawing),
//! `collection` (the database worker) and the `runtime` that ties them together.

pub mod app;
pub mod canvas;
pub mod collection;
mod runtime;

use std::path::PathBuf;

use anyhow::Context;

use crate::cli::args::TuiArgs;
use crate::cli::error::unusable;
use collection::WorkerConfig;

/// Receipts in the database that `--demo` writes.
const DEMO_RECEIPTS: usize = 5_000;

/// `receipt-review [DB]` and `receipt-review --demo`.
pub fn run(args: TuiArgs) -> anyhow::Result<i32> {
    let operator = crate::cli::operator_name(args.operator.clone())?;
    let path = match (&args.db, args.demo) {
        (Some(db), _) => db.clone(),
        (None, true) => write_demo()?,
        (None, false) => {
            return Err(unusable(
                "no database given: receipt-review DB, or receipt-review --demo to try it",
            ));
        }
    };
    let settings = args.analysis.settings();
    let config = WorkerConfig {
        path: path.clone(),
        read_only: args.read_only,
        settings,
        fixed_now: args.analysis.now,
        operator,
        export_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    // The screen reads again on every change and stays open for hours.
    crate::memory::keep_large_blocks_apart();
    let code = runtime::run(config)?;
    if args.demo {
        eprintln!(
            "the demo database stays at {}",
            crate::storage::error::show_path(&path)
        );
    }
    Ok(code)
}

fn write_demo() -> anyhow::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix("receipt-review-demo-")
        .tempdir()
        .context("cannot create a temporary folder for the demo")?
        .keep();
    let path = dir.join("demo.db");
    let options = crate::demo::DemoOptions {
        receipts: DEMO_RECEIPTS,
        seed: 1,
        now_ms: crate::time::now_ms(),
    };
    crate::demo::generate(&path, &options)?;
    Ok(path)
}
