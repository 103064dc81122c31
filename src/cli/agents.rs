//! `servecost estimate` in agentic mode (issue 27 §4, CLI): a scenario whose workload is
//! sessions (`--workload agentic-coding`, `chat-multi-turn`, or `--session-turns N`) is answered
//! as agents: the steady state at `--concurrency` agents, the most agents at the SLO tier per
//! GPU, server and MW, joules per token, the hit rate reached, cache-aware $/M, revenue and
//! margin per GPU-hour, the fleet per month, and every assumption (`decide::agents::answer`).

use super::args::{decision_input, Flags, UsageError, RANK_BY};
use super::{scenario_from, Outcome};
use crate::choice::Choice;
use crate::decide::agents::{answer, AgentAnswer};
use crate::model::agents::AgentFigures;
use crate::present::format::{format_number, group_thousands, usd_amount};
use crate::present::sentences::scenario_sentence;
use crate::scenario::Scenario;

/// Whether the flags ask for sessions (the scenario input's session fields are set).
pub(super) fn asks_for_sessions(flags: &Flags) -> bool {
    super::args::scenario_input(flags).is_ok_and(|input| input.session_turns.is_some())
}

/// `asks_for_sessions` for a command (the leaderboard) whose flags name no GPU.
pub(super) fn asks_for_sessions_without_gpu(rest: &[String]) -> bool {
    let mut with_gpu = rest.to_vec();
    with_gpu.extend([
        format!("--{}", crate::scenario::fields::GPU.key),
        crate::scenario::DEFAULT_GPU.to_string(),
    ]);
    Flags::parse(&with_gpu, super::args::SCENARIO_FLAGS)
        .is_ok_and(|flags| asks_for_sessions(&flags))
}

