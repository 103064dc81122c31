//! The agentic panel's data as plain Rust, tested natively (issue 27 §4): for the page's scenario
//! in session mode (a session workload chosen) and the decision inputs, the answer
//! (`decide::agents::answer`: the agents' steady state at the slider's agents and at the tier,
//! cache-aware cost, revenue, margin, fleet, assumptions), the curve the panel's chart draws
//! (agents doubling from one, each point's interactivity at the tier's percentile and agents and
//! output tok/s per GPU) and the numbers panel's rows as text (`ui::tools::agents` shows them,
//! the client report prints them, the embed's agentic line reads them).

use crate::choice::Choice;
use crate::decide::agents::{answer, AgentAnswer};
use crate::model::agents::agent_figures;
use crate::model::sessions::evaluate_sessions;
use crate::present::format::{format_number, format_usd, group_thousands, usd_amount};
use crate::scenario::fields::{Inputs, WORKLOAD};
use crate::scenario::session_preset::SessionPreset;
use crate::scenario::{DecisionInput, Scenario, ScenarioInput};

pub use crate::present::chart::agents::AgentCurvePoint;

/// What the agentic panel shows.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentView {
    pub answer: AgentAnswer,
    /// In increasing agents.
    pub curve: Vec<AgentCurvePoint>,
}

/// Whether the scenario is in agentic mode: a session workload (`session-turns` set).
pub fn is_agentic(input: &ScenarioInput) -> bool {
    input.session_turns.is_some()
}

/// The workload select's value for `input`: a session preset's id, `custom` for sessions of
/// another shape, `off` for single requests (the explorer's own workloads).
pub fn mode_of(input: &ScenarioInput) -> &'static str {
    if !is_agentic(input) {
        return MODE_OFF;
    }
    SessionPreset::of_input(input).map_or(crate::scenario::fields::CUSTOM_WORKLOAD, |p| p.id())
}

/// The mode select's value for single requests.
pub const MODE_OFF: &str = "off";

/// The mode select's choices: off, then the session presets.
pub fn mode_choices() -> Vec<(String, String)> {
    let mut choices = vec![(MODE_OFF.to_string(), "Off: single requests".to_string())];
    choices.extend(
        SessionPreset::ALL
            .iter()
            .map(|p| (p.id().to_string(), format!("{} (sessions)", p.label()))),
    );
    choices
}

/// The input with the mode `choice` applied: a preset's session shape, or (off) single
/// requests at the default chat lengths (the `workload` field's own rule).
pub fn with_mode(input: &ScenarioInput, choice: &str) -> Result<ScenarioInput, String> {
    let mut inputs = Inputs {
        scenario: input.clone(),
        decision: DecisionInput::default(),
    };
    let preset = if choice == MODE_OFF { "chat" } else { choice };
    WORKLOAD.set(&mut inputs, preset)?;
    Ok(inputs.scenario)
}

/// Most points on the chart's curve.
const CURVE_POINTS: u32 = 14;

/// The agentic view of `scenario` with `decision`; `None` when it is not in session mode or
/// its per-turn scenario does not validate.
pub fn agent_view(scenario: &Scenario, decision: &DecisionInput) -> Option<AgentView> {
    let answer = answer(scenario, decision)?;
    let tier_agents = answer.at_tier.as_ref().map_or(1, |p| p.agents);
    let top = tier_agents
        .max(answer.at_agents.agents)
        .saturating_mul(2)
        .max(16);
    let gpus_per_server = decision.gpus_per_node.round().max(1.0) as u32;
    let mut curve = Vec::new();
    let mut agents = 1_u32;
    for _ in 0..CURVE_POINTS {
        if let Some(point) = curve_point(scenario, &answer, agents, gpus_per_server) {
            curve.push(point);
        }
        if agents >= top {
            break;
        }
        agents = agents.saturating_mul(2).min(top);
    }
    Some(AgentView { answer, curve })
}

