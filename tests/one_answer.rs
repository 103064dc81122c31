//! Issue 26 §1, one question, one answer: "how many GPUs, and what per month, for 30 req/s of
//! chat at P90 TTFT ≤ 500 ms and TPOT ≤ 40 ms?" (Llama 3.1 70B FP8) asked through `servecost
//! plan`, the page's Plan, the Cost panel after Apply and the client report gets the same GPUs
//! and $/month, because each of them sizes through `decide::sizing::size`.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use servecost::choice::Choice;
use servecost::decide::sizing::{size_configuration, SizingRules};
use servecost::page::decision_data::{decide, Demand};
use servecost::page::decisions::{plan_price_tier, plan_request};
use servecost::page::report::{client_report, ReportContext};
use servecost::present::format::usd_amount;
use servecost::scenario::{DecisionInput, Scenario, ScenarioInput, TrafficUnit};
use servecost::share::ViewState;
use std::process::Command;

const GPUS: &str = "h100-sxm,h200-sxm";

fn question() -> (ScenarioInput, DecisionInput) {
    let mut base = ScenarioInput {
        model: "llama-3.1-70b".into(),
        precision: servecost::physics::precision::Precision::Fp8,
        ..ScenarioInput::default()
    };
    base.apply_workload_preset("chat").expect("preset");
    let decision = DecisionInput {
        slo_ttft_ms: Some(500.0),
        slo_tpot_ms: Some(40.0),
        slo_percentile: 90.0,
        traffic: Some(30.0),
        traffic_unit: TrafficUnit::RequestsPerS,
        gpus_allowed: Some(GPUS.split(',').map(str::to_string).collect()),
        precisions_allowed: vec![servecost::physics::precision::Precision::Fp8],
        ..DecisionInput::default()
    };
    (base, decision)
}

