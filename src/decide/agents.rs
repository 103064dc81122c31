//! The agentic question answered (issue 27 §2–§3): for a scenario in session mode and the
//! decision inputs, the agents' steady state at the asked concurrency (agents), the most agents
//! served at the SLO tier, per GPU, server and megawatt, the cache-aware cost per million tokens,
//! revenue and margin per GPU-hour at API prices, self-host vs API for a fleet, and the
//! assumptions every number rests on (session shape, hit rate reached, power basis, prices with
//! dates). `servecost estimate --workload agentic-coding` and `leaderboard` print it.
//!
//! The tier: TTFT at most `slo-ttft-ms` (else the leaderboard's `ttft-ceiling-ms`, 2 s) and at
//! least `tok-s-per-user` tokens/s (else the leaderboard's 50 tok/s), both at the
//! `interactivity-percentile` (P90 unless asked). The economics are read at the tier's point when
//! one meets it, else at the asked agents.

use super::leaderboard::{
    configuration, is_moe, layout_name, layout_tiers, precisions, DEFAULT_TOK_S_PER_USER,
    DEFAULT_TTFT_CEILING_MS, MULTI_NODE_GPUS,
};
use super::pricing::price_provenance;
use super::sizing::{deployment, replicas_under_ceiling, SizingRules};
use crate::catalog::{api_prices_for, dated, UNDATED};
use crate::choice::{choices, Choice};
use crate::model::agent_economics::{
    api_usd_per_month, cache_aware_cost, margin, revenue_usd_per_gpu_hour, CacheAwareCost,
    FleetMonthly, Margin, TokenPrices, TokenRates,
};
use crate::model::agents::{agent_figures, agents_at_tier, AgentFigures, PowerBasis, Tier};
use crate::model::sessions::{evaluate_sessions, SessionPoint, SessionShape};
use crate::physics::precision::Precision;
use crate::scenario::session_preset::SessionPreset;
use crate::scenario::ScenarioInput;
use crate::scenario::{DecisionInput, Scenario};
use serde::Serialize;

/// Everything the agentic estimate reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentAnswer {
    /// The preset the session shape is, if any (`agentic-coding`, `chat-multi-turn`).
    #[serde(serialize_with = "crate::choice::as_id::serialize_option")]
    pub preset: Option<SessionPreset>,
    pub shape: SessionShape,
    pub tier: Tier,
    pub power: Option<PowerBasis>,
    /// At the asked agents (`concurrency`).
    pub at_agents: SessionPoint,
    pub figures_at_agents: AgentFigures,
    /// The most agents meeting the tier; `None` when not even one does.
    pub at_tier: Option<SessionPoint>,
    pub figures_at_tier: Option<AgentFigures>,
    /// Cost per GPU-hour the economics use, and where it comes from.
    pub usd_per_gpu_hour: Option<f64>,
    pub price_basis: Option<String>,
    pub cost: Option<CacheAwareCost>,
    pub prices: Option<TokenPrices>,
    pub margin: Option<Margin>,
    pub fleet: Option<FleetMonthly>,
    /// One sentence per assumption.
    pub assumptions: Vec<String>,
}

/// The tier the decision inputs ask for (module doc).
pub fn tier_of(decision: &DecisionInput) -> Tier {
    Tier {
        percentile: decision.interactivity_percentile,
        ttft_ms: decision
            .slo_ttft_ms
            .or(decision.ttft_ceiling_ms)
            .unwrap_or(DEFAULT_TTFT_CEILING_MS),
        tok_s_per_user: decision.tok_s_per_user.unwrap_or(DEFAULT_TOK_S_PER_USER),
    }
}

/// Typed prices (input and output both typed, the cached one optional), else the model's
/// cheapest listing at the session's own mix of `rates`; `None` without either.
pub fn token_prices(
    model_id: &str,
    decision: &DecisionInput,
    rates: &TokenRates,
) -> Option<TokenPrices> {
    if let (Some(input), Some(output)) =
        (decision.api_usd_per_m_input, decision.api_usd_per_m_output)
    {
        return Some(TokenPrices {
            usd_per_m_input: input,
            usd_per_m_cached_input: decision.api_usd_per_m_cached_input,
            usd_per_m_output: output,
            basis: "typed".into(),
        });
    }
    api_prices_for(model_id)
        .into_iter()
        .map(|listing| TokenPrices {
            usd_per_m_input: listing.usd_per_m_input,
            usd_per_m_cached_input: decision
                .api_usd_per_m_cached_input
                .or(listing.usd_per_m_cached_input),
            usd_per_m_output: listing.usd_per_m_output,
            basis: match dated(&listing.as_of) {
                UNDATED => format!("{}, undated", listing.provider),
                date => format!("{}, as of {date}", listing.provider),
            },
        })
        .min_by(|a, b| rates.usd_per_s(a).total_cmp(&rates.usd_per_s(b)))
}

