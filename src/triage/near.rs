//! Whether a copy is *near* a group's earliest copy: a partial copy (a strict
//! subset of the fields, equal values) or an edited copy (one free-text field
//! a few words apart, or, from the same sender, rewritten by a sentence or two;
//! never one whose sentence was swapped for another: [`super::sentences`]). Fields are compared as hashes confirmed by their keyed
//! checks; the texts of an edited field are read only when sizes allow an edit.

use std::collections::HashMap;

use super::facts::{FactStore, FieldFact};
use super::model::{MatchKind, SentenceChange};
use super::{sentences, text};

/// Normalised values of the fields an edit check may compare, by (receipt
/// index, field position): see [`super::RereadList`].
/// Field texts read again, by (receipt index, field position).
pub type Texts = HashMap<(u32, u16), Box<str>, foldhash::fast::FixedState>;

/// What a likeness test needs to read: the facts, and the texts read again.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub store: &'a FactStore,
    pub texts: &'a Texts,
}

/// The outcome of comparing a field's two values without their texts.
enum Edit {
    No,
    /// Only the texts can tell.
    Texts,
}

/// Whether two different values of one key can be "a few words" apart or (when
/// `by_sentence`: the sender is named) a sentence edit of each other, from their
/// sizes alone (the same early answers as [`text::differs_by_a_few_words`] and
/// [`sentences::sizes_allow`]).
fn edit_by_size(x: &FieldFact, y: &FieldFact, by_sentence: bool) -> Edit {
    if !x.is_free_text() && !y.is_free_text() {
        return Edit::No;
    }
    if x.tokens_exact() && y.tokens_exact() {
        let (tx, ty) = (x.tokens() as usize, y.tokens() as usize);
        if tx.abs_diff(ty) > text::few_edits(tx, ty)
            && !(by_sentence && sentences::sizes_allow(tx, ty))
        {
            return Edit::No;
        }
    }
    Edit::Texts
}

/// True when an edit check of these two values (same key, different values)
/// would have to read their texts; `by_sentence`: the other fields name the sender.
pub fn edit_needs_texts(x: &FieldFact, y: &FieldFact, by_sentence: bool) -> bool {
    matches!(edit_by_size(x, y, by_sentence), Edit::Texts)
}

