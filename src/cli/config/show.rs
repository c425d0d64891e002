//! `receipt-review config`: the config file read (or where none was found)
//! and each value in effect with where it came from, so an operator sees
//! why the screen opens as it does.

use super::{DeskConfig, Found};
use crate::cli::args::ConfigArgs;
use crate::cli::{operator, output};
use crate::i18n::{self, Lang};
use crate::model::{Millis, Settings, Zone};
use crate::sanitize::inline;
use crate::storage::error::show_path;
use crate::t;
use crate::tui::app::palette::Palette;

/// Where the language came from (it is chosen before the command line is parsed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LangSource {
    CommandLine,
    ConfigFile,
    Locale,
}

impl LangSource {
    pub fn of(command_line: Option<Lang>, file: Option<Lang>) -> LangSource {
        match (command_line, file) {
            (Some(_), _) => LangSource::CommandLine,
            (None, Some(_)) => LangSource::ConfigFile,
            (None, None) => LangSource::Locale,
        }
    }
}

/// Where a value in effect came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum From {
    CommandLine,
    ConfigFile,
    Environment(&'static str),
    Login,
    System,
    Locale,
    Default,
}

impl From {
    fn said(self, lang: Lang) -> String {
        match self {
            From::CommandLine => t!(lang, "config.show.from.command_line").into(),
            From::ConfigFile => t!(lang, "config.show.from.file").into(),
            From::Environment(var) => t!(lang, "config.show.from.environment", var = var),
            From::Login => t!(lang, "config.show.from.login").into(),
            From::System => t!(lang, "config.show.from.system").into(),
            From::Locale => t!(lang, "config.show.from.locale").into(),
            From::Default => t!(lang, "config.show.from.default").into(),
        }
    }
}

/// The first of the command line's and the file's values that is there.
fn pick<T: Clone>(command_line: &Option<T>, file: &Option<T>) -> Option<(T, From)> {
    command_line
        .clone()
        .map(|v| (v, From::CommandLine))
        .or_else(|| file.clone().map(|v| (v, From::ConfigFile)))
}

