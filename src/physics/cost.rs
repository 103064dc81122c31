//! Dollars per million tokens from GPU rental price and achieved throughput.
//!
//! MODEL.md §7 and PRODUCT.md: `cost per M = (GPU $/hour) ÷ (throughput in M tokens/hour)`;
//! 8 GPUs × $3.125/h at 6,000 output tok/s → 21.6 M tok/h → $1.157 per M output tokens.
//! Input vs output split by time attribution: prefill GPU-seconds are charged to input tokens,
//! decode GPU-seconds to output tokens, so the two prices together recover the GPU bill.

use serde::Serialize;

/// Blend ratio input:output used by API price comparisons (3:1).
pub const BLEND_INPUT_PER_OUTPUT: f64 = 3.0;

/// `$ per million tokens = gpus × $/GPU-hour ÷ (tok/s × 3600) × 10⁶`. `None` when nothing flows.
pub fn usd_per_million_tokens(gpus: u32, usd_per_gpu_hour: f64, tokens_per_s: f64) -> Option<f64> {
    if tokens_per_s > 0.0 && tokens_per_s.is_finite() {
        Some(f64::from(gpus) * usd_per_gpu_hour / (tokens_per_s * 3600.0) * 1e6)
    } else {
        None
    }
}

/// Every price the page and the CLI show for one operating point, $ per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct CostBreakdown {
    /// Whole GPU bill per hour.
    pub usd_per_hour: f64,
    /// All GPU cost ÷ output tokens (the glossary's "$ per million output tokens").
    pub usd_per_m_output: f64,
    /// All GPU cost ÷ (input + output) tokens.
    pub usd_per_m_total: f64,
    /// Prefill share of GPU time ÷ input tokens (time attribution).
    pub usd_per_m_input: f64,
    /// Decode share of GPU time ÷ output tokens (time attribution).
    pub usd_per_m_output_attributed: f64,
    /// `(3·input + 1·output_attributed)/4`: comparable to an API's blended 3:1 price.
    pub usd_per_m_blended: f64,
}

/// Prices at an operating point. `prefill_share` is the fraction of the whole bill spent on
/// prefill (idle capacity is split in the same proportion).
pub fn cost_breakdown(
    gpus: u32,
    usd_per_gpu_hour: f64,
    output_tok_s: f64,
    input_tok_s: f64,
    prefill_share: f64,
) -> CostBreakdown {
    let share = prefill_share.clamp(0.0, 1.0);
    let per_m = |tokens_per_s: f64, fraction: f64| {
        usd_per_million_tokens(gpus, usd_per_gpu_hour * fraction, tokens_per_s).unwrap_or(0.0)
    };
    let input = per_m(input_tok_s, share);
    let output_attributed = per_m(output_tok_s, 1.0 - share);
    CostBreakdown {
        usd_per_hour: f64::from(gpus) * usd_per_gpu_hour,
        usd_per_m_output: per_m(output_tok_s, 1.0),
        usd_per_m_total: per_m(output_tok_s + input_tok_s, 1.0),
        usd_per_m_input: input,
        usd_per_m_output_attributed: output_attributed,
        usd_per_m_blended: (BLEND_INPUT_PER_OUTPUT * input + output_attributed)
            / (BLEND_INPUT_PER_OUTPUT + 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PRODUCT.md's seed example, exactly: 8×H100 at $25/hour, 6,000 output tok/s → $1.157/M.
    #[test]
    fn seed_example() {
        let cost = usd_per_million_tokens(8, 3.125, 6000.0).expect("flows");
        assert!((cost - 1.157_407).abs() < 1e-6, "{cost}");
        assert_eq!(format!("{cost:.3}"), "1.157");
        assert_eq!(format!("{cost:.2}"), "1.16");
    }

    #[test]
    fn attribution_recovers_the_bill() {
        let c = cost_breakdown(8, 3.125, 6000.0, 24000.0, 0.3);
        let recovered = c.usd_per_m_input * 24000.0 + c.usd_per_m_output_attributed * 6000.0;
        let bill = c.usd_per_m_output * 6000.0;
        assert!((recovered - bill).abs() < 1e-9 * bill);
    }

    #[test]
    fn nothing_flowing_is_none() {
        assert_eq!(usd_per_million_tokens(8, 3.0, 0.0), None);
    }
}
