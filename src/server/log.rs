//! The server's lines on stderr: starting, stopping and failures. A line
//! never holds a payload's text; what it names from a request (a form, a
//! key) is made terminal-safe first.

use crate::sanitize::inline;

pub fn line(text: &str) {
    eprintln!("receipt-review serve: {}", inline(text, 400));
}
