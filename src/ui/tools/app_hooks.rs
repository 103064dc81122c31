//! The hooks of the tools app (`ToolsApp`, `mod.rs`), in the order it calls them: its replica of
//! the explorer's state, synced from `#tools` (`use_replica`), the decision inputs the panels
//! own, the mount stages, and what it sends back to the explorer: auto's layout, the chart
//! overlay (with the measured points) and the state the panels changed.

use super::{measured_panel, send, state_of, StateWatch, LAST_STAGE};
use crate::calibration::measured::MeasuredRow;
use crate::page::decision_data::DecisionData;
use crate::page::decisions::DecisionState;
use crate::page::knobs::{layout_key, AutoLayout, KnobAction};
use crate::page::state::{Action, State};
use crate::share;
use crate::ui::platform::bridge::{APPLY_EVENT, IDEAL_ATTR, LAYOUT_EVENT, OVERLAY_EVENT};
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The replica of the explorer's state, started from `host`'s `data-state` (and its ideal-roofline
/// flag) and synced on every change of them (`StateWatch`), with the last query both sides agree
/// on: what the explorer sent, or what we sent it.
#[hook]
pub(super) fn use_replica(
    host: &web_sys::Element,
) -> (UseReducerHandle<State>, Rc<RefCell<String>>) {
    let state = use_reducer({
        let (query, ideal) = (state_of(host), host.has_attribute(IDEAL_ATTR));
        move || {
            let state = State::from_view(share::decode(&query).0);
            match ideal {
                true => state
                    .apply(Action::Knob(KnobAction::IdealRoofline(true)))
                    .unwrap_or(state),
                false => state,
            }
        }
    });
    let agreed = use_mut_ref({
        let query = state_of(host);
        move || query
    });
    {
        let (dispatcher, agreed) = (state.dispatcher(), agreed.clone());
        use_effect_with(host.clone(), move |host| {
            let on_change = Callback::from(move |(query, ideal): (String, bool)| {
                let (view, _) = share::decode(&query);
                *agreed.borrow_mut() = query;
                dispatcher.dispatch(Action::Sync(Box::new(view)));
                dispatcher.dispatch(Action::Knob(KnobAction::IdealRoofline(ideal)));
            });
            let watch = StateWatch::new(host, on_change);
            move || drop(watch)
        });
    }
    (state, agreed)
}

/// The decision inputs: they start as the link had them; from then on the panels own them (the
/// explorer only echoes them back), and they reach links and exports through the replica.
#[hook]
pub(super) fn use_panel_decisions(
    state: &UseReducerHandle<State>,
) -> UseReducerHandle<DecisionState> {
    let decisions = use_reducer({
        let decision = state.decision.clone();
        move || DecisionState::from_input(decision)
    });
    {
        let dispatcher = state.dispatcher();
        use_effect_with(decisions.input.clone(), move |decision| {
            dispatcher.dispatch(Action::Decision(Box::new(decision.clone())));
        });
    }
    decisions
}

/// The mount's stage, one browser task each, so no single task holds the page for the whole
/// mount: share bar and simulator, then the decision panels (and their data), then the
/// glossary. The last stage marks `servecost:tools-ready`.
#[hook]
pub(super) fn use_mount_stage() -> u8 {
    let stage = use_state(|| 0u8);
    {
        let setter = stage.setter();
        use_effect_with(*stage, move |stage| {
            let next = (*stage < LAST_STAGE).then(|| {
                let next = *stage + 1;
                Timeout::new(0, move || setter.set(next))
            });
            if *stage == LAST_STAGE {
                crate::ui::platform::perf::mark_tools_ready();
            }
            move || drop(next)
        });
    }
    *stage
}

/// Auto's layout for the question asked (issue 26 §2): decided once, with the decision data,
/// and applied by both modules (the explorer draws it, the panels here read it).
#[hook]
pub(super) fn use_auto_layout(
    host: &web_sys::Element,
    state: &UseReducerHandle<State>,
    data: &DecisionData,
    decisions_shown: bool,
) {
    let (dispatcher, host) = (state.dispatcher(), host.clone());
    let wanted = state.view.as_ref().filter(|_| decisions_shown).map(|view| {
        data.current.layout.as_ref().map(|choice| AutoLayout {
            key: layout_key(&view.scenario.input),
            tp: choice.par.tp,
            ep: choice.par.ep,
            why: choice.why.clone(),
        })
    });
    let have = state.knobs.auto_layout.clone();
    use_effect_with(wanted, move |wanted| {
        if let Some(wanted) = wanted.as_ref().filter(|wanted| **wanted != have) {
            dispatcher.dispatch(Action::Knob(KnobAction::AutoLayout(wanted.clone())));
            let detail = wanted.as_ref().map(AutoLayout::encode).unwrap_or_default();
            send(&host, LAYOUT_EVENT, &detail);
        }
    });
}

/// The measured rows matching the scenario (when `wanted`: the decision panels are shown and the
/// page has a `#measured-slot`), recomputed when the curve (the scenario, not its concurrency)
/// changes; and whether the chart shows them (the toggle, on at first).
#[hook]
pub(super) fn use_measured(
    state: &UseReducerHandle<State>,
    wanted: bool,
) -> (UseStateHandle<bool>, Rc<Vec<MeasuredRow>>) {
    let show_measured = use_state(|| true);
    let measured_view = state
        .view
        .as_ref()
        .filter(|_| wanted)
        .map(|v| (v.curve.clone(), v.scenario.clone()));
    let measured = use_memo(measured_view.as_ref().map(|(c, _)| c.clone()), move |_| {
        Rc::new(
            measured_view
                .map(|(_, s)| crate::calibration::measured::matching(&s))
                .unwrap_or_default(),
        )
    });
    (show_measured, (*measured).clone())
}

/// Sends the chart its overlay (`servecost:overlay`): the decision data's, with the measured
/// points while they are shown.
#[hook]
pub(super) fn use_overlay(
    host: &web_sys::Element,
    data: &DecisionData,
    decisions_shown: bool,
    measured: &Rc<Vec<MeasuredRow>>,
    show_measured: bool,
) {
    let host = host.clone();
    use_effect_with(
        (
            data.overlay.clone(),
            decisions_shown,
            measured.clone(),
            show_measured,
        ),
        move |(overlay, shown, measured, show)| {
            if *shown {
                let mut overlay = (**overlay).clone();
                if *show {
                    overlay.measured = measured.iter().filter_map(|r| r.chart_point).collect();
                    overlay.measured_label = measured_panel::legend_label(overlay.measured.len());
                }
                send(&host, OVERLAY_EVENT, &overlay.encode());
            }
        },
    );
}

/// Sends the explorer what the panels changed in the replica (`servecost:apply`), unless it is
/// what both sides already agree on.
#[hook]
pub(super) fn use_apply(
    host: &web_sys::Element,
    state: &UseReducerHandle<State>,
    agreed: &Rc<RefCell<String>>,
) {
    let query = share::encode(&state.view_state());
    let (host, agreed) = (host.clone(), agreed.clone());
    use_effect_with(query, move |query| {
        if *agreed.borrow() != *query {
            *agreed.borrow_mut() = query.clone();
            send(&host, APPLY_EVENT, query);
        }
    });
}
