//! Errors of reading the review log.

/// The review log could not be read (or created).
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("database error: {}", one_line(.0))]
    Sqlite(#[from] rusqlite::Error),
    /// A `review_log` table exists but was not made by this tool.
    #[error("review_log is not the table receipt-review expects: {0}")]
    Schema(String),
    /// A row that the table's checks should have made impossible.
    #[error("review_log row {id} cannot be read: {detail}")]
    BadRow { id: i64, detail: String },
}

/// SQLite's message on one terminal-safe line (a failed CHECK quotes its
/// expression, line breaks and all).
pub(crate) fn one_line(e: &rusqlite::Error) -> String {
    let text = e.to_string();
    crate::sanitize::inline(&text.split_whitespace().collect::<Vec<_>>().join(" "), 200)
}
