//! The page's second, deferred module: the agentic panel (issue 27 §4), the simulator panel,
//! the decision panels (targets, cost, self-host vs API, compare, plan, hardware leaderboard,
//! calibrate), the production-gap waterfall (into the explorer's `#production-gap-slot`) and the
//! glossary panel. `src/bin/tools.rs` is its entry, `scripts/build-tools` builds it, and the explorer imports it right after its first
//! chart is drawn (`tools_link.rs`), so the first chart waits for the explorer's code alone; the
//! embed widget loads it only for an agentic link, and then `start` mounts only the agentic
//! block into the widget's slot (`agents::mount_embed`).
//!
//! The two modules share no memory. They talk through the `#tools` element (`index.html`, outside
//! the explorer's `#app`), which the explorer writes and this module mounts into; every id,
//! attribute and event of that contract, with who writes and who reads it and what each event
//! carries, is in `ui::platform::bridge`, which both sides import (the explorer never imports
//! from this module). In short: the explorer's state arrives as a share query in `data-state`
//! (a `MutationObserver` and a zero-delay timeout sync a replica `State`, `Action::Sync`, so the
//! explorer's slider task is never lengthened by ours); the overlay, applied states, the
//! simulator's headline and auto's layout go back as events.
//!
//! The replica follows a concurrency change by evaluating one point (the curve is kept) and
//! anything else by a full load (`State::sync`). On the full page only these panels edit the
//! decision inputs; the explorer loads a change of those alone without re-evaluating
//! (`State::load`). The app mounts in three stages, a browser task each (share bar and
//! simulator; decision panels; glossary), so no task after the first chart holds the page long.

#[cfg(feature = "session-model")]
pub mod agents;
mod app_hooks;
pub mod assumptions;
pub mod break_even;
pub mod calibrate_panel;
pub mod compare;
pub mod contrast;
pub mod cost;
pub mod decision_data;
pub mod decision_panels;
pub mod error_source;
pub mod export;
pub mod leaderboard;
pub mod load_canvas;
pub mod measured_panel;
pub mod notes;
pub mod pins;
pub mod plan_panel;
pub mod production_gap;
pub mod sim_panel;
pub mod targets;

use crate::calibration::measured::MeasuredRow;
use crate::page::decision_data::DecisionData;
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::state::{Action, State, View};
use crate::present::assumptions::assumptions;
use crate::scenario::fields::Field;
use crate::share;
use crate::ui::platform::bridge::{
    CONTRAST_SLOT_ID, ERROR_SOURCE_SLOT_ID, GAP_SLOT_ID, HEADLINE_EVENT, IDEAL_ATTR,
    MEASURED_SLOT_ID, NOTES_SLOT_ID, PERSIST_ATTR, RESTORE_PINS_ATTR, SHARE_SLOT_ID, STATE_ATTR,
    TOOLS_ROOT_ID,
};
use crate::ui::tools::app_hooks::{
    use_apply, use_auto_layout, use_measured, use_mount_stage, use_overlay, use_panel_decisions,
    use_replica,
};
use crate::ui::tools::assumptions::Assumptions;
use crate::ui::tools::decision_data::use_decision_data;
use crate::ui::tools::decision_panels::DecisionPanels;
use crate::ui::tools::export::ShareBar;
use crate::ui::tools::measured_panel::MeasuredPanel;
use crate::ui::tools::notes::Notes;
use crate::ui::tools::pins::use_pin_storage;
use crate::ui::tools::production_gap::ProductionGapPanel;
use crate::ui::tools::sim_panel::SimPanel;
use crate::ui::widgets::glossary::GlossaryPanel;
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Dispatch a `CustomEvent` named `name` with a string `detail` on `target`.
pub fn send(target: &web_sys::Element, name: &str, detail: &str) {
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_str(detail));
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict(name, &init) {
        let _ = target.dispatch_event(&event);
    }
}

pub(crate) fn state_of(host: &web_sys::Element) -> String {
    host.get_attribute(STATE_ATTR).unwrap_or_default()
}

#[derive(Properties, PartialEq)]
pub struct ToolsProps {
    /// The explorer's `#tools` element this app is mounted in.
    pub host: web_sys::Element,
    /// The masthead's `#share-slot`, where the share-and-export bar goes (none: no bar).
    pub share_slot: Option<web_sys::Element>,
    /// The explorer's `#measured-slot` under the chart (none: no measured points).
    #[prop_or_default]
    pub measured_slot: Option<web_sys::Element>,
    /// The explorer's `#notes-slot` beside the chart (none: the notes render here, first).
    #[prop_or_default]
    pub notes_slot: Option<web_sys::Element>,
    /// The explorer's `#deployment-contrast-slot` in the numbers panel (none: no such line).
    #[prop_or_default]
    pub contrast_slot: Option<web_sys::Element>,
    /// The explorer's `#error-source-slot` below the latencies (none: no such details).
    #[prop_or_default]
    pub error_source_slot: Option<web_sys::Element>,
    /// The explorer's `#production-gap-slot` (none: no waterfall).
    #[prop_or_default]
    pub gap_slot: Option<web_sys::Element>,
}

