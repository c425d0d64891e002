//! The periods the per-form view counts over, relative to the reading's `now`.

use crate::i18n::Lang;
use crate::model::Millis;
use crate::t;
use crate::triage::activity::HOUR_MS;

const DAY_MS: Millis = 24 * HOUR_MS;
/// The longest daily chart of "all receipts": a year.
const MAX_DAYS: i64 = 366;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Period {
    Day,
    #[default]
    Week,
    Month,
    /// Every receipt read, whenever it arrived.
    All,
}

impl Period {
    pub const ALL: [Period; 4] = [Period::Day, Period::Week, Period::Month, Period::All];

    /// The next period in the screen's cycle: 24 h → 7 d → 30 d → all → 24 h.
    pub fn next(self) -> Period {
        match self {
            Period::Day => Period::Week,
            Period::Week => Period::Month,
            Period::Month => Period::All,
            Period::All => Period::Day,
        }
    }

    /// How the screen and the report name it.
    pub fn label(self) -> &'static str {
        self.label_in(Lang::En)
    }

    /// [`Period::label`] in `lang`.
    pub fn label_in(self, lang: Lang) -> &'static str {
        match self {
            Period::Day => t!(lang, "forms.period.day"),
            Period::Week => t!(lang, "forms.period.week"),
            Period::Month => t!(lang, "forms.period.month"),
            Period::All => t!(lang, "forms.period.all"),
        }
    }

    /// How `--period` spells it (and `report --json` writes it).
    pub fn as_arg(self) -> &'static str {
        match self {
            Period::Day => "24h",
            Period::Week => "7d",
            Period::Month => "30d",
            Period::All => "all",
        }
    }

    pub fn parse(text: &str) -> Result<Period, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "24h" | "1d" | "day" => Ok(Period::Day),
            "7d" | "week" => Ok(Period::Week),
            "30d" | "month" => Ok(Period::Month),
            "all" => Ok(Period::All),
            _ => Err(t!(
                crate::i18n::current(),
                "error.forms.unknown_period",
                period = format!("{:?}", crate::sanitize::inline(text, 20))
            )),
        }
    }

    fn hours(self) -> Option<i64> {
        match self {
            Period::Day => Some(24),
            Period::Week => Some(7 * 24),
            Period::Month => Some(30 * 24),
            Period::All => None,
        }
    }

    /// The end of the hour that holds `now`: periods are whole hours ending there.
    pub fn end(now_ms: Millis) -> Millis {
        (now_ms.div_euclid(HOUR_MS) + 1) * HOUR_MS
    }

    /// The first instant of the period (`None`: every receipt). A receipt
    /// counts when it arrived at or after it; receipts stamped later than
    /// `now` (a clock ahead) count too.
    pub fn start(self, now_ms: Millis) -> Option<Millis> {
        self.hours().map(|h| Self::end(now_ms) - h * HOUR_MS)
    }

    /// The chart's buckets: the first one's start, each one's length and how
    /// many: hours over 24 h, days otherwise (for all receipts, from the day
    /// of `first_ms`, at most a year).
    pub fn buckets(self, now_ms: Millis, first_ms: Option<Millis>) -> (Millis, Millis, usize) {
        let end = Self::end(now_ms);
        match self {
            Period::Day => (end - DAY_MS, HOUR_MS, 24),
            Period::Week => (end - 7 * DAY_MS, DAY_MS, 7),
            Period::Month => (end - 30 * DAY_MS, DAY_MS, 30),
            Period::All => {
                let first = first_ms.unwrap_or(end - DAY_MS).min(end - 1);
                let days = (end - first).div_euclid(DAY_MS) + 1;
                let days = days.clamp(1, MAX_DAYS);
                (end - days * DAY_MS, DAY_MS, days as usize)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_whole_hours_ending_with_the_current_one() {
        // 2026-11-29T10:15:30.123Z
        let now = 1_795_947_330_123;
        let end = Period::end(now);
        assert_eq!(end % HOUR_MS, 0);
        assert!(end > now && end - now <= HOUR_MS);
        assert_eq!(Period::Day.start(now), Some(end - DAY_MS));
        assert_eq!(Period::Month.start(now), Some(end - 30 * DAY_MS));
        assert_eq!(Period::All.start(now), None);
        assert_eq!(
            Period::Week.buckets(now, None),
            (end - 7 * DAY_MS, DAY_MS, 7)
        );
        let (start, len, n) = Period::All.buckets(now, Some(end - 3 * DAY_MS - 5));
        assert_eq!((len, n), (DAY_MS, 4));
        assert!(start <= end - 3 * DAY_MS - 5);
    }

    #[test]
    fn the_cycle_visits_every_period_and_arguments_read_back() {
        let mut p = Period::Day;
        for _ in 0..4 {
            assert_eq!(Period::parse(p.as_arg()), Ok(p));
            p = p.next();
        }
        assert_eq!(p, Period::Day);
        assert!(
            Period::parse("2w")
                .unwrap_err()
                .contains("24h, 7d, 30d or all")
        );
    }
}
