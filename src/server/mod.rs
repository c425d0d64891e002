//! The intake server (`receipt-review serve DB --config forms.toml`): the
//! intake protocol over HTTP, for a web form's page, a plain HTML form or a
//! site's own script, writing the receipts database through the crate's own
//! store, so that the screen, `report` and `serve` share one definition of it.
//!
//! axum on tokio and hyper (served through hyper-util), with tower-http's
//! timeouts and CORS: the most used and best kept Rust HTTP stack. The
//! pieces, one purpose each:
//! - [`config`]: `forms.toml`, checked when read;
//! - [`routes`]: the routes README's "The intake server" lists and the layers around them;
//! - [`submit`]: `POST /f/{form}`, reading its body ([`body`]), its key
//!   ([`key_header`]) and checking its fields ([`fields`]);
//! - [`writer`]: the one thread that commits, batching what is queued into
//!   one durable transaction (group commit);
//! - [`lookup`]: `GET /f/{form}/receipts/{key}`;
//! - [`problem`]: every refusal as problem+json;
//! - [`connections`]: accepting connections, hyper's limits on each (the
//!   head's size, the header timeout that drops slow clients) and cutting
//!   them at shutdown; [`linger`]: closing one without losing its answer;
//! - [`rate`]: the per-client rate limit; [`client`]: who a request is
//!   from, behind trusted proxies too; [`cross_site`]: posts for other
//!   sites' pages; [`page_headers`]: what every answer and page carries;
//! - [`action`]: a form's webhook; [`shutdown`]: the signals that stop it;
//! - [`retention`]: a form's `retention`, erasing what is older at start and
//!   once a day;
//! - [`metrics`]: what it counts, served for Prometheus on a listener of its own.

pub mod action;
pub mod body;
pub mod client;
pub mod clock;
pub mod config;
pub mod connections;
pub mod cross_site;
pub mod fields;
pub mod fingerprint;
mod form_path;
pub mod job;
pub mod key_header;
pub mod language;
pub mod linger;
pub mod log;
pub mod lookup;
pub mod metrics;
pub mod page;
pub mod page_headers;
pub mod pages_route;
pub mod plain_form;
pub mod problem;
pub mod rate;
pub mod retention;
pub mod routes;
pub mod shutdown;
pub mod state;
pub mod submit;
pub mod writer;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use config::{
    Action, Config, ConfigError, Extra, FieldRule, FormConfig, KeyPolicy, ServerSettings,
};
use metrics::Metrics;
use retention::Retention;
use state::AppState;
use writer::{FormWindow, Writer};

use crate::intake::store::{IntakeStore, StoreError};
use crate::storage::Location;
use crate::storage::intake::{IntakeMode, OpenError};
use crate::t;

/// Input `serve` cannot use: a database it cannot write, a config it cannot
/// read (the command exits 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// A server bound to its address, its database open, not yet serving.
pub struct Bound {
    listener: TcpListener,
    /// `GET /metrics`'s own listener, when the config names one.
    metrics_listener: Option<TcpListener>,
    state: AppState,
    writer: Writer,
    /// The forms' retention, when a form has one.
    retention: Option<Retention>,
}

/// Opens the database, starts the writer and binds the config's address
/// (port 0: any free port; see [`Bound::local_addr`]).
pub async fn bind(db: &Location, config: Config) -> anyhow::Result<Bound> {
    // The database's client blocks (it runs its own runtime): it is opened
    // off this runtime's task.
    let metrics = Arc::new(Metrics::default());
    let writer = tokio::task::block_in_place(|| open_writer(db, &config, metrics.clone()))?;
    let listener = listen_on(config.server.listen).await?;
    let metrics_listener = match config.server.metrics {
        Some(addr) => Some(listen_on(addr).await?),
        None => None,
    };
    let retention = Retention::of(db, &config, metrics.clone());
    let state = AppState::new(config, writer.handle.clone(), metrics);
    Ok(Bound {
        listener,
        metrics_listener,
        state,
        writer,
        retention,
    })
}

async fn listen_on(address: SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(address).await.with_context(|| {
        t!(
            crate::i18n::current(),
            "serve.log.cannot_listen",
            address = address
        )
    })
}

