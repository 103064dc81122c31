//! Pinned scenarios (`page::pins`): pinning, refusing a repeat or a fifth, unpinning, their
//! labels, the saved text read back (with a notice for what is ignored) and pins in links.

use super::apply;
use crate::page::pins::{label_against, pin_label, pins_from_json, pins_to_json, PinAction};
use crate::page::state::{Action, State};
use crate::scenario::fields::{INPUT_LEN, OUTPUT_LEN};
use crate::scenario::ScenarioInput;
use crate::share::{decode, encode, MAX_PINS};

/// The initial state with `count` distinct pins (input lengths 1000, 2000, ...).
fn with_pins(count: usize) -> State {
    let mut state = State::initial();
    for index in 1..=count {
        let length = format!("{}", index * 1000);
        state = apply(&state, Action::Edit(&INPUT_LEN, length));
        state = apply(&state, Action::Pins(PinAction::PinCurrent));
    }
    state
}

#[test]
fn saved_pins_are_read_back_and_a_corrupt_entry_is_only_a_notice() {
    let state = State::initial();
    let one = apply(&state, Action::Pins(PinAction::PinCurrent));
    assert_eq!(one.pins.len(), 1);
    assert!(
        one.apply(Action::Pins(PinAction::PinCurrent)).is_none(),
        "a repeat"
    );
    let text = pins_to_json(&one.pins);
    let (back, notice) = pins_from_json(&text);
    assert_eq!(back, one.pins);
    assert!(notice.is_none(), "{notice:?}");
    for corrupt in ["", "{", "[1, 2]", "{\"pins\": 7}", "null"] {
        let (pins, notice) = pins_from_json(corrupt);
        assert!(pins.is_empty(), "{corrupt:?}");
        assert!(notice.expect("a notice").contains("ignored"), "{corrupt:?}");
    }
    // One bad pin costs only itself.
    let mixed = r#"{"v": 1, "pins": [{"model": "no-such-model"}, {"model": "llama-3.1-8b"}]}"#;
    let (pins, notice) = pins_from_json(mixed);
    assert_eq!(pins.len(), 1);
    assert_eq!(pins.first().map(|p| p.model.as_str()), Some("llama-3.1-8b"));
    assert!(notice.expect("a notice").contains("pin 1"));
    // Restoring fills only an empty pin list.
    let restored = apply(&state, Action::Pins(PinAction::Restore(back.clone())));
    assert_eq!(restored.pins, back);
    assert!(one.apply(Action::Pins(PinAction::Restore(back))).is_none());
}

#[test]
fn a_repeat_and_a_fifth_pin_are_refused_with_a_reason() {
    let one = with_pins(1);
    let repeat = one.pin_candidate().expect_err("a repeat");
    assert!(repeat.contains("already pinned"), "{repeat}");
    let full = with_pins(MAX_PINS);
    assert_eq!(full.pins.len(), MAX_PINS);
    let moved = apply(&full, Action::Edit(&OUTPUT_LEN, "900".into()));
    let refused = moved.pin_candidate().expect_err("full");
    assert!(refused.contains("at most 4"), "{refused}");
    assert!(moved.apply(Action::Pins(PinAction::PinCurrent)).is_none());
}

#[test]
fn the_pin_is_the_last_good_scenario_at_the_current_concurrency() {
    let state = apply(&State::initial(), Action::MoveSlider(0));
    let bad = apply(&state, Action::Edit(&INPUT_LEN, "lots".into()));
    let pinned = apply(&bad, Action::Pins(PinAction::PinCurrent));
    let pin = pinned.pins.first().expect("a pin");
    assert_eq!(pin.input_len, 1155.0, "not the unparseable text");
    assert_eq!(pin.concurrency, 1.0);
}

#[test]
fn unpinning_removes_that_pin_and_an_unknown_index_is_no_change() {
    let state = with_pins(3);
    let second = state.pins.get(1).cloned().expect("three pins");
    let unpinned = apply(&state, Action::Pins(PinAction::Unpin(0)));
    assert_eq!(unpinned.pins.len(), 2);
    assert_eq!(unpinned.pins.first(), Some(&second), "the next moves up");
    assert!(state.apply(Action::Pins(PinAction::Unpin(3))).is_none());
    assert!(State::initial()
        .apply(Action::Pins(PinAction::Unpin(0)))
        .is_none());
}

