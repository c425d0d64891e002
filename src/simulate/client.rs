//! The simulator's HTTP: the server's address as given, and each planned
//! request sent as its sender would send it (a script's JSON with its key
//! header, a second handler's form post, a browser's plain post of the form
//! page, redirected to the thank-you page), its answer read as it is.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

use super::form::{self, PageView};
use super::payload;
use super::scenario::{Channel, Step};
use crate::i18n::Lang;
use crate::model::Millis;
use crate::server::submit::REPLAYED;
use crate::t;

/// What a browser's plain post accepts.
const ACCEPT_HTML: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// The longest answer read (the server's are a few hundred bytes; its form
/// page a few kilobytes).
const READ_LIMIT: u64 = 1 << 20;

/// The server's address: `http://host:port`, and a path prefix when it
/// stands behind one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Without a trailing `/`.
    base: String,
    /// The form named by an address that points at one (`…/f/contact`).
    pub form: Option<String>,
}

/// Why an address cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadUrl {
    #[error("not an http:// address")]
    NotHttp,
    #[error("https is not spoken")]
    Https,
    #[error("not a usable address")]
    Invalid,
    #[error("has a query or a fragment")]
    Query,
}

impl BadUrl {
    pub fn message(&self, lang: Lang, url: &str) -> String {
        let url = crate::sanitize::inline(url, 80);
        match self {
            BadUrl::NotHttp => t!(lang, "simulate.url.not_http", url = url),
            BadUrl::Https => t!(lang, "simulate.url.https", url = url),
            BadUrl::Invalid => t!(lang, "simulate.url.invalid", url = url),
            BadUrl::Query => t!(lang, "simulate.url.query", url = url),
        }
    }
}

impl Target {
    /// `http://127.0.0.1:8080`, `http://intake.example/forms/`,
    /// `http://127.0.0.1:8080/f/contact` (the form named too).
    pub fn parse(text: &str) -> Result<Self, BadUrl> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("https://") {
            return Err(BadUrl::Https);
        }
        let Some(rest) = lower
            .starts_with("http://")
            .then(|| &text["http://".len()..])
        else {
            return Err(BadUrl::NotHttp);
        };
        if rest.contains(['?', '#']) {
            return Err(BadUrl::Query);
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty()
            || authority.contains('@')
            || authority.ends_with(':')
            || authority
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(BadUrl::Invalid);
        }
        let parsed: ureq::http::uri::Authority = authority.parse().map_err(|_| BadUrl::Invalid)?;
        // A port must be one (`Authority` takes any digits).
        let after_host = authority
            .rsplit_once(']')
            .map_or(authority, |(_, rest)| rest);
        let port_ok = after_host
            .rsplit_once(':')
            .is_none_or(|(_, port)| port.parse::<u16>().is_ok_and(|p| p > 0));
        if parsed.host().is_empty() || !port_ok {
            return Err(BadUrl::Invalid);
        }
        if path.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(BadUrl::Invalid);
        }
        let mut path = path.trim_end_matches('/').to_string();
        let mut named = None;
        if let Some((prefix, name)) = path.rsplit_once("/f/")
            && !name.is_empty()
            && !name.contains('/')
        {
            // A form name as the server's routes take it.
            crate::intake::key::valid_key(name).map_err(|_| BadUrl::Invalid)?;
            named = Some(name.to_string());
            path = prefix.to_string();
        }
        let base = format!("http://{authority}{path}");
        base.parse::<ureq::http::Uri>()
            .map_err(|_| BadUrl::Invalid)?;
        Ok(Self { base, form: named })
    }

    /// The address of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The form's address, `…/f/{form}`.
    pub fn form_url(&self, form: &str) -> String {
        self.url(&format!("/f/{form}"))
    }
}

/// The answer to one post.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Http {
        status: u16,
        /// `Idempotent-Replayed: true`: the stored answer of the key.
        replayed: bool,
        /// The receipt number it names (a JSON body's `receipt`, or the
        /// thank-you page's `?receipt=`).
        receipt: Option<u64>,
    },
    /// No answer: refused, reset, timed out.
    None(String),
}

