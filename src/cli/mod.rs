//! The command line: parse, dispatch, and turn every error into one line and an exit code.

pub mod args;

pub fn main() -> i32 {
    0
}
