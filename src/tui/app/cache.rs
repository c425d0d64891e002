//! What the screen keeps of what it read on demand: the payloads the detail
//! pane shows and the senders they name. Not state: dropping any of it only
//! means reading it again, so each is trimmed when it grows (see `update`).

use std::collections::{HashMap, HashSet};

use super::msg::PayloadRef;
use super::visitors::Visitor;
use crate::model::ReceiptId;

#[derive(Debug, Default)]
pub struct Cache {
    /// Payloads read, or why one could not be (already safe to show).
    pub payloads: HashMap<PayloadRef, Result<String, String>>,
    /// Payloads asked for and not arrived yet.
    pub requested: HashSet<PayloadRef>,
    /// Senders as typed, from the payloads that have arrived.
    pub visitors: HashMap<ReceiptId, Visitor>,
}
