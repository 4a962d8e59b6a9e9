//! Latency histograms: one shape for every load client, so their
//! percentiles compare, and the fixed table they are reported with.

use hdrhistogram::Histogram;
use serde::Serialize;

/// Nanoseconds from 1 ns to 60 s at 3 significant digits; slower values
/// saturate (record them with `saturating_record`).
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("bounds")
}

/// Nanoseconds of a duration, saturating, for `saturating_record`.
pub fn nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// The percentile table of a histogram of nanoseconds, in milliseconds.
#[derive(Serialize)]
pub struct Percentiles {
    pub count: u64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Percentiles {
    pub fn of(histogram: &Histogram<u64>) -> Self {
        let ms = |nanos: u64| nanos as f64 / 1e6;
        Percentiles {
            count: histogram.len(),
            p50: ms(histogram.value_at_quantile(0.50)),
            p90: ms(histogram.value_at_quantile(0.90)),
            p99: ms(histogram.value_at_quantile(0.99)),
            p999: ms(histogram.value_at_quantile(0.999)),
            max: ms(histogram.max()),
        }
    }
}
