//! The units a config spells values in: sizes (`64KiB`), durations (`10m`,
//! `0s`) and rates (`30/min`). Each parser returns `None` for text it cannot
//! read; the caller names the key and what it expected.

use std::time::Duration;

/// How many requests a client may send in a period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub count: u32,
    pub per: Duration,
}

/// The largest body limit accepted: a form's body is text a person typed.
pub const MAX_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// `65536`, `64KiB`, `64KB`, `1MiB`, `512B` → bytes (KiB = 1024, KB = 1000).
pub fn size(text: &str) -> Option<usize> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: usize = number.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1000,
        "kib" | "k" => 1024,
        "mb" => 1_000_000,
        "mib" | "m" => 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(scale)
        .filter(|&bytes| bytes > 0 && bytes <= MAX_BODY_LIMIT)
}

/// `0s`, `1500ms`, `30s`, `10m`, `1h`, `45` (seconds) → a duration of at
/// most a day.
pub fn duration(text: &str) -> Option<Duration> {
    let (value, unit) = crate::model::time::number_and_unit(text)?;
    let ms_per_unit = crate::model::time::clock_unit_ms(unit)?;
    let ms = (value * ms_per_unit).round();
    (ms.is_finite() && (0.0..=86_400_000.0).contains(&ms)).then(|| Duration::from_millis(ms as u64))
}

/// `30/min`, `5/s`, `1000/h` → a rate; `off` → `Some(None)`.
pub fn rate(text: &str) -> Option<Option<Rate>> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") {
        return Some(None);
    }
    let (count, per) = t.split_once('/')?;
    let count: u32 = count.trim().parse().ok().filter(|&n| n > 0)?;
    let per = match per.trim() {
        "s" | "sec" | "second" => Duration::from_secs(1),
        "m" | "min" | "minute" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        _ => return None,
    };
    Some(Some(Rate { count, per }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size("64KiB"), Some(65_536));
        assert_eq!(size("64kb"), Some(64_000));
        assert_eq!(size("1MiB"), Some(1_048_576));
        assert_eq!(size("512"), Some(512));
        assert_eq!(size("0"), None);
        assert_eq!(size("64 potatoes"), None);
        assert_eq!(size("1024MiB"), None, "larger than the ceiling");
        assert_eq!(size(""), None);
    }

    #[test]
    fn durations() {
        assert_eq!(duration("0s"), Some(Duration::ZERO));
        assert_eq!(duration("10m"), Some(Duration::from_secs(600)));
        assert_eq!(duration("1500ms"), Some(Duration::from_millis(1500)));
        assert_eq!(duration("2"), Some(Duration::from_secs(2)));
        assert_eq!(duration("0.5s"), Some(Duration::from_millis(500)));
        assert_eq!(duration("-1s"), None);
        assert_eq!(duration("ten"), None);
        assert_eq!(duration("2d"), None);
        assert_eq!(duration("25h"), None);
    }

    #[test]
    fn rates() {
        assert_eq!(
            rate("30/min"),
            Some(Some(Rate {
                count: 30,
                per: Duration::from_secs(60)
            }))
        );
        assert_eq!(rate("5/s").unwrap().unwrap().per, Duration::from_secs(1));
        assert_eq!(rate("off"), Some(None));
        assert_eq!(rate("0/min"), None);
        assert_eq!(rate("30"), None);
        assert_eq!(rate("30/week"), None);
    }
}
