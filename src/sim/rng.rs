//! The simulator's only source of randomness: a named, written-out PRNG and the few
//! distributions the workload and the engine draw from.
//!
//! * Seeding: SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
//!   OOPSLA 2014; constants from Vigna's reference `splitmix64.c`).
//! * Stream: xoshiro256** 1.0 (Blackman & Vigna, "Scrambled linear pseudorandom number
//!   generators", ACM TOMS 2021; reference `xoshiro256starstar.c`).
//! * Normal: Box–Muller, both values used in turn (MODEL.md §6.5 "SplitMix64 plus Box–Muller").
//! * Gamma: Marsaglia & Tsang, "A simple method for generating gamma variables" (ACM TOMS 2000),
//!   with the `U^(1/k)` boost for shape `k < 1`.
//!
//! No OS randomness and no clock: the same seed gives the same stream on every platform (integer
//! arithmetic only; floating-point draws use `ln`, `exp`, `sqrt`, `cos`, which agree across
//! platforms to the last bit or, at worst, one ulp).

/// SplitMix64's golden-ratio increment `⌊2^64/φ⌋`.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// One SplitMix64 step: advances `state` and returns a well-mixed 64-bit value.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN_GAMMA);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Independent streams drawn from one user seed, so that changing how many draws one part of the
/// simulation makes never shifts another part's numbers (common random numbers across a sweep).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Prompt and output lengths, one pair per request in request order.
    Lengths,
    /// Inter-arrival gaps of an open loop.
    Arrivals,
    /// Speculative-decoding acceptances of one replica (the replica's index is mixed in).
    Acceptance(u32),
}

impl Stream {
    fn id(self) -> u64 {
        match self {
            Stream::Lengths => 1,
            Stream::Arrivals => 2,
            Stream::Acceptance(replica) => 0x1_0000_0000 | u64::from(replica),
        }
    }
}

/// xoshiro256** seeded through SplitMix64, with the distributions the simulator needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Rng {
    state: [u64; 4],
    /// The second Box–Muller value, kept for the next normal draw.
    spare_normal: Option<f64>,
}