/// Watches `host`'s `data-state` and `data-ideal-roofline`; calls `on_change` with them in a task
/// of its own, once per burst.
pub(crate) struct StateWatch {
    observer: web_sys::MutationObserver,
    _callback: Closure<dyn FnMut()>,
}

impl StateWatch {
    pub(crate) fn new(
        host: &web_sys::Element,
        on_change: Callback<(String, bool)>,
    ) -> Option<StateWatch> {
        let pending: Rc<RefCell<Option<Timeout>>> = Rc::new(RefCell::new(None));
        let watched = host.clone();
        let callback = Closure::<dyn FnMut()>::new(move || {
            if pending.borrow().is_some() {
                return;
            }
            let (host, on_change, done) = (watched.clone(), on_change.clone(), pending.clone());
            let timeout = Timeout::new(0, move || {
                done.borrow_mut().take();
                on_change.emit((state_of(&host), host.has_attribute(IDEAL_ATTR)));
            });
            *pending.borrow_mut() = Some(timeout);
        });
        let observer = web_sys::MutationObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        let options = web_sys::MutationObserverInit::new();
        options.set_attributes(true);
        options.set_attribute_filter(&js_sys::Array::of2(
            &JsValue::from_str(STATE_ATTR),
            &JsValue::from_str(IDEAL_ATTR),
        ));
        observer.observe_with_options(host, &options).ok()?;
        Some(StateWatch {
            observer,
            _callback: callback,
        })
    }
}

impl Drop for StateWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// The tools app: its hooks (`app_hooks.rs`), then the share bar, what goes into the explorer's
/// slots, and this module's column.
#[function_component(ToolsApp)]
pub fn tools_app(props: &ToolsProps) -> Html {
    let host = props.host.clone();
    let (state, agreed) = use_replica(&host);
    let persist = host.has_attribute(PERSIST_ATTR);
    let restore_pins = host.has_attribute(RESTORE_PINS_ATTR);
    let decisions = use_panel_decisions(&state);
    use_pin_storage(&state, &decisions.dispatcher(), persist, restore_pins);
    let stage = use_mount_stage();
    let decisions_shown = stage >= 1;
    let data = use_decision_data(
        state.view.as_ref().filter(|_| decisions_shown),
        &state.pins,
        crate::page::decision_data::Demand::of(&decisions.input, decisions.slo()),
    );
    use_auto_layout(&host, &state, &data, decisions_shown);
    let (show_measured, measured) =
        use_measured(&state, decisions_shown && props.measured_slot.is_some());
    use_overlay(&host, &data, decisions_shown, &measured, *show_measured);
    use_apply(&host, &state, &agreed);
    let on_edit = use_callback(
        state.dispatcher(),
        |(field, text): (&'static Field, String), dispatcher| {
            dispatcher.dispatch(Action::Edit(field, text));
        },
    );
    let on_import = use_callback(
        (state.dispatcher(), decisions.dispatcher()),
        |view: share::ViewState, (dispatcher, decisions)| {
            decisions.dispatch(DecisionAction::Load(Box::new(view.decision.clone())));
            dispatcher.dispatch(Action::Load(Box::new(view)));
        },
    );
    let on_headline = {
        let host = host.clone();
        use_callback(
            (),
            move |(key, r): (String, crate::decide::headline::Reconciled), _| {
                send(&host, HEADLINE_EVENT, &format!("{key}\n{}", r.encode()));
            },
        )
    };
    let share_bar = props.share_slot.clone().map(|slot| {
        create_portal(
            html! { <ShareBar view={state.view.clone()} shared={state.view_state()} {on_import} /> },
            slot,
        )
    });
    let Some(view) = state.view.clone() else {
        return html! { { for share_bar } };
    };
    let measured = Measured {
        rows: measured,
        shown: show_measured,
    };
    html! {
        <>
            { for share_bar }
            { slot_portals(props, &view, &decisions, &measured, decisions_shown) }
            { tools_column(&state, &decisions, &data, &view, on_edit, on_headline, stage) }
        </>
    }
}

/// The measured rows and their chart toggle.
struct Measured {
    rows: Rc<Vec<MeasuredRow>>,
    shown: UseStateHandle<bool>,
}