#[test]
fn the_procurement_question_gets_one_answer_from_every_surface() {
    let (base, decision) = question();
    let scenario = Scenario::try_from(base.clone()).expect("the page's scenario");
    let traffic_tok_s = 30.0 * scenario.workload.output_mean;

    // The page's Plan panel.
    let tier = plan_price_tier(&scenario, &decision, false);
    let allowed = decision.gpus_allowed.clone().unwrap_or_default();
    let request =
        plan_request(&scenario, &decision, tier, traffic_tok_s, allowed, 5).expect("a request");
    let plan = servecost::decide::plan::plan(&request).expect("plans");
    let best = plan.candidates.first().expect("a deployment meets the SLO");
    assert_eq!(best.latency_method.id(), "simulated");
    let checked = best
        .at_traffic
        .expect("checked at the traffic in the simulator");
    assert!(
        checked.ttft_ms <= 500.0 && checked.tpot_ms <= 40.0,
        "{checked:?}"
    );
    assert!(
        best.utilization <= 0.8 + 1e-9,
        "the plan's ceiling: {}",
        best.utilization
    );

    // The CLI's plan.
    let output = Command::new(env!("CARGO_BIN_EXE_servecost"))
        .args([
            "plan",
            "--model",
            "llama-3.1-70b",
            "--workload",
            "chat",
            "--precisions-allowed",
            "fp8",
            "--gpus-allowed",
            GPUS,
            "--traffic-req-s",
            "30",
            "--slo-ttft-ms",
            "500",
            "--slo-tpot-ms",
            "40",
            "--slo-percentile",
            "90",
            "--json",
        ])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let cli = &json[0];
    assert_eq!(cli["gpu"], best.gpu.as_str());
    assert_eq!(cli["total_gpus"].as_u64(), Some(u64::from(best.total_gpus)));
    let cli_month = cli["usd_per_month"].as_f64().expect("$/month");
    assert!(
        (cli_month - best.usd_per_month).abs() < 0.01,
        "{cli_month} vs {}",
        best.usd_per_month
    );

    // Apply, then the Cost panel (and Compare) on the applied configuration.
    let applied = servecost::decide::sizing::candidate_input(&scenario.input, best);
    let applied_scenario = Scenario::try_from(applied.clone()).expect("applies");
    let slo = Some(servecost::scenario::Slo {
        ttft_ms: 500.0,
        tpot_ms: 40.0,
        percentile: 90.0,
    });
    let cost_panel = decide(&applied_scenario, Demand::of(&decision, slo))
        .sized
        .expect("a traffic is set")
        .expect("the applied configuration carries it");
    assert_eq!(cost_panel.sizing.gpus, best.total_gpus);
    let month = cost_panel.sizing.usd_per_month.expect("priced");
    assert!(
        (month - best.usd_per_month).abs() < 0.01,
        "{month} vs {}",
        best.usd_per_month
    );
    assert_eq!(cost_panel.point.concurrency, best.concurrency);
    let direct = size_configuration(
        &applied_scenario,
        traffic_tok_s,
        slo.as_ref(),
        &SizingRules::of(&decision),
    )
    .expect("sized");
    assert_eq!(direct, cost_panel);

    // The client report of the applied view says the same in its sizing row and plan.
    let view = ViewState {
        scenario: applied,
        decision: DecisionInput {
            // The report's leaderboard runs over the same two GPUs, to stay quick.
            ..decision.clone()
        },
        ..ViewState::default()
    };
    let report = client_report(&view, &ReportContext::default()).expect("a report");
    let sizing_row = format!("{} GPUs", best.total_gpus);
    let amount = usd_amount(best.usd_per_month);
    let row = report
        .split("This configuration for that traffic")
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the sizing row");
    assert!(row.contains(&sizing_row) && row.contains(&amount), "{row}");
    // The same answer carries its range, goodput and the API comparison for the traffic
    // (issue 26 §7–9).
    assert!(
        row.contains("Range: ") && row.contains("expected throughput error"),
        "{row}"
    );
    assert!(report.contains("Max req/s under the SLO (simulated goodput)"));
    let goodput = report
        .split("Max req/s under the SLO")
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .unwrap_or_default();
    assert!(
        goodput.contains("ttft_ms ≤ 500, tpot_ms ≤ 40 for 90 % of requests"),
        "{goodput}"
    );
    assert!(report.contains("SLO attainment at the traffic (simulated)"));
    assert!(report.contains("For the traffic, ") && report.contains("API $/month for the traffic"));
}

/// Issue 26 §2: with an SLO set, "auto" TP sizes the layout that meets it most cheaply and says
/// so. Llama 3.1 70B FP8 on 8 × H200: the default rule's TP 1 needs far more GPUs for 30 req/s
/// at P90 TTFT ≤ 500 ms and TPOT ≤ 40 ms than the TP auto now chooses, and switching between
/// H100 and H200 compares each GPU's best layout.
#[test]
fn auto_tp_chooses_the_cheapest_layout_meeting_the_slo() {
    let (mut base, decision) = question();
    base.gpu = "h200-sxm".into();
    base.usd_per_gpu_hour = servecost::decide::pricing::price_when_unstated("h200-sxm");
    let slo = servecost::scenario::Slo {
        ttft_ms: 500.0,
        tpot_ms: 40.0,
        percentile: 90.0,
    };
    let rules = SizingRules::of(&decision);
    let auto = Scenario::try_from(base.clone()).expect("valid");
    let traffic = 30.0 * auto.workload.output_mean;
    let sized = size_configuration(&auto, traffic, Some(&slo), &rules).expect("sized");
    let layout = sized.layout.clone().expect("auto says how it chose");
    assert!(layout.starts_with("auto chose TP "), "{layout}");
    let chosen = sized.layout_par.expect("the chosen layout").tp;
    assert!(
        layout.starts_with(&format!("auto chose TP {chosen}:")),
        "{layout}"
    );
    println!("{layout}: {} GPUs", sized.sizing.gpus);
    // Each TP by hand: the auto choice is the cheapest of them (by the analytic sizing that
    // ranks them, then checked in the simulator).
    for tp in [1.0, 2.0, 4.0, 8.0] {
        let typed = Scenario::try_from(ScenarioInput {
            tp: Some(tp),
            ..base.clone()
        });
        let Ok(typed) = typed else { continue };
        if let Ok(by_hand) = size_configuration(&typed, traffic, Some(&slo), &rules) {
            assert!(by_hand.layout.is_none(), "a typed TP is not auto");
            assert!(
                sized.sizing.gpus <= by_hand.sizing.gpus,
                "auto {} GPUs vs TP {tp} {} GPUs ({layout})",
                sized.sizing.gpus,
                by_hand.sizing.gpus
            );
        }
    }
    // Without an SLO the default rule stands, and says which.
    let plain = size_configuration(&auto, traffic, None, &rules).expect("sized");
    assert!(plain
        .layout
        .expect("says")
        .contains("the smallest TP that fits"));
}

