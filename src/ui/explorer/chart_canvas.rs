//! The Pareto chart on a `<canvas id="pareto-chart">`: sizes the canvas to its box in device
//! pixels, draws with `chart::draw_pareto_layered` through the page's canvas backend
//! (`canvas_backend.rs`), and redraws when the curve, the current point, the box size or the
//! colour scheme changes. Nothing here computes the model.

use crate::model::techniques::TechniqueStudy;
use crate::model::Curve;
use crate::page::state::Shared;
use crate::present::chart::{draw_pareto_layered, Layers, Marker, OtherCurve, Overlay, Projection};
use crate::ui::platform::canvas_backend::prepare;
use crate::ui::platform::perf;
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
    /// Pinned curves and SLO misses drawn on top (`chart::Overlay`); none by default.
    #[prop_or_default]
    pub overlay: Option<Shared<Overlay>>,
    /// A text equivalent of the chart for screen readers.
    pub summary: AttrValue,
    /// The technique ladder's other curves, drawn behind the main one (`model::techniques`).
    #[prop_or_default]
    pub techniques: Option<Shared<TechniqueStudy>>,
    /// Which axes to show (`chart_axes.rs`); tokens/s per user against tokens/s per GPU by default.
    #[prop_or_default]
    pub projection: Projection,
}

/// What `draw` needs besides curve, point and overlay.
struct Extras<'a> {
    techniques: Option<&'a TechniqueStudy>,
    projection: Projection,
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

/// Size the canvas backing store to its CSS box × devicePixelRatio and draw. `known_box` is the
/// box as the resize observer last saw it: reading `clientWidth` here instead would force a
/// synchronous layout of the whole page on every slider move (the DOM was just patched), which
/// was most of an update's time.
fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    curve: &Curve,
    current: &Marker,
    overlay: Option<&Overlay>,
    extras: &Extras<'_>,
    known_box: Option<(i32, i32)>,
) -> Result<(), String> {
    let (backend, options) = prepare(canvas, known_box, FALLBACK_SIZE_CSS_PX)?;
    let none = Overlay::default();
    let overlay = overlay.unwrap_or(&none);
    let others: Vec<OtherCurve<'_>> = extras
        .techniques
        .map(|study| {
            study
                .background
                .iter()
                .map(|t| OtherCurve {
                    label: &t.label,
                    short_label: t.level.short_label(),
                    curve: &t.curve,
                    series: t.level.index(),
                })
                .collect()
        })
        .unwrap_or_default();
    let main_label = extras.techniques.map(|study| {
        (
            format!("{} (current)", study.current_label),
            format!("{} (current)", study.current.short_label()),
            study.current.index(),
        )
    });
    let layers = Layers {
        projection: extras.projection,
        others: &others,
        main: main_label
            .as_ref()
            .map(|(label, short, series)| (label.as_str(), short.as_str(), *series)),
    };
    draw_pareto_layered(
        backend.into_drawing_area(),
        curve,
        current,
        overlay,
        &layers,
        &options,
    )
}

/// What a draw depends on: curve, current point, overlay, technique curves, axes, layout bump.
type DrawKey = (
    Shared<Curve>,
    Marker,
    Option<Shared<Overlay>>,
    Option<Shared<TechniqueStudy>>,
    Projection,
    u32,
);

/// Draw `key` on the canvas behind `canvas_ref`, recording the draw (`perf`) and showing a
/// failure under the chart; false when the canvas is not attached (nothing drawn).
fn draw_keyed(
    canvas_ref: &NodeRef,
    key: &DrawKey,
    known_box: Option<(i32, i32)>,
    failure: &UseStateHandle<Option<String>>,
) -> bool {
    let Some(canvas) = canvas_ref.cast::<web_sys::HtmlCanvasElement>() else {
        return false;
    };
    let (curve, current, overlay, techniques, projection, _) = key;
    perf::mark_draw_start();
    let extras = Extras {
        techniques: techniques.as_deref(),
        projection: *projection,
    };
    match draw(
        &canvas,
        curve,
        current,
        overlay.as_deref(),
        &extras,
        known_box,
    ) {
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
    true
}

#[function_component(ChartCanvas)]
pub fn chart_canvas(props: &ChartCanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let layout = use_reducer(Layout::default);
    let failure = use_state(|| None::<String>);
    // The canvas's CSS box (clientWidth, clientHeight), kept by the resize observer.
    let known_box = use_mut_ref(|| None::<(i32, i32)>);

    // Redraw on every change of curve, marker or layout.
    let key: DrawKey = (
        props.curve.clone(),
        props.current,
        props.overlay.clone(),
        props.techniques.clone(),
        props.projection,
        layout.0,
    );
    // The first draw runs in a microtask right after Yew has attached the DOM, before the
    // browser's first frame. Yew runs effects only after it yields to the browser (its scheduler
    // yields every 16 ms, and the first render takes longer), so the effect below would draw only
    // after a whole style, layout and paint of the cold page: the first chart came ~80 ms later.
    let early = use_mut_ref(|| None::<DrawKey>);
    let drawn = use_mut_ref(|| false);
    let first = use_mut_ref(|| true);
    if std::mem::replace(&mut *first.borrow_mut(), false) {
        let (canvas_ref, failure, known_box) =
            (canvas_ref.clone(), failure.clone(), known_box.clone());
        let (early, drawn, key) = (early.clone(), drawn.clone(), key.clone());
        wasm_bindgen_futures::spawn_local(async move {
            // Unless the effect came first (a render quick enough that Yew did not yield).
            if !*drawn.borrow() && draw_keyed(&canvas_ref, &key, *known_box.borrow(), &failure) {
                *drawn.borrow_mut() = true;
                *early.borrow_mut() = Some(key);
            }
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        let failure = failure.clone();
        let known_box = known_box.clone();
        use_effect_with(key, move |key| {
            // Already drawn for exactly these inputs by the first-draw microtask.
            if early.borrow_mut().take().as_ref() != Some(key)
                && draw_keyed(&canvas_ref, key, *known_box.borrow(), &failure)
            {
                *drawn.borrow_mut() = true;
            }
        });
    }

    // Watch the canvas box and the colour scheme for as long as the chart is mounted.
    {
        let canvas_ref = canvas_ref.clone();
        let bump = layout.dispatcher();
        use_effect_with((), move |_| {
            let on_resize = {
                let bump = bump.clone();
                let canvas_ref = canvas_ref.clone();
                // Layout is fresh when the observer reports, so reading the box here is free.
                Closure::<dyn Fn()>::new(move || {
                    if let Some(canvas) = canvas_ref.cast::<web_sys::Element>() {
                        *known_box.borrow_mut() =
                            Some((canvas.client_width(), canvas.client_height()));
                    }
                    bump.dispatch(())
                })
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
