//! Money beyond the rental line: price tiers, energy, cost at real utilization, traffic sizing,
//! monthly cost, and break-even against API prices.
//!
//! MODEL.md §7: `Effective $/M = cost at capacity / u` (idle replicas still bill);
//! energy `price_hr += N·(P_idle + (P_tdp − P_idle)·busy)·PUE·$/kWh/1000`; break-even utilization
//! `u* = (N·price_hr·1e6) / (3600 · X_tot,peak · p_api)` with `p_api` the API price blended at the
//! workload's own input:output mix.

use crate::catalog::{ApiPrice, Gpu};
use serde::{Deserialize, Serialize};

/// Hours in an average month (8760 h / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;
/// Idle draw as a fraction of TDP (an assumption; H100 idles near 100–150 W of 700 W).
pub const IDLE_POWER_FRACTION: f64 = 0.2;

/// Which catalog price to use (`shared/data/gpus.csv`: lowest, median and highest on-demand quote).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PriceTier {
    Low,
    #[default]
    Typical,
    High,
}

impl PriceTier {
    pub fn parse(text: &str) -> Option<PriceTier> {
        match text.trim().to_ascii_lowercase().as_str() {
            "low" => Some(PriceTier::Low),
            "typical" => Some(PriceTier::Typical),
            "high" => Some(PriceTier::High),
            _ => None,
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            PriceTier::Low => "low",
            PriceTier::Typical => "typical",
            PriceTier::High => "high",
        }
    }
    /// The GPU's price at this tier, falling back to the typical price when a tier is unquoted.
    pub fn price(self, gpu: &Gpu) -> Option<f64> {
        let tier = match self {
            PriceTier::Low => gpu.usd_per_gpu_hour_low,
            PriceTier::Typical => gpu.usd_per_gpu_hour_typical,
            PriceTier::High => gpu.usd_per_gpu_hour_high,
        };
        tier.or(gpu.usd_per_gpu_hour_typical)
    }
}

/// Optional electricity cost on top of the rental price.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Energy {
    pub usd_per_kwh: f64,
    /// Power usage effectiveness of the data centre (1.1–1.4).
    pub pue: f64,
}

/// Electricity $ per GPU-hour at a busy fraction: `(P_idle + (P_tdp − P_idle)·busy)·PUE·$/kWh/1000`.
pub fn energy_usd_per_gpu_hour(tdp_w: f64, busy: f64, energy: &Energy) -> f64 {
    let idle_w = IDLE_POWER_FRACTION * tdp_w;
    (idle_w + (tdp_w - idle_w) * busy.clamp(0.0, 1.0)) * energy.pue * energy.usd_per_kwh / 1000.0
}

/// Cost of serving an offered load below capacity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LoadCost {
    /// Offered ÷ capacity, in (0, 1].
    pub utilization: f64,
    /// All-in $/M output tokens at this load (`$/M at capacity ÷ u`).
    pub usd_per_m_output: f64,
    /// Blended (3:1) $/M at this load.
    pub usd_per_m_blended: f64,
    pub usd_per_month: f64,
}

/// Effective cost when the system serves `offered_output_tok_s` of its `capacity_output_tok_s`.
pub fn cost_at_load(
    usd_per_hour: f64,
    capacity_output_tok_s: f64,
    offered_output_tok_s: f64,
    usd_per_m_output_at_capacity: f64,
    usd_per_m_blended_at_capacity: f64,
) -> LoadCost {
    let utilization = if capacity_output_tok_s > 0.0 {
        (offered_output_tok_s / capacity_output_tok_s).clamp(1e-6, 1.0)
    } else {
        1.0
    };
    LoadCost {
        utilization,
        usd_per_m_output: usd_per_m_output_at_capacity / utilization,
        usd_per_m_blended: usd_per_m_blended_at_capacity / utilization,
        usd_per_month: usd_per_hour * HOURS_PER_MONTH,
    }
}

