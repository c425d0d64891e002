//! The idempotency key of a submission: the `Idempotency-Key` header (a
//! structured-field string, `"…"`, or a bare token) or, for a plain form,
//! the hidden field `_key`. Either way it must be a valid key
//! ([`valid_key`]: 1-64 of `[A-Za-z0-9_-]`).

use axum::http::{HeaderMap, StatusCode};

use super::problem::Problem;
use crate::intake::key::valid_key;

pub const HEADER: &str = "idempotency-key";
/// The hidden field of a plain form; never part of the stored payload.
pub const FIELD: &str = "_key";

/// The key the header carries, if any.
pub fn from_headers(headers: &HeaderMap) -> Result<Option<String>, Problem> {
    let mut values = headers.get_all(HEADER).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(bad("server.problem.key.twice"));
    }
    let text = value
        .to_str()
        .map_err(|_| bad("server.problem.key.not_ascii"))?;
    let key = unquote(text.trim()).ok_or_else(|| bad("server.problem.key.not_string"))?;
    checked(key).map(Some)
}

/// A key from the `_key` field (or another source): checked the same way.
pub fn checked(key: String) -> Result<String, Problem> {
    match valid_key(&key) {
        Ok(_) => Ok(key),
        Err(e) => Err(bad("server.problem.key.invalid").arg_in("why", |lang| e.message(lang))),
    }
}

/// The header's and the field's key: one of them, or the same in both.
pub fn either(header: Option<String>, field: Option<String>) -> Result<Option<String>, Problem> {
    match (header, field) {
        (Some(h), Some(f)) if h != f => Err(bad("server.problem.key.differ")),
        (Some(h), _) => Ok(Some(h)),
        (None, Some(f)) => checked(f).map(Some),
        (None, None) => Ok(None),
    }
}

/// `"abc"` (a structured-field string, with `\"` and `\\` escapes) or a bare
/// token `abc`.
fn unquote(text: &str) -> Option<String> {
    let Some(inner) = text.strip_prefix('"') else {
        return (!text.is_empty() && !text.contains(['"', ',', ';', ' ', '\t']))
            .then(|| text.to_string());
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => out.push(e),
                _ => return None,
            },
            // The closing quote ends the item; parameters are not taken.
            '"' => return chars.as_str().is_empty().then_some(out),
            ' '..='~' => out.push(c),
            _ => return None,
        }
    }
    None
}

pub(crate) fn bad(detail: &'static str) -> Problem {
    Problem::new(StatusCode::BAD_REQUEST, "server.problem.key.title", detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn key(value: &str) -> Result<Option<String>, Problem> {
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, HeaderValue::from_str(value).unwrap());
        from_headers(&headers)
    }

    #[test]
    fn a_string_or_a_token() {
        assert_eq!(key("\"k-1_A\"").unwrap().as_deref(), Some("k-1_A"));
        assert_eq!(key(" k-1_A ").unwrap().as_deref(), Some("k-1_A"));
        assert_eq!(from_headers(&HeaderMap::new()).unwrap(), None);
    }

    #[test]
    fn anything_else_is_a_400() {
        for bad in [
            "\"open",
            "\"a\";p=1",
            "\"a b\"",
            "a b",
            "\"\"",
            "\"a\\x\"",
            "k/1",
        ] {
            let err = key(bad).expect_err(bad);
            assert_eq!(err.status, StatusCode::BAD_REQUEST, "{bad}");
        }
        assert!(key(&"k".repeat(65)).is_err());
    }

    #[test]
    fn header_and_field_must_agree() {
        assert_eq!(
            either(Some("a".into()), Some("a".into()))
                .unwrap()
                .as_deref(),
            Some("a")
        );
        assert_eq!(
            either(None, Some("b".into())).unwrap().as_deref(),
            Some("b")
        );
        assert!(either(Some("a".into()), Some("b".into())).is_err());
        assert!(either(None, Some("bad key".into())).is_err());
    }
}
