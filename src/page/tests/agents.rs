//! The agentic panel's data (`page::agents`, issue 27 §4): the mode select applies and leaves
//! the session presets, the view's curve doubles the agents and marks the tier, and the numbers
//! panel's rows and headline agree with the answer they show.

use crate::page::agents::{
    agent_view, economics_rows, headline, is_agentic, mode_of, point_rows, with_mode, MODE_OFF,
};
use crate::scenario::{DecisionInput, Scenario, ScenarioInput};

fn agentic(gpu: &str, gpus: f64) -> Scenario {
    let input = ScenarioInput {
        gpu: gpu.into(),
        gpu_count: gpus,
        usd_per_gpu_hour: crate::decide::pricing::price_when_unstated(gpu),
        concurrency: 32.0,
        ..ScenarioInput::small_reference()
    };
    let input = with_mode(&input, "agentic-coding").expect("a preset");
    Scenario::try_from(input).expect("valid")
}

#[test]
fn the_mode_select_enters_and_leaves_session_mode() {
    let plain = ScenarioInput::default();
    assert_eq!(mode_of(&plain), MODE_OFF);
    let coding = with_mode(&plain, "agentic-coding").expect("a preset");
    assert!(is_agentic(&coding));
    assert_eq!(mode_of(&coding), "agentic-coding");
    let chat = with_mode(&coding, "chat-multi-turn").expect("a preset");
    assert_eq!(mode_of(&chat), "chat-multi-turn");
    let off = with_mode(&chat, MODE_OFF).expect("off");
    assert!(!is_agentic(&off));
    assert_eq!(mode_of(&off), MODE_OFF);
    assert!(with_mode(&plain, "agentic").is_err());
}

#[test]
fn the_view_doubles_agents_and_its_rows_are_the_answers() {
    let scenario = agentic("h100-sxm", 1.0);
    let decision = DecisionInput {
        tok_s_per_user: Some(30.0),
        ..DecisionInput::default()
    };
    let view = agent_view(&scenario, &decision).expect("session mode");
    let agents: Vec<u32> = view.curve.iter().map(|p| p.agents).collect();
    assert_eq!(agents.first(), Some(&1));
    assert!(agents.windows(2).all(|w| w[1] > w[0] && w[1] <= 2 * w[0]));
    // More agents: less interactive, more agents per GPU.
    assert!(view
        .curve
        .windows(2)
        .all(|w| w[1].interactivity <= w[0].interactivity * 1.0001));
    let tier = view
        .answer
        .at_tier
        .as_ref()
        .expect("one agent meets 30 tok/s");
    let last_meeting = view.curve.iter().rev().find(|p| p.meets_tier);
    assert!(last_meeting.is_some_and(|p| p.agents <= tier.agents));
    let rows = point_rows(&view.answer);
    let per_gpu = rows.iter().find(|r| r.id == "per-gpu").expect("a row");
    assert_eq!(
        per_gpu.at_tier,
        crate::present::format::format_number(
            view.answer
                .figures_at_tier
                .as_ref()
                .expect("figures")
                .agents_per_gpu
        )
    );
    let economics = economics_rows(&view.answer);
    assert!(economics
        .iter()
        .any(|(id, _, _)| *id == "usd-per-m-cached-input"));
    let line = headline(&scenario, &view.answer);
    assert!(line.contains("per GPU") && line.contains("P90"), "{line}");
}

#[test]
fn a_single_request_scenario_has_no_agentic_view() {
    let scenario = Scenario::try_from(ScenarioInput::small_reference()).expect("valid");
    assert!(agent_view(&scenario, &DecisionInput::default()).is_none());
}

/// The panel's mode select is the `workload` field's edit on the page state: a preset puts the
/// view in session mode (the slider's unit becomes agents), "off" leaves it.
#[test]
fn the_page_state_enters_and_leaves_agentic_mode() {
    use crate::page::state::{Action, State};
    use crate::scenario::fields::WORKLOAD;
    let state = State::initial();
    let agentic = super::apply(&state, Action::Edit(&WORKLOAD, "agentic-coding".into()));
    let view = super::shown(&agentic);
    assert!(is_agentic(&view.scenario.input));
    assert!(crate::share::encode(&agentic.view_state()).contains("session-turns=20"));
    let off = super::apply(&agentic, Action::Edit(&WORKLOAD, "chat".into()));
    assert!(!is_agentic(&super::shown(&off).scenario.input));
}

/// The page runs the agentic leaderboard a GPU × precision at a time; merged and ranked, the
/// parts are the whole board, and its request ignores what the slider and the GPU controls
/// change.
#[test]
fn the_agentic_leaderboard_in_parts_is_the_whole_board() {
    use crate::decide::agents::{agent_leaderboard, AgentRank};
    use crate::page::leaderboard::agentic::{agent_request, cells, items, part, rank_rows};
    let mut input = with_mode(&ScenarioInput::small_reference(), "agentic-coding").expect("preset");
    let decision = DecisionInput {
        gpus_allowed: Some(vec!["h100-sxm".into(), "l40s".into(), "b200".into()]),
        tok_s_per_user: Some(30.0),
        ..DecisionInput::default()
    };
    let base = agent_request(&input).expect("agentic");
    input.concurrency = 77.0;
    input.gpu = "b200".into();
    assert_eq!(agent_request(&input), Some(base.clone()));
    assert_eq!(agent_request(&ScenarioInput::default()), None);
    for rank in [AgentRank::AgentsPerMw, AgentRank::AgentsPerUsd] {
        let (whole, _) = agent_leaderboard(&base, &decision, rank);
        let mut merged = Vec::new();
        for item in items(&decision) {
            merged.extend(part(&base, &decision, rank, &item).0);
        }
        rank_rows(&mut merged, rank);
        assert_eq!(merged, whole);
        assert!(!whole.is_empty());
        assert_eq!(cells(&whole[0])[0], whole[0].gpu);
    }
}
