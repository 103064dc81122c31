//! The decision tools' state (`page::decisions`) over the decision fields of the field table
//! (`scenario::fields`, group `Decision`) and `DecisionInput::validate`: the SLO, traffic in
//! either unit, the offered load and its unit, energy, the plan GPUs, blend ratios, and a bad
//! text that keeps the last good value.

use crate::decide::pricing::DEFAULT_INPUT_PER_OUTPUT;
use crate::page::decisions::{
    sig_text, Blend, DecisionAction, DecisionInput, DecisionState, LoadUnit, PlanStatus,
    TrafficUnit,
};
use crate::physics::economics::Energy;
use crate::scenario::fields::{
    Field, BLEND, ENERGY, ENERGY_PUE, ENERGY_USD_PER_KWH, GPUS_ALLOWED, OFFERED_LOAD,
    OFFERED_LOAD_UNIT, SLO_PERCENTILE, SLO_TPOT_MS, SLO_TTFT_MS, TRAFFIC, TRAFFIC_UNIT,
};
use crate::scenario::Slo;

/// The chat workload's mean lengths (the default scenario's).
const INPUT_LEN: f64 = 1155.0;
const OUTPUT_LEN: f64 = 211.0;

fn edit(state: &DecisionState, field: &'static Field, text: &str) -> DecisionState {
    state.apply(DecisionAction::Edit(field, text.into()))
}

/// The keys of the fields in error.
fn error_keys(state: &DecisionState) -> Vec<&'static str> {
    state.errors.iter().map(|(field, _)| field.key).collect()
}

#[test]
fn the_defaults_set_no_slo_no_energy_and_ten_requests_per_second() {
    let state = DecisionState::default();
    assert_eq!(state.slo(), None);
    assert_eq!(state.energy(), None);
    assert_eq!(state.traffic_req_s(INPUT_LEN, OUTPUT_LEN), Some(10.0));
    assert_eq!(state.utilization(1000.0), (0.5, false));
    assert!(state.errors.is_empty());
    assert_eq!(state.input, DecisionInput::default());
    assert_eq!(state.text(&SLO_PERCENTILE), "90");
    assert_eq!(state.text(&SLO_TTFT_MS), "", "unset");
    assert_eq!(state.text(&TRAFFIC_UNIT), "req-s");
}

#[test]
fn one_target_sets_an_slo_and_the_other_does_not_constrain() {
    let state = edit(&DecisionState::default(), &SLO_TTFT_MS, "2000");
    assert_eq!(
        state.slo(),
        Some(Slo {
            ttft_ms: 2000.0,
            tpot_ms: f64::INFINITY,
            percentile: 90.0,
        })
    );
    let both = edit(&state, &SLO_TPOT_MS, "50");
    let both = edit(&both, &SLO_PERCENTILE, "99");
    assert_eq!(
        both.slo(),
        Some(Slo {
            ttft_ms: 2000.0,
            tpot_ms: 50.0,
            percentile: 99.0,
        })
    );
    let cleared = edit(&edit(&both, &SLO_TTFT_MS, ""), &SLO_TPOT_MS, " ");
    assert_eq!(cleared.slo(), None, "blank targets are unset");
}

#[test]
fn a_bad_text_names_its_field_and_keeps_the_last_good_value() {
    let state = edit(&DecisionState::default(), &SLO_TPOT_MS, "30");
    let bad = edit(&state, &SLO_TPOT_MS, "fast");
    let message = bad.error(&SLO_TPOT_MS).expect("an error");
    assert!(message.contains("not a number"), "{message}");
    assert_eq!(bad.input.slo_tpot_ms, Some(30.0), "the last good value");
    assert_eq!(bad.text(&SLO_TPOT_MS), "fast", "the text as typed");
    assert_eq!(bad.error(&SLO_TTFT_MS), None, "only that field");
    let fixed = edit(&bad, &SLO_TPOT_MS, "40");
    assert!(fixed.errors.is_empty());
    assert_eq!(fixed.input.slo_tpot_ms, Some(40.0));
    let negative = edit(&state, &SLO_TPOT_MS, "-1");
    assert!(negative.error(&SLO_TPOT_MS).is_some());
    assert_eq!(negative.input.slo_tpot_ms, Some(30.0));
}

#[test]
fn a_bad_field_stays_an_error_while_another_field_changes() {
    let bad = edit(&DecisionState::default(), &SLO_TPOT_MS, "fast");
    let other = edit(&bad, &SLO_TTFT_MS, "800");
    assert_eq!(error_keys(&other), ["slo-tpot-ms"]);
    assert_eq!(other.input.slo_ttft_ms, Some(800.0), "the good one applies");
    assert_eq!(other.input.slo_tpot_ms, None);
}

