//! How the filter compares text: a query and every text of a row are folded
//! the same way, and the texts of a row are kept apart by a byte no folded
//! query holds.

use unicode_normalization::UnicodeNormalization;

/// Ends each text of a row (a folded query never holds one: white space is
/// folded to single spaces).
pub(super) const SEPARATOR: u8 = b'\n';

/// The filter text as it is compared: NFKC, case-folded, white space folded,
/// the way the triage engine normalises visitor field values.
pub fn normalize_query(text: &str) -> String {
    #[cfg(test)]
    FOLDED_BYTES.with(|n| n.set(n.get() + text.len()));
    let folded = caseless::default_case_fold_str(&text.nfkc().collect::<String>());
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
thread_local! {
    /// The bytes [`normalize_query`] has folded on this thread: tests count
    /// what a step folds, where a clock would only say how long it took.
    pub static FOLDED_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}
