//! `POST /f/{form}`: a submission, checked, written through the one writer,
//! and answered as SPEC's table says (201, replays byte-identical, 409, 422,
//! absorbed copies, 202/502 with an action, 303 for a plain form).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::action::{self, ActionOutcome};
use super::body::{self, BodyType};
use super::client;
use super::config::FormConfig;
use super::cross_site;
use super::job::{Prepared, prepare};
use super::key_header;
use super::log;
use super::problem::Problem;
use super::state::AppState;
use super::writer::{Job, Outcome, WriteError, completed_response};
use crate::intake::store::Submission;
use crate::model::ReceiptId;
use crate::model::time::now_ms;

/// The header a replayed answer carries.
pub const REPLAYED: &str = "idempotent-replayed";

pub async fn submit(
    State(app): State<AppState>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let client = client::of_request(&parts, &app.config.server.trusted_proxies);
    match handle(&app, &name, client, &parts.headers, body).await {
        Ok(response) => response,
        Err(problem) => problem.into_response(),
    }
}

async fn handle(
    app: &AppState,
    name: &str,
    client: IpAddr,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<Response, Problem> {
    let form = app.form(name).cloned().ok_or_else(unknown_form)?;
    // Before the rate limit: a refused post costs the visitor nothing.
    cross_site::check(&form, headers)?;
    app.rate.take(client, name).map_err(too_many)?;
    let kind = body::body_type(headers)?;
    let header_key = key_header::from_headers(headers)?;
    let bytes = body::read(headers, body, app.config.server.body_limit).await?;
    let Prepared { job, key } = prepare(&form, kind, &bytes, header_key, now_ms())?;
    drop(bytes);
    let html = kind == BodyType::Form && wants_html(headers);
    // From here on nothing depends on the client: the work goes on (and is
    // committed) even if it goes away, so that its retry finds the receipt.
    let app = app.clone();
    let work = tokio::spawn(async move { process(&app, form, job, key, html).await });
    Ok(work.await.unwrap_or_else(|_| {
        Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server.problem.internal.title",
            "server.problem.internal.detail",
        )
        .into_response()
    }))
}

/// Writes a checked submission and answers as the protocol says.
async fn process(
    app: &AppState,
    form: Arc<FormConfig>,
    job: Job,
    key: Option<String>,
    html: bool,
) -> Response {
    let webhook_body = form.action.as_ref().map(|_| job.submission.clone());
    let outcome = match app.writer.submit(job).await {
        Ok(outcome) => outcome,
        Err(e) => return store_failed(&form, e).into_response(),
    };
    let answer = Answer {
        form: &form,
        html,
        key: key.as_deref(),
    };
    match outcome {
        Outcome::Stored { id, response } | Outcome::Absorbed { id, response } => {
            answer.done(id, response, false)
        }
        Outcome::Replayed { id, response } => {
            answer.done(id, response.unwrap_or_else(|| completed_response(id)), true)
        }
        Outcome::InFlight { id } => answer.in_flight(id),
        Outcome::Conflict { id } => answer.conflict(id),
        Outcome::Claimed { id } => match webhook_body {
            Some(submission) => run_action(app, &answer, id, &submission).await,
            None => answer.pending(id),
        },
    }
}

/// Runs the form's action on a receipt committed in flight, and records
/// and answers its outcome.
async fn run_action(
    app: &AppState,
    answer: &Answer<'_>,
    id: ReceiptId,
    s: &Submission,
) -> Response {
    let form = answer.form;
    let Some(action) = form.action.clone() else {
        return answer.pending(id);
    };
    let body = action::body(form, id, s);
    let outcome = tokio::task::spawn_blocking(move || action::post(&action, body))
        .await
        .unwrap_or_else(|e| ActionOutcome::Unknown(e.to_string()));
    match outcome {
        ActionOutcome::Accepted => {
            let response = completed_response(id);
            match app
                .writer
                .settle(id, Some(response.clone()), now_ms())
                .await
            {
                Ok(_) => answer.done(id, response, false),
                Err(e) => {
                    log::line(&format!("{}: receipt {id} stays in flight: {e}", form.name));
                    answer.pending(id)
                }
            }
        }
        ActionOutcome::Refused(why) => {
            log::line(&format!("{}: receipt {id} failed: {why}", form.name));
            match app.writer.settle(id, None, now_ms()).await {
                Ok(_) => answer.refused(id),
                Err(e) => {
                    log::line(&format!("{}: receipt {id} stays in flight: {e}", form.name));
                    answer.pending(id)
                }
            }
        }
        ActionOutcome::Unknown(why) => {
            log::line(&format!(
                "{}: receipt {id} stays in flight: {why}",
                form.name
            ));
            answer.pending(id)
        }
    }
}

