//! `GET /f/{form}` and `GET /f/{form}/thanks`: the form's page and the page
//! a plain form's post is redirected to (303). Their HTML is rendered by the
//! page module; until it is wired here they answer a minimal page.

use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Response};

use super::problem::not_found;
use super::state::AppState;

pub async fn form_page(State(app): State<AppState>, Path(form): Path<String>) -> Response {
    if app.form(&form).is_none() {
        return not_found().await.into_response();
    }
    Html("form page").into_response()
}

pub async fn thanks_page(State(app): State<AppState>, Path(form): Path<String>) -> Response {
    if app.form(&form).is_none() {
        return not_found().await.into_response();
    }
    Html("form page").into_response()
}
