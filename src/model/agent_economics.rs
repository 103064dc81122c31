//! Cache-aware economics of an agent fleet (issue 27 §3): $/M cached input beside input and
//! output, a blended $/M at the session's own mix, revenue per GPU-hour at API prices, margin per
//! GPU-hour and per GW-year, and self-host vs API per month for a fleet.
//!
//! Time attribution (as `physics::cost`, MODEL.md §7): the bill is split by what the GPUs spend
//! their time on. Cached prompt tokens are not prefilled, but every prefill pass of a turn's new
//! tokens reads the cached prefix's KV once (each chunk attends to it): per turn
//! `t_cached = ⌈(c − h)/T_chunk⌉ · s_kv,gpu(h) / (BW · η_m)` seconds on each GPU of the replica,
//! `h` the cached tokens, `s_kv,gpu(h)` their KV bytes per GPU (`physics::memory`). That share of
//! the GPU time, `s_c`, is charged to cached tokens; of the rest, the prefill share `ρ_pf` to
//! uncached input and `1 − ρ_pf` to output:
//! `$/M cached = bill·s_c / cached tok/s`, `$/M input = bill·(1 − s_c)·ρ_pf / uncached tok/s`,
//! `$/M output = bill·(1 − s_c)·(1 − ρ_pf) / output tok/s` (each ÷ 3600 × 10⁶), so the three
//! recover the bill, and the blended $/M is the bill over all tokens. The cached price counts
//! GPU time only: the HBM a cached context occupies while its agent runs tools is paid for in
//! fewer agents per GPU (the hit rate falls past the KV pool, `model::sessions`), not here.
//!
//! Revenue per GPU-hour at API prices: `(uncached·p_in + cached·p_cached + output·p_out)/10⁶ ·
//! 3600 / G`, tokens per second of the whole deployment, billed as providers bill a cache hit
//! (at the cached price where one is listed, else at the input price: "no cache discount
//! listed"). Margin per GPU-hour (InferenceX's profit per chip-hour): `m = R·u − c − f·R·u`, `R`
//! the revenue at full use, `u` the share of it sold, `c` the cost per GPU-hour (rented, a price
//! tier or owned TCO) and `f` a licence fee as a share of revenue; per GW-year
//! `m · 8760 · 10⁹ / (W_gpu · PUE)`.

use super::sessions::SessionPoint;
use crate::physics::economics::{HOURS_PER_MONTH, HOURS_PER_YEAR};
use crate::physics::memory::kv_bytes_per_sequence_gpu;
use crate::scenario::Scenario;
use serde::Serialize;

/// API list prices, $ per million tokens, with where they come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenPrices {
    pub usd_per_m_input: f64,
    /// `None`: no cache discount listed (cache hits bill at the input price).
    pub usd_per_m_cached_input: Option<f64>,
    pub usd_per_m_output: f64,
    /// "DeepSeek (first-party API), as of 2025-07-12" or "typed".
    pub basis: String,
}

impl TokenPrices {
    /// What a cache hit bills at.
    pub fn cached_or_input(&self) -> f64 {
        self.usd_per_m_cached_input.unwrap_or(self.usd_per_m_input)
    }
}

/// Tokens per second of a session steady state, all GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TokenRates {
    pub uncached_input_tok_s: f64,
    pub cached_input_tok_s: f64,
    pub output_tok_s: f64,
}

impl TokenRates {
    pub fn of(session: &SessionPoint) -> TokenRates {
        TokenRates {
            uncached_input_tok_s: session.uncached_input_tok_s(),
            cached_input_tok_s: session.cached_input_tok_s(),
            output_tok_s: session.point.output_tok_s,
        }
    }

    pub fn total(&self) -> f64 {
        self.uncached_input_tok_s + self.cached_input_tok_s + self.output_tok_s
    }

    /// $ per second these rates bill at `prices`.
    pub fn usd_per_s(&self, prices: &TokenPrices) -> f64 {
        (self.uncached_input_tok_s * prices.usd_per_m_input
            + self.cached_input_tok_s * prices.cached_or_input()
            + self.output_tok_s * prices.usd_per_m_output)
            / 1e6
    }
}

/// The self-hosted cost per million tokens of each kind, by time attribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CacheAwareCost {
    pub usd_per_m_input: f64,
    pub usd_per_m_cached_input: f64,
    pub usd_per_m_output: f64,
    /// The whole bill over all tokens at the session's mix.
    pub usd_per_m_blended: f64,
    /// Share of GPU time spent reading cached prefixes, `s_c`.
    pub cached_time_share: f64,
}

/// GPU-seconds per second (a share of all GPU time) spent reading the cached prefixes' KV in
/// prefill passes (module doc).
pub fn cached_time_share(scenario: &Scenario, session: &SessionPoint) -> f64 {
    let cached_per_turn = session.context_mean * session.hit_rate;
    let uncached_per_turn = session.context_mean - cached_per_turn;
    if cached_per_turn <= 0.0 {
        return 0.0;
    }
    let passes = (uncached_per_turn / f64::from(scenario.chunk_tokens.max(1)))
        .ceil()
        .max(1.0);
    let bytes = kv_bytes_per_sequence_gpu(
        &scenario.arch,
        scenario.kv_precision,
        scenario.par,
        cached_per_turn,
    )
    .0;
    let bandwidth = scenario.gpu.memory_bw_tb_s * 1e12 * scenario.efficiency.eta_mem;
    if bandwidth <= 0.0 {
        return 0.0;
    }
    // Every GPU of a replica reads its share at once: the turn's seconds on each GPU, times the
    // turns per second per replica, is the share of one GPU's time.
    let seconds_per_turn = passes * bytes / bandwidth;
    let turns_per_replica_s = session.turns_per_s / f64::from(scenario.replicas.max(1));
    (seconds_per_turn * turns_per_replica_s).clamp(0.0, 1.0)
}

