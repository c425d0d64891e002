//! A server in this process on an ephemeral port with its own database (a
//! SQLite file, or a PostgreSQL database: [`Engine`]), and a client that sees
//! every status as it is.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use receipt_review::server::clock::Clock;
use receipt_review::server::{self, Config, Running};
use receipt_review::storage::Location;
use rusqlite::Connection;

use crate::common::engine::{Columns, Engine, Place};

/// The forms most tests use. `contact` absorbs nothing (its window is off)
/// so that repeated test bodies are stored as sent.
pub const CONFIG: &str = r#"
[server]
listen = "127.0.0.1:0"
body_limit = "4KiB"
rate = "off"
header_timeout = "1s"
body_timeout = "1s"

[forms.contact]
scope = "acme.example/contact"
fields = { name = 100, email = 254, company = 200, message = 500 }
required = ["email", "message"]
extra = "keep"
window = "0s"
honeypot = "_gotcha"
origins = ["https://acme.example"]

[forms.strict]
scope = "acme.example/strict"
fields = { email = 254, message = 500 }
required = ["email"]
extra = "refuse"
key = "required"
window = "0s"

[forms.copies]
scope = "acme.example/copies"
fields = { name = 100, email = 254, message = 500 }
window = "10m"
honeypot = "_gotcha"
"#;

pub struct TestServer {
    /// The server's clock, kept across restarts.
    pub clock: Clock,
    /// How often a form's retention runs after the run at start, when not
    /// daily; kept across restarts.
    pub retention_every: Option<Duration>,
    /// Declared before the database, so that it stops first.
    pub running: Option<Running>,
    /// The database, for as long as the test runs.
    pub place: Place,
    pub url: String,
}

impl TestServer {
    /// On SQLite, with [`CONFIG`].
    pub fn start() -> Self {
        Self::start_on(Engine::Sqlite)
    }

    pub fn start_on(engine: Engine) -> Self {
        Self::with_config_on(engine, CONFIG)
    }

    pub fn with_config(text: &str) -> Self {
        Self::with_config_on(Engine::Sqlite, text)
    }

    pub fn with_config_on(engine: Engine, text: &str) -> Self {
        Self::with_clock_on(engine, text, Clock::system())
    }

    /// A server whose time stands still until the test moves `clock`.
    pub fn with_clock_on(engine: Engine, text: &str, clock: Clock) -> Self {
        Self::with_retention_every_on(engine, text, clock, None)
    }

    /// [`Self::with_clock_on`], applying its forms' retention every
    /// `every` after the run at start (`None`: daily, as `serve` does).
    pub fn with_retention_every_on(
        engine: Engine,
        text: &str,
        clock: Clock,
        every: Option<Duration>,
    ) -> Self {
        let place = Place::new(engine);
        let running = server::start(place.location(), config(text, &clock, every)).unwrap();
        let url = running.url();
        Self {
            clock,
            retention_every: every,
            running: Some(running),
            place,
            url,
        }
    }

    /// Stops this server and starts another on the same database.
    pub fn restart(&mut self, text: &str) {
        self.running.take().unwrap().stop().unwrap();
        self.restart_stopped(text);
    }

    /// Starts a server again on the database of one already stopped.
    pub fn restart_stopped(&mut self, text: &str) {
        let config = config(text, &self.clock, self.retention_every);
        let running = server::start(self.place.location(), config).unwrap();
        self.url = running.url();
        self.running = Some(running);
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.running.as_ref().unwrap().addr()
    }

    /// Where the database is, as the server was given it.
    pub fn location(&self) -> &Location {
        self.place.location()
    }

    /// The SQLite file (a server on PostgreSQL has none).
    pub fn path(&self) -> &Path {
        self.place.path()
    }

    /// A connection of the test's own to the SQLite file, for what only
    /// SQLite has; [`Self::rows`] and [`Self::one`] read either engine.
    pub fn conn(&self) -> Connection {
        Connection::open(self.path()).unwrap()
    }

    /// Every row `sql` reads (SQL both engines take), on a connection of the test's own.
    pub fn rows<R: Columns>(&self, sql: &str) -> Vec<R> {
        self.place.rows(sql)
    }

    /// The one row `sql` reads.
    pub fn one<R: Columns>(&self, sql: &str) -> R {
        self.place.one(sql)
    }

    pub fn count(&self, table: &str) -> i64 {
        self.place.count(table)
    }

