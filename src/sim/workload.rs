//! The request sample a simulation serves: prompt and output lengths per request, and arrival
//! times for an open loop (MODEL.md §6.4).
//!
//! Common random numbers: lengths come from their own stream, two normal draws per request in
//! request order, whatever the σ; open-loop gaps come from another stream as unit-rate draws
//! scaled by `1/λ`. So request `i` has the same lengths at every sweep point (any concurrency,
//! rate, request count or σ), and a rate sweep moves every arrival by the same factor, which
//! keeps sweep curves from jittering (MODEL.md §6.5).

use super::rng::{Rng, Stream};
use crate::physics::workload::Workload;
use serde::{Deserialize, Serialize};

/// How requests arrive (MODEL.md §6.3 closed loop, §6.4 Poisson and Gamma).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Arrivals {
    /// Closed loop at concurrency `C` across the system: `C` requests start at time 0 and each
    /// completion releases the next request in order (`vllm bench serve --max-concurrency`).
    Closed { concurrency: u32 },
    /// Open loop, Poisson: exponential gaps with mean `1/λ`.
    Poisson { rate_per_s: f64 },
    /// Open loop, bursty: Gamma gaps with mean `1/λ` and coefficient of variation `cv`
    /// (shape `k = 1/cv²`, scale `1/(kλ)`; `cv = 1` is Poisson; vidur's Gamma generator [S3]).
    Gamma { rate_per_s: f64, cv: f64 },
}

/// One request of the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestSample {
    pub prompt_tokens: u32,
    pub output_tokens: u32,
    /// Arrival time in an open loop; 0 in a closed loop (the engine releases closed-loop requests).
    pub arrival_s: f64,
}

/// A length drawn as `round(exp(μ + σZ))`, `μ = ln m − σ²/2` (mean `m`; MODEL.md §6.4), clamped to
/// `[1, max_tokens]`. `σ = 0` gives `round(m)`.
fn length_tokens(mean: f64, sigma: f64, z: f64, max_tokens: u32) -> u32 {
    let raw = if sigma > 0.0 && mean > 0.0 {
        (mean.ln() - sigma * sigma / 2.0 + sigma * z).exp()
    } else {
        mean
    };
    let upper = f64::from(max_tokens.max(1));
    let rounded = raw.round();
    if rounded.is_nan() || rounded < 1.0 {
        1
    } else if rounded >= upper {
        max_tokens.max(1)
    } else {
        rounded as u32
    }
}

/// The longest whole context a request may reach, `L_max` in tokens (at least 2: one prompt and
/// one output token).
pub fn max_model_tokens(max_model_len: f64) -> u32 {
    if max_model_len.is_nan() || max_model_len < 2.0 {
        2
    } else if max_model_len >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        max_model_len.floor() as u32
    }
}

