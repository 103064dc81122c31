//! The explorer's side of the link to the page's second module (`tools.rs`): it imports the
//! module once the first chart is drawn, keeps the `#tools` element's `data-state` equal to the
//! explorer's state, draws the overlay the tools send, and loads the states they apply.
//!
//! The `#tools` element is outside the explorer's root (index.html), not inside it: each module's Yew
//! delegates events from its own root, and a nested root would also see (and misroute) the other
//! module's events.

use crate::decide::headline::Reconciled;
use crate::page::knobs::{AutoLayout, KnobAction};
use crate::page::state::{Action, Shared, State};
use crate::present::chart::Overlay;
use crate::share;
use crate::ui::platform::bridge::{
    APPLY_EVENT, HEADLINE_EVENT, IDEAL_ATTR, LAYOUT_EVENT, OVERLAY_EVENT, PERSIST_ATTR,
    RESTORE_PINS_ATTR, STATE_ATTR, TOOLS_ROOT_ID,
};
use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// `<meta name="servecost-tools" content="./tools-<hash>.js">`, written by scripts/build-tools.
const MODULE_META: &str = "meta[name=\"servecost-tools\"]";

/// `<meta name="servecost-tools-css" content="./tools-<hash>.css">`: the module's stylesheet
/// (`static/tools.css`), kept out of the first load.
const STYLE_META: &str = "meta[name=\"servecost-tools-css\"]";

// The stylesheet and the module load in parallel; the module starts (mounts) once both are in,
// so its panels never show unstyled. A stylesheet that fails to load does not stop the module.
#[wasm_bindgen(inline_js = "export function import_tools(src, css) {
  const styled = css ? new Promise((done) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = new URL(css, document.baseURI).href;
    link.onload = link.onerror = done;
    document.head.appendChild(link);
  }) : Promise.resolve();
  return Promise.all([import(new URL(src, document.baseURI).href), styled])
    .then(([module]) => module.default())
    .then(() => true, (error) => { console.error('servecost: the tools module did not load', error); return false; });
}")]
extern "C" {
    /// Link the stylesheet at `css` (if any), import the module at `src` (both relative to the
    /// page) and start it; resolves to whether it ran.
    #[wasm_bindgen(catch)]
    fn import_tools(src: &str, css: Option<String>) -> Result<js_sys::Promise, JsValue>;
}

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

/// The page's `#tools` element.
pub fn page_host() -> Option<web_sys::Element> {
    document()?.get_element_by_id(TOOLS_ROOT_ID)
}

/// Import the module the page names, if it names one (a build without scripts/build-tools, or a
/// test page, names none). The page imports it after its first chart; the embed only for an
/// agentic link (`embed.rs`).
pub fn load_module() {
    let content = |selector: &str| {
        document()
            .and_then(|d| d.query_selector(selector).ok().flatten())
            .and_then(|meta| meta.get_attribute("content"))
    };
    if let Some(src) = content(MODULE_META) {
        let _ = import_tools(&src, content(STYLE_META));
    }
}

/// `load_module`, at most once in the page's life (the embed of an agentic link, whose render
/// asks for it: a flag rather than an effect hook, which would cost the first load more).
pub fn load_module_once() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static LOADED: AtomicBool = AtomicBool::new(false);
    if !LOADED.swap(true, Ordering::Relaxed) {
        load_module();
    }
}

/// What the explorer tells the link.
pub struct LinkOptions {
    /// The `#tools` element (`None`: no tools on this page, e.g. the embed widget).
    pub host: Option<web_sys::Element>,
    /// Import the module after the first render (the real page; tests mount the tools themselves).
    pub load: bool,
    /// The real page: the tools read and save pins in `localStorage`.
    pub persist: bool,
    /// The page did not open from a link: saved pins come back.
    pub restore_pins: bool,
    /// The ideal-roofline switch (a page flag the share query does not carry).
    pub ideal_roofline: bool,
}

/// Keep the tools in step with the explorer's `state` (its `view_state`, as a share query);
/// returns the overlay they last sent. `on_apply` receives each state the tools apply.
///
/// The state is encoded in an effect, after the render and its chart draw, and only on a page
/// with tools (the embed has none): a slider move's update does not wait for the encoding. The
/// `#tools` element is written only when the query or the flag changed.
#[hook]
pub fn use_tools_link(
    options: LinkOptions,
    state: &UseReducerHandle<State>,
    on_apply: Callback<share::ViewState>,
) -> (Shared<Overlay>, Option<SimulatedHeadline>) {
    let overlay = use_state(|| Shared::new(Overlay::default()));
    let headline = use_state(|| None::<SimulatedHeadline>);
    let host = options.host.clone();
    let written = use_mut_ref(|| None::<(String, bool)>);
    {
        let host = host.clone();
        // A handle compares by the state's `Rc`: the effect runs once per new state.
        use_effect_with(
            (state.clone(), options.ideal_roofline),
            move |(state, ideal)| {
                if let Some(host) = host {
                    let next = (share::encode(&state.view_state()), *ideal);
                    if written.borrow().as_ref() != Some(&next) {
                        let _ = match next.1 {
                            true => host.set_attribute(IDEAL_ATTR, ""),
                            false => host.remove_attribute(IDEAL_ATTR),
                        };
                        let _ = host.set_attribute(STATE_ATTR, &next.0);
                        *written.borrow_mut() = Some(next);
                    }
                }
            },
        );
    }
    {
        let setter = overlay.setter();
        let headline_setter = headline.setter();
        let dispatcher = state.dispatcher();
        let LinkOptions {
            load,
            persist,
            restore_pins,
            ..
        } = options;
        use_effect_with(host, move |host| {
            let listeners = host.as_ref().map(|host| {
                if persist {
                    let _ = host.set_attribute(PERSIST_ATTR, "");
                }
                if restore_pins {
                    let _ = host.set_attribute(RESTORE_PINS_ATTR, "");
                }
                let detail = |event: &web_sys::Event| {
                    event
                        .dyn_ref::<web_sys::CustomEvent>()
                        .and_then(|e| e.detail().as_string())
                };
                let on_overlay = EventListener::new(host, OVERLAY_EVENT, move |event| {
                    if let Some(text) = detail(event) {
                        setter.set(Shared::new(Overlay::decode(&text)));
                    }
                });
                let on_apply = EventListener::new(host, APPLY_EVENT, move |event| {
                    if let Some(query) = detail(event) {
                        on_apply.emit(share::decode(&query).0);
                    }
                });
                let on_headline = EventListener::new(host, HEADLINE_EVENT, move |event| {
                    let parsed = detail(event).and_then(|text| {
                        let (key, figures) = text.split_once('\n')?;
                        Some((key.to_string(), Reconciled::decode(figures)?))
                    });
                    headline_setter.set(parsed);
                });
                let on_layout = EventListener::new(host, LAYOUT_EVENT, move |event| {
                    let choice = detail(event).and_then(|text| AutoLayout::decode(&text));
                    dispatcher.dispatch(Action::Knob(KnobAction::AutoLayout(choice)));
                });
                (on_overlay, on_apply, on_headline, on_layout)
            });
            if load && listeners.is_some() {
                // After this render's chart draw (effects run children first), in a task of its own.
                Timeout::new(0, load_module).forget();
            }
            move || drop(listeners)
        });
    }
    ((*overlay).clone(), (*headline).clone())
}

/// The simulator's headline figures the tools module sent (`decide::headline`), with the key
/// of the scenario they belong to (`share::scenario_key`).
pub type SimulatedHeadline = (String, Reconciled);
