//! The TUI's state and its pure `update`.
//!
//! - [`screen_size`]: the smallest terminal the screen works in;
//! - [`clock`]: the screen's time, moving unless `--now` froze it;
//! - [`tab`]: the tabs and the class filter, the words every part below shares;
//! - [`msg`]: the boundary with the runtime (`Msg` in, `Effect` out);
//! - [`indexed`]: a reading as the screen takes it (snapshot, filter index, totals);
//! - [`state`]: [`App`], everything the screen shows;
//! - [`copy_what`]: what `y` and `Y` can copy, the word keymap, state and
//!   clipboard share;
//! - [`clipboard`]: the value of the selected receipt `y` and `Y` copy;
//! - [`keymap`]: the one table of keys behind dispatch, footer hints and help,
//!   and the config file's remaps of it;
//! - [`palette`]: the screen's colours (dark, light, none);
//! - [`update()`]: one message in, the state changed, effects out, no I/O;
//! - [`search`]: the text filter: its index, folded once per reading, and
//!   which rows each tab shows under the class and text filters;
//! - [`fresh`]: the groups a reading brought news of (new, or grown);
//! - [`rows`]: what a row stands for (its id, the receipts it covers);
//! - [`visitors`]: who sent a receipt, as typed, for the lists;
//! - [`list_view`]: newest or oldest first, every item or the pending ones;
//! - [`counts`]: the totals the header and the tab bar show;
//! - [`decision`]: which tab takes which decision;
//! - [`words`]: the screen's words for decisions, standings and messages;
//! - [`standing`]: where an item stands (pending, looked at, resolved);
//! - [`layout`]: where things go, shared with the canvas;
//! - [`bots`]: the Bots tab's own rules (a receipt's sender, the spam question);
//! - [`keep`]: the copy of a duplicate group kept as the one to answer;
//! - [`undo`]: the question before an undo that reaches far;
//! - [`find`]: the Receipts tab's search and what it found;
//! - [`forms`]: the Forms tab's state and keys;
//! - [`work`]: the items a key looks at, counted in tests.
//!
//! Each file imports only those that come before it in the order
//! work, palette, screen_size, clock, tab, copy_what, decision, words, standing, keymap, counts,
//! search, fresh, indexed, msg, rows, visitors, list_view, forms, state, find, clipboard, bots,
//! keep, undo, layout, update (`forms` holds the Forms tab's state, before `state`, and its
//! keys, beside `update`; `find` likewise).

pub mod bots;
pub mod cache;
pub mod clipboard;
pub mod clock;
pub mod copy_what;
pub mod counts;
pub mod decision;
pub mod find;
pub mod forms;
pub mod fresh;
pub mod indexed;
pub mod keep;
pub mod keymap;
pub mod layout;
pub mod list_view;
pub mod msg;
pub mod palette;
pub mod rows;
pub mod screen_size;
pub mod search;
pub mod standing;
pub mod state;
pub mod tab;
pub mod undo;
mod update;
pub mod visitors;
pub mod words;
pub mod work;

pub use decision::Decision;
pub use state::{App, Focus, Input, Overlay, Selected, StatusKind, StatusLine};
pub use tab::{ClassFilter, Tab};
pub use update::update;
