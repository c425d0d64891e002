//! The config file as TOML spells it, before any value is checked. Unknown
//! keys are refused (a misspelt `requried` must not pass silently).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    pub server: Option<RawServer>,
    #[serde(default)]
    pub forms: BTreeMap<String, RawForm>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawServer {
    pub listen: Option<String>,
    pub metrics: Option<String>,
    pub body_limit: Option<String>,
    pub rate: Option<String>,
    pub header_timeout: Option<String>,
    pub body_timeout: Option<String>,
    pub request_timeout: Option<String>,
    pub shutdown_grace: Option<String>,
    pub trusted_proxies: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawForm {
    pub scope: Option<String>,
    pub title: Option<String>,
    /// Field name → the label its page shows (and its messages name).
    pub labels: Option<BTreeMap<String, String>>,
    /// Field name → its longest value in characters. The keys' spans give
    /// the order the file lists them in (a form page shows them so).
    pub fields: Option<BTreeMap<Spanned<String>, i64>>,
    pub required: Option<Vec<String>>,
    pub extra: Option<String>,
    pub key: Option<String>,
    pub window: Option<String>,
    /// How long its receipts are kept (`2y`); absent: for ever.
    pub retention: Option<String>,
    pub honeypot: Option<String>,
    pub origins: Option<Vec<String>>,
    pub frame_ancestors: Option<Vec<String>>,
    pub action: Option<RawAction>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAction {
    pub webhook: String,
    pub timeout: Option<String>,
}
