//! The Receipts tab: a search of every receipt, run by the worker (the app
//! only asks, with [`crate::tui::app::msg::Effect::Find`]), and its hits
//! joined with the current reading's items.
//!
//! - [`state`]: [`FindState`], what the tab holds;
//! - [`update`](mod@update): typing a search, running it, taking what was found, and
//!   the item a hit jumps to.

pub mod state;
pub mod update;

pub use state::FindState;
