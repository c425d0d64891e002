//! Which receipts an erasure takes: a visitor's (every receipt whose email
//! field, or phone field, holds exactly what was asked), receipts by number,
//! or every receipt older than a time. Unlike `find`, which finds any text
//! inside any field, an erasure matches a whole value: erasing a stranger's
//! data by a near miss would be a harm of its own.

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

use crate::model::erasure::Tombstone;
use crate::model::time::parse_time_ref;
use crate::model::{Millis, ReceiptId, Row, RowSink};
use crate::storage::{Connections, Storage};
use crate::triage::text::normalize_text;
use crate::triage::visitor::{Identity, identity_of, normalize_key, normalize_value};

/// Whose receipts, or which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// Every receipt with an email field holding this address (case and
    /// width folded, as the analysis folds them).
    Email(String),
    /// Every receipt with a phone field holding this number (its digits;
    /// `+81 70-…` is the same number as `070-…`).
    Phone(String),
    /// These receipts.
    Receipts(Vec<ReceiptId>),
    /// Every receipt that arrived before this time, of this form only when
    /// one is named.
    OlderThan {
        before_ms: Millis,
        scope: Option<String>,
    },
}

/// One receipt an erasure takes, as the listing shows it before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    pub id: ReceiptId,
    pub scope: String,
    pub state: String,
    /// `None` when the stored time cannot be read.
    pub created_ms: Option<Millis>,
    /// The visitor's name, email and phone as typed, for the listing (and
    /// for the note's check: it must not keep them).
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// What a selection found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// The receipts to erase, ascending by id.
    pub chosen: Vec<Chosen>,
    /// Receipts that matched but are erased already (by number: asked for).
    pub already_erased: Vec<ReceiptId>,
    /// Numbers asked for that no receipt has.
    pub missing: Vec<ReceiptId>,
}

/// Reads every receipt (or those asked for by number) and keeps the ones `who` names.
pub fn select(db: &dyn Storage, who: &Who) -> anyhow::Result<Selection> {
    let mut session = db.begin_read(Connections::One)?;
    let mut sink = Chooser::new(who);
    match who {
        Who::Receipts(ids) => {
            let mut ids = ids.clone();
            ids.sort_unstable();
            ids.dedup();
            session.receipts_by_id(&ids, &mut [&mut sink], &mut |_| {})?;
        }
        _ => {
            session.receipts(None, &mut [&mut sink], &mut |_| {})?;
        }
    }
    session.end()?;
    let mut selection = sink.selection;
    selection.chosen.sort_by_key(|c| c.id);
    selection.already_erased.sort_unstable();
    if let Who::Receipts(ids) = who {
        let mut seen: Vec<ReceiptId> = selection.chosen.iter().map(|c| c.id).collect();
        seen.extend(&selection.already_erased);
        selection.missing = ids
            .iter()
            .copied()
            .filter(|id| !seen.contains(id))
            .collect();
        selection.missing.sort_unstable();
        selection.missing.dedup();
    }
    Ok(selection)
}

/// What a value is compared as.
enum Wanted {
    Email(String),
    Phone(String),
    Any,
    Before(Millis, Option<String>),
}

struct Chooser {
    wanted: Wanted,
    selection: Selection,
}

impl Chooser {
    fn new(who: &Who) -> Self {
        let wanted = match who {
            Who::Email(text) => Wanted::Email(normalize_text(text.trim())),
            Who::Phone(text) => Wanted::Phone(phone_digits(text)),
            Who::Receipts(_) => Wanted::Any,
            Who::OlderThan { before_ms, scope } => Wanted::Before(*before_ms, scope.clone()),
        };
        Self {
            wanted,
            selection: Selection::default(),
        }
    }
}

/// The visitor's name, email and phone in a payload, as typed (the first of each).
fn sender(payload: &Map<String, Value>) -> [Option<String>; 3] {
    let mut out: [Option<String>; 3] = [None, None, None];
    for (key, value) in payload {
        let slot = match identity_of(&normalize_key(key)) {
            Some(Identity::Name) => 0,
            Some(Identity::Email) => 1,
            Some(Identity::Phone) => 2,
            _ => continue,
        };
        if out[slot].is_none()
            && let Value::String(text) = value
            && !text.trim().is_empty()
        {
            out[slot] = Some(text.clone());
        }
    }
    out
}

