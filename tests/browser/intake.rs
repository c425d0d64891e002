//! The intake server under test, in this process on an ephemeral port of
//! 127.0.0.1, with its own database, and what that database holds.

use std::net::SocketAddr;
use std::path::PathBuf;

use receipt_review::i18n::{self, Lang};
use receipt_review::server::{self, Config, Running};
use rusqlite::Connection;
use serde_json::Value;

/// The contact form of `assets/forms.toml`, with two changes: no window for
/// exact copies ("0s"), so that only the idempotency key can keep a second
/// send from being a second receipt, and no rate limit. Its `origins` are
/// the company's site, as there, and `origins`: so a browser's post from
/// any other page is refused, and the server's own pages must pass as such.
fn config(origins: &[&str]) -> String {
    let origins: Vec<String> = ["https://acme.example"]
        .iter()
        .chain(origins)
        .map(|o| format!("\"{o}\""))
        .collect();
    format!(
        r#"
[server]
listen = "127.0.0.1:0"
rate = "off"

[forms.contact]
scope = "acme.example/contact"
fields = {{ name = 100, email = 254, company = 200, phone = 40, message = 5000 }}
required = ["email", "message"]
extra = "refuse"
window = "0s"
honeypot = "_gotcha"
origins = [{}]
"#,
        origins.join(", ")
    )
}

pub struct Intake {
    running: Option<Running>,
    db: PathBuf,
    _dir: tempfile::TempDir,
}

/// One row of `receipts`.
#[derive(Debug)]
pub struct Receipt {
    pub id: i64,
    pub scope: String,
    pub key: Option<String>,
    pub state: String,
    pub payload: Value,
}

impl Intake {
    /// The server, its pages in Japanese (the desk's language), accepting
    /// the browser pages of `origins` besides its own (and the company's).
    pub fn start(origins: &[&str]) -> Self {
        i18n::set_current(Lang::Ja);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("receipts.db");
        let config = Config::parse(&config(origins), "test").unwrap();
        let running = server::start(&db.as_path().into(), config).unwrap();
        Self {
            running: Some(running),
            db,
            _dir: dir,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.running.as_ref().unwrap().addr()
    }

    pub fn receipts(&self) -> Vec<Receipt> {
        let conn = Connection::open(&self.db).unwrap();
        let mut statement = conn
            .prepare("SELECT id, scope, request_key, state, payload FROM receipts ORDER BY id")
            .unwrap();
        statement
            .query_map([], |row| {
                let payload: String = row.get(4)?;
                Ok(Receipt {
                    id: row.get(0)?,
                    scope: row.get(1)?,
                    key: row.get(2)?,
                    state: row.get(3)?,
                    payload: serde_json::from_str(&payload).unwrap(),
                })
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// The one receipt the database must hold; panics saying what it holds.
    #[track_caller]
    pub fn only_receipt(&self) -> Receipt {
        let mut receipts = self.receipts();
        assert_eq!(receipts.len(), 1, "receipts: {receipts:#?}");
        receipts.pop().unwrap()
    }

    /// Retries the key absorbed (`replays` rows).
    pub fn replays(&self) -> i64 {
        Connection::open(&self.db)
            .unwrap()
            .query_row("SELECT count(*) FROM replays", [], |r| r.get(0))
            .unwrap()
    }
}

impl Drop for Intake {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            let _ = running.stop();
        }
    }
}