/// Issue 26 §2 on the page: the explorer draws the layout auto chose for the question asked, not
/// the default rule's. With the SLO alone (no traffic) on 8 × H200, the decision picks the layout
/// with the most tok/s per GPU meeting it; applied as the tools module applies it, the view's
/// scenario runs that layout while the input still says auto (links keep "auto"), and the
/// decision on the drawn scenario chooses the same layout again (no flip-flop). Without a target
/// the default rule stands.
#[test]
fn the_page_draws_the_layout_auto_chose() {
    use servecost::page::knobs::{layout_key, AutoLayout, KnobAction};
    use servecost::page::state::{Action, State};
    let (mut base, decision) = question();
    base.gpu = "h200-sxm".into();
    let state = State::from_input(base.clone());
    let view = state.view.clone().expect("a view");
    assert!(view.scenario.tp_auto, "the default rule before a choice");
    let slo = servecost::scenario::Slo {
        ttft_ms: 500.0,
        tpot_ms: 40.0,
        percentile: 90.0,
    };
    let demand = Demand {
        traffic: None,
        ..Demand::of(&decision, Some(slo))
    };
    let choice = decide(&view.scenario, demand)
        .layout
        .expect("auto chooses for the SLO");
    assert!(choice.why.starts_with("auto chose "), "{}", choice.why);
    assert!(choice.why.contains("P90 TTFT ≤ 500 ms"), "{}", choice.why);
    assert_ne!(
        choice.par.tp, view.scenario.par.tp,
        "H200 at TP 1 (the smallest that fits) is not the cheapest under this SLO: {}",
        choice.why
    );
    let applied = state
        .apply(Action::Knob(KnobAction::AutoLayout(Some(AutoLayout {
            key: layout_key(&view.scenario.input),
            tp: choice.par.tp,
            ep: choice.par.ep,
            why: choice.why.clone(),
        }))))
        .expect("the choice changes the view");
    let drawn = applied.view.clone().expect("a view");
    assert_eq!(drawn.scenario.par.tp, choice.par.tp);
    assert_eq!(drawn.scenario.input.tp, None, "the link keeps auto");
    assert_eq!(
        decide(&drawn.scenario, demand).layout.map(|c| c.par),
        Some(choice.par),
        "the drawn scenario's decision keeps the choice"
    );
    // A choice made for another scenario does not apply.
    let other = applied
        .apply(Action::Edit(
            &servecost::scenario::fields::GPU,
            "h100-sxm".into(),
        ))
        .expect("edited");
    assert!(other.view.expect("a view").scenario.tp_auto);
    // No target: no choice, the default rule.
    let none = Demand {
        slo: None,
        traffic: None,
        ..Demand::of(&decision, None)
    };
    assert_eq!(decide(&view.scenario, none).layout, None);
}
