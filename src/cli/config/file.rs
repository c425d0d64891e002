//! The config file's text, read and checked: every value is tried when the
//! file is read, and a bad one is one line naming the file, the key and what
//! it expected.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::cli::args::parse_duration_ms;
use crate::i18n::{self, Lang};
use crate::model::{Millis, Zone};
use crate::sanitize::inline;
use crate::storage::Location;
use crate::t;
use crate::tui::app::keymap::{Keymap, remap};
use crate::tui::app::palette::Palette;

/// The file as TOML gives it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFile {
    operator: Option<String>,
    tz: Option<String>,
    lang: Option<String>,
    database: Option<String>,
    theme: Option<String>,
    analysis: Option<RawAnalysis>,
    keys: Option<BTreeMap<String, KeyList>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAnalysis {
    window: Option<String>,
    stuck_after: Option<String>,
    ignore_fields: Option<Vec<String>>,
}

/// `undo = "u"` or `undo = ["u", "Ctrl-z"]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum KeyList {
    One(String),
    Many(Vec<String>),
}

/// What the file sets; `None` where it says nothing.
#[derive(Clone, Debug, Default)]
pub struct FileValues {
    pub operator: Option<String>,
    pub tz: Option<String>,
    pub lang: Option<Lang>,
    pub database: Option<Location>,
    pub theme: Option<Palette>,
    pub window: Option<Millis>,
    pub stuck_after: Option<Millis>,
    pub ignore_fields: Option<Vec<String>>,
    /// The keymap with the file's `[keys]` applied (the table's without any).
    pub keymap: Keymap,
    /// True when the file has a `[keys]` table.
    pub remaps_keys: bool,
}

/// A config file that cannot be used: one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigFileError(pub String);

/// Reads and checks the file at `path`.
pub fn read(path: &Path) -> Result<FileValues, ConfigFileError> {
    let shown = crate::storage::error::show_path(path);
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigFileError(t!(
            i18n::current(),
            "config.file.unreadable",
            path = shown,
            error = e
        ))
    })?;
    parse(&text, &shown, path.parent().unwrap_or(Path::new(".")))
}

/// Checks a file's text; `origin` names it in messages, and a relative
/// `database` path is read from `folder` (the file's own).
pub fn parse(text: &str, origin: &str, folder: &Path) -> Result<FileValues, ConfigFileError> {
    let lang = i18n::current();
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
            .unwrap_or(1);
        let problem = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
        ConfigFileError(t!(
            lang,
            "config.file.syntax",
            path = origin,
            line = line,
            problem = inline(&problem, 200)
        ))
    })?;
    let bad = |key: &str, why: String| {
        ConfigFileError(t!(
            lang,
            "config.file.bad_value",
            path = origin,
            key = key,
            why = why
        ))
    };
    let mut values = FileValues::default();
    if let Some(name) = raw.operator {
        let name = name.trim().to_string();
        if !crate::cli::operator::usable(&name) {
            return Err(bad(
                "operator",
                t!(lang, "config.file.why.operator", text = inline(&name, 40)),
            ));
        }
        values.operator = Some(name);
    }
    if let Some(tz) = raw.tz {
        Zone::parse(&tz)
            .map_err(|_| bad("tz", t!(lang, "config.file.why.tz", text = inline(&tz, 40))))?;
        values.tz = Some(tz);
    }
    if let Some(code) = raw.lang {
        let chosen = Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(code.trim()));
        values.lang = Some(chosen.ok_or_else(|| {
            bad(
                "lang",
                t!(lang, "config.file.why.lang", text = inline(&code, 20)),
            )
        })?);
    }
    if let Some(db) = raw.database {
        if db.trim().is_empty() {
            return Err(bad("database", t!(lang, "config.file.why.database").into()));
        }
        values.database = Some(database(&db, folder));
    }
    if let Some(theme) = raw.theme {
        values.theme = Some(Palette::parse(&theme).ok_or_else(|| {
            bad(
                "theme",
                t!(lang, "config.file.why.theme", text = inline(&theme, 20)),
            )
        })?);
    }
    if let Some(analysis) = raw.analysis {
        let duration = |key: &str, text: Option<String>| -> Result<_, ConfigFileError> {
            text.map(|t| parse_duration_ms(&t).map_err(|why| bad(key, why)))
                .transpose()
        };
        values.window = duration("[analysis] window", analysis.window)?;
        values.stuck_after = duration("[analysis] stuck_after", analysis.stuck_after)?;
        values.ignore_fields = analysis.ignore_fields;
    }
    if let Some(keys) = raw.keys {
        let remaps: Vec<(String, Vec<String>)> = keys
            .into_iter()
            .map(|(action, list)| match list {
                KeyList::One(key) => (action, vec![key]),
                KeyList::Many(keys) => (action, keys),
            })
            .collect();
        values.keymap =
            remap::remapped(&remaps, lang).map_err(|e| bad("[keys]", e.message(lang)))?;
        values.remaps_keys = true;
    }
    Ok(values)
}

