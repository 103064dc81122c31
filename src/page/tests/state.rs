//! The page reducer (`page::state`): slider moves keep the swept curve, edits re-sweep only when
//! the scenario changes, a bad value keeps the last good view, imports and the tools' copy
//! (`Action::Sync`), and links that go through the page state.

use super::{apply, shown};
use crate::model::pareto::{slider_to_concurrency, SLIDER_STEPS};
use crate::model::techniques::TechniqueLevel;
use crate::model::{evaluate, sweep};
use crate::page::state::{Action, State};
use crate::present::chart::{Projection, XAxis, YAxis};
use crate::scenario::fields::{
    BATCHING_FIELD, GPU, GPUS, INPUT_LEN, MODEL, OUTPUT_LEN, SLO_PERCENTILE, SLO_TTFT_MS,
    SPEC_DECODE_FIELD, USD_PER_GPU_HOUR,
};
use crate::scenario::{DecisionInput, Scenario, ScenarioInput};
use crate::share::{decode, encode, from_json, ViewState};

#[test]
fn slider_moves_keep_the_curve_and_edits_resweep_only_when_needed() {
    let state = State::initial();
    let view = shown(&state);
    // Same position: nothing to do (no re-render).
    assert!(state
        .apply(Action::MoveSlider(state.slider_position))
        .is_none());
    let moved = apply(&state, Action::MoveSlider(0));
    let moved_view = shown(&moved);
    assert_eq!(moved_view.concurrency(), 1);
    assert!(
        moved_view.curve == view.curve,
        "the same Rc: no re-sweep on a slider move"
    );
    assert_eq!(*moved_view.curve, sweep(&view.scenario));
    // Typing the same number differently keeps the curve too.
    let same = apply(&state, Action::Edit(&INPUT_LEN, "1155.0".into()));
    assert!(shown(&same).curve == view.curve);
    let longer = apply(&state, Action::Edit(&INPUT_LEN, "4000".into()));
    assert!(shown(&longer).curve != view.curve);
}

/// The view's memo of batch steady states (shared by the sweep and the slider) changes nothing:
/// after moves up and down the slider, each point is the fresh evaluation of its scenario.
#[test]
fn slider_points_with_the_kept_memo_equal_fresh_evaluations() {
    let mut state = State::initial();
    for position in [
        SLIDER_STEPS,
        0,
        SLIDER_STEPS / 2,
        SLIDER_STEPS / 3,
        SLIDER_STEPS,
    ] {
        if let Some(next) = state.apply(Action::MoveSlider(position)) {
            state = next;
        }
        let view = shown(&state);
        assert_eq!(*view.point, evaluate(&view.scenario), "position {position}");
    }
}

#[test]
fn a_concurrency_only_change_keeps_the_curve_and_the_ladder_and_moves_the_point() {
    let state = State::initial();
    let view = shown(&state);
    for position in [0, 1, SLIDER_STEPS / 3, SLIDER_STEPS] {
        let moved = apply(&state, Action::MoveSlider(position));
        let moved_view = shown(&moved);
        assert!(moved_view.curve == view.curve, "curve at {position}");
        assert!(
            moved_view.techniques == view.techniques,
            "ladder at {position}"
        );
        let concurrency = slider_to_concurrency(position, view.engine_limit());
        assert_eq!(moved_view.concurrency(), concurrency);
        assert_eq!(moved.input.concurrency, f64::from(concurrency));
        assert_eq!(
            *moved_view.point,
            evaluate(&view.scenario.with_concurrency(concurrency)),
            "the point is the model's at {concurrency}"
        );
    }
}

#[test]
fn the_slider_clamps_past_its_last_step_to_the_engine_limit() {
    let state = State::initial();
    let limit = shown(&state).engine_limit();
    let far = apply(&state, Action::MoveSlider(SLIDER_STEPS + 500));
    assert_eq!(far.slider_position, SLIDER_STEPS);
    assert_eq!(far.concurrency(), Some(limit));
    assert!(far.apply(Action::MoveSlider(SLIDER_STEPS)).is_none());
}

#[test]
fn an_edit_keeps_the_slider_position_while_it_means_the_same_concurrency() {
    // Several low positions map to one concurrency; snapping back would trap the keyboard.
    let state = State::initial();
    for position in [0, 1, 2, SLIDER_STEPS / 4] {
        let moved = apply(&state, Action::MoveSlider(position));
        let priced = apply(&moved, Action::Edit(&USD_PER_GPU_HOUR, "4".into()));
        assert_eq!(priced.slider_position, position);
        assert_eq!(priced.concurrency(), moved.concurrency());
    }
}

