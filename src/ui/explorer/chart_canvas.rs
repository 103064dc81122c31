//! The Pareto chart on a `<canvas id="pareto-chart">`: sizes the canvas to its box in device
//! pixels, draws with `chart::draw_pareto_layered` through the page's canvas backend
//! (`canvas_backend.rs`), and redraws when the curve, the current point, the box size or the
//! colour scheme changes. Nothing here computes the model.
//!
//! Pointing at a curve point (hover, or focus the canvas and press ← →) shows its numbers in
//! an HTML tooltip (`#chart-tooltip`) with a ring over the point, both placed by
//! `chart::hit` from the last draw's frame: the canvas is not redrawn for them, so the kept base
//! stays valid. A click or Enter picks the point (`on_pick`: the page moves the slider there).

use crate::model::techniques::TechniqueStudy;
use crate::model::Curve;
use crate::page::state::Shared;
use crate::present::chart::hit::{self, Target};
use crate::present::chart::{
    draw_pareto_part, ChartOptions, Frame, Layers, Marker, OtherCurve, Overlay, Part, Projection,
};
use crate::ui::platform::canvas_backend::{prepare, CanvasBackend};
use crate::ui::platform::perf;
use plotters::prelude::IntoDrawingArea;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub const CHART_ID: &str = "pareto-chart";
pub const TOOLTIP_ID: &str = "chart-tooltip";
/// How far from a point (CSS px) the pointer still picks it.
const REACH_CSS_PX: f64 = 24.0;
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
    /// The expected tok/s error per regime, drawn as a band around the curve (`chart::band`).
    #[prop_or_default]
    pub error_band: [Option<f64>; 3],
    /// A curve point was clicked or picked with Enter: its concurrency.
    #[prop_or_default]
    pub on_pick: Option<Callback<u32>>,
}

/// A pointed-at curve point and the draw it was placed in.
type Focus = (Target, Shared<Curve>, Projection, u32);

/// Bumped by the resize observer and the colour-scheme listener to force a redraw.
#[derive(Default, PartialEq)]
struct Layout(u32);

impl Reducible for Layout {
    type Action = ();
    fn reduce(self: Rc<Self>, _: ()) -> Rc<Self> {
        Rc::new(Layout(self.0.wrapping_add(1)))
    }
}

/// The chart's base (everything but the current point, `chart::Part::Base`) as last painted,
/// on a canvas off the page, and what it was painted for; or only the inputs of the last draw,
/// until a second draw of the same inputs paints a base.
struct Base {
    canvas: Option<web_sys::HtmlCanvasElement>,
    inputs: BaseInputs,
    frame: Option<Frame>,
}

/// Everything the base depends on besides the frame: all the inputs but the current point.
#[derive(PartialEq)]
struct BaseInputs {
    curve: Shared<Curve>,
    overlay: Option<Shared<Overlay>>,
    techniques: Option<Shared<TechniqueStudy>>,
    projection: Projection,
    error_band: [Option<f64>; 3],
    size: (u32, u32),
    options: ChartOptions,
}

