//! Cache-aware economics of agents (issue 27 §3): a cached input token costs less than an
//! uncached one, the three prices recover the GPU bill, revenue is the tokens times the prices,
//! and the margin identity `m = R·u − c − f·R·u` holds, per GPU-hour and per GW-year.

#![cfg(all(not(target_arch = "wasm32"), feature = "session-model"))]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use servecost::decide::agents::{answer, token_prices};
use servecost::model::agent_economics::{
    cache_aware_cost, margin, revenue_usd_per_gpu_hour, TokenPrices, TokenRates,
};
use servecost::model::sessions::evaluate_sessions;
use servecost::physics::economics::HOURS_PER_YEAR;
use servecost::scenario::session_preset::SessionPreset;
use servecost::scenario::{DecisionInput, Scenario, ScenarioInput};

fn agentic(model: &str, gpu: &str, gpus: f64, agents: f64) -> Scenario {
    Scenario::try_from(scenario_input(model, gpu, gpus, agents)).expect("valid")
}

fn scenario_input(model: &str, gpu: &str, gpus: f64, agents: f64) -> ScenarioInput {
    let mut input = ScenarioInput {
        model: model.into(),
        gpu: gpu.into(),
        gpu_count: gpus,
        tp: None,
        concurrency: agents,
        ..ScenarioInput::default()
    };
    SessionPreset::AgenticCoding.apply(&mut input);
    input
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn cached_input_costs_less_than_input_and_the_prices_recover_the_bill() {
    for (model, gpu, gpus, agents) in [
        ("llama-3.1-8b", "h100-sxm", 1.0, 4),
        ("llama-3.3-70b", "h200-sxm", 8.0, 32),
        ("gpt-oss-120b", "b200", 8.0, 64),
    ] {
        let scenario = agentic(model, gpu, gpus, f64::from(agents));
        let session = evaluate_sessions(&scenario, agents).expect("point");
        let cost = cache_aware_cost(&scenario, &session, 3.0).expect("flows");
        assert!(session.hit_rate > 0.0, "{model} on {gpu}: {session:?}");
        assert!(
            cost.usd_per_m_cached_input < cost.usd_per_m_input,
            "{model} on {gpu}: {cost:?}"
        );
        let rates = TokenRates::of(&session);
        let bill_per_s = f64::from(session.point.gpus) * 3.0 / 3600.0;
        let recovered = (rates.cached_input_tok_s * cost.usd_per_m_cached_input
            + rates.uncached_input_tok_s * cost.usd_per_m_input
            + rates.output_tok_s * cost.usd_per_m_output)
            / 1e6;
        assert!(close(recovered, bill_per_s), "{recovered} vs {bill_per_s}");
        assert!(close(
            cost.usd_per_m_blended * rates.total() / 1e6,
            bill_per_s
        ));
    }
}

#[test]
fn revenue_is_tokens_times_prices_with_the_cache_discount() {
    let rates = TokenRates {
        uncached_input_tok_s: 1000.0,
        cached_input_tok_s: 9000.0,
        output_tok_s: 100.0,
    };
    let mut prices = TokenPrices {
        usd_per_m_input: 1.0,
        usd_per_m_cached_input: Some(0.1),
        usd_per_m_output: 4.0,
        basis: "typed".into(),
    };
    // (1000·1 + 9000·0.1 + 100·4)/10⁶ $/s = 0.0023 $/s → 8.28 $/h over 2 GPUs.
    let revenue = revenue_usd_per_gpu_hour(&rates, &prices, 2);
    assert!(close(revenue, 0.0023 * 3600.0 / 2.0), "{revenue}");
    // No cache discount listed: a hit bills as input.
    prices.usd_per_m_cached_input = None;
    let undiscounted = revenue_usd_per_gpu_hour(&rates, &prices, 2);
    assert!(close(
        undiscounted,
        (1000.0 + 9000.0 + 400.0) / 1e6 * 1800.0
    ));
    assert!(undiscounted > revenue);
}

#[test]
fn margin_is_revenue_sold_less_cost_and_licence() {
    let m = margin(10.0, 0.6, 2.5, 20.0, Some(1300.0));
    assert!(close(m.licence_usd_per_gpu_hour, 10.0 * 0.6 * 0.2));
    assert!(close(m.margin_usd_per_gpu_hour, 10.0 * 0.6 - 2.5 - 1.2));
    let per_gw_year = m.margin_usd_per_gw_year.expect("power");
    assert!(close(
        per_gw_year,
        m.margin_usd_per_gpu_hour * HOURS_PER_YEAR * 1e9 / 1300.0
    ));
    assert!(margin(10.0, 1.0, 2.5, 0.0, None)
        .margin_usd_per_gw_year
        .is_none());
}

#[test]
fn the_answer_states_its_assumptions_and_follows_its_identities() {
    let scenario = agentic("gpt-oss-120b", "h200-sxm", 8.0, 64.0);
    let decision = DecisionInput {
        licence_fee_pct: 10.0,
        billed_utilization: 0.7,
        fleet_agents: Some(1000.0),
        ..DecisionInput::default()
    };
    let found = answer(&scenario, &decision).expect("answer");
    let text = found.assumptions.join("\n");
    for needle in [
        "Session shape",
        "hit rate reached",
        "Power basis",
        "API prices",
        "as of",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    let margin = found.margin.expect("gpt-oss-120b has list prices");
    let sold = margin.revenue_usd_per_gpu_hour * 0.7;
    assert!(close(
        margin.margin_usd_per_gpu_hour,
        sold - margin.cost_usd_per_gpu_hour - 0.1 * sold
    ));
    let fleet = found.fleet.expect("fleet");
    assert!(
        fleet.gpus >= 8 && fleet.self_host_usd_per_month > 0.0 && fleet.api_usd_per_month > 0.0
    );
    let at_tier = found.figures_at_tier.expect("a tier point");
    assert!(at_tier.meets_tier);
    // Typed prices win over the list; the cached one is optional.
    let typed = DecisionInput {
        api_usd_per_m_input: Some(1.0),
        api_usd_per_m_output: Some(3.0),
        ..DecisionInput::default()
    };
    let rates = TokenRates::of(&found.at_agents);
    let prices = token_prices("gpt-oss-120b", &typed, &rates).expect("typed");
    assert_eq!(prices.basis, "typed");
    assert_eq!(prices.cached_or_input(), 1.0);
    // A model without list prices has none.
    assert!(token_prices("qwen3-8b", &DecisionInput::default(), &rates).is_none());
}

/// The fleet goes through the one sizing function's rules (issue 27 §3, §4): its GPUs are what
/// `decide::sizing::deploy` buys for the same output tokens/s at the replica's capacity, and
/// what the ceiling and whole servers give for the agents per replica; raising the ceiling never
/// adds GPUs; past one server, whole servers.
#[test]
fn the_fleet_is_sized_by_the_sizing_rules() {
    use servecost::decide::agents::fleet;
    use servecost::decide::plan::deployment_size;
    use servecost::decide::sizing::{deploy, SizingRules};
    let prices = TokenPrices {
        usd_per_m_input: 0.5,
        usd_per_m_cached_input: None,
        usd_per_m_output: 1.5,
        basis: "typed".into(),
    };
    // One replica of 8, and four replicas of TP 2 on the same 8 GPUs.
    for (tp, agents) in [(8.0, 32), (2.0, 24)] {
        let mut input = scenario_input("llama-3.3-70b", "h200-sxm", 8.0, f64::from(agents));
        input.tp = Some(tp);
        input.usd_per_gpu_hour = Some(3.0);
        let scenario = Scenario::try_from(input).expect("valid");
        let session = evaluate_sessions(&scenario, agents).expect("point");
        let gpus_per_replica = 8 / scenario.replicas;
        let agents_per_replica = f64::from(agents) / f64::from(scenario.replicas);
        let per_agent = session.point.output_tok_s / f64::from(agents);
        let mut last_gpus = u32::MAX;
        for ceiling in [0.5, 0.6, 0.7, 0.8, 0.9, 1.0] {
            for fleet_agents in [1, 7, 100, 1000] {
                let rules = SizingRules {
                    max_utilization: ceiling,
                    ..SizingRules::default()
                };
                let f = fleet(&scenario, &session, fleet_agents, &rules, &prices).expect("fleet");
                let same_traffic = deploy(
                    &scenario,
                    agents_per_replica * per_agent,
                    f64::from(fleet_agents) * per_agent,
                    &rules,
                )
                .expect("sized");
                assert_eq!(
                    f.gpus, same_traffic.gpus,
                    "TP {tp}, {fleet_agents} agents at {ceiling}"
                );
                let replicas = (f64::from(fleet_agents) / (ceiling * agents_per_replica))
                    .ceil()
                    .max(1.0) as u32;
                let (bought, gpus) = deployment_size(replicas, gpus_per_replica, 8);
                assert_eq!((f.replicas, f.gpus), (bought, gpus));
                assert!(
                    f.gpus <= 8 || f.gpus.is_multiple_of(8),
                    "whole servers: {f:?}"
                );
                assert!(f.utilization <= ceiling + 1e-9 || f.replicas == 1, "{f:?}");
                assert!(close(
                    f.self_host_usd_per_month,
                    f64::from(f.gpus) * 3.0 * servecost::physics::economics::HOURS_PER_MONTH
                ));
                if fleet_agents == 1000 {
                    assert!(f.gpus <= last_gpus, "raising the ceiling added GPUs: {f:?}");
                    last_gpus = f.gpus;
                }
            }
        }
    }
}

/// The agentic leaderboard searches the hardware leaderboard's layouts (`layout_tiers`): for an
/// MoE model EP and DEP rows appear; every row meets the tier when its own scenario is answered
/// again; rows are sorted by the ranked figure; the best-per-GPU board keeps one row per GPU ×
/// precision, the best of its layouts.
#[test]
fn the_agent_leaderboard_searches_the_hardware_leaderboards_layouts() {
    use servecost::decide::agents::{agent_leaderboard, agent_leaderboard_layouts, AgentRank};
    use servecost::decide::leaderboard::{layout_name, layout_tiers};
    let mut base = ScenarioInput {
        model: "qwen3-235b-a22b".into(),
        ..ScenarioInput::default()
    };
    SessionPreset::AgenticCoding.apply(&mut base);
    let decision = DecisionInput {
        gpus_allowed: Some(vec!["b200".into(), "h200-sxm".into()]),
        tok_s_per_user: Some(30.0),
        ..DecisionInput::default()
    };
    let searched: Vec<String> = layout_tiers(true, 8)
        .iter()
        .flatten()
        .map(|par| layout_name(*par))
        .collect();
    for rank in [AgentRank::AgentsPerMw, AgentRank::AgentsPerUsd] {
        let score = |row: &servecost::decide::agents::AgentRow| match rank {
            AgentRank::AgentsPerMw => row.agents_per_mw,
            AgentRank::AgentsPerUsd => row.agents_per_usd_hour,
        };
        let (all, _) = agent_leaderboard_layouts(&base, &decision, rank, true);
        let layouts: Vec<&str> = all.iter().map(|r| r.layout.as_str()).collect();
        assert!(layouts.iter().any(|l| l.starts_with("DEP")), "{layouts:?}");
        assert!(layouts.iter().any(|l| l.contains("× EP")), "{layouts:?}");
        assert!(all.iter().all(|r| searched.contains(&r.layout)));
        assert!(
            all.windows(2).all(|w| score(&w[0]) >= score(&w[1])),
            "{:?}",
            all.iter().map(score).collect::<Vec<_>>()
        );
        for row in &all {
            let scenario = Scenario::try_from(row.input.clone()).expect("the row's scenario");
            assert_eq!(scenario.total_gpus(), row.gpus);
            let again = answer(&scenario, &decision).expect("answer");
            let at_tier = again.figures_at_tier.expect("meets the tier");
            assert!(
                at_tier.meets_tier && at_tier.agents == row.agents,
                "{row:?}"
            );
        }
        let (best, _) = agent_leaderboard(&base, &decision, rank);
        assert!(best.windows(2).all(|w| score(&w[0]) >= score(&w[1])));
        for row in &best {
            let group: Vec<_> = all
                .iter()
                .filter(|r| (&r.gpu, r.precision) == (&row.gpu, row.precision))
                .collect();
            assert_eq!(
                best.iter()
                    .filter(|r| (&r.gpu, r.precision) == (&row.gpu, row.precision))
                    .count(),
                1
            );
            assert!(group.iter().all(|r| score(r) <= score(row)), "{row:?}");
        }
    }
}

fn run(args: &[&str]) -> servecost::cli::Outcome {
    servecost::cli::run(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
}

/// `estimate --workload agentic-coding` answers as agents, in text and JSON, with its
/// assumptions; `leaderboard --workload agentic-coding` ranks by agents per MW, best first.
#[test]
fn the_cli_answers_the_agentic_question() {
    let base = [
        "estimate",
        "--workload",
        "agentic-coding",
        "--model",
        "llama-3.3-70b",
        "--gpu",
        "h200-sxm",
        "--gpus",
        "8",
        "--tp",
        "8",
        "--concurrency",
        "32",
        "--tok-s-per-user",
        "30",
        "--fleet-agents",
        "500",
    ];
    let text = run(&base);
    assert_eq!(text.code, 0, "{}", text.stderr);
    for needle in [
        "agents at the tier",
        "per MW",
        "cached input",
        "margin per GPU-hour",
        "fleet of 500 agents",
        "Assumptions",
        "hit rate reached",
        "Power basis: catalog TDP",
    ] {
        assert!(text.stdout.contains(needle), "{needle}:\n{}", text.stdout);
    }
    let mut with_json = base.to_vec();
    with_json.push("--json");
    let json = run(&with_json);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(value["preset"], "agentic-coding");
    assert!(
        value["figures_at_tier"]["agents_per_mw"]
            .as_f64()
            .expect("per MW")
            > 0.0
    );
    assert!(
        value["margin"]["revenue_usd_per_gpu_hour"]
            .as_f64()
            .expect("revenue")
            > 0.0
    );
    let mut wrong = base.to_vec();
    wrong.push("--max-throughput");
    assert_eq!(run(&wrong).code, 2);

    let board = run(&[
        "leaderboard",
        "--workload",
        "agentic-coding",
        "--model",
        "llama-3.1-8b",
        "--gpus-allowed",
        "h100-sxm,h200-sxm,b200",
        "--tok-s-per-user",
        "30",
        "--json",
    ]);
    assert_eq!(board.code, 0, "{}", board.stderr);
    let value: serde_json::Value = serde_json::from_str(&board.stdout).expect("json");
    let rows = value["rows"].as_array().expect("rows");
    assert!(rows.len() >= 3, "{value}");
    let per_mw: Vec<f64> = rows
        .iter()
        .map(|r| r["agents_per_mw"].as_f64().expect("MW"))
        .collect();
    assert!(per_mw.windows(2).all(|w| w[0] >= w[1]), "{per_mw:?}");
    // The board states its assumptions as `estimate` does (issue 27 §4): session shape, hit
    // rate reached, power basis, prices with dates.
    let text = run(&[
        "leaderboard",
        "--workload",
        "agentic-coding",
        "--model",
        "llama-3.1-8b",
        "--gpus-allowed",
        "h100-sxm,b200",
        "--tok-s-per-user",
        "30",
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    for needle in [
        "Assumptions",
        "Session shape (Agentic coding)",
        "hit rate reached",
        "Power basis: each GPU's catalog TDP",
        "as of",
        "API prices",
        "layout",
    ] {
        assert!(text.stdout.contains(needle), "{needle}:\n{}", text.stdout);
    }
    let assumptions = value["assumptions"].as_array().expect("assumptions");
    assert!(assumptions.len() >= 5, "{value}");
}
