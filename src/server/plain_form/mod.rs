//! A plain HTML form's post (a browser without the enhancing script, which
//! asks for `text/html`): every answer is a page in the visitor's language,
//! never JSON shown as text. A 201 is a 303 to the thank-you page
//! ([`super::submit`]); here are the others:
//! - fields to fix (422): the form again, as the visitor left it, each
//!   problem said next to its field by the field's label;
//! - not accepted (502) or not stored (5xx): the form again, with the same
//!   key, since nothing is held under it: sending again is safe;
//! - a changed resend under the page's key (422): the form again with a new
//!   key, saying the first version was received;
//! - received and still being handled (202, 409): a page that says so,
//!   never "failed";
//! - any other refusal (400, 404, 408, 413, 415, 429): the problem's own
//!   words as a page ([`refusal_pages`]).

mod answer;
mod refused;

pub use answer::PlainForm;
pub use refused::refusal_pages;

use axum::http::{HeaderMap, header};

/// A browser's plain form: it asks for a page, and posts no JSON.
pub fn is_plain_post(headers: &HeaderMap) -> bool {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    !json
        && headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.to_ascii_lowercase().contains("text/html"))
}