#[test]
fn a_required_field_left_blank_or_out_of_range_keeps_its_value() {
    let state = DecisionState::default();
    let blank = edit(&state, &SLO_PERCENTILE, "");
    assert_eq!(blank.error(&SLO_PERCENTILE), Some("enter a number"));
    assert_eq!(blank.input.slo_percentile, 90.0);
    let pue = edit(&state, &ENERGY_PUE, "5");
    assert!(pue.error(&ENERGY_PUE).is_some());
    assert_eq!(pue.input.energy_pue, 1.3);
}

#[test]
fn an_out_of_range_percentile_keeps_the_last_good_value_and_names_its_field() {
    let state = edit(&DecisionState::default(), &SLO_PERCENTILE, "95");
    for bad in ["40", "100", "99.999"] {
        let low = edit(&state, &SLO_PERCENTILE, bad);
        assert_eq!(error_keys(&low), ["slo-percentile"], "{bad}");
        let message = low.error(&SLO_PERCENTILE).expect("an error");
        assert!(message.contains("from 50 to 99.99"), "{message}");
        assert_eq!(low.input.slo_percentile, 95.0, "the last good value");
        assert_eq!(low.text(&SLO_PERCENTILE), bad, "the text as typed");
        assert!(low.input.validate().is_ok());
    }
}

#[test]
fn traffic_in_either_unit_is_the_same_traffic() {
    // The state part of the browser test `an_slo_and_a_traffic_volume_size_the_deployment`:
    // 10 req/s of 1155 + 211 tokens is 1.18 billion tokens a day.
    let state = DecisionState::default();
    assert_eq!(
        state.traffic_text(TrafficUnit::TokensPerDay, INPUT_LEN, OUTPUT_LEN),
        "1180000000"
    );
    assert_eq!(
        state.traffic_text(TrafficUnit::RequestsPerS, INPUT_LEN, OUTPUT_LEN),
        "10",
        "as typed"
    );
    let per_day = state.apply(DecisionAction::EditTraffic(
        TrafficUnit::TokensPerDay,
        "118022400".into(),
    ));
    assert_eq!(per_day.input.traffic_unit, TrafficUnit::TokensPerDay);
    assert_eq!(per_day.text(&TRAFFIC_UNIT), "tokens-per-day");
    let req_s = per_day
        .traffic_req_s(INPUT_LEN, OUTPUT_LEN)
        .expect("a traffic");
    assert!((req_s - 1.0).abs() < 1e-9, "{req_s}");
    assert_eq!(
        per_day.traffic_text(TrafficUnit::RequestsPerS, INPUT_LEN, OUTPUT_LEN),
        "1"
    );
    assert_eq!(
        per_day.traffic_text(TrafficUnit::TokensPerDay, INPUT_LEN, OUTPUT_LEN),
        "118022400"
    );
    let back = per_day.apply(DecisionAction::EditTraffic(
        TrafficUnit::RequestsPerS,
        "2".into(),
    ));
    assert_eq!(back.input.traffic_unit, TrafficUnit::RequestsPerS);
    assert_eq!(back.input.traffic, Some(2.0));
    // The plan's unit, output tokens/s (`servecost plan --traffic-tok-s`), is the same set's
    // third: 2110 output tok/s of 211-token answers is 10 req/s.
    let tok_s = edit(&edit(&state, &TRAFFIC_UNIT, "tok-s"), &TRAFFIC, "2110");
    assert_eq!(tok_s.input.traffic_unit, TrafficUnit::OutputTokS);
    assert_eq!(
        tok_s.traffic_text(TrafficUnit::RequestsPerS, INPUT_LEN, OUTPUT_LEN),
        "10"
    );
    let none = edit(&state, &TRAFFIC, "");
    assert_eq!(none.traffic_req_s(INPUT_LEN, OUTPUT_LEN), None);
    assert_eq!(
        none.traffic_text(TrafficUnit::TokensPerDay, INPUT_LEN, OUTPUT_LEN),
        ""
    );
    let grouped = edit(&state, &TRAFFIC, "1,000");
    assert_eq!(grouped.input.traffic, Some(1000.0));
}

#[test]
fn the_offered_load_is_a_utilization_in_either_unit_capped_at_full() {
    let state = DecisionState::default();
    let half = edit(&state, &OFFERED_LOAD, "50");
    assert_eq!(half.utilization(1234.0), (0.5, false));
    let too_much = edit(&state, &OFFERED_LOAD, "150");
    assert_eq!(error_keys(&too_much), ["offered-load"], "over 100 %");
    assert_eq!(too_much.input.offered_load, 50.0);
    // Switching the unit re-reads the same text in the new unit.
    let tok_s = edit(&too_much, &OFFERED_LOAD_UNIT, "tok-s");
    assert!(tok_s.errors.is_empty(), "{:?}", tok_s.errors);
    assert_eq!(tok_s.input.load_unit, LoadUnit::OutputTokS);
    assert_eq!(tok_s.input.offered_load, 150.0);
    assert_eq!(tok_s.utilization(300.0), (0.5, false));
    assert_eq!(tok_s.utilization(100.0), (1.0, true), "capped and flagged");
    assert_eq!(
        tok_s.utilization(0.0),
        (1.0, false),
        "no capacity to compare"
    );
}

