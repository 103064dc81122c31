//! The Pareto chart on a `<canvas id="pareto-chart">`: sizes the canvas to its box in device
//! pixels, draws with `chart::draw_pareto` through plotters-canvas, and redraws when the curve,
//! the current point, the box size or the colour scheme changes. Nothing here computes the model.

use super::canvas_backend::MeasuringCanvas;
use super::perf;
use super::state::Shared;
use crate::chart::{draw_pareto, ChartOptions, Marker, Theme};
use crate::model::Curve;
use plotters::prelude::IntoDrawingArea;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub const CHART_ID: &str = "pareto-chart";
/// Used when the canvas has no layout box yet (e.g. mounted in a detached test container).
const FALLBACK_SIZE_CSS_PX: (f64, f64) = (640.0, 400.0);

#[derive(Properties, PartialEq)]
pub struct ChartCanvasProps {
    pub curve: Shared<Curve>,
    pub current: Marker,
    /// A text equivalent of the chart for screen readers.
    pub summary: AttrValue,
}

/// Bumped by the resize observer and the colour-scheme listener to force a redraw.
#[derive(Default, PartialEq)]
struct Layout(u32);

impl Reducible for Layout {
    type Action = ();
    fn reduce(self: Rc<Self>, _: ()) -> Rc<Self> {
        Rc::new(Layout(self.0.wrapping_add(1)))
    }
}

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|query| query.matches())
}

/// Size the canvas backing store to its CSS box × devicePixelRatio and draw.
fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    curve: &Curve,
    current: &Marker,
) -> Result<(), String> {
    let ratio = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .clamp(1.0, 3.0);
    let (css_width, css_height) = match (canvas.client_width(), canvas.client_height()) {
        (w, h) if w > 0 && h > 0 => (f64::from(w), f64::from(h)),
        _ => FALLBACK_SIZE_CSS_PX,
    };
    let width = (css_width * ratio).round() as u32;
    let height = (css_height * ratio).round() as u32;
    if canvas.width() != width {
        canvas.set_width(width);
    }
    if canvas.height() != height {
        canvas.set_height(height);
    }
    let backend = MeasuringCanvas::new(canvas)
        .ok_or_else(|| "the browser gave no 2D canvas context".to_string())?;
    let options = ChartOptions {
        theme: if prefers_dark() {
            Theme::Dark
        } else {
            Theme::Light
        },
        scale: ratio,
    };
    draw_pareto(backend.into_drawing_area(), curve, current, &options)
}

#[function_component(ChartCanvas)]
pub fn chart_canvas(props: &ChartCanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let layout = use_reducer(Layout::default);
    let failure = use_state(|| None::<String>);

    // Redraw on every change of curve, marker or layout.
    {
        let canvas_ref = canvas_ref.clone();
        let failure = failure.clone();
        use_effect_with(
            (props.curve.clone(), props.current, layout.0),
            move |(curve, current, _)| {
                if let Some(canvas) = canvas_ref.cast::<web_sys::HtmlCanvasElement>() {
                    perf::mark_draw_start();
                    match draw(&canvas, curve, current) {
                        Ok(()) => {
                            if failure.is_some() {
                                failure.set(None);
                            }
                        }
                        Err(message) => {
                            gloo::console::error!(format!("servecost: {message}"));
                            failure.set(Some(message));
                        }
                    }
                    perf::record_draw();
                }
            },
        );
    }

    // Watch the canvas box and the colour scheme for as long as the chart is mounted.
    {
        let canvas_ref = canvas_ref.clone();
        let bump = layout.dispatcher();
        use_effect_with((), move |_| {
            let on_resize = {
                let bump = bump.clone();
                Closure::<dyn Fn()>::new(move || bump.dispatch(()))
            };
            let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok();
            if let (Some(observer), Some(canvas)) =
                (&observer, canvas_ref.cast::<web_sys::Element>())
            {
                observer.observe(&canvas);
            }
            let scheme = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
            let on_scheme = Closure::<dyn Fn()>::new(move || bump.dispatch(()));
            if let Some(scheme) = &scheme {
                let _ = scheme
                    .add_event_listener_with_callback("change", on_scheme.as_ref().unchecked_ref());
            }
            move || {
                if let Some(observer) = observer {
                    observer.disconnect();
                }
                if let Some(scheme) = scheme {
                    let _ = scheme.remove_event_listener_with_callback(
                        "change",
                        on_scheme.as_ref().unchecked_ref(),
                    );
                }
                drop(on_resize);
                drop(on_scheme);
            }
        });
    }

    html! {
        <div class="chart-frame">
            <canvas id={CHART_ID} ref={canvas_ref} role="img" aria-label={props.summary.clone()}>
                { props.summary.clone() }
            </canvas>
            if let Some(message) = (*failure).clone() {
                <p class="chart-failure" role="status">{ format!("The chart could not be drawn ({message}); the numbers are still current.") }</p>
            }
        </div>
    }
}
