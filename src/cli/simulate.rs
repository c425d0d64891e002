//! `simulate URL`: realistic traffic to a running `serve` until its time is
//! up (and its follow-ups sent), Ctrl-C or SIGTERM, with a progress line on
//! stderr (rewritten in place on a terminal) and the summary on stdout.
//!
//! Exit codes: 0 when the run ended as planned or was stopped; 1 when the
//! server could not be reached, or stopped answering; 2 for a bad address,
//! a form that is not there, or a page that is not a form.

use std::cell::Cell;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use unicode_width::UnicodeWidthChar;

use super::args::SimulateArgs;
use super::error::{unusable, usage};
use super::output;
use crate::i18n::{self, Lang};
use crate::sanitize::inline;
use crate::simulate::{self, Ended, Event, Options, Progress, Target, Timing, Unreachable};
use crate::t;

pub fn run(args: &SimulateArgs) -> anyhow::Result<i32> {
    let lang = i18n::current();
    let target =
        Target::parse(&args.url).map_err(|e| usage("simulate", e.message(lang, &args.url)))?;
    let form = args
        .form
        .clone()
        .or_else(|| target.form.clone())
        .unwrap_or_else(|| "contact".to_string());
    let url = target.form_url(&form);
    let options = Options {
        target,
        form: form.clone(),
        rate: args.rate,
        seconds: (args.seconds > 0).then_some(args.seconds),
        seed: args
            .seed
            .unwrap_or_else(|| u64::from(rand::random::<u32>())),
        honeypot: args.honeypot.clone(),
        timing: Timing {
            reload_after_ms: args.reload_after,
            resend_after_ms: args.resend_after,
        },
    };
    let stop = stop_on_signals()?;
    let live = Live::new(args.quiet);
    let shown_url = inline(&url, 100);
    let mut events = |event: Event<'_>| match event {
        Event::Started { honeypot } => {
            if !args.quiet {
                live.line(&started(lang, &options, &shown_url, honeypot));
            }
        }
        Event::Progress(p) => live.progress(p.tally.posts, &progress_line(lang, p)),
        Event::RateLimited => live.line(t!(lang, "simulate.notice.rate_limited")),
    };
    let outcome = match simulate::run(&options, &stop, &mut events) {
        Ok(outcome) => outcome,
        Err(Unreachable::NoAnswer(why)) => {
            anyhow::bail!(
                "{}",
                t!(
                    lang,
                    "simulate.error.unreachable",
                    url = shown_url,
                    why = inline(&why, 120)
                )
            )
        }
        Err(Unreachable::Status(404)) => {
            return Err(unusable(t!(
                lang,
                "simulate.error.no_form",
                form = crate::sanitize::inline(&form, 64),
                url = shown_url
            )));
        }
        Err(Unreachable::Status(status)) => {
            anyhow::bail!(
                "{}",
                t!(
                    lang,
                    "simulate.error.page_status",
                    url = shown_url,
                    status = status
                )
            )
        }
        Err(Unreachable::NoFields) => {
            return Err(unusable(t!(
                lang,
                "simulate.error.no_fields",
                url = shown_url
            )));
        }
    };
    live.clear();
    let tally = &outcome.tally;
    let head = match outcome.ended {
        Ended::Finished => "simulate.done.finished",
        Ended::Stopped => "simulate.done.stopped",
        Ended::ServerGone => "simulate.done.server_gone",
    };
    let head = i18n::fill(
        lang,
        head,
        &[
            ("visitors", &outcome.visitors),
            ("seconds", &outcome.elapsed.as_secs()),
            ("url", &shown_url),
            ("seed", &options.seed),
        ],
    );
    output::print(&format!(
        "{head}\n{}\n{}\n{}\n",
        tally.answers_line(lang),
        tally.totals_line(lang),
        tally.pathways_line(lang)
    ))?;
    if outcome.ended == Ended::ServerGone {
        eprintln!(
            "receipt-review: {}",
            t!(
                lang,
                "simulate.error.server_gone",
                url = shown_url,
                seconds = simulate::GIVE_UP_AFTER.as_secs()
            )
        );
        return Ok(1);
    }
    Ok(0)
}

/// The first Ctrl-C or SIGTERM stops the run (its summary is printed); a
/// second one ends the program at once.
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    let stop = Arc::new(AtomicBool::new(false));
    for (signal, status) in [(SIGINT, 130), (SIGTERM, 143)] {
        flag::register_conditional_shutdown(signal, status, Arc::clone(&stop))?;
        flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}

fn started(lang: Lang, options: &Options, url: &str, honeypot: &str) -> String {
    let honeypot = inline(honeypot, 64);
    match options.seconds {
        Some(seconds) => t!(
            lang,
            "simulate.start",
            rate = options.rate,
            seconds = seconds,
            url = url,
            seed = options.seed,
            honeypot = honeypot
        ),
        None => t!(
            lang,
            "simulate.start_endless",
            rate = options.rate,
            url = url,
            seed = options.seed,
            honeypot = honeypot
        ),
    }
}

fn progress_line(lang: Lang, p: &Progress<'_>) -> String {
    let finishing = if !p.arriving && p.waiting > 0 {
        t!(
            lang,
            "simulate.finishing",
            waiting = p.waiting,
            seconds = p.last_due_in.map_or(0, |d| d.as_secs())
        )
    } else {
        String::new()
    };
    t!(
        lang,
        "simulate.live",
        elapsed = p.elapsed.as_secs(),
        visitors = p.visitors,
        receipts = p.tally.receipts(),
        finishing = finishing,
        answers = p.tally.answers_line(lang)
    )
}

/// The progress line: rewritten in place each second on a terminal;
/// otherwise (a log) a line a second while requests are sent.
struct Live {
    quiet: bool,
    /// The terminal's width, when stderr is one.
    columns: Option<usize>,
    shown: Cell<bool>,
    /// Posts when the last line was written.
    posts: Cell<Option<u64>>,
}

impl Live {
    fn new(quiet: bool) -> Self {
        let columns = std::io::stderr()
            .is_terminal()
            .then(|| crossterm::terminal::size().map_or(80, |(w, _)| usize::from(w)));
        Self {
            quiet,
            columns,
            shown: Cell::new(false),
            posts: Cell::new(None),
        }
    }

    fn progress(&self, posts: u64, text: &str) {
        if self.quiet {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = match self.columns {
            Some(columns) => {
                self.shown.set(true);
                write!(err, "\r\x1b[K{}", fit(text, columns.saturating_sub(1)))
            }
            None if self.posts.replace(Some(posts)) == Some(posts) => return,
            None => writeln!(err, "{text}"),
        };
        let _ = err.flush();
    }

    /// A line of its own (the progress line, if shown, is cleared first).
    fn line(&self, text: &str) {
        self.clear();
        eprintln!("{text}");
    }

    fn clear(&self) {
        if self.shown.replace(false) {
            eprint!("\r\x1b[K");
        }
    }
}

/// `text` cut to `columns` terminal columns.
fn fit(text: &str, columns: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > columns {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_line_is_cut_by_columns() {
        assert_eq!(fit("abcdef", 4), "abcd");
        assert_eq!(fit("送信 12 件", 5), "送信 ");
        assert_eq!(fit("ok", 10), "ok");
    }
}
