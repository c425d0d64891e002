//! `export`'s limits, read: `--since` and `--until` as times (any form
//! `--now` takes: RFC 3339, `YYYY-MM-DD HH:MM:SS` UTC, unix seconds or
//! milliseconds) or as whole days in the operator's zone (`2026-11-29`,
//! `today`, `yesterday`): `--since` a day is from its start, `--until` a
//! day is to its end, so `--since 2026-11-28 --until 2026-11-29` is two
//! whole days. `--operator` and `--item` may be given more than once.

use crate::i18n;
use crate::model::zone::typed::parse_span;
use crate::model::{Millis, Zone, time};
use crate::review::{ExportFilter, ItemMatch};
use crate::sanitize::inline;
use crate::t;

use super::args::ExportLimits;
use super::error::usage;

/// The filter the limits describe, as of `now_ms`; a value that cannot be
/// read is bad usage (one line, exit 2).
pub fn filter(limits: &ExportLimits, now_ms: Millis) -> anyhow::Result<ExportFilter> {
    let lang = i18n::current();
    let bad = |problem: String| usage("export", problem);
    let zone = || Zone::operator(limits.tz.as_deref()).map_err(|e| usage("export", e));
    if limits.tz.is_some() {
        zone()?;
    }
    let mut since_ms = None;
    let mut until_ms = None;
    for (option, text, end, slot) in [
        ("--since", &limits.since, false, &mut since_ms),
        ("--until", &limits.until, true, &mut until_ms),
    ] {
        if let Some(text) = text {
            let at = bound(text, end, now_ms, &zone)?.ok_or_else(|| {
                bad(t!(
                    lang,
                    "cli.export.bad_time",
                    option = option,
                    text = inline(text, 40)
                ))
            })?;
            *slot = Some(at);
        }
    }
    if let (Some(since), Some(until)) = (since_ms, until_ms)
        && since >= until
    {
        return Err(bad(t!(
            lang,
            "cli.export.empty_span",
            since = inline(limits.since.as_deref().unwrap_or_default(), 40),
            until = inline(limits.until.as_deref().unwrap_or_default(), 40)
        )));
    }
    let mut operators = Vec::new();
    for name in &limits.operators {
        let name = name.trim();
        if name.is_empty() {
            return Err(bad(t!(lang, "cli.export.bad_operator").to_string()));
        }
        operators.push(name.to_string());
    }
    let mut items = Vec::new();
    for text in &limits.items {
        let item = ItemMatch::parse(text)
            .ok_or_else(|| bad(t!(lang, "cli.export.bad_item", text = inline(text, 40))))?;
        items.push(item);
    }
    Ok(ExportFilter {
        since_ms,
        until_ms,
        operators,
        items,
    })
}

/// The time `text` stands for, at the start of a day given whole (its end,
/// for `end`); `None` when it is no time.
fn bound(
    text: &str,
    end: bool,
    now_ms: Millis,
    zone: &dyn Fn() -> anyhow::Result<Zone>,
) -> anyhow::Result<Option<Millis>> {
    if let Ok(at) = time::parse_text(text) {
        return Ok(Some(at));
    }
    if !is_day(text) {
        return Ok(None);
    }
    Ok(parse_span(text, zone()?, now_ms)
        .ok()
        .map(|day| if end { day.to_ms } else { day.from_ms }))
}

/// `2026-11-29`, `today` or `yesterday`: a whole day, not a moment.
fn is_day(text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    if t == "today" || t == "yesterday" {
        return true;
    }
    let parts: Vec<&str> = t.split('-').collect();
    matches!(parts.as_slice(), [y, m, d]
        if y.len() == 4 && (1..=2).contains(&m.len()) && (1..=2).contains(&d.len())
            && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(since: Option<&str>, until: Option<&str>) -> ExportLimits {
        ExportLimits {
            since: since.map(str::to_string),
            until: until.map(str::to_string),
            tz: Some("Asia/Tokyo".into()),
            ..Default::default()
        }
    }

    const NOW: Millis = 1_795_953_600_000; // 2026-11-29T12:00:00Z

    #[test]
    fn a_day_is_whole_in_the_operators_zone() {
        let f = filter(&limits(Some("2026-11-29"), Some("2026-11-29")), NOW).unwrap();
        // 2026-11-29 00:00 JST is 2026-11-28 15:00 UTC.
        assert_eq!(
            f.since_ms,
            Some(time::parse_text("2026-11-28T15:00:00Z").unwrap())
        );
        assert_eq!(
            f.until_ms,
            Some(time::parse_text("2026-11-29T15:00:00Z").unwrap())
        );
        let f = filter(&limits(Some("2026-11-29T10:00:00+09:00"), None), NOW).unwrap();
        assert_eq!(
            f.since_ms,
            Some(time::parse_text("2026-11-29T01:00:00Z").unwrap())
        );
        let f = filter(&limits(Some("yesterday"), Some("today")), NOW).unwrap();
        assert_eq!(f.until_ms.unwrap() - f.since_ms.unwrap(), 2 * 86_400_000);
    }

    #[test]
    fn what_cannot_be_read_is_refused() {
        for (since, until) in [
            (Some("soon"), None),
            (None, Some("2026-13-01")),
            (None, Some("10:00")),
            (Some("2026-11-30"), Some("2026-11-29")),
        ] {
            let err = filter(&limits(since, until), NOW).unwrap_err();
            assert_eq!(super::super::error::exit_code(&err), 2, "{err}");
            assert!(err.to_string().contains("export --help"), "{err}");
        }
        let bad_item = ExportLimits {
            items: vec!["dup:12".into(), "dupe:".into()],
            ..Default::default()
        };
        assert!(
            filter(&bad_item, NOW)
                .unwrap_err()
                .to_string()
                .contains("dupe:")
        );
        let nobody = ExportLimits {
            operators: vec![" ".into()],
            ..Default::default()
        };
        assert!(filter(&nobody, NOW).is_err());
    }
}
