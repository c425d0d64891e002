//! The TUI's state and its pure `update`.

pub mod msg;
