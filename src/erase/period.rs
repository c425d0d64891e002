//! How long receipts are kept, as a person writes it: `2y`, `18mo`, `90d`,
//! `12w` (a year is 365 days, a month 30), or a duration such as `36h`. One
//! reading for `erase --older-than` and a form's `retention` in `forms.toml`,
//! so that the same text never means two periods.

use crate::model::Millis;

pub const DAY_MS: Millis = 86_400_000;

/// The longest period in days, months, weeks or years: a century.
const MOST_IN_DAYS: f64 = 100.0 * 365.0 * DAY_MS as f64;
/// The longest period in hours, minutes or seconds, as `--window` takes them.
const MOST_IN_HOURS: f64 = 366.0 * DAY_MS as f64;

/// The period `text` spells, in milliseconds (at least 1); `None` when it
/// spells none. A bare number is seconds, as for every duration.
pub fn period_ms(text: &str) -> Option<Millis> {
    let (value, unit) = crate::model::time::number_and_unit(text)?;
    let day = DAY_MS as f64;
    let (unit_ms, most) = match unit {
        "y" => (365.0 * day, MOST_IN_DAYS),
        "mo" => (30.0 * day, MOST_IN_DAYS),
        "w" => (7.0 * day, MOST_IN_DAYS),
        "d" => (day, MOST_IN_DAYS),
        clock => (crate::model::time::clock_unit_ms(clock)?, MOST_IN_HOURS),
    };
    let ms = (value * unit_ms).round();
    (ms >= 1.0 && ms <= most).then_some(ms as Millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_in_days_and_in_hours() {
        assert_eq!(period_ms("2y"), Some(730 * DAY_MS));
        assert_eq!(period_ms(" 18mo "), Some(540 * DAY_MS));
        assert_eq!(period_ms("90d"), Some(90 * DAY_MS));
        assert_eq!(period_ms("12w"), Some(84 * DAY_MS));
        assert_eq!(period_ms("1.5d"), Some(36 * 3_600_000));
        assert_eq!(period_ms("36h"), Some(36 * 3_600_000));
        assert_eq!(period_ms("90m"), Some(90 * 60_000));
        assert_eq!(period_ms("600"), Some(600_000));
        assert_eq!(period_ms("100y"), Some(36_500 * DAY_MS));
    }

    #[test]
    fn what_is_no_period() {
        for bad in [
            "", "0d", "-2y", "y", "2 years", "2Y", "500y", "367d12h", "9000h", "1e3d", "0.0001ms",
            ".d",
        ] {
            assert_eq!(period_ms(bad), None, "{bad:?}");
        }
    }
}
