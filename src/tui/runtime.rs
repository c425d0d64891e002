//! The event loop: draws the state, turns terminal events and worker results
//! into messages, and carries out the effects `update` returns.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use anyhow::Context;
use crossterm::event::{self, Event, KeyEventKind};
use ratatui::DefaultTerminal;

use super::app::msg::{Effect, Msg};
use super::app::{self, App};
use super::canvas;
use super::collection::{Request, Worker, WorkerConfig};

/// How long to wait for a key before looking at the worker's messages again.
const POLL: Duration = Duration::from_millis(40);

pub fn run(config: WorkerConfig) -> anyhow::Result<i32> {
    let (tx, rx) = mpsc::channel();
    let operator = config.operator.clone();
    let database = config.path.display().to_string();
    // Open the database first: a bad file is one line on stderr, not a broken screen.
    let worker = Worker::start(config, tx)?;
    worker.send(Request::Load);

    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
        signal_hook::consts::SIGINT,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("cannot watch for termination signals")?;
    }

    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut app = App::new(no_color)
        .with_operator(operator)
        .with_database(database);
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let size = terminal.size()?;
    let _ = app::update(
        &mut app,
        Msg::Resize {
            width: size.width,
            height: size.height,
        },
    );
    let outcome = event_loop(&mut terminal, &mut app, &worker, &rx, &stop);
    ratatui::try_restore().context("cannot restore the terminal")?;
    drop(worker);
    outcome
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    worker: &Worker,
    inbox: &Receiver<Msg>,
    stop: &AtomicBool,
) -> anyhow::Result<i32> {
    let mut dirty = true;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        if dirty {
            terminal.draw(|frame| canvas::draw(frame, app))?;
            dirty = false;
        }
        let mut messages: Vec<Msg> = inbox.try_iter().collect();
        if event::poll(if messages.is_empty() {
            POLL
        } else {
            Duration::ZERO
        })? {
            match event::read()? {
                Event::Key(key) if key.kind != KeyEventKind::Release => {
                    messages.push(Msg::Key(key))
                }
                Event::Resize(width, height) => messages.push(Msg::Resize { width, height }),
                _ => {}
            }
        }
        for msg in messages {
            dirty = true;
            for effect in app::update(app, msg) {
                match effect {
                    Effect::Quit => return Ok(0),
                    Effect::Reload => worker.send(Request::Load),
                    Effect::LoadPayloads(refs) => worker.send(Request::Payloads(refs)),
                    Effect::Decide(request) => worker.send(Request::Decide(vec![request])),
                    Effect::DecideMany(requests) => worker.send(Request::Decide(requests)),
                    Effect::Undo => worker.send(Request::Undo),
                    Effect::Export(format) => worker.send(Request::Export(format)),
                }
            }
        }
    }
}
