//! The catalogues, read once from the TOML files built into the binary.
//!
//! A catalogue's tables nest: `[screen.tab]` + `duplicates = "…"` is the key
//! `screen.tab.duplicates`. A key missing from a catalogue falls back to the
//! English text, then to the key itself; `tests/i18n.rs` fails on either.

use std::collections::HashMap;
use std::sync::{LazyLock, OnceLock};

use super::Lang;
use super::key_labels::{self, KeyLabels};

const EN: &str = include_str!("../../assets/i18n/en.toml");
const JA: &str = include_str!("../../assets/i18n/ja.toml");

type Table = HashMap<String, &'static str>;

/// The texts as written: key marks (see [`key_labels`]) not yet resolved.
static TEMPLATES: LazyLock<[Table; 2]> = LazyLock::new(|| [load(EN), load(JA)]);

/// The texts with each key mark read as its default key.
static DEFAULTS: LazyLock<[Table; 2]> = LazyLock::new(|| resolved(None));

/// The texts with the keys of the config file's keymap, once it is known.
static REMAPPED: OnceLock<[Table; 2]> = OnceLock::new();

fn resolved(labels: Option<&KeyLabels>) -> [Table; 2] {
    TEMPLATES.clone().map(|table| {
        table
            .into_iter()
            .map(|(key, text)| {
                if key_labels::marks(text).is_empty() {
                    (key, text)
                } else {
                    let text = key_labels::resolve(text, labels);
                    (key, &*Box::leak(text.into_boxed_str()))
                }
            })
            .collect()
    })
}

/// Names the keys in effect in every text from now on (see [`key_labels`]).
/// Set once per process; a second call changes nothing and says so.
pub fn set_key_labels(labels: &KeyLabels) -> Result<(), KeyLabelsAlreadySet> {
    REMAPPED
        .set(resolved(Some(labels)))
        .map_err(|_| KeyLabelsAlreadySet)
}

/// [`set_key_labels`] was called before.
#[derive(Debug, PartialEq, Eq)]
pub struct KeyLabelsAlreadySet;

fn source(lang: Lang) -> &'static str {
    match lang {
        Lang::En => EN,
        Lang::Ja => JA,
    }
}

fn table(lang: Lang) -> &'static Table {
    &REMAPPED.get().unwrap_or(&DEFAULTS)[lang as usize]
}

/// The text of `key` in `lang` as written, its key marks unresolved (for
/// the tests that check the marks against the keymap).
pub fn template(lang: Lang, key: &str) -> Option<&'static str> {
    TEMPLATES[lang as usize].get(key).copied()
}

/// A catalogue that does not parse is a build mistake, which the tests catch;
/// at run time it reads as empty, so every text falls back to its key.
fn load(toml_text: &'static str) -> Table {
    let mut out = Table::new();
    if let Ok(root) = toml_text.parse::<toml::Table>() {
        flatten("", &root, &mut out);
    }
    out
}

fn flatten(prefix: &str, table: &toml::Table, out: &mut Table) {
    for (name, value) in table {
        let key = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            toml::Value::Table(inner) => flatten(&key, inner, out),
            toml::Value::String(text) => {
                // Leaked once per process: the catalogues live as long as it.
                let text: &'static str = Box::leak(text.clone().into_boxed_str());
                out.insert(key, text);
            }
            _ => {}
        }
    }
}

/// The text of `key` in `lang`.
pub fn text(lang: Lang, key: &str) -> &'static str {
    if let Some(text) = table(lang).get(key) {
        return text;
    }
    if let Some(text) = table(Lang::En).get(key) {
        return text;
    }
    // Only reachable when a key is missing everywhere; the text is then the
    // key (ASCII, from our own source), never anything a visitor typed.
    Box::leak(key.to_string().into_boxed_str())
}

/// Every key of `lang`'s catalogue, sorted; `Err` names a file that does not parse.
pub fn keys(lang: Lang) -> Result<Vec<String>, String> {
    source(lang)
        .parse::<toml::Table>()
        .map_err(|e| format!("assets/i18n/{}.toml: {e}", lang.code()))?;
    let mut keys: Vec<String> = table(lang).keys().cloned().collect();
    keys.sort();
    Ok(keys)
}

/// The `{name}`s a text fills, sorted and without repeats.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text.replace("{{", "").replace("}}", "");
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else { break };
        names.push(after[..end].to_string());
        rest = after[end + 1..].to_string();
    }
    names.sort();
    names.dedup();
    names
}