impl Rng {
    /// A generator whose 256-bit state is four SplitMix64 outputs from `seed` (Vigna's
    /// recommended seeding; never all zero, because SplitMix64 is a bijection of a moving state).
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let state = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng {
            state,
            spare_normal: None,
        }
    }

    /// The generator for one named stream of a user seed: the stream id is mixed through
    /// SplitMix64 first, so streams 1 and 2 of seed `s` are unrelated to streams of seed `s + 1`.
    pub fn stream(seed: u64, stream: Stream) -> Rng {
        let mut mix = seed ^ stream.id().wrapping_mul(GOLDEN_GAMMA);
        Rng::new(splitmix64(&mut mix))
    }

    /// Next 64 random bits (xoshiro256**: `rotl(s1·5, 7)·9`, then the linear state update).
    pub fn next_u64(&mut self) -> u64 {
        let [s0, s1, s2, s3] = self.state;
        let result = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s1 << 17;
        let s2 = s2 ^ s0;
        let s3 = s3 ^ s1;
        let s1 = s1 ^ s2;
        let s0 = s0 ^ s3;
        self.state = [s0, s1, s2 ^ t, s3.rotate_left(45)];
        result
    }

    /// Uniform in `[0, 1)` with 53 random bits (the top bits, as Vigna recommends).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `(0, 1]`: safe to take the logarithm of.
    pub fn uniform_open_zero(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Exponential with mean 1: `−ln U`, `U ∈ (0, 1]` (inverse transform).
    pub fn exponential(&mut self) -> f64 {
        -self.uniform_open_zero().ln()
    }

    /// Standard normal by Box–Muller: `√(−2 ln U₁)·(cos 2πU₂, sin 2πU₂)`; the sine value is kept
    /// for the next call.
    pub fn normal(&mut self) -> f64 {
        if let Some(spare) = self.spare_normal.take() {
            return spare;
        }
        let radius = (-2.0 * self.uniform_open_zero().ln()).sqrt();
        let angle = std::f64::consts::TAU * self.uniform();
        self.spare_normal = Some(radius * angle.sin());
        radius * angle.cos()
    }

    /// Gamma with shape `k > 0` and scale 1 (mean `k`, variance `k`), Marsaglia–Tsang:
    /// `d = k − 1/3`, `c = 1/√(9d)`, propose `v = (1 + cZ)³`, accept if
    /// `ln U < Z²/2 + d − d·v + d·ln v`; for `k < 1`, `Gamma(k) = Gamma(k + 1)·U^(1/k)`.
    /// The rejection loop accepts with probability above 0.95 per try; it is capped at
    /// `GAMMA_TRIES` tries and falls back to the mean, which it will not reach in practice.
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if !shape.is_finite() || shape <= 0.0 {
            return 0.0;
        }
        if shape < 1.0 {
            let boosted = self.gamma(shape + 1.0);
            return boosted * self.uniform_open_zero().powf(1.0 / shape);
        }
        const GAMMA_TRIES: u32 = 256;
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        for _ in 0..GAMMA_TRIES {
            let z = self.normal();
            let base = 1.0 + c * z;
            if base <= 0.0 {
                continue;
            }
            let v = base * base * base;
            let u = self.uniform_open_zero();
            if u.ln() < 0.5 * z * z + d - d * v + d * v.ln() {
                return d * v;
            }
        }
        shape
    }

    /// Lognormal with arithmetic mean `mean` and log-space spread `sigma`:
    /// `exp(μ + σZ)`, `μ = ln m − σ²/2` (so that `E = m`; MODEL.md §6.4). `sigma = 0` gives `mean`.
    pub fn lognormal(&mut self, mean: f64, sigma: f64) -> f64 {
        if sigma <= 0.0 || mean <= 0.0 {
            return mean.max(0.0);
        }
        let mu = mean.ln() - sigma * sigma / 2.0;
        (mu + sigma * self.normal()).exp()
    }

    /// Accepted draft tokens of one speculative step: the count of leading successes of
    /// independent Bernoulli(α) trials, capped at `γ` (Leviathan et al. [S35]; its mean plus one
    /// is `E_tok = (1 − α^(γ+1))/(1 − α)`, MODEL.md §5). Inverse transform:
    /// `P(A ≥ j) = α^j`, so `A = min(γ, ⌊ln U / ln α⌋)` with `U ∈ (0, 1]`.
    pub fn accepted_drafts(&mut self, accept: f64, draft_len: u32) -> u32 {
        if accept <= 0.0 || draft_len == 0 {
            return 0;
        }
        if accept >= 1.0 {
            return draft_len;
        }
        let draws = (self.uniform_open_zero().ln() / accept.ln()).floor();
        if draws >= f64::from(draft_len) {
            draft_len
        } else if draws > 0.0 {
            draws as u32
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vigna's reference `splitmix64.c` seeded with 0 (published first outputs).
    #[test]
    fn splitmix64_reference_values() {
        let mut state = 0u64;
        assert_eq!(splitmix64(&mut state), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut state), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(splitmix64(&mut state), 0x06C4_5D18_8009_454F);
    }

    /// xoshiro256** from the state {1, 2, 3, 4}: the reference implementation's first outputs.
    #[test]
    fn xoshiro256starstar_reference_values() {
        let mut rng = Rng {
            state: [1, 2, 3, 4],
            spare_normal: None,
        };
        let got: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(got, vec![11520, 0, 1509978240, 1215971899390074240]);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = {
            let mut r = Rng::stream(7, Stream::Lengths);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::stream(7, Stream::Lengths);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = Rng::stream(7, Stream::Arrivals);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    fn mean_and_variance(samples: &[f64]) -> (f64, f64) {
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        (mean, var)
    }

    /// Moments over 200 k draws. Stated tolerances: mean within 1 % (relative, or 0.01 absolute
    /// for the normal's zero mean), variance within 3 %.
    #[test]
    fn distribution_moments() {
        let mut rng = Rng::new(42);
        let n = 200_000;
        let uniform: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
        let (m, v) = mean_and_variance(&uniform);
        assert!((m - 0.5).abs() < 0.005 && (v * 12.0 - 1.0).abs() < 0.03);
        let exp: Vec<f64> = (0..n).map(|_| rng.exponential()).collect();
        let (m, v) = mean_and_variance(&exp);
        assert!((m - 1.0).abs() < 0.01 && (v - 1.0).abs() < 0.03, "{m} {v}");
        let normal: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let (m, v) = mean_and_variance(&normal);
        assert!(m.abs() < 0.01 && (v - 1.0).abs() < 0.03, "{m} {v}");
        for shape in [0.25, 1.0, 4.0] {
            let g: Vec<f64> = (0..n).map(|_| rng.gamma(shape)).collect();
            let (m, v) = mean_and_variance(&g);
            assert!((m / shape - 1.0).abs() < 0.01, "shape {shape}: mean {m}");
            assert!((v / shape - 1.0).abs() < 0.03, "shape {shape}: var {v}");
        }
        let logn: Vec<f64> = (0..n).map(|_| rng.lognormal(211.0, 0.86)).collect();
        let (m, _) = mean_and_variance(&logn);
        assert!((m / 211.0 - 1.0).abs() < 0.01, "{m}");
    }

    /// Mean tokens per speculative step, `1 + E[A]`, equals Leviathan's `E_tok` (stated
    /// tolerance 1 % over 200 k draws).
    #[test]
    fn acceptance_matches_expected_tokens() {
        let mut rng = Rng::new(3);
        for (accept, len) in [(0.8, 4u32), (0.6, 3), (0.87, 1)] {
            let n = 200_000;
            let total: u64 = (0..n)
                .map(|_| u64::from(rng.accepted_drafts(accept, len)))
                .sum();
            let mean_tokens = 1.0 + total as f64 / f64::from(n);
            let expected = (1.0 - f64::powi(accept, len as i32 + 1)) / (1.0 - accept);
            assert!(
                (mean_tokens / expected - 1.0).abs() < 0.01,
                "α {accept} γ {len}: {mean_tokens} vs {expected}"
            );
        }
        assert_eq!(rng.accepted_drafts(0.0, 4), 0);
        assert_eq!(rng.accepted_drafts(1.0, 4), 4);
    }
}
