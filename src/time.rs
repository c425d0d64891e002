//! The three time formats of the database contract, and how times are printed.
//!
//! Accepted: RFC 3339 with an offset (`2026-11-29T10:15:30.123Z`), SQLite's
//! `YYYY-MM-DD HH:MM:SS[.fff]` (UTC, `T` separator tolerated), and unix seconds or
//! milliseconds as an INTEGER (or as digits in text, as some legacy views store them).

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};

use crate::triage::model::{Millis, TimeValue};

/// Integers at or above this are milliseconds: as seconds they would be past the
/// year 5000, as milliseconds they are after March 1973.
const MILLIS_THRESHOLD: i64 = 100_000_000_000;

/// Parses a stored time into unix milliseconds, or says why it cannot.
pub fn parse_time(value: &TimeValue) -> Result<Millis, String> {
    match value {
        TimeValue::Null => Err("time is NULL".to_string()),
        TimeValue::Integer(n) => Ok(from_unix_number(*n)),
        TimeValue::Real(x) => {
            if !x.is_finite() {
                return Err(format!("time is not a finite number: {x}"));
            }
            // A REAL is read as seconds with a fraction unless it is clearly milliseconds.
            if x.abs() >= MILLIS_THRESHOLD as f64 {
                Ok(x.round() as i64)
            } else {
                Ok((x * 1000.0).round() as i64)
            }
        }
        TimeValue::Text(text) => parse_text(text),
        TimeValue::Other(what) => Err(format!("time is not text or a number: {what}")),
    }
}

fn from_unix_number(n: i64) -> Millis {
    if n.unsigned_abs() >= MILLIS_THRESHOLD as u64 {
        n
    } else {
        n.saturating_mul(1000)
    }
}

/// Parses a time given as text (any of the accepted forms).
pub fn parse_text(text: &str) -> Result<Millis, String> {
    let t = text.trim();
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
    Err(format!(
        "unrecognised time {:?}",
        crate::sanitize::inline(t, 40)
    ))
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

/// `4 min 10 s`, or `10 min` when the smaller unit is zero.
fn pair(big: u64, big_unit: &str, small: u64, small_unit: &str) -> String {
    if small == 0 {
        format!("{big} {big_unit}")
    } else {
        format!("{big} {big_unit} {small} {small_unit}")
    }
}

/// The current time in unix milliseconds.
pub fn now_ms() -> Millis {
    Utc::now().timestamp_millis()
}

/// A duration as people read it: `850 ms`, `2.3 s`, `4 min 10 s`, `3 h 5 min`, `2 d 4 h`.
pub fn human_duration(ms: Millis) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let text = if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        pair(ms / 60_000, "min", (ms % 60_000) / 1000, "s")
    } else if ms < 86_400_000 {
        pair(ms / 3_600_000, "h", (ms % 3_600_000) / 60_000, "min")
    } else {
        pair(ms / 86_400_000, "d", (ms % 86_400_000) / 3_600_000, "h")
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
    }
}
