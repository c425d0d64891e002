//! Idempotency keys and their scope (the protocol's steps: check the key, scope it).

use crate::i18n::Lang;
use crate::t;

/// The longest key accepted.
pub const MAX_KEY_LEN: usize = 64;

/// Why a key, or the scope built around it, is refused. `Display` is in the
/// language of the messages ([`crate::i18n::current`]); [`KeyError::message`]
/// in any.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    Empty,
    TooLong { len: usize },
    BadCharacter { position: usize, found: char },
    PathNotAbsolute { path: String },
}

impl KeyError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Empty => t!(lang, "error.intake.key_empty").to_string(),
            Self::TooLong { len } => {
                t!(
                    lang,
                    "error.intake.key_too_long",
                    len = len,
                    max = MAX_KEY_LEN
                )
            }
            Self::BadCharacter { position, found } => t!(
                lang,
                "error.intake.key_bad_character",
                found = format!("{found:?}"),
                position = position
            ),
            Self::PathNotAbsolute { path } => t!(
                lang,
                "error.intake.path_not_absolute",
                path = format!("{path:?}")
            ),
        }
    }
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(crate::i18n::current()))
    }
}

/// Returns `value` unchanged when it is 1 to 64 characters of `[A-Za-z0-9_-]`.
pub fn valid_key(value: &str) -> Result<&str, KeyError> {
    if value.is_empty() {
        return Err(KeyError::Empty);
    }
    if let Some((position, found)) = value
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(KeyError::BadCharacter { position, found });
    }
    // Only ASCII is left, so bytes are characters.
    if value.len() > MAX_KEY_LEN {
        return Err(KeyError::TooLong { len: value.len() });
    }
    Ok(value)
}

/// The key as stored: `[tenant, METHOD, path, key]` as a compact JSON array, exactly as
/// Python's `json.dumps([...], separators=(',', ':'))` writes it (non-ASCII as `\uXXXX`).
///
/// `tenant` and `key` must be valid keys; `method` is upper-cased; `path` must start with `/`
/// and keeps its case (`/Orders` and `/orders` are different operations).
pub fn scoped_key(tenant: &str, method: &str, path: &str, key: &str) -> Result<String, KeyError> {
    let tenant = valid_key(tenant)?;
    let key = valid_key(key)?;
    if !path.starts_with('/') {
        return Err(KeyError::PathNotAbsolute {
            path: path.to_string(),
        });
    }
    let method = method.to_uppercase();
    let mut out = String::with_capacity(tenant.len() + method.len() + path.len() + key.len() + 12);
    out.push('[');
    for (i, part) in [tenant, method.as_str(), path, key].into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_ascii_json_string(&mut out, part);
    }
    out.push(']');
    Ok(out)
}

/// A JSON string as Python writes it with the default `ensure_ascii=True`.
fn push_ascii_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}
