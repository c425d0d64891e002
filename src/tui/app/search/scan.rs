//! The filter by definition: every row compared with the query, text by
//! text. The index must give what this gives (the tests compare them).

use crate::model::ReceiptId;
use crate::reading::Snapshot;
use crate::triage::model::Receipt;

use super::fold::normalize_query;
use crate::tui::app::tab::{ClassFilter, Tab};

/// The rows a tab shows, by comparing every row with the filter: the
/// definition that [`super::compute`] and its index must agree with (the tests
/// compare them).
pub fn compute_by_scan(snap: &Snapshot, tab: Tab, class: ClassFilter, filter: &str) -> Vec<usize> {
    let query = normalize_query(filter);
    let q = query.as_str();
    let any = q.is_empty();
    let t = &snap.triage;
    let receipt = |id: ReceiptId| snap.receipt(id);
    match tab {
        // Its own search, not the filter (see `tui::app::find`).
        Tab::Receipts => Vec::new(),
        Tab::Duplicates => t
            .duplicates
            .iter()
            .enumerate()
            .filter(|(_, g)| class.admits(g.class))
            .filter(|(_, g)| {
                any || contains(&g.item(), q)
                    || contains(&g.scope, q)
                    || g.members.iter().any(|m| {
                        id_matches(m.id, q) || receipt(m.id).is_some_and(|r| receipt_matches(&r, q))
                    })
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Conflicts => t
            .conflicts
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                any || contains(&c.item(), q)
                    || contains(&c.scope, q)
                    || contains(&c.request_key, q)
                    || id_matches(c.receipt_id, q)
                    || receipt(c.receipt_id).is_some_and(|r| receipt_matches(&r, q))
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Bots => t
            .bot_groups
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                any || contains(&g.item(), q)
                    || g.scopes.iter().any(|s| contains(s, q))
                    || g.receipts.iter().any(|r| {
                        id_matches(r.id, q) || receipt(r.id).is_some_and(|r| receipt_matches(&r, q))
                    })
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Stuck => t
            .stuck
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                any || contains(&s.item(), q)
                    || contains(&s.scope, q)
                    || s.request_key.as_deref().is_some_and(|k| contains(k, q))
                    || id_matches(s.receipt_id, q)
                    || receipt(s.receipt_id).is_some_and(|r| receipt_matches(&r, q))
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Damaged => t
            .damaged
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                any || id_matches(d.receipt_id, q)
                    || contains(&format!("damaged:{}", d.receipt_id), q)
                    || contains(d.reason.as_str(), q)
                    || contains(&d.detail, q)
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Forms => Vec::new(),
        Tab::Log => (0..snap.log.len())
            .rev()
            .filter(|&i| {
                let l = &snap.log[i];
                any || contains(&l.item, q)
                    || contains(&l.decision, q)
                    || contains(&l.operator, q)
                    || l.note.as_deref().is_some_and(|n| contains(n, q))
                    || l.receipt_ids.iter().any(|&id| id_matches(id, q))
            })
            .collect(),
    }
}

/// True when `hay`, compared case-insensitively, contains the normalised query.
fn contains(hay: &str, query: &str) -> bool {
    if hay.is_ascii() && query.is_ascii() {
        let (h, q) = (hay.as_bytes(), query.as_bytes());
        return q.len() <= h.len() && h.windows(q.len()).any(|w| w.eq_ignore_ascii_case(q));
    }
    normalize_query(hay).contains(query)
}

fn receipt_matches(r: &Receipt, query: &str) -> bool {
    r.request_key.as_deref().is_some_and(|k| contains(k, query))
        || r.visitor.0.iter().any(|(_, value)| value.contains(query))
}

fn id_matches(id: ReceiptId, query: &str) -> bool {
    query.bytes().all(|b| b.is_ascii_digit()) && id.to_string() == query
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_fold_case_width_and_space() {
        assert_eq!(normalize_query("  Taro   YAMADA "), "taro yamada");
        assert_eq!(normalize_query("ＡＢＣ"), "abc");
        assert!(contains("Form-Contact", "contact"));
        assert!(contains("お問い合わせ", "問い"));
        assert!(!contains("abc", "abcd"));
    }
}
