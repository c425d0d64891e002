//! What `y` and `Y` copy of the selected receipt (on a group, its first copy: the one to
//! answer): its email, name, phone, message, receipt number or item id, as typed but for the
//! control and bidi characters that could act where it is pasted.

use crate::sanitize::is_unsafe;
use crate::triage::visitor::{Identity, identity_of, is_noise_key, normalize_key};

pub use super::copy_what::CopyWhat;
use super::find;
use super::msg::PayloadRef;
use super::state::App;
use super::tab::Tab;

/// The selected receipt: its number, its item (when it is in one) and its fields as stored
/// (`None` while its payload is still being read).
pub struct Chosen {
    receipt: i64,
    item: Option<String>,
    fields: Option<Vec<(String, String)>>,
}

/// The selected receipt, read once (the menu shows every value of it in one frame).
pub fn selected(app: &App) -> Option<Chosen> {
    if app.tab == Tab::Receipts {
        let hit = find::update::selected_hit(app)?;
        return Some(Chosen {
            receipt: hit.receipt_id,
            item: hit.items.first().map(|i| i.item.clone()),
            fields: Some(hit.fields.clone()),
        });
    }
    let (item, ids) = app.selected_item()?;
    let receipt = *ids.first()?;
    // The payload as stored, which the detail reads for the selection: the reading keeps
    // only values folded for comparing, and a visitor's text is copied as typed.
    let fields = match app.cache.payloads.get(&PayloadRef::Receipt(receipt)) {
        Some(Ok(payload)) => Some(stored_fields(payload)),
        Some(Err(_)) => Some(Vec::new()),
        None => None,
    };
    Some(Chosen {
        receipt,
        item: Some(item),
        fields,
    })
}

/// A payload's top-level fields: text as it is, anything else as compact JSON.
fn stored_fields(payload: &str) -> Vec<(String, String)> {
    match serde_json::from_str::<serde_json::Value>(payload) {
        Ok(serde_json::Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(text) => (k, text),
                other => (k, other.to_string()),
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl Chosen {
    /// Its receipt number.
    pub fn receipt(&self) -> i64 {
        self.receipt
    }

    /// The text `what` copies of this receipt: `Err(())` while its payload is being read.
    pub fn value(&self, what: CopyWhat) -> Result<Option<String>, NotReadYet> {
        let fields = match what {
            CopyWhat::ReceiptNumber => return Ok(Some(self.receipt.to_string())),
            CopyWhat::ItemId => return Ok(self.item.clone()),
            _ => self.fields.as_ref().ok_or(NotReadYet)?,
        };
        let by_identity = |identity: Identity| {
            fields
                .iter()
                .find(|(k, v)| {
                    identity_of(&normalize_key(k)) == Some(identity) && !v.trim().is_empty()
                })
                .map(|(_, v)| v.clone())
        };
        let text = match what {
            CopyWhat::Email => by_identity(Identity::Email),
            CopyWhat::Name => by_identity(Identity::Name),
            CopyWhat::Phone => by_identity(Identity::Phone),
            // The message: the longest value that names no one and is not the page's own.
            CopyWhat::Message => fields
                .iter()
                .filter(|(k, v)| {
                    let key = normalize_key(k);
                    identity_of(&key).is_none() && !is_noise_key(&key) && !v.trim().is_empty()
                })
                .max_by_key(|(_, v)| v.chars().count())
                .map(|(_, v)| v.clone()),
            CopyWhat::ReceiptNumber | CopyWhat::ItemId => None,
        };
        Ok(text.map(|t| clipboard_text(&t)))
    }
}

/// The selected receipt's payload is still being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotReadYet;

/// What copying finds of the selected receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// No receipt is selected.
    NothingSelected,
    /// The receipt has no such value.
    Missing,
    /// Its payload is still being read.
    NotReadYet,
    Text(String),
}

/// The text `what` copies of the selected receipt.
pub fn value(app: &App, what: CopyWhat) -> Found {
    match selected(app) {
        None => Found::NothingSelected,
        Some(chosen) => match chosen.value(what) {
            Ok(Some(text)) => Found::Text(text),
            Ok(None) => Found::Missing,
            Err(NotReadYet) => Found::NotReadYet,
        },
    }
}

/// Visitor text as typed, less the control and bidi characters that could act on a terminal
/// or a mail client where it is pasted (a message keeps its line breaks).
pub fn clipboard_text(text: &str) -> String {
    text.chars()
        .filter(|&c| c == '\n' || !is_unsafe(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_not_copied() {
        assert_eq!(clipboard_text("ada@example.org"), "ada@example.org");
        assert_eq!(
            clipboard_text("ev\u{202e}il\u{1b}]52;c;x\u{7}@example.org"),
            "evil]52;c;x@example.org"
        );
        assert_eq!(clipboard_text("佐藤 花子\n2行目\r"), "佐藤 花子\n2行目");
    }
}
