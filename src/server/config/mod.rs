//! The server's config file (`forms.toml`): the `[server]` table and one
//! `[forms.NAME]` table per form. Every value is checked when the file is
//! read; a bad one is one line naming the key and what it expected.

mod raw;
pub mod units;

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;

use super::clock::Clock;
use crate::i18n;
use crate::intake::key::valid_key;
use crate::model::Millis;
use crate::sanitize::inline;
use crate::t;
pub use units::Rate;

/// The whole config.
#[derive(Clone, Debug)]
pub struct Config {
    pub server: ServerSettings,
    /// By the name in the route `/f/{name}`.
    pub forms: BTreeMap<String, Arc<FormConfig>>,
    /// The time the server goes by: never from the file; the system's,
    /// unless a test sets its own.
    pub clock: Clock,
    /// How often the forms' `retention` is applied after the run at start:
    /// never from the file; a day, unless a test sets its own.
    pub retention_every: Duration,
}

/// `[server]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSettings {
    pub listen: SocketAddr,
    /// Where `GET /metrics` is served, on a listener of its own; `None`: nowhere.
    pub metrics: Option<SocketAddr>,
    /// The largest request body accepted, in bytes (413 beyond).
    pub body_limit: usize,
    /// Per client address and form (429 beyond); `None`: no limit.
    pub rate: Option<Rate>,
    /// From a connection's start, or the end of its last request, until the
    /// next request's headers are in: a slow or stalled client is dropped.
    pub header_timeout: Duration,
    /// The longest pause while a request body arrives (408 beyond).
    pub body_timeout: Duration,
    /// The longest a request may take in all (408 beyond).
    pub request_timeout: Duration,
    /// On SIGTERM, how long the requests in progress may still take; the
    /// connections still open after it are cut.
    pub shutdown_grace: Duration,
    /// The proxies in front of the server: from these, the client is the
    /// address their `X-Forwarded-For` or `Forwarded` names.
    pub trusted_proxies: Vec<IpNet>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            metrics: None,
            body_limit: 64 * 1024,
            rate: Some(Rate {
                count: 30,
                per: Duration::from_secs(60),
            }),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
            trusted_proxies: Vec::new(),
        }
    }
}

/// `[forms.NAME]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormConfig {
    pub name: String,
    /// The scope its receipts are stored under (default: the form's name).
    pub scope: String,
    /// The page's heading and title (default: the form's name).
    pub title: String,
    /// A label for a field, where the catalogue's (for `name`, `email`,
    /// `message`, ...) or the field's own name would not do.
    pub labels: BTreeMap<String, String>,
    /// The fields a visitor fills in, in the file's order, with their
    /// longest value in characters.
    pub fields: Vec<FieldRule>,
    pub required: Vec<String>,
    pub extra: Extra,
    pub key: KeyPolicy,
    /// Exact copies of one visitor's fields within this time of a stored
    /// receipt get its answer and are not stored again; 0: off.
    pub window_ms: Millis,
    /// How long its receipts are kept: `serve` erases older ones at start
    /// and once a day (see `super::retention`); `None`: kept for ever.
    pub retention: Option<Retention>,
    /// A field no person fills in; a filled one is stored and answered like
    /// a success (the analysis flags it).
    pub honeypot: Option<String>,
    /// Origins whose pages may post from a browser (CORS); when there are
    /// any, a browser's post for another page is refused.
    pub origins: Vec<String>,
    /// Who may show the form's pages in a frame, as the pages'
    /// `frame-ancestors` says it: origins and `'self'`; empty: nobody.
    pub frame_ancestors: Vec<String>,
    pub action: Option<Action>,
}

/// A form's `retention`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retention {
    /// As the file spells it (`2y`), for the review log's note.
    pub period: String,
    pub ms: Millis,
}

/// The shortest retention: it is applied once a day, and a shorter one
/// would erase receipts still within a form's window or its action.
pub const MIN_RETENTION_MS: Millis = crate::erase::period::DAY_MS;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRule {
    pub name: String,
    pub max_chars: usize,
}

/// What happens to a field the form does not list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    /// Stored, within the longest limit of the listed fields.
    Keep,
    /// Left out of the stored payload.
    Drop,
    /// The submission is refused (422 naming the fields).
    Refuse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPolicy {
    Optional,
    /// A submission without a key is refused (400).
    Required,
}

/// The business action: the receipt is posted to a webhook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub webhook: String,
    pub timeout: Duration,
}

