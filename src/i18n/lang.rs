//! Which language: from `--lang`, else the locale's environment.

use std::sync::atomic::{AtomicU8, Ordering};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Ja,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ja];

    /// `en` or `ja`: the catalogue's file name and what `--lang` takes.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }

    /// `en`, `ja`, or a locale name such as `ja_JP.UTF-8`.
    pub fn parse(text: &str) -> Option<Lang> {
        let lower = text.trim().to_ascii_lowercase();
        if lower.starts_with("ja") {
            Some(Lang::Ja)
        } else if lower.starts_with("en") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The language the locale asks for, read as POSIX does: the first of
    /// `LC_ALL`, `LC_MESSAGES`, `LANG` that is set and not empty decides;
    /// Japanese when it starts with `ja`, English otherwise.
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|name| var(name))
            .find(|value| !value.is_empty())
            .map(|value| {
                if value.starts_with("ja") {
                    Lang::Ja
                } else {
                    Lang::En
                }
            })
            .unwrap_or(Lang::En)
    }

    /// From the process's environment.
    pub fn detect() -> Lang {
        Lang::from_locale(|name| std::env::var(name).ok())
    }
}

static CURRENT: AtomicU8 = AtomicU8::new(0);

/// The language of the command line's messages, set once at start.
pub fn set_current(lang: Lang) {
    CURRENT.store(lang as u8, Ordering::Relaxed);
}

pub fn current() -> Lang {
    match CURRENT.load(Ordering::Relaxed) {
        1 => Lang::Ja,
        _ => Lang::En,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_first_set_locale_variable_decides() {
        assert_eq!(Lang::from_locale(env(&[("LANG", "ja_JP.UTF-8")])), Lang::Ja);
        assert_eq!(
            Lang::from_locale(env(&[("LC_ALL", "C"), ("LANG", "ja_JP.UTF-8")])),
            Lang::En
        );
        assert_eq!(
            Lang::from_locale(env(&[("LC_ALL", ""), ("LC_MESSAGES", "ja_JP")])),
            Lang::Ja
        );
        assert_eq!(Lang::from_locale(env(&[])), Lang::En);
        assert_eq!(Lang::from_locale(env(&[("LANG", "en_US.UTF-8")])), Lang::En);
    }

    #[test]
    fn lang_names() {
        assert_eq!(Lang::parse("ja"), Some(Lang::Ja));
        assert_eq!(Lang::parse("EN"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
    }
}
