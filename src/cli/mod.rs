//! The command line: parse, dispatch, and turn every error into one line and an exit code,
//! in the user's language (`--lang`, else the locale).

pub mod args;
mod commands;
pub mod config;
mod decisions;
mod early;
mod erase;
pub mod error;
mod export_limits;
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
    let (early, args) = match early::take_early(std::env::args_os().collect()) {
        Ok(taken) => taken,
        Err(early::UnknownLang(value)) => {
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
    // The file's messages are in the language asked for so far.
    i18n::set_current(early.lang.unwrap_or_else(Lang::detect));
    let desk = match config::DeskConfig::load(early.config_file.as_deref()) {
        Ok(desk) => desk,
        Err(e) => {
            eprintln!("receipt-review: {}", crate::sanitize::inline(&e.0, 400));
            return 2;
        }
    };
    let lang_source = config::show::LangSource::of(early.lang, desk.lang());
    let lang = early.lang.or(desk.lang()).unwrap_or_else(Lang::detect);
    i18n::set_current(lang);
    let mut cli = match parse(lang, &args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    desk.fill(&mut cli);
    let result = match cli.command {
        None => commands::screen(&cli.tui, &desk),
        Some(Command::Report {
            db,
            json,
            tz,
            period,
            analysis,
        }) => config::database(&db, "report")
            .and_then(|db| commands::report(db, json, tz.as_deref(), period, &analysis)),
        Some(Command::Find {
            db,
            query,
            json,
            tz,
            analysis,
        }) => commands::find(&db, &query.join(" "), json, tz.as_deref(), &analysis),
        Some(Command::Check { db }) => config::database(&db, "check").and_then(commands::check),
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
        }) => config::database(&db, "export")
            .and_then(|db| commands::export(db, format, bom, out.as_deref(), &limits)),
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
        Some(Command::Config(args)) => config::show::run(&desk, &args, lang_source),
        Some(Command::Erase(args)) => {
            config::database(&args.db, "erase").and_then(|db| erase::run(db, &args))
        }
    };
    finish(result)
}

/// The exit code of a command's result; an error is one line on stderr.
fn finish(result: anyhow::Result<i32>) -> i32 {
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
