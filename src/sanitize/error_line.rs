//! An error and its causes as one terminal-safe line: how the command line
//! ends a failure and how the screen says why a reading failed.

use super::clean;

/// The error and its causes on one terminal-safe line.
pub fn error_line(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        // anyhow contexts often repeat their cause; say each thing once.
        if parts.last().is_some_and(|last| last.contains(&text)) {
            continue;
        }
        parts.push(text);
    }
    clean(&parts.join(": ").replace('\n', " ")).into_owned()
}
