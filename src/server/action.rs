//! The business action: a new receipt, already committed `in_flight`, is
//! posted to the form's webhook. Its 2xx completes the receipt; a definite
//! refusal (another status, or a webhook that could not be reached at all)
//! fails it, which releases the key; anything else (a timeout, a connection
//! lost after sending) leaves it `in_flight` for an operator, since no one
//! can know whether the webhook acted.

use std::time::Duration;

use super::config::{Action, FormConfig};
use crate::intake::store::Submission;
use crate::model::ReceiptId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionOutcome {
    /// The webhook answered 2xx.
    Accepted,
    /// The webhook answered with this status, or never received the post.
    Refused(String),
    /// Unknown: the receipt stays in flight.
    Unknown(String),
}

/// What the webhook receives: the receipt's number, form, scope, key and fields.
pub fn body(form: &FormConfig, id: ReceiptId, s: &Submission) -> String {
    let text = |t: &str| serde_json::Value::String(t.to_string()).to_string();
    format!(
        r#"{{"receipt":{id},"form":{},"scope":{},"key":{},"fields":{}}}"#,
        text(&form.name),
        text(s.scope()),
        s.key().map(text).unwrap_or_else(|| "null".into()),
        s.payload()
    )
}

/// Posts `body` to the webhook (blocking: run it off the async runtime).
pub fn post(action: &Action, body: String) -> ActionOutcome {
    let connect = action.timeout.min(Duration::from_secs(2));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(connect))
        .timeout_global(Some(action.timeout))
        .build()
        .into();
    let sent = agent
        .post(action.webhook.as_str())
        .header("content-type", "application/json")
        .send(body);
    match sent {
        Ok(response) if response.status().is_success() => ActionOutcome::Accepted,
        Ok(response) => ActionOutcome::Refused(format!(
            "the webhook answered {}",
            response.status().as_u16()
        )),
        Err(e) => classify(e),
    }
}

fn classify(e: ureq::Error) -> ActionOutcome {
    use ureq::Timeout;
    match e {
        ureq::Error::ConnectionFailed
        | ureq::Error::HostNotFound
        | ureq::Error::BadUri(_)
        | ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => {
            ActionOutcome::Refused(format!("the webhook could not be reached ({e})"))
        }
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            ActionOutcome::Refused(format!("the webhook could not be reached ({io})"))
        }
        other => ActionOutcome::Unknown(other.to_string()),
    }
}
