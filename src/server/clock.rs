//! The server's time: the system's, or one a test moves by hand, so that a
//! window or a timeout is tested by moving the clock, not by sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::model::Millis;

#[derive(Clone, Debug, Default)]
pub struct Clock(Option<Arc<AtomicI64>>);

impl Clock {
    /// The system's clock.
    pub fn system() -> Self {
        Self(None)
    }

    /// A clock that stands at `at_ms` until moved with [`Clock::advance`].
    pub fn manual(at_ms: Millis) -> Self {
        Self(Some(Arc::new(AtomicI64::new(at_ms))))
    }

    pub fn now_ms(&self) -> Millis {
        match &self.0 {
            None => crate::model::time::now_ms(),
            Some(at) => at.load(Ordering::SeqCst),
        }
    }

    /// Moves a manual clock on (a system clock moves by itself).
    pub fn advance(&self, ms: Millis) {
        if let Some(at) = &self.0 {
            at.fetch_add(ms, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told_and_its_copies_with_it() {
        let clock = Clock::manual(1_000);
        let copy = clock.clone();
        assert_eq!(copy.now_ms(), 1_000);
        clock.advance(1_300);
        assert_eq!(copy.now_ms(), 2_300);
        let system = Clock::system();
        system.advance(1_000_000);
        assert!((system.now_ms() - crate::model::time::now_ms()).abs() < 60_000);
    }
}
