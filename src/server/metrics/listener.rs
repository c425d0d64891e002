//! The metrics' own listener: `GET /metrics` and nothing else, on the address `[server]
//! metrics` names (say `127.0.0.1:9100`), never the public one, so that what the server
//! counts is not shown to the visitors it counts.

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use tokio::net::TcpListener;

use super::Metrics;

/// What Prometheus reads the OpenMetrics text as.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub fn router(metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state(metrics)
}

async fn scrape(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], metrics.encode())
}

/// Serves the metrics on `listener` until `stop` resolves.
pub async fn serve(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    stop: impl Future<Output = ()> + Send + 'static,
) {
    let _ = axum::serve(listener, router(metrics))
        .with_graceful_shutdown(stop)
        .await;
}
