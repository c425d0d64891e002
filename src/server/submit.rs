//! `POST /f/{form}`: a submission, checked, written through the one writer,
//! and answered as README's "The intake server" table says (201, replays byte-identical, 409, 422,
//! absorbed copies, 202/502 with an action, 303 for a plain form).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::action::{self, ActionOutcome, WhyRefused, WhyUnknown};
use super::body::{self, BodyType};
use super::client;
use super::config::FormConfig;
use super::cross_site;
use super::job::{Prepared, Refusal, prepare};
use super::key_header;
use super::language::negotiate;
use super::log;
use super::metrics::Outcome as Counted;
use super::plain_form::{PlainForm, is_plain_post};
use super::problem::Problem;
use super::state::AppState;
use super::writer::{Job, Outcome, WriteError, completed_response, pending_response};
use crate::i18n::Lang;
use crate::intake::store::Submission;
use crate::model::time::human_duration_in;
use crate::model::{Millis, ReceiptId};
use crate::t;

/// The header a replayed answer carries.
pub const REPLAYED: &str = "idempotent-replayed";

pub async fn submit(
    State(app): State<AppState>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let client = client::of_request(&parts, &app.config.server.trusted_proxies);
    let refused = match handle(&app, &name, client, &parts.headers, body).await {
        Ok(response) => return response,
        Err(refusal) => refused(&app, &name, &parts, refusal),
    };
    // Only a form of the config is counted: a path's name is the visitor's text.
    if app.form(&name).is_some() {
        app.metrics
            .submission(&name, Counted::Refused, refused.status().as_u16());
    }
    refused
}

/// The answer to a submission refused before anything was written.
fn refused(app: &AppState, name: &str, parts: &Parts, refusal: Refusal) -> Response {
    match refusal {
        Refusal::Fields {
            problem,
            typed,
            key,
        } if is_plain_post(&parts.headers) => match app.form(name) {
            Some(form) => PlainForm {
                form,
                lang: negotiate(&parts.headers, crate::i18n::current()),
            }
            .fields_again(&typed, key.as_deref(), &problem),
            None => problem.problem().into_response(),
        },
        // A plain form's other refusals become pages in `refusal_pages`.
        refusal => refusal.problem().into_response(),
    }
}

