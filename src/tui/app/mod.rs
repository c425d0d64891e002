//! The TUI's state and its pure `update`.
//!
//! - [`tab`]: the tabs and the class filter, the words every part below shares;
//! - [`msg`]: the boundary with the runtime (`Msg` in, `Effect` out);
//! - [`indexed`]: a reading as the screen takes it (snapshot, filter index, totals);
//! - [`state`]: [`App`], everything the screen shows;
//! - [`keymap`]: the one table of keys behind dispatch, footer hints and help;
//! - [`update()`]: one message in, the state changed, effects out, no I/O;
//! - [`search`]: the text filter: its index, folded once per reading, and
//!   which rows each tab shows under the class and text filters;
//! - [`rows`]: what a row stands for (its id, the receipts it covers);
//! - [`counts`]: the totals the header and the tab bar show;
//! - [`decision`]: which tab takes which decision;
//! - [`layout`]: where things go, shared with the canvas;
//! - [`forms`]: the Forms tab's state and keys.
//!
//! Each file imports only those that come before it in the order
//! tab, decision, keymap, counts, search, indexed, msg, rows, state, layout,
//! update (`forms` holds the Forms tab's state, before `state`, and its
//! keys, beside `update`).

pub mod counts;
pub mod decision;
pub mod forms;
pub mod indexed;
pub mod keymap;
pub mod layout;
pub mod msg;
pub mod rows;
pub mod search;
pub mod state;
pub mod tab;
mod update;

pub use decision::Decision;
pub use state::{App, Focus, Input, Overlay, Selected, StatusKind, StatusLine};
pub use tab::{ClassFilter, Tab};
pub use update::update;