/// Replicas needed to carry a traffic level: `ceil(traffic / per-replica throughput)`.
pub fn replicas_needed(traffic_output_tok_s: f64, per_replica_output_tok_s: f64) -> Option<u32> {
    if per_replica_output_tok_s <= 0.0
        || !traffic_output_tok_s.is_finite()
        || traffic_output_tok_s < 0.0
    {
        return None;
    }
    let replicas = (traffic_output_tok_s / per_replica_output_tok_s)
        .ceil()
        .max(1.0);
    (replicas <= f64::from(u32::MAX)).then_some(replicas as u32)
}

/// Self-hosting versus one API provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakEven {
    pub provider: String,
    pub api_usd_per_m_input: f64,
    pub api_usd_per_m_output: f64,
    /// API price per million tokens at the workload's own input:output mix.
    pub api_usd_per_m_mixed: f64,
    /// Self-hosted $/M at the same mix, at full utilization.
    pub self_usd_per_m_mixed: f64,
    /// Utilization above which self-hosting is cheaper (`u*`); above 1 it never is.
    pub break_even_utilization: f64,
    pub source: String,
}

/// `u* = self cost per hour / API bill per hour for the same tokens at capacity` (MODEL.md §7).
pub fn break_even(
    usd_per_hour: f64,
    capacity_input_tok_s: f64,
    capacity_output_tok_s: f64,
    price: &ApiPrice,
) -> Option<BreakEven> {
    let total = capacity_input_tok_s + capacity_output_tok_s;
    if total <= 0.0 {
        return None;
    }
    let api_usd_per_hour = (capacity_input_tok_s * price.usd_per_m_input
        + capacity_output_tok_s * price.usd_per_m_output)
        * 3600.0
        / 1e6;
    if api_usd_per_hour <= 0.0 {
        return None;
    }
    Some(BreakEven {
        provider: price.provider.clone(),
        api_usd_per_m_input: price.usd_per_m_input,
        api_usd_per_m_output: price.usd_per_m_output,
        api_usd_per_m_mixed: api_usd_per_hour * 1e6 / (total * 3600.0),
        self_usd_per_m_mixed: usd_per_hour * 1e6 / (total * 3600.0),
        break_even_utilization: usd_per_hour / api_usd_per_hour,
        source: price.source.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MODEL.md §7: at 40 % utilization, cost is 2.5× the at-capacity cost.
    #[test]
    fn idle_capacity_still_bills() {
        let c = cost_at_load(25.0, 6000.0, 2400.0, 1.157, 0.5);
        assert!((c.utilization - 0.4).abs() < 1e-12);
        assert!((c.usd_per_m_output - 1.157 * 2.5).abs() < 1e-9);
        assert!((c.usd_per_month - 25.0 * 730.0).abs() < 1e-9);
    }

    /// MODEL.md §7: 0.7 kW × 1.3 PUE × $0.10/kWh ≈ $0.09/h at full load.
    #[test]
    fn energy_example() {
        let e = energy_usd_per_gpu_hour(
            700.0,
            1.0,
            &Energy {
                usd_per_kwh: 0.10,
                pue: 1.3,
            },
        );
        assert!((e - 0.091).abs() < 1e-9);
    }

    #[test]
    fn break_even_is_the_cost_ratio() {
        let price = ApiPrice {
            model_id: "m".into(),
            provider: "p".into(),
            usd_per_m_input: 0.5,
            usd_per_m_output: 1.5,
            as_of: String::new(),
            source: String::new(),
            notes: String::new(),
        };
        // 1000 in + 1000 out tok/s → API bill (0.5 + 1.5)·1000·3600/1e6 = $7.2/h.
        let b = break_even(3.6, 1000.0, 1000.0, &price).expect("defined");
        assert!((b.break_even_utilization - 0.5).abs() < 1e-12);
        assert!((b.api_usd_per_m_mixed - 1.0).abs() < 1e-12);
        assert_eq!(replicas_needed(2500.0, 1000.0), Some(3));
        assert_eq!(replicas_needed(1.0, 0.0), None);
    }
}
