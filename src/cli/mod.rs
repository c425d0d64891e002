//! The command line: parse, dispatch, and turn every error into one line and an exit code,
//! in the user's language (`--lang`, else the locale).

pub mod args;
mod commands;
mod decisions;
pub mod error;
mod export_limits;
mod lang;
pub mod localize;
mod operator;
mod output;
mod serve;
mod simulate;
mod usage;

use std::ffi::OsString;

use clap::FromArgMatches;

use crate::i18n::{self, Lang};
use args::{Cli, Command};

/// Runs the program and returns its exit code.
pub fn main() -> i32 {
    install_panic_hook();
    let (lang, args) = match lang::take_lang(std::env::args_os().collect()) {
        Ok((lang, args)) => (lang.unwrap_or_else(Lang::detect), args),
        Err(lang::UnknownLang(value)) => {
            let lang = Lang::detect();
            let problem = crate::t!(
                lang,
                "cli.error.unknown_lang",
                value = crate::sanitize::inline(&value, 20)
            );
            eprintln!("receipt-review: {}", usage::line(lang, None, &problem));
            return 2;
        }
    };
    i18n::set_current(lang);
    let cli = match parse(lang, &args) {
        Ok(cli) => cli,
        Err(code) => return code,
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
        Some(Command::Check { db }) => commands::check(&db),
        Some(Command::Resolve {
            db,
            item,
            decision,
            note,
            operator,
            keep,
            analysis,
        }) => commands::resolve(&db, &item, &decision, note, operator, keep, &analysis),
        Some(Command::Reopen {
            db,
            item,
            note,
            operator,
        }) => decisions::reopen(&db, &item, note, operator),
        Some(Command::Export {
            db,
            format,
            bom,
            out,
            limits,
        }) => commands::export(&db, format, bom, out.as_deref(), &limits),
        Some(Command::Canonical { digest }) => commands::canonical(digest),
        Some(Command::Init { db }) => commands::init(&db),
        Some(Command::Serve {
            db,
            config,
            log_format,
        }) => serve::run(&db, &config, log_format),
        Some(Command::Simulate(args)) => simulate::run(&args),
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

/// The command line, read by clap in `lang`'s words. `--help` and
/// `--version` print as usual (exit 0); a usage error is one line naming
/// the mistake and the command's own `--help` (exit 2).
fn parse(lang: Lang, args: &[OsString]) -> Result<Cli, i32> {
    let mut command = localize::command(lang);
    let error = match command.try_get_matches_from_mut(args) {
        Ok(matches) => match Cli::from_arg_matches(&matches) {
            Ok(cli) => return Ok(cli),
            Err(e) => e,
        },
        Err(e) => e,
    };
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            Err(0)
        }
        _ => {
            // `help` has no `--help` of its own: the program's is meant.
            let name = localize::subcommand_in(&command, args).filter(|n| n != "help");
            let problem = usage::problem(lang, name.as_deref(), &error, args);
            eprintln!(
                "receipt-review: {}",
                crate::sanitize::clean(&usage::line(lang, name.as_deref(), &problem))
            );
            Err(2)
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