/// The longest value of an unlisted field kept by a form that lists none.
pub const DEFAULT_EXTRA_MAX_CHARS: usize = 5000;

impl FormConfig {
    /// The longest value accepted for `field`, or `None` when the form does
    /// not take it (an unlisted field under `extra = "drop"` or `"refuse"`).
    pub fn max_chars(&self, field: &str) -> Option<usize> {
        if let Some(rule) = self.fields.iter().find(|r| r.name == field) {
            return Some(rule.max_chars);
        }
        if self.honeypot.as_deref() == Some(field) {
            return Some(self.extra_max_chars());
        }
        (self.extra == Extra::Keep).then(|| self.extra_max_chars())
    }

    /// The limit of an unlisted field that is kept: the longest listed one.
    pub fn extra_max_chars(&self) -> usize {
        self.fields
            .iter()
            .map(|r| r.max_chars)
            .max()
            .unwrap_or(DEFAULT_EXTRA_MAX_CHARS)
    }

    pub fn is_listed(&self, field: &str) -> bool {
        self.fields.iter().any(|r| r.name == field)
    }
}

/// How often `serve` applies the forms' retention after its run at start.
pub const RETENTION_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// A config that cannot be used: one line, naming the file and the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Config {
    /// Reads and checks the file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let shown = crate::storage::error::show_path(path);
        let text = std::fs::read_to_string(path).map_err(|e| {
            ConfigError(t!(
                i18n::current(),
                "serve.config.unreadable",
                path = shown,
                error = e
            ))
        })?;
        Self::parse(&text, &shown)
    }

    /// Checks a config's text; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ConfigError> {
        let lang = i18n::current();
        let raw: raw::RawConfig = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1);
            let problem = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            ConfigError(t!(
                lang,
                "serve.config.syntax",
                path = origin,
                line = line,
                problem = inline(&problem, 200)
            ))
        })?;
        let bad = |key: String, why: String| {
            ConfigError(t!(
                lang,
                "serve.config.bad_value",
                path = origin,
                key = key,
                why = why
            ))
        };
        let server = server_settings(raw.server.unwrap_or_default(), &bad)?;
        if raw.forms.is_empty() {
            return Err(ConfigError(t!(
                lang,
                "serve.config.no_forms",
                path = origin
            )));
        }
        let mut forms: BTreeMap<String, Arc<FormConfig>> = BTreeMap::new();
        for (name, form) in raw.forms {
            let checked = form_config(&name, form, &bad)?;
            if let Some(other) = forms
                .values()
                .find(|f| f.scope == checked.scope && f.retention != checked.retention)
            {
                return Err(bad(
                    format!("[forms.{}] retention", shown(&name)),
                    t!(
                        lang,
                        "serve.config.why.retention_shared",
                        form = shown(&other.name),
                        scope = shown(&checked.scope)
                    ),
                ));
            }
            forms.insert(name, Arc::new(checked));
        }
        Ok(Self {
            server,
            forms,
            clock: Clock::system(),
            retention_every: RETENTION_EVERY,
        })
    }
}

type Bad<'a> = &'a dyn Fn(String, String) -> ConfigError;

fn shown(text: &str) -> String {
    inline(text, 60)
}

fn server_settings(raw: raw::RawServer, bad: Bad<'_>) -> Result<ServerSettings, ConfigError> {
    let lang = i18n::current();
    let mut s = ServerSettings::default();
    let key = |name: &str| format!("[server] {name}");
    if let Some(text) = raw.listen {
        s.listen = text.trim().parse().map_err(|_| {
            bad(
                key("listen"),
                t!(lang, "serve.config.why.listen", text = shown(&text)),
            )
        })?;
    }
    if let Some(text) = raw.metrics {
        let addr: SocketAddr = text.trim().parse().map_err(|_| {
            bad(
                key("metrics"),
                t!(lang, "serve.config.why.listen", text = shown(&text)),
            )
        })?;
        if addr == s.listen && addr.port() != 0 {
            return Err(bad(
                key("metrics"),
                t!(lang, "serve.config.why.metrics_public").into(),
            ));
        }
        s.metrics = Some(addr);
    }
    if let Some(text) = raw.body_limit {
        s.body_limit = units::size(&text).ok_or_else(|| {
            bad(
                key("body_limit"),
                t!(lang, "serve.config.why.size", text = shown(&text)),
            )
        })?;
    }
    if let Some(text) = raw.rate {
        s.rate = units::rate(&text).ok_or_else(|| {
            bad(
                key("rate"),
                t!(lang, "serve.config.why.rate", text = shown(&text)),
            )
        })?;
    }
    for (name, value, slot) in [
        ("header_timeout", raw.header_timeout, &mut s.header_timeout),
        ("body_timeout", raw.body_timeout, &mut s.body_timeout),
        (
            "request_timeout",
            raw.request_timeout,
            &mut s.request_timeout,
        ),
        ("shutdown_grace", raw.shutdown_grace, &mut s.shutdown_grace),
    ] {
        if let Some(text) = value {
            *slot = units::duration(&text)
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    bad(
                        key(name),
                        t!(lang, "serve.config.why.timeout", text = shown(&text)),
                    )
                })?;
        }
    }
    for text in raw.trusted_proxies.unwrap_or_default() {
        let net = proxy_net(&text).ok_or_else(|| {
            bad(
                key("trusted_proxies"),
                t!(lang, "serve.config.why.proxy", text = shown(&text)),
            )
        })?;
        s.trusted_proxies.push(net);
    }
    Ok(s)
}

