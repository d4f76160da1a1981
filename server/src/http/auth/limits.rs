// SPDX-License-Identifier: GPL-3.0-or-later
//! Request rates per token or client address, and how often a token's use is recorded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Rate limits, keyed by token name or client address: writes per minute, reads per second.
pub struct RateLimits {
    writes: Option<Keyed>,
    reads: Option<Keyed>,
}

type Keyed = governor::DefaultKeyedRateLimiter<String>;

impl RateLimits {
    pub fn new(writes_per_minute: u32, reads_per_second: u32) -> RateLimits {
        use governor::{Quota, RateLimiter};
        use std::num::NonZeroU32;
        RateLimits {
            writes: NonZeroU32::new(writes_per_minute)
                .map(|n| RateLimiter::keyed(Quota::per_minute(n))),
            reads: NonZeroU32::new(reads_per_second)
                .map(|n| RateLimiter::keyed(Quota::per_second(n))),
        }
    }

    /// `Ok` if `key` may make one more request of this kind now, else how long to wait.
    pub(super) fn check(&self, write: bool, key: &str) -> Result<(), Duration> {
        use governor::clock::{Clock, DefaultClock};
        let limiter = if write { &self.writes } else { &self.reads };
        let Some(limiter) = limiter else {
            return Ok(());
        };
        // Forget idle keys now and then, so addresses cannot grow the map without bound.
        if limiter.len() > 100_000 {
            limiter.retain_recent();
        }
        limiter
            .check_key(&key.to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// `last_used_at` is written at most this often per token (a write per request would put
/// every authenticated read on the single writer).
pub(super) const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// When each token's `last_used_at` was last written by this process.
#[derive(Default)]
pub struct Touched(Mutex<HashMap<i64, Instant>>);

impl Touched {
    pub(super) fn due(&self, id: i64) -> bool {
        let Ok(mut map) = self.0.lock() else {
            return false;
        };
        let now = Instant::now();
        match map.get(&id) {
            Some(at) if now.duration_since(*at) < TOUCH_EVERY => false,
            _ => {
                if map.len() > 10_000 {
                    map.clear();
                }
                map.insert(id, now);
                true
            }
        }
    }
}