/// What sending one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    pub answer: Answer,
    /// Pages fetched for it (the form page, the thank-you page).
    pub pages: u32,
    /// Of which not answered 200.
    pub pages_failed: u32,
}

/// Why the form cannot be simulated against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreachable {
    /// No answer at all.
    NoAnswer(String),
    /// The server answered the form page with this status.
    Status(u16),
    /// The page has no form fields.
    NoFields,
}

/// Sends the planned requests of one run to one form.
pub struct Client {
    agent: ureq::Agent,
    target: Target,
    form: String,
    /// The wall time of the run's start: what the browser's clock adds to
    /// a script's body is counted from it.
    start_ms: Millis,
    /// The `_key` of each page view (visitor, view) once fetched.
    pages: Mutex<HashMap<(u64, u8), Option<String>>>,
}

impl Client {
    pub fn new(target: Target, form: &str, start_ms: Millis, timeout: Duration) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(timeout.min(Duration::from_secs(3))))
            .timeout_global(Some(timeout))
            // One kept connection for each sender thread (ureq keeps 3).
            .max_idle_connections(super::SENDERS)
            .max_idle_connections_per_host(super::SENDERS)
            .user_agent(concat!(
                "receipt-review-simulate/",
                env!("CARGO_PKG_VERSION")
            ))
            .build()
            .into();
        Self {
            agent,
            target,
            form: form.to_string(),
            start_ms,
            pages: Mutex::new(HashMap::new()),
        }
    }

    /// The form's page: whether the form is there, and what it takes.
    pub fn open_form(&self) -> Result<PageView, Unreachable> {
        let response = self
            .agent
            .get(self.target.form_url(&self.form))
            .header("accept", ACCEPT_HTML)
            .call()
            .map_err(|e| Unreachable::NoAnswer(e.to_string()))?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(Unreachable::Status(status));
        }
        let html = read_body(response).map_err(Unreachable::NoAnswer)?;
        let view = form::read_page(&html);
        if view.shape.fields.is_empty() {
            return Err(Unreachable::NoFields);
        }
        Ok(view)
    }

    /// Sends one planned request.
    pub fn send(&self, step: &Step) -> Sent {
        let mut sent = Sent {
            answer: Answer::None(String::new()),
            pages: 0,
            pages_failed: 0,
        };
        let url = self.target.form_url(&self.form);
        let request = match &step.channel {
            Channel::Script { key, noise } => {
                let body = payload::json(&step.fields, Some(noise), self.start_ms);
                let mut r = self
                    .agent
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json");
                if let Some(k) = key {
                    r = r.header("idempotency-key", format!("\"{k}\""));
                }
                r.send(body)
            }
            Channel::Handler { key } => {
                let body = payload::urlencoded(&step.fields, None);
                let mut r = self
                    .agent
                    .post(&url)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .header("accept", "*/*");
                if let Some(k) = key {
                    r = r.header("idempotency-key", format!("\"{k}\""));
                }
                r.send(body)
            }
            Channel::Page { view } => {
                let key = match self.page_key(step.visitor, *view, &mut sent) {
                    Ok(key) => key,
                    Err(why) => {
                        sent.answer = Answer::None(why);
                        return sent;
                    }
                };
                let body = payload::urlencoded(&step.fields, key.as_deref());
                self.agent
                    .post(&url)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .header("accept", ACCEPT_HTML)
                    .send(body)
            }
        };
        let response = match request {
            Ok(r) => r,
            Err(e) => {
                sent.answer = Answer::None(e.to_string());
                return sent;
            }
        };
        let status = response.status().as_u16();
        let replayed = response
            .headers()
            .get(REPLAYED)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
        let location = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        // Read to its end, so that the connection goes back to the pool.
        let body = read_body(response).ok();
        let receipt = match &location {
            Some(l) if status == 303 => form::receipt_of_location(l),
            _ => body.as_deref().and_then(receipt_of_body),
        };
        sent.answer = Answer::Http {
            status,
            replayed,
            receipt,
        };
        if status == 303
            && let Some(l) = location
        {
            // The browser follows to the thank-you page.
            sent.pages += 1;
            let url = if l.starts_with('/') {
                self.target.url(&l)
            } else {
                l
            };
            let ok = self
                .agent
                .get(url)
                .header("accept", ACCEPT_HTML)
                .call()
                .is_ok_and(|r| r.status().as_u16() == 200 && read_body(r).is_ok());
            sent.pages_failed += u32::from(!ok);
        }
        sent
    }

    /// The key of a visitor's page view: fetched with the page the first
    /// time, kept for a second click or the back button.
    fn page_key(&self, visitor: u64, view: u8, sent: &mut Sent) -> Result<Option<String>, String> {
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(key) = pages.get(&(visitor, view)) {
            return Ok(key.clone());
        }
        drop(pages);
        sent.pages += 1;
        let fetched = self.open_form();
        let view_key = match fetched {
            Ok(page) => page.key,
            Err(e) => {
                sent.pages_failed += 1;
                return Err(match e {
                    Unreachable::NoAnswer(why) => why,
                    Unreachable::Status(s) => format!("the form page answered {s}"),
                    Unreachable::NoFields => "the form page has no fields".into(),
                });
            }
        };
        pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        Ok(pages.entry((visitor, view)).or_insert(view_key).clone())
    }
}

