//! A token bucket that may go into debt.
//!
//! Written here rather than taken from `governor`: a call's answer bytes
//! are known only after the call was admitted, so they are charged after
//! the fact and may leave the bucket below zero, which then refuses calls
//! until the debt is paid back at the bucket's rate. governor's GCRA
//! refuses a charge it cannot cover instead of borrowing it.

use std::time::Instant;

/// One rate: `rate` units a second, at most one second of them saved up.
#[derive(Debug)]
pub struct Bucket {
    rate: f64,
    /// One second of the rate: the largest burst after an idle spell.
    capacity: f64,
    /// Below zero while the bucket is in debt.
    tokens: f64,
    refilled: Instant,
}

impl Bucket {
    /// A full bucket of `rate` units a second.
    pub fn new(rate: u64, now: Instant) -> Bucket {
        let rate = rate as f64;
        Bucket {
            rate,
            capacity: rate,
            tokens: rate,
            refilled: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.refilled).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.capacity);
        self.refilled = now;
    }

    /// Takes `amount` if the bucket holds at least `need` of it (`amount`
    /// itself for a call; anything above zero for bytes, whose charge may
    /// put the bucket in debt).
    pub fn try_take(&mut self, now: Instant, amount: f64, need: f64) -> bool {
        self.refill(now);
        if self.tokens < need {
            return false;
        }
        self.tokens -= amount;
        true
    }

    /// Charges `amount` whatever the bucket holds: bytes known only once
    /// the call was admitted.
    pub fn charge(&mut self, now: Instant, amount: f64) {
        self.refill(now);
        self.tokens -= amount;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_bucket_admits_its_rate_then_refills_with_time() {
        let start = Instant::now();
        let mut calls = Bucket::new(10, start);
        let admitted = (0..15).filter(|_| calls.try_take(start, 1.0, 1.0)).count();
        assert_eq!(admitted, 10);
        // A tenth of a second later, one more call's worth.
        let later = start + Duration::from_millis(100);
        assert!(calls.try_take(later, 1.0, 1.0));
        assert!(!calls.try_take(later, 1.0, 1.0));
        // Idle for long, it saves up no more than one second.
        let idle = start + Duration::from_secs(60);
        let admitted = (0..15).filter(|_| calls.try_take(idle, 1.0, 1.0)).count();
        assert_eq!(admitted, 10);
    }

    #[test]
    fn bytes_charged_after_the_fact_put_the_bucket_in_debt() {
        let start = Instant::now();
        let mut bytes = Bucket::new(1_000, start);
        assert!(bytes.try_take(start, 100.0, f64::MIN_POSITIVE));
        bytes.charge(start, 2_900.0);
        // 2,000 bytes in debt: refused until two seconds have paid it back.
        assert!(!bytes.try_take(start + Duration::from_millis(1_900), 1.0, f64::MIN_POSITIVE));
        assert!(bytes.try_take(start + Duration::from_millis(2_100), 1.0, f64::MIN_POSITIVE));
    }
}