/// A database as the file names it: a PostgreSQL URL, or a path (`~/` is
/// the home folder; a relative one is read from the file's folder, so the
/// file means the same from wherever the command runs).
fn database(text: &str, folder: &Path) -> Location {
    let location = Location::parse(std::ffi::OsStr::new(text.trim()));
    let Location::File(path) = location else {
        return location;
    };
    let path = match path.strip_prefix("~") {
        Ok(rest) => match etcetera::home_dir() {
            Ok(home) => home.join(rest),
            Err(_) => path,
        },
        Err(_) if path.is_relative() => folder.join(path),
        Err(_) => path,
    };
    Location::File(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<FileValues, ConfigFileError> {
        parse(text, "desk.toml", Path::new("/etc/desk"))
    }

    #[test]
    fn every_value_is_read() {
        let values = parsed(
            r#"
            operator = "aiko"
            tz = "Asia/Tokyo"
            lang = "ja"
            database = "receipts.db"
            theme = "light"
            [analysis]
            window = "10m"
            stuck_after = "90s"
            ignore_fields = ["utm_source"]
            [keys]
            undo = ["Ctrl-z", "u"]
            "#,
        )
        .unwrap();
        assert_eq!(values.operator.as_deref(), Some("aiko"));
        assert_eq!(values.tz.as_deref(), Some("Asia/Tokyo"));
        assert_eq!(values.lang, Some(Lang::Ja));
        assert_eq!(
            values.database,
            Some(Location::File("/etc/desk/receipts.db".into()))
        );
        assert_eq!(values.theme, Some(Palette::Light));
        assert_eq!(values.window, Some(600_000));
        assert_eq!(values.stuck_after, Some(90_000));
        assert_eq!(values.ignore_fields, Some(vec!["utm_source".to_string()]));
        assert!(values.remaps_keys);
        assert_eq!(values.keymap.labels()["undo"], "Ctrl-z");
    }

    #[test]
    fn a_url_or_an_absolute_path_is_kept_as_written() {
        let url = "postgres://desk@db.internal/intake";
        let values = parsed(&format!("database = \"{url}\"")).unwrap();
        assert_eq!(values.database, Some(Location::Postgres(url.into())));
        let values = parsed("database = \"/srv/receipts.db\"").unwrap();
        assert_eq!(
            values.database,
            Some(Location::File("/srv/receipts.db".into()))
        );
    }

    #[test]
    fn an_empty_file_sets_nothing() {
        let values = parsed("# nothing yet\n").unwrap();
        assert!(values.operator.is_none() && values.tz.is_none() && values.lang.is_none());
        assert!(!values.remaps_keys);
    }

    #[test]
    fn a_bad_value_is_one_line_naming_the_key() {
        for (text, says) in [
            ("tz = \"Mars/Olympus\"", "tz"),
            ("lang = \"fr\"", "lang"),
            ("theme = \"solarized\"", "theme"),
            ("operator = \"\"", "operator"),
            ("database = \" \"", "database"),
            ("[analysis]\nwindow = \"-5m\"", "[analysis] window"),
            ("[keys]\nundo = \"d\"", "[keys]"),
            ("[keys]\nundo = 5", "line 2"),
            ("colour = \"dark\"", "colour"),
            ("operator = ", "line 1"),
        ] {
            let err = parsed(text).unwrap_err().0;
            assert!(err.starts_with("desk.toml"), "{text}: {err}");
            assert!(err.contains(says), "{text}: {err}");
            assert!(!err.contains('\n'), "{text}: {err}");
        }
    }
}
