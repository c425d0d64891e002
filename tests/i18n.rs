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

/// One line of the glossary at the head of `ja.toml`.
#[derive(serde::Deserialize)]
struct Term {
    /// The English words, each a whole word (case aside).
    en: Vec<String>,
    /// The one Japanese term for them.
    ja: String,
    /// What a Japanese text must hold, where the term is a verb whose
    /// ending changes (未対応に戻す, 未対応に戻しました): its stem.
    #[serde(default)]
    stem: Option<String>,
    /// Other Japanese words for the same idea, which the texts must not use.
    #[serde(default)]
    avoid: Vec<String>,
    /// English phrases in which a word is not the term (canonical form).
    #[serde(default)]
    except: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Glossary {
    glossary: Vec<Term>,
    /// Catalogue keys the glossary does not govern, by their start.
    glossary_skip: Vec<String>,
}

fn glossary() -> Glossary {
    let text = include_str!("../assets/i18n/ja.toml");
    toml::from_str(text).unwrap_or_else(|e| panic!("ja.toml's glossary: {e}"))
}

/// An English text with what is not prose taken out: `{names}`, `code`,
/// identifiers (in_flight, review_log) and item ids (dup:12, stuck:).
fn english_prose(text: &str, except: &[String]) -> String {
    let mut text = text.to_string();
    for phrase in except {
        text = text.replace(phrase.as_str(), " ");
    }
    // A name stands for a word, so that `stuck:{id}` still reads as an item id.
    let names = regex::Regex::new(r"\{[^}]*\}").unwrap();
    let text = names.replace_all(&text, "X");
    let not_prose =
        regex::Regex::new(r"`[^`]*`|[A-Za-z0-9]*_[A-Za-z0-9_]*|[A-Za-z]+:[^\s]").unwrap();
    not_prose.replace_all(&text, " ").into_owned()
}

fn uses(prose: &str, words: &[String]) -> bool {
    let words: Vec<String> = words
        .iter()
        .map(|w| regex::escape(w).replace(' ', r"\s+"))
        .collect();
    let pattern = format!(
        r"(?i)(?:^|[^A-Za-z0-9])(?:{})(?:$|[^A-Za-z0-9])",
        words.join("|")
    );
    regex::Regex::new(&pattern).unwrap().is_match(prose)
}

#[test]
fn japanese_says_each_glossary_term_one_way() {
    let Glossary {
        glossary,
        glossary_skip,
    } = glossary();
    let placeholder = regex::Regex::new(r"\{[^}]*\}").unwrap();
    let mut wrong = Vec::new();
    for term in &glossary {
        let must = term.stem.as_deref().unwrap_or(&term.ja);
        assert!(
            term.ja.contains(must),
            "{}: the stem is not in {}",
            term.ja,
            must
        );
        let mut used = 0;
        for key in keys(Lang::En) {
            if glossary_skip.iter().any(|s| key.starts_with(s.as_str())) {
                continue;
            }
            let en = english_prose(i18n::text(Lang::En, &key), &term.except);
            if !uses(&en, &term.en) {
                continue;
            }
            used += 1;
            let ja = placeholder.replace_all(i18n::text(Lang::Ja, &key), " ");
            if !ja.contains(must) {
                wrong.push(format!("{key}: {:?} without {must}: {ja}", term.en));
            }
            for other in &term.avoid {
                if ja.contains(other.as_str()) {
                    wrong.push(format!("{key}: {other} (say {}): {ja}", term.ja));
                }
            }
        }
        assert!(used > 0, "no English text uses {:?}", term.en);
    }
    assert!(
        wrong.is_empty(),
        "{} texts break the glossary:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_glossary_reads_english_words_as_words() {
    let except = vec!["canonical form".to_string()];
    let prose = english_prose(
        "{item} of dup:12, stuck:{id} and bot:, in_flight `receipts`; payload has no canonical form",
        &except,
    );
    assert!(!uses(&prose, &["item".into()]));
    assert!(!uses(&prose, &["stuck".into()]));
    assert!(!uses(&prose, &["bot".into()]));
    assert!(!uses(&prose, &["receipts".into()]));
    assert!(!uses(&prose, &["form".into()]));
    assert!(uses(&prose, &["payload".into()]));
    assert!(uses("Reopened; still in\nflight", &["in flight".into()]));
    assert!(uses("Items: one", &["items".into()]));
    assert!(!uses("itemised", &["item".into()]));
}
