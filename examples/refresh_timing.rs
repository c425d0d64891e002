//! How long the screen takes to take in a reading after the intake appended
//! rows: the worker's reading (analysis, the items' receipts, the filter
//! index) and the screen's `update` on its arrival (rows, counts, and letting
//! go of the reading before), measured in-process, round after round.
//!
//! `cargo run --release --example refresh_timing -- COPY.db [APPENDS] [ROUNDS]`
//! appends APPENDS (1000) receipts per round to COPY.db (give it a copy: it
//! writes; a PostgreSQL URL works too), as an intake would: visitors sending again what they sent a
//! little earlier (exact copies of the latest receipts, seconds to minutes
//! later), so that groups grow and new ones form.
//!
//! With `STAGES=1`, when each stage of every reading began (with how many
//! rows it reads when it says, and the process's RSS and CPU time then); with `MEM=1`, after each round, how many receipts the
//! items hold, the bytes of those receipts and of the filter index, and what
//! the allocator holds. "Selection kept" compares the selected item's id
//! before and after: a group an earlier copy joined is named by that copy, so
//! its id changes (the selection stays on it).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use receipt_review::model::Settings;
use receipt_review::tui::app::msg::Msg;
use receipt_review::tui::app::{App, update};
use receipt_review::tui::collection::{Request, Worker, WorkerConfig};

/// The demo databases' `--now` (2026-11-29T12:00:00Z).
const NOW_MS: i64 = 1_795_953_600_000;

fn main() -> anyhow::Result<()> {
    // As the program does.
    receipt_review::memory::one_arena_per_core();
    receipt_review::memory::keep_large_blocks_apart();
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: refresh_timing COPY.db [APPENDS] [ROUNDS]"))?;
    let appends: usize = args.next().map_or(Ok(1000), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let (tx, rx) = mpsc::channel();
    let config = WorkerConfig {
        location: path.as_str().into(),
        read_only: false,
        settings: Settings::new(NOW_MS),
        fixed_now: Some(NOW_MS),
        operator: "bench".into(),
        export_dir: std::env::temp_dir(),
        lang: Default::default(),
    };
    let worker = Worker::start(config, tx)?;
    let mut app = App::new(true);
    update(
        &mut app,
        Msg::Resize {
            width: 160,
            height: 48,
        },
    );
    // A filter is on, as an operator may leave one.
    for c in "/smith".chars() {
        update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        );
    }
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );

    let started = Instant::now();
    worker.send(Request::Load);
    let (worker_time, ui) = take_readings(&rx, &mut app, 2)?;
    if std::env::var_os("STAGES").is_some() {
        println!("  stages: {}", STAGES.with(|s| s.take()));
    }
    println!(
        "full reading: {:.0} ms (screen update {:.1} ms), rss {} MB",
        worker_time.as_secs_f64() * 1e3,
        ui.as_secs_f64() * 1e3,
        rss_mb()
    );
    let _ = started;

    let mut writer = Writer::open(&path)?;
    for round in 1..=rounds {
        writer.append(appends, round)?;
        move_selection(&mut app);
        // The item, by its id: a row's index moves when items come before it.
        let selected = app.selected_item().map(|(item, _)| item);
        let asked = Instant::now();
        worker.send(Request::Load);
        let (worker_time, ui) = take_readings(&rx, &mut app, 1)?;
        if std::env::var_os("STAGES").is_some() {
            println!("  stages: {}", STAGES.with(|s| s.take()));
        }
        println!(
            "round {round}: {appends} appended; load → screen updated {:.1} ms \
             (of which the screen's update {:.1} ms); selection kept: {}; rss {} MB",
            (worker_time + ui).as_secs_f64() * 1e3,
            ui.as_secs_f64() * 1e3,
            app.selected_item().map(|(item, _)| item) == selected,
            rss_mb()
        );
        let _ = asked;
        if std::env::var_os("MEM").is_some()
            && let Some(snap) = &app.snapshot
        {
            println!(
                "  held: items' receipts {} ({} MB), filter index {} MB; {}",
                snap.receipts.len(),
                snap.receipts.bytes() >> 20,
                app.search.bytes() >> 20,
                allocator()
            );
        }
    }
    Ok(())
}

