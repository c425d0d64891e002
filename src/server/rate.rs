//! The per-client rate limit: a token bucket per client address and form,
//! in memory (a restart forgets it, which is harmless).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::config::Rate;

/// Buckets kept before the full (idle) ones are forgotten.
const PRUNE_AT: usize = 10_000;

#[derive(Debug)]
pub struct RateLimiter {
    rate: Option<Rate>,
    buckets: Mutex<HashMap<(IpAddr, String), Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    pub fn new(rate: Option<Rate>) -> Self {
        Self {
            rate,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the client's bucket for `form`; when it is
    /// empty, how long until the next one is allowed.
    pub fn take(&self, client: IpAddr, form: &str) -> Result<(), Duration> {
        self.take_at(client, form, Instant::now())
    }

    fn take_at(&self, client: IpAddr, form: &str, now: Instant) -> Result<(), Duration> {
        let Some(rate) = self.rate else {
            return Ok(());
        };
        let capacity = f64::from(rate.count);
        let per_token = rate.per.as_secs_f64() / capacity;
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= PRUNE_AT {
            buckets.retain(|_, b| {
                let refilled = b.tokens + now.duration_since(b.at).as_secs_f64() / per_token;
                refilled < capacity
            });
        }
        let bucket = buckets.entry((client, form.to_string())).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed / per_token).min(capacity);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) * per_token))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_per_interval() {
        let limiter = RateLimiter::new(Some(Rate {
            count: 3,
            per: Duration::from_secs(60),
        }));
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take_at(ip, "contact", t0).is_ok());
        }
        let wait = limiter.take_at(ip, "contact", t0).unwrap_err();
        assert!(
            wait > Duration::from_secs(19) && wait <= Duration::from_secs(20),
            "{wait:?}"
        );
        assert!(limiter.take_at(ip, "other", t0).is_ok(), "per form");
        let other: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(limiter.take_at(other, "contact", t0).is_ok(), "per client");
        assert!(
            limiter
                .take_at(ip, "contact", t0 + Duration::from_secs(20))
                .is_ok()
        );
        assert!(
            limiter
                .take_at(ip, "contact", t0 + Duration::from_secs(21))
                .is_err()
        );
    }

    #[test]
    fn off_never_limits() {
        let limiter = RateLimiter::new(None);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        assert!((0..1000).all(|_| limiter.take(ip, "f").is_ok()));
    }
}
