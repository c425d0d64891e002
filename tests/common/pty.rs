//! A pseudo-terminal running the real binary that keeps every byte it wrote
//! and feeds them to a VT emulator, so a test can read the screen a person
//! would see.
// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

const BIN: &str = env!("CARGO_BIN_EXE_receipt-review");

/// SIGKILL, the signal nothing can catch.
pub fn sigkill(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a terminal size is never zero")
}

pub struct Pty {
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Pty {
    /// The real binary with `args` on a `cols` × `rows` terminal.
    pub fn spawn(args: &[&str], cols: u16, rows: u16, cwd: &Path) -> Pty {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(BIN);
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        cmd.env("XDG_CONFIG_HOME", super::NO_CONFIG_HOME);
        cmd.cwd(cwd);
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(rows), nz(cols), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pty.master.try_clone_reader().unwrap();
        {
            let parser = Arc::clone(&parser);
            let raw = Arc::clone(&raw);
            std::thread::spawn(move || {
                let mut buf = [0u8; 16384];
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
        Pty {
            parser,
            raw,
            master: pty.master,
            writer,
            child,
        }
    }

    pub fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    pub fn raw(&self) -> Vec<u8> {
        self.raw.lock().unwrap().clone()
    }

    pub fn raw_len(&self) -> usize {
        self.raw.lock().unwrap().len()
    }

    /// Waits until the screen satisfies `ok`; panics with the screen if not.
    pub fn wait_until(&self, what: &str, limit: Duration, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if ok(&text) {
                return text;
            }
            if start.elapsed() > limit {
                panic!("hung: {what} not seen in {limit:?}; the screen shows:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_for(&self, needle: &str, limit: Duration) -> String {
        self.wait_until(needle, limit, |t| t.contains(needle))
    }

    /// Waits until nothing new has been drawn for `quiet`.
    pub fn settle(&self, quiet: Duration, limit: Duration) {
        let start = Instant::now();
        let mut last = self.raw_len();
        let mut since = Instant::now();
        while start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(20));
            let now = self.raw_len();
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() >= quiet {
                return;
            }
        }
    }

    pub fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    pub fn resize(&self, cols: u16, rows: u16) {
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

    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("the child has a pid")
    }

    /// Waits for the program to exit by itself.
    pub fn wait_exit(&mut self, limit: Duration) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader drain what was written last.
                std::thread::sleep(Duration::from_millis(150));
                return status;
            }
            assert!(
                start.elapsed() < limit,
                "hung: did not exit in {limit:?}; the screen shows:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn kill9(&mut self) {
        sigkill(self.pid());
        let _ = self.wait_exit(Duration::from_secs(10));
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait()
            && let Some(pid) = self.child.process_id()
        {
            sigkill(pid);
            let _ = self.child.wait();
        }
    }
}
