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
    /// The webhook said no, or never received the post: the receipt fails.
    Refused(WhyRefused),
    /// Nobody knows whether the webhook acted: the receipt stays in flight.
    Unknown(WhyUnknown),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyRefused {
    /// It answered with this status (not 2xx).
    Status(u16),
    /// It could not be reached: the post was never delivered.
    Unreachable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyUnknown {
    /// No answer within the action's timeout.
    TimedOut,
    /// The connection broke after the post may have arrived.
    Lost,
}

/// The HTTP client of one form's webhook, built once for the server's life
/// so that its connections are reused rather than opened per receipt.
#[derive(Clone, Debug)]
pub struct Webhook {
    agent: ureq::Agent,
    url: String,
}

impl Webhook {
    pub fn new(action: &Action) -> Self {
        let connect = action.timeout.min(Duration::from_secs(2));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(connect))
            .timeout_global(Some(action.timeout))
            .build()
            .into();
        Self {
            agent,
            url: action.webhook.clone(),
        }
    }

    /// Posts `body` (blocking: run it off the async runtime).
    pub fn post(&self, body: String) -> ActionOutcome {
        let sent = self
            .agent
            .post(self.url.as_str())
            .header("content-type", "application/json")
            .send(body);
        match sent {
            Ok(response) if response.status().is_success() => ActionOutcome::Accepted,
            Ok(response) => ActionOutcome::Refused(WhyRefused::Status(response.status().as_u16())),
            Err(e) => classify(&e),
        }
    }
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

fn classify(e: &ureq::Error) -> ActionOutcome {
    use ureq::Timeout;
    match e {
        ureq::Error::ConnectionFailed
        | ureq::Error::HostNotFound
        | ureq::Error::BadUri(_)
        | ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => {
            ActionOutcome::Refused(WhyRefused::Unreachable)
        }
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            ActionOutcome::Refused(WhyRefused::Unreachable)
        }
        ureq::Error::Timeout(_) => ActionOutcome::Unknown(WhyUnknown::TimedOut),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            ActionOutcome::Unknown(WhyUnknown::TimedOut)
        }
        _ => ActionOutcome::Unknown(WhyUnknown::Lost),
    }
}
