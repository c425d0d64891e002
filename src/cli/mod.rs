//! The command line: parse, dispatch, and turn every error into one line and an exit code.

pub mod args;
mod commands;
pub mod error;
mod operator;
mod output;

use clap::Parser;

use args::{Cli, Command};

/// Runs the program and returns its exit code.
pub fn main() -> i32 {
    install_panic_hook();
    crate::i18n::set_current(crate::i18n::Lang::detect());
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    let result = match cli.command {
        None => commands::screen(&cli.tui),
        Some(Command::Report {
            db,
            json,
            tz,
            period,
            analysis,
        }) => commands::report(&db, json, tz.as_deref(), period, &analysis),
        Some(Command::Find {
            db,
            query,
            json,
            tz,
            analysis,
        }) => commands::find(&db, &query.join(" "), json, tz.as_deref(), &analysis),
        Some(Command::Check { db, analysis }) => commands::check(&db, &analysis),
        Some(Command::Resolve {
            db,
            item,
            decision,
            note,
            operator,
            analysis,
        }) => commands::resolve(&db, &item, &decision, note, operator, &analysis),
        Some(Command::Export { db, format, out }) => commands::export(&db, format, out.as_deref()),
        Some(Command::Canonical { digest }) => commands::canonical(digest),
        Some(Command::Init { db }) => commands::init(&db),
        Some(Command::Demo {
            out,
            receipts,
            seed,
            now,
        }) => commands::demo(&out, receipts, seed, now),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("receipt-review: {}", crate::sanitize::error_line(&e));
            error::exit_code(&e)
        }
    }
}

/// `--help` and `--version` print as usual; a usage error is one line and exit 2.
fn clap_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            0
        }
        _ => {
            let rendered = e.render().to_string();
            let first = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("bad usage")
                .trim_start_matches("error: ");
            eprintln!(
                "receipt-review: {} (see receipt-review --help)",
                crate::sanitize::clean(first)
            );
            2
        }
    }
}

/// A bug must still end as one line, never a backtrace. The TUI wraps this
/// hook with one that restores the terminal first.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "receipt-review: internal error{place}: {}",
            crate::sanitize::clean(&message)
        );
    }));
}
