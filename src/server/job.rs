//! A submission's body, checked into the writer's [`Job`]: everything a
//! `POST /f/{form}` does before the database, with no I/O, so that the
//! benchmark's floor runs exactly this work without HTTP.

use axum::http::StatusCode;
use serde_json::{Map, Value};

use super::body::{self, BodyType};
use super::config::{FormConfig, KeyPolicy};
use super::fields::{self, FieldProblem};
use super::fingerprint::visitor_hash;
use super::key_header;
use super::problem::Problem;
use super::writer::Job;
use crate::intake::store::Submission;
use crate::model::Millis;

/// A checked submission and the key it came with (from the header or the
/// plain form's `_key` field).
#[derive(Debug)]
pub struct Prepared {
    pub job: Job,
    pub key: Option<String>,
}

/// Why a submission was refused before the database.
#[derive(Debug)]
pub enum Refusal {
    /// The request itself: its body, its key.
    Request(Problem),
    /// Its fields, with what the visitor typed (a plain form shows it again).
    Fields {
        problem: FieldProblem,
        typed: Map<String, Value>,
        key: Option<String>,
    },
}

impl Refusal {
    pub fn problem(&self) -> Problem {
        match self {
            Self::Request(p) => p.clone(),
            Self::Fields { problem, .. } => problem.problem(),
        }
    }
}

impl From<Problem> for Refusal {
    fn from(p: Problem) -> Self {
        Self::Request(p)
    }
}

/// Checks `bytes` of type `kind` for `form` and builds its job, received at
/// `at_ms`. `header_key`: the `Idempotency-Key` header's key, if any;
/// `request_timeout`: the server's, the longest any request of it runs.
pub fn prepare(
    form: &FormConfig,
    request_timeout: std::time::Duration,
    kind: BodyType,
    bytes: &[u8],
    header_key: Option<String>,
    at_ms: Millis,
) -> Result<Prepared, Refusal> {
    let mut fields = body::fields(kind, bytes)?;
    let field_key = match fields.remove(key_header::FIELD) {
        None => None,
        Some(Value::String(k)) if k.is_empty() => None,
        Some(Value::String(k)) => Some(k),
        Some(_) => {
            return Err(key_header::bad("server.problem.key.field_not_text").into());
        }
    };
    let key = key_header::either(header_key, field_key)?;
    if key.is_none() && form.key == KeyPolicy::Required {
        return Err(Refusal::Request(Problem::new(
            StatusCode::BAD_REQUEST,
            "server.problem.key_required.title",
            "server.problem.key_required.detail",
        )));
    }
    if let Err(problem) = fields::check(form, &mut fields) {
        return Err(Refusal::Fields {
            problem,
            typed: fields,
            key,
        });
    }
    let visitor = if form.window_ms > 0 {
        visitor_hash(&form.scope, &fields, form.honeypot.as_deref())
    } else {
        None
    };
    let submission = Submission::new(&form.scope, key.as_deref(), &fields).map_err(|e| {
        body::invalid("server.problem.invalid_body.cannot_store")
            .arg_in("why", |lang| e.message(lang))
    })?;
    let job = Job {
        submission,
        at_ms,
        visitor,
        window_ms: form.window_ms,
        complete_now: form.action.is_none(),
        action_timeout_ms: action_timeout_ms(form, request_timeout),
    };
    Ok(Prepared { job, key })
}

/// How long whoever claimed a receipt of `form` may still be working on it:
/// its action's timeout; for a form without one (whose receipts this server
/// completes at once, so that one in flight was claimed elsewhere), the
/// longest a request may take.
fn action_timeout_ms(form: &FormConfig, request_timeout: std::time::Duration) -> Millis {
    form.action
        .as_ref()
        .map_or(request_timeout, |a| a.timeout)
        .as_millis() as Millis
}
