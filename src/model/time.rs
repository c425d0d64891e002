//! The three time formats of the database contract, and how times are printed.
//!
//! Accepted: RFC 3339 with an offset (`2026-11-29T10:15:30.123Z`), SQLite's
//! `YYYY-MM-DD HH:MM:SS[.fff]` (UTC, `T` separator tolerated), and unix seconds or
//! milliseconds as an INTEGER (or as digits in text, as some legacy views store them).

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};

use crate::i18n::{self, Lang};
use crate::model::{Millis, TimeRef, TimeValue};

/// Integers at or above this are milliseconds: as seconds they would be past the
/// year 5000, as milliseconds they are after March 1973.
const MILLIS_THRESHOLD: i64 = 100_000_000_000;

/// Why a time cannot be read. Its text follows the language of the
/// messages ([`i18n::current`]); [`TimeError::message`] says it in any.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeError {
    Null,
    NotFinite(f64),
    /// What the value is instead, in the storage's words.
    NotTextOrNumber(String),
    /// The text, terminal-safe and short.
    Unrecognised(String),
}

impl TimeError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Null => crate::t!(lang, "error.time.null").to_string(),
            Self::NotFinite(x) => crate::t!(lang, "error.time.not_finite", value = x),
            Self::NotTextOrNumber(what) => {
                crate::t!(lang, "error.time.not_text_or_number", what = what)
            }
            Self::Unrecognised(text) => {
                crate::t!(lang, "error.time.unrecognised", text = format!("{text:?}"))
            }
        }
    }
}

impl std::fmt::Display for TimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(i18n::current()))
    }
}

impl std::error::Error for TimeError {}

/// Parses a stored time into unix milliseconds, or says why it cannot.
pub fn parse_time(value: &TimeValue) -> Result<Millis, TimeError> {
    parse_time_ref(value.as_ref())
}

/// [`parse_time`] of a borrowed value.
pub fn parse_time_ref(value: TimeRef<'_>) -> Result<Millis, TimeError> {
    match value {
        TimeRef::Null => Err(TimeError::Null),
        TimeRef::Integer(n) => Ok(from_unix_number(n)),
        TimeRef::Real(x) => {
            if !x.is_finite() {
                return Err(TimeError::NotFinite(x));
            }
            // A REAL is read as seconds with a fraction unless it is clearly milliseconds.
            if x.abs() >= MILLIS_THRESHOLD as f64 {
                Ok(x.round() as i64)
            } else {
                Ok((x * 1000.0).round() as i64)
            }
        }
        TimeRef::Text(text) => read_text(text),
        TimeRef::Other(what) => Err(TimeError::NotTextOrNumber(what.to_string())),
    }
}

fn from_unix_number(n: i64) -> Millis {
    if n.unsigned_abs() >= MILLIS_THRESHOLD as u64 {
        n
    } else {
        n.saturating_mul(1000)
    }
}

/// The number a duration or period starts with and the unit after it,
/// trimmed: `90s` → (90, "s"), ` 1.5 h` → (1.5, "h"), `600` → (600, "").
/// `None` when it starts with no number (a sign included: `-5m`).
pub fn number_and_unit(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    Some((number.parse().ok()?, unit.trim()))
}

/// Milliseconds in one of a clock's units as every duration is written:
/// `ms`, `s` (or none: a bare number is seconds), `m` or `min`, `h`.
pub fn clock_unit_ms(unit: &str) -> Option<f64> {
    match unit {
        "" | "s" => Some(1000.0),
        "ms" => Some(1.0),
        "m" | "min" => Some(60_000.0),
        "h" => Some(3_600_000.0),
        _ => None,
    }
}

/// Parses a time given as text (any of the accepted forms); the error is
/// one line in the language of the messages.
pub fn parse_text(text: &str) -> Result<Millis, String> {
    read_text(text).map_err(|e| e.to_string())
}

/// [`parse_text`], with the reason typed.
pub fn read_text(text: &str) -> Result<Millis, TimeError> {
    let t = text.trim();
    if let Some(ms) = parse_fixed_layout(t.as_bytes()) {
        return Ok(ms);
    }
    if is_integer(t)
        && let Ok(n) = t.parse::<i64>()
    {
        return Ok(from_unix_number(n));
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.timestamp_millis());
    }
    for format in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(t, format) {
            return Ok(naive.and_utc().timestamp_millis());
        }
    }
    Err(TimeError::Unrecognised(crate::sanitize::inline(t, 40)))
}

