//! A fixed-memory, log-bucketed histogram for latency percentiles (MODEL.md §6.5: "DDSketch or
//! log-bucketed histograms so memory stays O(1) per metric").
//!
//! Buckets grow geometrically by `γ = 1.02` from 1 µs to about 11.6 days, so any value in range
//! is reported as its bucket's geometric midpoint `1 µs · γ^(i + ½)` with relative error at most
//! `√γ − 1 ≈ 0.995 %` (the DDSketch guarantee with `α ≈ 1 %`; Masson, Rim & Lee, VLDB 2019).
//! Values below 1 µs count in the first bucket and report at most the exact minimum seen; values
//! above the range count in the last bucket and report at most the exact maximum. Memory is
//! 1,396 counters (≈11 KB) whatever the sample count.

/// Smallest value resolved, in seconds.
const SMALLEST_S: f64 = 1e-6;
/// Bucket growth factor `γ`.
const GROWTH: f64 = 1.02;
/// Number of buckets: `⌈ln(10⁶ s / 1 µs) / ln γ⌉`.
const BUCKETS: usize = 1_396;

/// Counts of values in geometric buckets, with exact count, sum, minimum and maximum.
#[derive(Debug, Clone, PartialEq)]
pub struct LogHistogram {
    counts: Vec<u64>,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram::new()
    }
}

impl LogHistogram {
    pub fn new() -> LogHistogram {
        LogHistogram {
            counts: vec![0; BUCKETS],
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: 0.0,
        }
    }

    fn bucket(value_s: f64) -> usize {
        if value_s.is_nan() || value_s <= SMALLEST_S {
            return 0;
        }
        let index = ((value_s / SMALLEST_S).ln() / GROWTH.ln()).floor();
        if index >= (BUCKETS - 1) as f64 {
            BUCKETS - 1
        } else {
            index as usize
        }
    }

    /// Record `count` samples of `value_s` (non-finite or negative values are recorded as 0).
    pub fn add(&mut self, value_s: f64, count: u64) {
        if count == 0 {
            return;
        }
        let value_s = if value_s.is_finite() {
            value_s.max(0.0)
        } else {
            0.0
        };
        if let Some(slot) = self.counts.get_mut(Self::bucket(value_s)) {
            *slot += count;
        }
        self.count += count;
        self.sum += value_s * count as f64;
        self.min = self.min.min(value_s);
        self.max = self.max.max(value_s);
    }

    /// Add another histogram's samples to this one.
    pub fn merge(&mut self, other: &LogHistogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Arithmetic mean (exact), 0 when empty.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// Largest value seen (exact), 0 when empty.
    pub fn max(&self) -> f64 {
        self.max
    }

    /// The `q`-quantile by nearest rank (`⌈q·n⌉`-th smallest sample), as its bucket's geometric
    /// midpoint clamped to the exact minimum and maximum; 0 when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        for (index, &bucket_count) in self.counts.iter().enumerate() {
            seen += bucket_count;
            if seen >= rank {
                // The first and last buckets also hold out-of-range values: report the extremes.
                if index == 0 {
                    return self.min;
                }
                if index == BUCKETS - 1 {
                    return self.max;
                }
                let midpoint = SMALLEST_S * GROWTH.powf(index as f64 + 0.5);
                return midpoint.clamp(self.min, self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Percentiles of 1..=100 000 ms are within 1 % of the exact nearest-rank values.
    #[test]
    fn percentiles_within_one_percent() {
        let mut h = LogHistogram::new();
        for ms in 1..=100_000u32 {
            h.add(f64::from(ms) / 1e3, 1);
        }
        for q in [0.5, 0.9, 0.95, 0.99] {
            let exact = (q * 100_000.0f64).ceil() / 1e3;
            let got = h.quantile(q);
            assert!((got / exact - 1.0).abs() <= 0.01, "q {q}: {got} vs {exact}");
        }
        assert!((h.mean() - 50.0005).abs() < 1e-9);
        assert_eq!(h.max(), 100.0);
    }

    #[test]
    fn counts_merge_and_extremes() {
        let mut a = LogHistogram::new();
        a.add(0.010, 3);
        let mut b = LogHistogram::new();
        b.add(0.0, 1);
        b.add(2e6, 1);
        b.add(f64::NAN, 1);
        a.merge(&b);
        assert_eq!(a.count(), 6);
        assert_eq!(a.quantile(0.0), 0.0);
        assert_eq!(a.quantile(1.0), 2e6);
        assert!((a.quantile(0.7) / 0.010 - 1.0).abs() < 0.01);
        assert_eq!(LogHistogram::new().quantile(0.5), 0.0);
    }
}
