//! The real binary in a pseudo-terminal, driven as a person would: it opens on
//! Duplicates, `d` records a decision with the operator, `u` undoes it, a tiny
//! terminal gets the "too small" screen, and `q` quits with exit 0 and the
//! terminal restored.

mod common;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{NOW, fixture};
use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use rusqlite::Connection;

const WAIT: Duration = Duration::from_secs(20);

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a terminal size is never zero")
}

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, what: &str) {
        let start = Instant::now();
        while start.elapsed() < WAIT {
            if self.text().contains(what) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "{what:?} never appeared; the screen shows:\n{}",
            self.text()
        );
    }

    fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    fn resize(&self, cols: u16, rows: u16) {
        self.parser
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(nz(rows), nz(cols));
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }
}

fn log_rows(db: &std::path::Path) -> Vec<(String, String, String)> {
    let conn = Connection::open(db).unwrap();
    let exists: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if exists == 0 {
        return Vec::new();
    }
    conn.prepare("SELECT item, decision, operator FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn wait_for_log(db: &std::path::Path, rows: usize) -> Vec<(String, String, String)> {
    let start = Instant::now();
    while start.elapsed() < WAIT {
        let found = log_rows(db);
        if found.len() >= rows {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("review_log never reached {rows} rows: {:?}", log_rows(db));
}

#[test]
fn a_person_decides_undoes_resizes_and_quits() {
    let f = fixture();
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_receipt-review"));
    cmd.args([f.path(), "--operator", "e2e-operator", "--now", NOW]);
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(f.db.parent().unwrap());
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);

    let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(30), nz(100), 0)));
    let raw = Arc::new(Mutex::new(Vec::new()));
    let mut reader = pty.master.try_clone_reader().unwrap();
    {
        let parser = Arc::clone(&parser);
        let raw = Arc::clone(&raw);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                parser.lock().unwrap().process(&buf[..n]);
                raw.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
    }
    let writer = pty.master.take_writer().unwrap();
    let mut screen = Screen {
        parser,
        raw,
        master: pty.master,
        writer,
    };

    // Opens on Duplicates with the first pending group selected.
    screen.wait_for("Duplicates");
    screen.wait_for("dup:1");

    screen.keys("d");
    let rows = wait_for_log(&f.db, 1);
    assert_eq!(
        rows[0],
        ("dup:1".into(), "duplicate".into(), "e2e-operator".into())
    );

    screen.keys("u");
    let rows = wait_for_log(&f.db, 2);
    assert_eq!(rows[1].0, "dup:1");
    assert_eq!(rows[1].1, "reopened");

    screen.resize(30, 8);
    screen.wait_for("too small");
    screen.resize(100, 30);
    screen.wait_for("Duplicates");

    screen.keys("q");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < WAIT, "q did not quit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status {status:?}");
    // Give the reader a moment to drain, then check the terminal was restored:
    // the alternate screen left and the cursor shown again.
    std::thread::sleep(Duration::from_millis(200));
    let raw = screen.raw.lock().unwrap().clone();
    let tail = String::from_utf8_lossy(&raw);
    let entered = tail
        .find("\x1b[?1049h")
        .expect("entered the alternate screen");
    let left = tail
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(left > entered);
    assert!(tail[left..].contains("\x1b[?25h") || tail[..left].rfind("\x1b[?25h").is_some());
}
