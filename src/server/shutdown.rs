//! Stopping: SIGTERM or Ctrl-C stops taking connections; the requests in
//! progress have up to `shutdown_grace` to finish (see [`super::connections`]),
//! then the writer commits what is queued, and the process ends.

/// Resolves at the first SIGTERM or Ctrl-C (SIGINT).
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
