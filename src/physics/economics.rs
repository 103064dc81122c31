//! Money beyond the rental line: price tiers (the catalog's rental quotes, or owned hardware),
//! energy, cost at real utilization, traffic sizing, monthly cost, and break-even against API
//! prices.
//!
//! MODEL.md §7: `Effective $/M = cost at capacity / u` (idle replicas still bill);
//! energy `price_hr += N·(P_idle + (P_tdp − P_idle)·busy)·PUE·$/kWh/1000`; break-even utilization
//! `u* = (N·price_hr·1e6) / (3600 · X_tot,peak · p_api)` with `p_api` the API price blended at the
//! workload's own input:output mix.

use crate::catalog::{ApiPrice, Gpu};
use crate::choice::{choices, Choice};
use serde::{Deserialize, Serialize};

/// Hours in an average month (8760 h / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;
/// Idle draw as a fraction of TDP (an assumption; H100 idles near 100–150 W of 700 W).
pub const IDLE_POWER_FRACTION: f64 = 0.2;

/// Which price to use: a catalog rental quote (`shared/data/gpus.csv`: lowest, median and
/// highest on-demand quote) or the effective price of owning the GPU (`Ownership`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PriceTier {
    Low,
    #[default]
    Typical,
    High,
    /// Owned hardware: capex over depreciation + power + hosting + operations per GPU-hour.
    Owned,
}

choices!(PriceTier {
    PriceTier::Low => "low", "Low";
    PriceTier::Typical => "typical", "Typical";
    PriceTier::High => "high", "High";
    PriceTier::Owned => "owned", "Owned";
});

impl PriceTier {
    /// The catalog's rental tiers, cheapest first.
    pub const RENTAL: [PriceTier; 3] = [PriceTier::Low, PriceTier::Typical, PriceTier::High];

    /// The GPU's catalog price at this tier, falling back to the typical price when a tier is
    /// unquoted; `None` for `Owned`, which needs the ownership inputs (`price_with`).
    pub fn price(self, gpu: &Gpu) -> Option<f64> {
        let tier = match self {
            PriceTier::Low => gpu.usd_per_gpu_hour_low,
            PriceTier::Typical => gpu.usd_per_gpu_hour_typical,
            PriceTier::High => gpu.usd_per_gpu_hour_high,
            PriceTier::Owned => return None,
        };
        tier.or(gpu.usd_per_gpu_hour_typical)
    }
    /// As `price`, and for `Owned` the effective price of owning this GPU.
    pub fn price_with(self, gpu: &Gpu, ownership: Option<&Ownership>) -> Option<f64> {
        match self {
            PriceTier::Owned => ownership
                .and_then(|o| o.cost(gpu.tdp_w))
                .map(|c| c.usd_per_gpu_hour),
            rental => rental.price(gpu),
        }
    }
    /// Where the price comes from, for a label: "catalog typical, as of 2026-05" or "owned".
    pub fn provenance(self, gpu: &Gpu) -> String {
        match self {
            PriceTier::Owned => "owned hardware (capex, power, hosting, operations)".into(),
            rental if gpu.price_as_of.is_empty() => format!("catalog {}", rental.id()),
            rental => format!("catalog {}, as of {}", rental.id(), gpu.price_as_of),
        }
    }
}

/// Hours in a year, for depreciation (365 × 24).
pub const HOURS_PER_YEAR: f64 = 8760.0;

/// What owning a GPU costs, as the buyer states it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ownership {
    /// Purchase price per GPU, its share of the server included ($).
    pub capex_usd_per_gpu: f64,
    pub depreciation_years: f64,
    /// Draw per GPU (its server share included); `None` = the catalog TDP.
    pub power_w: Option<f64>,
    pub pue: f64,
    pub usd_per_kwh: f64,
    /// Colocation or data-centre space, billed per kW (of facility power) per month.
    pub hosting_usd_per_kw_month: f64,
    /// Operations overhead per GPU-hour: staff, support, software licences.
    pub ops_usd_per_gpu_hour: f64,
}

/// The effective $/GPU-hour of owned hardware and its parts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OwnedCost {
    pub capex_usd_per_gpu_hour: f64,
    pub power_usd_per_gpu_hour: f64,
    pub hosting_usd_per_gpu_hour: f64,
    pub ops_usd_per_gpu_hour: f64,
    pub usd_per_gpu_hour: f64,
    /// The draw it was priced at (W per GPU).
    pub power_w: f64,
}

