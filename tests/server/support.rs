//! A server in this process on an ephemeral port with its own database, and
//! a client that sees every status as it is.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;

use receipt_review::server::clock::Clock;
use receipt_review::server::{self, Config, Running};
use rusqlite::Connection;

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
    pub running: Option<Running>,
    pub db: PathBuf,
    pub _dir: tempfile::TempDir,
    pub url: String,
}

impl TestServer {
    pub fn start() -> Self {
        Self::with_config(CONFIG)
    }

    pub fn with_config(text: &str) -> Self {
        Self::with_clock(text, Clock::system())
    }

    /// A server whose time stands still until the test moves `clock`.
    pub fn with_clock(text: &str, clock: Clock) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("receipts.db");
        let running = server::start(&db.as_path().into(), config(text, &clock)).unwrap();
        let url = running.url();
        Self {
            clock,
            running: Some(running),
            db,
            _dir: dir,
            url,
        }
    }

    /// Stops this server and starts another on the same database.
    pub fn restart(&mut self, text: &str) {
        self.running.take().unwrap().stop().unwrap();
        let running = server::start(&self.db.as_path().into(), config(text, &self.clock)).unwrap();
        self.url = running.url();
        self.running = Some(running);
    }

    /// Starts a server again on the database of one already stopped.
    pub fn restart_stopped(&mut self, text: &str) {
        let running = server::start(&self.db.as_path().into(), config(text, &self.clock)).unwrap();
        self.url = running.url();
        self.running = Some(running);
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.running.as_ref().unwrap().addr()
    }

    pub fn conn(&self) -> Connection {
        Connection::open(&self.db).unwrap()
    }

    pub fn count(&self, table: &str) -> i64 {
        self.conn()
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }

    /// receipts, key_conflicts, replays, absorbed.
    pub fn counts(&self) -> [i64; 4] {
        ["receipts", "key_conflicts", "replays", "absorbed"].map(|t| self.count(t))
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

fn config(text: &str, clock: &Clock) -> Config {
    let mut config = Config::parse(text, "test").unwrap();
    config.clock = clock.clone();
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
    /// The rest of its log, after the first line.
    pub stderr: Option<std::io::BufReader<std::process::ChildStderr>>,
    /// The log's first line, which names the address.
    pub first_line: String,
}

impl Serving {
    /// Starts it and waits until it listens; its address `127.0.0.1:PORT`.
    pub fn start(db: &std::path::Path, config: &std::path::Path) -> (Self, String) {
        use std::io::BufRead;
        let mut child = crate::common::bin()
            .args([
                "serve",
                db.to_str().unwrap(),
                "--config",
                config.to_str().unwrap(),
            ])
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
        let serving = Self {
            child,
            stderr: Some(stderr),
            first_line,
        };
        (serving, addr)
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
