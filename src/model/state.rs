//! The `receipts.state` column.

use serde::Serialize;

use crate::i18n::Lang;
use crate::t;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptState {
    InFlight,
    Completed,
    Failed,
}

impl ReceiptState {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "in_flight" => Some(Self::InFlight),
            "completed" => Some(Self::Completed),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::InFlight => "in_flight",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }

    /// What people call it, in `lang` (`in flight`, `処理中`).
    pub fn label_in(self, lang: Lang) -> &'static str {
        match self {
            Self::InFlight => t!(lang, "terms.state.in_flight"),
            Self::Completed => t!(lang, "terms.state.completed"),
            Self::Failed => t!(lang, "terms.state.failed"),
        }
    }

    /// A stored state in `lang`; any other stored text as it is.
    pub fn say_in(stored: &str, lang: Lang) -> String {
        match Self::parse(stored) {
            Some(state) => state.label_in(lang).to_string(),
            None => stored.to_string(),
        }
    }
}