/// Size the canvas backing store to its CSS box × devicePixelRatio and draw. `known_box` is the
/// box as the resize observer last saw it: reading `clientWidth` here instead would force a
/// synchronous layout of the whole page on every slider move (the DOM was just patched), which
/// was most of an update's time.
///
/// A slider move changes only the current point: when everything else and the frame (legend
/// layout, axes) are as they were, the kept base is copied onto the canvas and only the current
/// point is drawn over it (text is most of a chart draw's time, and the base holds nearly all of
/// it). A second draw of the same inputs without a usable base paints the base afresh off the
/// page, copies it and draws the current point; a draw of new inputs (the first chart, a new
/// scenario) draws the whole chart at once.
fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    key: &DrawKey,
    known_box: Option<(i32, i32)>,
    kept: &RefCell<Option<Base>>,
) -> Result<Frame, String> {
    let (curve, current, overlay, techniques, projection, _, error_band) = key;
    let (backend, options) = prepare(canvas, known_box, FALLBACK_SIZE_CSS_PX)?;
    let none = Overlay::default();
    let overlay_drawn = overlay.as_deref().unwrap_or(&none);
    let others: Vec<OtherCurve<'_>> = techniques
        .as_deref()
        .map(|study| study.background.iter().map(OtherCurve::from).collect())
        .unwrap_or_default();
    let main_label = techniques.as_deref().map(|study| {
        (
            format!("{} (current)", study.current_label),
            format!("{} (current)", study.current.short_label()),
            study.current.index(),
        )
    });
    let layers = Layers {
        projection: *projection,
        others: &others,
        main: main_label
            .as_ref()
            .map(|(label, short, series)| (label.as_str(), short.as_str(), *series)),
        error_band: *error_band,
    };
    let inputs = BaseInputs {
        curve: curve.clone(),
        overlay: overlay.clone(),
        techniques: techniques.clone(),
        projection: *projection,
        error_band: *error_band,
        size: (canvas.width(), canvas.height()),
        options,
    };
    let part = |backend: CanvasBackend, part: Part| {
        draw_pareto_part(
            backend.into_drawing_area(),
            curve,
            current,
            overlay_drawn,
            &layers,
            &options,
            part,
        )
    };
    let context = backend.context().clone();
    let copy = |base: &web_sys::HtmlCanvasElement| {
        context
            .draw_image_with_html_canvas_element(base, 0.0, 0.0)
            .map_err(|e| format!("copying the chart's base: {e:?}"))
    };
    let mut kept = kept.borrow_mut();
    let reusable = kept.take().filter(|base| base.inputs == inputs);
    let Some(base) = reusable else {
        // New inputs: the whole chart at once. Only a second draw of the same inputs (a slider
        // move) pays for painting a base to keep.
        let frame = part(backend, Part::All)?;
        *kept = Some(Base {
            canvas: None,
            inputs,
            frame: None,
        });
        return Ok(frame);
    };
    let mut backend = Some(backend);
    if let (Some(canvas), Some(frame)) = (&base.canvas, &base.frame) {
        copy(canvas)?;
        let visible = backend.take().ok_or("no backend")?;
        let drawn = part(visible, Part::Current)?;
        if drawn == *frame {
            *kept = Some(base);
            return Ok(drawn);
        }
    }
    // The base afresh, off the page, then copied and the current point drawn over it.
    let base_canvas = match base.canvas {
        Some(canvas) => canvas,
        None => offscreen_canvas().ok_or("no canvas for the chart's base")?,
    };
    base_canvas.set_width(inputs.size.0);
    base_canvas.set_height(inputs.size.1);
    let base_backend =
        CanvasBackend::new(&base_canvas).ok_or("the browser gave no 2D canvas context")?;
    let frame = part(base_backend, Part::Base)?;
    copy(&base_canvas)?;
    let visible = match backend {
        Some(backend) => backend,
        None => CanvasBackend::new(canvas).ok_or("the browser gave no 2D canvas context")?,
    };
    part(visible, Part::Current)?;
    *kept = Some(Base {
        canvas: Some(base_canvas),
        inputs,
        frame: Some(frame.clone()),
    });
    Ok(frame)
}

/// A canvas that is not in the document (the base's).
fn offscreen_canvas() -> Option<web_sys::HtmlCanvasElement> {
    web_sys::window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into()
        .ok()
}

/// What a draw depends on: curve, current point, overlay, technique curves, axes, layout bump,
/// error band.
type DrawKey = (
    Shared<Curve>,
    Marker,
    Option<Shared<Overlay>>,
    Option<Shared<TechniqueStudy>>,
    Projection,
    u32,
    [Option<f64>; 3],
);

