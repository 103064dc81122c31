//! The Yew front end (wasm32 only): components, one file per concept, around a single `State`
//! reducer. Nothing here computes the model; it calls `model`, `chart` and `present`.
//!
//! Grouped: `platform` (browser glue: panic banner, perf marks, canvas backend, URL and storage,
//! downloads, the link to the deferred module), `widgets` (reusable controls), `explorer` (the
//! first-load `App` and the `?embed=1` widget) and `tools` (the deferred module's `ToolsApp`).
//!
//! `start()` is the page's entry: it installs the panic hook (a visible `#fatal-error` banner
//! instead of a dead page) and mounts `App` into `#app` (or `<body>` if the shell lacks it).

pub mod explorer;
pub mod platform;
pub mod tools;
pub mod widgets;

pub use explorer::app::{self, App};

use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::state::{Action, State};
use std::rc::Rc;

/// Yew's reducer hook over the page's plain reducer (`State::apply`): an action that changes
/// nothing keeps the same `Rc`, so nothing re-renders.
impl yew::Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match self.apply(action) {
            Some(next) => Rc::new(next),
            None => self,
        }
    }
}

/// Yew's reducer hook over the decision tools' plain reducer (`DecisionState::apply`).
impl yew::Reducible for DecisionState {
    type Action = DecisionAction;

    fn reduce(self: Rc<Self>, action: DecisionAction) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

/// Id of the element the app mounts into (`index.html`).
pub const ROOT_ID: &str = "app";

/// The real page reads and writes its URL and remembers the last scenario.
fn page_props() -> app::AppProps {
    app::AppProps {
        query: None,
        sync_location: true,
        tools: platform::tools_link::page_host(),
    }
}

/// Install the panic hook and render the app.
pub fn start() {
    platform::perf::mark_start();
    platform::panic::install();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(ROOT_ID));
    match root {
        Some(root) => {
            yew::Renderer::<App>::with_root_and_props(root, page_props()).render();
        }
        None => {
            yew::Renderer::<App>::with_props(page_props()).render();
        }
    }
}
