//! What the screen's top lines say: whether the analysis is shown, and its counts.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

/// The lines the header and the tabs take.
const TOP: usize = 4;

static DONE_TAB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Duplicates\s+(\d+)/(\d+)").unwrap());

/// Each count and where the header says it; the last number matched is the
/// count (of "pending/all", the total).
static COUNTS: LazyLock<Vec<(&str, Regex)>> = LazyLock::new(|| {
    [
        ("duplicate_groups", r"Duplicates\s+(\d+)/(\d+)"),
        ("conflicts", r"Conflicts\s+(\d+)/(\d+)"),
        ("stuck", r"Stuck\s+(\d+)/(\d+)"),
        ("damaged", r"Damaged\s+(\d+)"),
        ("suspected_bots", r"suspected bots\s+(\d+)"),
        ("receipts", r"(\d+)\s+receipts"),
    ]
    .into_iter()
    .map(|(name, rx)| (name, Regex::new(rx).unwrap()))
    .collect()
});

fn top(lines: &[String], sep: &str) -> String {
    lines[..TOP.min(lines.len())].join(sep)
}

fn reading(lines: &[String]) -> bool {
    lines.iter().any(|l| l.contains("Reading"))
}

/// The analysis is on screen: the tab counts, past the progress screen (the
/// items' receipts and the filter index may still be coming, marked ⟳).
pub fn analysis_shown(lines: &[String]) -> bool {
    !reading(lines) && DONE_TAB.is_match(&top(lines, "\n"))
}

/// The tab counts with no progress marker left: everything is read.
pub fn analysis_done(lines: &[String]) -> bool {
    let top = top(lines, "\n");
    !top.contains('⟳') && !reading(lines) && DONE_TAB.is_match(&top)
}

pub fn counts(lines: &[String]) -> Map<String, Value> {
    let top = top(lines, " ");
    let mut out = Map::new();
    for (name, rx) in COUNTS.iter() {
        if let Some(c) = rx.captures(&top) {
            let last = c.iter().flatten().last().map(|m| m.as_str());
            if let Some(n) = last.and_then(|s| s.parse::<u64>().ok()) {
                out.insert((*name).into(), n.into());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    const HEADER: &str = "receipt-review  1200 receipts · suspected bots 7\n\
                          Duplicates 3/9  Conflicts 0/2  Stuck 1/1  Damaged 4";

    #[test]
    fn counts_are_the_totals_of_pending_over_all() {
        let c = counts(&lines(HEADER));
        let want = [
            ("duplicate_groups", 9),
            ("conflicts", 2),
            ("stuck", 1),
            ("damaged", 4),
            ("suspected_bots", 7),
            ("receipts", 1200),
        ];
        for (name, n) in want {
            assert_eq!(c[name], n, "{name}");
        }
    }

    #[test]
    fn shown_while_receipts_are_coming_done_once_they_are_in() {
        let coming = lines("x ⟳\n Duplicates 3/9");
        assert!(analysis_shown(&coming));
        assert!(!analysis_done(&coming));
        assert!(analysis_done(&lines(HEADER)));
    }

    #[test]
    fn the_progress_screen_is_not_the_analysis() {
        let progress = lines(" Duplicates 3/9\n\n\n\nReading receipts");
        assert!(!analysis_shown(&progress));
        assert!(!analysis_done(&progress));
    }
}
