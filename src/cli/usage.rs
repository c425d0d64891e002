//! A usage error as one line in the user's language: what is wrong, and
//! the command's own `--help` to read. clap's own words are not shown (they
//! are English, and several lines): the line is made from the error's kind
//! and context.

use std::error::Error as _;
use std::ffi::OsString;
use std::path::Path;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::i18n::{self, Lang};
use crate::sanitize::inline;
use crate::t;

/// `receipt-review report`, or `receipt-review` for no command.
pub fn program(command: Option<&str>) -> String {
    match command {
        Some(name) => format!("receipt-review {name}"),
        None => "receipt-review".to_string(),
    }
}

/// The line for a problem with how `command` was called: the problem, then
/// where to read how to call it.
pub fn line(lang: Lang, command: Option<&str>, problem: &str) -> String {
    t!(
        lang,
        "cli.error.line",
        problem = problem,
        command = program(command)
    )
}

/// What is wrong, for a clap error that is not help or a version; `args`
/// are the words it was given (the program's name first).
pub fn problem(
    lang: Lang,
    command: Option<&str>,
    error: &clap::Error,
    args: &[OsString],
) -> String {
    let text = |kind: ContextKind| match error.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        Some(ContextValue::Strings(list)) => Some(list.join(", ")),
        Some(ContextValue::StyledStrs(list)) => Some(
            list.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    };
    let shown = |kind: ContextKind| inline(&text(kind).unwrap_or_default(), 60);
    // `--window <DURATION>` → `--window`: the option as it is typed.
    let option = || {
        let arg = shown(ContextKind::InvalidArg);
        arg.split([' ', '=']).next().unwrap_or_default().to_string()
    };
    let suggestion = |found: String| match text(ContextKind::SuggestedArg)
        .or_else(|| text(ContextKind::SuggestedSubcommand))
    {
        Some(s) => t!(
            lang,
            "cli.error.did_you_mean",
            found = found,
            suggestion = inline(&s, 40)
        ),
        None => found,
    };
    match error.kind() {
        ErrorKind::MissingRequiredArgument => {
            let missing = match error.get(ContextKind::InvalidArg) {
                Some(ContextValue::Strings(list)) => list.clone(),
                _ => Vec::new(),
            };
            let what: Vec<String> = missing.iter().map(|arg| described(lang, arg)).collect();
            t!(
                lang,
                "cli.error.missing",
                command = command.unwrap_or("receipt-review"),
                what = listed(lang, &what)
            )
        }
        ErrorKind::UnknownArgument => {
            let arg = shown(ContextKind::InvalidArg);
            if arg.starts_with('-') {
                suggestion(t!(lang, "cli.error.unknown_option", arg = arg))
            } else {
                t!(lang, "cli.error.unexpected_argument", arg = arg)
            }
        }
        ErrorKind::InvalidSubcommand => suggestion(t!(
            lang,
            "cli.error.unknown_command",
            name = shown(ContextKind::InvalidSubcommand)
        )),
        ErrorKind::InvalidValue if shown(ContextKind::InvalidValue).is_empty() => {
            t!(lang, "cli.error.needs_value", arg = option())
        }
        ErrorKind::InvalidValue => t!(
            lang,
            "cli.error.invalid_value",
            arg = option(),
            value = shown(ContextKind::InvalidValue),
            values = shown(ContextKind::ValidValue)
        ),
        ErrorKind::ValueValidation => {
            let why = error
                .source()
                .map(|e| inline(&e.to_string(), 160))
                .unwrap_or_else(|| shown(ContextKind::InvalidValue));
            t!(lang, "cli.error.bad_value", arg = option(), why = why)
        }
        // Without a command the program takes one database; a second word
        // is read as a command that cannot follow it.
        ErrorKind::ArgumentConflict
            if command.is_none() && text(ContextKind::InvalidSubcommand).is_some() =>
        {
            stray_word(lang, args, &shown(ContextKind::InvalidSubcommand))
        }
        ErrorKind::ArgumentConflict => t!(
            lang,
            "cli.error.conflict",
            arg = option(),
            other = shown(ContextKind::PriorArg)
        ),
        ErrorKind::NoEquals
        | ErrorKind::TooManyValues
        | ErrorKind::TooFewValues
        | ErrorKind::WrongNumberOfValues => {
            t!(lang, "cli.error.values", arg = option())
        }
        ErrorKind::InvalidUtf8 => t!(lang, "cli.error.not_utf8").to_string(),
        _ => {
            // Any other kind: clap's first line, for want of better words.
            let rendered = error.render().to_string();
            let first = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default()
                .trim_start_matches("error: ");
            t!(lang, "cli.error.other", detail = inline(first, 160))
        }
    }
}