    /// receipts, key_conflicts, replays, absorbed.
    pub fn counts(&self) -> [i64; 4] {
        let mut sql = self.place.sql();
        ["receipts", "key_conflicts", "replays", "absorbed"].map(|t| sql.count(t))
    }

    pub fn post_json(&self, form: &str, key: Option<&str>, body: &str) -> Reply {
        let mut headers = vec![("content-type", "application/json".to_string())];
        if let Some(k) = key {
            headers.push(("idempotency-key", format!("\"{k}\"")));
        }
        self.post(&format!("/f/{form}"), &headers, body.as_bytes())
    }

    pub fn post(&self, path: &str, headers: &[(&str, String)], body: &[u8]) -> Reply {
        let mut request = agent().post(format!("{}{path}", self.url));
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        Reply::from(request.send(body).expect("an answer"))
    }

    pub fn get(&self, path: &str) -> Reply {
        Reply::from(
            agent()
                .get(format!("{}{path}", self.url))
                .call()
                .expect("an answer"),
        )
    }
}

fn config(text: &str, clock: &Clock, retention_every: Option<Duration>) -> Config {
    let mut config = Config::parse(text, "test").unwrap();
    config.clock = clock.clone();
    if let Some(every) = retention_every {
        config.retention_every = every;
    }
    config
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into()
}

/// An answer: status, headers, body bytes.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: ureq::http::HeaderMap,
    pub body: String,
}

impl From<ureq::http::Response<ureq::Body>> for Reply {
    fn from(response: ureq::http::Response<ureq::Body>) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.into_body().read_to_string().unwrap();
        Self {
            status,
            headers,
            body,
        }
    }
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// A problem+json answer with this status; its body.
    pub fn problem(&self, status: u16) -> serde_json::Value {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "{}",
            self.body
        );
        let v = self.json();
        assert_eq!(v["status"], status);
        assert!(v["title"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(v["detail"].as_str().is_some_and(|t| !t.is_empty()));
        v
    }
}

/// Sends raw bytes on a new connection and returns the connection.
pub fn raw(server: &TestServer, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.write_all(bytes).unwrap();
    stream
}

/// Everything the server sends until it closes (or `limit` passes).
pub fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (Vec<u8>, bool) {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return (out, false);
            }
            // A reset is a close too.
            Err(_) => return (out, true),
        }
    }
}

/// Waits until `done` holds, failing (never passing) if it still does not
/// after a minute: a condition the test then relies on, not a time.
pub fn wait_for(mut done: impl FnMut() -> bool, what: &str) {
    let give_up = std::time::Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(
            std::time::Instant::now() < give_up,
            "still waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub const BODY: &str =
    r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back."}"#;

/// `receipt-review serve` as a process of its own (its config must listen
/// on port 0), killed if a test fails before it stops by itself.
pub struct Serving {
    pub child: std::process::Child,
    /// Its whole log, read as it comes (a log no one reads would stop the server once the
    /// pipe is full, as it would a real one).
    log: std::sync::Arc<std::sync::Mutex<String>>,
    drain: Option<std::thread::JoinHandle<()>>,
}

impl Serving {
    /// Starts it on `db` (a file's path or a PostgreSQL URL) and waits until
    /// it listens; its address `127.0.0.1:PORT`.
    pub fn start(db: &str, config: &Path) -> (Self, String) {
        Self::start_with(db, config, &[], &[])
    }

    /// [`Self::start`] with more arguments and environment variables.
    pub fn start_with(
        db: &str,
        config: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> (Self, String) {
        use std::io::BufRead;
        let mut child = crate::common::bin()
            .args(["serve", db, "--config", config.to_str().unwrap()])
            .args(args)
            .envs(env.iter().copied())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut first_line = String::new();
        stderr.read_line(&mut first_line).unwrap();
        let addr = first_line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first_line:?}"))
            .to_string();
        let log = std::sync::Arc::new(std::sync::Mutex::new(first_line.clone()));
        let kept = std::sync::Arc::clone(&log);
        let drain = std::thread::spawn(move || {
            let mut line = String::new();
            while stderr.read_line(&mut line).is_ok_and(|n| n > 0) {
                kept.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let serving = Self {
            child,
            log,
            drain: Some(drain),
        };
        (serving, addr)
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Its whole log, once it has exited.
    pub fn log_after_exit(&mut self) -> String {
        if let Some(drain) = self.drain.take() {
            drain.join().unwrap();
        }
        self.log()
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