async fn handle(
    app: &AppState,
    name: &str,
    client: IpAddr,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<Response, Refusal> {
    let form = app.form(name).cloned().ok_or_else(unknown_form)?;
    // Before the rate limit: a refused post costs the visitor nothing.
    cross_site::check(&form, headers)?;
    app.rate.take(client, name).map_err(|e| {
        app.metrics.rate_limited(name);
        too_many(e)
    })?;
    let kind = body::body_type(headers)?;
    let header_key = key_header::from_headers(headers)?;
    let bytes = body::read(headers, body, app.config.server.body_limit).await?;
    let Prepared { job, key } = prepare(
        &form,
        app.config.server.request_timeout,
        kind,
        &bytes,
        header_key,
        app.config.clock.now_ms(),
    )?;
    drop(bytes);
    let html = (kind == BodyType::Form && is_plain_post(headers))
        .then(|| negotiate(headers, crate::i18n::current()));
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

/// Writes a checked submission and answers as the protocol says; `html`: a
/// plain form's post, answered with pages in this language.
async fn process(
    app: &AppState,
    form: Arc<FormConfig>,
    job: Job,
    key: Option<String>,
    html: Option<Lang>,
) -> Response {
    let webhook_body = form.action.as_ref().map(|_| job.submission.clone());
    let typed = html.map(|_| job.submission.payload().to_string());
    let outcome = app.writer.submit(job).await;
    let answer = Answer {
        form: &form,
        html,
        key: key.as_deref(),
        typed: typed.as_deref(),
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => {
            let response = answer.store_failed(e);
            let status = response.status().as_u16();
            app.metrics.submission(&form.name, Counted::Refused, status);
            return response;
        }
    };
    let (counted, id, mut response) = match outcome {
        Outcome::Stored { id, response } => (Counted::New, id, answer.done(id, response, false)),
        Outcome::Absorbed { id, response } => {
            (Counted::Absorbed, id, answer.done(id, response, false))
        }
        Outcome::Replayed { id, response } => (
            Counted::Replay,
            id,
            answer.done(id, response.unwrap_or_else(|| completed_response(id)), true),
        ),
        Outcome::InFlight { id } => (Counted::Pending, id, answer.in_flight(id)),
        Outcome::Pending { id } => (Counted::Pending, id, answer.pending(id, true)),
        Outcome::Conflict { id } => (Counted::Conflict, id, answer.conflict(id)),
        Outcome::Claimed { id } => match webhook_body {
            Some(submission) => {
                let _running = app.metrics.action_running();
                let response = run_action(app, &answer, id, &submission).await;
                (Counted::New, id, response)
            }
            None => (Counted::New, id, answer.pending(id, false)),
        },
    };
    let status = response.status().as_u16();
    app.metrics.submission(&form.name, counted, status);
    response.extensions_mut().insert(log::AnsweredReceipt(id));
    response
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
    let (Some(action), Some(webhook)) = (form.action.as_ref(), app.webhooks.get(&form.name)) else {
        return answer.pending(id, false);
    };
    let body = action::body(form, id, s);
    let webhook = webhook.clone();
    let outcome = tokio::task::spawn_blocking(move || webhook.post(body))
        .await
        .unwrap_or(ActionOutcome::Unknown(WhyUnknown::Lost));
    let lang = crate::i18n::current();
    let (name, receipt) = (form.name.as_str(), id);
    let settled = match outcome {
        ActionOutcome::Accepted => {
            let response = completed_response(id);
            match app
                .writer
                .settle(id, Some(response.clone()), app.config.clock.now_ms())
                .await
            {
                Ok(_) => return answer.done(id, response, false),
                Err(e) => Err(e),
            }
        }
        ActionOutcome::Refused(why) => {
            log::line(&match why {
                WhyRefused::Status(status) => t!(
                    lang,
                    "serve.log.action_refused",
                    form = name,
                    receipt = receipt,
                    status = status
                ),
                WhyRefused::Unreachable => t!(
                    lang,
                    "serve.log.action_unreachable",
                    form = name,
                    receipt = receipt
                ),
            });
            match app.writer.settle(id, None, app.config.clock.now_ms()).await {
                Ok(_) => return answer.refused(id),
                Err(e) => Err(e),
            }
        }
        ActionOutcome::Unknown(why) => {
            log::line(&match why {
                WhyUnknown::TimedOut => t!(
                    lang,
                    "serve.log.action_timed_out",
                    form = name,
                    receipt = receipt,
                    timeout = human_duration_in(action.timeout.as_millis() as Millis, lang)
                ),
                WhyUnknown::Lost => t!(
                    lang,
                    "serve.log.action_lost",
                    form = name,
                    receipt = receipt
                ),
            });
            Ok(())
        }
    };
    if let Err(e) = settled {
        log::line(&t!(
            lang,
            "serve.log.action_unrecorded",
            form = name,
            receipt = receipt,
            error = e
        ));
    }
    answer.pending(id, false)
}

struct Answer<'a> {
    form: &'a Arc<FormConfig>,
    /// A plain form's post: answered 303 to the thank-you page, and with
    /// pages in this language otherwise.
    html: Option<Lang>,
    key: Option<&'a str>,
    /// A plain form's fields as stored, to show the form again.
    typed: Option<&'a str>,
}

impl Answer<'_> {
    /// 201 with the stored response, byte for byte.
    fn done(&self, id: ReceiptId, response: String, replayed: bool) -> Response {
        let mut r = if self.html.is_some() {
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

    /// 202: received, its action's outcome unknown; `replayed` for a retry
    /// after the action gave up.
    fn pending(&self, id: ReceiptId, replayed: bool) -> Response {
        let mut r = if let Some(page) = self.page() {
            page.received(StatusCode::ACCEPTED, id)
        } else {
            (
                StatusCode::ACCEPTED,
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                pending_response(id),
            )
                .into_response()
        };
        if replayed {
            r.headers_mut()
                .insert(REPLAYED, HeaderValue::from_static("true"));
        }
        r
    }

    fn in_flight(&self, id: ReceiptId) -> Response {
        if let Some(page) = self.page() {
            let mut r = page.received(StatusCode::CONFLICT, id);
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(1));
            return r;
        }
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
        if let (Some(page), Some(typed)) = (self.page(), self.typed_fields()) {
            return page.changed(&typed, id);
        }
        Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "server.problem.key_used.title",
            "server.problem.key_used.detail",
        )
        .with("receipt", json!(id))
        .into_response()
    }

    fn refused(&self, id: ReceiptId) -> Response {
        if let (Some(page), Some(typed)) = (self.page(), self.typed_fields()) {
            return page.send_again(StatusCode::BAD_GATEWAY, &typed, self.key);
        }
        Problem::new(
            StatusCode::BAD_GATEWAY,
            "server.problem.not_accepted.title",
            "server.problem.not_accepted.detail",
        )
        .with("receipt", json!(id))
        .into_response()
    }

    /// Nothing was stored: the protocol's problem, or the form again.
    fn store_failed(&self, e: WriteError) -> Response {
        let problem = store_failed(self.form, e);
        match (self.page(), self.typed_fields()) {
            (Some(page), Some(typed)) => page.send_again(problem.status, &typed, self.key),
            _ => problem.into_response(),
        }
    }

    fn page(&self) -> Option<PlainForm<'_>> {
        self.html.map(|lang| PlainForm {
            form: self.form,
            lang,
        })
    }

    fn typed_fields(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        match serde_json::from_str(self.typed?) {
            Ok(serde_json::Value::Object(map)) => Some(map),
            _ => None,
        }
    }

    fn lookup_path(&self) -> String {
        match self.key {
            Some(key) => format!("/f/{}/receipts/{key}", self.form.name),
            None => format!("/f/{}/receipts/KEY", self.form.name),
        }
    }
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
    log::line(&t!(
        crate::i18n::current(),
        "serve.log.not_stored",
        form = form.name.as_str(),
        error = e
    ));
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
