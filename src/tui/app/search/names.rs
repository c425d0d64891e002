//! A query against the rows' item names: a tab's prefix and each row's first
//! receipt id (`dup:12`), which the index keeps out of the rows' texts.

use memchr::memmem;

use crate::model::ReceiptId;

/// Which item names hold a query.
pub(super) enum NameMatch<'q> {
    /// None does (or the tab's rows have no names apart).
    No,
    /// Every one does: the query is within the prefix.
    All,
    /// Names whose id starts with these digits: the query is the end of
    /// the prefix and the start of an id (`p:12`).
    Lead(&'q [u8]),
    /// Each name must be looked at: the query may run into the id.
    Each {
        prefix: &'static str,
        finder: Box<memmem::Finder<'q>>,
    },
}

impl<'q> NameMatch<'q> {
    pub(super) fn of(prefix: Option<&'static str>, query: &'q [u8]) -> Self {
        let Some(prefix) = prefix else {
            return NameMatch::No;
        };
        if memmem::find(prefix.as_bytes(), query).is_some() {
            return NameMatch::All;
        }
        // After the prefix come only the id's digits (and a minus sign).
        let could = query
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'-' || prefix.as_bytes().contains(b));
        if !could {
            return NameMatch::No;
        }
        let digits = query
            .iter()
            .rposition(|b| !b.is_ascii_digit())
            .map_or(0, |i| i + 1);
        let (head, lead) = query.split_at(digits);
        if !head.is_empty() && !lead.is_empty() && prefix.as_bytes().ends_with(head) {
            return NameMatch::Lead(lead);
        }
        NameMatch::Each {
            prefix,
            finder: Box::new(memmem::Finder::new(query)),
        }
    }

    /// True when the name of the row whose first receipt is `id` holds it.
    pub(super) fn hold(&self, id: Option<ReceiptId>) -> bool {
        match self {
            NameMatch::No => false,
            NameMatch::All => id.is_some(),
            NameMatch::Lead(lead) => {
                id.is_some_and(|id| itoa::Buffer::new().format(id).as_bytes().starts_with(lead))
            }
            NameMatch::Each { prefix, finder } => id.is_some_and(|id| {
                let mut digits = itoa::Buffer::new();
                let mut name = [0u8; 48];
                let (p, d) = (prefix.as_bytes(), digits.format(id).as_bytes());
                let len = p.len() + d.len();
                name[..p.len()].copy_from_slice(p);
                name[p.len()..len].copy_from_slice(d);
                finder.find(&name[..len]).is_some()
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(prefix: &'static str, query: &str, id: ReceiptId) -> bool {
        NameMatch::of(Some(prefix), query.as_bytes()).hold(Some(id))
    }

    #[test]
    fn a_name_holds_what_its_text_would() {
        for (query, id, held) in [
            ("dup", 7, true),
            ("p:", 7, true),
            ("dup:12", 123, true),
            ("p:12", 123, true),
            (":23", 123, false),
            ("23", 123, true),
            ("123", 12, false),
            ("dup:-4", -42, true),
            ("dup:4", -42, false),
            ("p:4", 4, true),
            ("p:4", 34, false),
            ("p:4", 43, true),
            (":1", 21, false),
            ("x", 1, false),
            ("dup:1x", 1, false),
        ] {
            assert_eq!(holds("dup:", query, id), held, "{query} in dup:{id}");
            assert_eq!(
                holds("dup:", query, id),
                format!("dup:{id}").contains(query),
                "{query}"
            );
        }
        assert!(holds("conflict:", "conf", 1));
        assert!(!NameMatch::of(None, b"dup").hold(Some(1)));
        assert!(!NameMatch::of(Some("dup:"), b"dup").hold(None));
        let longest = format!("damaged:{}", ReceiptId::MIN);
        assert!(holds("damaged:", &longest, ReceiptId::MIN));
    }
}
