//! Times an operator types, read in their zone: a moment (`10:00`,
//! `10:00:30`, `2026-11-29 10:00`, `11-29 10:00`, `yesterday 10:00`,
//! `today 09:30`), a whole day (`2026-11-29`, `yesterday`), or a range of
//! either joined by `..` or ` to ` (`10:00..11:00`,
//! `2026-11-29 09:00 to 2026-11-29 12:00`).
//!
//! A moment means the half hour either side of it: a visitor on the phone
//! says "around ten". A time of day without a date is today's, or
//! yesterday's when today's is still more than that half hour ahead (at
//! 08:00, "22:00" is last night).

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime};

use super::Zone;
use crate::i18n::Lang;
use crate::model::Millis;

/// How far either side of a moment a search looks.
pub const AROUND_MS: Millis = 30 * 60 * 1000;

/// A span of time: from `from_ms` (included) to `to_ms` (excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub from_ms: Millis,
    pub to_ms: Millis,
}

impl Span {
    pub fn contains(&self, ms: Millis) -> bool {
        (self.from_ms..self.to_ms).contains(&ms)
    }

    /// `2026-11-29 09:30 – 10:30 JST`, or with both dates when they differ.
    pub fn describe(&self, zone: Zone) -> String {
        let from = zone.format_minutes(self.from_ms);
        let to = zone.format_minutes(self.to_ms);
        let to = match (from.get(..10), to.get(..10)) {
            (Some(a), Some(b)) if a == b => to[11..].to_string(),
            _ => to,
        };
        format!("{from} – {to} {}", zone.abbreviation(self.from_ms))
    }
}

/// One side of what was typed: a day, a time of day, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Moment {
    day: Option<NaiveDate>,
    clock: Option<(NaiveTime, bool)>,
}

/// True when `word` looks like part of a time (a time of day, a date, `today`,
/// `yesterday`, `..`, `to`): how a search query tells its time apart from its
/// text. A word that looks like one but is not a valid time (`25:61`) still
/// counts, so that it is refused rather than searched for as text.
pub fn is_time_word(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    if matches!(w.as_str(), "today" | "yesterday" | ".." | "to") {
        return true;
    }
    if let Some((a, b)) = w.split_once("..") {
        return (a.is_empty() || is_time_word(a)) && (b.is_empty() || is_time_word(b));
    }
    looks_like_clock(&w) || looks_like_date(&w)
}

/// `H:MM` or `HH:MM:SS` in shape (digits and colons).
fn looks_like_clock(w: &str) -> bool {
    let parts: Vec<&str> = w.split(':').collect();
    (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| (1..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `YYYY-MM-DD` or `MM-DD` in shape.
fn looks_like_date(w: &str) -> bool {
    let parts: Vec<&str> = w.split('-').collect();
    let digits = |p: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
    };
    match parts.as_slice() {
        [y, m, d] => digits(y, 4..=4) && digits(m, 1..=2) && digits(d, 1..=2),
        [m, d] => digits(m, 1..=2) && digits(d, 1..=2),
        _ => false,
    }
}

/// Why a typed time cannot be read. Its text follows the language of the
/// messages ([`crate::i18n::current`]); [`SpanError::message`] says it in any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanError {
    /// What was typed, terminal-safe and short.
    Unreadable(String),
    NoSuchClock(String),
    NoSuchDate(String),
    Backwards(String),
}

impl SpanError {
    pub fn message(&self, lang: Lang) -> String {
        let quoted = |text: &str| format!("{text:?}");
        match self {
            Self::Unreadable(text) => crate::t!(lang, "error.time.unreadable", text = quoted(text)),
            Self::NoSuchClock(w) => crate::t!(lang, "error.time.no_such_clock", time = w),
            Self::NoSuchDate(w) => crate::t!(lang, "error.time.no_such_date", date = w),
            Self::Backwards(text) => crate::t!(lang, "error.time.backwards", text = quoted(text)),
        }
    }
}

impl std::fmt::Display for SpanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(crate::i18n::current()))
    }
}

