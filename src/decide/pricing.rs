//! The prices of one operating point as the cost panel states them: $/M input, output and
//! blended at any input:output ratio, optional electricity on top of the rental, the effective
//! price at a utilization below capacity, which catalog tier a price is, and the break-even
//! utilization against each API provider of the model.
//!
//! MODEL.md §7: `$/M = (GPU $/hour) ÷ (M tokens/hour)`; input vs output by time attribution
//! (`physics::cost`); `effective $/M = $/M at capacity ÷ u` (idle capacity still bills); energy
//! `N·(P_idle + (P_tdp − P_idle)·busy)·PUE·$/kWh/1000` per hour with busy = the utilization;
//! `u* = self-hosted $/hour ÷ API bill per hour for the same tokens at capacity`.

use crate::catalog::{ApiPrice, Gpu};
use crate::choice::Choice;
use crate::model::OperatingPoint;
use crate::physics::cost::{cost_breakdown, BLEND_INPUT_PER_OUTPUT};
use crate::physics::economics::{
    break_even, energy_usd_per_gpu_hour, BreakEven, Energy, PriceTier, HOURS_PER_MONTH,
};
use crate::scenario::Scenario;

/// Blend ratio of API price comparisons: 3 input tokens per output token.
pub const DEFAULT_INPUT_PER_OUTPUT: f64 = BLEND_INPUT_PER_OUTPUT;
/// Utilizations the page tabulates the effective price at (the 1/u curve).
pub const UTILIZATION_STEPS: [f64; 8] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0];
/// Lowest utilization priced (the effective price grows without bound as u → 0).
pub const MIN_UTILIZATION: f64 = 0.001;

/// Blended $/M at `input_per_output` input tokens per output token:
/// `(r·$in + $out)/(r + 1)`. With r = 3 and the decode-share output price this is
/// `physics::cost`'s 3:1 blended price.
pub fn blended_usd_per_m(
    usd_per_m_input: f64,
    usd_per_m_output: f64,
    input_per_output: f64,
) -> f64 {
    let r = if input_per_output.is_finite() {
        input_per_output.max(0.0)
    } else {
        DEFAULT_INPUT_PER_OUTPUT
    };
    (r * usd_per_m_input + usd_per_m_output) / (r + 1.0)
}

/// The catalog tier `usd_per_gpu_hour` equals for this GPU (typical first), if any.
pub fn tier_of(gpu: &Gpu, usd_per_gpu_hour: f64) -> Option<PriceTier> {
    let quoted = |price: Option<f64>| price.is_some_and(|p| (p - usd_per_gpu_hour).abs() < 1e-9);
    if quoted(gpu.usd_per_gpu_hour_typical) {
        Some(PriceTier::Typical)
    } else if quoted(gpu.usd_per_gpu_hour_low) {
        Some(PriceTier::Low)
    } else if quoted(gpu.usd_per_gpu_hour_high) {
        Some(PriceTier::High)
    } else {
        None
    }
}

/// The price per GPU-hour of a scenario that names `gpu_id` but no price (the default scenario,
/// a link, an embed, an import, a pin, the GPU control): the catalog's typical rental quote for
/// that GPU (issue 26 §6: one price basis, labelled "catalog typical, as of …" wherever it is
/// shown), none for a GPU the catalog has no rental price for or does not know (its costs show
/// "—" and ask for a price). The explorer, the embed, Compare and the report read every
/// scenario through this one rule (`share::decode`), so the same link shows the same $/M in
/// each. Version-1 links read the old default instead (`share::LEGACY_UNSTATED_PRICE`).
pub fn price_when_unstated(gpu_id: &str) -> Option<f64> {
    crate::catalog::catalog()
        .ok()
        .and_then(|catalog| catalog.gpu(gpu_id.trim()))
        .and_then(|gpu| gpu.usd_per_gpu_hour_typical)
}

/// What a typed price is called wherever it is shown.
pub const YOUR_PRICE: &str = "your price";

