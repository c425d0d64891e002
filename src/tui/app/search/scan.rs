//! The filter by definition: every row compared with the query, text by
//! text. The index must give what this gives (the tests compare them).

use crate::find::loose::Loose;
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
    let q = &Needle {
        text: query.as_str(),
        loose: Loose::of(&query),
    };
    let any = q.text.is_empty();
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
                        id_matches(m.id, q.text)
                            || receipt(m.id).is_some_and(|r| receipt_matches(&r, q))
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
                    || id_matches(c.receipt_id, q.text)
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
                        id_matches(r.id, q.text)
                            || receipt(r.id).is_some_and(|r| receipt_matches(&r, q))
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
                    || id_matches(s.receipt_id, q.text)
                    || receipt(s.receipt_id).is_some_and(|r| receipt_matches(&r, q))
            })
            .map(|(i, _)| i)
            .collect(),
        Tab::Damaged => t
            .damaged
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                any || id_matches(d.receipt_id, q.text)
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
                    || l.receipt_ids.iter().any(|&id| id_matches(id, q.text))
            })
            .collect(),
    }
}

/// The normalised query, and its loose reading when it is a name or a
/// phone number.
struct Needle<'q> {
    text: &'q str,
    loose: Option<Loose>,
}

/// True when `hay`, compared case-insensitively, contains the normalised
/// query (a name or a phone number: when its compact form does).
fn contains(hay: &str, query: &Needle<'_>) -> bool {
    if let Some(loose) = &query.loose {
        // Folded as the index folds it: an ASCII text only lower-cased.
        let folded = match hay.is_ascii() {
            true => hay.to_ascii_lowercase(),
            false => normalize_query(hay),
        };
        return loose.found_in(&folded);
    }
    let query = query.text;
    if hay.is_ascii() && query.is_ascii() {
        let (h, q) = (hay.as_bytes(), query.as_bytes());
        return q.len() <= h.len() && h.windows(q.len()).any(|w| w.eq_ignore_ascii_case(q));
    }
    normalize_query(hay).contains(query)
}

fn receipt_matches(r: &Receipt, query: &Needle<'_>) -> bool {
    let value_holds = |value: &str| match &query.loose {
        Some(loose) => loose.found_in(value),
        None => value.contains(query.text),
    };
    r.request_key.as_deref().is_some_and(|k| contains(k, query))
        || r.visitor.0.iter().any(|(_, value)| value_holds(value))
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
        let q = |text: &'static str| Needle {
            text,
            loose: Loose::of(text),
        };
        assert!(contains("Form-Contact", &q("contact")));
        assert!(contains("お問い合わせ", &q("問い")));
        assert!(!contains("abc", &q("abcd")));
        assert!(contains("TEL 03-1234-5678", &q("0312345678")));
        assert!(!contains("TEL 03-1234-5678", &q("tel0312345678")));
    }
}
