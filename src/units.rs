//! Physical quantities as newtypes, so a byte count cannot be added to a time.
//!
//! Only the operations that make physical sense are implemented: bytes ÷ bandwidth = seconds,
//! FLOPs ÷ FLOP/s = seconds, seconds ± seconds, scaling by a plain number. Where a raw `f64` must
//! stay raw (serde output, CLI flags), its name ends in its unit (`tpot_ms`, `usd_per_gpu_hour`).

use std::ops::{Add, AddAssign, Div, Mul, Sub};

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
        pub struct $name(pub f64);

        impl Add for $name {
            type Output = $name;
            fn add(self, other: $name) -> $name {
                $name(self.0 + other.0)
            }
        }
        impl AddAssign for $name {
            fn add_assign(&mut self, other: $name) {
                self.0 += other.0;
            }
        }
        impl Sub for $name {
            type Output = $name;
            fn sub(self, other: $name) -> $name {
                $name(self.0 - other.0)
            }
        }
        impl Mul<f64> for $name {
            type Output = $name;
            fn mul(self, factor: f64) -> $name {
                $name(self.0 * factor)
            }
        }
        impl Div<f64> for $name {
            type Output = $name;
            fn div(self, divisor: f64) -> $name {
                $name(self.0 / divisor)
            }
        }
        impl Div<$name> for $name {
            type Output = f64;
            fn div(self, other: $name) -> f64 {
                self.0 / other.0
            }
        }
    };
}

quantity!(
    /// A duration in seconds.
    Seconds
);
quantity!(
    /// An amount of memory or traffic in bytes.
    Bytes
);
quantity!(
    /// A number of floating-point operations.
    Flops
);
quantity!(
    /// Memory or link bandwidth in bytes per second.
    BytesPerSecond
);
quantity!(
    /// Arithmetic throughput in FLOP per second.
    FlopsPerSecond
);
quantity!(
    /// A rate of tokens per second.
    TokensPerSecond
);
quantity!(
    /// US dollars.
    Usd
);

impl Seconds {
    /// Milliseconds, for display and JSON (`*_ms` fields).
    pub fn ms(self) -> f64 {
        self.0 * 1e3
    }
    /// From microseconds.
    pub fn from_us(us: f64) -> Seconds {
        Seconds(us * 1e-6)
    }
    /// From milliseconds.
    pub fn from_ms(ms: f64) -> Seconds {
        Seconds(ms * 1e-3)
    }
    /// The larger of two durations.
    pub fn max(self, other: Seconds) -> Seconds {
        Seconds(self.0.max(other.0))
    }
}

impl Bytes {
    /// From decimal gigabytes (1 GB = 1e9 B, as GPU datasheets count).
    pub fn from_gb(gb: f64) -> Bytes {
        Bytes(gb * 1e9)
    }
    /// In decimal gigabytes.
    pub fn gb(self) -> f64 {
        self.0 / 1e9
    }
}

impl Div<BytesPerSecond> for Bytes {
    type Output = Seconds;
    /// Transfer time = bytes ÷ bandwidth.
    fn div(self, bandwidth: BytesPerSecond) -> Seconds {
        Seconds(self.0 / bandwidth.0)
    }
}

impl Div<FlopsPerSecond> for Flops {
    type Output = Seconds;
    /// Compute time = FLOPs ÷ FLOP/s.
    fn div(self, rate: FlopsPerSecond) -> Seconds {
        Seconds(self.0 / rate.0)
    }
}

impl BytesPerSecond {
    /// From decimal TB/s (HBM datasheets).
    pub fn from_tb_s(tb_s: f64) -> BytesPerSecond {
        BytesPerSecond(tb_s * 1e12)
    }
    /// From decimal GB/s (interconnect datasheets).
    pub fn from_gb_s(gb_s: f64) -> BytesPerSecond {
        BytesPerSecond(gb_s * 1e9)
    }
}

impl FlopsPerSecond {
    /// From dense TFLOP/s.
    pub fn from_tflops(tflops: f64) -> FlopsPerSecond {
        FlopsPerSecond(tflops * 1e12)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_over_bandwidth_is_seconds() {
        let t = Bytes::from_gb(16.0) / BytesPerSecond::from_tb_s(3.2);
        assert!((t.ms() - 5.0).abs() < 1e-9);
    }

    #[test]
    fn flops_over_rate_is_seconds() {
        let t = Flops(1e12) / FlopsPerSecond::from_tflops(1000.0);
        assert!((t.ms() - 1.0).abs() < 1e-9);
    }
}
