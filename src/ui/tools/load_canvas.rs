//! The latency-vs-load chart on a `<canvas id="load-chart">`: sized to its box in device pixels
//! and drawn with `chart::load::draw_latency_vs_load`, redrawn when the simulated points, the box
//! size or the colour scheme change. Unlike the Pareto chart it is not instrumented (`perf`): it
//! redraws when the simulator delivers, never on a slider move.

use crate::present::chart::load::{draw_latency_vs_load, LoadChart};
use crate::sim::load::LoadPoint;
use crate::ui::platform::canvas_backend::prepare;
use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub const LOAD_CHART_ID: &str = "load-chart";
const FALLBACK_SIZE_CSS_PX: (f64, f64) = (640.0, 420.0);

#[derive(Properties, PartialEq)]
pub struct LoadCanvasProps {
    pub points: Vec<LoadPoint>,
    pub capacity_per_s: f64,
    pub saturation_per_s: Option<f64>,
    /// A text equivalent for screen readers.
    pub summary: AttrValue,
}

fn draw(canvas: &web_sys::HtmlCanvasElement, chart: &LoadChart<'_>) -> Result<(), String> {
    let (backend, options) = prepare(canvas, None, FALLBACK_SIZE_CSS_PX)?;
    draw_latency_vs_load(backend.into_drawing_area(), chart, &options)
}

#[function_component(LoadCanvas)]
pub fn load_canvas(props: &LoadCanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let resized = use_state(|| 0u32);
    let failure = use_state(|| None::<String>);
    {
        let canvas_ref = canvas_ref.clone();
        let failure = failure.clone();
        use_effect_with(
            (
                props.points.clone(),
                props.capacity_per_s.to_bits(),
                props.saturation_per_s.map(f64::to_bits),
                *resized,
            ),
            move |(points, capacity, saturation, _)| {
                if let Some(canvas) = canvas_ref.cast::<web_sys::HtmlCanvasElement>() {
                    let chart = LoadChart {
                        points,
                        capacity_per_s: f64::from_bits(*capacity),
                        saturation_per_s: saturation.map(f64::from_bits),
                    };
                    let outcome = draw(&canvas, &chart).err();
                    if *failure != outcome {
                        failure.set(outcome);
                    }
                }
            },
        );
    }
    {
        let canvas_ref = canvas_ref.clone();
        let resized = resized.setter();
        use_effect_with((), move |_| {
            let counter = std::rc::Rc::new(std::cell::Cell::new(0u32));
            let on_resize = Closure::<dyn Fn()>::new(move || {
                counter.set(counter.get().wrapping_add(1));
                resized.set(counter.get());
            });
            let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok();
            if let (Some(observer), Some(canvas)) =
                (&observer, canvas_ref.cast::<web_sys::Element>())
            {
                observer.observe(&canvas);
            }
            move || {
                if let Some(observer) = observer {
                    observer.disconnect();
                }
                drop(on_resize);
            }
        });
    }
    html! {
        <div class="load-frame">
            <canvas id={LOAD_CHART_ID} ref={canvas_ref} role="img" aria-label={props.summary.clone()}>
                { props.summary.clone() }
            </canvas>
            if let Some(message) = (*failure).clone() {
                <p class="chart-failure" role="status">{ format!("The latency chart could not be drawn ({message}).") }</p>
            }
        </div>
    }
}
