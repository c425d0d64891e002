//! Reading a submission's body: its type from `Content-Type` (415 for any
//! other), its bytes within the size limit (413) and the body timeout (408),
//! and its fields as a JSON object (400 for anything that is not one, too
//! deep, or with too many fields).

mod json;
mod urlencoded;

use std::future::poll_fn;
use std::pin::Pin;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderMap, StatusCode, header};
use serde_json::{Map, Value};

use super::problem::Problem;

/// The most fields a submission may have.
pub const MAX_FIELDS: usize = 64;
/// The deepest nesting of a JSON body: the object itself is 1, a list in a
/// field 2, ...
pub const MAX_DEPTH: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyType {
    Json,
    /// `application/x-www-form-urlencoded`: what a plain HTML form posts.
    Form,
}

/// The body's type, from `Content-Type`.
pub fn body_type(headers: &HeaderMap) -> Result<BodyType, Problem> {
    let unsupported = || {
        Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "server.problem.media_type.title",
            "server.problem.media_type.detail",
        )
    };
    let value = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(unsupported)?;
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    for param in parts {
        if let Some((name, value)) = param.split_once('=')
            && name.trim().eq_ignore_ascii_case("charset")
            && !value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        {
            return Err(unsupported());
        }
    }
    match essence.as_str() {
        "application/json" => Ok(BodyType::Json),
        "application/x-www-form-urlencoded" => Ok(BodyType::Form),
        _ => Err(unsupported()),
    }
}

fn too_large(limit: usize) -> Problem {
    Problem::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "server.problem.too_large.title",
        "server.problem.too_large.detail",
    )
    .arg("limit", limit)
}

/// How much of a too-large body is still read (and thrown away) before the
/// 413 is sent: a client that is still sending when the connection closes
/// may never see the answer.
fn drain_cap(limit: usize) -> usize {
    limit.saturating_mul(4).max(1024 * 1024)
}

/// The body's bytes, at most `limit` of them.
pub async fn read(headers: &HeaderMap, mut body: Body, limit: usize) -> Result<Bytes, Problem> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(n) = declared
        && n > limit as u64
    {
        if n <= drain_cap(limit) as u64 {
            let _ = collect(&mut body, drain_cap(limit)).await;
        }
        return Err(too_large(limit));
    }
    match collect(&mut body, limit).await {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => {
            let _ = collect(&mut body, drain_cap(limit)).await;
            Err(too_large(limit))
        }
        Err(e) if is_timeout(&e) => Err(Problem::new(
            StatusCode::REQUEST_TIMEOUT,
            "server.problem.body_timeout.title",
            "server.problem.body_timeout.detail",
        )),
        Err(_) => Err(Problem::new(
            StatusCode::BAD_REQUEST,
            "server.problem.unreadable.title",
            "server.problem.unreadable.detail",
        )),
    }
}

/// The body's bytes, or `None` as soon as there are more than `limit`.
async fn collect(body: &mut Body, limit: usize) -> Result<Option<Bytes>, axum::Error> {
    let mut out = Vec::new();
    loop {
        let frame = poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await;
        let Some(frame) = frame else {
            return Ok(Some(Bytes::from(out)));
        };
        if let Ok(data) = frame?.into_data() {
            if out.len() + data.len() > limit {
                return Ok(None);
            }
            out.extend_from_slice(&data);
        }
    }
}

fn is_timeout(error: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if e.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        cause = e.source();
    }
    false
}

/// The submission's fields, as one JSON object. A plain form's repeated
/// field (ticked boxes) becomes a list of its values.
pub fn fields(kind: BodyType, bytes: &[u8]) -> Result<Map<String, Value>, Problem> {
    let map = match kind {
        BodyType::Json => json::object(bytes)?,
        BodyType::Form => urlencoded::object(bytes)?,
    };
    if map.len() > MAX_FIELDS {
        return Err(invalid("server.problem.invalid_body.field_count")
            .arg("count", map.len())
            .arg("max", MAX_FIELDS));
    }
    Ok(map)
}

/// 400: the body is not what a form sends; `detail` says why.
pub(crate) fn invalid(detail: &'static str) -> Problem {
    Problem::new(
        StatusCode::BAD_REQUEST,
        "server.problem.invalid_body.title",
        detail,
    )
}
