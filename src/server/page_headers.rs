//! The headers every answer gets, and those a page needs. Every answer says
//! `nosniff`, so that a browser never reads JSON or a script as a page. A
//! page (any `text/html` answer, whichever handler made it) also gets
//! `Referrer-Policy: same-origin` and a Content-Security-Policy that lets
//! it do what it does and nothing else: its one stylesheet by hash, the
//! script from this server, posts and fetches to this server, and frames
//! only on the sites its form names.

use std::convert::Infallible;
use std::sync::{Arc, LazyLock};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

use super::config::FormConfig;
use super::form_path::form_name;
use super::page::STYLE;
use super::state::AppState;

/// A response step, around every route (one that needs no more of the
/// request than its form, so that a post pays next to nothing for it).
pub async fn add(RouteForm(form): RouteForm, mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if is_page(headers) {
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        );
        let ancestors = form.as_deref().map(|f| f.frame_ancestors.as_slice());
        if let Ok(value) = HeaderValue::from_str(&policy(ancestors)) {
            headers.insert(header::CONTENT_SECURITY_POLICY, value);
        }
    }
    response
}

/// The form of the route `/f/{form}/…`, if the config has it.
pub struct RouteForm(Option<Arc<FormConfig>>);

impl FromRequestParts<AppState> for RouteForm {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, Infallible> {
        Ok(Self(
            form_name(parts.uri.path()).and_then(|name| app.form(name).cloned()),
        ))
    }
}

fn is_page(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/html"))
        })
}

/// The policy of a page that `ancestors` may frame (a page of no form:
/// its own site's, as a form's by default).
fn policy(ancestors: Option<&[String]>) -> String {
    let ancestors = match ancestors {
        None => "'self'".to_string(),
        Some([]) => "'none'".to_string(),
        Some(list) => list.join(" "),
    };
    format!(
        "default-src 'none'; script-src 'self'; style-src '{}'; form-action 'self'; \
         connect-src 'self'; base-uri 'none'; frame-ancestors {ancestors}",
        *STYLE_HASH
    )
}

/// `sha256-…` of the pages' inline stylesheet, computed once.
static STYLE_HASH: LazyLock<String> =
    LazyLock::new(|| format!("sha256-{}", STANDARD.encode(Sha256::digest(STYLE))));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Config;

    #[test]
    fn the_policy_names_the_style_by_its_hash() {
        // As a browser computes it: base64 of the SHA-256 of the element's
        // text (the value from another implementation).
        assert_eq!(
            format!(
                "sha256-{}",
                STANDARD.encode(Sha256::digest(b"a{color:red}"))
            ),
            "sha256-6hWWMOcF+mJesSJGYhmK2lkIIEw9Xc5XKGLPVzh8yxs="
        );
        let p = policy(None);
        assert!(p.starts_with("default-src 'none'; script-src 'self'; style-src 'sha256-"));
        assert!(p.contains(&format!("'{}'", *STYLE_HASH)));
        assert_eq!(STYLE_HASH.len(), "sha256-".len() + 44);
    }

    #[test]
    fn frame_ancestors_come_from_the_form() {
        let config = Config::parse(
            "[forms.a]\nframe_ancestors = [\"https://acme.example\", \"'self'\"]\n\
             [forms.b]\nframe_ancestors = []\n[forms.c]\n",
            "test",
        )
        .unwrap();
        let of = |n: &str| {
            let p = policy(Some(&config.forms[n].frame_ancestors));
            p.rsplit_once("; frame-ancestors ").unwrap().1.to_string()
        };
        assert_eq!(of("a"), "https://acme.example 'self'");
        assert_eq!(of("b"), "'none'");
        assert_eq!(of("c"), "'self'");
        assert!(policy(None).ends_with("; frame-ancestors 'self'"));
    }

    #[test]
    fn a_page_is_text_html() {
        let with = |t: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(t));
            is_page(&h)
        };
        assert!(with("text/html; charset=utf-8"));
        assert!(with("Text/HTML"));
        assert!(!with("application/json"));
        assert!(!with("text/htmlx"));
        assert!(!is_page(&HeaderMap::new()));
    }
}
