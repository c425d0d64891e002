//! Progress reports thinned out for the screen. Each report wakes the screen
//! to draw a frame, and a reading reports every few hundred rows: drawn each
//! time, those frames would take a core from the reading itself.

use std::time::{Duration, Instant};

/// The least time between two reports of one stage.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(50);

#[derive(Debug, Default)]
pub struct Throttle {
    /// The stage last passed on, and when.
    last: Option<(&'static str, Instant)>,
}

impl Throttle {
    /// True when a report of `stage` made at `now` is to be passed on: the
    /// first of its stage, or the first [`PROGRESS_EVERY`] after the last.
    pub fn due(&mut self, stage: &'static str, now: Instant) -> bool {
        match self.last {
            Some((last, at)) if last == stage && now.duration_since(at) < PROGRESS_EVERY => false,
            _ => {
                self.last = Some((stage, now));
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_is_told_at_once_then_at_most_once_per_interval() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut t = Throttle::default();
        assert!(t.due("reading", at(0)));
        assert!(!t.due("reading", at(1)));
        assert!(!t.due("reading", at(49)));
        assert!(t.due("reading", at(50)));
        assert!(!t.due("reading", at(60)));
        // A new stage is told at once, and so is going back to one.
        assert!(t.due("analysing", at(61)));
        assert!(t.due("reading", at(62)));
        assert!(!t.due("reading", at(63)));
    }
}
