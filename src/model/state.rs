//! The `receipts.state` column.

use serde::Serialize;

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
}
