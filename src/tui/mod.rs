//! The review screen: `app` (state + pure update), `canvas` (pure drawing),
//! `collection` (the database worker) and the `runtime` that ties them together.

pub mod app;
pub mod canvas;
pub mod collection;
#[cfg(test)]
mod key_work;
mod runtime;

use std::path::PathBuf;

use crate::storage::Location;

use anyhow::Context;

use crate::i18n::Lang;
use crate::model::{Millis, Settings, Zone};
use app::keymap::Keymap;
use app::palette::Palette;
use collection::WorkerConfig;

/// Receipts in the database that `--demo` writes.
const DEMO_RECEIPTS: usize = 5_000;

/// What the screen opens, and as whom: the command line builds it from its
/// arguments, so the screen knows nothing of how they were spelled.
#[derive(Clone, Debug)]
pub struct ScreenConfig {
    pub open: Open,
    /// Who decisions are recorded as.
    pub operator: String,
    /// Decisions are off.
    pub read_only: bool,
    pub settings: Settings,
    /// Analyse as of this time on every reading (else as of each reading's start).
    pub fixed_now: Option<Millis>,
    /// The operator's time zone: every time shown and typed is in it.
    pub zone: Zone,
    /// The language the screen speaks.
    pub lang: Lang,
    /// Its colours.
    pub palette: Palette,
    /// Its keys (the config file may remap them).
    pub keymap: Keymap,
}

/// The database the screen opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Open {
    Database(Location),
    /// A fresh demo database, written to a temporary folder that is kept.
    Demo,
}

/// Opens the review screen and returns the exit code.
pub fn run(config: ScreenConfig) -> anyhow::Result<i32> {
    let location = match &config.open {
        Open::Database(location) => location.clone(),
        Open::Demo => Location::File(write_demo()?),
    };
    let worker = WorkerConfig {
        location: location.clone(),
        read_only: config.read_only,
        settings: config.settings,
        fixed_now: config.fixed_now,
        operator: config.operator,
        export_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        lang: config.lang,
    };
    // The screen reads again on every change and stays open for hours.
    crate::memory::keep_large_blocks_apart();
    // The sentences that name a key name the keys in effect. Set once: a
    // process opens one screen.
    let _ = crate::i18n::set_key_labels(&config.keymap.labels());
    let code = runtime::run(
        worker,
        runtime::Looks {
            zone: config.zone,
            palette: config.palette,
            keymap: config.keymap,
        },
    )?;
    if config.open == Open::Demo {
        // A command-line message: the command line's language.
        let path = location.shown();
        eprintln!(
            "{}",
            crate::t!(
                crate::i18n::current(),
                "worker.start.demo_kept",
                path = path
            )
        );
    }
    Ok(code)
}

fn write_demo() -> anyhow::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix("receipt-review-demo-")
        .tempdir()
        .with_context(|| crate::t!(crate::i18n::current(), "worker.start.demo_folder"))?
        .keep();
    let path = dir.join("demo.db");
    let options = crate::demo::DemoOptions {
        receipts: DEMO_RECEIPTS,
        seed: 1,
        now_ms: crate::model::time::now_ms(),
    };
    crate::demo::generate(&Location::File(path.clone()), &options)?;
    Ok(path)
}
