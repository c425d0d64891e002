//! What a form takes, read from the page the server serves at
//! `GET /f/{form}`, as a visitor's browser (or a bot) reads it: the fields in
//! the page's order with their `maxlength`, the honeypot (the input people
//! never see), and the `_key` minted for this page view.
//!
//! The server's own pages are regular ([`crate::server::page`]); this reads
//! the `<input>` and `<textarea>` tags of any page well enough for them.

/// The hidden field of a plain form's key.
pub const KEY_FIELD: &str = crate::server::page::KEY_FIELD;

/// The honeypot's id on the server's pages.
const HONEYPOT_ID: &str = "intake-hp";

/// A form as its page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormShape {
    /// The visitor's fields in the page's order, with their longest value
    /// in characters (`None`: the page sets none).
    pub fields: Vec<(String, Option<usize>)>,
    /// The page's field only a bot fills in.
    pub honeypot: Option<String>,
    /// The field the simulated bots fill, when not the page's own (the
    /// command line's, or the usual name on a page that shows none).
    /// People's posts never carry it.
    pub bot_field: Option<String>,
}

/// One page view: the form, and the key minted for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageView {
    pub shape: FormShape,
    pub key: Option<String>,
}

impl FormShape {
    /// The fields of a usual contact form (what the example config lists),
    /// for tests and for pages that list nothing readable.
    pub fn contact() -> Self {
        Self {
            fields: ["name", "email", "company", "phone", "message"]
                .iter()
                .map(|n| (n.to_string(), None))
                .collect(),
            honeypot: Some("_gotcha".into()),
            bot_field: None,
        }
    }

    /// The longest value `field` takes, when the page says.
    pub fn max_chars(&self, field: &str) -> Option<usize> {
        self.fields
            .iter()
            .find(|(n, _)| n == field)
            .and_then(|(_, m)| *m)
    }
}

/// Reads a form page's fields, honeypot and key.
pub fn read_page(html: &str) -> PageView {
    let mut fields = Vec::new();
    let mut honeypot = None;
    let mut key = None;
    for tag in tags(html) {
        let Some(name) = attribute(tag.text, "name") else {
            continue;
        };
        let kind = attribute(tag.text, "type").unwrap_or_default();
        if name == KEY_FIELD {
            key = attribute(tag.text, "value").filter(|v| !v.is_empty());
            continue;
        }
        if attribute(tag.text, "id").as_deref() == Some(HONEYPOT_ID) {
            honeypot = Some(name);
            continue;
        }
        if tag.textarea
            || !matches!(
                kind.as_str(),
                "hidden" | "submit" | "button" | "checkbox" | "radio" | "file"
            )
        {
            let max = attribute(tag.text, "maxlength").and_then(|m| m.parse().ok());
            if !fields.iter().any(|(n, _)| *n == name) {
                fields.push((name, max));
            }
        }
    }
    PageView {
        shape: FormShape {
            fields,
            honeypot,
            bot_field: None,
        },
        key,
    }
}

struct Tag<'a> {
    /// From the tag's name to its closing `>`.
    text: &'a str,
    textarea: bool,
}

/// The `<input …>` and `<textarea …>` tags of a page.
fn tags(html: &str) -> impl Iterator<Item = Tag<'_>> {
    let mut rest = html;
    std::iter::from_fn(move || {
        loop {
            let at = rest.find('<')?;
            rest = &rest[at + 1..];
            let lower = rest
                .get(..9)
                .unwrap_or(rest)
                .to_ascii_lowercase()
                .into_bytes();
            let textarea = lower.starts_with(b"textarea");
            let input = lower.starts_with(b"input");
            if !textarea && !input {
                continue;
            }
            let end = rest.find('>').unwrap_or(rest.len());
            let text = &rest[..end];
            rest = &rest[end..];
            return Some(Tag { text, textarea });
        }
    })
}

/// The value of attribute `name` in a tag (quoted or not), unescaped.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let bytes = tag.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // The start of an attribute name: after white space.
        if !bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !matches!(bytes[i], b'=' | b' ' | b'\t' | b'\n' | b'\r' | b'>') {
            i += 1;
        }
        let found = tag[start..i].eq_ignore_ascii_case(name);
        if i >= bytes.len() || bytes[i] != b'=' {
            if found {
                return Some(String::new());
            }
            continue;
        }
        i += 1;
        let (value, next) = match bytes.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let close = tag[i + 1..]
                    .find(q as char)
                    .map_or(tag.len(), |e| i + 1 + e);
                (&tag[i + 1..close], close + 1)
            }
            _ => {
                let end = tag[i..]
                    .find(|c: char| c.is_ascii_whitespace())
                    .map_or(tag.len(), |e| i + e);
                (&tag[i..end], end)
            }
        };
        if found {
            return Some(unescape(value));
        }
        i = next;
    }
    None
}

/// The character references an attribute value of the server's pages uses.
fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The receipt number of a thank-you page's address (`…/thanks?receipt=12`).
pub fn receipt_of_location(location: &str) -> Option<u64> {
    crate::server::pages_route::receipt_of(Some(location.split_once('?')?.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;
    use crate::server::page::{self, FormPage};

    #[test]
    fn the_servers_own_page_is_read_whole() {
        let html = page::form_page(
            &FormPage {
                form: "contact",
                title: "contact",
                fields: &[("name", 100), ("email", 254), ("message", 5000)],
                required: &["email", "message"],
                honeypot: Some("_gotcha"),
                labels: &page::NO_LABELS,
                lang: Lang::Ja,
            },
            "k-0123abc",
        );
        let view = read_page(&html);
        assert_eq!(view.key.as_deref(), Some("k-0123abc"));
        assert_eq!(
            view.shape,
            FormShape {
                fields: vec![
                    ("name".into(), Some(100)),
                    ("email".into(), Some(254)),
                    ("message".into(), Some(5000)),
                ],
                honeypot: Some("_gotcha".into()),
                bot_field: None,
            }
        );
    }

    #[test]
    fn attributes_quoted_unquoted_and_escaped() {
        let view = read_page(
            "<FORM><Input type=text name=a maxlength=5><input name='b&amp;c' type=\"email\">\
             <input type=\"hidden\" name=\"csrf\" value=\"x\"><textarea name=\"msg\"></textarea>\
             <input type=submit name=go></form>",
        );
        assert_eq!(
            view.shape.fields,
            vec![
                ("a".to_string(), Some(5)),
                ("b&c".to_string(), None),
                ("msg".to_string(), None)
            ]
        );
        assert_eq!(view.shape.honeypot, None);
        assert_eq!(view.key, None);
        assert_eq!(view.shape.max_chars("a"), Some(5));
    }

    #[test]
    fn a_thank_you_address_names_the_receipt() {
        assert_eq!(
            receipt_of_location("/f/contact/thanks?receipt=1907"),
            Some(1907)
        );
        assert_eq!(
            receipt_of_location("/f/contact/thanks?x=1&receipt=7"),
            Some(7)
        );
        assert_eq!(receipt_of_location("/f/contact/thanks"), None);
    }
}