impl std::error::Error for SpanError {}

fn unreadable(text: &str) -> SpanError {
    SpanError::Unreadable(crate::sanitize::inline(text, 40))
}

/// Reads a typed moment, day or range in `zone`, as of `now_ms`.
pub fn parse_span(text: &str, zone: Zone, now_ms: Millis) -> Result<Span, SpanError> {
    let joined = text
        .split_whitespace()
        .map(|w| {
            if w.eq_ignore_ascii_case("to") {
                ".."
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let sides: Vec<&str> = joined.split("..").map(str::trim).collect();
    let today = zone
        .local(now_ms)
        .map(|t| t.date())
        .ok_or_else(|| unreadable(text))?;
    match sides.as_slice() {
        [one] => {
            let m = moment(one, today, text)?;
            let day = m.day.unwrap_or(today);
            match m.clock {
                Some((clock, _)) => {
                    let mut at = to_utc(zone, day.and_time(clock), text)?;
                    if m.day.is_none() && at - AROUND_MS > now_ms {
                        at = to_utc(zone, (day - Duration::days(1)).and_time(clock), text)?;
                    }
                    Ok(Span {
                        from_ms: at - AROUND_MS,
                        to_ms: at + AROUND_MS,
                    })
                }
                None => whole_day(zone, day, text),
            }
        }
        [a, b] => {
            let start = moment(a, today, text)?;
            let end = moment(b, today, text)?;
            let mut day = start.day.unwrap_or(today);
            if let (None, Some((clock, _))) = (start.day, start.clock) {
                let first = to_utc(zone, day.and_time(clock), text)?;
                if first > now_ms + AROUND_MS {
                    day -= Duration::days(1);
                }
            }
            let from_ms = match start.clock {
                Some((clock, _)) => to_utc(zone, day.and_time(clock), text)?,
                None => whole_day(zone, day, text)?.from_ms,
            };
            let end_day = end.day.unwrap_or(day);
            let to_ms = match end.clock {
                Some((clock, seconds)) => {
                    let step = if seconds { 1_000 } else { 60_000 };
                    to_utc(zone, end_day.and_time(clock), text)? + step
                }
                None => whole_day(zone, end_day, text)?.to_ms,
            };
            if to_ms <= from_ms {
                return Err(SpanError::Backwards(crate::sanitize::inline(text, 40)));
            }
            Ok(Span { from_ms, to_ms })
        }
        _ => Err(unreadable(text)),
    }
}

fn to_utc(zone: Zone, local: NaiveDateTime, text: &str) -> Result<Millis, SpanError> {
    zone.to_utc(local).ok_or_else(|| unreadable(text))
}

fn whole_day(zone: Zone, day: NaiveDate, text: &str) -> Result<Span, SpanError> {
    let next = day.succ_opt().ok_or_else(|| unreadable(text))?;
    Ok(Span {
        from_ms: to_utc(zone, day.and_time(NaiveTime::MIN), text)?,
        to_ms: to_utc(zone, next.and_time(NaiveTime::MIN), text)?,
    })
}

/// One side: `[day] [time of day]`, at least one of them.
fn moment(side: &str, today: NaiveDate, text: &str) -> Result<Moment, SpanError> {
    let mut m = Moment {
        day: None,
        clock: None,
    };
    let words: Vec<&str> = side.split_whitespace().collect();
    if words.is_empty() || words.len() > 2 {
        return Err(unreadable(text));
    }
    for w in words {
        let lower = w.to_ascii_lowercase();
        if looks_like_clock(&lower) {
            if m.clock.is_some() {
                return Err(unreadable(text));
            }
            m.clock = Some(clock(&lower)?);
            continue;
        }
        if m.day.is_some() || m.clock.is_some() {
            return Err(unreadable(text));
        }
        m.day = Some(match lower.as_str() {
            "today" => today,
            "yesterday" => today - Duration::days(1),
            _ if looks_like_date(&lower) => date(&lower, today)?,
            _ => return Err(unreadable(text)),
        });
    }
    Ok(m)
}

/// `10:00` or `10:00:30`; the bool tells whether seconds were given.
fn clock(w: &str) -> Result<(NaiveTime, bool), SpanError> {
    let n: Vec<u32> = w.split(':').map(|p| p.parse().unwrap_or(99)).collect();
    let (h, m, s) = (n[0], n[1], n.get(2).copied().unwrap_or(0));
    NaiveTime::from_hms_opt(h, m, s)
        .filter(|_| h < 24 && m < 60 && s < 60)
        .map(|t| (t, n.len() == 3))
        .ok_or_else(|| SpanError::NoSuchClock(w.to_string()))
}

/// `2026-11-29`, or `11-29` in the current year (last year's when it would
/// be more than a day ahead).
fn date(w: &str, today: NaiveDate) -> Result<NaiveDate, SpanError> {
    let n: Vec<i32> = w.split('-').map(|p| p.parse().unwrap_or(-1)).collect();
    let no_such = || SpanError::NoSuchDate(w.to_string());
    let month_day = |y: i32, m: i32, d: i32| {
        NaiveDate::from_ymd_opt(y, u32::try_from(m).ok()?, u32::try_from(d).ok()?)
    };
    match n.as_slice() {
        [y, m, d] => month_day(*y, *m, *d).ok_or_else(no_such),
        [m, d] => {
            let this = month_day(today.year(), *m, *d).ok_or_else(no_such)?;
            if this > today + Duration::days(1) {
                month_day(today.year() - 1, *m, *d).ok_or_else(no_such)
            } else {
                Ok(this)
            }
        }
        _ => Err(no_such()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30T12:00:00Z: 21:00 in Tokyo, 13:00 in Berlin.
    const NOW: Millis = 1_796_040_000_000;

    fn tokyo() -> Zone {
        Zone::parse("Asia/Tokyo").unwrap()
    }

    fn utc(ms: Millis) -> String {
        Zone::UTC.format_seconds(ms)
    }

    fn span(text: &str, zone: Zone) -> (String, String) {
        let s = parse_span(text, zone, NOW).unwrap_or_else(|e| panic!("{text}: {e}"));
        (utc(s.from_ms), utc(s.to_ms))
    }

    #[test]
    fn a_moment_is_half_an_hour_either_side_in_the_zone() {
        // 10:00 in Tokyo is 01:00 UTC.
        assert_eq!(
            span("10:00", tokyo()),
            ("2026-11-30 00:30:00".into(), "2026-11-30 01:30:00".into())
        );
        assert_eq!(
            span("10:00:30", tokyo()),
            ("2026-11-30 00:30:30".into(), "2026-11-30 01:30:30".into())
        );
        assert_eq!(
            span("2026-11-29 10:00", tokyo()),
            ("2026-11-29 00:30:00".into(), "2026-11-29 01:30:00".into())
        );
        assert_eq!(
            span("11-29 10:00", tokyo()),
            span("2026-11-29 10:00", tokyo())
        );
        assert_eq!(
            span("yesterday 10:00", tokyo()),
            span("2026-11-29 10:00", tokyo())
        );
        assert_eq!(
            span("today 09:30", tokyo()),
            ("2026-11-30 00:00:00".into(), "2026-11-30 01:00:00".into())
        );
        assert_eq!(span("Yesterday 10:00", Zone::UTC).0, "2026-11-29 09:30:00");
    }

    #[test]
    fn a_time_still_ahead_is_yesterdays() {
        // At 21:00 in Tokyo, 23:00 is last night's.
        assert_eq!(span("23:00", tokyo()).0, "2026-11-29 13:30:00");
        // 21:20 is within the half hour: today's.
        assert_eq!(span("21:20", tokyo()).0, "2026-11-30 11:50:00");
    }

    #[test]
    fn days_and_ranges() {
        assert_eq!(
            span("2026-11-29", tokyo()),
            ("2026-11-28 15:00:00".into(), "2026-11-29 15:00:00".into())
        );
        assert_eq!(
            span("10:00..11:00", tokyo()),
            ("2026-11-30 01:00:00".into(), "2026-11-30 02:01:00".into())
        );
        assert_eq!(
            span("10:00 to 11:00", tokyo()),
            span("10:00..11:00", tokyo())
        );
        assert_eq!(
            span("2026-11-29 09:00..2026-11-29 12:00", Zone::UTC),
            ("2026-11-29 09:00:00".into(), "2026-11-29 12:01:00".into())
        );
        assert_eq!(
            span("2026-11-29 09:00 .. 12:00:00", Zone::UTC),
            ("2026-11-29 09:00:00".into(), "2026-11-29 12:00:01".into())
        );
        assert_eq!(
            span("yesterday..today", Zone::UTC),
            ("2026-11-29 00:00:00".into(), "2026-12-01 00:00:00".into())
        );
    }

    #[test]
    fn across_daylight_saving_changes() {
        let berlin = Zone::parse("Europe/Berlin").unwrap();
        // 2026-03-29 in Berlin is 23 hours long, 2026-10-25 is 25.
        let short = parse_span("2026-03-29", berlin, NOW).unwrap();
        assert_eq!(short.to_ms - short.from_ms, 23 * 3_600_000);
        let long = parse_span("2026-10-25", berlin, NOW).unwrap();
        assert_eq!(long.to_ms - long.from_ms, 25 * 3_600_000);
        // 02:30 on 2026-03-29 never showed: read as 03:30 CEST (01:30 UTC).
        assert_eq!(span("2026-03-29 02:30", berlin).0, "2026-03-29 01:00:00");
        // 02:30 on 2026-10-25 showed twice: the first (CEST, 00:30 UTC).
        assert_eq!(span("2026-10-25 02:30", berlin).0, "2026-10-25 00:00:00");
        let ny = Zone::parse("America/New_York").unwrap();
        assert_eq!(span("2026-07-01 10:00", ny).0, "2026-07-01 13:30:00");
        assert_eq!(span("2026-11-29 10:00", ny).0, "2026-11-29 14:30:00");
    }

    #[test]
    fn bad_times_say_why() {
        let e = parse_span("25:61", tokyo(), NOW).unwrap_err();
        assert!(
            e.to_string().starts_with("no such time of day: 25:61"),
            "{e}"
        );
        assert_eq!(
            e.message(Lang::Ja),
            "25:61 という時刻はありません（時は 0〜23、分と秒は 0〜59）"
        );
        assert!(parse_span("24:00", tokyo(), NOW).is_err());
        assert!(
            parse_span("2026-02-30 10:00", tokyo(), NOW)
                .unwrap_err()
                .to_string()
                .contains("no such date")
        );
        assert!(
            parse_span("11:00..10:00", tokyo(), NOW)
                .unwrap_err()
                .to_string()
                .contains("ends before")
        );
        assert!(parse_span("10:00..11:00..12:00", tokyo(), NOW).is_err());
        assert!(parse_span("10:00 11:00", tokyo(), NOW).is_err());
        assert!(
            parse_span("soon", tokyo(), NOW)
                .unwrap_err()
                .to_string()
                .starts_with("unreadable time")
        );
        assert!(parse_span("", tokyo(), NOW).is_err());
    }

    #[test]
    fn time_words_are_told_from_text() {
        for w in [
            "10:00",
            "9:30:15",
            "2026-11-29",
            "11-29",
            "Yesterday",
            "today",
            "..",
            "10:00..11:00",
            "25:61",
        ] {
            assert!(is_time_word(w), "{w}");
        }
        for w in [
            "john@example.com",
            "1907",
            "#1907",
            "03-1234-5678",
            "a:b",
            "10:00am",
        ] {
            assert!(!is_time_word(w), "{w}");
        }
    }

    #[test]
    fn spans_describe_themselves_in_the_zone() {
        let s = parse_span("2026-11-29 10:00", tokyo(), NOW).unwrap();
        assert_eq!(s.describe(tokyo()), "2026-11-29 09:30 – 10:30 JST");
    }
}