/// The agentic answer for `scenario` (in session mode) at its concurrency (the agents) and
/// `decision`; `None` when the scenario is not in session mode or its per-turn scenario does
/// not validate.
pub fn answer(scenario: &Scenario, decision: &DecisionInput) -> Option<AgentAnswer> {
    let shape = SessionShape::of(scenario)?;
    let tier = tier_of(decision);
    let power = PowerBasis::of(scenario, decision.owned_power_w, decision.energy_pue);
    let gpus_per_server = decision.gpus_per_node.round().max(1.0) as u32;
    let at_agents = evaluate_sessions(scenario, scenario.concurrency)?;
    let figures_at_agents = agent_figures(
        scenario,
        &at_agents,
        tier.percentile,
        power.as_ref(),
        gpus_per_server,
        Some(&tier),
    )?;
    let found = agents_at_tier(scenario, &tier, power.as_ref(), gpus_per_server);
    let (at_tier, figures_at_tier) = match found {
        Some((point, figures)) => (Some(point), Some(figures)),
        None => (None, None),
    };
    let economics_point = at_tier.as_ref().unwrap_or(&at_agents);
    let rates = TokenRates::of(economics_point);
    let usd_per_gpu_hour = scenario.usd_per_gpu_hour;
    let owned = decision
        .ownership()
        .and_then(|o| o.cost(scenario.gpu.tdp_w))
        .map(|c| c.usd_per_gpu_hour);
    let price_basis = usd_per_gpu_hour.map(|p| price_provenance(&scenario.gpu, p, owned));
    let cost = usd_per_gpu_hour.and_then(|p| cache_aware_cost(scenario, economics_point, p));
    let prices = token_prices(&scenario.model.id, decision, &rates);
    let gpus = economics_point.point.gpus;
    let margin = match (&prices, usd_per_gpu_hour) {
        (Some(prices), Some(cost_per_hour)) => Some(margin(
            revenue_usd_per_gpu_hour(&rates, prices, gpus),
            decision.billed_utilization,
            cost_per_hour,
            decision.licence_fee_pct,
            power.map(|p| p.facility_w_per_gpu()),
        )),
        _ => None,
    };
    let fleet = match (decision.fleet_agents, &prices, usd_per_gpu_hour) {
        (Some(agents), Some(prices), Some(_)) => fleet(
            scenario,
            economics_point,
            agents.round().max(1.0) as u32,
            &SizingRules::of(decision),
            prices,
        ),
        _ => None,
    };
    let mut answer = AgentAnswer {
        preset: SessionPreset::of_input(&scenario.input),
        shape,
        tier,
        power,
        at_agents,
        figures_at_agents,
        at_tier,
        figures_at_tier,
        usd_per_gpu_hour,
        price_basis,
        cost,
        prices,
        margin,
        fleet,
        assumptions: Vec::new(),
    };
    answer.assumptions = assumptions(scenario, decision, &answer);
    Some(answer)
}