/// How receipt `b` is near receipt `a` (indices), if it is; identical copies
/// are not near, they are exact.
pub fn likeness(ctx: Ctx<'_>, a: u32, b: u32) -> Option<MatchKind> {
    let store = ctx.store;
    let (fa, fb) = (store.fields_at(a), store.fields_at(b));
    let order = |f: &FieldFact| (store.keys.hash(f.key()), f.value());
    let (mut i, mut j) = (0, 0);
    let mut shared = 0usize;
    let mut shared_free_text = false;
    let mut only_a: Option<usize> = None;
    let mut only_b: Option<usize> = None;
    let (mut count_a, mut count_b) = (0usize, 0usize);
    while i < fa.len() || j < fb.len() {
        let ord = match (fa.get(i), fb.get(j)) {
            (Some(x), Some(y)) => order(x).cmp(&order(y)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Equal => {
                let (x, y) = (&fa[i], &fb[j]);
                if !x.same_as(y) {
                    return None; // a hash collision: treat as unrelated
                }
                shared += 1;
                shared_free_text |= x.is_free_text();
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                only_a = Some(i);
                count_a += 1;
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                only_b = Some(j);
                count_b += 1;
                j += 1;
            }
        }
        // Neither a subset nor a single edit can come of more differences.
        if count_a > 0 && count_b > 0 && (count_a > 1 || count_b > 1) {
            return None;
        }
    }
    let enough_shared = shared >= 2 || (shared == 1 && shared_free_text);
    match (count_a, count_b) {
        (0, 0) => None,
        (0, _) | (_, 0) => enough_shared.then_some(MatchKind::Partial),
        (1, 1) => {
            let (pi, pj) = (only_a.expect("one"), only_b.expect("one"));
            let (x, y) = (&fa[pi], &fb[pj]);
            if x.key() != y.key() {
                return None;
            }
            if let Edit::No = edit_by_size(x, y, names_the_sender(fa, pi)) {
                return None;
            }
            let (Some(tx), Some(ty)) = (
                ctx.texts.get(&(a, pi as u16)),
                ctx.texts.get(&(b, pj as u16)),
            ) else {
                debug_assert!(false, "texts of {a}/{pi} and {b}/{pj} were not read");
                return None;
            };
            let words_apart = text::few_words_apart(tx, ty);
            // The sentences are compared only where they can change the answer: to veto a
            // few-word edit that swapped a sentence (which takes at least
            // `SWAP_MIN_TOKENS` edits), or to find an edit by sentence from a named sender.
            let by_sentence = match words_apart {
                Some(d) => d >= sentences::SWAP_MIN_TOKENS,
                None => names_the_sender(fa, pi),
            };
            let edited = match by_sentence.then(|| sentences::compare(tx, ty)).flatten() {
                None => words_apart.is_some(),
                Some(c) if c.swaps_a_sentence() => false,
                Some(c) => words_apart.is_some() || c.is_sentence_edit(),
            };
            edited.then_some(MatchKind::Edited)
        }
        _ => None,
    }
}

/// True when a field other than the one at `except` names the sender (an email address, a
/// phone number, a name): the fields both copies share then say they are one visitor's.
pub fn names_the_sender(fields: &[FieldFact], except: usize) -> bool {
    fields
        .iter()
        .enumerate()
        .any(|(i, f)| i != except && f.names_a_person() && f.tokens() > 0)
}

/// For an edited copy `b` of `a` whose free text was rewritten by sentence (not by a few
/// words): the changes, in `a`'s order; else none.
pub fn sentence_changes(ctx: Ctx<'_>, a: u32, b: u32) -> Vec<SentenceChange> {
    let store = ctx.store;
    let (fa, fb) = (store.fields_at(a), store.fields_at(b));
    let differing = |mine: &[FieldFact], theirs: &[FieldFact]| {
        mine.iter()
            .position(|x| !theirs.iter().any(|y| y.key() == x.key() && y.same_value(x)))
    };
    let (Some(pi), Some(pj)) = (differing(fa, fb), differing(fb, fa)) else {
        return Vec::new();
    };
    let (Some(tx), Some(ty)) = (
        ctx.texts.get(&(a, pi as u16)),
        ctx.texts.get(&(b, pj as u16)),
    ) else {
        return Vec::new();
    };
    if text::few_words_apart(tx, ty).is_some() {
        return Vec::new();
    }
    sentences::sentence_edit(tx, ty).unwrap_or_default()
}

/// The field names that made `b` near `a`: the keys whose values differ
/// between the two (a key one of them lacks, or a value that changed). Sorted.
pub fn reason_fields(store: &FactStore, a: u32, b: u32) -> Vec<String> {
    let (fa, fb) = (store.fields_at(a), store.fields_at(b));
    let values = |fields: &[FieldFact], key: u32| {
        let mut v: Vec<(u64, u32)> = fields
            .iter()
            .filter(|f| f.key() == key)
            .map(|f| (f.value(), f.check()))
            .collect();
        v.sort_unstable();
        v
    };
    let mut keys: Vec<u32> = fa.iter().chain(fb).map(FieldFact::key).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut out: Vec<String> = keys
        .into_iter()
        .filter(|&k| values(fa, k) != values(fb, k))
        .map(|k| store.keys.name(k).to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Row, Settings, TimeRef};
    use crate::triage::{Inspector, Scratch, ingest};

    /// A store of receipts with these fields (in this order), ids 1, 2, ...,
    /// and the texts of every field, as if all were read again.
    fn store(receipts: &[&[(&str, &str)]]) -> (FactStore, Texts) {
        let payloads: Vec<String> = receipts
            .iter()
            .map(|fields| {
                let map: serde_json::Map<String, serde_json::Value> = fields
                    .iter()
                    .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
                    .collect();
                serde_json::Value::Object(map).to_string()
            })
            .collect();
        let rows: Vec<Row<'_>> = payloads
            .iter()
            .enumerate()
            .map(|(i, p)| Row {
                id: i as i64 + 1,
                scope: "",
                request_key: None,
                digest: None,
                payload: Ok(p),
                state: "completed",
                created_at: TimeRef::Integer(0),
                updated_at: TimeRef::Null,
            })
            .collect();
        let mut store = FactStore::new();
        let settings = Settings::new(0);
        let inspector = Inspector::new(&settings, store.random);
        ingest(&mut store, &inspector, &rows);
        let mut texts = Texts::default();
        for (i, row) in rows.iter().enumerate() {
            let r = inspector.receipt(row, &mut Scratch::default()).unwrap();
            let needs = crate::triage::RereadList {
                texts: (0..store.fields_at(i as u32).len())
                    .map(|p| (i as u32, p as u16))
                    .collect(),
                ..Default::default()
            };
            let mut d = crate::triage::RereadValues::default();
            d.supply(&store, &needs, i as u32, &r);
            texts.extend(d.texts);
        }
        (store, texts)
    }

    fn like(s: &(FactStore, Texts), a: u32, b: u32) -> Option<MatchKind> {
        likeness(
            Ctx {
                store: &s.0,
                texts: &s.1,
            },
            a,
            b,
        )
    }

    const MSG: &str = "could you send me the price list for next year";

    #[test]
    fn partial_either_way() {
        let s = store(&[
            &[("name", "ada"), ("email", "a@x.org"), ("message", MSG)],
            &[("name", "ada"), ("message", MSG)],
        ]);
        assert_eq!(like(&s, 0, 1), Some(MatchKind::Partial));
        assert_eq!(like(&s, 1, 0), Some(MatchKind::Partial));
        assert_eq!(reason_fields(&s.0, 0, 1), vec!["email"]);
        assert_eq!(reason_fields(&s.0, 1, 0), vec!["email"]);
    }

    #[test]
    fn partial_needs_enough_in_common() {
        let s = store(&[
            &[("name", "ada"), ("email", "a@x.org"), ("topic", "sales")],
            &[("topic", "sales")],
            &[("name", "ada"), ("message", MSG)],
            &[("message", MSG)],
            &[("name", "bob"), ("message", MSG)],
        ]);
        assert_eq!(like(&s, 0, 1), None);
        assert_eq!(like(&s, 2, 3), Some(MatchKind::Partial));
        // a subset with a different value is no subset
        assert_eq!(like(&s, 2, 4), None);
    }

    #[test]
    fn edited_one_free_text_field() {
        let s = store(&[
            &[("name", "ada"), ("message", MSG)],
            &[
                ("name", "ada"),
                ("message", "could you send me the price list for this year"),
            ],
            &[
                ("name", "ada"),
                ("message", "what time do you open on saturday morning"),
            ],
            &[("name", "ada lovelace"), ("message", MSG)],
            &[("name", "ada byron"), ("message", MSG)],
            &[
                ("name", "eve"),
                ("message", "could you send me the price list for this year"),
            ],
        ]);
        assert_eq!(like(&s, 0, 1), Some(MatchKind::Edited));
        assert_eq!(reason_fields(&s.0, 0, 1), vec!["message"]);
        assert_eq!(like(&s, 0, 2), None);
        // a name is not free text
        assert_eq!(like(&s, 3, 4), None);
        // two fields changed
        assert_eq!(like(&s, 0, 5), None);
        assert_eq!(like(&s, 0, 0), None);
    }

    #[test]
    fn reasons_count_repeated_keys() {
        // "Name" and "name" are one key with two values.
        let s = store(&[
            &[("Name", "x"), ("name", "y"), ("email", "e")],
            &[("name", "x"), ("email", "e")],
            &[("name", "y"), ("NAME", "x"), ("email", "e")],
        ]);
        assert_eq!(reason_fields(&s.0, 0, 1), vec!["name"]);
        assert!(reason_fields(&s.0, 0, 2).is_empty());
    }
}