/// `10.0.0.0/8`, `::1/128` or a bare address (that one address).
fn proxy_net(text: &str) -> Option<IpNet> {
    let text = text.trim();
    match text.parse::<IpNet>() {
        Ok(net) => Some(net.trunc()),
        Err(_) => text.parse::<IpAddr>().ok().map(IpNet::from),
    }
}

fn form_config(name: &str, raw: raw::RawForm, bad: Bad<'_>) -> Result<FormConfig, ConfigError> {
    let lang = i18n::current();
    let key = |k: &str| format!("[forms.{}] {k}", shown(name));
    if valid_key(name).is_err() {
        return Err(bad(
            format!("[forms.{}]", shown(name)),
            t!(lang, "serve.config.why.form_name").to_string(),
        ));
    }
    let scope = raw.scope.unwrap_or_else(|| name.to_string());
    if scope.trim().is_empty() {
        return Err(bad(
            key("scope"),
            t!(lang, "serve.config.why.scope").to_string(),
        ));
    }
    let mut listed: Vec<(usize, FieldRule)> = Vec::new();
    for (field, max) in raw.fields.unwrap_or_default() {
        let at = field.span().start;
        let field = field.into_inner();
        if field.is_empty() || field == "_key" {
            return Err(bad(
                key("fields"),
                t!(lang, "serve.config.why.field_name", field = shown(&field)),
            ));
        }
        let max_chars = usize::try_from(max)
            .ok()
            .filter(|&m| m > 0)
            .ok_or_else(|| {
                bad(
                    format!("{} {}", key("fields"), shown(&field)),
                    t!(lang, "serve.config.why.field_limit", text = max),
                )
            })?;
        listed.push((
            at,
            FieldRule {
                name: field,
                max_chars,
            },
        ));
    }
    listed.sort_by_key(|(at, _)| *at);
    let fields: Vec<FieldRule> = listed.into_iter().map(|(_, r)| r).collect();
    let extra = match raw.extra.as_deref().map(str::trim) {
        None | Some("keep") => Extra::Keep,
        Some("drop") => Extra::Drop,
        Some("refuse") => Extra::Refuse,
        Some(other) => {
            return Err(bad(
                key("extra"),
                t!(lang, "serve.config.why.extra", text = shown(other)),
            ));
        }
    };
    let required = raw.required.unwrap_or_default();
    if extra != Extra::Keep
        && let Some(missing) = required
            .iter()
            .find(|f| !fields.iter().any(|r| &r.name == *f))
    {
        return Err(bad(
            key("required"),
            t!(
                lang,
                "serve.config.why.required_unlisted",
                field = shown(missing)
            ),
        ));
    }
    let key_policy = match raw.key.as_deref().map(str::trim) {
        None | Some("optional") => KeyPolicy::Optional,
        Some("required") => KeyPolicy::Required,
        Some(other) => {
            return Err(bad(
                key("key"),
                t!(lang, "serve.config.why.key", text = shown(other)),
            ));
        }
    };
    let window_ms = match raw.window {
        None => DEFAULT_WINDOW_MS,
        Some(text) => units::duration(&text)
            .ok_or_else(|| {
                bad(
                    key("window"),
                    t!(lang, "serve.config.why.duration", text = shown(&text)),
                )
            })?
            .as_millis() as Millis,
    };
    let retention = match raw.retention {
        None => None,
        Some(text) => {
            let period = text.trim().to_string();
            let ms = crate::erase::period_ms(&period)
                .filter(|&ms| ms >= MIN_RETENTION_MS)
                .ok_or_else(|| {
                    bad(
                        key("retention"),
                        t!(lang, "serve.config.why.retention", text = shown(&text)),
                    )
                })?;
            Some(Retention { period, ms })
        }
    };
    let honeypot = raw.honeypot.map(|h| h.trim().to_string());
    if let Some(h) = &honeypot
        && (h.is_empty() || fields.iter().any(|r| &r.name == h) || required.contains(h))
    {
        return Err(bad(
            key("honeypot"),
            t!(lang, "serve.config.why.honeypot", field = shown(h)),
        ));
    }
    let mut origins = Vec::new();
    for origin in raw.origins.unwrap_or_default() {
        let o = origin.trim().trim_end_matches('/').to_string();
        if !is_origin(&o) {
            return Err(bad(
                key("origins"),
                t!(lang, "serve.config.why.origin", text = shown(&origin)),
            ));
        }
        origins.push(o);
    }
    let title = match raw.title.map(|t| t.trim().to_string()) {
        None => name.to_string(),
        Some(t) if t.is_empty() => {
            return Err(bad(
                key("title"),
                t!(lang, "serve.config.why.title").to_string(),
            ));
        }
        Some(t) => t,
    };
    let mut labels = BTreeMap::new();
    for (field, label) in raw.labels.unwrap_or_default() {
        let label = label.trim().to_string();
        if !fields.iter().any(|r| r.name == field) {
            return Err(bad(
                key("labels"),
                t!(
                    lang,
                    "serve.config.why.label_unlisted",
                    field = shown(&field)
                ),
            ));
        }
        if label.is_empty() {
            return Err(bad(
                format!("{} {}", key("labels"), shown(&field)),
                t!(lang, "serve.config.why.title").to_string(),
            ));
        }
        labels.insert(field, label);
    }
    let frame_ancestors = match raw.frame_ancestors {
        None => vec![SELF.to_string()],
        Some(list) => {
            let mut sources = Vec::new();
            for text in list {
                let t = text.trim().trim_end_matches('/');
                if t != SELF && !is_origin(t) {
                    return Err(bad(
                        key("frame_ancestors"),
                        t!(lang, "serve.config.why.frame_ancestor", text = shown(&text)),
                    ));
                }
                sources.push(t.to_string());
            }
            sources
        }
    };
    let action = match raw.action {
        None => None,
        Some(a) => {
            let webhook = a.webhook.trim().to_string();
            if !is_http_url(&webhook) {
                return Err(bad(
                    key("action.webhook"),
                    t!(lang, "serve.config.why.webhook", text = shown(&a.webhook)),
                ));
            }
            let timeout = match a.timeout {
                None => DEFAULT_ACTION_TIMEOUT,
                Some(text) => units::duration(&text)
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        bad(
                            key("action.timeout"),
                            t!(lang, "serve.config.why.timeout", text = shown(&text)),
                        )
                    })?,
            };
            Some(Action { webhook, timeout })
        }
    };
    Ok(FormConfig {
        name: name.to_string(),
        scope,
        title,
        labels,
        fields,
        required,
        extra,
        key: key_policy,
        window_ms,
        retention,
        honeypot,
        origins,
        frame_ancestors,
        action,
    })
}

/// The server's own origin, as a policy says it.
const SELF: &str = "'self'";

/// The analysis's default window (10 min: README, "How duplicates are found").
pub const DEFAULT_WINDOW_MS: Millis = 600_000;
pub const DEFAULT_ACTION_TIMEOUT: Duration = Duration::from_secs(5);

/// `https://acme.example` or `http://localhost:3000`: a scheme and a host
/// (and port), nothing after it: what a browser sends as `Origin`.
fn is_origin(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
    else {
        return false;
    };
    !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
}

/// A plain `http://host[:port]/path` URL (this build speaks no TLS).
fn is_http_url(text: &str) -> bool {
    text.strip_prefix("http://").is_some_and(|rest| {
        let host = rest.split('/').next().unwrap_or("");
        !host.is_empty() && !rest.chars().any(|c| c.is_whitespace() || c.is_control())
    })
}

#[cfg(test)]
mod tests;