/// `agents` agents self-hosted on `scenario`'s replicas and through the API, per month. The
/// self-hosted side goes through the one sizing function's rules (`decide::sizing`), with the
/// agents a replica serves at `session` as its capacity: replicas =
/// ⌈agents ÷ (ceiling × agents per replica)⌉ (`replicas_under_ceiling`), whole servers past
/// one and $/month = GPUs × ($/GPU-hour + electricity when on) × 730 h (`deployment`, in the
/// replica's output tokens/s, so this fleet and the same output tokens/s sized by Plan or the
/// Cost panel buy the same GPUs). `None` without a price per GPU-hour or when nothing flows.
pub fn fleet(
    scenario: &Scenario,
    session: &SessionPoint,
    agents: u32,
    rules: &SizingRules,
    prices: &TokenPrices,
) -> Option<FleetMonthly> {
    scenario.usd_per_gpu_hour?;
    // A replica's GPUs, attention DP and PP included.
    let gpus_per_replica = (scenario.gpu_count / scenario.replicas.max(1)).max(1);
    let replicas_modeled = f64::from(session.point.gpus.max(1)) / f64::from(gpus_per_replica);
    let agents_per_replica = f64::from(session.agents) / replicas_modeled;
    let output_per_agent = session.point.output_tok_s / f64::from(session.agents.max(1));
    if !(agents_per_replica > 0.0 && output_per_agent > 0.0) {
        return None;
    }
    let needed = replicas_under_ceiling(f64::from(agents), agents_per_replica, rules)?;
    let sized = deployment(
        scenario,
        agents_per_replica * output_per_agent,
        f64::from(agents) * output_per_agent,
        needed,
        rules,
    )?;
    Some(FleetMonthly {
        agents,
        gpus: sized.gpus,
        self_host_usd_per_month: sized.usd_per_month?,
        api_usd_per_month: api_usd_per_month(agents, session, prices),
        agents_per_replica,
        gpus_per_replica: sized.gpus_per_replica,
        replicas: sized.replicas,
        utilization: sized.utilization,
        max_utilization: rules.max_utilization,
    })
}

/// "Session shape (Agentic coding): first prompt 8000 tokens, 20 turns, …. Source: …".
fn shape_sentence(input: &ScenarioInput, shape: &SessionShape) -> String {
    let preset = SessionPreset::of_input(input);
    format!(
        "Session shape{}: first prompt {:.0} tokens, {} turns, each appending its output ({:.0} tokens mean, σ {}) and {:.0} tool-result tokens, {} s of tool time between turns; mean prompt per turn {:.0} tokens (input:output {:.0}:1){}",
        preset.map_or(String::new(), |p| format!(" ({})", p.label())),
        shape.first_prompt,
        shape.turns,
        shape.output,
        shape.output_sigma,
        shape.tool_tokens,
        shape.tool_s,
        shape.context_mean(),
        shape.input_per_output(),
        preset.map_or(String::new(), |p| format!(". Source: {}", p.source())),
    )
}

/// "API prices (DeepSeek (first-party API), as of 2025-07-12): input $0.55/M, …".
fn api_prices_sentence(prices: Option<&TokenPrices>) -> String {
    match prices {
        Some(prices) => format!(
            "API prices ({}): input ${}/M, cached input {}, output ${}/M",
            prices.basis,
            prices.usd_per_m_input,
            prices.usd_per_m_cached_input.map_or(
                "no cache discount listed (billed as input)".to_string(),
                |p| format!("${p}/M")
            ),
            prices.usd_per_m_output
        ),
        None => {
            "API prices: none listed for this model and none typed: revenue and margin not shown"
                .into()
        }
    }
}

/// The assumptions the agentic leaderboard's rows rest on, one sentence each, as `answer`
/// states them for one configuration (issue 27 §4): the session shape, the hit rates the rows
/// reach, the tier, the power basis, each GPU's price with its date, the API prices.
pub fn leaderboard_assumptions(decision: &DecisionInput, rows: &[AgentRow]) -> Vec<String> {
    let tier = tier_of(decision);
    let mut lines = Vec::new();
    let first = rows
        .first()
        .and_then(|row| Scenario::try_from(row.input.clone()).ok());
    if let Some((scenario, shape)) = first
        .as_ref()
        .and_then(|scenario| Some((scenario, SessionShape::of(scenario)?)))
    {
        lines.push(shape_sentence(&scenario.input, &shape));
    }
    let (low, high) = rows.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), r| {
        (lo.min(r.hit_rate), hi.max(r.hit_rate))
    });
    if !rows.is_empty() {
        let range = if format!("{low:.3}") == format!("{high:.3}") {
            format!("{:.1} %", high * 100.0)
        } else {
            format!("{:.1}–{:.1} %", low * 100.0, high * 100.0)
        };
        lines.push(format!(
            "Prefix-cache hit rate reached at each row's agents: {range} (analytic, Che's approximation of LRU eviction, model::sessions)"
        ));
    }
    lines.push(format!(
        "Tier: TTFT ≤ {:.0} ms and ≥ {} tok/s per agent, both at P{:.0} (analytic tails); each row is the best layout of its GPU × precision, its agents the most that meet the tier on one replica",
        tier.ttft_ms,
        tier.tok_s_per_user,
        tier.percentile.value()
    ));
    lines.push(match decision.owned_power_w {
        Some(watts) => format!(
            "Power basis: measured {watts:.0} W per GPU (owned-power-w, applied to every GPU) × PUE {}, at full draw",
            decision.energy_pue
        ),
        None => format!(
            "Power basis: each GPU's catalog TDP × PUE {}, at full draw",
            decision.energy_pue
        ),
    });
    let mut prices: Vec<String> = Vec::new();
    for row in rows {
        let text = format!(
            "{} {}",
            row.gpu,
            row.price_basis
                .as_deref()
                .map_or("no catalog price (no per-$ figure)".to_string(), |basis| {
                    format!("${:.2} ({basis})", row.usd_per_gpu_hour.unwrap_or_default())
                })
        );
        if !prices.contains(&text) {
            prices.push(text);
        }
    }
    if !prices.is_empty() {
        lines.push(format!("GPU cost per GPU-hour: {}", prices.join("; ")));
    }
    let mut listed: Vec<String> = Vec::new();
    for row in rows {
        let text = api_prices_sentence(row.api_prices.as_ref());
        if !listed.contains(&text) {
            listed.push(text);
        }
    }
    lines.extend(listed);
    lines
}