#[test]
fn restoring_keeps_at_most_max_pins() {
    let many: Vec<ScenarioInput> = (1..=MAX_PINS + 2)
        .map(|index| ScenarioInput {
            input_len: 1000.0 * index as f64,
            ..ScenarioInput::default()
        })
        .collect();
    let restored = apply(
        &State::initial(),
        Action::Pins(PinAction::Restore(many.clone())),
    );
    assert_eq!(restored.pins, many.get(..MAX_PINS).expect("enough"));
    assert!(State::initial()
        .apply(Action::Pins(PinAction::Restore(Vec::new())))
        .is_none());
}

#[test]
fn saved_repeats_extras_and_an_overlong_entry_are_named_in_the_notice() {
    let pin = ScenarioInput::default();
    let (pins, notice) = pins_from_json(&pins_to_json(&[pin.clone(), pin.clone()]));
    assert_eq!(pins, vec![pin]);
    assert!(notice
        .expect("a notice")
        .contains("pin 2 (more than 4 or a repeat)"));
    let (pins, notice) = pins_from_json(&" ".repeat(100_000));
    assert!(pins.is_empty());
    assert!(notice.expect("a notice").contains("too long"));
    let (pins, notice) = pins_from_json(r#"{"v": 1}"#);
    assert!(pins.is_empty() && notice.is_none(), "no pins saved is fine");
}

#[test]
fn a_pin_is_named_by_model_gpus_and_precision() {
    assert_eq!(
        pin_label(&ScenarioInput::default()),
        "Llama 3.1 70B · 8× NVIDIA H100 SXM5 80GB · FP8"
    );
    let unknown = ScenarioInput {
        model: "no-such-model".into(),
        gpu: "no-such-gpu".into(),
        gpu_count: 2.0,
        ..ScenarioInput::default()
    };
    assert_eq!(pin_label(&unknown), "no-such-model · 2× no-such-gpu · FP8");
}

#[test]
fn pins_travel_in_a_link_and_come_back_through_the_page_state() {
    let state = with_pins(2);
    let (decoded, notices) = decode(&encode(&state.view_state()));
    assert!(notices.is_empty(), "{notices:?}");
    let again = State::from_view(decoded);
    assert_eq!(again.pins, state.pins);
    assert_eq!(again.view_state(), state.view_state());
}

/// Issue 28 §4: beside the current scenario a pin is named by what differs from it, the layout
/// as the engines name it; the same inputs fall back to the full name.
#[test]
fn a_pin_beside_the_current_scenario_is_named_by_what_differs() {
    let current = ScenarioInput {
        model: "deepseek-r1".into(),
        gpu: "b200".into(),
        tp: Some(8.0),
        ..ScenarioInput::default()
    };
    let dep = ScenarioInput {
        tp: Some(1.0),
        ep: Some(8.0),
        dp_attention: Some(8.0),
        ..current.clone()
    };
    assert_eq!(label_against(&current, &dep), "TP 1 × EP 8 (DEP 8)");
    let fp4 = ScenarioInput {
        precision: crate::physics::precision::Precision::Fp4,
        input_len: 8000.0,
        ..current.clone()
    };
    let name = label_against(&current, &fp4);
    assert!(
        name.starts_with("FP4 · ") && name.contains("Input length 8000 tokens"),
        "{name}"
    );
    assert_eq!(label_against(&current, &current), pin_label(&current));
    let other = ScenarioInput::default();
    assert!(label_against(&current, &other).starts_with("Llama 3.1 70B · 8× NVIDIA H100"));
}

/// Issue 28 §4: garbage `pin=` values are dropped with a notice (they used to add identical
/// default pins), a repeated pin too; an empty pin is the default scenario pinned.
#[test]
fn garbage_and_repeated_pins_in_a_link_are_dropped_with_a_notice() {
    let (view, notices) = decode("?pin=xyz&pin=abc&pin=foo:bar");
    assert!(view.pins.is_empty(), "{:?}", view.pins);
    assert!(
        notices
            .iter()
            .filter(|n| n.contains("nothing in it could be read"))
            .count()
            == 3,
        "{notices:?}"
    );
    let (view, notices) = decode("?pin=precision:fp4&pin=precision:fp4&pin=");
    assert_eq!(view.pins.len(), 2, "{:?}", view.pins);
    assert!(notices.iter().any(|n| n.contains("repeats")), "{notices:?}");
}
