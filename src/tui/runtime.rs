//! The event loop: draws the state, turns terminal events and worker results
//! into messages, and carries out the effects `update` returns.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::Context;
use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::DefaultTerminal;

use super::app::keymap::Keymap;
use super::app::msg::{Effect, Msg};
use super::app::palette::Palette;
use super::app::{self, App};
use super::canvas;
use super::collection::{Request, Worker, WorkerConfig};
use crate::i18n::current;
use crate::model::Zone;
use crate::t;

/// How often the screen redraws while something is under way (the spinner).
const TICK: Duration = Duration::from_millis(250);

/// How often the clock moves on an idle screen: ages are shown to the second.
const CLOCK: Duration = Duration::from_secs(1);

/// How long the loop gets to finish by itself after a termination signal.
const GRACE: Duration = Duration::from_millis(500);

/// How the screen shows itself: its zone, colours and keys.
pub struct Looks {
    pub zone: Zone,
    pub palette: Palette,
    pub keymap: Keymap,
}

pub fn run(config: WorkerConfig, looks: Looks) -> anyhow::Result<i32> {
    let (tx, rx) = mpsc::channel();
    let keys = tx.clone();
    let operator = config.operator.clone();
    let config_frozen = config.fixed_now.is_some();
    let database = config.location.shown();
    let lang = config.lang;
    // Open the database first: a bad file is one line on stderr, not a broken screen.
    let worker = Worker::start(config, tx)?;
    worker.send(Request::Load);

    let stop = Arc::new(AtomicBool::new(false));
    let signals = watch_signals(Arc::clone(&stop))?;

    let mut app = App::new(false)
        .with_palette(looks.palette)
        .with_keymap(looks.keymap)
        .with_lang(lang)
        .with_zone(looks.zone)
        .with_operator(operator)
        .with_database(database);
    if config_frozen {
        app = app.with_frozen_clock();
    }
    let mut terminal =
        ratatui::try_init().with_context(|| t!(current(), "worker.start.terminal"))?;
    // After `try_init`'s own hook: a panic gives the mouse back first, then
    // the terminal is restored and the one line is said.
    let restores_terminal = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        release_mouse();
        restores_terminal(info);
    }));
    // From here every way out, an error too, gives the terminal back.
    let outcome = (|| {
        crossterm::execute!(std::io::stdout(), ReportClicks)
            .with_context(|| t!(current(), "worker.start.terminal"))?;
        let size = terminal.size()?;
        let _ = app::update(
            &mut app,
            Msg::Resize {
                width: size.width,
                height: size.height,
            },
        );
        read_terminal(keys, Arc::clone(&stop))?;
        event_loop(&mut terminal, &mut app, &worker, &rx, &stop)
    })();
    restore().with_context(|| t!(current(), "worker.start.restore"))?;
    signals.close();
    drop(worker);
    outcome
}

/// Gives the terminal back as it was: the mouse first (else the shell after
/// the screen would receive every click as text), then the rest.
fn restore() -> std::io::Result<()> {
    release_mouse();
    ratatui::try_restore()
}

/// Stops mouse reporting; a terminal gone cannot take it and needs nothing.
fn release_mouse() {
    let _ = crossterm::execute!(std::io::stdout(), StopReportingClicks);
}

/// Asks the terminal for presses, releases and the wheel (1000), in the SGR
/// encoding that has no column limit (1006). Not crossterm's
/// `EnableMouseCapture`: it also asks for every move of the pointer, which
/// the screen ignores and which would travel over SSH for nothing.
struct ReportClicks;

impl crossterm::Command for ReportClicks {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1000h\x1b[?1006h")
    }
}

/// Undoes [`ReportClicks`].
struct StopReportingClicks;

impl crossterm::Command for StopReportingClicks {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1006l\x1b[?1000l")
    }
}

/// SIGTERM, SIGHUP and SIGINT end the screen cleanly: the loop sees the flag
/// and restores the terminal. If the loop cannot (a terminal that hung up can
/// leave input polling stuck), the terminal is restored and the process exits
/// from here.
fn watch_signals(stop: Arc<AtomicBool>) -> anyhow::Result<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT])
        .with_context(|| t!(current(), "worker.start.signals"))?;
    let handle = signals.handle();
    std::thread::Builder::new()
        .name("receipt-review-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                stop.store(true, Ordering::SeqCst);
                std::thread::sleep(GRACE);
                let _ = restore();
                std::process::exit(128 + signal);
            }
        })
        .with_context(|| t!(current(), "worker.start.signals"))?;
    Ok(handle)
}