struct Answer<'a> {
    form: &'a Arc<FormConfig>,
    /// A plain form's post: answered 303 to the thank-you page.
    html: bool,
    key: Option<&'a str>,
}

impl Answer<'_> {
    /// 201 with the stored response, byte for byte.
    fn done(&self, id: ReceiptId, response: String, replayed: bool) -> Response {
        let mut r = if self.html {
            self.see_thanks(id)
        } else {
            (
                StatusCode::CREATED,
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                response,
            )
                .into_response()
        };
        if replayed {
            r.headers_mut()
                .insert(REPLAYED, HeaderValue::from_static("true"));
        }
        r
    }

    fn see_thanks(&self, id: ReceiptId) -> Response {
        let location = format!("/f/{}/thanks?receipt={id}", self.form.name);
        (
            StatusCode::SEE_OTHER,
            [(
                header::LOCATION,
                HeaderValue::from_str(&location).unwrap_or(HeaderValue::from_static("/")),
            )],
        )
            .into_response()
    }

    /// 202: received, its action's outcome unknown.
    fn pending(&self, id: ReceiptId) -> Response {
        (
            StatusCode::ACCEPTED,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            json!({"receipt": id, "state": "in_flight"}).to_string(),
        )
            .into_response()
    }

    fn in_flight(&self, id: ReceiptId) -> Response {
        let mut p = Problem::new(
            StatusCode::CONFLICT,
            "server.problem.in_progress.title",
            "server.problem.in_progress.detail",
        )
        .arg("lookup", self.lookup_path())
        .retry_after(1);
        p = p.with("receipt", json!(id));
        p.into_response()
    }

    fn conflict(&self, id: ReceiptId) -> Response {
        Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "server.problem.key_used.title",
            "server.problem.key_used.detail",
        )
        .with("receipt", json!(id))
        .into_response()
    }

    fn refused(&self, id: ReceiptId) -> Response {
        Problem::new(
            StatusCode::BAD_GATEWAY,
            "server.problem.not_accepted.title",
            "server.problem.not_accepted.detail",
        )
        .with("receipt", json!(id))
        .into_response()
    }

    fn lookup_path(&self) -> String {
        match self.key {
            Some(key) => format!("/f/{}/receipts/{key}", self.form.name),
            None => format!("/f/{}/receipts/KEY", self.form.name),
        }
    }
}

/// A browser's plain form says it wants a page, not JSON.
fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.to_ascii_lowercase().contains("text/html"))
}

pub fn unknown_form() -> Problem {
    Problem::new(
        StatusCode::NOT_FOUND,
        "server.problem.unknown_form.title",
        "server.problem.unknown_form.detail",
    )
}

pub fn too_many(wait: Duration) -> Problem {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    Problem::new(
        StatusCode::TOO_MANY_REQUESTS,
        "server.problem.too_many.title",
        "server.problem.too_many.detail",
    )
    .retry_after(seconds)
}

fn store_failed(form: &FormConfig, e: WriteError) -> Problem {
    log::line(&format!("{}: not stored: {e}", form.name));
    let status = match e {
        WriteError::Gone => StatusCode::SERVICE_UNAVAILABLE,
        WriteError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    Problem::new(
        status,
        "server.problem.not_stored.title",
        "server.problem.not_stored.detail",
    )
}