/// The assumptions every agentic number rests on, one sentence each.
fn assumptions(scenario: &Scenario, decision: &DecisionInput, answer: &AgentAnswer) -> Vec<String> {
    let mut lines = vec![shape_sentence(&scenario.input, &answer.shape)];
    let point = answer.at_tier.as_ref().unwrap_or(&answer.at_agents);
    lines.push(format!(
        "Prefix-cache hit rate reached: {:.1} % at {} agents ({:.1} % with nothing evicted; {:.0} % of an idle session's context survives LRU eviction in a {:.0}-token KV pool per replica; analytic, Che's approximation, model::sessions)",
        point.hit_rate * 100.0,
        point.agents,
        point.ideal_hit * 100.0,
        point.retained * 100.0,
        point.kv_tokens_per_replica,
    ));
    lines.push(format!(
        "Tier: TTFT ≤ {:.0} ms and ≥ {} tok/s per user, both at P{:.0} (analytic tails)",
        answer.tier.ttft_ms,
        answer.tier.tok_s_per_user,
        answer.tier.percentile.value()
    ));
    lines.push(match &answer.power {
        Some(power) => format!("Power basis: {}", power.describe()),
        None => {
            "Power basis: none (no catalog TDP and no measured watts): per-MW figures not shown"
                .into()
        }
    });
    lines.push(match (&answer.usd_per_gpu_hour, &answer.price_basis) {
        (Some(price), Some(basis)) => format!("GPU cost: ${price:.2} per GPU-hour ({basis})"),
        _ => "GPU cost: no price per GPU-hour: costs and margin not shown".into(),
    });
    lines.push("Cost per token by GPU time (model::agent_economics): a cached input token costs the KV reads of the prefill passes over it; the memory its cache holds shows up as agents per GPU, not in its price".into());
    lines.push(api_prices_sentence(answer.prices.as_ref()));
    if let Some(fleet) = &answer.fleet {
        lines.push(format!(
            "Fleet: sized by the same rules as every other sizing (decide::sizing): agents at the tier per replica → replicas at ≤ {:.0} % utilization → whole servers of {} past one; the API side bills each agent's tokens at the prices above",
            fleet.max_utilization * 100.0,
            SizingRules::of(decision).gpus_per_node,
        ));
    }
    if let Some(margin) = &answer.margin {
        lines.push(format!(
            "Margin: revenue × {:.0} % sold − GPU cost − licence fee of {} % of revenue",
            margin.utilization * 100.0,
            if margin.revenue_usd_per_gpu_hour * margin.utilization > 0.0 {
                margin.licence_usd_per_gpu_hour
                    / (margin.revenue_usd_per_gpu_hour * margin.utilization)
                    * 100.0
            } else {
                0.0
            }
        ));
    }
    lines
}

/// What the agentic leaderboard ranks by (issue 27 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentRank {
    /// Agents at the tier per megawatt of facility power.
    AgentsPerMw,
    /// Agents at the tier per dollar per hour of GPUs.
    AgentsPerUsd,
}