/// A unit switch re-validates the offered load: 5000 tok/s is no percentage, so switching to
/// percent names `offered-load`, and what stays in use is still a valid decision input.
#[test]
fn a_unit_switch_revalidates_the_offered_load() {
    let tok_s = edit(
        &edit(&DecisionState::default(), &OFFERED_LOAD_UNIT, "tok-s"),
        &OFFERED_LOAD,
        "5000",
    );
    assert!(tok_s.errors.is_empty(), "{:?}", tok_s.errors);
    assert_eq!(tok_s.utilization(10_000.0), (0.5, false));
    let percent = edit(&tok_s, &OFFERED_LOAD_UNIT, "percent");
    assert_eq!(error_keys(&percent), ["offered-load"]);
    let message = percent.error(&OFFERED_LOAD).expect("an error");
    assert!(message.contains("% of capacity"), "{message}");
    assert_eq!(percent.text(&OFFERED_LOAD), "5000", "the text as typed");
    // A percentage typed after the switch fixes it.
    let fixed = edit(&percent, &OFFERED_LOAD, "25");
    assert!(fixed.errors.is_empty(), "{:?}", fixed.errors);
    assert_eq!(fixed.input.load_unit, LoadUnit::PercentOfCapacity);
    assert_eq!(fixed.utilization(1000.0), (0.25, false));
    // While in error, the numbers use the last good input, which must itself be valid (not
    // 5000 % of capacity, capped to 100 % and flagged).
    assert!(
        percent.input.validate().is_ok(),
        "the input in use is valid: {:?}",
        percent.input
    );
}

#[test]
fn energy_counts_only_when_switched_on() {
    let state = DecisionState::default();
    let on = edit(&state, &ENERGY, "on");
    assert_eq!(
        on.energy(),
        Some(Energy {
            usd_per_kwh: 0.10,
            pue: 1.3,
        })
    );
    let priced = edit(&on, &ENERGY_USD_PER_KWH, "$0.25");
    assert_eq!(priced.energy().map(|e| e.usd_per_kwh), Some(0.25));
    assert_eq!(edit(&priced, &ENERGY, "off").energy(), None);
    let unknown = edit(&on, &ENERGY, "maybe");
    assert_eq!(error_keys(&unknown), ["energy"]);
    assert!(unknown.energy().is_some(), "the last good switch");
}

#[test]
fn toggling_a_plan_gpu_starts_from_the_full_list() {
    let all: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let toggle = |state: &DecisionState, gpu: &str, allowed: bool| {
        state.apply(DecisionAction::TogglePlanGpu {
            gpu: gpu.into(),
            allowed,
            all: all.clone(),
        })
    };
    let state = DecisionState::default();
    assert_eq!(state.input.gpus_allowed, None, "every GPU");
    let without_b = toggle(&state, "b", false);
    assert_eq!(
        without_b.input.gpus_allowed,
        Some(["a", "c"].map(String::from).to_vec())
    );
    assert_eq!(without_b.text(&GPUS_ALLOWED), "a,c", "the text follows");
    let back = toggle(&without_b, "b", true);
    assert_eq!(
        back.input.gpus_allowed,
        Some(["a", "c", "b"].map(String::from).to_vec())
    );
    let twice = toggle(&back, "b", true);
    assert_eq!(
        twice.input.gpus_allowed, back.input.gpus_allowed,
        "no duplicate"
    );
    // The text reads back as the same list (a later re-parse keeps it).
    let other = edit(&without_b, &SLO_TTFT_MS, "900");
    assert_eq!(other.input.gpus_allowed, without_b.input.gpus_allowed);
    let typed = edit(&state, &GPUS_ALLOWED, " a , c ");
    assert_eq!(typed.input.gpus_allowed, without_b.input.gpus_allowed);
}