/// Where a price per GPU-hour comes from: a catalog tier with its date ("catalog typical, as of
/// 2026-05"), the owned-hardware price of `owned` (the `Ownership` cost of this GPU), or
/// `YOUR_PRICE` for any other (typed) price.
pub fn price_provenance(gpu: &Gpu, usd_per_gpu_hour: f64, owned: Option<f64>) -> String {
    match tier_of(gpu, usd_per_gpu_hour) {
        Some(tier) => tier.provenance(gpu),
        None if owned.is_some_and(|o| (o - usd_per_gpu_hour).abs() < 1e-9) => {
            PriceTier::Owned.provenance(gpu)
        }
        None => YOUR_PRICE.into(),
    }
}

/// Prices at one load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    /// Offered load ÷ capacity at the operating point, in (0, 1].
    pub utilization: f64,
    /// Rental plus electricity, all GPUs.
    pub usd_per_hour: f64,
    pub energy_usd_per_hour: f64,
    pub usd_per_month: f64,
    /// Prefill share of the bill ÷ input tokens served.
    pub usd_per_m_input: f64,
    /// The whole bill ÷ output tokens served.
    pub usd_per_m_output: f64,
    /// Decode share of the bill ÷ output tokens served.
    pub usd_per_m_output_attributed: f64,
    /// `(r·input + attributed output)/(r + 1)` at the chosen ratio.
    pub usd_per_m_blended: f64,
}

/// What it takes to price one operating point at any load; there is none without a price per
/// GPU-hour (`PointCost::new` is `None`), so nothing here is ever priced at a made-up rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointCost {
    pub gpus: u32,
    pub usd_per_gpu_hour: f64,
    pub tdp_w: Option<f64>,
    pub energy: Option<Energy>,
    pub output_tok_s: f64,
    pub input_tok_s: f64,
    /// Fraction of the bill charged to prefill (input tokens).
    pub prefill_share: f64,
    pub input_per_output: f64,
}

impl PointCost {
    /// `None` when the scenario has no price per GPU-hour.
    pub fn new(
        scenario: &Scenario,
        point: &OperatingPoint,
        input_per_output: f64,
        energy: Option<Energy>,
    ) -> Option<PointCost> {
        let usd_per_gpu_hour = scenario.usd_per_gpu_hour?;
        let cost = point.cost?;
        let input_tok_s = (point.total_tok_s - point.output_tok_s).max(0.0);
        let rental = cost.usd_per_hour;
        // The share `model::serving` used: its input price is `rental · share` per input token.
        let prefill_share = if rental > 0.0 && input_tok_s > 0.0 {
            (cost.usd_per_m_input * input_tok_s * 3600.0 / 1e6 / rental).clamp(0.0, 1.0)
        } else {
            point.prefill_share.clamp(0.0, 1.0)
        };
        Some(PointCost {
            gpus: point.gpus.max(1),
            usd_per_gpu_hour,
            tdp_w: scenario.gpu.tdp_w,
            energy,
            output_tok_s: point.output_tok_s,
            input_tok_s,
            prefill_share,
            input_per_output,
        })
    }

    /// Electricity $/hour for all GPUs busy a fraction `busy` of the time (0 when off or no TDP).
    pub fn energy_usd_per_hour(&self, busy: f64) -> f64 {
        match (&self.energy, self.tdp_w) {
            (Some(energy), Some(tdp_w)) => {
                f64::from(self.gpus) * energy_usd_per_gpu_hour(tdp_w, busy, energy)
            }
            _ => 0.0,
        }
    }

    /// Prices when serving at full capacity (GPUs always busy).
    pub fn at_capacity(&self) -> Prices {
        self.at_load(1.0)
    }