/// True when a field of `identity` in `payload` holds `wanted` (folded as `fold` does).
fn holds(
    payload: &Map<String, Value>,
    identity: Identity,
    wanted: &str,
    fold: impl Fn(&Value) -> Option<String>,
) -> bool {
    !wanted.is_empty()
        && payload.iter().any(|(key, value)| {
            identity_of(&normalize_key(key)) == Some(identity)
                && fold(value).as_deref() == Some(wanted)
        })
}

/// A phone number's digits; a Japanese number written with its country
/// code (`+81 70-…`) as it is dialled at home (`070…`).
pub fn phone_digits(text: &str) -> String {
    // Full-width digits and plus sign, as Japanese keyboards type them, read as ASCII.
    let text: String = text.nfkc().collect();
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    match text.trim_start().strip_prefix('+') {
        Some(_) if digits.starts_with("81") => format!("0{}", &digits[2..]),
        _ => digits,
    }
}

impl RowSink for Chooser {
    fn row(&mut self, row: &Row<'_>) {
        let created_ms = parse_time_ref(row.created_at).ok();
        let text = row.payload.ok();
        if let Some(text) = text
            && Tombstone::of_row(text, row.digest).is_some()
        {
            // By number it was asked for; by anything else an erased
            // receipt holds nothing to match.
            if matches!(self.wanted, Wanted::Any) {
                self.selection.already_erased.push(row.id);
            }
            return;
        }
        let payload: Option<Map<String, Value>> = text.and_then(|t| serde_json::from_str(t).ok());
        let empty = Map::new();
        let fields = payload.as_ref().unwrap_or(&empty);
        let chosen = match &self.wanted {
            Wanted::Any => true,
            Wanted::Email(email) => holds(fields, Identity::Email, email, normalize_value),
            Wanted::Phone(digits) => holds(fields, Identity::Phone, digits, |v| match v {
                Value::String(s) => Some(phone_digits(s)),
                _ => None,
            }),
            Wanted::Before(before, scope) => {
                created_ms.is_some_and(|at| at < *before)
                    && scope.as_deref().is_none_or(|s| s == row.scope)
            }
        };
        if !chosen {
            return;
        }
        let [name, email, phone] = sender(fields);
        self.selection.chosen.push(Chosen {
            id: row.id,
            scope: row.scope.to_string(),
            state: row.state.to_string(),
            created_ms,
            name,
            email,
            phone,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_numbers_compare_by_their_digits() {
        assert_eq!(phone_digits("070-4350-0720"), "07043500720");
        assert_eq!(phone_digits("(070) 4350 0720"), "07043500720");
        assert_eq!(phone_digits("+81 70-4350-0720"), "07043500720");
        assert_eq!(phone_digits("+1 746 555 1677"), "17465551677");
        assert_eq!(phone_digits("０７０４３５００７２０"), "07043500720");
    }

    #[test]
    fn an_email_is_matched_whole_never_inside_another() {
        let payload: Map<String, Value> =
            serde_json::from_str(r#"{"Email":"Aiko@Example.JP","message":"cc kaiko@example.jp"}"#)
                .unwrap();
        let fold = |t: &str| normalize_text(t);
        assert!(holds(
            &payload,
            Identity::Email,
            &fold("aiko@example.jp"),
            normalize_value
        ));
        assert!(!holds(
            &payload,
            Identity::Email,
            &fold("kaiko@example.jp"),
            normalize_value
        ));
        assert!(!holds(
            &payload,
            Identity::Email,
            &fold("example.jp"),
            normalize_value
        ));
        assert!(!holds(&payload, Identity::Email, "", normalize_value));
        assert_eq!(
            sender(&payload),
            [None, Some("Aiko@Example.JP".to_string()), None]
        );
    }
}
