//! Embed mode (`?embed=1`): the compact widget a glossary or consulting page puts in an
//! `<iframe>`. Same wasm and state as the explorer, but only the chart, the batch-size slider,
//! $/M output with two throughput numbers, the controls named by `controls=`, and a link that
//! opens the same view in the full explorer.
//!
//! It tells its parent how tall it is, `postMessage({type: "servecost:height", height}, "*")`,
//! at start and whenever its size changes, and nothing else. It installs no `message`
//! listener: the widget accepts no input from the embedding page.

use crate::model::pareto::SLIDER_STEPS;
use crate::page::fields::{Field, FieldTexts, InputError};
use crate::page::state::View;
use crate::present::chart::{Marker, Projection};
use crate::present::glossary;
use crate::present::report::{format_number, format_usd};
use crate::ui::explorer::chart_canvas::ChartCanvas;
use crate::ui::explorer::controls::{Controls, INPUT_ERROR_ID};
use crate::ui::platform::share_sync::UrlNotice;
use crate::ui::widgets::metric::{group_thousands, Metric};
use crate::ui::widgets::slider::Slider;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

pub const EMBED_ID: &str = "embed";
pub const OPEN_EXPLORER_ID: &str = "open-explorer";
/// The `type` of the one message the widget sends.
pub const HEIGHT_MESSAGE_TYPE: &str = "servecost:height";

/// The embed's `controls=` ids as page fields (`gpus` is the link's name for the GPU count);
/// the rest are named in a notice.
pub fn embed_controls(ids: &[String]) -> (Vec<Field>, Vec<String>) {
    let mut fields = Vec::new();
    let mut notices = Vec::new();
    for id in ids {
        let field = match id.as_str() {
            "gpus" => Some(Field::GpuCount),
            other => Field::from_id(other),
        };
        match field {
            Some(field) if !fields.contains(&field) => fields.push(field),
            Some(_) => {}
            None => notices.push(format!(
                "ignored control `{id}`: the widget offers {}",
                Field::ALL.map(Field::id).join(", ")
            )),
        }
    }
    (fields, notices)
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
    pub texts: FieldTexts,
    pub error: Option<InputError>,
    pub slider_position: u32,
    /// The controls the link asked for, in order.
    pub controls: Vec<Field>,
    /// The same view in the full explorer.
    pub explorer_href: AttrValue,
    /// The chart's axes (a link's `x=`/`y=`).
    #[prop_or_default]
    pub projection: Projection,
    pub notices: Vec<String>,
    pub on_move: Callback<u32>,
    pub on_edit: Callback<(Field, String)>,
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

    let view = &props.view;
    let p = &*view.point;
    let scenario = &view.scenario;
    let value_text = match view.concurrency() {
        1 => "1 request in flight".to_string(),
        c => format!("{c} in flight"),
    };
    let summary = format!(
        "Throughput–latency chart for {} on {} × {}: at {} requests in flight, {} tok/s per user and {} output tok/s per GPU, {} per million output tokens.",
        scenario.model.name,
        scenario.gpu_count,
        scenario.gpu.name,
        p.concurrency,
        format_number(p.tok_s_per_user),
        format_number(p.output_tok_s_per_gpu),
        format_usd(p.usd_per_m_output)
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
            <UrlNotice notices={props.notices.clone()} />
            <div class="embed-head">
                <h1 class="embed-title">{ format!("{} on {} × {}", scenario.model.name, scenario.gpu_count, scenario.gpu.name) }</h1>
                <a id={OPEN_EXPLORER_ID} class="embed-open" href={props.explorer_href.clone()} target="_blank" rel="noopener">
                    { "Open in the full explorer" }<span aria-hidden="true">{ " ↗" }</span>
                </a>
            </div>
            if !props.controls.is_empty() {
                <div id={INPUT_ERROR_ID} class="input-error" role="alert">{ error_text }</div>
                <Controls
                    texts={props.texts.clone()}
                    error_field={props.error.as_ref().map(|e| e.field.clone())}
                    tp_hint=""
                    price_hint=""
                    on_edit={props.on_edit.clone()}
                    only={Some(props.controls.clone())}
                />
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
                    value={format_usd(p.usd_per_m_output)} unit="per M output tokens"
                    definition={glossary::USD_PER_M_TOKENS.definition} />
                <Metric name="output_tok_s_per_gpu" label="Throughput"
                    value={group_thousands(&format_number(p.output_tok_s_per_gpu))} unit="tok/s per GPU"
                    definition={glossary::THROUGHPUT.definition} />
                <Metric name="tok_s_per_user" label="Interactivity"
                    value={group_thousands(&format_number(p.tok_s_per_user))} unit="tok/s per user"
                    definition={glossary::INTERACTIVITY.definition} />
            </div>
        </main>
    }
}
