//! The language of every screen and command-line string.
//!
//! Each language has one catalogue, `assets/i18n/<code>.toml`, built into the
//! binary. Code names a string by its dotted key (`screen.tab.duplicates`) and
//! never writes the text itself; `{name}` in a text is filled by [`fill`] or
//! the [`t!`](crate::t) macro. Visitor data is never looked up here: only our own
//! words are translated.
//!
//! The language is chosen once at start ([`Lang::detect`], `--lang`) and set
//! with [`set_current`] for the command line's messages; the screen carries
//! its own [`Lang`] in its state so that its view stays a pure function.

mod catalogue;
pub mod key_labels;
mod lang;
pub mod width;

pub use catalogue::{KeyLabelsAlreadySet, keys, placeholders, set_key_labels, template, text};
pub use lang::{Lang, current, set_current};
pub use width::{pad_left, pad_right};

/// The text of `key` with each `{name}` replaced by its value.
pub fn fill(lang: Lang, key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    fill_template(text(lang, key), args)
}

/// Replaces `{name}` by its value; `{{` and `}}` stand for braces.
pub fn fill_template(template: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(stripped) = tail.strip_prefix('{')
            && let Some(end) = stripped.find('}')
        {
            let name = &stripped[..end];
            match args.iter().find(|(n, _)| *n == name) {
                Some((_, value)) => out.push_str(&value.to_string()),
                None => out.push_str(&tail[..end + 2]),
            }
            rest = &stripped[end + 1..];
            continue;
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// `t!(lang, "key")` is the catalogue's text; `t!(lang, "key", name = value, ...)`
/// fills its `{name}`s. Keys are string literals so that a test can find
/// every key the code uses.
#[macro_export]
macro_rules! t {
    ($lang:expr, $key:literal) => {
        $crate::i18n::text($lang, $key)
    };
    ($lang:expr, $key:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::i18n::fill($lang, $key, &[$((stringify!($name), &$value as &dyn ::std::fmt::Display)),+])
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_names_and_keeps_unknown_ones() {
        let n = 3;
        assert_eq!(
            fill_template(
                "{n} of {total} ({missing}) {{x}}",
                &[("n", &n), ("total", &"10")]
            ),
            "3 of 10 ({missing}) {x}"
        );
        assert_eq!(fill_template("no braces", &[]), "no braces");
        assert_eq!(fill_template("odd } and {", &[]), "odd } and {");
        assert_eq!(fill_template("重複 {n} 件", &[("n", &n)]), "重複 3 件");
    }
}
