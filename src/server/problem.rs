//! Every refusal as `application/problem+json` (RFC 9457): a status, a short
//! title, a detail saying what to do, and for a field's problem the fields'
//! names. A problem never repeats what the client sent in a field.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::sanitize::inline;

pub const PROBLEM_JSON: &str = "application/problem+json";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub status: StatusCode,
    pub title: String,
    pub detail: String,
    /// The fields the problem is about, by name.
    pub fields: Vec<String>,
    /// Seconds, for 409 and 429.
    pub retry_after: Option<u64>,
    /// Extension members (`receipt`, ...).
    pub extra: Map<String, Value>,
}

impl Problem {
    pub fn new(status: StatusCode, title: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            status,
            title: title.into(),
            detail: detail.into(),
            fields: Vec::new(),
            retry_after: None,
            extra: Map::new(),
        }
    }

    /// Names the fields (shortened: a name is client text and may be long).
    pub fn with_fields<S: AsRef<str>>(mut self, fields: impl IntoIterator<Item = S>) -> Self {
        self.fields = fields.into_iter().map(|f| shown_name(f.as_ref())).collect();
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds.max(1));
        self
    }

    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.extra.insert(name.to_string(), value);
        self
    }

    pub fn body(&self) -> String {
        let mut body = json!({
            "type": "about:blank",
            "title": self.title,
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        let map = body.as_object_mut().expect("an object");
        if !self.fields.is_empty() {
            map.insert("fields".into(), json!(self.fields));
        }
        for (k, v) in &self.extra {
            map.insert(k.clone(), v.clone());
        }
        body.to_string()
    }
}

/// A field's name as a problem shows it: at most 64 characters, controls escaped.
pub fn shown_name(name: &str) -> String {
    inline(name, 64)
}

/// The names as a detail lists them: `email, message`.
pub fn listed(names: &[String]) -> String {
    names
        .iter()
        .map(|n| shown_name(n))
        .collect::<Vec<_>>()
        .join(", ")
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON))],
            self.body(),
        )
            .into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// Middleware: an error that a lower layer answered without a body (405
/// from the router, 408 from a timeout) becomes a problem too.
pub async fn fill_bare_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if (status.is_client_error() || status.is_server_error())
        && !response.headers().contains_key(header::CONTENT_TYPE)
    {
        let (mut parts, _) = response.into_parts();
        let title = status.canonical_reason().unwrap_or("Error");
        let detail = match status {
            StatusCode::METHOD_NOT_ALLOWED => "This address does not take this method.",
            // The request's time ran out; its submission may still be committed.
            StatusCode::REQUEST_TIMEOUT => {
                "The request took too long to answer; it may still have been stored. Send it again \
                 with the same key (a stored one is answered as stored), or look it up by its key."
            }
            _ => "The request was not accepted; nothing was stored.",
        };
        let problem = Problem::new(status, title, detail);
        parts
            .headers
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, problem.body().into());
    }
    response
}

/// For routes and addresses that do not exist.
pub async fn not_found() -> Problem {
    Problem::new(
        StatusCode::NOT_FOUND,
        "Not Found",
        "There is nothing at this address.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_json_with_its_fields() {
        let p = Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Too long",
            "email is too long",
        )
        .with_fields(["email"]);
        let v: Value = serde_json::from_str(&p.body()).unwrap();
        assert_eq!(v["status"], 422);
        assert_eq!(v["title"], "Too long");
        assert_eq!(v["fields"], json!(["email"]));
        let long = "x".repeat(500);
        let p = p.with_fields([long.as_str()]);
        assert_eq!(p.fields[0].chars().count(), 64);
    }
}