    /// Prices when the offered load is `utilization` × capacity: the bill at that load (rental
    /// plus the power drawn then) over the tokens actually served, i.e. without energy exactly
    /// the at-capacity price ÷ u.
    pub fn at_load(&self, utilization: f64) -> Prices {
        let u = if utilization.is_finite() {
            utilization.clamp(MIN_UTILIZATION, 1.0)
        } else {
            1.0
        };
        let energy_usd_per_hour = self.energy_usd_per_hour(u);
        let usd_per_hour = f64::from(self.gpus) * self.usd_per_gpu_hour + energy_usd_per_hour;
        let breakdown = cost_breakdown(
            self.gpus,
            usd_per_hour / f64::from(self.gpus),
            self.output_tok_s * u,
            self.input_tok_s * u,
            self.prefill_share,
        );
        Prices {
            utilization: u,
            usd_per_hour,
            energy_usd_per_hour,
            usd_per_month: usd_per_hour * HOURS_PER_MONTH,
            usd_per_m_input: breakdown.usd_per_m_input,
            usd_per_m_output: breakdown.usd_per_m_output,
            usd_per_m_output_attributed: breakdown.usd_per_m_output_attributed,
            usd_per_m_blended: blended_usd_per_m(
                breakdown.usd_per_m_input,
                breakdown.usd_per_m_output_attributed,
                self.input_per_output,
            ),
        }
    }

    /// Self-hosting at this point (bill at full load) against every API price of `model_id`,
    /// cheapest API first. Empty when the catalog lists no API price for the model.
    pub fn break_even(&self, model_id: &str) -> Vec<BreakEven> {
        let usd_per_hour = self.at_capacity().usd_per_hour;
        crate::catalog::api_prices_for(model_id)
            .into_iter()
            .filter_map(|price| {
                break_even(usd_per_hour, self.input_tok_s, self.output_tok_s, price)
            })
            .collect()
    }
}

/// Self-hosting against each API for the traffic the user typed (issue 26 §9), not at the
/// slider's point: $/month on each side and the daily volume from which self-hosting is
/// cheaper.
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficVsApi {
    /// The traffic, prompt + output tokens per day.
    pub tokens_per_day: f64,
    /// The GPUs the one sizing function bought for it (`sizing::size`).
    pub gpus: u32,
    /// Self-hosted $/month of those GPUs at each price the GPU has: the catalog's rental tiers
    /// (low, typical, high) and, with capex given, owned; the scenario's own price first as
    /// `YOUR_PRICE` when it is none of them. Electricity is added as the sizing adds it.
    pub self_hosted: Vec<(String, f64)>,
    /// Each API's bill for the same tokens, cheapest first.
    pub apis: Vec<ApiMonthly>,
}

/// One API's side of `TrafficVsApi`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiMonthly {
    pub provider: String,
    /// (input tokens × $/M input + output tokens × $/M output) per month.
    pub usd_per_month: f64,
    /// The daily volume (prompt + output tokens) from which self-hosting at the scenario's
    /// price is cheaper: one replica's monthly cost ÷ the API's price per token-day, when one
    /// replica under the utilization ceiling can carry that volume; `None` when even a full
    /// replica costs more than the API would for its tokens (the API is cheaper at any volume).
    pub break_even_tokens_per_day: Option<f64>,
    pub as_of: String,
}

/// $/month for `input_tok_s` and `output_tok_s` at an API's list prices (730-hour month).
pub fn api_usd_per_month(price: &ApiPrice, input_tok_s: f64, output_tok_s: f64) -> f64 {
    (input_tok_s * price.usd_per_m_input + output_tok_s * price.usd_per_m_output) / 1e6
        * 3600.0
        * HOURS_PER_MONTH
}