#[test]
fn the_simple_settings_are_stored_as_given() {
    let state = DecisionState::default();
    let blend = edit(&state, &BLEND, "workload");
    assert_eq!(blend.input.blend, Blend::Workload);
    let ratio = edit(&blend, &BLEND, "1");
    assert_eq!(ratio.input.blend, Blend::Ratio(1.0));
    let negative = edit(&ratio, &BLEND, "-1");
    assert_eq!(error_keys(&negative), ["blend-ratio"]);
    assert_eq!(
        negative.input.blend,
        Blend::Ratio(1.0),
        "the last good ratio"
    );
    let custom = state.apply(DecisionAction::SetCustomPrice(true));
    assert!(custom.custom_price);
    let notice = state.apply(DecisionAction::PinsNotice(Some("n".into())));
    assert_eq!(notice.pins_notice.as_deref(), Some("n"));
    let text = state.apply(DecisionAction::CalibrationText("csv".into()));
    assert_eq!(text.calibration_text, "csv");
    assert_eq!(
        state.apply(DecisionAction::PlanStarted).plan,
        PlanStatus::Running
    );
}

#[test]
fn a_load_replaces_the_inputs_and_texts_and_keeps_the_plan_and_calibration() {
    let busy = edit(&DecisionState::default(), &SLO_TPOT_MS, "fast")
        .apply(DecisionAction::PlanStarted)
        .apply(DecisionAction::CalibrationText("csv".into()));
    let input = DecisionInput {
        slo_ttft_ms: Some(700.0),
        traffic_unit: TrafficUnit::TokensPerDay,
        traffic: Some(1e9),
        ..DecisionInput::default()
    };
    let loaded = busy.apply(DecisionAction::Load(Box::new(input.clone())));
    assert_eq!(loaded.input, input);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.text(&SLO_TTFT_MS), "700");
    assert_eq!(loaded.text(&SLO_TPOT_MS), "", "the bad text is replaced");
    assert_eq!(loaded.text(&TRAFFIC), "1000000000");
    assert_eq!(loaded.plan, PlanStatus::Running);
    assert_eq!(loaded.calibration_text, "csv");
}

#[test]
fn a_scenario_field_is_not_a_decision_edit() {
    let state = DecisionState::default();
    let edited = edit(&state, &crate::scenario::fields::INPUT_LEN, "abc");
    assert_eq!(edited, state, "ignored");
}

#[test]
fn a_blend_choice_round_trips_and_labels_the_ratio() {
    for (value, _) in Blend::CHOICES {
        assert_eq!(
            Blend::parse(value).map(Blend::value).as_deref(),
            Some(value)
        );
    }
    assert_eq!(Blend::parse(" workload "), Some(Blend::Workload));
    // Changed on purpose: anything else is no blend (it used to read as the workload's mix).
    assert_eq!(Blend::parse("-1"), None, "never a negative ratio");
    assert_eq!(Blend::parse("lots"), None);
    assert_eq!(Blend::parse("inf"), None);
    assert_eq!(Blend::Ratio(3.0).label(INPUT_LEN, OUTPUT_LEN), "3:1");
    assert_eq!(Blend::Ratio(0.25).label(INPUT_LEN, OUTPUT_LEN), "1:4");
    assert_eq!(Blend::Workload.label(INPUT_LEN, OUTPUT_LEN), "5.5:1");
    assert_eq!(
        Blend::Workload.input_per_output(100.0, 0.0),
        DEFAULT_INPUT_PER_OUTPUT,
        "no output: the convention"
    );
}

#[test]
fn converted_values_show_four_significant_digits() {
    assert_eq!(sig_text(0.123_45), "0.1235");
    assert_eq!(sig_text(1_180_224_000.0), "1180000000");
    assert_eq!(sig_text(12.5), "12.5");
    assert_eq!(sig_text(10.0), "10");
    assert_eq!(sig_text(0.0), "0");
    assert_eq!(sig_text(f64::NAN), "0");
}

#[test]
fn the_offered_load_range_depends_on_its_unit() {
    let load = |offered_load: f64, load_unit: LoadUnit| DecisionInput {
        offered_load,
        load_unit,
        ..DecisionInput::default()
    };
    let percent = |value| load(value, LoadUnit::PercentOfCapacity).validate();
    assert_eq!(percent(100.0), Ok(()));
    assert!(percent(0.05).is_err());
    let over = percent(100.1).expect_err("over 100 %");
    assert_eq!(over.field, "offered-load");
    assert_eq!(load(1e6, LoadUnit::OutputTokS).validate(), Ok(()));
    let no_traffic = DecisionInput {
        traffic: Some(0.0),
        ..DecisionInput::default()
    };
    assert_eq!(no_traffic.validate(), Ok(()), "no traffic is a traffic");
    let mut infinite = DecisionInput::default();
    assert!(ENERGY_USD_PER_KWH
        .set_decision(&mut infinite, "inf")
        .is_err());
    infinite.energy_usd_per_kwh = f64::INFINITY;
    let error = infinite.validate().expect_err("infinite electricity");
    assert_eq!(error.field, "energy-usd-per-kwh");
}
