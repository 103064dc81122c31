//! Agentic sessions (issue 27 §1): the analytic steady state (`model::sessions`) against the
//! session simulator (`sim::sessions`) at the product's consistency bar (throughput within 10 %,
//! TPOT 15 %, TTFT 25 %), and the emergent prefix-hit rate falling once the sessions' contexts
//! exceed the KV pool, in both.

#![cfg(all(not(target_arch = "wasm32"), feature = "session-model"))]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use servecost::choice::Choice;
use servecost::model::sessions::{evaluate_sessions, SessionPoint};
use servecost::scenario::session_preset::SessionPreset;
use servecost::scenario::{Scenario, ScenarioInput};
use servecost::sim::sessions::{simulate_sessions, SessionSimConfig, SessionSimResult};

fn agentic(model: &str, gpu: &str) -> Scenario {
    let mut input = ScenarioInput {
        model: model.into(),
        gpu: gpu.into(),
        gpu_count: 1.0,
        tp: Some(1.0),
        ..ScenarioInput::small_reference()
    };
    SessionPreset::AgenticCoding.apply(&mut input);
    Scenario::try_from(input).expect("valid")
}

/// Both views of `agents` agents: the simulator runs 3 session cycles cold, then measures 57.
fn check(scenario: &Scenario, agents: u32) -> (SessionPoint, SessionSimResult) {
    let analytic = evaluate_sessions(scenario, agents).expect("session point");
    let cycle = analytic.cycle_s.max(0.1);
    let config = SessionSimConfig {
        seed: 7,
        warmup_s: 3.0 * cycle,
        horizon_s: 60.0 * cycle,
        max_iterations: 400_000,
    };
    let simulated = simulate_sessions(scenario, agents, &config).expect("simulated");
    (analytic, simulated)
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-12)
}

/// Where the sessions' contexts fit the KV pool, the analytic steady state and the simulator
/// agree within the product's consistency bar, and both reach the session's ideal hit rate.
#[test]
fn analytic_sessions_agree_with_the_simulator() {
    for (gpu, agents) in [("h200-sxm", 4), ("h200-sxm", 12), ("b200", 8), ("b200", 24)] {
        let scenario = agentic("llama-3.1-8b", gpu);
        let (analytic, simulated) = check(&scenario, agents);
        let case = format!("{gpu} x{agents}: {analytic:?}\n{simulated:?}");
        // The figures docs/VALIDATION-NOTES.md tabulates (`--nocapture` shows them).
        println!(
            "{gpu} x{agents}: tok/s {:.0} / {:.0}, TPOT {:.1} / {:.1} ms, TTFT {:.0} / {:.0} ms, hit {:.3} / {:.3}",
            analytic.point.output_tok_s,
            simulated.output_tok_s,
            analytic.point.tpot_ms,
            simulated.tpot_ms_mean,
            analytic.point.ttft_ms,
            simulated.ttft_ms_mean,
            analytic.hit_rate,
            simulated.hit_rate
        );
        assert!(analytic.converged, "{case}");
        assert!(
            !simulated.truncated && simulated.turns_measured > 100,
            "{case}"
        );
        assert!(
            relative(analytic.point.output_tok_s, simulated.output_tok_s) <= 0.10,
            "{case}"
        );
        assert!(
            relative(analytic.point.tpot_ms, simulated.tpot_ms_mean) <= 0.15,
            "{case}"
        );
        assert!(
            relative(analytic.point.ttft_ms, simulated.ttft_ms_mean) <= 0.25,
            "{case}"
        );
        assert!(
            (analytic.hit_rate - analytic.ideal_hit).abs() < 1e-6,
            "{case}"
        );
        assert!(
            (simulated.hit_rate - analytic.ideal_hit).abs() < 0.03,
            "{case}"
        );
    }
}

/// More sessions than the KV pool holds evict each other's contexts: the hit rate falls, in the
/// analytic approximation and in the simulator's LRU alike.
#[test]
fn the_hit_rate_falls_when_sessions_exceed_kv_capacity() {
    let scenario = agentic("llama-3.1-8b", "h100-sxm");
    let mut previous: Option<(f64, f64)> = None;
    for agents in [4, 16, 64] {
        let (analytic, simulated) = check(&scenario, agents);
        println!(
            "h100-sxm x{agents}: hit {:.3} / {:.3}",
            analytic.hit_rate, simulated.hit_rate
        );
        if let Some((analytic_before, simulated_before)) = previous {
            assert!(
                analytic.hit_rate < analytic_before,
                "{agents}: {analytic:?}"
            );
            assert!(
                simulated.hit_rate < simulated_before,
                "{agents}: {simulated:?}"
            );
        } else {
            // Four agents' contexts fit: nothing is evicted.
            assert!(analytic.retained > 0.999, "{analytic:?}");
            assert!(simulated.hit_rate > 0.9, "{simulated:?}");
        }
        previous = Some((analytic.hit_rate, simulated.hit_rate));
    }
    let (analytic, simulated) = check(&scenario, 64);
    assert!(
        analytic.retained < 0.1 && simulated.hit_rate < 0.1,
        "{analytic:?} {simulated:?}"
    );
}

/// The same seed gives the same run.
#[test]
fn the_session_simulator_is_deterministic() {
    let scenario = agentic("llama-3.1-8b", "h200-sxm");
    assert_eq!(check(&scenario, 6).1, check(&scenario, 6).1);
}

/// The session presets' ids are spelled once (the field table's constants): each preset's id
/// is a `#workload` choice, choosing it applies the preset, and reading the workload back
/// names it; every session choice of the table is a preset.
#[test]
fn preset_ids_are_the_workload_choices() {
    use servecost::scenario::fields::{
        AGENTIC_CODING_WORKLOAD, CHAT_MULTI_TURN_WORKLOAD, WORKLOAD,
    };
    let ids: Vec<&str> = SessionPreset::ALL.iter().map(|p| p.id()).collect();
    assert_eq!(ids, [AGENTIC_CODING_WORKLOAD, CHAT_MULTI_TURN_WORKLOAD]);
    let choices: Vec<&str> = WORKLOAD.choices.iter().map(|(id, _)| *id).collect();
    for preset in SessionPreset::ALL.iter().copied() {
        assert!(choices.contains(&preset.id()), "{choices:?}");
        assert_eq!(SessionPreset::parse(preset.id()), Some(preset));
        let mut input = ScenarioInput::default();
        WORKLOAD
            .set_scenario(&mut input, preset.id())
            .expect("sets");
        assert_eq!(SessionPreset::of_input(&input), Some(preset));
        assert_eq!(WORKLOAD.get_scenario(&input).as_deref(), Some(preset.id()));
    }
    let session_choices = choices
        .iter()
        .filter(|id| SessionPreset::parse(id).is_some())
        .count();
    assert_eq!(session_choices, SessionPreset::ALL.len());
}