#[test]
fn an_unparseable_or_invalid_value_names_its_field_and_keeps_the_last_good_view() {
    let state = State::initial();
    for bad in ["abc", "0", "", "-5"] {
        let next = apply(&state, Action::Edit(&INPUT_LEN, bad.into()));
        let error = next.error.as_ref().expect("an error");
        assert_eq!(error.field, "input-len", "{bad:?}");
        assert!(
            error.text().starts_with("Input length:"),
            "{}",
            error.text()
        );
        assert!(next.view == state.view, "the same view after {bad:?}");
        assert_eq!(next.slider_position, state.slider_position);
        assert_eq!(next.texts.get(&INPUT_LEN), bad, "the text stays as typed");
        assert_eq!(
            next.view_state(),
            state.view_state(),
            "links keep the good one"
        );
        let fixed = apply(&next, Action::Edit(&INPUT_LEN, "1155".into()));
        assert!(fixed.error.is_none(), "{:?}", fixed.error);
        assert_eq!(*shown(&fixed).point, *shown(&state).point);
    }
}

#[test]
fn a_bad_field_stays_an_error_while_another_field_changes() {
    let state = State::initial();
    let bad = apply(&state, Action::Edit(&OUTPUT_LEN, "lots".into()));
    assert_eq!(
        bad.error.as_ref().map(|e| e.field.as_str()),
        Some("output-len")
    );
    let still = apply(&bad, Action::Edit(&INPUT_LEN, "2000".into()));
    assert_eq!(
        still.error.as_ref().map(|e| e.field.as_str()),
        Some("output-len")
    );
    assert!(still.view == state.view, "the last good view stays");
    let fixed = apply(&still, Action::Edit(&OUTPUT_LEN, "300".into()));
    assert!(fixed.error.is_none());
    assert_eq!(shown(&fixed).scenario.workload.input_mean, 2000.0);
}

#[test]
fn a_new_gpu_brings_its_catalog_price_and_scenario_errors_name_their_field() {
    let state = State::initial();
    let mi300x = apply(&state, Action::Edit(&GPU, "mi300x".into()));
    assert_eq!(mi300x.texts.get(&USD_PER_GPU_HOUR), "1.68");
    assert!(mi300x.error.is_none(), "{:?}", mi300x.error);
    let three = apply(&state, Action::Edit(&GPUS, "3".into()));
    let error = three.error.expect("70B FP8 does not split over 3 GPUs");
    assert_eq!(error.field, "gpus", "renamed from `gpu-count`");
    assert!(error.text().starts_with("GPU count:"), "{}", error.text());
}

/// Changed on purpose: a GPU without a catalog price used to keep the previous GPU's price (a
/// missing price was an error); now its price box is emptied and its costs are not shown.
#[test]
fn a_gpu_without_a_catalog_price_empties_the_price_and_the_same_gpu_again_keeps_it() {
    let state = State::initial();
    let no_price = apply(&state, Action::Edit(&GPU, "gb200".into()));
    assert_eq!(no_price.texts.get(&USD_PER_GPU_HOUR), "");
    assert!(no_price.error.is_none(), "{:?}", no_price.error);
    assert_eq!(shown(&no_price).scenario.usd_per_gpu_hour, None);
    assert_eq!(shown(&no_price).point.usd_per_m_output, None);
    let typed = apply(&state, Action::Edit(&USD_PER_GPU_HOUR, "9".into()));
    // Choosing the GPU already chosen is no change at all: the typed price stays.
    assert!(typed.apply(Action::Edit(&GPU, "h100-sxm".into())).is_none());
    assert_eq!(typed.texts.get(&USD_PER_GPU_HOUR), "9");
    assert_eq!(shown(&typed).scenario.input.usd_per_gpu_hour, Some(9.0));
}

