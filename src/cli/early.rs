//! The options read before clap parses anything: `--lang en|ja` and
//! `--config-file FILE`. The language decides how clap's own help and
//! errors read, and the config file may name the language, so both must be
//! known first. They are taken out of the arguments clap is given (they may
//! stand before or after a command), and are declared in
//! [`super::args::Cli`] only so that `--help` shows them.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::i18n::Lang;

/// What `--lang` was given that is not a language (`""` when it had no value).
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownLang(pub String);

/// What the early options asked for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Early {
    /// `--lang` (`None` without it: then the config file, else the locale decides).
    pub lang: Option<Lang>,
    /// `--config-file` (`None`: the default place).
    pub config_file: Option<PathBuf>,
}

/// The early options, and the arguments without them. The last of each
/// wins; nothing after `--` is looked at.
pub fn take_early(args: Vec<OsString>) -> Result<(Early, Vec<OsString>), UnknownLang> {
    let mut early = Early::default();
    let mut kept = Vec::with_capacity(args.len());
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            kept.push(arg);
            kept.extend(rest.by_ref());
            break;
        }
        let text = arg.to_str().unwrap_or_default();
        if let Some(value) = value_of("--lang", text, &mut rest) {
            early.lang = Some(parse(&value.to_string_lossy())?);
        } else if let Some(value) = value_of("--config-file", text, &mut rest) {
            early.config_file = Some(PathBuf::from(value));
        } else {
            kept.push(arg);
        }
    }
    Ok((early, kept))
}

/// `--name VALUE` or `--name=VALUE`: the value (empty when it is missing).
fn value_of(name: &str, text: &str, rest: &mut impl Iterator<Item = OsString>) -> Option<OsString> {
    if text == name {
        return Some(rest.next().unwrap_or_default());
    }
    text.strip_prefix(name)
        .and_then(|tail| tail.strip_prefix('='))
        .map(OsString::from)
}

/// The language `--lang` asks for, and the arguments without the early
/// options (for the tests of `--lang` alone).
#[cfg(test)]
fn take_lang(args: Vec<OsString>) -> Result<(Option<Lang>, Vec<OsString>), UnknownLang> {
    take_early(args).map(|(early, kept)| (early.lang, kept))
}

/// Exactly `en` or `ja`, in any letter case.
fn parse(text: &str) -> Result<Lang, UnknownLang> {
    Lang::ALL
        .into_iter()
        .find(|lang| lang.code().eq_ignore_ascii_case(text.trim()))
        .ok_or_else(|| UnknownLang(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn lang_is_taken_out_wherever_it_stands() {
        assert_eq!(
            take_lang(args(&["rr", "--lang", "ja", "report", "x.db"])),
            Ok((Some(Lang::Ja), args(&["rr", "report", "x.db"])))
        );
        assert_eq!(
            take_lang(args(&["rr", "report", "x.db", "--lang=EN"])),
            Ok((Some(Lang::En), args(&["rr", "report", "x.db"])))
        );
        assert_eq!(
            take_lang(args(&["rr", "report", "x.db"])),
            Ok((None, args(&["rr", "report", "x.db"])))
        );
        // After `--`, everything is an argument as typed.
        assert_eq!(
            take_lang(args(&["rr", "find", "x.db", "--", "--lang", "xx"])),
            Ok((None, args(&["rr", "find", "x.db", "--", "--lang", "xx"])))
        );
    }

    #[test]
    fn the_config_file_is_taken_out_too() {
        let (early, kept) = take_early(args(&[
            "rr",
            "--config-file",
            "/tmp/a.toml",
            "report",
            "--config-file=b.toml",
            "x.db",
        ]))
        .unwrap();
        assert_eq!(early.config_file, Some(PathBuf::from("b.toml")));
        assert_eq!(kept, args(&["rr", "report", "x.db"]));
        // A name that only starts the same is an argument.
        let (early, kept) = take_early(args(&["rr", "--config-filex", "--langs"])).unwrap();
        assert_eq!(early, Early::default());
        assert_eq!(kept, args(&["rr", "--config-filex", "--langs"]));
    }

    #[test]
    fn only_en_and_ja_are_languages() {
        for bad in ["xx", "japanese", "", "ja_JP"] {
            assert_eq!(
                take_lang(args(&["rr", "--lang", bad])),
                Err(UnknownLang(bad.to_string()))
            );
        }
        assert_eq!(
            take_lang(args(&["rr", "--lang"])),
            Err(UnknownLang(String::new()))
        );
    }
}
