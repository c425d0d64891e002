//! `--lang en|ja`, read before clap parses anything: the language decides
//! how clap's own help and errors read, so it must be known first. The
//! option is taken out of the arguments clap is given (it may stand before
//! or after a command), and is declared in [`super::args::Cli`] only so
//! that `--help` shows it.

use std::ffi::OsString;

use crate::i18n::Lang;

/// What `--lang` was given that is not a language (`""` when it had no value).
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownLang(pub String);

/// The language `--lang` asks for (`None` without it: then the locale
/// decides), and the arguments without it. The last `--lang` wins; nothing
/// after `--` is looked at.
pub fn take_lang(args: Vec<OsString>) -> Result<(Option<Lang>, Vec<OsString>), UnknownLang> {
    let mut lang = None;
    let mut kept = Vec::with_capacity(args.len());
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            kept.push(arg);
            kept.extend(rest.by_ref());
            break;
        }
        let value = match arg.to_str() {
            Some("--lang") => rest.next().unwrap_or_default(),
            Some(text) if text.starts_with("--lang=") => OsString::from(&text["--lang=".len()..]),
            _ => {
                kept.push(arg);
                continue;
            }
        };
        lang = Some(parse(&value.to_string_lossy())?);
    }
    Ok((lang, kept))
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
