//! `GET /f/{form}/receipts/{key}`: the key holder asks what became of its
//! submission. The answer is the receipt's number and state, never its
//! fields: knowing a key must not reveal an inquiry.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::key_header;
use super::problem::Problem;
use super::state::AppState;
use super::submit::{too_many, unknown_form};
use super::writer::KeyLookup;

pub async fn lookup(
    State(app): State<AppState>,
    Path((name, key)): Path<(String, String)>,
    request: Request,
) -> Response {
    let form = match app.form(&name) {
        Some(form) => form.clone(),
        None => return unknown_form().into_response(),
    };
    let (parts, _) = request.into_parts();
    let client = super::client::of_request(&parts, &app.config.server.trusted_proxies);
    if let Err(wait) = app.rate.take(client, &format!("{name} lookup")) {
        return too_many(wait).into_response();
    }
    let key = match key_header::checked(key) {
        Ok(key) => key,
        Err(problem) => return problem.into_response(),
    };
    let mut response = match app.writer.lookup(&form.scope, &key).await {
        Ok(KeyLookup::Receipt { id, state }) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            json!({"receipt": id, "state": state.as_str()}).to_string(),
        )
            .into_response(),
        Ok(KeyLookup::NotYet) => Problem::new(
            StatusCode::NOT_FOUND,
            "server.problem.lookup_none.title",
            "server.problem.lookup_none.detail",
        )
        .into_response(),
        Err(_) => Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server.problem.lookup_unavailable.title",
            "server.problem.lookup_unavailable.detail",
        )
        .retry_after(1)
        .into_response(),
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
