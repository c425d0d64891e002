//! What `serve` counts for Prometheus: submissions by form and outcome, the actions running,
//! each request's latency by route, the writer's batches and commits, the requests the
//! rate limit refused, and the receipts a form's retention erased. Never a field's value: a form's name is the only text a label carries,
//! and it comes from the config.
//!
//! The `prometheus-client` crate (the Prometheus project's own Rust client): typed families of
//! counters and histograms in one registry, encoded as the OpenMetrics text Prometheus scrapes,
//! with no global state, so that each server (and each test) has its own. [`listener`] serves
//! them on an address of their own, never the public one.

pub mod listener;

use std::fmt::Write;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// What the server made of a submission.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Outcome {
    /// A new receipt.
    New,
    /// Its key's receipt answered again.
    Replay,
    /// An exact copy within the form's window, answered with the original's receipt.
    Absorbed,
    /// Its key came back with another body (409).
    Conflict,
    /// Its key's receipt is still being processed (202).
    Pending,
    /// Refused before anything was written (4xx, 5xx: see the status).
    Refused,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::New => "new",
            Outcome::Replay => "replay",
            Outcome::Absorbed => "absorbed",
            Outcome::Conflict => "conflict",
            Outcome::Pending => "pending",
            Outcome::Refused => "refused",
        }
    }
}

impl EncodeLabelValue for Outcome {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        encoder.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SubmissionLabels {
    form: String,
    outcome: Outcome,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FormLabels {
    form: String,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// The server's metrics, and the registry they are encoded from.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    submissions: Family<SubmissionLabels, Counter>,
    actions_running: Gauge,
    request_seconds: HistogramFamily<RouteLabels>,
    batch_size: Histogram,
    commit_seconds: Histogram,
    rate_limited: Family<FormLabels, Counter>,
    retention_erased: Family<FormLabels, Counter>,
}

fn latency_buckets() -> Histogram {
    // 0.5 ms to about 16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("receipt_review");
        let submissions = Family::default();
        registry.register(
            "submissions",
            "Submissions by form, what the server made of them, and the HTTP status answered",
            submissions.clone(),
        );
        let actions_running = Gauge::default();
        registry.register(
            "actions_running",
            "Receipts in flight whose form's action is running now",
            actions_running.clone(),
        );
        let request_seconds: HistogramFamily<RouteLabels> =
            Family::new_with_constructor(latency_buckets);
        registry.register(
            "request_duration_seconds",
            "Time from a request's arrival to its answer, by method and route",
            request_seconds.clone(),
        );
        let batch_size = Histogram::new(exponential_buckets(1.0, 2.0, 10));
        registry.register(
            "writer_batch_size",
            "Submissions the writer committed in one transaction",
            batch_size.clone(),
        );
        let commit_seconds = latency_buckets();
        registry.register(
            "writer_commit_duration_seconds",
            "Time the writer took to write and commit one batch durably",
            commit_seconds.clone(),
        );
        let rate_limited = Family::default();
        registry.register(
            "rate_limited",
            "Requests refused by the per-client rate limit (429), by form",
            rate_limited.clone(),
        );
        let retention_erased = Family::default();
        registry.register(
            "retention_erased",
            "Receipts erased because they were older than their form's retention, by form",
            retention_erased.clone(),
        );
        Self {
            registry,
            submissions,
            actions_running,
            request_seconds,
            batch_size,
            commit_seconds,
            rate_limited,
            retention_erased,
        }
    }
}

impl Metrics {
    /// One submission to `form`, answered with `status`.
    pub fn submission(&self, form: &str, outcome: Outcome, status: u16) {
        self.submissions
            .get_or_create(&SubmissionLabels {
                form: form.to_string(),
                outcome,
                status,
            })
            .inc();
    }

    /// One request to `form` refused by the rate limit.
    pub fn rate_limited(&self, form: &str) {
        self.rate_limited
            .get_or_create(&FormLabels {
                form: form.to_string(),
            })
            .inc();
    }

    /// `count` receipts of `form` erased by its retention (0: the form's
    /// count shown from the start, before anything is erased).
    pub fn retention_erased(&self, form: &str, count: u64) {
        self.retention_erased
            .get_or_create(&FormLabels {
                form: form.to_string(),
            })
            .inc_by(count);
    }

    /// A form's action starts on a receipt; the guard ends it when dropped.
    pub fn action_running(&self) -> ActionRunning<'_> {
        self.actions_running.inc();
        ActionRunning(&self.actions_running)
    }

    /// One request's time, by its method and route (the route's pattern, never its path).
    pub fn request(&self, method: &str, route: &str, took: Duration) {
        self.request_seconds
            .get_or_create(&RouteLabels {
                method: method.to_string(),
                route: route.to_string(),
            })
            .observe(took.as_secs_f64());
    }

    /// One batch the writer wrote, and how long writing and committing it took.
    pub fn batch(&self, size: usize, took: Duration) {
        self.batch_size.observe(size as f64);
        self.commit_seconds.observe(took.as_secs_f64());
    }

    /// The metrics in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// A running action, counted in `actions_running` until dropped.
pub struct ActionRunning<'a>(&'a Gauge);

impl Drop for ActionRunning<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_encoded_with_their_labels() {
        let m = Metrics::default();
        m.submission("contact", Outcome::New, 201);
        m.submission("contact", Outcome::New, 201);
        m.submission("contact", Outcome::Refused, 422);
        m.rate_limited("contact");
        m.retention_erased("contact", 0);
        m.retention_erased("contact", 3);
        m.batch(3, Duration::from_millis(2));
        {
            let _running = m.action_running();
            assert!(m.encode().contains("receipt_review_actions_running 1\n"));
        }
        let text = m.encode();
        assert!(
            text.contains(
                r#"receipt_review_submissions_total{form="contact",outcome="new",status="201"} 2"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"outcome="refused",status="422"} 1"#),
            "{text}"
        );
        assert!(text.contains(r#"receipt_review_rate_limited_total{form="contact"} 1"#));
        assert!(
            text.contains(r#"receipt_review_retention_erased_total{form="contact"} 3"#),
            "{text}"
        );
        assert!(
            text.contains("receipt_review_writer_batch_size_count 1\n"),
            "{text}"
        );
        assert!(
            text.contains("receipt_review_actions_running 0\n"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"));
    }
}
