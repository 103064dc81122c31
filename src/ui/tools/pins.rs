//! Remembering the pins across reloads in `localStorage` under `PINS_STORAGE_KEY`, as the text
//! `page::pins` reads and writes. Saved pins are read back only when the page did not open from a
//! link, so a shared link shows exactly what it holds.

use crate::page::decisions::DecisionAction;
use crate::page::pins::{pins_from_json, pins_to_json, PinAction, PINS_STORAGE_KEY};
use crate::page::state::{Action, State};
use crate::scenario::ScenarioInput;
use yew::prelude::*;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Read the saved pins (nothing saved: no pins, no notice).
pub fn load_saved_pins() -> (Vec<ScenarioInput>, Option<String>) {
    match storage().and_then(|s| s.get_item(PINS_STORAGE_KEY).ok().flatten()) {
        Some(text) => pins_from_json(&text),
        None => (Vec::new(), None),
    }
}

fn save_pins(pins: &[ScenarioInput]) {
    if let Some(storage) = storage() {
        let _ = storage.set_item(PINS_STORAGE_KEY, &pins_to_json(pins));
    }
}

/// With `enabled`: read the saved pins once at start-up (into the state only when `restore`,
/// i.e. the page did not open from a link, and it has no pins yet), then save every later change.
#[hook]
pub fn use_pin_storage(
    state: &UseReducerHandle<State>,
    decisions: &UseReducerDispatcher<crate::page::decisions::DecisionState>,
    enabled: bool,
    restore: bool,
) {
    let started = use_mut_ref(|| false);
    let dispatcher = state.dispatcher();
    let decisions = decisions.clone();
    use_effect_with((enabled, state.pins.clone()), move |(enabled, pins)| {
        if *enabled {
            let first = !*started.borrow();
            *started.borrow_mut() = true;
            if first {
                let (saved, notice) = load_saved_pins();
                if notice.is_some() {
                    decisions.dispatch(DecisionAction::PinsNotice(notice));
                }
                if restore && pins.is_empty() && !saved.is_empty() {
                    dispatcher.dispatch(Action::Pins(PinAction::Restore(saved)));
                }
                // Opening a link does not overwrite the saved pins until the user changes pins.
                return;
            }
            save_pins(pins);
        }
    });
}