/// Terminal input arrives on the same channel as the worker's results, so the
/// screen answers whichever comes first without polling.
fn read_terminal(messages: Sender<Msg>, stop: Arc<AtomicBool>) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("receipt-review-keys".into())
        .spawn(move || {
            loop {
                let msg = match event::read() {
                    Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => Msg::Key(key),
                    // What the screen does with the mouse: a press of the
                    // left button, the wheel. Moves, drags and releases
                    // would only wake it to draw the same frame.
                    Ok(Event::Mouse(mouse))
                        if matches!(
                            mouse.kind,
                            MouseEventKind::Down(MouseButton::Left)
                                | MouseEventKind::ScrollDown
                                | MouseEventKind::ScrollUp
                        ) =>
                    {
                        Msg::Mouse(mouse)
                    }
                    Ok(Event::Resize(width, height)) => Msg::Resize { width, height },
                    Ok(_) => continue,
                    Err(_) => {
                        // The terminal is gone: end the screen.
                        stop.store(true, Ordering::SeqCst);
                        Msg::Tick
                    }
                };
                let gone = stop.load(Ordering::SeqCst);
                if messages.send(msg).is_err() || gone {
                    return;
                }
            }
        })
        .with_context(|| t!(current(), "worker.start.keys"))?;
    Ok(())
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    worker: &Worker,
    inbox: &Receiver<Msg>,
    stop: &AtomicBool,
) -> anyhow::Result<i32> {
    let mut clock_due = Instant::now();
    loop {
        if stop.load(Ordering::SeqCst) {
            return Ok(0);
        }
        let mut measured = Default::default();
        terminal.draw(|frame| measured = canvas::draw(frame, app))?;
        // What the frame measured comes first, before what woke the loop.
        let drawn = Msg::Drawn(measured);
        // Wake for the first message (a key, a worker result), the clock, or
        // a tick for the spinner while something is under way; then take
        // everything already waiting before drawing once.
        let busy = app.progress.is_some() || app.snapshot.is_none();
        let wait = clock_due
            .saturating_duration_since(Instant::now())
            .min(if busy { TICK } else { CLOCK });
        let first = match inbox.recv_timeout(wait) {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => Msg::Tick,
            Err(RecvTimeoutError::Disconnected) => return Ok(0),
        };
        let mut messages: Vec<Msg> = [drawn, first].into_iter().chain(inbox.try_iter()).collect();
        if Instant::now() >= clock_due {
            clock_due = Instant::now() + CLOCK;
            messages.push(Msg::Clock(crate::model::time::now_ms()));
        }
        for msg in messages {
            for effect in app::update(app, msg) {
                match effect {
                    Effect::Quit => return Ok(0),
                    Effect::Reload => worker.send(Request::Load),
                    Effect::LoadPayloads(refs) => worker.send(Request::Payloads(refs)),
                    Effect::Decide(request) => worker.send(Request::Decide(vec![request])),
                    Effect::DecideMany(requests) => worker.send(Request::DecideBatch(requests)),
                    Effect::Undo => worker.send(Request::Undo(None)),
                    Effect::UndoConfirmed(wide) => worker.send(Request::Undo(Some(wide))),
                    Effect::Reopen(reopen) => worker.send(Request::Reopen(reopen)),
                    Effect::Export(format) => worker.send(Request::Export(format)),
                    Effect::Copy(text) => copy_to_clipboard(&text),
                    Effect::Find { query, now_ms } => worker.send(Request::Find(query, now_ms)),
                    Effect::PlanErase(ask) => worker.send(Request::PlanErase(ask)),
                    Effect::Erase(ask) => worker.send(Request::Erase(ask)),
                }
            }
        }
    }
}

/// Hands `text` to the terminal's clipboard (OSC 52: `ESC ] 52 ; c ; base64 BEL`), which
/// terminals pass on over SSH and tmux keeps with `set-clipboard on`. The text is cleaned
/// before (`update::copy::clipboard_text`); a terminal that ignores it shows nothing.
fn copy_to_clipboard(text: &str) {
    use base64::Engine as _;
    use std::io::Write as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}
