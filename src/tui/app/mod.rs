//! The TUI's state and its pure `update`.
//!
//! - [`msg`]: the boundary with the runtime (`Msg` in, `Effect` out);
//! - [`state`]: [`App`], everything the screen shows;
//! - [`keymap`]: the one table of keys behind dispatch, footer hints and help;
//! - [`update()`]: one message in, the state changed, effects out, no I/O;
//! - [`rows`]: which rows each tab shows under the class and text filters;
//! - [`search`]: the filter's index, folded once per reading;
//! - [`layout`]: where things go, shared with the canvas.

pub mod decision;
pub mod keymap;
pub mod layout;
pub mod msg;
pub mod rows;
pub mod search;
pub mod state;
mod update;

pub use decision::Decision;
pub use state::{App, ClassFilter, Focus, Input, Overlay, Selected, Status, StatusKind, Tab};
pub use update::update;