/// The comparison for a configuration sized for the traffic (`sized`, from `sizing::size` of
/// `scenario`'s unit) at `traffic_output_tok_s`; `None` without a price or with no API price for
/// the model in the catalog.
pub fn traffic_vs_api(
    scenario: &Scenario,
    sized: &crate::decide::sizing::Sized,
    traffic_output_tok_s: f64,
    rules: &crate::decide::sizing::SizingRules,
    ownership: Option<&crate::physics::economics::Ownership>,
) -> Option<TrafficVsApi> {
    let price = scenario.usd_per_gpu_hour?;
    let mix = scenario.workload.input_mean / scenario.workload.output_mean.max(1e-9);
    let input_tok_s = traffic_output_tok_s * mix;
    let tokens_per_day = (input_tok_s + traffic_output_tok_s) * 86_400.0;
    let s = sized.sizing;
    let gpus = f64::from(s.gpus);
    let energy_per_month = s.energy_usd_per_hour * HOURS_PER_MONTH;
    let month_at =
        |usd_per_gpu_hour: f64| gpus * usd_per_gpu_hour * HOURS_PER_MONTH + energy_per_month;
    let gpu = &scenario.gpu;
    let mut self_hosted = Vec::new();
    if tier_of(gpu, price).is_none() {
        self_hosted.push((YOUR_PRICE.to_string(), month_at(price)));
    }
    for tier in PriceTier::RENTAL.into_iter().chain([PriceTier::Owned]) {
        if let Some(p) = tier.price_with(gpu, ownership) {
            self_hosted.push((tier.id().to_string(), month_at(p)));
        }
    }
    // One replica under the ceiling: its monthly cost and the tokens a day it can carry.
    let replica_month = f64::from(s.gpus_per_replica) * price * HOURS_PER_MONTH;
    let ceiling = rules.max_utilization.clamp(1e-3, 1.0);
    let replica_tokens_per_day = sized.point.output_tok_s * ceiling * (1.0 + mix) * 86_400.0;
    let mut apis: Vec<ApiMonthly> = crate::catalog::api_prices_for(&scenario.model.id)
        .into_iter()
        .map(|api| {
            let per_token_day = api_usd_per_month(api, input_tok_s, traffic_output_tok_s)
                / tokens_per_day.max(1e-9);
            let volume = replica_month / per_token_day.max(1e-300);
            ApiMonthly {
                provider: api.provider.clone(),
                usd_per_month: api_usd_per_month(api, input_tok_s, traffic_output_tok_s),
                break_even_tokens_per_day: (volume <= replica_tokens_per_day).then_some(volume),
                as_of: api.as_of.clone(),
            }
        })
        .collect();
    if apis.is_empty() {
        return None;
    }
    apis.sort_by(|a, b| a.usd_per_month.total_cmp(&b.usd_per_month));
    Some(TrafficVsApi {
        tokens_per_day,
        gpus: s.gpus,
        self_hosted,
        apis,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;

    fn priced(
        scenario: &Scenario,
        point: &OperatingPoint,
        ratio: f64,
        energy: Option<Energy>,
    ) -> PointCost {
        PointCost::new(scenario, point, ratio, energy).expect("the scenario has a price")
    }

    fn default_point() -> (Scenario, OperatingPoint) {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let point = evaluate(&scenario);
        (scenario, point)
    }

    #[test]
    fn without_energy_at_capacity_is_the_model_price() {
        let (scenario, point) = default_point();
        let cost = priced(&scenario, &point, 3.0, None);
        let prices = cost.at_capacity();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-12);
        let model = point.cost.expect("priced");
        assert!(close(prices.usd_per_m_output, model.usd_per_m_output));
        assert!(close(prices.usd_per_m_input, model.usd_per_m_input));
        assert!(
            close(prices.usd_per_m_blended, model.usd_per_m_blended),
            "3:1 as in physics::cost"
        );
        let price = scenario.usd_per_gpu_hour.expect("priced");
        assert!(close(prices.usd_per_hour, 8.0 * price));
        assert_eq!(prices.energy_usd_per_hour, 0.0);
    }

    /// MODEL.md §7: at 40 % utilization the price is 2.5× the at-capacity price.
    #[test]
    fn idle_capacity_still_bills() {
        let (scenario, point) = default_point();
        let cost = priced(&scenario, &point, 3.0, None);
        let full = cost.at_capacity();
        let forty = cost.at_load(0.4);
        assert!((forty.usd_per_m_output - full.usd_per_m_output * 2.5).abs() < 1e-9);
        assert!((forty.usd_per_m_blended - full.usd_per_m_blended * 2.5).abs() < 1e-9);
        assert_eq!(
            forty.usd_per_hour, full.usd_per_hour,
            "the rental does not shrink"
        );
        assert_eq!(cost.at_load(0.0).utilization, MIN_UTILIZATION);
        assert_eq!(cost.at_load(7.0).utilization, 1.0);
    }

    #[test]
    fn blend_ratio_moves_between_input_and_output_prices() {
        assert_eq!(blended_usd_per_m(1.0, 5.0, 3.0), 2.0);
        assert_eq!(blended_usd_per_m(1.0, 5.0, 1.0), 3.0);
        assert_eq!(blended_usd_per_m(1.0, 5.0, 0.0), 5.0);
        assert_eq!(blended_usd_per_m(1.0, 5.0, f64::NAN), 2.0);
        let (scenario, point) = default_point();
        let mostly_output = priced(&scenario, &point, 0.25, None).at_capacity();
        let mostly_input = priced(&scenario, &point, 10.0, None).at_capacity();
        assert!(mostly_output.usd_per_m_blended > mostly_input.usd_per_m_blended);
    }

    /// MODEL.md §7: 0.7 kW × 1.3 PUE × $0.10/kWh ≈ $0.09/h per busy H100.
    #[test]
    fn energy_adds_the_power_bill() {
        let (scenario, point) = default_point();
        let energy = Energy {
            usd_per_kwh: 0.10,
            pue: 1.3,
        };
        let cost = priced(&scenario, &point, 3.0, Some(energy));
        let full = cost.at_capacity();
        assert!((full.energy_usd_per_hour - 8.0 * 0.091).abs() < 1e-9);
        assert!(full.usd_per_m_output > point.usd_per_m_output.expect("priced"));
        let idle_ish = cost.at_load(0.1);
        assert!(idle_ish.energy_usd_per_hour < full.energy_usd_per_hour);
    }

    #[test]
    fn break_even_is_the_bill_ratio_and_tiers_are_recognised() {
        let (scenario, point) = default_point();
        let cost = priced(&scenario, &point, 3.0, None);
        let rows = cost.break_even("llama-3.1-70b");
        assert!(!rows.is_empty(), "the catalog prices Llama 3.1 70B");
        let bill = cost.at_capacity().usd_per_hour;
        for row in &rows {
            let api_bill = (cost.input_tok_s * row.api_usd_per_m_input
                + cost.output_tok_s * row.api_usd_per_m_output)
                * 3600.0
                / 1e6;
            assert!((row.break_even_utilization - bill / api_bill).abs() < 1e-9);
        }
        assert!(
            cost.break_even("qwen3-8b").is_empty(),
            "no API prices listed"
        );
        let h100 = scenario.gpu.clone();
        assert_eq!(tier_of(&h100, 2.65), Some(PriceTier::Typical));
        assert_eq!(tier_of(&h100, 1.49), Some(PriceTier::Low));
        assert_eq!(tier_of(&h100, 3.50), Some(PriceTier::High));
        assert_eq!(tier_of(&h100, 3.125), None);
        assert_eq!(price_provenance(&h100, 3.125, None), "your price");
        assert_eq!(
            price_provenance(&h100, 2.65, None),
            format!("catalog typical, as of {}", h100.price_as_of)
        );
        assert!(price_provenance(&h100, 1.234, Some(1.234)).starts_with("owned"));
    }

    /// One price basis (issue 26 §6): a GPU named without a price has its catalog typical quote
    /// (the default scenario's too), none for a GPU without one (never another GPU's rate). The
    /// embed and the explorer read a link's price through this.
    #[test]
    fn an_unstated_price_is_the_gpus_catalog_typical_quote() {
        let defaults = crate::scenario::ScenarioInput::default();
        assert_eq!(
            price_when_unstated(&defaults.gpu),
            defaults.usd_per_gpu_hour
        );
        let catalog = crate::catalog::catalog().expect("catalog");
        for gpu in &catalog.gpus {
            assert_eq!(
                price_when_unstated(&gpu.id),
                gpu.usd_per_gpu_hour_typical,
                "{}",
                gpu.id
            );
        }
        for unpriced in ["gb200", "mi355x", "gaudi3"] {
            assert_eq!(price_when_unstated(unpriced), None, "{unpriced}");
        }
        assert_eq!(price_when_unstated("no-such-gpu"), None);
        let h100 = catalog.gpu(&defaults.gpu).expect("the default GPU");
        let price = defaults.usd_per_gpu_hour.expect("priced");
        assert_eq!(tier_of(h100, price), Some(PriceTier::Typical));
    }

    /// No price per GPU-hour, nothing to price: no made-up rate behind any panel's number.
    #[test]
    fn a_scenario_without_a_price_has_no_point_cost() {
        let scenario = Scenario::try_from(crate::scenario::ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..crate::scenario::ScenarioInput::default()
        })
        .expect("valid without a price");
        let point = evaluate(&scenario);
        assert!(point.output_tok_s > 0.0);
        assert_eq!(PointCost::new(&scenario, &point, 3.0, None), None);
    }

    /// Issue 26 §9: for a typed traffic, each side's $/month, the API's bill linear in the
    /// tokens, the break-even volume below one replica's capacity where it exists, and the
    /// self-hosted bill at every tier the GPU has.
    #[test]
    fn self_hosting_against_apis_for_the_traffic() {
        use crate::decide::sizing::{size, unit_of, Check, SizingRules};
        let scenario = Scenario::default_scenario().expect("default");
        let unit = unit_of(&scenario).expect("unit");
        let rules = SizingRules::default();
        let traffic = 2110.0; // 10 req/s of 211 output tokens
        let sized = size(&unit, traffic, None, &rules, Check::Analytic).expect("sized");
        let cmp = traffic_vs_api(&unit, &sized, traffic, &rules, None)
            .expect("API prices for Llama 3.1 70B");
        let mix = 1155.0 / 211.0;
        assert!(
            (cmp.tokens_per_day - traffic * (1.0 + mix) * 86_400.0).abs()
                < 1e-6 * cmp.tokens_per_day
        );
        assert_eq!(cmp.gpus, sized.sizing.gpus);
        let typical = cmp
            .self_hosted
            .iter()
            .find(|(t, _)| t == "typical")
            .expect("typical tier");
        let month = sized.sizing.usd_per_month.expect("priced");
        assert!(
            (typical.1 - month).abs() < 1e-6 * month,
            "the default price is the typical tier"
        );
        for api in &cmp.apis {
            let doubled = traffic_vs_api(&unit, &sized, 2.0 * traffic, &rules, None)
                .expect("again")
                .apis
                .into_iter()
                .find(|a| a.provider == api.provider)
                .expect("same provider");
            assert!(
                (doubled.usd_per_month - 2.0 * api.usd_per_month).abs() < 1e-6 * api.usd_per_month
            );
            if let Some(v) = api.break_even_tokens_per_day {
                // At the break-even volume the API's bill equals one replica's.
                let per_token_day = api.usd_per_month / cmp.tokens_per_day;
                let replica = f64::from(sized.sizing.gpus_per_replica)
                    * scenario.usd_per_gpu_hour.expect("priced")
                    * HOURS_PER_MONTH;
                assert!((v * per_token_day - replica).abs() < 1e-6 * replica);
            }
        }
        assert!(cmp
            .apis
            .windows(2)
            .all(|w| w[0].usd_per_month <= w[1].usd_per_month));
    }
}