/// Changed on purpose: the price is optional, so an empty box means the GPU's catalog price
/// (it used to be an error), and a GPU without one shows its performance with no cost (this
/// used to be an error that kept the last good view) and a warning asking for a price.
#[test]
fn an_empty_price_means_the_catalog_price_and_a_gpu_without_one_shows_no_cost() {
    let state = State::initial();
    let empty = apply(&state, Action::Edit(&USD_PER_GPU_HOUR, " ".into()));
    assert!(empty.error.is_none(), "{:?}", empty.error);
    assert_eq!(shown(&empty).scenario.input.usd_per_gpu_hour, None);
    assert_eq!(
        shown(&empty).scenario.usd_per_gpu_hour,
        Some(2.65),
        "H100 SXM typical"
    );
    let no_price = apply(&empty, Action::Edit(&GPU, "gb200".into()));
    assert!(no_price.error.is_none(), "{:?}", no_price.error);
    assert!(no_price.view != empty.view, "the page shows the new GPU");
    let view = shown(&no_price);
    assert_eq!(view.scenario.gpu.id, "gb200");
    assert_eq!(view.scenario.usd_per_gpu_hour, None);
    assert!(view.point.output_tok_s > 0.0 && view.point.tpot_ms > 0.0);
    assert_eq!(view.point.cost, None);
    assert!(
        view.point
            .warnings
            .iter()
            .any(|w| w.starts_with("no rental price for NVIDIA GB200")),
        "{:?}",
        view.point.warnings
    );
    // Typing a price brings the costs back.
    let typed = apply(&no_price, Action::Edit(&USD_PER_GPU_HOUR, "6".into()));
    assert!(shown(&typed)
        .point
        .usd_per_m_output
        .is_some_and(|usd| usd > 0.0));
}

#[test]
fn a_state_with_no_valid_scenario_has_no_view_until_an_edit_fixes_it() {
    let input = ScenarioInput {
        model: "no-such-model".into(),
        ..ScenarioInput::default()
    };
    let broken = State::from_input(input.clone());
    assert!(broken.view.is_none());
    assert_eq!(
        broken.error.as_ref().map(|e| e.field.as_str()),
        Some("model")
    );
    assert!(broken.apply(Action::MoveSlider(0)).is_none(), "no slider");
    assert_eq!(
        broken.view_state().scenario,
        input,
        "links carry the typed one"
    );
    assert!(broken.pin_candidate().is_err());
    let fixed = apply(&broken, Action::Edit(&MODEL, "llama-3.1-70b".into()));
    assert!(fixed.error.is_none(), "{:?}", fixed.error);
    assert_eq!(
        *shown(&fixed).point,
        *shown(&State::initial()).point,
        "the defaults again"
    );
}

#[test]
fn the_same_chart_options_are_no_change_and_new_ones_keep_the_view() {
    let state = State::initial();
    assert!(state.apply(Action::Chart(state.chart)).is_none());
    let chart = Projection {
        x: XAxis::Tpot,
        y: YAxis::UsdPerMOutput,
    };
    let next = apply(&state, Action::Chart(chart));
    assert_eq!(next.chart, chart);
    assert!(next.view == state.view, "no re-evaluation");
    assert_eq!(next.view_state().chart, chart, "the axes travel in links");
}

#[test]
fn axis_switches_and_slider_moves_never_recompute_the_ladder() {
    let state = State::initial();
    let view = shown(&state);
    assert_eq!(view.techniques.current, TechniqueLevel::Paged);
    assert_eq!(
        view.techniques.background.len(),
        4,
        "static, contiguous, speculative, disaggregated"
    );
    let moved = apply(&state, Action::MoveSlider(0));
    assert!(shown(&moved).techniques == view.techniques, "same Rc");
    let usd = apply(
        &state,
        Action::Chart(Projection {
            x: XAxis::Tpot,
            y: YAxis::UsdPerMOutput,
        }),
    );
    let usd_view = shown(&usd);
    assert!(usd_view.curve == view.curve && usd_view.techniques == view.techniques);
    assert_eq!(usd.chart.y, YAxis::UsdPerMOutput);
    let spec = apply(&state, Action::Edit(&SPEC_DECODE_FIELD, "eagle".into()));
    assert_eq!(shown(&spec).techniques.current, TechniqueLevel::Speculative);
}

