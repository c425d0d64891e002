//! Headless Chromium for one test: a ChromeDriver process the test owns, on
//! a port of its own, and a fresh browser profile. Dropping it closes the
//! browser and ends ChromeDriver with everything it started.
//!
//! Without Chromium or ChromeDriver installed, [`Chromium::start`] says so
//! and returns `None` (the test passes without running), except where the
//! environment variable `CI` is set: CI installs them, so there it fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard, Once};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::webdriver::Session;

/// How long a page may take to reach the state a test waits for.
pub const WAIT: Duration = Duration::from_secs(20);

/// Chromium's flags: headless, nothing fetched from outside, Japanese, a
/// profile of its own (added per test).
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1024,900",
    // A Japanese visitor: the server answers in the language it is asked for.
    "--lang=ja",
    "--accept-lang=ja",
];

/// One browser at a time: the machines that run these have two cores, and a
/// browser starved by another would make every timing in them looser.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Whether the page runs scripts: the page as served, or as a browser with
/// scripts turned off sees it (a plain HTML form).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scripts {
    On,
    Off,
}

pub struct Chromium {
    // Dropped in this order: the session (closing the browser), then
    // ChromeDriver, then the profile.
    pub session: Session,
    _driver: Driver,
    _profile: tempfile::TempDir,
    _turn: MutexGuard<'static, ()>,
}

impl std::ops::Deref for Chromium {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

impl Chromium {
    /// A browser for this test, or `None` (said on stderr) where Chromium
    /// or ChromeDriver is not installed and this is not CI.
    pub fn start(scripts: Scripts) -> Option<Self> {
        let tools = tools()?;
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let profile = tempfile::tempdir().unwrap();
        let driver = Driver::start(&tools.driver);
        let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let mut options = json!({ "binary": tools.browser, "args": args });
        if scripts == Scripts::Off {
            options["prefs"] = json!({ "profile.managed_default_content_settings.javascript": 2 });
        }
        let session = Session::new(
            &driver.url,
            json!({
                "browserName": "chrome",
                "pageLoadStrategy": "normal",
                "goog:chromeOptions": options,
            }),
        );
        Some(Self {
            session,
            _driver: driver,
            _profile: profile,
            _turn: turn,
        })
    }
}

struct Tools {
    browser: PathBuf,
    driver: PathBuf,
}

fn tools() -> Option<Tools> {
    let browser = ["chromium", "chromium-browser"]
        .into_iter()
        .find_map(on_path);
    let driver = on_path("chromedriver");
    match (browser, driver) {
        (Some(browser), Some(driver)) => Some(Tools { browser, driver }),
        (browser, _) => {
            let missing = if browser.is_none() {
                "chromium"
            } else {
                "chromedriver"
            };
            let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
            assert!(
                !ci,
                "{missing} not found on PATH, and CI is set: .ci/run installs \
                 chromium and chromium-driver"
            );
            // Once, and past the test harness's capture, so that it is seen.
            static SAID: Once = Once::new();
            SAID.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "browser tests skipped: {missing} not found on PATH \
                     (apt-get install chromium chromium-driver)"
                );
            });
            None
        }
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// ChromeDriver on a port the system picks, in a process group of its own
/// so that ending the group ends the browsers it started too.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start(program: &Path) -> Self {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(program)
            .arg("--port=0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        // "ChromeDriver was started successfully on port 41297."
        let stdout = child.stdout.take().unwrap();
        let (port_tx, port_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut port_tx = Some(port_tx);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(port) = line
                    .strip_prefix("ChromeDriver was started successfully on port ")
                    .and_then(|rest| rest.trim_end_matches('.').parse::<u16>().ok())
                    && let Some(tx) = port_tx.take()
                {
                    let _ = tx.send(port);
                }
                // Later lines are read and dropped, so the pipe never fills.
            }
        });
        let port = port_rx.recv_timeout(WAIT);
        let mut driver = Self {
            child,
            url: String::new(),
        };
        match port {
            Ok(port) => driver.url = format!("http://127.0.0.1:{port}"),
            Err(_) => panic!("{} did not say its port within {WAIT:?}", program.display()),
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = i32::try_from(self.child.id()).expect("a process id");
        // SAFETY: kill(2) with the negated id of the process group this
        // process created for ChromeDriver: only it and the browsers it
        // started receive the signal.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

/// Polls `probe` until it gives a value, for at most [`WAIT`]; panics saying
/// `what` it waited for (and what it last saw) when the time runs out.
pub fn eventually<T>(what: &str, mut probe: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        match probe() {
            Ok(value) => return value,
            Err(seen) if Instant::now() >= deadline => {
                panic!("waited {WAIT:?} for {what}; last saw: {seen}")
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}