/// Draw `requests` requests. Output lengths are clamped to `[1, L_max − 1]` and prompts to
/// `[1, L_max − O]` (MODEL.md §6.4), so that `P + O ≤ L_max`.
pub fn sample_requests(
    workload: &Workload,
    max_model_len: f64,
    requests: u32,
    seed: u64,
    arrivals: Arrivals,
) -> Vec<RequestSample> {
    let max_tokens = max_model_tokens(max_model_len);
    let mut lengths = Rng::stream(seed, Stream::Lengths);
    let mut gaps = Rng::stream(seed, Stream::Arrivals);
    let mut clock_s = 0.0;
    let capacity = usize::try_from(requests).unwrap_or(0);
    let mut sample = Vec::with_capacity(capacity);
    for _ in 0..requests {
        let z_output = lengths.normal();
        let z_prompt = lengths.normal();
        let output_tokens = length_tokens(
            workload.output_mean,
            workload.output_sigma,
            z_output,
            max_tokens.saturating_sub(1),
        );
        let prompt_tokens = length_tokens(
            workload.input_mean,
            workload.input_sigma,
            z_prompt,
            max_tokens.saturating_sub(output_tokens),
        );
        let arrival_s = match arrivals {
            Arrivals::Closed { .. } => 0.0,
            Arrivals::Poisson { rate_per_s } => {
                clock_s += gaps.exponential() / rate_per_s;
                clock_s
            }
            Arrivals::Gamma { rate_per_s, cv } => {
                let shape = 1.0 / (cv * cv);
                clock_s += gaps.gamma(shape) / (shape * rate_per_s);
                clock_s
            }
        };
        sample.push(RequestSample {
            prompt_tokens,
            output_tokens,
            arrival_s,
        });
    }
    sample
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat() -> Workload {
        Workload {
            input_mean: 1155.0,
            output_mean: 211.0,
            input_sigma: 0.99,
            output_sigma: 0.86,
            prefix_hit: 0.0,
        }
    }

    /// Sample means of the chat fit over 50 k requests. Stated tolerance: 3 % (lognormal tails
    /// converge slowly; the 8192-token clamp trims the prompt mean by about 1 %).
    #[test]
    fn lognormal_means() {
        let s = sample_requests(
            &chat(),
            8192.0,
            50_000,
            1,
            Arrivals::Closed { concurrency: 1 },
        );
        let n = s.len() as f64;
        let p = s.iter().map(|r| f64::from(r.prompt_tokens)).sum::<f64>() / n;
        let o = s.iter().map(|r| f64::from(r.output_tokens)).sum::<f64>() / n;
        assert!((p / 1155.0 - 1.0).abs() < 0.03, "prompt mean {p}");
        assert!((o / 211.0 - 1.0).abs() < 0.03, "output mean {o}");
        assert!(s
            .iter()
            .all(|r| r.prompt_tokens >= 1 && r.output_tokens >= 1));
        assert!(s.iter().all(|r| r.prompt_tokens + r.output_tokens <= 8192));
    }

    #[test]
    fn fixed_lengths_are_the_means() {
        let w = Workload {
            input_sigma: 0.0,
            output_sigma: 0.0,
            ..chat()
        };
        let s = sample_requests(&w, 8192.0, 10, 1, Arrivals::Closed { concurrency: 1 });
        assert!(s
            .iter()
            .all(|r| r.prompt_tokens == 1155 && r.output_tokens == 211));
    }

    /// Common random numbers: the first requests do not depend on the request count or the
    /// rate; arrival times scale exactly with `1/λ`.
    #[test]
    fn common_random_numbers() {
        let short = sample_requests(
            &chat(),
            8192.0,
            10,
            9,
            Arrivals::Poisson { rate_per_s: 2.0 },
        );
        let long = sample_requests(
            &chat(),
            8192.0,
            100,
            9,
            Arrivals::Poisson { rate_per_s: 4.0 },
        );
        for (a, b) in short.iter().zip(&long) {
            assert_eq!(a.prompt_tokens, b.prompt_tokens);
            assert_eq!(a.output_tokens, b.output_tokens);
            assert!((a.arrival_s / b.arrival_s - 2.0).abs() < 1e-12);
        }
    }

    /// Gamma gaps: mean `1/λ` and CV as asked over 100 k gaps (stated tolerance 3 % on the mean,
    /// 5 % on the CV).
    #[test]
    fn gamma_gaps_have_the_asked_cv() {
        for cv in [0.5, 1.0, 3.0] {
            let s = sample_requests(
                &chat(),
                8192.0,
                100_000,
                5,
                Arrivals::Gamma {
                    rate_per_s: 10.0,
                    cv,
                },
            );
            let mut previous = 0.0;
            let gaps: Vec<f64> = s
                .iter()
                .map(|r| {
                    let gap = r.arrival_s - previous;
                    previous = r.arrival_s;
                    gap
                })
                .collect();
            let n = gaps.len() as f64;
            let mean = gaps.iter().sum::<f64>() / n;
            let sd = (gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / n).sqrt();
            assert!((mean * 10.0 - 1.0).abs() < 0.03, "cv {cv}: mean {mean}");
            assert!(
                (sd / mean / cv - 1.0).abs() < 0.05,
                "cv {cv}: {}",
                sd / mean
            );
        }
    }

    #[test]
    fn tiny_model_len_still_gives_valid_requests() {
        let s = sample_requests(&chat(), 1.0, 5, 1, Arrivals::Closed { concurrency: 1 });
        assert!(s
            .iter()
            .all(|r| r.prompt_tokens == 1 && r.output_tokens == 1));
    }
}