#[test]
fn an_import_replaces_the_view_and_a_failed_one_keeps_it() {
    let state = State::initial();
    let imported = from_json(r#"{"v": 1, "model": "llama-3.1-8b", "gpus": 1, "concurrency": 12}"#)
        .expect("valid export");
    let next = apply(&state, Action::Load(Box::new(imported)));
    assert_eq!(next.concurrency(), Some(12));
    assert_eq!(next.texts.get(&MODEL), "llama-3.1-8b");
    assert!(from_json(r#"{"gpus": "lots"}"#)
        .expect_err("not a number")
        .contains("gpus"));
}

#[test]
fn a_load_that_does_not_validate_keeps_the_last_good_view_and_names_the_field() {
    let state = apply(&State::initial(), Action::MoveSlider(0));
    let pin = ScenarioInput {
        model: "llama-3.1-8b".into(),
        ..ScenarioInput::default()
    };
    let bad = ViewState {
        scenario: ScenarioInput {
            gpu_count: 3.0,
            ..ScenarioInput::default()
        },
        pins: vec![pin.clone()],
        ..ViewState::default()
    };
    let next = apply(&state, Action::Load(Box::new(bad)));
    assert_eq!(next.error.as_ref().map(|e| e.field.as_str()), Some("gpus"));
    assert!(next.view == state.view, "the last good view stays");
    assert_eq!(next.slider_position, state.slider_position);
    assert_eq!(
        next.texts.get(&GPUS),
        "3",
        "the controls show what was loaded"
    );
    assert_eq!(next.pins, vec![pin], "the pins come along");
    assert_eq!(next.view_state().scenario.gpu_count, 8.0);
}

/// The tools module's copy of the state follows the explorer's (`Action::Sync`): a concurrency
/// change alone keeps the curve and only re-evaluates the point; anything else reloads; the
/// same state is no change at all (no re-render on the tools' side).
#[test]
fn the_tools_copy_follows_the_explorer_and_resweeps_only_when_needed() {
    let explorer = State::initial();
    let replica = State::initial();
    let view = shown(&replica);
    assert!(replica
        .apply(Action::Sync(Box::new(explorer.view_state())))
        .is_none());

    let moved = apply(&explorer, Action::MoveSlider(0));
    let synced = apply(&replica, Action::Sync(Box::new(moved.view_state())));
    let synced_view = shown(&synced);
    assert_eq!(synced_view.concurrency(), 1);
    assert!(synced_view.curve == view.curve, "no re-sweep");
    assert_eq!(synced.slider_position, moved.slider_position);
    assert_eq!(synced.view_state(), moved.view_state());
    assert_eq!(*synced_view.point, *shown(&moved).point);

    let edited = apply(&explorer, Action::Edit(&INPUT_LEN, "4000".into()));
    let reloaded = apply(&replica, Action::Sync(Box::new(edited.view_state())));
    assert!(shown(&reloaded).curve != view.curve);
    assert_eq!(reloaded.view_state(), edited.view_state());
    assert_eq!(*shown(&reloaded).point, *shown(&edited).point);

    // A hostile concurrency is clamped to the engine limit, never wraps.
    let mut hostile = explorer.view_state();
    hostile.scenario.concurrency = 1e30;
    let clamped = apply(&replica, Action::Sync(Box::new(hostile)));
    let clamped_view = shown(&clamped);
    assert_eq!(clamped_view.concurrency(), clamped_view.engine_limit());
}

#[test]
fn a_sync_that_changes_only_the_pins_or_the_chart_reloads_them() {
    let replica = State::initial();
    let mut pinned = replica.view_state();
    pinned.pins = vec![ScenarioInput {
        model: "llama-3.1-8b".into(),
        ..ScenarioInput::default()
    }];
    let synced = apply(&replica, Action::Sync(Box::new(pinned.clone())));
    assert_eq!(synced.view_state(), pinned);
    let mut charted = replica.view_state();
    charted.chart.y = YAxis::UsdPerMOutput;
    let synced = apply(&replica, Action::Sync(Box::new(charted)));
    assert_eq!(synced.chart.y, YAxis::UsdPerMOutput);
}

const LINK: &str = "v=2&model=llama-3.1-8b&gpu=a100-sxm-80gb&gpus=2&precision=bf16&input-len=2000&output-len=300&usd-per-gpu-hour=1.8&concurrency=37";

/// The link part of the browser test `a_link_reproduces_the_numbers_of_the_scenario_it_names`:
/// a state built from a link encodes back to the same link and shows the model's numbers.
#[test]
fn a_link_builds_a_state_that_encodes_back_to_the_same_link() {
    let (link_view, notices) = decode(LINK);
    assert!(notices.is_empty(), "{notices:?}");
    let scenario = Scenario::try_from(link_view.scenario.clone()).expect("valid link");
    let state = State::from_view(link_view);
    assert!(state.error.is_none(), "{:?}", state.error);
    assert_eq!(encode(&state.view_state()), LINK);
    assert_eq!(state.concurrency(), Some(37));
    assert_eq!(state.texts.get(&MODEL), "llama-3.1-8b");
    assert_eq!(
        shown(&state).point.usd_per_m_output,
        evaluate(&scenario).usd_per_m_output
    );
    assert_ne!(
        shown(&state).point.usd_per_m_output,
        shown(&State::initial()).point.usd_per_m_output,
        "not just the defaults"
    );
}

#[test]
fn a_moved_and_edited_state_survives_a_link_round_trip() {
    let state = State::initial();
    let state = apply(&state, Action::Edit(&OUTPUT_LEN, "500".into()));
    let state = apply(&state, Action::MoveSlider(SLIDER_STEPS / 4));
    let state = apply(&state, Action::Edit(&BATCHING_FIELD, "static".into()));
    let (decoded, notices) = decode(&encode(&state.view_state()));
    assert!(notices.is_empty(), "{notices:?}");
    let again = State::from_view(decoded);
    assert_eq!(again.view_state(), state.view_state());
    assert_eq!(*shown(&again).point, *shown(&state).point);
    assert_eq!(again.slider_position, state.slider_position);
}

/// A decision field edited through the page state: the decision inputs change, the view stays
/// (nothing to re-evaluate) and the inputs travel in a link.
#[test]
fn a_decision_edit_updates_the_decision_and_travels_in_a_link() {
    let state = State::initial();
    let edited = apply(&state, Action::Edit(&SLO_TTFT_MS, "500".into()));
    assert!(edited.error.is_none(), "{:?}", edited.error);
    assert_eq!(edited.decision.slo_ttft_ms, Some(500.0));
    assert_eq!(
        edited.decision,
        DecisionInput {
            slo_ttft_ms: Some(500.0),
            ..DecisionInput::default()
        },
        "only that field"
    );
    assert!(edited.view == state.view, "no re-evaluation");
    assert_eq!(
        edited.texts, state.texts,
        "the scenario's texts are untouched"
    );
    let link = encode(&edited.view_state());
    assert!(link.contains("slo-ttft-ms=500"), "{link}");
    let (decoded, notices) = decode(&link);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(decoded.decision, edited.decision);
    let again = State::from_view(decoded);
    assert_eq!(again.decision, edited.decision);
    assert_eq!(again.view_state(), edited.view_state());
    // The JSON export carries it too.
    let imported = from_json(&crate::share::to_json(&edited.view_state())).expect("valid");
    assert_eq!(imported.decision, edited.decision);
}

#[test]
fn an_out_of_range_decision_edit_names_its_field_and_keeps_the_decision() {
    let state = State::initial();
    let bad = apply(&state, Action::Edit(&SLO_PERCENTILE, "40".into()));
    let error = bad.error.as_ref().expect("out of range");
    assert_eq!(error.field, "slo-percentile");
    assert!(
        error.message.contains("from 50 to 99.99"),
        "{}",
        error.message
    );
    assert!(error.text().starts_with("Percentile: "), "{}", error.text());
    assert_eq!(bad.decision, state.decision, "the last good decision");
    assert!(bad.view == state.view);
    let fixed = apply(&bad, Action::Edit(&SLO_PERCENTILE, "99".into()));
    assert!(fixed.error.is_none(), "{:?}", fixed.error);
    assert_eq!(fixed.decision.slo_percentile, 99.0);
}

#[test]
fn the_decision_panels_inputs_replace_the_decision_and_the_same_ones_are_no_change() {
    let state = State::initial();
    assert!(state
        .apply(Action::Decision(Box::new(state.decision.clone())))
        .is_none());
    let decision = DecisionInput {
        slo_tpot_ms: Some(40.0),
        ..DecisionInput::default()
    };
    let next = apply(&state, Action::Decision(Box::new(decision.clone())));
    assert_eq!(next.decision, decision);
    assert!(next.view == state.view, "no re-evaluation");
    assert_eq!(next.view_state().decision, decision);
}

/// A load that changes only the decision inputs (the tools' panels) takes the cheap path: the
/// same curve, ladder and point (`Shared` pointers), only the decision replaced.
#[test]
fn a_decision_only_load_keeps_the_same_curve_and_point() {
    let state = apply(&State::initial(), Action::MoveSlider(0));
    let view = shown(&state);
    let mut target = state.view_state();
    target.decision.slo_ttft_ms = Some(500.0);
    target.decision.energy_on = true;
    let loaded = apply(&state, Action::Load(Box::new(target.clone())));
    let loaded_view = shown(&loaded);
    assert!(loaded_view.curve == view.curve, "the same curve Rc");
    assert!(
        loaded_view.techniques == view.techniques,
        "the same ladder Rc"
    );
    assert!(loaded_view.point == view.point, "the same point Rc");
    assert_eq!(loaded.decision, target.decision);
    assert_eq!(loaded.slider_position, state.slider_position);
    assert_eq!(loaded.view_state(), target);
}

/// The tools' copy owns the decision inputs once mounted: a sync from the explorer (which
/// echoes the decision it last saw) keeps the replica's own.
#[test]
fn a_sync_keeps_the_replicas_own_decision() {
    let replica = apply(&State::initial(), Action::Edit(&SLO_TTFT_MS, "500".into()));
    let explorer = State::initial();
    assert!(
        replica
            .apply(Action::Sync(Box::new(explorer.view_state())))
            .is_none(),
        "only the decision differs: no change"
    );
    let moved = apply(&explorer, Action::MoveSlider(0));
    let synced = apply(&replica, Action::Sync(Box::new(moved.view_state())));
    assert_eq!(synced.concurrency(), Some(1));
    assert_eq!(synced.decision, replica.decision, "slider move");
    let edited = apply(&explorer, Action::Edit(&INPUT_LEN, "4000".into()));
    let reloaded = apply(&replica, Action::Sync(Box::new(edited.view_state())));
    assert_eq!(shown(&reloaded).scenario.input.input_len, 4000.0);
    assert_eq!(reloaded.decision, replica.decision, "full reload");
}

/// The page's first screen leaves the ladder's other curves for a second pass: the first view
/// has none and says so, a slider move keeps them pending, and `CompleteLadder` fills them with
/// exactly what a full start computes (then it has nothing left to do).
#[test]
fn the_first_screen_defers_the_technique_ladder_until_complete_ladder() {
    let (link, notices) = decode("v=1&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=16");
    assert!(notices.is_empty(), "{notices:?}");
    let full = State::from_view(link.clone());
    let first = State::first_screen(link);
    let first_view = shown(&first);
    assert!(first_view.techniques.background_pending);
    assert!(first_view.techniques.background.is_empty());
    assert_eq!(*first_view.curve, *shown(&full).curve);
    assert_eq!(*first_view.point, *shown(&full).point);
    assert!(first_view.techniques.absent.is_empty());
    let moved = apply(&first, Action::MoveSlider(3));
    assert!(shown(&moved).techniques.background_pending);
    let completed = apply(&moved, Action::CompleteLadder);
    let completed_view = shown(&completed);
    assert!(!completed_view.techniques.background_pending);
    assert!(!completed_view.techniques.background.is_empty());
    assert_eq!(
        completed_view.techniques.background,
        shown(&full).techniques.background
    );
    assert!(completed.apply(Action::CompleteLadder).is_none());
    assert!(full.apply(Action::CompleteLadder).is_none());
}

/// The serving-mode select (`#serving`, inside `#serving-mode`): disaggregated splits the GPUs
/// into a prefill and a decode pool (auto split of the 8 GPUs) and the point reports both; the
/// pool fields travel in the link; back to aggregated is the first view again.
#[test]
fn the_serving_mode_splits_the_gpus_into_two_pools_and_back() {
    use crate::scenario::fields::{PREFILL_GPUS, SERVING};
    let state = State::initial();
    assert!(shown(&state).point.disagg.is_none());
    let split = apply(&state, Action::Edit(&SERVING, "disaggregated".into()));
    assert!(split.error.is_none(), "{:?}", split.error);
    let pools = shown(&split).point.disagg.expect("two pools");
    assert_eq!(pools.prefill_gpus + pools.decode_gpus, 8);
    assert_eq!(shown(&split).point.gpus, 8);
    let fixed = apply(&split, Action::Edit(&PREFILL_GPUS, "2".into()));
    assert_eq!(shown(&fixed).point.disagg.map(|d| d.prefill_gpus), Some(2));
    assert!(crate::share::encode(&fixed.view_state()).contains("prefill-gpus=2"));
    let back = apply(&split, Action::Edit(&SERVING, "aggregated".into()));
    assert_eq!(*shown(&back).point, *shown(&state).point);
    let bad = apply(&split, Action::Edit(&PREFILL_GPUS, "8".into()));
    assert_eq!(
        bad.error.as_ref().map(|e| e.field.as_str()),
        Some("prefill-gpus")
    );
}
