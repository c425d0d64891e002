//! Middleware: a refusal answered as problem+json to a plain form's post
//! becomes a page, whichever layer refused it (the handler's checks, the
//! rate limit, a timeout, an unknown form).

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::{PlainForm, is_plain_post};
use crate::server::language::negotiate;
use crate::server::problem::{PROBLEM_JSON, Problem};
use crate::server::state::AppState;

pub async fn refusal_pages(State(app): State<AppState>, request: Request, next: Next) -> Response {
    let form = (request.method() == Method::POST && is_plain_post(request.headers()))
        .then(|| request.uri().path().strip_prefix("/f/"))
        .flatten()
        .filter(|rest| !rest.contains('/'))
        .and_then(|name| app.form(name).cloned());
    let lang = negotiate(request.headers(), crate::i18n::current());
    let response = next.run(request).await;
    let Some(form) = form else {
        return response;
    };
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == PROBLEM_JSON.as_bytes());
    match response.extensions().get::<Problem>() {
        Some(problem) if is_problem => PlainForm { form: &form, lang }.refused(problem),
        _ => response,
    }
}
