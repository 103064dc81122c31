//! What the decision panels derive (`page::decision_data`): the SLO verdict and capacity point
//! of a scenario, evaluated pins, and the chart overlay of pinned curves and SLO misses.

use crate::choice::Choice;
use crate::model::{evaluate, sweep};
use crate::page::decision_data::{decide, evaluate_pin, overlay, slo_miss_label, Demand};
use crate::page::pins::pin_label;
use crate::scenario::Slo;
use crate::scenario::{Scenario, ScenarioInput};

fn scenario() -> Scenario {
    Scenario::default_scenario().expect("the default scenario")
}

fn slo(ttft_ms: f64, tpot_ms: f64) -> Slo {
    Slo {
        ttft_ms,
        tpot_ms,
        percentile: 90.0,
    }
}

#[test]
fn without_an_slo_the_capacity_is_the_max_throughput_point() {
    let scenario = scenario();
    let decision = decide(&scenario, Demand::slo(None));
    assert_eq!(decision.sweep, None);
    let (point, tails) = decision.capacity.expect("a capacity");
    assert_eq!(tails, None);
    assert_eq!(
        point,
        evaluate(&scenario.with_concurrency(crate::model::capacity::max_feasible(&scenario)))
    );
}

#[test]
fn a_loose_slo_is_met_and_an_impossible_one_leaves_no_capacity() {
    let scenario = scenario();
    let loose = decide(&scenario, Demand::slo(Some(slo(1e9, 1e9))));
    let (point, tails) = loose.capacity.expect("met");
    assert!(tails.is_some(), "sized with its tails");
    let sweep = loose.sweep.as_ref().expect("judged");
    assert!(sweep.checks.iter().filter(|c| c.fits).all(|c| c.meets));
    assert!(point.fits);

    let impossible = decide(&scenario, Demand::slo(Some(slo(1e-3, 1e-3))));
    assert_eq!(impossible.capacity, None);
    let checks = &impossible.sweep.as_ref().expect("judged").checks;
    assert!(checks.iter().any(|c| c.fits), "points fit, none meets");
    assert!(checks.iter().all(|c| !c.meets));
}

#[test]
fn the_overlay_marks_the_fitting_points_that_miss_the_slo() {
    let scenario = scenario();
    let missed = decide(&scenario, Demand::slo(Some(slo(1e-3, 1e-3))));
    let fitting: Vec<u32> = missed
        .sweep
        .as_ref()
        .expect("judged")
        .checks
        .iter()
        .filter(|c| c.fits)
        .map(|c| c.concurrency)
        .collect();
    let marked = overlay(&missed, &[], None);
    assert!(!fitting.is_empty());
    assert_eq!(marked.slo_missed, fitting);
    assert_eq!(marked.slo_label, "misses P90 SLO");
    assert!(marked.pins.is_empty());

    let plain = overlay(&decide(&scenario, Demand::slo(None)), &[], None);
    assert!(plain.slo_missed.is_empty());
    assert_eq!(plain.slo_label, "");
    let met = overlay(
        &decide(&scenario, Demand::slo(Some(slo(1e9, 1e9)))),
        &[],
        None,
    );
    assert!(met.slo_missed.is_empty(), "nothing missed");
}

#[test]
fn pins_are_evaluated_labelled_and_drawn_and_a_broken_one_is_named() {
    let good = ScenarioInput {
        model: "llama-3.1-8b".into(),
        ..ScenarioInput::default()
    };
    let broken = ScenarioInput {
        model: "no-such-model".into(),
        ..ScenarioInput::default()
    };
    let pinned = [
        evaluate_pin(&good, Demand::slo(None)),
        evaluate_pin(&broken, Demand::slo(None)),
    ];
    let [first, second] = &pinned;
    assert_eq!(first.label, pin_label(&good));
    let (scenario, curve, decision) = first.evaluated.as_ref().expect("valid");
    assert_eq!(*curve, sweep(scenario));
    assert!(decision.capacity.is_some());
    let why = second.evaluated.as_ref().expect_err("no such model");
    assert!(why.starts_with("model: "), "{why}");

    let drawn = overlay(&decide(&self::scenario(), Demand::slo(None)), &pinned, None);
    let labels: Vec<&str> = drawn.pins.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            format!("pin 1: {}", first.label),
            format!("pin 2: {}", second.label)
        ]
    );
    let fitting = curve.points.iter().filter(|p| p.fits).count();
    assert_eq!(drawn.pins.first().map(|p| p.points.len()), Some(fitting));
    assert_eq!(
        drawn.pins.get(1).map(|p| p.points.len()),
        Some(0),
        "a broken pin draws nothing"
    );
}

#[test]
fn a_pin_is_judged_against_the_slo_too() {
    let pin = evaluate_pin(
        &ScenarioInput::default(),
        Demand::slo(Some(slo(1e-3, 1e-3))),
    );
    let (_, _, decision) = pin.evaluated.expect("valid");
    assert!(decision.sweep.is_some());
    assert_eq!(decision.capacity, None);
}

#[test]
fn the_miss_label_names_the_percentile_as_typed() {
    let tail = |percentile| Slo {
        ttft_ms: 1.0,
        tpot_ms: 1.0,
        percentile,
    };
    assert_eq!(slo_miss_label(&tail(90.0)), "misses P90 SLO");
    assert_eq!(slo_miss_label(&tail(99.9)), "misses P99.9 SLO");
}

/// Issue 26 §1 and §8: with an SLO and a traffic the decision holds the one sizing's answer, the
/// simulated goodput of the configuration and its SLO attainment at the traffic; the sizing
/// stays within the plan's ceiling and the attainment at a traffic the sizing carries meets
/// the percentile's goal on the sized deployment's replicas.
#[test]
fn with_an_slo_and_a_traffic_the_decision_sizes_and_carries_goodput() {
    use crate::scenario::{DecisionInput, TrafficUnit};
    let scenario = Scenario::try_from(ScenarioInput {
        model: "llama-3.1-8b".into(),
        gpu_count: 2.0,
        ..ScenarioInput::default()
    })
    .expect("valid");
    let decision_input = DecisionInput {
        traffic: Some(5.0),
        traffic_unit: TrafficUnit::RequestsPerS,
        ..DecisionInput::default()
    };
    let tight = slo(1500.0, 50.0);
    let decision = decide(&scenario, Demand::of(&decision_input, Some(tight)));
    let sized = decision
        .sized
        .expect("a traffic is set")
        .expect("the configuration carries it");
    assert!(sized.sizing.utilization <= 0.8 + 1e-9);
    assert_eq!(sized.method.id(), "simulated");
    let goodput = decision.goodput.expect("an SLO is set");
    assert!(
        goodput.max_req_s > 0.0 && goodput.target == 0.9,
        "{goodput:?}"
    );
    assert_eq!(goodput.replicas, scenario.replicas);
    let attainment = decision.attainment_at_traffic.expect("SLO and traffic");
    assert!((0.0..=1.0).contains(&attainment));
    // Below the goodput rate the attainment meets the goal.
    if 5.0 < goodput.max_req_s {
        assert!(
            attainment >= 0.9,
            "{attainment} at 5 req/s, goodput {goodput:?}"
        );
    }
    // Without an SLO there is no goodput.
    let none = decide(&scenario, Demand::of(&decision_input, None));
    assert_eq!(none.goodput, None);
    assert_eq!(none.attainment_at_traffic, None);
}
