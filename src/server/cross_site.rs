//! Posts made for another site's page. A hostile page can make its
//! visitors' browsers post to a form (a plain HTML form needs no CORS), so
//! its spam would come from their own addresses, around the per-address
//! limit. A form that lists its `origins` takes posts only from those and
//! from the server's own form page; a form that lists none takes posts from
//! anywhere, as a form meant for scripts and other servers must.

use axum::http::{HeaderMap, HeaderName, StatusCode, header};

use super::config::FormConfig;
use super::problem::Problem;

const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");

/// Refuses (403) a post the browser made for a page of an origin `form`
/// does not list: its `Origin` names another site (or `null`, a page the
/// browser will not name), or, without an `Origin`, the browser says
/// `Sec-Fetch-Site: cross-site`.
pub fn check(form: &FormConfig, headers: &HeaderMap) -> Result<(), Problem> {
    if form.origins.is_empty() || allowed(form, headers) {
        Ok(())
    } else {
        Err(Problem::new(
            StatusCode::FORBIDDEN,
            "server.problem.cross_site.title",
            "server.problem.cross_site.detail",
        ))
    }
}

fn allowed(form: &FormConfig, headers: &HeaderMap) -> bool {
    let mut origins = headers.get_all(header::ORIGIN).iter().peekable();
    if origins.peek().is_none() {
        return !headers
            .get_all(SEC_FETCH_SITE)
            .iter()
            .any(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"));
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    origins.all(|origin| {
        origin
            .to_str()
            .is_ok_and(|origin| listed(form, origin) || is_own(origin, host))
    })
}

fn listed(form: &FormConfig, origin: &str) -> bool {
    form.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
}

/// The server's own page: the origin's host and port are the request's
/// `Host`. The scheme is left aside, since a proxy in front may speak TLS
/// to the browser and plain HTTP to this server.
fn is_own(origin: &str, host: Option<&str>) -> bool {
    let Some(host) = host.filter(|h| !h.is_empty()) else {
        return false;
    };
    origin
        .split_once("://")
        .is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Config;
    use axum::http::HeaderValue;

    fn form(origins: &str) -> FormConfig {
        let text = format!("[forms.f]\norigins = {origins}\n");
        let config = Config::parse(&text, "test").unwrap();
        config.forms["f"].as_ref().clone()
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn passes(form: &FormConfig, pairs: &[(&'static str, &'static str)]) -> bool {
        check(form, &headers(pairs)).is_ok()
    }

    #[test]
    fn only_listed_origins_and_the_servers_own_pass() {
        let f = form(r#"["https://acme.example", "http://localhost:3000"]"#);
        let host = ("host", "intake.acme.example");
        assert!(passes(&f, &[host, ("origin", "https://acme.example")]));
        assert!(passes(&f, &[host, ("origin", "HTTPS://ACME.example")]));
        assert!(passes(&f, &[host, ("origin", "http://localhost:3000")]));
        assert!(passes(
            &f,
            &[host, ("origin", "https://intake.acme.example")]
        ));
        assert!(passes(
            &f,
            &[host, ("origin", "http://intake.acme.example")]
        ));
        assert!(!passes(&f, &[host, ("origin", "https://evil.example")]));
        assert!(!passes(&f, &[host, ("origin", "null")]));
        assert!(!passes(&f, &[host, ("origin", "http://localhost:3001")]));
        assert!(!passes(&f, &[("origin", "https://intake.acme.example")]));
        // Two Origin lines: each must pass.
        assert!(!passes(
            &f,
            &[
                host,
                ("origin", "https://acme.example"),
                ("origin", "https://evil.example")
            ]
        ));
        let problem = check(&f, &headers(&[("origin", "https://evil.example")])).unwrap_err();
        assert_eq!(problem.status, StatusCode::FORBIDDEN);
    }

    #[test]
    fn without_an_origin_the_fetch_site_decides() {
        let f = form(r#"["https://acme.example"]"#);
        assert!(passes(&f, &[]));
        assert!(passes(&f, &[("sec-fetch-site", "same-origin")]));
        assert!(passes(&f, &[("sec-fetch-site", "none")]));
        assert!(!passes(&f, &[("sec-fetch-site", "cross-site")]));
        assert!(!passes(&f, &[("sec-fetch-site", "Cross-Site")]));
    }

    #[test]
    fn a_form_without_origins_takes_anything() {
        let f = form("[]");
        assert!(passes(&f, &[("origin", "https://evil.example")]));
        assert!(passes(&f, &[("origin", "null")]));
        assert!(passes(&f, &[("sec-fetch-site", "cross-site")]));
    }
}