fn read_body(response: ureq::http::Response<ureq::Body>) -> Result<String, String> {
    response
        .into_body()
        .with_config()
        .limit(READ_LIMIT)
        .read_to_string()
        .map_err(|e| e.to_string())
}

/// `receipt` of a JSON answer (201, 202, and the problems that name one).
/// The receipt a JSON answer names, or the `data-receipt` of a page's.
fn receipt_of_body(body: &str) -> Option<u64> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        return v.get("receipt")?.as_u64();
    }
    let rest = &body[body.find(" data-receipt=\"")? + 15..];
    rest[..rest.find('"')?].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_of_a_server() {
        let t = Target::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(t.form_url("contact"), "http://127.0.0.1:8080/f/contact");
        assert_eq!(t.form, None);
        let t = Target::parse("HTTP://intake.example/forms/").unwrap();
        assert_eq!(t.form_url("c"), "http://intake.example/forms/f/c");
        let t = Target::parse("http://[::1]:9000/f/contact").unwrap();
        assert_eq!(t.form.as_deref(), Some("contact"));
        assert_eq!(t.url("/healthz"), "http://[::1]:9000/healthz");
    }

    #[test]
    fn addresses_that_cannot_be_used() {
        assert_eq!(Target::parse("https://acme.example"), Err(BadUrl::Https));
        assert_eq!(Target::parse("127.0.0.1:8080"), Err(BadUrl::NotHttp));
        assert_eq!(Target::parse("ftp://x"), Err(BadUrl::NotHttp));
        assert_eq!(Target::parse("http://"), Err(BadUrl::Invalid));
        assert_eq!(Target::parse("http://h:99999"), Err(BadUrl::Invalid));
        assert_eq!(Target::parse("http://h:"), Err(BadUrl::Invalid));
        assert_eq!(Target::parse("http://u@h"), Err(BadUrl::Invalid));
        assert_eq!(Target::parse("http://h/a b"), Err(BadUrl::Invalid));
        assert_eq!(Target::parse("http://h/?x=1"), Err(BadUrl::Query));
        let lang = Lang::En;
        assert!(
            BadUrl::Https
                .message(lang, "https://x\u{1b}[2J")
                .contains("\\x1b"),
            "the address is shown inert"
        );
    }

    #[test]
    fn receipt_numbers_in_answers() {
        assert_eq!(
            receipt_of_body(r#"{"receipt":12,"state":"completed"}"#),
            Some(12)
        );
        assert_eq!(
            receipt_of_body(r#"{"type":"about:blank","status":422,"receipt":3}"#),
            Some(3)
        );
        assert_eq!(receipt_of_body(r#"{"status":429}"#), None);
        assert_eq!(
            receipt_of_body("<div id=\"intake-notice\" role=\"alert\" data-receipt=\"12\">"),
            Some(12)
        );
        assert_eq!(receipt_of_body("<p>no number</p>"), None);
        assert_eq!(receipt_of_body("<html>"), None);
    }
}
