//! What every handler shares: the config, the writer and the rate limiter.
//! It is built inside the server's runtime, which prunes the rate limiter's
//! memory of idle clients until the state is dropped.

use super::metrics::Metrics;
use std::collections::HashMap;
use std::sync::Arc;

use super::action::Webhook;
use super::config::{Config, FormConfig};
use super::rate::RateLimiter;
use super::writer::WriterHandle;

#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

#[derive(Debug)]
pub struct Shared {
    pub config: Config,
    pub writer: WriterHandle,
    pub rate: RateLimiter,
    /// Each form's webhook client, by form name, for the server's life.
    pub webhooks: HashMap<String, Webhook>,
    /// What the server counts (served only where `[server] metrics` says).
    pub metrics: Arc<Metrics>,
}

impl AppState {
    pub fn new(config: Config, writer: WriterHandle, metrics: Arc<Metrics>) -> Self {
        let rate = RateLimiter::new(config.server.rate);
        let webhooks = config
            .forms
            .iter()
            .filter_map(|(name, form)| Some((name.clone(), Webhook::new(form.action.as_ref()?))))
            .collect();
        Self(Arc::new(Shared {
            config,
            writer,
            rate,
            webhooks,
            metrics,
        }))
    }

    /// The form of the route `/f/{name}`.
    pub fn form(&self, name: &str) -> Option<&Arc<FormConfig>> {
        self.0.config.forms.get(name)
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}
