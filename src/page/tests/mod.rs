//! Native unit tests of the page state (`page::*`): the reducer, the field and knob texts, pins,
//! the decision tools' state and what the decision panels derive. No DOM: the browser tests in
//! `tests/web.rs` cover only what needs one (mounting, events, drawing).

#[cfg(feature = "session-model")]
mod agents;
mod decision_data;
mod decisions;
mod fields;
mod knobs;
mod link;
mod pins;
mod report;
mod state;

use crate::page::state::{Action, State, View};

/// The last good view of a state that must have one.
fn shown(state: &State) -> View {
    state.view.clone().expect("a view")
}

/// Apply an action that must change the state.
fn apply(state: &State, action: Action) -> State {
    state.apply(action).expect("the action changes the state")
}