/// Draw `key` on the canvas behind `canvas_ref`, recording the draw (`perf`) and showing a
/// failure under the chart; false when the canvas is not attached (nothing drawn).
fn draw_keyed(
    canvas_ref: &NodeRef,
    key: &DrawKey,
    known_box: Option<(i32, i32)>,
    failure: &UseStateHandle<Option<String>>,
    kept: &RefCell<Option<Base>>,
    drawn_frame: &RefCell<Option<Frame>>,
) -> bool {
    let Some(canvas) = canvas_ref.cast::<web_sys::HtmlCanvasElement>() else {
        return false;
    };
    perf::mark_draw_start();
    match draw(&canvas, key, known_box, kept) {
        Ok(frame) => {
            *drawn_frame.borrow_mut() = Some(frame);
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
    // The last painted base of the chart (`draw`).
    let kept = use_mut_ref(|| None::<Base>);
    // The frame of the last draw (`chart::hit` places points by it) and the pointed-at point.
    let drawn_frame = use_mut_ref(|| None::<Frame>);
    // The pointed-at point, with the draw it was placed in (curve, axes, layout bump): a new
    // draw leaves it stale, and it is shown only for the draw it belongs to.
    let focus = use_state(|| None::<Focus>);

    // Redraw on every change of curve, marker or layout.
    let key: DrawKey = (
        props.curve.clone(),
        props.current,
        props.overlay.clone(),
        props.techniques.clone(),
        props.projection,
        layout.0,
        props.error_band,
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
        let (early, drawn, key, kept) = (early.clone(), drawn.clone(), key.clone(), kept.clone());
        let drawn_frame = drawn_frame.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Unless the effect came first (a render quick enough that Yew did not yield).
            if !*drawn.borrow()
                && draw_keyed(
                    &canvas_ref,
                    &key,
                    *known_box.borrow(),
                    &failure,
                    &kept,
                    &drawn_frame,
                )
            {
                *drawn.borrow_mut() = true;
                *early.borrow_mut() = Some(key);
            }
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        let failure = failure.clone();
        let known_box = known_box.clone();
        let drawn_frame = drawn_frame.clone();
        use_effect_with(key, move |key| {
            // Already drawn for exactly these inputs by the first-draw microtask.
            if early.borrow_mut().take().as_ref() != Some(key)
                && draw_keyed(
                    &canvas_ref,
                    key,
                    *known_box.borrow(),
                    &failure,
                    &kept,
                    &drawn_frame,
                )
            {
                *drawn.borrow_mut() = true;
            }
        });
    }

    // Watch the canvas box and the colour scheme for as long as the chart is mounted.
    {
        let canvas_ref = canvas_ref.clone();
        let known_box = known_box.clone();
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

    // Backend pixels per CSS pixel, from the box the resize observer saw.
    let scale = {
        let (canvas_ref, known_box) = (canvas_ref.clone(), known_box.clone());
        move || {
            let width = canvas_ref
                .cast::<web_sys::HtmlCanvasElement>()
                .map_or(0, |c| c.width());
            match *known_box.borrow() {
                Some((css, _)) if css > 0 => f64::from(width) / f64::from(css),
                _ => 1.0,
            }
        }
    };
    // The curve's pickable points as the last draw placed them.
    let targets = {
        let (curve, projection, drawn_frame) =
            (props.curve.clone(), props.projection, drawn_frame.clone());
        move || {
            drawn_frame
                .borrow()
                .as_ref()
                .map(|frame| hit::targets(&curve, frame, &projection))
                .unwrap_or_default()
        }
    };
    let pointed = {
        let (targets, scale) = (targets.clone(), scale.clone());
        move |event: &MouseEvent| {
            let scale = scale();
            let pixel = (
                f64::from(event.offset_x()) * scale,
                f64::from(event.offset_y()) * scale,
            );
            hit::nearest(&targets(), pixel, REACH_CSS_PX * scale)
        }
    };
    let pick = {
        let (on_pick, curve) = (props.on_pick.clone(), props.curve.clone());
        move |target: Target| {
            if let (Some(on_pick), Some(point)) = (&on_pick, curve.points.get(target.index)) {
                on_pick.emit(point.concurrency);
            }
        }
    };
    let drawn_as = (props.curve.clone(), props.projection, layout.0);
    let focused = {
        let drawn_as = drawn_as.clone();
        move |target: Option<Target>| {
            let (curve, projection, layout) = drawn_as.clone();
            target.map(|target| (target, curve, projection, layout))
        }
    };
    let current_focus = (*focus)
        .clone()
        .filter(|(_, curve, projection, layout)| {
            (curve, *projection, *layout) == (&drawn_as.0, drawn_as.1, drawn_as.2)
        })
        .map(|(target, ..)| target);
    let on_move = {
        let (focus, pointed, focused) = (focus.clone(), pointed.clone(), focused.clone());
        Callback::from(move |event: MouseEvent| {
            let target = pointed(&event);
            if current_focus != target {
                focus.set(focused(target));
            }
        })
    };
    let on_click = {
        let pick = pick.clone();
        Callback::from(move |event: MouseEvent| {
            if let Some(target) = pointed(&event) {
                pick(target);
            }
        })
    };
    let on_key = {
        let (focus, curve, current) = (focus.clone(), props.curve.clone(), props.current);
        Callback::from(move |event: KeyboardEvent| {
            let right = match event.key().as_str() {
                "ArrowRight" => true,
                "ArrowLeft" => false,
                "Enter" => {
                    if let Some(target) = current_focus {
                        pick(target);
                    }
                    return;
                }
                "Escape" => return focus.set(None),
                _ => return,
            };
            event.prevent_default();
            let start = curve
                .points
                .iter()
                .enumerate()
                .min_by_key(|(_, p)| p.concurrency.abs_diff(current.concurrency))
                .map_or(0, |(i, _)| i);
            let from = current_focus.map(|t| t.index);
            focus.set(focused(hit::step(&targets(), from, start, right)));
        })
    };
    let on_leave = {
        let focus = focus.clone();
        Callback::from(move |_: FocusEvent| focus.set(None))
    };
    let on_out = {
        let focus = focus.clone();
        Callback::from(move |_: MouseEvent| focus.set(None))
    };
    let shown = current_focus.and_then(|target| {
        let point = props.curve.points.get(target.index)?;
        let scale = scale();
        Some((
            hit::tooltip_lines(point),
            target.pixel.0 / scale,
            target.pixel.1 / scale,
        ))
    });
    let place = |x: f64, y: f64| format!("left:{x:.0}px;top:{y:.0}px");

    html! {
        <div class="chart-frame">
            <canvas id={CHART_ID} ref={canvas_ref} role="img" aria-label={props.summary.clone()}
                tabindex="0" aria-describedby={TOOLTIP_ID}
                onmousemove={on_move} onmouseleave={on_out} onclick={on_click}
                onkeydown={on_key} onblur={on_leave}>
                { props.summary.clone() }
            </canvas>
            if let Some((_, x, y)) = &shown {
                <div class="chart-focus" style={place(*x, *y)}></div>
            }
            <div id={TOOLTIP_ID} class={classes!("chart-tooltip", shown.as_ref().filter(|s| s.2 < 90.0).map(|_| "below"))}
                role="tooltip" aria-live="polite" hidden={shown.is_none()}
                style={shown.as_ref().map(|(_, x, y)| place(*x, *y))}>
                if let Some((lines, _, _)) = &shown {
                    { for lines.iter().map(|line| html! { <span>{ line.clone() }</span> }) }
                }
            </div>
            if let Some(message) = (*failure).clone() {
                <p class="chart-failure" role="status">{ format!("The chart could not be drawn ({message}); the numbers are still current.") }</p>
            }
        </div>
    }
}