impl Ownership {
    /// Effective $/GPU-hour of owning the GPU, NVIDIA's TCO method ("LLM Inference Benchmarking:
    /// How Much Does Your LLM Inference Cost?", NVIDIA Technical Blog, 2025,
    /// developer.nvidia.com/blog/benchmarking-llm-inference-costs-for-smarter-scaling-and-deployment:
    /// yearly server cost = initial server cost ÷ depreciation period + yearly software licensing
    /// + hosting), per GPU-hour, with power and hosting by the kW:
    ///
    /// `capex/(years·8760) + P_kW·PUE·$/kWh + hosting $/kW-month·P_kW·PUE/730 + ops`.
    ///
    /// Worked example: $30,000 per GPU over 4 years, 700 W, PUE 1.3, $0.10/kWh, $150/kW-month,
    /// $0.10/GPU-hour operations: 30000/35040 = $0.8562 + 0.7·1.3·0.10 = $0.0910 +
    /// 150·0.7·1.3/730 = $0.1870 + $0.10 = $1.234 per GPU-hour. Power is at the full draw all
    /// month (an owned GPU's bill does not follow its load; the price per token does, by 1/u).
    /// `None` without a draw (no `power_w`, no catalog TDP) or for nonsensical inputs.
    pub fn cost(&self, tdp_w: Option<f64>) -> Option<OwnedCost> {
        let power_w = self.power_w.or(tdp_w)?;
        let facility_kw = power_w / 1000.0 * self.pue;
        if !(self.depreciation_years > 0.0 && facility_kw.is_finite() && facility_kw >= 0.0) {
            return None;
        }
        let capex = self.capex_usd_per_gpu / (self.depreciation_years * HOURS_PER_YEAR);
        let power = facility_kw * self.usd_per_kwh;
        let hosting = self.hosting_usd_per_kw_month * facility_kw / HOURS_PER_MONTH;
        let total = capex + power + hosting + self.ops_usd_per_gpu_hour;
        total.is_finite().then_some(OwnedCost {
            capex_usd_per_gpu_hour: capex,
            power_usd_per_gpu_hour: power,
            hosting_usd_per_gpu_hour: hosting,
            ops_usd_per_gpu_hour: self.ops_usd_per_gpu_hour,
            usd_per_gpu_hour: total,
            power_w,
        })
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
    /// When the API price was read (`api_prices.csv` `as_of`).
    pub as_of: String,
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
        as_of: price.as_of.clone(),
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

    /// The doc comment's worked example, part by part.
    #[test]
    fn owned_price_follows_the_tco_method() {
        let owned = Ownership {
            capex_usd_per_gpu: 30_000.0,
            depreciation_years: 4.0,
            power_w: None,
            pue: 1.3,
            usd_per_kwh: 0.10,
            hosting_usd_per_kw_month: 150.0,
            ops_usd_per_gpu_hour: 0.10,
        };
        let cost = owned.cost(Some(700.0)).expect("priced");
        let close = |a: f64, b: f64| (a - b).abs() < 1e-4;
        assert!(close(cost.capex_usd_per_gpu_hour, 0.8562), "{cost:?}");
        assert!(close(cost.power_usd_per_gpu_hour, 0.091), "{cost:?}");
        assert!(close(cost.hosting_usd_per_gpu_hour, 0.1870), "{cost:?}");
        assert!(close(cost.usd_per_gpu_hour, 1.2341), "{cost:?}");
        assert_eq!(cost.power_w, 700.0);
        // A stated draw wins over the TDP; no draw at all, no price.
        let stated = Ownership {
            power_w: Some(1000.0),
            ..owned
        };
        assert!(stated.cost(Some(700.0)).expect("priced").usd_per_gpu_hour > cost.usd_per_gpu_hour);
        assert_eq!(owned.cost(None), None);
        assert_eq!(
            Ownership {
                depreciation_years: 0.0,
                ..owned
            }
            .cost(Some(700.0)),
            None
        );
        assert_eq!(PriceTier::parse("Owned"), Some(PriceTier::Owned));
        assert_eq!(PriceTier::Owned.id(), "owned");
    }

    #[test]
    fn break_even_is_the_cost_ratio() {
        let price = ApiPrice {
            model_id: "m".into(),
            provider: "p".into(),
            usd_per_m_input: 0.5,
            usd_per_m_cached_input: None,
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
