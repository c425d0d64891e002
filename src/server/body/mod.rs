//! Reading a submission's body: its type from `Content-Type` (415 for any
//! other), its bytes within the size limit (413) and the body timeout (408),
//! and its fields as a JSON object (400 for anything that is not one, too
//! deep, or with too many fields).

mod json;
mod urlencoded;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use http_body_util::LengthLimitError;
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

/// The body's bytes, at most `limit` of them. A declared length over the
/// limit is refused before a byte of the body is read; a body without one
/// is read up to the limit and no further. Either way the rest is never
/// held: the answer ends the connection (see `routes::close_after_refused_body`)
/// and what still arrives is thrown away as it comes (`linger`).
pub async fn read(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, Problem> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(limit));
    }
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        if caused_by::<LengthLimitError>(&e) {
            too_large(limit)
        } else if caused_by::<tower_http::timeout::TimeoutError>(&e) {
            Problem::new(
                StatusCode::REQUEST_TIMEOUT,
                "server.problem.body_timeout.title",
                "server.problem.body_timeout.detail",
            )
        } else {
            Problem::new(
                StatusCode::BAD_REQUEST,
                "server.problem.unreadable.title",
                "server.problem.unreadable.detail",
            )
        }
    })
}

fn caused_by<E: std::error::Error + 'static>(error: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if e.is::<E>() {
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

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    use axum::body::HttpBody;
    use hyper::body::Frame;

    use super::*;

    /// A body that arrives as `frames` says, then stalls or fails.
    struct Scripted {
        frames: Vec<Bytes>,
        then_fail: bool,
    }

    impl HttpBody for Scripted {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            if let Some(next) = self.frames.pop() {
                return Poll::Ready(Some(Ok(Frame::data(next))));
            }
            if self.then_fail {
                return Poll::Ready(Some(Err(std::io::ErrorKind::ConnectionReset.into())));
            }
            Poll::Pending
        }
    }

    /// `read`, which must answer without waiting for a stalled body.
    async fn answer(headers: &HeaderMap, body: Body) -> Result<Bytes, Problem> {
        tokio::time::timeout(Duration::from_secs(10), read(headers, body, 4096))
            .await
            .expect("answered without waiting for the rest of the body")
    }

    fn declaring(length: usize) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, length.into());
        headers
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_413_without_waiting_for_the_body() {
        // The body never arrives: only the declared length can answer.
        let stalled = Body::new(Scripted {
            frames: vec![],
            then_fail: false,
        });
        let refused = answer(&declaring(1 << 20), stalled).await.unwrap_err();
        assert_eq!(refused.status, StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn a_body_is_read_up_to_the_limit_and_no_further() {
        let at_limit = answer(&HeaderMap::new(), Body::from(vec![b'a'; 4096])).await;
        assert_eq!(at_limit.unwrap().len(), 4096);
        // Past the limit, then stalled: refused without waiting for the rest.
        let past = Body::new(Scripted {
            frames: vec![Bytes::from(vec![b'a'; 3000]), Bytes::from(vec![b'a'; 3000])],
            then_fail: false,
        });
        let refused = answer(&HeaderMap::new(), past).await.unwrap_err();
        assert_eq!(refused.status, StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn a_stalled_body_is_408_and_a_broken_one_400() {
        let stalled = Scripted {
            frames: vec![Bytes::from_static(b"{")],
            then_fail: false,
        };
        let timed = Body::new(tower_http::timeout::TimeoutBody::new(
            Duration::from_millis(20),
            stalled,
        ));
        let refused = answer(&HeaderMap::new(), timed).await.unwrap_err();
        assert_eq!(refused.status, StatusCode::REQUEST_TIMEOUT);
        let broken = Body::new(Scripted {
            frames: vec![Bytes::from_static(b"{")],
            then_fail: true,
        });
        let refused = answer(&HeaderMap::new(), broken).await.unwrap_err();
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    }
}
