//! The analysis options.

use super::Millis;

/// Options of the analysis (`--window`, `--stuck-after`, `--ignore-field`, `--now`).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub window_ms: Millis,
    pub stuck_after_ms: Millis,
    /// Extra payload keys to leave out of the visitor fingerprint.
    pub ignore_fields: Vec<String>,
    pub now_ms: Millis,
}

impl Settings {
    pub const DEFAULT_WINDOW_MS: Millis = 10 * 60 * 1000;
    pub const DEFAULT_STUCK_AFTER_MS: Millis = 5 * 60 * 1000;

    pub fn new(now_ms: Millis) -> Self {
        Self {
            window_ms: Self::DEFAULT_WINDOW_MS,
            stuck_after_ms: Self::DEFAULT_STUCK_AFTER_MS,
            ignore_fields: Vec::new(),
            now_ms,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new(0)
    }
}
