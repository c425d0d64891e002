//! The per-client rate limit: governor's keyed limiter (GCRA, the token
//! bucket's arithmetic without a lock around the whole map), keyed by client
//! address and form, in memory (a restart forgets it, which is harmless).
//! A bucket is `rate.count` posts deep and refills one post every
//! `rate.per / rate.count`.
//!
//! A client that has not posted for a while is indistinguishable from a new
//! one, so its entry is dropped by a pruning task on a timer rather than on
//! the path of every request.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter as Governor};
use tokio::task::JoinHandle;

use super::config::Rate;

/// How often the entries of idle clients are dropped.
const PRUNE_EVERY: Duration = Duration::from_secs(10);

type Key = (IpAddr, String);
type Keyed<C> =
    Governor<Key, DefaultKeyedStateStore<Key>, C, NoOpMiddleware<<C as Clock>::Instant>>;

#[derive(Debug)]
pub struct RateLimiter<C: Clock = DefaultClock> {
    /// `None`: no limit.
    keyed: Option<Arc<Keyed<C>>>,
    pruning: Option<JoinHandle<()>>,
}

impl RateLimiter<DefaultClock> {
    /// A limiter for `rate`, whose pruning runs on the current tokio
    /// runtime until the limiter is dropped.
    pub fn new(rate: Option<Rate>) -> Self {
        Self::with_clock(rate, DefaultClock::default(), PRUNE_EVERY)
    }
}

impl<C> RateLimiter<C>
where
    C: Clock + Send + Sync + 'static,
    C::Instant: Send + Sync,
{
    fn with_clock(rate: Option<Rate>, clock: C, prune_every: Duration) -> Self {
        let keyed = rate
            .map(quota)
            .map(|q| Arc::new(Governor::dashmap_with_clock(q, clock)));
        let pruning = keyed.as_ref().map(|k| prune(k.clone(), prune_every));
        Self { keyed, pruning }
    }

    /// Takes one post from the client's bucket for `form`; when it is
    /// empty, how long until the next one is allowed.
    pub fn take(&self, client: IpAddr, form: &str) -> Result<(), Duration> {
        let Some(keyed) = &self.keyed else {
            return Ok(());
        };
        keyed
            .check_key(&(client, form.to_string()))
            .map_err(|not_until| not_until.wait_time_from(keyed.clock().now()))
    }

    /// The clients remembered (those not yet pruned).
    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.keyed.as_ref().map_or(0, |k| k.len())
    }
}

/// `count` per `per`: a burst of `count`, then one every `per / count`.
fn quota(rate: Rate) -> Quota {
    let count = NonZeroU32::new(rate.count).unwrap_or(NonZeroU32::MIN);
    let every = (rate.per / count.get()).max(Duration::from_nanos(1));
    Quota::with_period(every)
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
        .allow_burst(count)
}

/// Drops the entries of idle clients every `every`, until aborted.
fn prune<C>(keyed: Arc<Keyed<C>>, every: Duration) -> JoinHandle<()>
where
    C: Clock + Send + Sync + 'static,
    C::Instant: Send + Sync,
{
    tokio::spawn(async move {
        let mut timer = tokio::time::interval(every);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            timer.tick().await;
            keyed.retain_recent();
            keyed.shrink_to_fit();
        }
    })
}

impl<C: Clock> Drop for RateLimiter<C> {
    fn drop(&mut self) {
        if let Some(pruning) = &self.pruning {
            pruning.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Weak;

    use governor::clock::FakeRelativeClock;

    use super::*;

    fn three_a_minute(clock: &FakeRelativeClock) -> RateLimiter<FakeRelativeClock> {
        let rate = Rate {
            count: 3,
            per: Duration::from_secs(60),
        };
        RateLimiter::with_clock(Some(rate), clock.clone(), PRUNE_EVERY)
    }

    #[tokio::test]
    async fn a_burst_then_one_per_interval() {
        let clock = FakeRelativeClock::default();
        let limiter = three_a_minute(&clock);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        for _ in 0..3 {
            assert!(limiter.take(ip, "contact").is_ok());
        }
        let wait = limiter.take(ip, "contact").unwrap_err();
        assert!(
            wait > Duration::from_secs(19) && wait <= Duration::from_secs(20),
            "{wait:?}"
        );
        assert!(limiter.take(ip, "other").is_ok(), "per form");
        let other: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(limiter.take(other, "contact").is_ok(), "per client");
        clock.advance(Duration::from_secs(20));
        assert!(limiter.take(ip, "contact").is_ok());
        clock.advance(Duration::from_secs(1));
        let wait = limiter.take(ip, "contact").unwrap_err();
        assert!(
            wait > Duration::from_secs(18) && wait <= Duration::from_secs(19),
            "{wait:?}"
        );
    }

    #[tokio::test]
    async fn off_never_limits() {
        let limiter = RateLimiter::new(None);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        assert!((0..1000).all(|_| limiter.take(ip, "f").is_ok()));
        assert!(limiter.pruning.is_none());
    }

    /// Polls `done` for up to 10 s (a loaded machine is slow, never this slow).
    async fn eventually(what: &str, done: impl Fn() -> bool) {
        for _ in 0..200 {
            if done() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{what} did not happen within 10 s");
    }

    #[tokio::test]
    async fn idle_clients_are_pruned_on_a_timer_until_the_limiter_is_dropped() {
        let clock = FakeRelativeClock::default();
        let rate = Rate {
            count: 2,
            per: Duration::from_secs(60),
        };
        let limiter = RateLimiter::with_clock(Some(rate), clock.clone(), Duration::from_millis(20));
        for i in 0..100u8 {
            let ip = IpAddr::from([192, 0, 2, i]);
            assert!(limiter.take(ip, "contact").is_ok());
        }
        assert_eq!(limiter.remembered(), 100);
        let recent = IpAddr::from([198, 51, 100, 1]);
        clock.advance(Duration::from_secs(50));
        assert!(limiter.take(recent, "contact").is_ok());
        // A post's refill is 30 s; governor forgets a client once another
        // refill has passed, when it is as good as new. The client that
        // posted 15 s ago is still remembered, and its bucket still counts.
        clock.advance(Duration::from_secs(15));
        eventually("pruning", || limiter.remembered() == 1).await;
        assert!(limiter.take(recent, "contact").is_ok());
        assert!(limiter.take(recent, "contact").is_err());
        // The task ends with the limiter: it drops the state.
        let state: Weak<_> = Arc::downgrade(limiter.keyed.as_ref().unwrap());
        drop(limiter);
        eventually("the pruning task's end", || state.upgrade().is_none()).await;
    }
}