pub(super) fn estimate_agents(flags: &Flags) -> Outcome {
    if flags.has("--max-throughput") || flags.text("--slo-method").is_some() {
        return Outcome::usage(
            "agentic mode answers at --concurrency agents and at the tier (--slo-ttft-ms, --tok-s-per-user, --interactivity-percentile); --max-throughput and --slo-method do not apply",
        );
    }
    let scenario = match scenario_from(flags) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let decision = match decision_input(flags) {
        Ok(d) => d,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let Some(found) = answer(&scenario, &decision) else {
        return Outcome::failure(
            "the agents' per-turn scenario does not fit this configuration (its mean context and KV); try more GPUs or a narrower precision",
        );
    };
    if flags.has("--json") {
        return Outcome::json(&found);
    }
    Outcome::ok(human(&scenario, &found))
}

fn grouped(value: f64) -> String {
    group_thousands(&format_number(value))
}

fn figures_line(figures: &AgentFigures) -> String {
    let per_mw = figures
        .agents_per_mw
        .map_or("– (no power basis)".into(), grouped);
    format!(
        "{} agents/GPU, {} per server, {} per MW",
        format_number(figures.agents_per_gpu),
        format_number(figures.agents_per_server),
        per_mw
    )
}

/// The agentic estimate as text.
pub fn human(scenario: &Scenario, found: &AgentAnswer) -> String {
    let mut out = String::new();
    out.push_str(&scenario_sentence(scenario));
    out.push_str(&format!(
        " (Agentic: sessions in flight are agents; the input length is the session's first prompt, and each turn re-sends its whole context, {} tokens on average.)\n\n",
        grouped(found.shape.context_mean())
    ));
    asked_lines(&mut out, found);
    tier_lines(&mut out, found);
    cost_line(&mut out, found);
    margin_lines(&mut out, found);
    if let Some(fleet) = &found.fleet {
        line(
            &mut out,
            &format!("fleet of {} agents", fleet.agents),
            format!(
                "self-host {} per month on {} GPUs ({} replicas of {} GPUs at {:.1} agents each, {:.0} % utilized); API {} per month",
                usd_amount(fleet.self_host_usd_per_month),
                fleet.gpus,
                fleet.replicas,
                fleet.gpus_per_replica,
                fleet.agents_per_replica,
                fleet.utilization * 100.0,
                usd_amount(fleet.api_usd_per_month)
            ),
        );
    }
    out.push_str("\nAssumptions\n");
    for assumption in &found.assumptions {
        out.push_str("  - ");
        out.push_str(assumption);
        out.push('\n');
    }
    out
}

/// One `label value` line of the text, labels in a column of 30.
fn line(out: &mut String, label: &str, value: String) {
    out.push_str(&format!("{label:<30} {value}\n"));
}

/// The asked agents: turns running, interactivity and TTFT at the percentile, the hit rate
/// reached, throughput, and agents per GPU, server and MW.
fn asked_lines(out: &mut String, found: &AgentAnswer) {
    let p = found.tier.percentile.value();
    let at = &found.at_agents;
    let figures = &found.figures_at_agents;
    line(
        out,
        "agents (asked)",
        format!(
            "{} ({:.1} turns running, the rest in their tools)",
            at.agents, at.running_turns
        ),
    );
    line(
        out,
        &format!("  P{p:.0} interactivity"),
        format!(
            "{} tok/s per agent (TPOT {} ms), P{p:.0} TTFT {} ms{}",
            format_number(figures.interactivity_tok_s),
            format_number(figures.tpot_ms),
            format_number(figures.ttft_ms),
            if figures.meets_tier {
                ", meets the tier"
            } else {
                ", misses the tier"
            }
        ),
    );
    line(
        out,
        "  hit rate reached",
        format!(
            "{:.1} % (ideal {:.1} %)",
            at.hit_rate * 100.0,
            at.ideal_hit * 100.0
        ),
    );
    line(
        out,
        "  output tok/s",
        format!(
            "{} ({} per GPU)",
            grouped(at.point.output_tok_s),
            format_number(at.point.output_tok_s_per_gpu)
        ),
    );
    line(out, "  per GPU, server, MW", figures_line(figures));
}

/// The most agents at the tier, per GPU, server and MW, their hit rate and energy (or none).
fn tier_lines(out: &mut String, found: &AgentAnswer) {
    let p = found.tier.percentile.value();
    let tier = format!(
        "TTFT ≤ {} ms, ≥ {} tok/s per agent at P{p:.0}",
        format_number(found.tier.ttft_ms),
        format_number(found.tier.tok_s_per_user)
    );
    match (&found.at_tier, &found.figures_at_tier) {
        (Some(point), Some(figures)) => {
            line(
                out,
                "agents at the tier",
                format!("{} ({tier})", point.agents),
            );
            line(out, "  per GPU, server, MW", figures_line(figures));
            line(
                out,
                "  hit rate reached",
                format!("{:.1} %", point.hit_rate * 100.0),
            );
            line(
                out,
                "  energy",
                match (figures.joules_per_output_token, figures.output_tok_s_per_mw) {
                    (Some(joules), Some(per_mw)) => format!(
                        "{} J per output token, {} output tok/s per MW",
                        format_number(joules),
                        grouped(per_mw)
                    ),
                    _ => "– (no power basis)".into(),
                },
            );
        }
        _ => line(out, "agents at the tier", format!("none ({tier})")),
    }
}

/// Cache-aware $/M at the tier (else at the asked agents), or that there is no price.
fn cost_line(out: &mut String, found: &AgentAnswer) {
    let cost_at = if found.at_tier.is_some() {
        "at the tier"
    } else {
        "at the asked agents"
    };
    match &found.cost {
        Some(cost) => line(
            out,
            &format!("$/M ({cost_at})"),
            format!(
                "input {}, cached input {}, output {}, blended at the session mix {}",
                usd(cost.usd_per_m_input),
                usd(cost.usd_per_m_cached_input),
                usd(cost.usd_per_m_output),
                usd(cost.usd_per_m_blended)
            ),
        ),
        None => line(out, "$/M", "no price per GPU-hour".into()),
    }
}

/// Revenue and margin per GPU-hour (and per GW-year), or what they need.
fn margin_lines(out: &mut String, found: &AgentAnswer) {
    match &found.margin {
        Some(margin) => {
            line(
                out,
                "revenue per GPU-hour",
                format!(
                    "{} at API prices ({})",
                    usd(margin.revenue_usd_per_gpu_hour),
                    found.prices.as_ref().map_or("", |p| p.basis.as_str())
                ),
            );
            line(
                out,
                "margin per GPU-hour",
                format!(
                    "{} (× {:.0} % sold − cost {} − licence {}){}",
                    usd(margin.margin_usd_per_gpu_hour),
                    margin.utilization * 100.0,
                    usd(margin.cost_usd_per_gpu_hour),
                    usd(margin.licence_usd_per_gpu_hour),
                    margin
                        .margin_usd_per_gw_year
                        .map_or(String::new(), |gw| format!(
                            "; {} per GW-year",
                            billions(gw)
                        ))
                ),
            );
        }
        None => line(
            out,
            "revenue, margin",
            "– (needs API prices for the model or typed, and a GPU price)".into(),
        ),
    }
}

/// "$1.23 B" ($ per GW-year run to billions).
fn billions(value: f64) -> String {
    format!(
        "{}{} B",
        if value < 0.0 { "−" } else { "" },
        usd(value.abs() / 1e9)
    )
}

/// "$0.123" with two decimals from $10 up.
fn usd(value: f64) -> String {
    if value.abs() >= 10.0 {
        let sign = if value < 0.0 { "-" } else { "" };
        format!("{sign}${:.2}", value.abs())
    } else {
        crate::present::format::format_usd(value)
    }
}

/// `servecost leaderboard --workload agentic-coding [--rank-by agents-per-mw|agents-per-usd]`:
/// each GPU and precision at its best replica layout (`decide::agents::agent_leaderboard`; every
/// layout that meets the tier with `--all-layouts`), ranked by agents at the tier per MW
/// (default) or per $.
pub(super) fn leaderboard_agents(flags: &Flags, base: crate::scenario::ScenarioInput) -> Outcome {
    use crate::decide::agents::{
        agent_leaderboard_layouts, leaderboard_assumptions, tier_of, AgentRank,
    };
    let decision = match decision_input(flags) {
        Ok(d) => d,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let rank = match flags.text(RANK_BY) {
        None => AgentRank::AgentsPerMw,
        Some(text) => match AgentRank::parse(text) {
            Some(rank) => rank,
            None => return Outcome::usage(format!("{RANK_BY}: {}", AgentRank::not_one_of(text))),
        },
    };
    let all_layouts = flags.has(super::leaderboard::ALL_LAYOUTS);
    let (rows, skipped) = agent_leaderboard_layouts(&base, &decision, rank, all_layouts);
    let notes: String = skipped
        .iter()
        .map(|why| format!("note: not ranked: {why}\n"))
        .collect();
    let tier = tier_of(&decision);
    let assumptions = leaderboard_assumptions(&decision, &rows);
    let outcome = if flags.has("--json") {
        Outcome::json(&serde_json::json!({
            "rank_by": rank,
            "tier": tier,
            "rows": rows,
            "assumptions": assumptions
        }))
    } else {
        let mut out = format!(
            "Agents at the tier (TTFT ≤ {} ms, ≥ {} tok/s per agent at P{:.0}), per replica over the hardware leaderboard's layouts (TP 1–8 on a server of {} GPUs, EP and DEP for MoE, TP 8 × PP past a server), catalog typical prices, power = catalog TDP × PUE {}\n",
            format_number(tier.ttft_ms),
            format_number(tier.tok_s_per_user),
            tier.percentile.value(),
            crate::decide::sizing::SizingRules::of(&decision).gpus_per_node,
            decision.energy_pue
        );
        out.push_str(&format!(
            "{:<4} {:<14} {:<5} {:<12} {:>4} {:>7} {:>9} {:>10} {:>10} {:>6} {:>12} {:>11}\n",
            "rank",
            "GPU",
            "prec",
            "layout",
            "GPUs",
            "agents",
            "per GPU",
            "per MW",
            "per $/h",
            "hit %",
            "$/M cached",
            "margin/GPUh"
        ));
        for (index, row) in rows.iter().enumerate() {
            let optional = |v: Option<f64>| v.map_or("–".to_string(), grouped);
            out.push_str(&format!(
                "{:<4} {:<14} {:<5} {:<12} {:>4} {:>7} {:>9} {:>10} {:>10} {:>6.1} {:>12} {:>11}\n",
                index + 1,
                row.gpu,
                row.precision.id(),
                row.layout,
                row.gpus,
                row.agents,
                format_number(row.agents_per_gpu),
                optional(row.agents_per_mw),
                optional(row.agents_per_usd_hour),
                row.hit_rate * 100.0,
                row.usd_per_m_cached_input.map_or("–".to_string(), usd),
                row.margin_usd_per_gpu_hour.map_or("–".to_string(), usd),
            ));
        }
        out.push_str("\nAssumptions\n");
        for assumption in &assumptions {
            out.push_str("  - ");
            out.push_str(assumption);
            out.push('\n');
        }
        Outcome::ok(out)
    };
    Outcome {
        stderr: outcome.stderr + &notes,
        ..outcome
    }
}
