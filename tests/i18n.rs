//! The catalogues agree with each other and with the code: the same keys in
//! every language, the same `{placeholders}` in each key's texts, a Japanese
//! text for every key, and every key the code names present.

use std::collections::BTreeSet;
use std::path::Path;

use receipt_review::i18n::{self, Lang};

fn keys(lang: Lang) -> BTreeSet<String> {
    i18n::keys(lang)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .collect()
}

#[test]
fn every_language_has_every_key() {
    let en = keys(Lang::En);
    let ja = keys(Lang::Ja);
    let only_en: Vec<_> = en.difference(&ja).collect();
    let only_ja: Vec<_> = ja.difference(&en).collect();
    assert!(only_en.is_empty(), "missing from ja.toml: {only_en:?}");
    assert!(only_ja.is_empty(), "missing from en.toml: {only_ja:?}");
}

#[test]
fn each_key_fills_the_same_names_in_every_language() {
    for key in keys(Lang::En) {
        let en = i18n::placeholders(i18n::text(Lang::En, &key));
        let ja = i18n::placeholders(i18n::text(Lang::Ja, &key));
        assert_eq!(en, ja, "{key}: en fills {en:?}, ja fills {ja:?}");
    }
}

/// A Japanese text written in ASCII alone is an English text left untranslated
/// (names such as CSV or UTC are listed here on purpose).
const SAME_IN_EVERY_LANGUAGE: &[&str] = &[
    // The export formats, on the export dialog's keys and buttons.
    "keys.hint.csv",
    "keys.hint.jsonl",
];

#[test]
fn every_japanese_text_is_translated() {
    for key in keys(Lang::Ja) {
        let ja = i18n::text(Lang::Ja, &key);
        assert!(!ja.trim().is_empty(), "{key} is empty in ja.toml");
        let words = ja.chars().filter(|c| c.is_ascii_alphabetic()).count();
        if words >= 3 && ja.is_ascii() && !SAME_IN_EVERY_LANGUAGE.contains(&key.as_str()) {
            panic!("{key} looks untranslated in ja.toml: {ja:?}");
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_key_the_code_names_is_in_the_catalogues() {
    let en = keys(Lang::En);
    // A key is a literal that starts with one of the catalogues' top tables.
    let sections: BTreeSet<String> = en
        .iter()
        .filter_map(|k| k.split('.').next().map(str::to_string))
        .collect();
    let alternatives = sections.iter().cloned().collect::<Vec<_>>().join("|");
    let literal = regex::Regex::new(&format!(r#""((?:{alternatives})\.[a-z0-9_.]+)""#)).unwrap();
    let mut files = Vec::new();
    rust_files(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path(),
        &mut files,
    );
    let mut missing = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for found in literal.captures_iter(&source) {
            let key = &found[1];
            if !en.contains(key) {
                missing.push(format!("{}: {key}", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keys missing from the catalogues: {missing:#?}"
    );
}

#[test]
fn the_language_names_itself() {
    assert_eq!(receipt_review::t!(Lang::En, "lang.name"), "English");
    assert_eq!(receipt_review::t!(Lang::Ja, "lang.name"), "日本語");
}