thread_local! {
    /// With STAGES set: when (ms after the request) the worker began each
    /// stage of the last reading, as it reported them.
    static STAGES: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Waits for `n` readings; returns the time waited and the time `update` took.
fn take_readings(
    rx: &mpsc::Receiver<Msg>,
    app: &mut App,
    mut n: usize,
) -> anyhow::Result<(Duration, Duration)> {
    let (mut waited, mut ui) = (Duration::ZERO, Duration::ZERO);
    let mut since = Instant::now();
    let start = since;
    let mut stage = "";
    STAGES.with(|t| t.borrow_mut().clear());
    while n > 0 {
        let msg = rx.recv_timeout(Duration::from_secs(600))?;
        if let Msg::Progress {
            stage: s, total, ..
        } = &msg
            && *s != stage
        {
            stage = s;
            let at = start.elapsed().as_secs_f64() * 1e3;
            let (rss, cpu) = (rss_mb(), cpu_ms());
            // How many rows the stage reads, when it says.
            let of = total.map(|n| format!(" of {n}")).unwrap_or_default();
            STAGES.with(|t| {
                t.borrow_mut()
                    .push_str(&format!("{s}{of} @{at:.0} ({rss} MB, CPU {cpu} ms); "))
            });
        }
        let last = matches!(msg, Msg::Loaded(_));
        if let Msg::LoadFailed(why) = &msg {
            anyhow::bail!("{why}");
        }
        waited += since.elapsed();
        let t = Instant::now();
        update(app, msg);
        ui += t.elapsed();
        since = Instant::now();
        if last {
            n -= 1;
        }
    }
    Ok((waited, ui))
}

fn move_selection(app: &mut App) {
    for _ in 0..3 {
        update(
            app,
            Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE)),
        );
    }
}

/// What appends to the database: SQLite's file or a PostgreSQL server.
enum Writer {
    File(rusqlite::Connection),
    Postgres(Box<postgres::Client>),
}

impl Writer {
    fn open(path: &str) -> anyhow::Result<Self> {
        Ok(match receipt_review::storage::Location::from(path) {
            receipt_review::storage::Location::Postgres(url) => {
                Writer::Postgres(Box::new(postgres::Client::connect(&url, postgres::NoTls)?))
            }
            receipt_review::storage::Location::File(file) => {
                Writer::File(rusqlite::Connection::open(file)?)
            }
        })
    }

    /// Exact copies of the latest receipts, 1 to 600 s after the latest one.
    fn append(&mut self, n: usize, round: usize) -> anyhow::Result<()> {
        match self {
            Writer::File(conn) => append(conn, n, round),
            Writer::Postgres(client) => {
                client.execute(
                    "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at, updated_at)
                     SELECT scope, NULL, digest, payload, 'completed', t, t FROM (
                       SELECT scope, digest, payload,
                              (SELECT created_at FROM receipts ORDER BY id DESC LIMIT 1)
                                + make_interval(secs => 1 + (id * 7 + $1) % 600) AS t
                       FROM receipts WHERE payload LIKE '{%' ORDER BY id DESC LIMIT $2) s",
                    &[&(round as i64), &(n as i64)],
                )?;
                Ok(())
            }
        }
    }
}

/// Exact copies of the latest receipts, 1 to 600 s after the latest one.
fn append(conn: &rusqlite::Connection, n: usize, round: usize) -> anyhow::Result<()> {
    let tx = conn.unchecked_transaction()?;
    tx.execute(
        "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at, updated_at)
         SELECT scope, NULL, digest, payload, 'completed', t, t FROM (
           SELECT scope, digest, payload,
                  strftime('%Y-%m-%dT%H:%M:%fZ', (SELECT created_at FROM receipts ORDER BY id DESC LIMIT 1),
                           '+' || (1 + (id * 7 + ?1) % 600) || ' seconds') AS t
           FROM receipts WHERE json_valid(payload) ORDER BY id DESC LIMIT ?2)",
        rusqlite::params![round as i64, n as i64],
    )?;
    tx.commit()?;
    Ok(())
}

/// User and system CPU time of the whole process so far: with the wall times
/// of the stages, how many cores each kept busy.
fn cpu_ms() -> u64 {
    // SAFETY: `getrusage` writes only into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    let ms = |t: libc::timeval| t.tv_sec as u64 * 1000 + t.tv_usec as u64 / 1000;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}

fn rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

/// What the allocator holds: in use in its heaps, free in them (part of it
/// still resident), and in use in blocks mapped apart.
fn allocator() -> String {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallinfo2` takes no pointer and returns a plain struct.
        let m = unsafe { libc::mallinfo2() };
        format!(
            "allocator: {} MB in use, {} MB free in its heaps, {} MB mapped apart",
            m.uordblks >> 20,
            m.fordblks >> 20,
            m.hblkhd >> 20
        )
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    String::from("allocator: no figures on this system")
}
