//! The screen's clock. The runtime reports the wall clock every second; the
//! analysis time follows it unless `--now` froze it, so ages grow and a
//! receipt that passes `--stuck-after` shows up without a key pressed.
//! Status messages expire by the wall clock either way.

use crate::model::Millis;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// `--now` was given: the analysis stays at the reading's time.
    pub frozen: bool,
    /// The wall clock as last reported (none before the first report).
    pub wall_ms: Option<Millis>,
    /// The crossing a reading was asked for, so that one crossing asks once.
    pub asked_for: Option<Millis>,
}

impl Clock {
    pub fn frozen() -> Self {
        Clock {
            frozen: true,
            ..Clock::default()
        }
    }

    /// The time the screen shows for a reading made as of `reading_ms`.
    pub fn now(&self, reading_ms: Millis) -> Millis {
        match self.wall_ms {
            Some(wall) if !self.frozen => wall.max(reading_ms),
            _ => reading_ms,
        }
    }

    /// Whether a reading is due because a receipt becomes stuck at
    /// `next_stuck_ms` (and one was not asked for that already).
    pub fn reading_due(&self, next_stuck_ms: Option<Millis>, reading_ms: Millis) -> bool {
        match next_stuck_ms {
            Some(at) => !self.frozen && self.now(reading_ms) >= at && self.asked_for != Some(at),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moving_clock_follows_the_wall_and_never_goes_back() {
        let mut clock = Clock::default();
        assert_eq!(clock.now(1_000), 1_000);
        clock.wall_ms = Some(5_000);
        assert_eq!(clock.now(1_000), 5_000);
        // A reading made after the last report is newer than it.
        assert_eq!(clock.now(9_000), 9_000);
    }

    #[test]
    fn a_frozen_clock_stays_at_the_reading() {
        let mut clock = Clock::frozen();
        clock.wall_ms = Some(5_000);
        assert_eq!(clock.now(1_000), 1_000);
        assert!(!clock.reading_due(Some(2_000), 1_000));
    }

    #[test]
    fn a_crossing_asks_for_one_reading() {
        let mut clock = Clock {
            wall_ms: Some(1_999),
            ..Clock::default()
        };
        assert!(!clock.reading_due(Some(2_000), 1_000));
        clock.wall_ms = Some(2_000);
        assert!(clock.reading_due(Some(2_000), 1_000));
        clock.asked_for = Some(2_000);
        assert!(!clock.reading_due(Some(2_000), 1_000));
        assert!(!clock.reading_due(None, 1_000));
    }
}
