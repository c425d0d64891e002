//! The language of an answer: the first of `Accept-Language` (RFC 9110,
//! by q-value) that the catalogues have, else the server's own.

use axum::http::{HeaderMap, header};

use crate::i18n::Lang;

pub fn negotiate(headers: &HeaderMap, fallback: Lang) -> Lang {
    let mut best: Option<(u16, Lang)> = None;
    let values = headers
        .get_all(header::ACCEPT_LANGUAGE)
        .iter()
        .filter_map(|v| v.to_str().ok());
    for item in values.flat_map(|v| v.split(',')) {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or("").trim();
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .map_or(Some(1000), quality);
        let (Some(q), Some(lang)) = (q, language(tag, fallback)) else {
            continue;
        };
        // The first of the highest q wins.
        if q > 0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, lang));
        }
    }
    best.map_or(fallback, |(_, lang)| lang)
}

/// `ja`, `ja-JP` → Japanese; `en`, `en-GB` → English; `*` → the fallback.
fn language(tag: &str, fallback: Lang) -> Option<Lang> {
    if tag == "*" {
        return Some(fallback);
    }
    let primary = tag.split('-').next().unwrap_or("");
    Lang::ALL
        .into_iter()
        .find(|l| primary.eq_ignore_ascii_case(l.code()))
}

/// A q-value in thousandths: `0.8` → 800; `None` for anything else.
fn quality(text: &str) -> Option<u16> {
    let text = text.trim();
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn pick(value: &str, fallback: Lang) -> Lang {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_str(value).unwrap(),
        );
        negotiate(&headers, fallback)
    }

    #[test]
    fn the_first_supported_language_by_quality() {
        assert_eq!(pick("ja", Lang::En), Lang::Ja);
        assert_eq!(pick("ja-JP,ja;q=0.9,en-US;q=0.8", Lang::En), Lang::Ja);
        assert_eq!(pick("en-GB, ja;q=0.5", Lang::Ja), Lang::En);
        assert_eq!(pick("fr, ja;q=0.3, en;q=0.2", Lang::En), Lang::Ja);
        assert_eq!(pick("en;q=0.4, ja;q=0.9", Lang::En), Lang::Ja);
        assert_eq!(pick("ja;q=0, en", Lang::Ja), Lang::En);
    }

    #[test]
    fn anything_else_is_the_servers_language() {
        assert_eq!(negotiate(&HeaderMap::new(), Lang::Ja), Lang::Ja);
        assert_eq!(pick("fr-FR, de", Lang::Ja), Lang::Ja);
        assert_eq!(pick("*", Lang::Ja), Lang::Ja);
        assert_eq!(pick(";;;,,q=", Lang::En), Lang::En);
        assert_eq!(pick("ja;q=2", Lang::En), Lang::En);
        assert_eq!(pick("ja;q=abc", Lang::En), Lang::En);
        assert_eq!(pick("ja;q=0.12345", Lang::En), Lang::En);
    }
}