fn curve_point(
    scenario: &Scenario,
    answer: &AgentAnswer,
    agents: u32,
    gpus_per_server: u32,
) -> Option<AgentCurvePoint> {
    let session = evaluate_sessions(scenario, agents)?;
    let figures = agent_figures(
        scenario,
        &session,
        answer.tier.percentile,
        answer.power.as_ref(),
        gpus_per_server,
        Some(&answer.tier),
    )?;
    let gpus = f64::from(figures.gpus.max(1));
    Some(AgentCurvePoint {
        agents,
        interactivity: figures.interactivity_tok_s,
        agents_per_gpu: figures.agents_per_gpu,
        output_tok_s_per_gpu: session.point.output_tok_s / gpus,
        hit_rate: session.hit_rate,
        meets_tier: figures.meets_tier,
    })
}

/// One row of the numbers panel: an id (`agents-ID` on the page), a label, the value at the
/// slider's agents and at the tier (text), and the unit.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberRow {
    pub id: &'static str,
    pub label: String,
    pub at_agents: String,
    pub at_tier: String,
    pub unit: &'static str,
}

fn number(value: f64) -> String {
    group_thousands(&format_number(value))
}

fn maybe(value: Option<f64>, text: fn(f64) -> String) -> String {
    value.map_or_else(|| "—".to_string(), text)
}

fn percent(value: f64) -> String {
    format!("{:.1}", value * 100.0)
}

/// The tier in words: "TTFT ≤ 2,000 ms and ≥ 30 tok/s per user at P90".
pub fn tier_text(answer: &AgentAnswer) -> String {
    format!(
        "TTFT ≤ {} ms and ≥ {} tok/s per user at P{:.0}",
        number(answer.tier.ttft_ms),
        format_number(answer.tier.tok_s_per_user),
        answer.tier.percentile.value()
    )
}

/// The rows of the numbers panel that depend on the point (the slider's agents and the tier's):
/// agents per GPU, server and MW, tok/s per MW, J/token, hit rate, interactivity and TTFT.
pub fn point_rows(answer: &AgentAnswer) -> Vec<NumberRow> {
    let at = &answer.figures_at_agents;
    let tier = answer.figures_at_tier.as_ref();
    let both = |value: fn(&crate::model::agents::AgentFigures) -> String| {
        (value(at), tier.map_or_else(|| "—".to_string(), value))
    };
    let p = format!("P{:.0}", answer.tier.percentile.value());
    let hit_at = percent(answer.at_agents.hit_rate);
    let hit_tier = answer
        .at_tier
        .as_ref()
        .map_or_else(|| "—".to_string(), |p| percent(p.hit_rate));
    let rows: [(&'static str, String, (String, String), &'static str); 10] = [
        (
            "agents",
            "Agents in flight".into(),
            both(|f| group_thousands(&f.agents.to_string())),
            "agents",
        ),
        (
            "per-gpu",
            "Agents per GPU".into(),
            both(|f| number(f.agents_per_gpu)),
            "agents",
        ),
        (
            "per-server",
            "Agents per server".into(),
            both(|f| number(f.agents_per_server)),
            "agents",
        ),
        (
            "per-mw",
            "Agents per MW".into(),
            both(|f| maybe(f.agents_per_mw, number)),
            "agents",
        ),
        (
            "tok-s-per-mw",
            "Output tok/s per MW".into(),
            both(|f| maybe(f.output_tok_s_per_mw, number)),
            "tok/s",
        ),
        (
            "joules",
            "Energy per output token".into(),
            both(|f| maybe(f.joules_per_output_token, format_number)),
            "J",
        ),
        (
            "hit-rate",
            "Prefix-cache hit rate reached".into(),
            (hit_at, hit_tier),
            "%",
        ),
        (
            "interactivity",
            format!("Interactivity at {p}"),
            both(|f| format_number(f.interactivity_tok_s)),
            "tok/s per user",
        ),
        (
            "ttft",
            format!("TTFT at {p}"),
            both(|f| number(f.ttft_ms)),
            "ms",
        ),
        (
            "meets",
            "Meets the tier".into(),
            both(|f| if f.meets_tier { "yes" } else { "no" }.to_string()),
            "",
        ),
    ];
    rows.into_iter()
        .map(|(id, label, (at_agents, at_tier), unit)| NumberRow {
            id,
            label,
            at_agents,
            at_tier,
            unit,
        })
        .collect()
}

