//! `GET /f/{form}`, `GET /f/{form}/thanks` and `GET /intake.js`: the form's
//! page (with a key minted once per page), the page a plain form's post is
//! redirected to (303), and the script that enhances the page. The HTML is
//! rendered by [`super::page`].

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};

use super::config::FormConfig;
use super::language::negotiate;
use super::page::{self, FormPage};
use super::problem::not_found;
use super::state::AppState;
use crate::i18n::{self, Lang};

pub async fn form_page(
    State(app): State<AppState>,
    Path(form): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(config) = app.form(&form) else {
        return not_found().await.into_response();
    };
    let fields = field_limits(config);
    let required: Vec<&str> = config.required.iter().map(String::as_str).collect();
    let key = minted_key();
    let lang = negotiate(&headers, i18n::current());
    with_language(
        Html(page::form_page(
            &form_of(config, &fields, &required, lang),
            &key,
        )),
        lang,
    )
}

pub async fn thanks_page(
    State(app): State<AppState>,
    Path(form): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Some(config) = app.form(&form) else {
        return not_found().await.into_response();
    };
    let fields = field_limits(config);
    let lang = negotiate(&headers, i18n::current());
    with_language(
        Html(page::thanks_page(
            &form_of(config, &fields, &[], lang),
            receipt_of(query.as_deref()),
        )),
        lang,
    )
}

/// `receipt=N` of the redirect's query; anything else shows no number.
pub(crate) fn receipt_of(query: Option<&str>) -> Option<u64> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("receipt="))
        .and_then(|n| n.parse().ok())
}

/// A page in `lang`, saying so (caches keep one page per language).
pub(crate) fn with_language(page: Html<String>, lang: Lang) -> Response {
    let mut response = page.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(lang.code()),
    );
    headers.insert(header::VARY, HeaderValue::from_static("accept-language"));
    response
}

pub async fn intake_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        page::INTAKE_JS,
    )
        .into_response()
}

pub(crate) fn field_limits(config: &FormConfig) -> Vec<(&str, usize)> {
    config
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.max_chars))
        .collect()
}

pub(crate) fn form_of<'a>(
    config: &'a FormConfig,
    fields: &'a [(&'a str, usize)],
    required: &'a [&'a str],
    lang: Lang,
) -> FormPage<'a> {
    FormPage {
        form: &config.name,
        title: &config.title,
        fields,
        required,
        honeypot: config.honeypot.as_deref(),
        labels: &config.labels,
        lang,
    }
}

/// A key for one page view: 128 random bits as hex, valid for the intake.
pub(crate) fn minted_key() -> String {
    let bytes: [u8; 16] = rand::random();
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::receipt_of;

    #[test]
    fn the_receipt_number_of_the_thanks_address() {
        assert_eq!(receipt_of(Some("receipt=42")), Some(42));
        assert_eq!(receipt_of(Some("a=1&receipt=7")), Some(7));
        assert_eq!(receipt_of(Some("receipt=<script>")), None);
        assert_eq!(receipt_of(Some("receipt=-1")), None);
        assert_eq!(receipt_of(None), None);
    }
}
