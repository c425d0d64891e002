//! Which log rows an export holds: those decided in a span of time, by
//! some operators, about some items. An empty filter keeps every row.

use crate::model::{Kind, LogEntry, Millis, ReceiptId};
use crate::review::decision::parse_item;

/// The rows to keep; each part that is set must hold for a row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportFilter {
    /// Rows decided at or after this time.
    pub since_ms: Option<Millis>,
    /// Rows decided before this time.
    pub until_ms: Option<Millis>,
    /// Rows recorded by one of these operators (exactly as recorded).
    pub operators: Vec<String>,
    /// Rows about one of these items.
    pub items: Vec<ItemMatch>,
}

/// An item, or every item of a kind (`dup:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemMatch {
    One(Kind, ReceiptId),
    Kind(Kind),
}

impl ItemMatch {
    /// `dup:12` is that item; `dup:` (or `dup`) every duplicate group, and so
    /// for `conflict`, `stuck` and `bot`. `None` for anything else.
    pub fn parse(text: &str) -> Option<ItemMatch> {
        let text = text.trim();
        let prefix = text.strip_suffix(':').unwrap_or(text);
        if let Some(kind) = Kind::ALL.into_iter().find(|k| k.item_prefix() == prefix) {
            return Some(ItemMatch::Kind(kind));
        }
        parse_item(text)
            .ok()
            .map(|(kind, id)| ItemMatch::One(kind, id))
    }

    pub fn holds(&self, entry: &LogEntry) -> bool {
        match *self {
            ItemMatch::Kind(kind) => entry.kind == kind,
            ItemMatch::One(kind, id) => parse_item(&entry.item) == Ok((kind, id)),
        }
    }
}

impl ExportFilter {
    /// True when no part is set: every row is kept.
    pub fn is_empty(&self) -> bool {
        *self == ExportFilter::default()
    }

    /// True for a row the export holds. With a time limit, a row whose
    /// `decided_at` cannot be read is left out: it cannot be placed.
    pub fn keeps(&self, entry: &LogEntry) -> bool {
        if self.since_ms.is_some() || self.until_ms.is_some() {
            let Some(at) = entry.decided_ms() else {
                return false;
            };
            if self.since_ms.is_some_and(|since| at < since)
                || self.until_ms.is_some_and(|until| at >= until)
            {
                return false;
            }
        }
        (self.operators.is_empty() || self.operators.contains(&entry.operator))
            && (self.items.is_empty() || self.items.iter().any(|m| m.holds(entry)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Decision;

    fn entry(item: &str, operator: &str, at: &str) -> LogEntry {
        let (kind, id) = parse_item(item).unwrap();
        LogEntry {
            id: 1,
            item: item.into(),
            kind,
            decision: Decision::Spam,
            operator: operator.into(),
            decided_at: at.into(),
            receipt_ids: vec![id],
            note: None,
            reopens: None,
            state_before: None,
            state_after: None,
            updated_at_before: None,
            updated_at_after: None,
            kept: None,
            batch: None,
        }
    }

    #[test]
    fn items_and_kinds_parse() {
        assert_eq!(
            ItemMatch::parse("dup:12"),
            Some(ItemMatch::One(Kind::Duplicate, 12))
        );
        assert_eq!(
            ItemMatch::parse("dup:"),
            Some(ItemMatch::Kind(Kind::Duplicate))
        );
        assert_eq!(
            ItemMatch::parse("stuck"),
            Some(ItemMatch::Kind(Kind::Stuck))
        );
        for bad in ["", ":", "dup:x", "dupe:", "spam", "dup:12:3"] {
            assert_eq!(ItemMatch::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn each_part_must_hold() {
        let row = entry("dup:12", "aiko", "2026-11-29T10:00:00.000Z");
        assert!(ExportFilter::default().keeps(&row));
        let at = crate::model::time::parse_text("2026-11-29T10:00:00Z").unwrap();
        let since = |ms| ExportFilter {
            since_ms: Some(ms),
            ..Default::default()
        };
        let until = |ms| ExportFilter {
            until_ms: Some(ms),
            ..Default::default()
        };
        assert!(since(at).keeps(&row), "since is inclusive");
        assert!(!since(at + 1).keeps(&row));
        assert!(!until(at).keeps(&row), "until is exclusive");
        assert!(until(at + 1).keeps(&row));
        let by = |names: &[&str]| ExportFilter {
            operators: names.iter().map(|n| n.to_string()).collect(),
            ..Default::default()
        };
        assert!(by(&["bob", "aiko"]).keeps(&row));
        assert!(!by(&["Aiko"]).keeps(&row));
        let about = |items: &[&str]| ExportFilter {
            items: items.iter().map(|i| ItemMatch::parse(i).unwrap()).collect(),
            ..Default::default()
        };
        assert!(about(&["dup:"]).keeps(&row));
        assert!(about(&["conflict:", "dup:12"]).keeps(&row));
        assert!(!about(&["dup:13", "stuck:"]).keeps(&row));
    }

    #[test]
    fn a_row_without_a_readable_time_is_left_out_of_a_span() {
        let row = entry("stuck:4", "aiko", "yesterday");
        assert!(ExportFilter::default().keeps(&row));
        let f = ExportFilter {
            since_ms: Some(0),
            ..Default::default()
        };
        assert!(!f.keeps(&row));
    }
}