/// The economics' rows (read at the tier's point, else the slider's): cache-aware $/M, revenue
/// and margin per GPU-hour and per GW-year, the fleet per month; label, value, unit.
pub fn economics_rows(answer: &AgentAnswer) -> Vec<(&'static str, String, String)> {
    let usd = |value: Option<f64>| maybe(value, format_usd);
    let cost = answer.cost.as_ref();
    let margin = answer.margin.as_ref();
    let mut rows = vec![
        (
            "usd-per-m-input",
            "Self-hosted $/M input (uncached)".to_string(),
            usd(cost.map(|c| c.usd_per_m_input)),
        ),
        (
            "usd-per-m-cached-input",
            "Self-hosted $/M cached input".to_string(),
            usd(cost.map(|c| c.usd_per_m_cached_input)),
        ),
        (
            "usd-per-m-output",
            "Self-hosted $/M output".to_string(),
            usd(cost.map(|c| c.usd_per_m_output)),
        ),
        (
            "usd-per-m-blended",
            "Self-hosted $/M blended (the session's mix)".to_string(),
            usd(cost.map(|c| c.usd_per_m_blended)),
        ),
        (
            "revenue",
            "Revenue per GPU-hour at API prices".to_string(),
            usd(margin.map(|m| m.revenue_usd_per_gpu_hour)),
        ),
        (
            "margin",
            "Margin per GPU-hour".to_string(),
            usd(margin.map(|m| m.margin_usd_per_gpu_hour)),
        ),
        (
            "margin-gw-year",
            "Margin per GW-year".to_string(),
            maybe(margin.and_then(|m| m.margin_usd_per_gw_year), usd_amount),
        ),
    ];
    if let Some(fleet) = &answer.fleet {
        rows.push((
            "fleet",
            format!(
                "{} agents: self-host ({} GPUs) vs API, per month",
                number(f64::from(fleet.agents)),
                fleet.gpus
            ),
            format!(
                "{} vs {}",
                usd_amount(fleet.self_host_usd_per_month),
                usd_amount(fleet.api_usd_per_month)
            ),
        ));
    }
    rows
}

/// The headline sentence: "At TTFT ≤ 2,000 ms and ≥ 30 tok/s per user at P90, 8 × B200 serve
/// 1,024 agents: 128 per GPU, 90,000 per MW; $0.31/M cached input, margin $4.10 per GPU-hour."
pub fn headline(scenario: &Scenario, answer: &AgentAnswer) -> String {
    let servers = format!("{} × {}", scenario.gpu_count, scenario.gpu.name);
    let Some(tier) = &answer.figures_at_tier else {
        return format!(
            "At {}, no number of agents meets the tier on {servers} (at {} agents: {} tok/s per user, TTFT {} ms).",
            tier_text(answer),
            answer.figures_at_agents.agents,
            format_number(answer.figures_at_agents.interactivity_tok_s),
            number(answer.figures_at_agents.ttft_ms)
        );
    };
    let mut text = format!(
        "At {}, {servers} serve{} {} agents: {} per GPU",
        tier_text(answer),
        if scenario.gpu_count == 1 { "s" } else { "" },
        group_thousands(&tier.agents.to_string()),
        number(tier.agents_per_gpu),
    );
    if let Some(per_mw) = tier.agents_per_mw {
        text.push_str(&format!(", {} per MW", number(per_mw)));
    }
    if let Some(cost) = &answer.cost {
        text.push_str(&format!(
            "; {}/M cached input",
            format_usd(cost.usd_per_m_cached_input)
        ));
    }
    if let Some(margin) = &answer.margin {
        text.push_str(&format!(
            ", margin {} per GPU-hour",
            format_usd(margin.margin_usd_per_gpu_hour)
        ));
    }
    text.push('.');
    text
}
