//! What `y` and `Y` can copy of a receipt: a word shared by the keymap (a
//! key a choice of the menu), the state (the menu's choice) and the
//! clipboard (the value), kept apart so that none of them imports another
//! for it.

use crate::i18n::Lang;
use crate::t;

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
