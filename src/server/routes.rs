//! The routes of README's "The intake server" and the layers around them: CORS from the
//! forms' origins, the request and body timeouts, problem+json for every
//! bare error, a plain form's refusals as pages, the headers every answer
//! and every page gets, and the end of a connection whose body was refused.

use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header, request::Parts};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

use super::config::Config;
use super::form_path::form_name;
use super::problem::{answer_problems, not_found};
use super::state::AppState;
use super::{client, log, lookup, page_headers, pages_route, plain_form, submit};

pub fn router(state: AppState) -> Router {
    let settings = state.config.server.clone();
    let cors = cors(&state.config);
    Router::new()
        .route("/healthz", get(healthz))
        .route(
            "/f/{form}",
            get(pages_route::form_page).post(submit::submit),
        )
        .route("/f/{form}/thanks", get(pages_route::thanks_page))
        .route("/intake.js", get(pages_route::intake_js))
        .route("/f/{form}/receipts/{key}", get(lookup::lookup))
        .fallback(not_found)
        .layer(RequestBodyTimeoutLayer::new(settings.body_timeout))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            settings.request_timeout,
        ))
        .layer(cors)
        .layer(middleware::from_fn(answer_problems))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            plain_form::refusal_pages,
        ))
        .layer(middleware::map_response_with_state(
            state.clone(),
            page_headers::add,
        ))
        .layer(middleware::from_fn(close_after_refused_body))
        .layer(middleware::from_fn_with_state(state.clone(), observed))
        .with_state(state)
}

/// Counts each request's time by its method and route, and logs one event for it: the form
/// (a form of the config, never a name a client made up), the status, the receipt answered,
/// the latency and the client's address (behind `trusted_proxies`, the one they name). The
/// route is its pattern (`/f/{form}`), never the path a client sent.
async fn observed(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let started = std::time::Instant::now();
    let (parts, body) = request.into_parts();
    let client = client::of_request(&parts, &state.config.server.trusted_proxies);
    let form = form_name(parts.uri.path())
        .filter(|name| state.form(name).is_some())
        .map(str::to_string);
    let request = Request::from_parts(parts, body);
    // A method a client made up is no label of its own.
    let method = match *request.method() {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    };
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_string();
    let response = next.run(request).await;
    let took = started.elapsed();
    state.metrics.request(method, &route, took);
    let receipt = response
        .extensions()
        .get::<log::AnsweredReceipt>()
        .map(|r| r.0);
    tracing::info!(
        target: "receipt_review::request",
        method,
        route = route.as_str(),
        form = form.as_deref(),
        status = response.status().as_u16(),
        receipt,
        latency_ms = took.as_secs_f64() * 1000.0,
        client = %client,
        "request"
    );
    response
}

/// A body refused as too large, or that stopped arriving, is left unread
/// on the connection: the connection cannot carry another request, so the
/// answer says it ends (`Connection: close`), and the rest of the body is
/// thrown away while it closes (see `super::linger`).
async fn close_after_refused_body(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    if matches!(
        response.status(),
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::REQUEST_TIMEOUT
    ) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

async fn healthz() -> &'static str {
    "ok\n"
}

/// A browser page of an origin a form lists may post to that form and read
/// the answer; no other origin may.
fn cors(config: &Config) -> CorsLayer {
    let forms = config.forms.clone();
    let allowed = move |origin: &HeaderValue, parts: &Parts| {
        let Some(name) = form_name(parts.uri.path()) else {
            return false;
        };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        forms
            .get(name)
            .is_some_and(|f| f.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)))
    };
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(allowed))
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([
            header::CONTENT_TYPE,
            header::ACCEPT,
            HeaderName::from_static(super::key_header::HEADER),
        ])
        .expose_headers([
            header::RETRY_AFTER,
            HeaderName::from_static(submit::REPLAYED),
        ])
        .max_age(std::time::Duration::from_secs(600))
}