/// Two words where the screen takes one database: the first was most
/// likely a mistyped command when it is a plain word and no file, else the
/// second is one too many.
fn stray_word(lang: Lang, args: &[OsString], second: &str) -> String {
    let first = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|w| !w.starts_with('-'))
        .unwrap_or_default();
    let plain = !first.is_empty()
        && first
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if plain && !Path::new(first).exists() {
        let known = super::localize::command(lang);
        let closest = known
            .get_subcommands()
            .map(|s| s.get_name())
            .map(|name| (strsim::jaro(first, name), name))
            .filter(|(score, _)| *score >= 0.7)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let unknown = t!(lang, "cli.error.unknown_command", name = inline(first, 40));
        return match closest {
            Some((_, name)) => t!(
                lang,
                "cli.error.did_you_mean",
                found = unknown,
                suggestion = name
            ),
            None => unknown,
        };
    }
    t!(lang, "cli.error.unexpected_argument", arg = second)
}

/// `a`, `a and b`, `a, b and c`.
fn listed(lang: Lang, items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [head @ .., last] => format!(
            "{}{}{last}",
            head.join(t!(lang, "cli.error.comma")),
            t!(lang, "cli.error.and")
        ),
    }
}

/// `<DB>` → "a database file (DB)": what a missing argument is, in words.
fn described(lang: Lang, arg: &str) -> String {
    let name = arg
        .trim_start_matches('-')
        .split([' ', '='])
        .next()
        .unwrap_or_default()
        .trim_matches(['<', '>', '.'])
        .to_ascii_lowercase()
        .replace('-', "_");
    let key = format!("cli.arg.{name}");
    let text = i18n::text(lang, &key);
    if text == key {
        inline(arg, 40)
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::localize;

    fn problem_of(lang: Lang, words: &[&str]) -> String {
        let args: Vec<std::ffi::OsString> = words.iter().map(Into::into).collect();
        let mut cmd = localize::command(lang);
        let error = cmd.try_get_matches_from_mut(&args).unwrap_err();
        let command = localize::subcommand_in(&cmd, &args);
        line(
            lang,
            command.as_deref(),
            &problem(lang, command.as_deref(), &error, &args),
        )
    }

    #[test]
    fn each_kind_of_mistake_is_named() {
        let en = |words: &[&str]| problem_of(Lang::En, words);
        assert_eq!(
            en(&["rr", "find"]),
            "find needs a database file (DB); see receipt-review find --help"
        );
        assert_eq!(
            en(&["rr", "resolve", "x.db"]),
            "resolve needs an item (ITEM, e.g. dup:12) and a decision (DECISION); see receipt-review resolve --help"
        );
        assert_eq!(
            en(&["rr", "resolve"]),
            "resolve needs a database file (DB), an item (ITEM, e.g. dup:12) and a decision (DECISION); see receipt-review resolve --help"
        );
        assert!(
            en(&["rr", "report", "x.db", "--jsn"])
                .starts_with("unknown option --jsn (did you mean --json?)"),
            "{}",
            en(&["rr", "report", "x.db", "--jsn"])
        );
        assert_eq!(
            en(&["rr", "export", "x.db", "--format", "xml"]),
            "--format cannot be xml: use one of csv, jsonl; see receipt-review export --help"
        );
        assert_eq!(
            en(&["rr", "report", "x.db", "--window"]),
            "--window needs a value; see receipt-review report --help"
        );
        assert_eq!(
            en(&["rr", "check", "x.db", "--window", "5m"]),
            "unknown option --window; see receipt-review check --help"
        );
        assert_eq!(
            en(&["rr", "x.db", "y.db"]),
            "unexpected argument y.db; see receipt-review --help"
        );
        assert_eq!(
            en(&["rr", "frobnicate", "x.db", "y"]),
            "unknown command frobnicate; see receipt-review --help"
        );
        assert_eq!(
            en(&["rr", "reprot", "x.db"]),
            "unknown command reprot (did you mean report?); see receipt-review --help"
        );
    }

    #[test]
    fn durations_say_they_must_be_positive() {
        let en = |words: &[&str]| problem_of(Lang::En, words);
        for bad in ["-5m", "0", "-0", "0ms"] {
            assert_eq!(
                en(&["rr", "report", "x.db", "--window", bad]),
                format!(
                    "--window must be a positive duration (more than 0, e.g. 90s, 10m), not {bad:?}; see receipt-review report --help"
                )
            );
        }
    }
}