pub fn run(desk: &DeskConfig, args: &ConfigArgs, lang_source: LangSource) -> anyhow::Result<i32> {
    let lang = i18n::current();
    let file = &desk.values;
    let mut rows: Vec<(&'static str, String, Option<From>)> = Vec::new();

    let (operator, from) = match pick(&args.operator, &file.operator) {
        Some(found) => found,
        None => (String::new(), From::Login),
    };
    let operator = operator::resolve((from != From::Login).then_some(operator))?;
    rows.push(("config.show.operator", inline(&operator, 64), Some(from)));

    let (tz, from) = match pick(&args.tz, &file.tz) {
        Some((tz, from)) => (Some(tz), from),
        None if std::env::var("TZ").is_ok_and(|v| !v.trim().is_empty()) => {
            (None, From::Environment("TZ"))
        }
        None => (None, From::System),
    };
    let zone = Zone::operator(tz.as_deref()).map_err(crate::cli::error::unusable)?;
    rows.push(("config.show.zone", zone.name().to_string(), Some(from)));

    let lang_from = match lang_source {
        LangSource::CommandLine => From::CommandLine,
        LangSource::ConfigFile => From::ConfigFile,
        LangSource::Locale => From::Locale,
    };
    rows.push(("config.show.lang", lang.code().to_string(), Some(lang_from)));

    rows.push(match pick(&args.db, &file.database) {
        Some((db, from)) => ("config.show.database", db.shown(), Some(from)),
        None => (
            "config.show.database",
            t!(lang, "config.show.no_database").into(),
            None,
        ),
    });

    for (label, given, in_file, default) in [
        (
            "config.show.window",
            args.analysis.window,
            file.window,
            Settings::DEFAULT_WINDOW_MS,
        ),
        (
            "config.show.stuck_after",
            args.analysis.stuck_after,
            file.stuck_after,
            Settings::DEFAULT_STUCK_AFTER_MS,
        ),
    ] {
        let (ms, from) = pick(&given, &in_file).unwrap_or((default, From::Default));
        rows.push((label, duration_text(ms), Some(from)));
    }

    let given_fields =
        (!args.analysis.ignore_fields.is_empty()).then(|| args.analysis.ignore_fields.clone());
    rows.push(match pick(&given_fields, &file.ignore_fields) {
        Some((fields, from)) => (
            "config.show.ignore_fields",
            fields
                .iter()
                .map(|f| inline(f, 40))
                .collect::<Vec<_>>()
                .join(", "),
            Some(from),
        ),
        None => (
            "config.show.ignore_fields",
            t!(lang, "config.show.none").into(),
            None,
        ),
    });

    let palette = desk.palette();
    rows.push(if palette == Palette::Plain {
        (
            "config.show.theme",
            palette.name().to_string(),
            Some(From::Environment("NO_COLOR")),
        )
    } else {
        let from = if file.theme.is_some() {
            From::ConfigFile
        } else {
            From::Default
        };
        ("config.show.theme", palette.name().to_string(), Some(from))
    });

    let remapped = desk.keymap().remapped_actions(lang);
    rows.push(if remapped.is_empty() {
        (
            "config.show.keys",
            t!(lang, "config.show.keys_as_shipped").into(),
            Some(From::Default),
        )
    } else {
        let list = remapped
            .iter()
            .map(|(action, keys)| format!("{action} = {keys}"))
            .collect::<Vec<_>>()
            .join("; ");
        ("config.show.keys", list, Some(From::ConfigFile))
    });

    let mut text = format!("{}\n", found_line(&desk.found, lang));
    let labels: Vec<&str> = rows
        .iter()
        .map(|(key, _, _)| i18n::text(lang, key))
        .collect();
    let width = labels
        .iter()
        .map(|l| i18n::width::width(l))
        .max()
        .unwrap_or(0);
    for ((_, value, from), label) in rows.iter().zip(labels) {
        text.push_str(&i18n::pad_right(label, width + 2));
        text.push_str(value);
        if let Some(from) = from {
            text.push_str("  ");
            text.push_str(&t!(lang, "config.show.source", from = from.said(lang)));
        }
        text.push('\n');
    }
    output::print(&text)?;
    Ok(0)
}

/// The first line: which file, and why that one.
fn found_line(found: &Found, lang: Lang) -> String {
    match found {
        Found::Named(path) => t!(lang, "config.show.file_named", path = show_path(path)),
        Found::Default(path) => t!(lang, "config.show.file_default", path = show_path(path)),
        Found::Missing(Some(path)) => {
            t!(lang, "config.show.file_missing", path = show_path(path))
        }
        Found::Missing(None) => t!(lang, "config.show.file_no_home").into(),
    }
}

/// 600000 → `10m`, 90000 → `90s`: how the file and the options write it.
fn duration_text(ms: Millis) -> String {
    match ms {
        ms if ms % 3_600_000 == 0 => format!("{}h", ms / 3_600_000),
        ms if ms % 60_000 == 0 => format!("{}m", ms / 60_000),
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        ms => format!("{ms}ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_they_are_written() {
        assert_eq!(duration_text(600_000), "10m");
        assert_eq!(duration_text(90_000), "90s");
        assert_eq!(duration_text(7_200_000), "2h");
        assert_eq!(duration_text(1_500), "1500ms");
    }

    #[test]
    fn the_language_comes_from_the_first_that_names_one() {
        assert_eq!(
            LangSource::of(Some(Lang::En), Some(Lang::Ja)),
            LangSource::CommandLine
        );
        assert_eq!(LangSource::of(None, Some(Lang::Ja)), LangSource::ConfigFile);
        assert_eq!(LangSource::of(None, None), LangSource::Locale);
    }
}
