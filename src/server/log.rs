//! The server's log on stderr, through `tracing`: starting, stopping, failures, and one event per
//! request. As text (on a terminal, by default) or as one JSON object a line (otherwise, for a
//! collector), filtered by `RUST_LOG` (`info` when unset). An event never holds a field's
//! value: what it names from a request (a form, a key) is made terminal-safe first, and a
//! request's event carries only the form's name from the config, its status, its receipt,
//! its latency and the client's address.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

use crate::sanitize::inline;

/// How the log is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// A line of text an event.
    Text,
    /// A JSON object an event (for a log collector).
    Json,
}

impl LogFormat {
    /// Text on a terminal, JSON otherwise.
    pub fn for_stderr() -> Self {
        if std::io::stderr().is_terminal() {
            LogFormat::Text
        } else {
            LogFormat::Json
        }
    }
}

/// `RUST_LOG` does not parse.
#[derive(Debug, thiserror::Error)]
#[error("RUST_LOG: {0}")]
pub struct BadFilter(String);

/// Sends the process's events to stderr in `format`, filtered by `RUST_LOG`.
pub fn init(format: LogFormat) -> Result<(), BadFilter> {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .from_env()
        .map_err(|e| BadFilter(inline(&e.to_string(), 200)))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false);
    // A second call (a test that serves twice) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
    };
    Ok(())
}

/// The receipt a request's answer names, for its event (kept in the answer's extensions).
#[derive(Clone, Copy, Debug)]
pub struct AnsweredReceipt(pub i64);

/// A line of the server's own (starting, stopping, a failure).
pub fn line(text: &str) {
    tracing::info!(target: "receipt_review::serve", "{}", inline(text, 400));
}