choices!(AgentRank {
    AgentRank::AgentsPerMw => "agents-per-mw", "agents per MW at the agentic tier";
    AgentRank::AgentsPerUsd => "agents-per-usd", "agents per $/hour at the agentic tier";
});

impl AgentRank {
    /// An id of `ALL`, blanks ignored, case kept.
    pub fn parse(text: &str) -> Option<AgentRank> {
        AgentRank::parse_exact(text.trim())
    }
}

/// One configuration of the agentic leaderboard: a GPU, a precision and a replica layout
/// (`leaderboard::layout_tiers`), with the agents it serves at the tier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentRow {
    pub gpu: String,
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub precision: Precision,
    /// GPUs of one replica.
    pub gpus: u32,
    pub tp: u32,
    /// Agents one replica serves at the tier.
    pub agents: u32,
    pub agents_per_gpu: f64,
    pub agents_per_mw: Option<f64>,
    /// Agents per $ per hour of GPUs.
    pub agents_per_usd_hour: Option<f64>,
    pub hit_rate: f64,
    pub usd_per_m_cached_input: Option<f64>,
    pub margin_usd_per_gpu_hour: Option<f64>,
    pub pp: u32,
    pub ep: u32,
    /// Attention DP ranks (DEP N: TP 1 × EP N × attention DP N).
    pub dp_attention: u32,
    /// "TP 8", "TP 8 × EP 8", "DEP 8", "TP 8 × PP 2" (`leaderboard::layout_name`).
    pub layout: String,
    /// The GPU's price per GPU-hour and where it comes from (a catalog tier and its date);
    /// `None` without a catalog price.
    pub usd_per_gpu_hour: Option<f64>,
    pub price_basis: Option<String>,
    /// The API prices revenue and margin are at (typed, else the model's cheapest listing).
    pub api_prices: Option<TokenPrices>,
    /// The scenario of the row at its agents: what `estimate` takes.
    #[serde(skip)]
    pub input: ScenarioInput,
}

impl AgentRow {
    fn score(&self, rank: AgentRank) -> f64 {
        match rank {
            AgentRank::AgentsPerMw => self.agents_per_mw,
            AgentRank::AgentsPerUsd => self.agents_per_usd_hour,
        }
        .unwrap_or(f64::NEG_INFINITY)
    }
}

/// One configuration's row, or why it has none.
fn row_of(scenario: &Scenario, decision: &DecisionInput) -> Result<AgentRow, &'static str> {
    let found = answer(scenario, decision).ok_or("the per-turn scenario does not fit")?;
    let (Some(point), Some(figures)) = (&found.at_tier, &found.figures_at_tier) else {
        return Err("no agent meets the tier");
    };
    if !figures.meets_tier {
        return Err("no agent meets the tier");
    }
    let usd_per_hour = found
        .usd_per_gpu_hour
        .map(|p| p * f64::from(figures.gpus.max(1)));
    let par = scenario.par;
    Ok(AgentRow {
        gpu: scenario.gpu.id.clone(),
        precision: scenario.precision,
        gpus: figures.gpus,
        tp: par.tp,
        agents: point.agents,
        agents_per_gpu: figures.agents_per_gpu,
        agents_per_mw: figures.agents_per_mw,
        agents_per_usd_hour: usd_per_hour
            .filter(|usd| *usd > 0.0)
            .map(|usd| f64::from(point.agents) / usd),
        hit_rate: point.hit_rate,
        usd_per_m_cached_input: found.cost.map(|c| c.usd_per_m_cached_input),
        margin_usd_per_gpu_hour: found.margin.map(|m| m.margin_usd_per_gpu_hour),
        pp: par.pp,
        ep: par.ep,
        dp_attention: par.dp,
        layout: layout_name(par),
        usd_per_gpu_hour: found.usd_per_gpu_hour,
        price_basis: found.price_basis.clone(),
        api_prices: found.prices.clone(),
        input: ScenarioInput {
            concurrency: f64::from(point.agents),
            ..scenario.input.clone()
        },
    })
}

/// Best first by `rank`; a row without the ranked figure (no power basis, no price) after every
/// row with one; ties by more agents per GPU, then fewer GPUs.
pub fn rank_agent_rows(rows: &mut [AgentRow], rank: AgentRank) {
    rows.sort_by(|a, b| {
        b.score(rank)
            .total_cmp(&a.score(rank))
            .then(b.agents_per_gpu.total_cmp(&a.agents_per_gpu))
            .then(a.gpus.cmp(&b.gpus))
    });
}