/// Opens the database and starts its one writer, which remembers the
/// receipts within each of `config`'s forms' windows.
pub fn open_writer(
    db: &Location,
    config: &Config,
    metrics: Arc<Metrics>,
) -> anyhow::Result<Writer> {
    let store = IntakeStore::open_at(db, IntakeMode::Serve).map_err(|e| match e {
        StoreError::Open(OpenError::Refused(message)) => anyhow::Error::new(Refused(message)),
        e => anyhow::anyhow!("{e}"),
    })?;
    let windows: Vec<FormWindow> = config
        .forms
        .values()
        .map(|f| FormWindow {
            scope: f.scope.clone(),
            window_ms: f.window_ms,
            honeypot: f.honeypot.clone(),
        })
        .collect();
    Writer::start(store, &windows, config.clock.clone(), metrics)
}

impl Bound {
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or(self.state.config.server.listen)
    }

    /// Where `GET /metrics` is served, when it is.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
    }

    /// Serves until `stop` resolves, then gives the requests in progress up
    /// to the shutdown grace, cuts the connections still open, and lets the
    /// writer commit what is queued. The forms' retention is applied at once
    /// and then daily meanwhile.
    pub async fn run(self, stop: impl Future<Output = ()> + Send + 'static) -> anyhow::Result<()> {
        let Bound {
            listener,
            metrics_listener,
            state,
            writer,
            retention,
        } = self;
        let settings = state.config.server.clone();
        let app = routes::router(state.clone());
        // One stop for both listeners.
        let (stopped, mut told) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            stop.await;
            let _ = stopped.send(true);
        });
        let mut metrics_told = told.clone();
        let metrics = metrics_listener.map(|listener| {
            tokio::spawn(metrics::listener::serve(
                listener,
                state.metrics.clone(),
                async move {
                    let _ = metrics_told.wait_for(|s| *s).await;
                },
            ))
        });
        drop(state);
        let retention = retention.map(|job| job.spawn(told.clone()));
        let stop = async move {
            let _ = told.wait_for(|s| *s).await;
        };
        connections::serve(listener, app, &settings, stop).await;
        if let Some(metrics) = metrics {
            let _ = metrics.await;
        }
        // A run in progress ends after the part it is erasing.
        if let Some(retention) = retention {
            let _ = retention.await;
        }
        tokio::task::spawn_blocking(move || writer.finish()).await?;
        Ok(())
    }
}

/// `receipt-review serve`: serves until SIGTERM or Ctrl-C.
pub fn serve(db: &Location, config: Config) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let forms = config.forms.keys().cloned().collect::<Vec<_>>().join(", ");
        let bound = bind(db, config).await?;
        let lang = crate::i18n::current();
        log::line(&t!(
            lang,
            "serve.log.listening",
            url = format!("http://{}", bound.local_addr()),
            forms = forms
        ));
        if let Some(addr) = bound.metrics_addr() {
            log::line(&t!(
                lang,
                "serve.log.metrics",
                url = format!("http://{addr}/metrics")
            ));
        }
        bound.run(shutdown::signal()).await?;
        log::line(t!(lang, "serve.log.stopped"));
        Ok(())
    })
}

/// A server running on a thread of its own (for tests and embedding);
/// stopped gracefully by [`Running::stop`] or when dropped.
pub struct Running {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<anyhow::Result<()>>>,
}

/// Starts a server on its own thread and runtime; returns once it listens.
pub fn start(db: &Location, config: Config) -> anyhow::Result<Running> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let bound = runtime.block_on(bind(db, config))?;
    let addr = bound.local_addr();
    let metrics_addr = bound.metrics_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("receipt-server".into())
        .spawn(move || {
            runtime.block_on(bound.run(async {
                let _ = stopped.await;
            }))
        })?;
    Ok(Running {
        addr,
        metrics_addr,
        stop: Some(stop),
        thread: Some(thread),
    })
}

impl Running {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where `GET /metrics` is served, when the config names an address.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops taking connections, gives the requests in progress up to the
    /// shutdown grace, and waits for the writer to commit what is queued.
    pub fn stop(mut self) -> anyhow::Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .map_err(|_| anyhow::anyhow!("the server thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
