//! When each request is due: visitors arrive at random (a Poisson process of
//! the given rate), each brings the timed requests of its pathway
//! ([`super::scenario`]), and the plan hands them out in time order. The
//! first visitors take every pathway once (in a seeded order), so that even
//! a short run shows each; the rest are drawn by weight. Pure and
//! deterministic: the same seed and settings give the same plan.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::form::FormShape;
use super::scenario::{self, KINDS, Step, Timing};
use crate::model::Millis;
use crate::traffic::{Profile, VisitKind};

/// The requests of a run, in the order they are due.
pub struct Plan {
    rng: ChaCha8Rng,
    shape: FormShape,
    profile: Profile,
    mean_gap_ms: f64,
    next_arrival_ms: f64,
    /// No visitor arrives at or after this time; `None`: until stopped.
    arrivals_end_ms: Option<Millis>,
    visitors: u64,
    /// The first visitors' pathways: each one once.
    intro: Vec<VisitKind>,
    queue: BinaryHeap<Reverse<Due>>,
    seq: u64,
}

/// A step in the queue, ordered by when it is due (then as planned).
struct Due {
    at_ms: Millis,
    seq: u64,
    step: Step,
}

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ms, self.seq) == (other.at_ms, other.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Due {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at_ms, self.seq).cmp(&(other.at_ms, other.seq))
    }
}

impl Plan {
    /// `rate`: visitors a second (more than 0); `arrivals_for_ms`: how long
    /// visitors keep arriving (`None`: until [`Plan::stop_arrivals`]).
    pub fn new(
        seed: u64,
        rate: f64,
        arrivals_for_ms: Option<Millis>,
        shape: FormShape,
        timing: Timing,
    ) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut intro: Vec<VisitKind> = KINDS.iter().map(|k| k.0).collect();
        intro.shuffle(&mut rng);
        Self {
            rng,
            shape,
            profile: timing.profile(),
            mean_gap_ms: 1000.0 / rate.max(f64::MIN_POSITIVE),
            // The first visitor comes at once.
            next_arrival_ms: 0.0,
            arrivals_end_ms: arrivals_for_ms,
            visitors: 0,
            intro,
            queue: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// When the next request is due (ms after the start); `None` when the
    /// plan is done.
    pub fn next_at(&mut self) -> Option<Millis> {
        self.fill();
        self.queue.peek().map(|Reverse(d)| d.at_ms)
    }

    /// The next request in time order.
    pub fn pop(&mut self) -> Option<Step> {
        self.fill();
        self.queue.pop().map(|Reverse(d)| d.step)
    }

    /// No more visitors: only the requests of those already there remain.
    pub fn stop_arrivals(&mut self) {
        let now = self.next_arrival_ms.floor() as Millis;
        self.arrivals_end_ms = Some(self.arrivals_end_ms.map_or(now, |end| end.min(now)));
    }

    /// Whether visitors are still arriving.
    pub fn arriving(&self) -> bool {
        self.arrivals_open()
    }

    /// Requests planned and not yet handed out (of visitors already there).
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// When the last request planned so far is due.
    pub fn last_at(&self) -> Option<Millis> {
        self.queue.iter().map(|Reverse(d)| d.at_ms).max()
    }

    /// Visitors so far.
    pub fn visitors(&self) -> u64 {
        self.visitors
    }

    fn arrivals_open(&self) -> bool {
        self.arrivals_end_ms
            .is_none_or(|end| (self.next_arrival_ms as Millis) < end)
    }

    /// Lets visitors arrive until the next one comes after the earliest
    /// request waiting, so that what is popped is always the earliest.
    fn fill(&mut self) {
        while self.arrivals_open() {
            let arrival = self.next_arrival_ms.floor() as Millis;
            if self
                .queue
                .peek()
                .is_some_and(|Reverse(d)| d.at_ms < arrival)
            {
                return;
            }
            self.arrive(arrival);
        }
    }

    fn arrive(&mut self, at: Millis) {
        let n = self.visitors;
        self.visitors += 1;
        let pathway = match self.intro.get(n as usize) {
            Some(&p) => p,
            None => scenario::draw_kind(&mut self.rng),
        };
        for step in scenario::steps(&mut self.rng, n, pathway, at, &self.shape, &self.profile) {
            self.seq += 1;
            self.queue.push(Reverse(Due {
                at_ms: step.at_ms,
                seq: self.seq,
                step,
            }));
        }
        // Exponential gaps: arrivals at random, `rate` a second on average.
        let u: f64 = 1.0 - self.rng.random::<f64>();
        self.next_arrival_ms += -u.ln() * self.mean_gap_ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(seed: u64, rate: f64, seconds: Option<i64>) -> Plan {
        Plan::new(
            seed,
            rate,
            seconds.map(|s| s * 1000),
            FormShape::contact(),
            Timing::default(),
        )
    }

    fn drain(p: &mut Plan) -> Vec<Step> {
        std::iter::from_fn(|| p.pop()).collect()
    }

    #[test]
    fn requests_come_in_time_order_and_the_same_seed_plans_the_same() {
        let a = drain(&mut plan(5, 10.0, Some(30)));
        assert!(a.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
        assert_eq!(a, drain(&mut plan(5, 10.0, Some(30))));
        assert_ne!(a, drain(&mut plan(6, 10.0, Some(30))));
    }

    #[test]
    fn visitors_arrive_at_the_rate_for_the_run_and_their_follow_ups_after_it() {
        let mut p = plan(1, 20.0, Some(60));
        let steps = drain(&mut p);
        let visitors = p.visitors();
        assert!(
            (1_000..1_400).contains(&visitors),
            "{visitors} visitors in 60 s at 20/s"
        );
        let firsts = steps.iter().filter(|s| s.first).count() as u64;
        assert_eq!(firsts, visitors);
        assert!(steps.iter().filter(|s| s.first).all(|s| s.at_ms < 60_000));
        assert!(steps.iter().any(|s| s.at_ms > 60_000), "reloads come later");
    }

    #[test]
    fn the_first_visitors_take_every_pathway_once() {
        let mut p = plan(9, 5.0, Some(4));
        let steps = drain(&mut p);
        let mut firsts: Vec<VisitKind> = steps
            .iter()
            .filter(|s| s.first)
            .map(|s| s.pathway)
            .collect();
        firsts.truncate(KINDS.len());
        firsts.sort();
        let all: Vec<VisitKind> = KINDS.iter().map(|k| k.0).collect();
        assert_eq!(firsts, all);
    }

    #[test]
    fn until_stopped_then_only_the_follow_ups() {
        let mut p = plan(2, 50.0, None);
        let mut taken = 0;
        while p.next_at().is_some_and(|at| at < 5_000) {
            p.pop();
            taken += 1;
        }
        assert!(p.arriving());
        p.stop_arrivals();
        assert!(!p.arriving());
        let rest = drain(&mut p);
        assert!(taken > 200 && !rest.is_empty());
        assert!(
            rest.iter().all(|s| !s.first || s.at_ms < 5_100),
            "no new visitor"
        );
        assert_eq!(p.waiting(), 0);
    }
}