/// The GPU × precision pairs the agentic leaderboard tries, by id: every catalog GPU (or those
/// allowed) with a full spec, in each allowed precision it runs natively
/// (`leaderboard::precisions`: FP8 and FP4 only on tensor cores for them). The page runs the
/// board one pair per browser task (`page::leaderboard::agentic`).
pub fn board_items(decision: &DecisionInput) -> Vec<(String, Precision)> {
    let Ok(catalog) = crate::catalog::catalog() else {
        return Vec::new();
    };
    let allowed = decision.gpus_allowed.as_deref();
    catalog
        .gpus
        .iter()
        .filter(|gpu| allowed.is_none_or(|ids| ids.contains(&gpu.id)))
        .filter(|gpu| gpu.missing_spec().is_none())
        .flat_map(|gpu| {
            decision
                .precisions_allowed
                .iter()
                .filter(|precision| precisions(gpu).contains(precision))
                .map(|&precision| (gpu.id.clone(), precision))
        })
        .collect()
}

/// Every catalog GPU (or those allowed) with a full spec, in each allowed precision it runs
/// (`leaderboard::precisions`: FP8 and FP4 only on tensor cores for them),
/// over the hardware leaderboard's replica layouts (`leaderboard::layout_tiers`: TP 1–8 on one
/// server, and for an MoE model EP and DEP; past one server TP 8 × PP and DEP, tried only when
/// nothing fits on one), each answered at the tier (its most agents meeting it); the best layout
/// per GPU × precision by `rank`, ranked best first (`rank_agent_rows`). A GPU × precision that
/// does not fit or where no agent meets the tier is not ranked, and `skipped` says why. A GPU
/// without a catalog price is ranked by agents per MW and has no per-$ figure (last by per $).
pub fn agent_leaderboard(
    base: &ScenarioInput,
    decision: &DecisionInput,
    rank: AgentRank,
) -> (Vec<AgentRow>, Vec<String>) {
    agent_leaderboard_layouts(base, decision, rank, false)
}

/// `agent_leaderboard`, with every layout that meets the tier as a row of its own when
/// `all_layouts` (each GPU × precision's best first among its own, all ranked together).
pub fn agent_leaderboard_layouts(
    base: &ScenarioInput,
    decision: &DecisionInput,
    rank: AgentRank,
    all_layouts: bool,
) -> (Vec<AgentRow>, Vec<String>) {
    let Ok(catalog) = crate::catalog::catalog() else {
        return (Vec::new(), vec!["the GPU catalog does not parse".into()]);
    };
    let moe = match is_moe(base) {
        Ok(moe) => moe,
        Err(why) => return (Vec::new(), vec![why]),
    };
    let gpus_per_node = SizingRules::of(decision).gpus_per_node;
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for (gpu, precision) in board_items(decision) {
        let Some(gpu) = catalog.gpus.iter().find(|g| g.id == gpu) else {
            continue;
        };
        let text = precision.id();
        let mut found = Vec::new();
        let mut fits = false;
        let mut why = "does not fit";
        for tier in layout_tiers(moe, gpus_per_node) {
            if fits {
                break;
            }
            for par in tier {
                let input = ScenarioInput {
                    usd_per_gpu_hour: gpu.usd_per_gpu_hour_typical,
                    ..configuration(base, gpu, precision, par)
                };
                let Ok(scenario) = Scenario::try_from(input) else {
                    continue;
                };
                fits = true;
                match row_of(&scenario, decision) {
                    Ok(row) => found.push(row),
                    Err(reason) => why = reason,
                }
            }
        }
        if found.is_empty() {
            let why = if fits {
                why.to_string()
            } else {
                format!(
                    "does not fit on up to {} GPUs",
                    MULTI_NODE_GPUS.last().copied().unwrap_or(gpus_per_node)
                )
            };
            skipped.push(format!("{} {text}: {why}", gpu.id));
            continue;
        }
        rank_agent_rows(&mut found, rank);
        if !all_layouts {
            found.truncate(1);
        }
        rows.extend(found);
    }
    rank_agent_rows(&mut rows, rank);
    (rows, skipped)
}
