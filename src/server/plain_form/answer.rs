//! The pages a plain form's post is answered with, one per outcome.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use serde_json::{Map, Value};

use crate::i18n::Lang;
use crate::model::ReceiptId;
use crate::server::config::FormConfig;
use crate::server::fields::FieldProblem;
use crate::server::page::{self, Filled, FormPage};
use crate::server::pages_route::{field_limits, form_of, minted_key, with_language};
use crate::server::problem::Problem;
use crate::t;

/// One form's pages in the visitor's language.
pub struct PlainForm<'a> {
    pub form: &'a FormConfig,
    pub lang: Lang,
}

impl PlainForm<'_> {
    /// 422: the fields to fix, each said by its label next to it.
    pub fn fields_again(
        &self,
        typed: &Map<String, Value>,
        key: Option<&str>,
        problem: &FieldProblem,
    ) -> Response {
        let lang = self.lang;
        self.with_page(|page| {
            let messages: Vec<(String, String)> = match problem {
                FieldProblem::Missing(names) => names
                    .iter()
                    .map(|n| {
                        let label = page::label_of(page, n);
                        (n.clone(), t!(lang, "page.again.missing", label = label))
                    })
                    .collect(),
                FieldProblem::TooLong(limits) => limits
                    .iter()
                    .map(|(n, max)| {
                        let label = page::label_of(page, n);
                        let text = t!(lang, "page.again.too_long", label = label, max = max);
                        (n.clone(), text)
                    })
                    .collect(),
                FieldProblem::Unknown(_) => Vec::new(),
            };
            let notice = match problem {
                FieldProblem::Unknown(_) => t!(lang, "page.again.unknown").to_string(),
                _ => t!(lang, "page.again.check").to_string(),
            };
            let filled = Filled {
                values: Some(typed),
                notice: vec![notice],
                messages,
                receipt: None,
            };
            page::form_page_again(page, &key_or_new(key), &filled)
        })
        .status(StatusCode::UNPROCESSABLE_ENTITY)
    }

    /// 502 (the action said no) or 5xx (not stored): the form again with
    /// the same key, which holds nothing, so that sending again is safe.
    pub fn send_again(
        &self,
        status: StatusCode,
        typed: &Map<String, Value>,
        key: Option<&str>,
    ) -> Response {
        let lang = self.lang;
        let text = if status == StatusCode::BAD_GATEWAY {
            t!(lang, "page.again.not_accepted")
        } else {
            t!(lang, "page.again.not_stored")
        };
        self.with_page(|page| {
            let filled = Filled {
                values: Some(typed),
                notice: vec![text.to_string()],
                messages: Vec::new(),
                receipt: None,
            };
            page::form_page_again(page, &key_or_new(key), &filled)
        })
        .status(status)
    }

    /// 422: the page's key already holds another version: the form again
    /// with a new key, saying the first version was received.
    pub fn changed(&self, typed: &Map<String, Value>, receipt: ReceiptId) -> Response {
        let lang = self.lang;
        self.with_page(|page| {
            let filled = Filled {
                values: Some(typed),
                notice: vec![t!(lang, "page.again.changed", receipt = receipt)],
                messages: Vec::new(),
                receipt: Some(receipt as u64),
            };
            page::form_page_again(page, &minted_key(), &filled)
        })
        .status(StatusCode::UNPROCESSABLE_ENTITY)
    }

    /// 202 or 409: received, and still being handled.
    pub fn received(&self, status: StatusCode, receipt: ReceiptId) -> Response {
        let lang = self.lang;
        let mut r = self
            .with_page(|page| {
                page::notice_page(
                    page,
                    t!(lang, "page.pending.title"),
                    &[t!(lang, "page.pending.received", receipt = receipt)],
                    Some(receipt as u64),
                )
            })
            .status(status);
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        r
    }

    /// Any other refusal: its title and detail as a page.
    pub fn refused(&self, problem: &Problem) -> Response {
        let lang = self.lang;
        let mut r = self
            .with_page(|page| {
                page::notice_page(
                    page,
                    &problem.title(lang),
                    &[
                        problem.detail(lang),
                        t!(lang, "page.refused.back").to_string(),
                    ],
                    problem_receipt(problem),
                )
            })
            .status(problem.status);
        if let Some(seconds) = problem.retry_after_seconds() {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        r
    }

    fn with_page(&self, render: impl FnOnce(&FormPage<'_>) -> String) -> PageResponse {
        let fields = field_limits(self.form);
        let required: Vec<&str> = self.form.required.iter().map(String::as_str).collect();
        let html = render(&form_of(self.form, &fields, &required, self.lang));
        PageResponse(with_language(Html(html), self.lang))
    }
}

/// A rendered page, before its status is set.
struct PageResponse(Response);

impl PageResponse {
    fn status(mut self, status: StatusCode) -> Response {
        *self.0.status_mut() = status;
        self.0.into_response()
    }
}

fn key_or_new(key: Option<&str>) -> String {
    key.map_or_else(minted_key, str::to_string)
}

/// The receipt a problem names (`receipt` of its body), if any.
fn problem_receipt(problem: &Problem) -> Option<u64> {
    serde_json::from_str::<Value>(&problem.body(Lang::En))
        .ok()?
        .get("receipt")?
        .as_u64()
}
