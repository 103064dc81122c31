//! Links that open on a scenario the model rejects, typed batch sizes and the errors that name
//! their field: the page keeps what a link asked for (issue 15 §1), a typed batch size moves the
//! slider or is the concurrency's error (§3), and an input past the context is the input length's.

use super::{apply, shown};
use crate::model::pareto::concurrency_to_slider;
use crate::page::state::{Action, State};
use crate::scenario::fields::{CONCURRENCY, GPUS, INPUT_LEN, MODEL, PRECISION};
use crate::share::start_view;

/// `?model=deepseek-r1` on the default 8 × H100: the controls keep DeepSeek-R1 and 8, the page has
/// no view (no curve of another scenario), and one error on `gpus` says why and what would fit.
#[test]
fn an_opening_link_that_does_not_fit_keeps_what_it_asked_for() {
    let start = start_view("?model=deepseek-r1", None);
    assert!(start.notices.is_empty(), "{:?}", start.notices);
    assert_eq!(start.view.scenario.model, "deepseek-r1");
    assert_eq!(start.view.scenario.gpu_count, 8.0);
    let state = State::first_screen(start.view);
    assert!(state.view.is_none(), "no curve of another scenario");
    assert_eq!(state.texts.get(&MODEL), "deepseek-r1");
    assert_eq!(state.texts.get(&GPUS), "8");
    let error = state.error.clone().expect("why it does not fit");
    assert_eq!(error.field, "gpus");
    assert!(error.message.contains("does not fit"), "{}", error.message);
    assert!(
        error.message.ends_with("16 GPUs would fit it, or fp4 on 8"),
        "{}",
        error.message
    );
    // A link or export of the page is still what was asked.
    assert_eq!(state.view_state().scenario.model, "deepseek-r1");
    // Fixing either field brings the curve, for the scenario asked.
    for (field, text) in [(&GPUS, "16"), (&PRECISION, "fp4")] {
        let fixed = apply(&state, Action::Edit(field, text.into()));
        assert_eq!(shown(&fixed).scenario.model.id, "deepseek-r1");
        assert_eq!(fixed.error, None);
    }
    // A slider move has nothing to move.
    assert!(state.apply(Action::MoveSlider(3)).is_none());
}

/// A field that is bad on its own is still dropped with a notice (once), and what is left that
/// does not fit is kept; a GPU count the link gave is never replaced by the default.
#[test]
fn a_link_drops_only_fields_bad_on_their_own_and_keeps_its_gpu_count() {
    let start = start_view("?model=deepseek-r1&tp=3", None);
    assert_eq!(start.notices.len(), 1, "{:?}", start.notices);
    assert!(
        start.notices[0].starts_with("ignored tp"),
        "{:?}",
        start.notices
    );
    assert_eq!(start.view.scenario.tp, None);
    assert_eq!(start.view.scenario.model, "deepseek-r1");
    let start = start_view("?model=deepseek-r1&gpus=4", None);
    assert!(start.notices.is_empty(), "{:?}", start.notices);
    assert_eq!(start.view.scenario.gpu_count, 4.0);
    let state = State::first_screen(start.view);
    assert!(state
        .error
        .expect("too small")
        .message
        .contains("16 GPUs would fit it"));
    // A link that validates opens as it always did.
    let start = start_view("?model=llama-3.1-8b&gpus=1", None);
    assert!(start.notices.is_empty());
    assert!(State::first_screen(start.view).view.is_some());
}

/// The number box beside the slider: a typed batch size moves the point and the thumb (the
/// curve stays); text, zero or more than the engine limit is the concurrency's error, and the
/// last good view stays; the same value again is no change.
#[test]
fn a_typed_batch_size_moves_the_slider_and_a_bad_one_keeps_the_view() {
    let state = State::initial();
    let view = shown(&state);
    let limit = view.engine_limit();
    let typed = apply(&state, Action::Edit(&CONCURRENCY, "100".into()));
    let typed_view = shown(&typed);
    assert_eq!(typed_view.concurrency(), 100);
    assert!(typed_view.curve == view.curve, "no re-sweep");
    assert_eq!(typed.slider_position, concurrency_to_slider(100, limit));
    assert_eq!(typed.input.concurrency, 100.0);
    assert!(typed
        .apply(Action::Edit(&CONCURRENCY, " 100 ".into()))
        .is_none());
    let over = (limit + 1).to_string();
    for bad in ["lots", "0", "2.5", over.as_str()] {
        let refused = apply(&typed, Action::Edit(&CONCURRENCY, bad.into()));
        let error = refused.error.clone().expect("an error");
        assert_eq!(error.field, "concurrency", "{bad}");
        assert_eq!(
            shown(&refused).concurrency(),
            100,
            "{bad}: the last good view"
        );
        assert_eq!(refused.slider_position, typed.slider_position);
        if bad == over {
            assert!(error.message.contains("engine limit"), "{}", error.message);
        }
        // A good value clears it, even the one already shown.
        let fixed = apply(&refused, Action::Edit(&CONCURRENCY, "100".into()));
        assert_eq!(fixed.error, None);
    }
    // The far end of the track is typed exactly.
    let end = apply(&state, Action::Edit(&CONCURRENCY, limit.to_string()));
    assert_eq!(shown(&end).concurrency(), limit);
}

/// A 10,000,000-token input names the input length and the model's context (it used to be a GPU
/// count error), and the last good view stays.
#[test]
fn an_input_past_the_context_is_the_input_lengths_error() {
    let state = State::initial();
    let long = apply(&state, Action::Edit(&INPUT_LEN, "10000000".into()));
    let error = long.error.clone().expect("an error");
    assert_eq!(error.field, "input-len");
    assert!(
        error.message.contains("context of 131072 tokens"),
        "{}",
        error.message
    );
    assert!(error.text().starts_with("Input length"), "{}", error.text());
    assert!(shown(&long) == shown(&state));
}

/// An agentic link (issue 27 §4) opens without a notice in either build, and the page state's own
/// link, storage and `#tools[data-state]` (`share::encode` of `view_state`) carry every agentic
/// key, so the tools module reads them: the explorer's build (no session model) carries them as
/// given, the tools' build reads them as fields; either way the link reopens the same view.
#[test]
fn an_agentic_link_round_trips_through_the_page_state() {
    let link = "?v=2&model=llama-3.3-70b&gpu=b200&session-turns=20&session-tool-tokens=1500\
                &session-tool-s=1&input-len=8000&output-len=519&concurrency=64&fleet-agents=500\
                &interactivity-percentile=p75&tok-s-per-user=30";
    let start = start_view(link, None);
    assert!(start.notices.is_empty(), "{:?}", start.notices);
    let state = State::first_screen(start.view.clone());
    assert!(state.error.is_none(), "{:?}", state.error);
    let written = crate::share::encode(&state.view_state());
    for key in [
        "session-turns=20",
        "session-tool-tokens=1500",
        "session-tool-s=1",
        "fleet-agents=500",
        "interactivity-percentile=p75",
    ] {
        assert!(written.contains(key), "{key} in {written}");
    }
    let reopened = start_view(&written, None);
    assert!(reopened.notices.is_empty(), "{:?}", reopened.notices);
    assert_eq!(reopened.view, start.view);
    // A slider move keeps them.
    let moved = apply(&state, Action::MoveSlider(state.slider_position + 3));
    assert!(crate::share::encode(&moved.view_state()).contains("session-turns=20"));
}
