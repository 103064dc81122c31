//! The Pareto chart on a `<canvas id="pareto-chart">`: sizes the canvas to its box in device
//! pixels, draws with `chart::draw_pareto_layered` through the page's canvas backend
//! (`canvas_backend.rs`), and redraws when the curve, the current point, the box size or the
//! colour scheme changes. Nothing here computes the model.
//!
//! Pointing at a curve point (hover, or focus the canvas and press ← →) shows its numbers in
//! an HTML tooltip (`#chart-tooltip`) with a ring over the point, both placed by
//! `chart::hit` from the last draw's frame: the canvas is not redrawn for them, so the kept base
//! stays valid. A click or Enter picks the point (`on_pick`: the page moves the slider there).
//!
//! The first draw that shows everything the build-time first screen shows (`page::first_screen`:
//! the technique ladder's curves, which come a task after the first chart, with the numbers)
//! removes that static screen, which the explorer had been hidden behind (`take_over`).

use crate::model::pareto::concurrency_to_slider;
use crate::model::techniques::TechniqueStudy;
use crate::model::Curve;
use crate::page::first_screen::PRERENDER_ID;
use crate::page::state::Shared;
use crate::present::chart::hit::{self, Target};
use crate::present::chart::{
    draw_pareto_kept, ChartOptions, Frame, KeptLabels, Layers, Marker, OtherCurve, Overlay, Part,
    Projection,
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
    /// The slider's own callback (a slider position) and its engine limit: a curve point
    /// clicked or picked with Enter moves the slider there.
    #[prop_or_default]
    pub on_pick: Option<(Callback<u32>, u32)>,
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

/// The chart's base (everything but the current point, `chart::Part::Base`) as last painted,
/// on a canvas off the page, and what it was painted for; or only the inputs of the last draw,
/// until a second draw of the same inputs paints a base.
struct Base {
    canvas: Option<web_sys::HtmlCanvasElement>,
    inputs: BaseInputs,
    frame: Option<Frame>,
    /// The base's label work (what is plotted, the note's and the knee's places), so a slider
    /// move places only the current point's label (`chart::KeptLabels`).
    labels: KeptLabels,
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
    let part = |backend: CanvasBackend, part: Part, labels: &mut KeptLabels| {
        draw_pareto_kept(
            backend.into_drawing_area(),
            curve,
            current,
            overlay_drawn,
            &layers,
            &options,
            part,
            labels,
        )
        .map(|(frame, _)| frame)
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
        let frame = part(backend, Part::All, &mut KeptLabels::default())?;
        *kept = Some(Base {
            canvas: None,
            inputs,
            frame: None,
            labels: KeptLabels::default(),
        });
        return Ok(frame);
    };
    let mut backend = Some(backend);
    let mut labels = base.labels;
    if let (Some(canvas), Some(frame)) = (&base.canvas, &base.frame) {
        copy(canvas)?;
        let visible = backend.take().ok_or("no backend")?;
        let drawn = part(visible, Part::Current, &mut labels)?;
        if drawn == *frame {
            *kept = Some(Base { labels, ..base });
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
    let mut labels = KeptLabels::default();
    let frame = part(base_backend, Part::Base, &mut labels)?;
    copy(&base_canvas)?;
    let visible = match backend {
        Some(backend) => backend,
        None => CanvasBackend::new(canvas).ok_or("the browser gave no 2D canvas context")?,
    };
    part(visible, Part::Current, &mut labels)?;
    *kept = Some(Base {
        canvas: Some(base_canvas),
        inputs,
        frame: Some(frame.clone()),
        labels,
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
    let drawn = draw(&canvas, key, known_box, kept);
    take_over(&key.3);
    match drawn {
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

/// Remove the build-time first screen (`page::first_screen`, `#prerender`), behind which the
/// explorer stays invisible (static/style.css), once the chart is drawn with everything the
/// static one shows: the technique ladder's curves (they come a task after the first chart, with
/// the numbers). In the same task as that draw, so no frame shows neither. Marks
/// `servecost:takeover`.
fn take_over(techniques: &Option<Shared<TechniqueStudy>>) {
    if techniques.as_deref().is_some_and(|t| t.background_pending) {
        return;
    }
    let prerendered = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(PRERENDER_ID));
    if let Some(prerendered) = prerendered {
        prerendered.remove();
        perf::mark_takeover();
    }
}

/// What the handlers read of the latest props.
struct Latest {
    curve: Shared<Curve>,
    projection: Projection,
    layout: u32,
    current: u32,
    on_pick: Option<(Callback<u32>, u32)>,
}

/// Hover, click and keys over the chart: the last draw's frame (`chart::hit` places points by
/// it), the latest props, the pointed-at point and the tooltip and ring it shows. One per chart,
/// kept across renders: a hover changes only those two elements, never the chart or a render.
#[derive(Default)]
struct Pointer {
    canvas: NodeRef,
    known_box: Rc<RefCell<Option<(i32, i32)>>>,
    tooltip: NodeRef,
    ring: NodeRef,
    frame: RefCell<Option<Frame>>,
    latest: RefCell<Option<Latest>>,
    focus: std::cell::Cell<Option<Target>>,
}

impl Pointer {
    /// Take the latest props; a new curve, axes or layout hides a shown point (its place and
    /// index belonged to the old draw).
    fn sync(&self, latest: Latest) {
        let stale = self.latest.borrow().as_ref().is_some_and(|old| {
            (&old.curve, old.projection, old.layout)
                != (&latest.curve, latest.projection, latest.layout)
        });
        *self.latest.borrow_mut() = Some(latest);
        if stale {
            self.show(None);
        }
    }

    /// Backend pixels per CSS pixel, from the box the resize observer saw.
    fn scale(&self) -> f64 {
        let width = self
            .canvas
            .cast::<web_sys::HtmlCanvasElement>()
            .map_or(0, |c| c.width());
        match *self.known_box.borrow() {
            Some((css, _)) if css > 0 => f64::from(width) / f64::from(css),
            _ => 1.0,
        }
    }

    /// The curve's pickable points as the last draw placed them.
    fn targets(&self) -> Vec<Target> {
        match (&*self.frame.borrow(), &*self.latest.borrow()) {
            (Some(frame), Some(latest)) => hit::targets(&latest.curve, frame, &latest.projection),
            _ => Vec::new(),
        }
    }

    /// Show `target`'s tooltip and ring at its point, or hide both.
    fn show(&self, target: Option<Target>) {
        self.focus.set(target);
        let (Some(tooltip), Some(ring)) = (
            self.tooltip.cast::<web_sys::HtmlElement>(),
            self.ring.cast::<web_sys::HtmlElement>(),
        ) else {
            return;
        };
        let latest = self.latest.borrow();
        let point = target.zip(latest.as_ref()).and_then(|(target, latest)| {
            latest.curve.points.get(target.index).map(|p| (target, p))
        });
        if let Some((target, point)) = point {
            let scale = self.scale();
            let (x, y) = (target.pixel.0 / scale, target.pixel.1 / scale);
            let (left, top) = (format!("{x:.0}px"), format!("{y:.0}px"));
            tooltip.set_text_content(Some(&hit::tooltip_lines(point).join("\n")));
            tooltip.set_class_name(if y < 90.0 {
                "chart-tooltip below"
            } else {
                "chart-tooltip"
            });
            // Through the CSSOM: the page's CSP (style-src 'self') ignores style attributes.
            for element in [&tooltip, &ring] {
                let style = element.style();
                let _ = style.set_property("left", &left);
                let _ = style.set_property("top", &top);
            }
        }
        tooltip.set_hidden(point.is_none());
        ring.set_hidden(point.is_none());
    }

    /// Pick `target`: the slider moves to its concurrency (the slider's own callback). The
    /// props are released before the callback runs (the page may render, and `sync`, inside it).
    fn pick(&self, target: Target) {
        let picked = self.latest.borrow().as_ref().and_then(|latest| {
            let point = latest.curve.points.get(target.index)?;
            let (on_move, limit) = latest.on_pick.clone()?;
            Some((on_move, concurrency_to_slider(point.concurrency, limit)))
        });
        if let Some((on_move, position)) = picked {
            on_move.emit(position);
        }
    }

    /// A move shows the point under the pointer (if any); a click picks it.
    fn on_mouse(&self, event: &MouseEvent, click: bool) {
        let scale = self.scale();
        let pixel = (
            f64::from(event.offset_x()) * scale,
            f64::from(event.offset_y()) * scale,
        );
        let target = hit::nearest(&self.targets(), pixel, REACH_CSS_PX * scale);
        match (click, target) {
            (true, Some(target)) => self.pick(target),
            (false, _) if target != self.focus.get() => self.show(target),
            _ => {}
        }
    }

    /// ← → walk the points (the first press starts at the current point), Enter picks the
    /// shown one, Escape hides it.
    fn on_key(&self, event: &KeyboardEvent) {
        let right = match event.key().as_str() {
            "ArrowRight" => true,
            "ArrowLeft" => false,
            "Enter" => {
                if let Some(target) = self.focus.get() {
                    self.pick(target);
                }
                return;
            }
            "Escape" => return self.show(None),
            _ => return,
        };
        event.prevent_default();
        let start = self.latest.borrow().as_ref().map_or(0, |latest| {
            latest
                .curve
                .points
                .iter()
                .enumerate()
                .min_by_key(|(_, p)| p.concurrency.abs_diff(latest.current))
                .map_or(0, |(i, _)| i)
        });
        let from = self.focus.get().map(|t| t.index);
        self.show(hit::step(&self.targets(), from, start, right));
    }
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
    // Hover, click and keys (`Pointer`), kept across renders.
    let pointer = {
        let (canvas, known_box) = (canvas_ref.clone(), known_box.clone());
        use_memo((), move |_| Pointer {
            canvas,
            known_box,
            ..Pointer::default()
        })
    };
    pointer.sync(Latest {
        curve: props.curve.clone(),
        projection: props.projection,
        layout: layout.0,
        current: props.current.concurrency,
        on_pick: props.on_pick.clone(),
    });

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
        let pointer = pointer.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Unless the effect came first (a render quick enough that Yew did not yield).
            if !*drawn.borrow()
                && draw_keyed(
                    &canvas_ref,
                    &key,
                    *known_box.borrow(),
                    &failure,
                    &kept,
                    &pointer.frame,
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
        let pointer = pointer.clone();
        use_effect_with(key, move |key| {
            // Already drawn for exactly these inputs by the first-draw microtask.
            if early.borrow_mut().take().as_ref() != Some(key)
                && draw_keyed(
                    &canvas_ref,
                    key,
                    *known_box.borrow(),
                    &failure,
                    &kept,
                    &pointer.frame,
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
        use_effect_with((), move |_| watch_box(canvas_ref, known_box, bump));
    }

    let on_move = {
        let pointer = pointer.clone();
        Callback::from(move |event: MouseEvent| pointer.on_mouse(&event, false))
    };
    let on_click = {
        let pointer = pointer.clone();
        Callback::from(move |event: MouseEvent| pointer.on_mouse(&event, true))
    };
    let on_key = {
        let pointer = pointer.clone();
        Callback::from(move |event: KeyboardEvent| pointer.on_key(&event))
    };
    let on_out = {
        let pointer = pointer.clone();
        Callback::from(move |_: MouseEvent| pointer.show(None))
    };
    let on_blur = {
        let pointer = pointer.clone();
        Callback::from(move |_: FocusEvent| pointer.show(None))
    };

    html! {
        <div class="chart-frame">
            <canvas id={CHART_ID} ref={canvas_ref} role="img" aria-label={props.summary.clone()}
                tabindex="0" aria-describedby={TOOLTIP_ID}
                onmousemove={on_move} onmouseleave={on_out} onclick={on_click}
                onkeydown={on_key} onblur={on_blur}>
                { props.summary.clone() }
            </canvas>
            <div class="chart-focus" ref={pointer.ring.clone()} hidden=true></div>
            <div id={TOOLTIP_ID} class="chart-tooltip" ref={pointer.tooltip.clone()}
                role="tooltip" aria-live="polite" hidden=true></div>
            if let Some(message) = (*failure).clone() {
                <p class="chart-failure" role="status">{ format!("The chart could not be drawn ({message}); the numbers are still current.") }</p>
            }
        </div>
    }
}

/// Watch the canvas's box (a `ResizeObserver`, which records it in `known_box`) and the colour
/// scheme, bumping the layout on either change; the returned destructor stops both.
#[inline(always)]
fn watch_box(
    canvas_ref: NodeRef,
    known_box: Rc<RefCell<Option<(i32, i32)>>>,
    bump: UseReducerDispatcher<Layout>,
) -> impl FnOnce() {
    let on_resize = {
        let bump = bump.clone();
        let canvas_ref = canvas_ref.clone();
        // Layout is fresh when the observer reports, so reading the box here is free.
        Closure::<dyn Fn()>::new(move || {
            if let Some(canvas) = canvas_ref.cast::<web_sys::Element>() {
                *known_box.borrow_mut() = Some((canvas.client_width(), canvas.client_height()));
            }
            bump.dispatch(())
        })
    };
    let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok();
    if let (Some(observer), Some(canvas)) = (&observer, canvas_ref.cast::<web_sys::Element>()) {
        observer.observe(&canvas);
    }
    let scheme = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
    let on_scheme = Closure::<dyn Fn()>::new(move || bump.dispatch(()));
    if let Some(scheme) = &scheme {
        let _ =
            scheme.add_event_listener_with_callback("change", on_scheme.as_ref().unchecked_ref());
    }
    move || {
        if let Some(observer) = observer {
            observer.disconnect();
        }
        if let Some(scheme) = scheme {
            let _ = scheme
                .remove_event_listener_with_callback("change", on_scheme.as_ref().unchecked_ref());
        }
        drop(on_resize);
        drop(on_scheme);
    }
}
