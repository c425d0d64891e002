//! What `y` and `Y` copy of the selected receipt (on a group, its first copy: the one to
//! answer): its email, name, phone, message, receipt number or item id, as typed but for the
//! control and bidi characters that could act where it is pasted.

use crate::i18n::Lang;
use crate::sanitize::is_unsafe;
use crate::t;
use crate::triage::visitor::{Identity, identity_of, is_noise_key, normalize_key};

use super::find;
use super::state::App;
use super::tab::Tab;

/// What can be copied, in the order the `Y` menu offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyWhat {
    Email,
    Name,
    Phone,
    Message,
    ReceiptNumber,
    ItemId,
}

impl CopyWhat {
    pub const ALL: [CopyWhat; 6] = [
        CopyWhat::Email,
        CopyWhat::Name,
        CopyWhat::Phone,
        CopyWhat::Message,
        CopyWhat::ReceiptNumber,
        CopyWhat::ItemId,
    ];

    /// The menu's word for it.
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            CopyWhat::Email => t!(lang, "keys.hint.copy_what_email"),
            CopyWhat::Name => t!(lang, "keys.hint.copy_what_name"),
            CopyWhat::Phone => t!(lang, "keys.hint.copy_what_phone"),
            CopyWhat::Message => t!(lang, "keys.hint.copy_what_message"),
            CopyWhat::ReceiptNumber => t!(lang, "keys.hint.copy_what_receipt"),
            CopyWhat::ItemId => t!(lang, "keys.hint.copy_what_item"),
        }
    }
}

/// The selected receipt: its number, its item (when it is in one) and its visitor fields.
pub struct Chosen {
    receipt: i64,
    item: Option<String>,
    fields: Vec<(String, String)>,
}

/// The selected receipt, read once (the menu shows every value of it in one frame).
pub fn selected(app: &App) -> Option<Chosen> {
    if app.tab == Tab::Receipts {
        let hit = find::update::selected_hit(app)?;
        return Some(Chosen {
            receipt: hit.receipt_id,
            item: hit.items.first().map(|i| i.item.clone()),
            fields: hit.fields.clone(),
        });
    }
    let (item, ids) = app.selected_item()?;
    let receipt = *ids.first()?;
    let fields = app
        .snapshot
        .as_ref()?
        .receipt_view(receipt)
        .map(|view| {
            view.fields()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    Some(Chosen {
        receipt,
        item: Some(item),
        fields,
    })
}

impl Chosen {
    /// The text `what` copies of this receipt, when it has one.
    pub fn value(&self, what: CopyWhat) -> Option<String> {
        let by_identity = |identity: Identity| {
            self.fields
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
            CopyWhat::Message => self
                .fields
                .iter()
                .filter(|(k, v)| {
                    let key = normalize_key(k);
                    identity_of(&key).is_none() && !is_noise_key(&key) && !v.trim().is_empty()
                })
                .max_by_key(|(_, v)| v.chars().count())
                .map(|(_, v)| v.clone()),
            CopyWhat::ReceiptNumber => Some(self.receipt.to_string()),
            CopyWhat::ItemId => self.item.clone(),
        };
        text.map(|t| clipboard_text(&t))
    }
}

/// What copying finds of the selected receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// No receipt is selected.
    NothingSelected,
    /// The receipt has no such value.
    Missing,
    Text(String),
}

/// The text `what` copies of the selected receipt.
pub fn value(app: &App, what: CopyWhat) -> Found {
    match selected(app) {
        None => Found::NothingSelected,
        Some(chosen) => chosen.value(what).map_or(Found::Missing, Found::Text),
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
