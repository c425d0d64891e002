//! The review screen: its pure update and view, its worker, the filter's
//! index, and the real binary in a pseudo-terminal.

#[path = "../common/mod.rs"]
mod common;
mod fixture;

mod absorbed;
mod bots;
mod clock;
mod config_pty;
mod copy_pty;
mod cuts;
mod e2e;
mod erase;
mod erase_pty;
mod filter_index;
mod filter_typed;
mod find;
mod forms;
mod japanese;
mod japanese_update;
mod japanese_words;
mod mouse;
mod mouse_pty;
mod no_english;
mod reopen;
mod sentence_why;
mod tabs;
mod typing;
mod typing_pty;
mod update;
mod view;
mod worker;
