//! Whether a copy is *near* a group's earliest copy: a partial copy (a strict
//! subset of the fields, equal values) or an edited copy (one free-text field
//! a few words apart). Hashes are compared first; strings confirm.

use super::facts::{Facts, FieldFact};
use super::model::{MatchKind, Receipt};
use super::text;

/// One side of a comparison.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub receipt: &'a Receipt,
    pub facts: &'a Facts,
}

impl Side<'_> {
    fn key(&self, f: &FieldFact) -> &str {
        &self.receipt.visitor.0[f.slot as usize].0
    }

    fn value(&self, f: &FieldFact) -> &str {
        &self.receipt.visitor.0[f.slot as usize].1
    }
}

/// How `b` is near `a`, if it is (identical copies are not near: they are exact).
pub fn likeness(a: Side<'_>, b: Side<'_>) -> Option<MatchKind> {
    let (fa, fb) = (&a.facts.fields, &b.facts.fields);
    let (mut i, mut j) = (0, 0);
    let mut shared = 0usize;
    let mut shared_free_text = false;
    let mut only_a: Vec<&FieldFact> = Vec::new();
    let mut only_b: Vec<&FieldFact> = Vec::new();
    while i < fa.len() || j < fb.len() {
        let order = match (fa.get(i), fb.get(j)) {
            (Some(x), Some(y)) => (x.key, x.value).cmp(&(y.key, y.value)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Equal => {
                let (x, y) = (&fa[i], &fb[j]);
                if a.key(x) != b.key(y) || a.value(x) != b.value(y) {
                    return None; // a hash collision: treat as unrelated
                }
                shared += 1;
                shared_free_text |= x.is_free_text();
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                only_a.push(&fa[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                only_b.push(&fb[j]);
                j += 1;
            }
        }
        // Neither a subset nor a single edit can come of more differences.
        if !only_a.is_empty() && !only_b.is_empty() && (only_a.len() > 1 || only_b.len() > 1) {
            return None;
        }
    }
    let enough_shared = shared >= 2 || (shared == 1 && shared_free_text);
    match (only_a.len(), only_b.len()) {
        (0, 0) => None,
        (0, _) | (_, 0) => enough_shared.then_some(MatchKind::Partial),
        (1, 1) => {
            let (x, y) = (only_a[0], only_b[0]);
            let same_key = x.key == y.key && a.key(x) == b.key(y);
            (same_key && text::differs_by_a_few_words(a.value(x), b.value(y)))
                .then_some(MatchKind::Edited)
        }
        _ => None,
    }
}

/// The field names that made `b` near `a`: the fields one has and the other
/// lacks (partial), or the field whose value differs (edited). Sorted.
pub fn reason_fields(a: &Receipt, b: &Receipt) -> Vec<String> {
    let (va, vb) = (&a.visitor.0, &b.visitor.0);
    let mut out: Vec<String> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < va.len() || j < vb.len() {
        match (va.get(i), vb.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                if x.1 != y.1 {
                    out.push(x.0.clone());
                }
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(x.0.clone());
                i += 1;
            }
            (Some(_), Some(y)) | (None, Some(y)) => {
                out.push(y.0.clone());
                j += 1;
            }
            (Some(x), None) => {
                out.push(x.0.clone());
                i += 1;
            }
            (None, None) => break,
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::model::{ReceiptState, VisitorFields};

    fn receipt(fields: &[(&str, &str)]) -> (Receipt, Facts) {
        let mut pairs: Vec<(String, String)> = fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        pairs.sort();
        let r = Receipt {
            id: 1,
            scope: String::new(),
            request_key: None,
            digest: String::new(),
            state: ReceiptState::Completed,
            created_ms: 0,
            updated_ms: None,
            visitor: VisitorFields(pairs),
            honeypot_filled: false,
        };
        let f = Facts::of(&r);
        (r, f)
    }

    fn like(a: &(Receipt, Facts), b: &(Receipt, Facts)) -> Option<MatchKind> {
        likeness(
            Side {
                receipt: &a.0,
                facts: &a.1,
            },
            Side {
                receipt: &b.0,
                facts: &b.1,
            },
        )
    }

    const MSG: &str = "could you send me the price list for next year";

    #[test]
    fn partial_either_way() {
        let full = receipt(&[("name", "ada"), ("email", "a@x.org"), ("message", MSG)]);
        let half = receipt(&[("name", "ada"), ("message", MSG)]);
        assert_eq!(like(&full, &half), Some(MatchKind::Partial));
        assert_eq!(like(&half, &full), Some(MatchKind::Partial));
        assert_eq!(reason_fields(&full.0, &half.0), vec!["email"]);
        assert_eq!(reason_fields(&half.0, &full.0), vec!["email"]);
    }

    #[test]
    fn partial_needs_enough_in_common() {
        let full = receipt(&[("name", "ada"), ("email", "a@x.org"), ("topic", "sales")]);
        assert_eq!(like(&full, &receipt(&[("topic", "sales")])), None);
        let long = receipt(&[("name", "ada"), ("message", MSG)]);
        assert_eq!(
            like(&long, &receipt(&[("message", MSG)])),
            Some(MatchKind::Partial)
        );
        // a subset with a different value is no subset
        let other = receipt(&[("name", "bob"), ("message", MSG)]);
        assert_eq!(like(&long, &other), None);
    }

    #[test]
    fn edited_one_free_text_field() {
        let a = receipt(&[("name", "ada"), ("message", MSG)]);
        let b = receipt(&[
            ("name", "ada"),
            ("message", "could you send me the price list for this year"),
        ]);
        assert_eq!(like(&a, &b), Some(MatchKind::Edited));
        assert_eq!(reason_fields(&a.0, &b.0), vec!["message"]);
        let c = receipt(&[
            ("name", "ada"),
            ("message", "what time do you open on saturday morning"),
        ]);
        assert_eq!(like(&a, &c), None);
        // a name is not free text
        let d = receipt(&[("name", "ada lovelace"), ("message", MSG)]);
        let e = receipt(&[("name", "ada byron"), ("message", MSG)]);
        assert_eq!(like(&d, &e), None);
        // two fields changed
        let f = receipt(&[
            ("name", "eve"),
            ("message", "could you send me the price list for this year"),
        ]);
        assert_eq!(like(&a, &f), None);
        assert_eq!(like(&a, &a), None);
    }
}
