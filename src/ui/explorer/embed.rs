//! Embed mode (`?embed=1`): the compact widget a glossary or consulting page puts in an
//! `<iframe>`. Same wasm and state as the explorer, but only the chart, the batch-size slider,
//! $/M output with two throughput numbers ("—" and a hint asking for a price when there is
//! none), the controls named by `controls=`, and a link that opens the same view in the full
//! explorer. What the link held that could not be used is listed under the numbers, never over
//! the chart; a link whose scenario does not validate gets its error in the chart's place
//! (`app.rs`).
//!
//! It tells its parent how tall it is, `postMessage({type: "servecost:height", height}, "*")`,
//! at start and whenever its size changes, and nothing else. It installs no `message`
//! listener: the widget accepts no input from the embedding page.

use crate::choice::Choice;
use crate::model::expected_error::{plus_minus, point_errors, Class};
use crate::model::pareto::SLIDER_STEPS;
use crate::page::fields::{InputError, Texts};
use crate::page::knobs::{KnobAction, Knobs};
use crate::page::state::View;
use crate::present::chart::{Marker, Projection};
use crate::present::format::{format_number, format_usd};
use crate::present::glossary;
use crate::scenario::fields::{
    workload_of, Field, CONCURRENCY, CUSTOM_MODEL, CUSTOM_WORKLOAD, GPU, MODEL, TP,
    USD_PER_GPU_HOUR, WORKLOAD,
};
use crate::scenario::{DecisionInput, ScenarioInput};
use crate::ui::explorer::chart_canvas::ChartCanvas;
use crate::ui::explorer::controls::{gpu_options, model_options, tp_options, INPUT_ERROR_ID};
use crate::ui::explorer::custom_model::CustomModel;
use crate::ui::platform::bridge::EMBED_AGENTS_SLOT_ID;
use crate::ui::platform::share_sync::UrlNotice;
use crate::ui::widgets::field_control::FieldContext;
use crate::ui::widgets::metric::{group_thousands, Metric};
use crate::ui::widgets::price::{enter_price_hint, usd_or_dash};
use crate::ui::widgets::slider::Slider;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

pub const EMBED_ID: &str = "embed";
pub const OPEN_EXPLORER_ID: &str = "open-explorer";
/// The hint asking for a price when the scenario has none.
pub const EMBED_NO_PRICE_ID: &str = "embed-no-price";
/// The `type` of the one message the widget sends.
pub const HEIGHT_MESSAGE_TYPE: &str = crate::share::EMBED_HEIGHT_MESSAGE;

/// The control of one `controls=` field, with the page's catalog options where it has them.
fn embed_control(props: &EmbedProps, context: &FieldContext, field: &'static Field) -> Html {
    if *field == CUSTOM_MODEL {
        return html! {
            <CustomModel knobs={props.knobs.clone()} model={AttrValue::from(props.texts.get(&MODEL).to_string())}
                error_field={props.error.as_ref().map(|e| e.field.clone())} on_knob={props.on_knob.clone()} />
        };
    }
    let text = if *field == WORKLOAD {
        props
            .texts
            .parse(&ScenarioInput::default(), None)
            .map_or(CUSTOM_WORKLOAD, |input| workload_of(&input))
            .to_string()
    } else if *field == CONCURRENCY {
        props.view.concurrency().to_string()
    } else if field.is_decision() {
        field.get_decision(&props.decision).unwrap_or_default()
    } else {
        props.texts.get(field).to_string()
    };
    if *field == MODEL {
        context.select(field, &text, Some(model_options(false)), None)
    } else if *field == GPU {
        context.select(field, &text, Some(gpu_options()), None)
    } else if *field == TP {
        let current = if text.is_empty() { "auto" } else { &text };
        context.select(field, current, Some(tp_options()), None)
    } else {
        context.control(field, &text, None)
    }
}

/// Post the document's height to the parent window, if there is one and it changed.
fn post_height(last: &Cell<i32>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(parent) = window.parent().ok().flatten() else {
        return;
    };
    if JsValue::from(&parent) == JsValue::from(&window) {
        return; // not framed
    }
    let Some(height) = window
        .document()
        .and_then(|d| d.document_element())
        .map(|root| root.scroll_height())
    else {
        return;
    };
    if height == last.get() {
        return;
    }
    last.set(height);
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE_TYPE.into());
    let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
    let _ = parent.post_message(&message, "*");
}

