//! Every refusal as `application/problem+json` (RFC 9457): a status, a short
//! title, a detail saying what to do, and for a field's problem the fields'
//! names. A problem never repeats what the client sent in a field.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::language::negotiate;
use crate::i18n::Lang;
use crate::sanitize::inline;

pub const PROBLEM_JSON: &str = "application/problem+json";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub status: StatusCode,
    /// Catalogue keys of the title and the detail, rendered in the language
    /// of the request that gets the answer.
    title: &'static str,
    detail: &'static str,
    /// Boxed: a problem travels in every `Result` of a request's checks.
    more: Box<More>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct More {
    args: Vec<(&'static str, Arg)>,
    /// The fields the problem is about, by name.
    fields: Vec<String>,
    /// Seconds, for 409 and 429.
    retry_after: Option<u64>,
    /// Extension members (`receipt`, ...).
    extra: Map<String, Value>,
}

/// A value the detail names: the same in every language, or said in each.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    Same(String),
    /// In the order of [`Lang::ALL`].
    PerLang(Vec<String>),
}

impl Problem {
    /// `title` and `detail` are keys of the language catalogues.
    pub fn new(status: StatusCode, title: &'static str, detail: &'static str) -> Self {
        Self {
            status,
            title,
            detail,
            more: Box::default(),
        }
    }

    /// A value for the detail's `{name}`.
    pub fn arg(mut self, name: &'static str, value: impl std::fmt::Display) -> Self {
        self.more.args.push((name, Arg::Same(value.to_string())));
        self
    }

    /// A value for the detail's `{name}` that is said differently in each language.
    pub fn arg_in(mut self, name: &'static str, value: impl Fn(Lang) -> String) -> Self {
        self.more
            .args
            .push((name, Arg::PerLang(Lang::ALL.map(&value).to_vec())));
        self
    }

    /// Names the fields (shortened: a name is client text and may be long).
    pub fn with_fields<S: AsRef<str>>(mut self, fields: impl IntoIterator<Item = S>) -> Self {
        self.more.fields = fields.into_iter().map(|f| shown_name(f.as_ref())).collect();
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.more.retry_after = Some(seconds.max(1));
        self
    }

    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.more.extra.insert(name.to_string(), value);
        self
    }

    /// Seconds for `Retry-After`, for 409 and 429.
    pub fn retry_after_seconds(&self) -> Option<u64> {
        self.more.retry_after
    }

    /// The fields the problem is about, by name as shown.
    pub fn fields(&self) -> &[String] {
        &self.more.fields
    }

    pub fn title(&self, lang: Lang) -> String {
        crate::i18n::text(lang, self.title).to_string()
    }

    pub fn detail(&self, lang: Lang) -> String {
        let at = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
        let values: Vec<(&str, &str)> = self
            .more
            .args
            .iter()
            .map(|(name, arg)| match arg {
                Arg::Same(v) => (*name, v.as_str()),
                Arg::PerLang(v) => (*name, v[at].as_str()),
            })
            .collect();
        let shown: Vec<(&str, &dyn std::fmt::Display)> = values
            .iter()
            .map(|(n, v)| (*n, v as &dyn std::fmt::Display))
            .collect();
        crate::i18n::fill(lang, self.detail, &shown)
    }

    pub fn body(&self, lang: Lang) -> String {
        let mut body = json!({
            "type": "about:blank",
            "title": self.title(lang),
            "status": self.status.as_u16(),
            "detail": self.detail(lang),
        });
        let map = body.as_object_mut().expect("an object");
        if !self.more.fields.is_empty() {
            map.insert("fields".into(), json!(self.more.fields));
        }
        for (k, v) in &self.more.extra {
            map.insert(k.clone(), v.clone());
        }
        body.to_string()
    }

    /// The answer in `lang`.
    fn response(self, lang: Lang) -> Response {
        let mut response = (
            self.status,
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)),
                (
                    header::CONTENT_LANGUAGE,
                    HeaderValue::from_static(lang.code()),
                ),
            ],
            self.body(lang),
        )
            .into_response();
        if let Some(seconds) = self.more.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response.extensions_mut().insert(self);
        response
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

/// In the server's language; [`answer_problems`] says it again in the
/// request's.
impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        self.response(crate::i18n::current())
    }
}

/// Middleware, around every route: a problem is said in the request's
/// language (`Accept-Language`), and an error that a lower layer answered
/// without a body (405 from the router, 408 from a timeout) becomes a
/// problem too.
pub async fn answer_problems(request: Request, next: Next) -> Response {
    let lang = negotiate(request.headers(), crate::i18n::current());
    let response = next.run(request).await;
    if let Some(problem) = response.extensions().get::<Problem>() {
        if response.headers().get(header::CONTENT_LANGUAGE)
            == Some(&HeaderValue::from_static(lang.code()))
        {
            return response;
        }
        let problem = problem.clone();
        return problem.response(lang);
    }
    let status = response.status();
    if (status.is_client_error() || status.is_server_error())
        && !response.headers().contains_key(header::CONTENT_TYPE)
    {
        let problem = match status {
            StatusCode::METHOD_NOT_ALLOWED => Problem::new(
                status,
                "server.problem.method.title",
                "server.problem.method.detail",
            ),
            // The request's time ran out; its submission may still be committed.
            StatusCode::REQUEST_TIMEOUT => Problem::new(
                status,
                "server.problem.timeout.title",
                "server.problem.timeout.detail",
            ),
            _ => Problem::new(
                status,
                "server.problem.refused.title",
                "server.problem.refused.detail",
            ),
        };
        let (parts, _) = response.into_parts();
        let mut answer = problem.response(lang);
        for (name, value) in &parts.headers {
            if name != header::CONTENT_LENGTH && !answer.headers().contains_key(name) {
                answer.headers_mut().insert(name, value.clone());
            }
        }
        return answer;
    }
    response
}

/// For routes and addresses that do not exist.
pub async fn not_found() -> Problem {
    Problem::new(
        StatusCode::NOT_FOUND,
        "server.problem.not_found.title",
        "server.problem.not_found.detail",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_json_with_its_fields() {
        let p = Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "server.problem.too_long.title",
            "server.problem.too_long.one",
        )
        .arg("field", "email")
        .arg("max", 254)
        .with_fields(["email"]);
        let v: Value = serde_json::from_str(&p.body(Lang::En)).unwrap();
        assert_eq!(v["status"], 422);
        assert_eq!(v["title"], "Field too long");
        assert_eq!(
            v["detail"],
            "The field email is longer than 254 characters; nothing was stored."
        );
        let v: Value = serde_json::from_str(&p.body(Lang::Ja)).unwrap();
        assert_eq!(v["title"], "入力が長すぎます");
        assert!(v["detail"].as_str().unwrap().contains("email"));
        assert_eq!(v["fields"], json!(["email"]));
        let long = "x".repeat(500);
        let p = p.with_fields([long.as_str()]);
        assert_eq!(p.fields()[0].chars().count(), 64);
    }
}