/// The layouts an intake writes, parsed without chrono: RFC 3339 in UTC
/// (`2026-11-29T10:15:30Z`, `2026-11-29T10:15:30.123Z`) and SQLite's text
/// (`2026-11-29 10:15:30`, `2026-11-29 10:15:30.123`, also with `T`). `None`
/// for anything else, including out-of-range fields and leap seconds, which
/// then go through the general parsers (same answer, same error).
fn parse_fixed_layout(b: &[u8]) -> Option<Millis> {
    let (frac, zulu) = match b.len() {
        19 => (false, false),
        20 => (false, true),
        23 => (true, false),
        24 => (true, true),
        _ => return None,
    };
    if b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let sep = b[10];
    let separator_ok = sep == b'T' || (sep == b' ' && !zulu);
    if !separator_ok {
        return None;
    }
    if zulu && b[b.len() - 1] != b'Z' {
        return None;
    }
    if frac && b[19] != b'.' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let mut n = 0i64;
        for &c in &b[range] {
            if !c.is_ascii_digit() {
                return None;
            }
            n = n * 10 + i64::from(c - b'0');
        }
        Some(n)
    };
    let year = num(0..4)?;
    let month = num(5..7)?;
    let day = num(8..10)?;
    let hour = num(11..13)?;
    let minute = num(14..16)?;
    let second = num(17..19)?;
    let millis = if frac { num(20..23)? } else { 0 };
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_integer(t: &str) -> bool {
    let digits = t.strip_prefix('-').unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// RFC 3339 in UTC with milliseconds: `2026-11-29T10:15:30.123Z`.
pub fn format_rfc3339(ms: Millis) -> String {
    match DateTime::<Utc>::from_timestamp_millis(ms) {
        Some(dt) => dt.to_rfc3339_opts(SecondsFormat::Millis, true),
        None => format!("@{ms}ms"),
    }
}

/// The units of a duration, largest first.
#[derive(Clone, Copy)]
enum Unit {
    Day,
    Hour,
    Minute,
    Second,
}

fn unit(lang: Lang, unit: Unit, n: &dyn std::fmt::Display) -> String {
    match unit {
        Unit::Day => crate::t!(lang, "terms.duration.d", n = n),
        Unit::Hour => crate::t!(lang, "terms.duration.h", n = n),
        Unit::Minute => crate::t!(lang, "terms.duration.min", n = n),
        Unit::Second => crate::t!(lang, "terms.duration.s", n = n),
    }
}

/// `4 min 10 s`, or `10 min` when the smaller unit is zero.
fn pair(lang: Lang, big: u64, big_unit: Unit, small: u64, small_unit: Unit) -> String {
    let a = unit(lang, big_unit, &big);
    if small == 0 {
        a
    } else {
        let b = unit(lang, small_unit, &small);
        crate::t!(lang, "terms.duration.pair", a = a, b = b)
    }
}

/// The current time in unix milliseconds.
pub fn now_ms() -> Millis {
    Utc::now().timestamp_millis()
}

/// A duration as people read it: `850 ms`, `2.3 s`, `4 min 10 s`, `3 h 5 min`, `2 d 4 h`.
pub fn human_duration(ms: Millis) -> String {
    human_duration_in(ms, Lang::En)
}

/// [`human_duration`] in `lang` (`4分10秒`).
pub fn human_duration_in(ms: Millis, lang: Lang) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let text = if ms < 1_000 {
        crate::t!(lang, "terms.duration.ms", n = ms)
    } else if ms < 60_000 {
        unit(lang, Unit::Second, &format!("{:.1}", ms as f64 / 1000.0))
    } else if ms < 3_600_000 {
        pair(
            lang,
            ms / 60_000,
            Unit::Minute,
            (ms % 60_000) / 1000,
            Unit::Second,
        )
    } else if ms < 86_400_000 {
        pair(
            lang,
            ms / 3_600_000,
            Unit::Hour,
            (ms % 3_600_000) / 60_000,
            Unit::Minute,
        )
    } else {
        pair(
            lang,
            ms / 86_400_000,
            Unit::Day,
            (ms % 86_400_000) / 3_600_000,
            Unit::Hour,
        )
    };
    format!("{sign}{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Millis = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

    #[test]
    fn rfc3339_with_offsets() {
        assert_eq!(parse_text("2026-11-29T10:15:30.123Z"), Ok(T));
        assert_eq!(parse_text("2026-11-29T19:15:30.123+09:00"), Ok(T));
        assert_eq!(parse_text("2026-11-29T10:15:30Z"), Ok(T - 123));
    }

    #[test]
    fn sqlite_text_is_utc() {
        assert_eq!(parse_text("2026-11-29 10:15:30.123"), Ok(T));
        assert_eq!(parse_text("2026-11-29 10:15:30"), Ok(T - 123));
        assert_eq!(parse_text("2026-11-29T10:15:30.123"), Ok(T));
    }

    #[test]
    fn unix_seconds_and_millis() {
        assert_eq!(parse_time(&TimeValue::Integer(1_795_947_330)), Ok(T - 123));
        assert_eq!(parse_time(&TimeValue::Integer(T)), Ok(T));
        assert_eq!(
            parse_time(&TimeValue::Text("1795947330".into())),
            Ok(T - 123)
        );
        assert_eq!(parse_time(&TimeValue::Real(1_795_947_330.123)), Ok(T));
    }

    #[test]
    fn garbage_is_an_error_not_a_guess() {
        assert!(parse_text("yesterday").is_err());
        assert!(parse_text("2026-13-01 00:00:00").is_err());
        assert!(parse_text("").is_err());
        assert!(parse_time(&TimeValue::Null).is_err());
        assert!(parse_time(&TimeValue::Real(f64::NAN)).is_err());
    }

    /// The general path alone, to compare the fast one against.
    fn slow(t: &str) -> Option<Millis> {
        if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
            return Some(dt.timestamp_millis());
        }
        ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
            .iter()
            .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
            .map(|n| n.and_utc().timestamp_millis())
    }

    #[test]
    fn fixed_layouts_agree_with_chrono() {
        for t in [
            "2026-11-29T10:15:30.123Z",
            "2026-11-29T10:15:30Z",
            "2026-11-29 10:15:30",
            "2026-11-29 10:15:30.123",
            "2026-11-29T10:15:30.123",
            "2024-02-29T23:59:59.999Z",
            "2000-02-29 00:00:00",
            "1970-01-01T00:00:00.000Z",
            "1969-12-31T23:59:59.999Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31 23:59:59.999",
        ] {
            assert_eq!(parse_fixed_layout(t.as_bytes()), slow(t), "{t}");
            assert!(slow(t).is_some(), "{t}");
        }
        // Not the fast path's business: the general parsers decide.
        for t in [
            "2023-02-29T00:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T23:59:60Z",
            "2026-11-29t10:15:30Z",
            "2026-11-29 10:15:30Z",
            "2026-11-29T10:15:30.12Z",
            "2026-11-29T10:15:30+09:00",
            "2026-13-01 00:00:00",
            "2026-11-29T10:15:3aZ",
        ] {
            assert_eq!(parse_fixed_layout(t.as_bytes()), None, "{t}");
        }
        assert_eq!(parse_text("2026-11-29 10:15:30Z"), Ok(T - 123));
        assert_eq!(
            parse_text("2026-11-29T23:59:60Z").ok(),
            slow("2026-11-29T23:59:60Z")
        );
    }

    proptest::proptest! {
        #[test]
        fn fast_and_general_parsers_agree(
            y in 1i64..=9999, mo in 0i64..=13, d in 0i64..=32, h in 0i64..=24,
            mi in 0i64..=60, s in 0i64..=60, ms in 0i64..=999, layout in 0usize..5,
        ) {
            let date = format!("{y:04}-{mo:02}-{d:02}");
            let time = format!("{h:02}:{mi:02}:{s:02}");
            let t = match layout {
                0 => format!("{date}T{time}.{ms:03}Z"),
                1 => format!("{date}T{time}Z"),
                2 => format!("{date} {time}"),
                3 => format!("{date} {time}.{ms:03}"),
                _ => format!("{date}T{time}.{ms:03}"),
            };
            if let Some(fast) = parse_fixed_layout(t.as_bytes()) {
                proptest::prop_assert_eq!(Some(fast), slow(&t), "{}", t);
            }
            let general = slow(&t).ok_or(());
            proptest::prop_assert_eq!(parse_text(&t).map_err(|_| ()), general, "{}", t);
        }
    }

    #[test]
    fn formats_back_to_rfc3339() {
        assert_eq!(format_rfc3339(T), "2026-11-29T10:15:30.123Z");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(850), "850 ms");
        assert_eq!(human_duration(2_300), "2.3 s");
        assert_eq!(human_duration(250_000), "4 min 10 s");
        assert_eq!(human_duration(11_100_000), "3 h 5 min");
        assert_eq!(human_duration(600_000), "10 min");
        assert_eq!(human_duration_in(850, Lang::Ja), "850ミリ秒");
        assert_eq!(human_duration_in(2_300, Lang::Ja), "2.3秒");
        assert_eq!(human_duration_in(250_000, Lang::Ja), "4分10秒");
        assert_eq!(human_duration_in(11_100_000, Lang::Ja), "3時間5分");
        assert_eq!(human_duration_in(190_800_000, Lang::Ja), "2日5時間");
        assert_eq!(human_duration_in(-600_000, Lang::Ja), "-10分");
    }

    #[test]
    fn time_errors_in_both_languages() {
        let e = parse_text("Sun, 29 Nov").unwrap_err();
        assert_eq!(e, "unrecognised time \"Sun, 29 Nov\"");
        let e = read_text("Sun, 29 Nov").unwrap_err();
        assert_eq!(e.message(Lang::Ja), "時刻として読めません: \"Sun, 29 Nov\"");
        assert_eq!(TimeError::Null.message(Lang::En), "time is NULL");
        assert_eq!(
            TimeError::NotFinite(f64::INFINITY).message(Lang::Ja),
            "時刻が有限の数値ではありません: inf"
        );
    }
}