/// $/M of each kind at `usd_per_gpu_hour` (module doc); `None` when nothing flows.
pub fn cache_aware_cost(
    scenario: &Scenario,
    session: &SessionPoint,
    usd_per_gpu_hour: f64,
) -> Option<CacheAwareCost> {
    let rates = TokenRates::of(session);
    if rates.total() <= 0.0 {
        return None;
    }
    let bill_per_s = f64::from(session.point.gpus.max(1)) * usd_per_gpu_hour / 3600.0;
    let cached_share = cached_time_share(scenario, session);
    let prefill = session.point.prefill_share.clamp(0.0, 1.0);
    let per_m = |fraction: f64, tok_s: f64| {
        if tok_s > 0.0 {
            bill_per_s * fraction / tok_s * 1e6
        } else {
            0.0
        }
    };
    Some(CacheAwareCost {
        usd_per_m_input: per_m((1.0 - cached_share) * prefill, rates.uncached_input_tok_s),
        usd_per_m_cached_input: per_m(cached_share, rates.cached_input_tok_s),
        usd_per_m_output: per_m((1.0 - cached_share) * (1.0 - prefill), rates.output_tok_s),
        usd_per_m_blended: per_m(1.0, rates.total()),
        cached_time_share: cached_share,
    })
}

/// Revenue and margin per GPU-hour (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Margin {
    /// `R`: revenue per GPU-hour with every token sold.
    pub revenue_usd_per_gpu_hour: f64,
    /// `u`: the share sold.
    pub utilization: f64,
    /// `c`: cost per GPU-hour.
    pub cost_usd_per_gpu_hour: f64,
    /// `f·R·u`.
    pub licence_usd_per_gpu_hour: f64,
    /// `m = R·u − c − f·R·u`.
    pub margin_usd_per_gpu_hour: f64,
    /// `m · 8760 · 10⁹ / (W·PUE)`; `None` without a power basis.
    pub margin_usd_per_gw_year: Option<f64>,
}

/// Revenue per GPU-hour of `rates` on `gpus` GPUs at `prices`.
pub fn revenue_usd_per_gpu_hour(rates: &TokenRates, prices: &TokenPrices, gpus: u32) -> f64 {
    rates.usd_per_s(prices) * 3600.0 / f64::from(gpus.max(1))
}

/// `m = R·u − c − f·R·u`, and per GW-year at `facility_w_per_gpu` (W·PUE).
pub fn margin(
    revenue_usd_per_gpu_hour: f64,
    utilization: f64,
    cost_usd_per_gpu_hour: f64,
    licence_fee_pct: f64,
    facility_w_per_gpu: Option<f64>,
) -> Margin {
    let sold = revenue_usd_per_gpu_hour * utilization;
    let licence = sold * licence_fee_pct / 100.0;
    let margin = sold - cost_usd_per_gpu_hour - licence;
    Margin {
        revenue_usd_per_gpu_hour,
        utilization,
        cost_usd_per_gpu_hour,
        licence_usd_per_gpu_hour: licence,
        margin_usd_per_gpu_hour: margin,
        margin_usd_per_gw_year: facility_w_per_gpu
            .filter(|w| *w > 0.0)
            .map(|w| margin * HOURS_PER_YEAR * 1e9 / w),
    }
}

/// A fleet of agents served both ways, per month. The self-hosted side is sized by the one
/// sizing function's rules (`decide::agents::fleet`, `decide::sizing::deployment`): agents at
/// the tier per replica → replicas under the utilization ceiling → whole servers past one →
/// $/month (rental, plus electricity when it is on).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FleetMonthly {
    pub agents: u32,
    /// GPUs to self-host them.
    pub gpus: u32,
    pub self_host_usd_per_month: f64,
    pub api_usd_per_month: f64,
    /// Agents one replica serves at the steady state it is sized at (the tier's, else the asked).
    pub agents_per_replica: f64,
    pub gpus_per_replica: u32,
    /// Replicas bought (whole servers past one can add some).
    pub replicas: u32,
    /// Agents ÷ (agents per replica × replicas): at most the ceiling.
    pub utilization: f64,
    /// The ceiling it was sized under (`max-utilization`).
    pub max_utilization: f64,
}

/// $ per month of `agents` agents, each working as the steady state's agents do all month,
/// through the API at `prices`.
pub fn api_usd_per_month(agents: u32, session: &SessionPoint, prices: &TokenPrices) -> f64 {
    let per_agent_per_s =
        TokenRates::of(session).usd_per_s(prices) / f64::from(session.agents.max(1));
    per_agent_per_s * f64::from(agents) * 3600.0 * HOURS_PER_MONTH
}