#[derive(Properties, PartialEq)]
pub struct EmbedProps {
    pub view: View,
    pub texts: Texts,
    pub knobs: Knobs,
    pub decision: DecisionInput,
    pub error: Option<InputError>,
    pub slider_position: u32,
    /// The controls the link asked for, in order.
    pub controls: Vec<&'static Field>,
    /// The same view in the full explorer.
    pub explorer_href: AttrValue,
    /// The chart's axes (a link's `x=`/`y=`).
    #[prop_or_default]
    pub projection: Projection,
    pub notices: Vec<String>,
    pub on_move: Callback<u32>,
    pub on_edit: Callback<(&'static Field, String)>,
    pub on_knob: Callback<KnobAction>,
}

#[function_component(EmbedView)]
pub fn embed_view(props: &EmbedProps) -> Html {
    let root = use_node_ref();
    {
        // Report the height at start and on every size change, for as long as we are mounted.
        let root = root.clone();
        use_effect_with((), move |_| {
            let last = Rc::new(Cell::new(-1));
            post_height(&last);
            let on_resize = Closure::<dyn Fn()>::new(move || post_height(&last));
            let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok();
            if let (Some(observer), Some(element)) = (&observer, root.cast::<web_sys::Element>()) {
                observer.observe(&element);
            }
            move || {
                if let Some(observer) = observer {
                    observer.disconnect();
                }
                drop(on_resize);
            }
        });
    }

    // An agentic link (issue 27 §4): the explorer does not model sessions, so the deferred
    // module (which does) is imported for this case alone and fills the slot under the numbers.
    let agentic =
        crate::share::is_agentic(&props.view.scenario.input, &props.decision).then(|| {
            crate::share::encode(&crate::share::ViewState {
                scenario: props.view.scenario.input.clone(),
                decision: props.decision.clone(),
                ..Default::default()
            })
        });
    if agentic.is_some() {
        crate::ui::platform::tools_link::load_module_once();
    }
    let view = &props.view;
    let p = &*view.point;
    let context = FieldContext {
        error_field: props.error.as_ref().map(|e| e.field.clone()),
        on_edit: props.on_edit.clone(),
    };
    let scenario = &view.scenario;
    let value_text = match view.concurrency() {
        1 => "1 request in flight".to_string(),
        c => format!("{c} in flight"),
    };
    // The expected errors the explorer's numbers carry (`model::expected_error`), on the same two.
    let errors = point_errors(Class::of(scenario, p));
    let pm = |pct: Option<f64>| pct.map(|pct| AttrValue::from(plus_minus(pct)));
    let usd_error = p.cost.as_ref().and(pm(errors.usd_per_m_output_error_pct));
    let tok_s_error = pm(errors.output_tok_s_error_pct);
    // The price the cost assumes and its basis, beside it (issue 26 §6): an embedded figure
    // travels without the explorer's price control; a link naming a GPU but no price has the
    // catalog's typical quote for it, as the explorer does (docs/EMBED.md).
    let price_clause = |per: &str| {
        scenario
            .usd_per_gpu_hour
            .map(|price| {
                let basis = crate::decide::pricing::tier_of(&scenario.gpu, price)
                    .map_or(crate::decide::pricing::YOUR_PRICE.to_string(), |tier| {
                        format!("catalog {}", tier.id())
                    });
                format!(" at ${price}{per}, {basis}")
            })
            .unwrap_or_default()
    };
    let summary = format!(
        "Throughput–latency chart for {} on {} × {}: at {} requests in flight, {} tok/s per user and {} output tok/s per GPU, {}.",
        scenario.model.name,
        scenario.total_gpus(),
        scenario.gpu.name,
        p.concurrency,
        format_number(p.tok_s_per_user),
        format_number(p.output_tok_s_per_gpu),
        p.usd_per_m_output.map_or_else(
            || "no cost without a price per GPU-hour".to_string(),
            |usd| format!(
                "{} per million output tokens{}",
                format_usd(usd),
                price_clause(" per GPU-hour")
            )
        )
    );
    let error_text = props
        .error
        .as_ref()
        .map(|e| {
            format!(
                "{} (showing the last valid scenario).",
                e.text().trim_end_matches('.')
            )
        })
        .unwrap_or_default();
    html! {
        <main class="embed" id={EMBED_ID} ref={root}>
            // Under the numbers (CSS `order`), never over the chart: a 600 × 400 frame has no room
            // above it.
            <UrlNotice notices={props.notices.clone()} />
            <div class="embed-head">
                <h1 class="embed-title">{ format!("{} on {} × {}", scenario.model.name, scenario.total_gpus(), scenario.gpu.name) }</h1>
                // The conditions the numbers hold under, with the price's basis (issue 28 §5).
                <p class="embed-conditions" id="embed-conditions">{ crate::present::sentences::conditions_line(scenario) }</p>
                <a id={OPEN_EXPLORER_ID} class="embed-open" href={props.explorer_href.clone()} target="_blank" rel="noopener">
                    { "Open in the full explorer" }<span aria-hidden="true">{ " ↗" }</span>
                </a>
            </div>
            if !props.controls.is_empty() {
                <div id={INPUT_ERROR_ID} class="input-error" role="alert">{ error_text }</div>
                <form class="controls" aria-label="Scenario" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                    { for props.controls.iter().map(|field| embed_control(props, &context, field)) }
                </form>
            }
            <ChartCanvas curve={view.curve.clone()} current={Marker::from(p)} {summary} projection={props.projection} />
            <Slider
                id={crate::ui::explorer::app::SLIDER_ID}
                label="Batch size"
                position={props.slider_position}
                steps={SLIDER_STEPS}
                max_value={view.engine_limit()}
                {value_text}
                on_move={props.on_move.clone()}
            />
            <div class="embed-numbers metrics">
                <Metric name="usd_per_m_output" label="Cost" primary=true
                    value={usd_or_dash(p.usd_per_m_output)} unit="per M output tokens"
                    error={usd_error}
                    definition={glossary::USD_PER_M_TOKENS.definition} />
                <Metric name="output_tok_s_per_gpu" label="Throughput"
                    value={group_thousands(&format_number(p.output_tok_s_per_gpu))} unit="tok/s per GPU"
                    error={tok_s_error}
                    definition={glossary::THROUGHPUT.definition} />
                <Metric name="tok_s_per_user" label="Interactivity"
                    value={group_thousands(&format_number(p.tok_s_per_user))} unit="tok/s per user"
                    definition={glossary::INTERACTIVITY.definition} />
            </div>
            if p.cost.is_none() {
                { enter_price_hint(EMBED_NO_PRICE_ID, &scenario.gpu.name, props.controls.iter().any(|f| f.key == USD_PER_GPU_HOUR.key)) }
            }
            if let Some(state) = agentic {
                <div id={EMBED_AGENTS_SLOT_ID} class="embed-agents-slot" data-state={state}></div>
            }
        </main>
    }
}
