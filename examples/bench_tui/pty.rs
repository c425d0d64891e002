//! A program on a pseudo-terminal, read with the time of every read.

use std::num::NonZeroU16;
use std::os::fd::RawFd;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde_json::{Map, Value};

use crate::frames::Frames;
use crate::stats::Sample;

static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);

/// Seconds on a monotonic clock (differences of these are what is measured).
pub fn now() -> f64 {
    EPOCH.elapsed().as_secs_f64()
}

/// What one read brought.
pub struct Chunk {
    /// When the read returned.
    pub at: f64,
    /// The frames that ended in it: whether each has content.
    pub frames: Vec<bool>,
}

pub struct PtyApp {
    // Held for the pty's lifetime: dropping it closes the master side.
    _master: Box<dyn MasterPty + Send>,
    fd: RawFd,
    child: Box<dyn Child + Send + Sync>,
    pub spawned: f64,
    screen: vt100::Parser,
    frames: Frames,
    buf: Vec<u8>,
    pub eof: bool,
}

impl PtyApp {
    pub fn spawn(argv: &[String], rows: u16, cols: u16) -> anyhow::Result<Self> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| anyhow!("openpty: {e}"))?;
        let mut cmd = CommandBuilder::from_argv(argv.iter().map(Into::into).collect());
        cmd.cwd(std::env::current_dir()?);
        cmd.env_remove("NO_COLOR");
        for (k, v) in [
            ("TERM", "xterm-256color"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
        ] {
            cmd.env(k, v);
        }
        let fd = pair
            .master
            .as_raw_fd()
            .context("the pty has no file descriptor")?;
        let spawned = now();
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| anyhow!("cannot start {}: {e}", argv[0]))?;
        // Only the child holds the slave side now, so its exit ends the reads.
        drop(pair.slave);
        let size = |n: u16| NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN);
        Ok(Self {
            _master: pair.master,
            fd,
            child,
            spawned,
            screen: vt100::Parser::new(size(rows), size(cols), 0),
            frames: Frames::default(),
            buf: vec![0; 1 << 20],
            eof: false,
        })
    }

    /// One read, waiting at most `timeout` seconds for it.
    pub fn pump(&mut self, timeout: f64) -> Option<Chunk> {
        let timeout = Duration::from_secs_f64(timeout.max(0.0));
        if self.eof {
            std::thread::sleep(timeout);
            return None;
        }
        let mut poll = libc::pollfd {
            fd: self.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let wait = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: one valid pollfd, a valid timespec, no signal mask.
        let ready = unsafe { libc::ppoll(&mut poll, 1, &wait, std::ptr::null()) };
        if ready <= 0 {
            return None;
        }
        // SAFETY: the buffer is valid for its length; the fd is the open master.
        let n = unsafe { libc::read(self.fd, self.buf.as_mut_ptr().cast(), self.buf.len()) };
        let at = now();
        if n <= 0 {
            // EIO once the child has closed the slave side.
            self.eof = true;
            return None;
        }
        let data = &self.buf[..n as usize];
        self.screen.process(data);
        let frames = self.frames.feed(data);
        Some(Chunk { at, frames })
    }

    /// Reads until nothing has arrived for `quiet` seconds (true), or `limit`
    /// seconds have passed (false).
    pub fn drain(&mut self, quiet: f64, limit: f64) -> bool {
        let deadline = now() + limit;
        let mut last = now();
        while now() < deadline {
            let wait = quiet - (now() - last);
            if wait <= 0.0 {
                return true;
            }
            if self.pump(wait).is_some() {
                last = now();
            }
        }
        false
    }

    pub fn write(&self, key: &[u8]) {
        // SAFETY: the fd is the open master; the key is a valid buffer.
        let _ = unsafe { libc::write(self.fd, key.as_ptr().cast(), key.len()) };
    }

    /// Writes one key once the screen is quiet and times its answer (ms).
    /// Waits at most `timeout` for the first frame and `settle_cap` for the
    /// screen to go quiet again (a screen that redraws by itself never does).
    pub fn press(&mut self, key: &[u8], quiet: f64, timeout: f64, settle_cap: f64) -> Sample {
        let quiet_before = self.drain(quiet, 2.0);
        let t0 = now();
        self.write(key);
        let (mut first_byte, mut frame, mut settle) = (None, None, None);
        let mut last_activity = t0;
        let deadline = t0 + timeout;
        loop {
            let t = now();
            let wait = if frame.is_some() {
                (quiet - (t - last_activity)).min(t0 + settle_cap - t)
            } else {
                deadline - t
            };
            if wait <= 0.0 {
                break;
            }
            let Some(chunk) = self.pump(wait) else {
                if self.eof {
                    break;
                }
                continue;
            };
            last_activity = chunk.at;
            first_byte.get_or_insert(chunk.at);
            if chunk.frames.iter().any(|&content| content) {
                frame.get_or_insert(chunk.at);
                settle = Some(chunk.at);
            }
        }
        let ms = |x: Option<f64>| x.map(|x| (x - t0) * 1000.0);
        Sample {
            first_byte: ms(first_byte),
            frame: ms(frame),
            settle: ms(settle),
            quiet_before,
        }
    }

    /// The screen's lines, trailing blanks cut.
    pub fn lines(&self) -> Vec<String> {
        let (_, cols) = self.screen.screen().size();
        self.screen
            .screen()
            .rows(0, cols.get())
            .map(|r| r.trim_end().to_string())
            .collect()
    }

    pub fn text(&self) -> String {
        self.lines().join("\n")
    }

    /// VmHWM and VmRSS of the program, in kB.
    pub fn rss_kb(&self) -> Map<String, Value> {
        let mut out = Map::new();
        let Some(pid) = self.child.process_id() else {
            return out;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            return out;
        };
        for line in status.lines() {
            for key in ["VmHWM", "VmRSS"] {
                let kb = line
                    .strip_prefix(key)
                    .and_then(|r| r.strip_prefix(':'))
                    .and_then(|r| r.trim().strip_suffix("kB"))
                    .and_then(|r| r.trim().parse::<u64>().ok());
                if let Some(kb) = kb {
                    out.insert(key.into(), kb.into());
                }
            }
        }
        out
    }

    /// CPU seconds the program has used (user + system), from /proc.
    pub fn cpu_seconds(&self) -> Option<f64> {
        let pid = self.child.process_id()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The fields after the command name, which is in parentheses.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split(' ').collect();
        let ticks: f64 =
            fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        Some(ticks / per_second)
    }

    pub fn terminate(&self) {
        self.signal(libc::SIGTERM);
    }

    fn signal(&self, signal: libc::c_int) {
        if let Some(pid) = self.child.process_id() {
            // SAFETY: a signal to our own child.
            unsafe { libc::kill(pid as libc::pid_t, signal) };
        }
    }

    /// Waits up to `seconds` for the program to exit, reading what it writes.
    fn wait_exit(&mut self, seconds: f64) -> Option<portable_pty::ExitStatus> {
        let deadline = now() + seconds;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if now() >= deadline {
                return None;
            }
            self.pump(0.01);
        }
    }

    /// Quits with `quit_key` (then SIGTERM, then SIGKILL) and returns the
    /// exit code (-1 when a signal ended it).
    pub fn close(mut self, quit_key: &[u8]) -> Option<i64> {
        if !quit_key.is_empty() && !self.eof && matches!(self.child.try_wait(), Ok(None)) {
            self.write(quit_key);
        }
        let status = self
            .wait_exit(10.0)
            .or_else(|| {
                self.signal(libc::SIGTERM);
                self.wait_exit(5.0)
            })
            .or_else(|| {
                self.signal(libc::SIGKILL);
                self.child.wait().ok()
            })?;
        Some(match status.signal() {
            Some(_) => -1,
            None => i64::from(status.exit_code()),
        })
    }
}