/// What the tools render into the explorer's slots: measured points, notes (here when there is
/// no slot), the deployment contrast, the error's source and the production gap.
fn slot_portals(
    props: &ToolsProps,
    view: &View,
    decisions: &UseReducerHandle<DecisionState>,
    measured: &Measured,
    decisions_shown: bool,
) -> Html {
    let measured_portal = props.measured_slot.clone().filter(|_| decisions_shown).map(|slot| {
        let on_toggle = {
            let show = measured.shown.clone();
            Callback::from(move |on: bool| show.set(on))
        };
        create_portal(
            html! { <MeasuredPanel rows={measured.rows.clone()} shown={*measured.shown} {on_toggle} /> },
            slot,
        )
    });
    // The notes and the assumptions only read the view, so they are this module's (the first
    // load stays small); the notes go beside the chart, the assumptions head this module's
    // column, where the explorer's last row would have them.
    let notes = html! { <Notes warnings={view.point.warnings.clone()} /> };
    let (notes_portal, notes_here) = match props.notes_slot.clone() {
        Some(slot) => (Some(create_portal(notes, slot)), None),
        None => (None, Some(notes)),
    };
    let contrast_portal = props.contrast_slot.clone().map(|slot| {
        create_portal(
            html! { <contrast::DeploymentContrast scenario={view.scenario.clone()} point={view.point.clone()} /> },
            slot,
        )
    });
    let error_source_portal = props.error_source_slot.clone().map(|slot| {
        let class = crate::model::expected_error::Class::of(&view.scenario, &view.point);
        create_portal(html! { <error_source::ErrorSource {class} /> }, slot)
    });
    let gap_portal = props.gap_slot.clone().filter(|_| decisions_shown).map(|slot| {
        create_portal(
            html! { <ProductionGapPanel scenario={view.scenario.clone()} decisions={decisions.clone()} /> },
            slot,
        )
    });
    html! {
        <>
            { for measured_portal }
            { for notes_portal }
            { for notes_here }
            { for contrast_portal }
            { for error_source_portal }
            { for gap_portal }
        </>
    }
}

/// This module's column, mounted in stages: the print summary, the assumptions, the agentic
/// panel, the simulator, the decision panels, then the glossary and the footer.
fn tools_column(
    state: &UseReducerHandle<State>,
    decisions: &UseReducerHandle<DecisionState>,
    data: &DecisionData,
    view: &View,
    on_edit: Callback<(&'static Field, String)>,
    on_headline: Callback<(String, crate::decide::headline::Reconciled)>,
    stage: u8,
) -> Html {
    let decisions_shown = stage >= 1;
    html! {
        <>
            if decisions_shown {
                <section class="print-only print-decision" aria-hidden="true">
                    { for crate::page::decision_data::summary_lines(&view.scenario, &data.current).into_iter().map(|line| html! { <p>{ line }</p> }) }
                </section>
            }
            <Assumptions text={assumptions(&view.scenario, &view.point)} />
            if decisions_shown {
                { agent_panel(state, decisions, &on_edit) }
            }
            <SimPanel scenario={view.scenario.clone()} point={view.point.clone()} {on_headline} />
            if decisions_shown {
                <DecisionPanels state={state.clone()} decisions={decisions.clone()} data={data.clone()} {on_edit} />
            }
            if stage >= LAST_STAGE {
                <GlossaryPanel />
                <footer class="footer">
                    <p>{ "Analytic steady-state model; every assumption is listed above. No data leaves this page." }</p>
                </footer>
            }
        </>
    }
}

/// The agentic panel (issue 27 §4), in the build with the session model.
#[cfg(feature = "session-model")]
fn agent_panel(
    state: &UseReducerHandle<State>,
    decisions: &UseReducerHandle<DecisionState>,
    on_edit: &Callback<(&'static Field, String)>,
) -> Html {
    html! { <agents::AgentPanel state={state.clone()} decisions={decisions.clone()} on_edit={on_edit.clone()} /> }
}

/// Without the session model (the explorer's build compiles this module too): nothing.
#[cfg(not(feature = "session-model"))]
fn agent_panel(
    _: &UseReducerHandle<State>,
    _: &UseReducerHandle<DecisionState>,
    _: &Callback<(&'static Field, String)>,
) -> Html {
    Html::default()
}

/// The mount's last stage (see `app_hooks::use_mount_stage`).
const LAST_STAGE: u8 = 2;

/// Mount the tools into the `#tools` element under `within` (the document when `None`), with
/// the share bar in `#share-slot` if there is one; false when there is no `#tools` (a page
/// without the explorer).
pub fn mount(within: Option<&web_sys::Element>) -> bool {
    let find = |id: &str| {
        let selector = format!("#{id}");
        match within {
            Some(root) => root.query_selector(&selector).ok().flatten(),
            None => web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.query_selector(&selector).ok().flatten()),
        }
    };
    match find(TOOLS_ROOT_ID) {
        Some(host) => {
            let props = ToolsProps {
                host: host.clone(),
                share_slot: find(SHARE_SLOT_ID),
                measured_slot: find(MEASURED_SLOT_ID),
                notes_slot: find(NOTES_SLOT_ID),
                contrast_slot: find(CONTRAST_SLOT_ID),
                error_source_slot: find(ERROR_SOURCE_SLOT_ID),
                gap_slot: find(GAP_SLOT_ID),
            };
            yew::Renderer::<ToolsApp>::with_root_and_props(host, props).render();
            true
        }
        None => false,
    }
}

/// The module's entry (`src/bin/tools.rs`): the panic hook, then mount into the page, or, in
/// the embed widget of an agentic link, only the agentic figures into its slot.
pub fn start() {
    crate::ui::platform::panic::install();
    if !mount_embed_agents() {
        mount(None);
    }
}

/// Mount the embed's agentic figures if the widget has their slot.
#[cfg(feature = "session-model")]
fn mount_embed_agents() -> bool {
    agents::mount_embed()
}

#[cfg(not(feature = "session-model"))]
fn mount_embed_agents() -> bool {
    false
}
