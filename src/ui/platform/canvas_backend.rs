//! The plotters backend the page's canvas charts draw with, and `prepare`, the sizing and theme
//! glue they share. It draws what plotters-canvas's `CanvasBackend` draws (the same canvas calls
//! per shape, vertical and horizontal lines on the half pixel), with three differences:
//!
//! * **Few canvas calls.** plotters draws a chart as hundreds of small shapes (every grid line,
//!   tick and dash of a dashed curve is its own line): plotters-canvas set the stroke style and
//!   width, began, stroked and ended a path for each, some 1,800 canvas calls per redraw. This
//!   backend sets a style only when it changes, and runs of opaque shapes of one style (lines, or
//!   fills) go into one path that is stroked or filled once, when anything else is drawn or the
//!   chart is presented, so painting order is kept. Opaque paint looks the same drawn in one path
//!   or in several; translucent shapes are still drawn one by one (overlaps would blend once
//!   instead of twice).
//! * **Text laid out in an estimated room.** plotters' default text measurement on wasm
//!   (plotters/src/style/font/web.rs) appends a `<span style="…">` to `<body>`, reads its size and
//!   removes it, once per measured string: a forced layout of the whole page per string on every
//!   redraw, and an inline `style` attribute the page's Content-Security-Policy forbids. This
//!   backend measures nothing: the legend and the labels are laid out in the room
//!   `present::chart::svg::page_text_size` estimates, the same as the build-time first screen's
//!   SVG chart, so the live chart that replaces it puts every label where the static one had it
//!   (issue 28 §8; `measureText` widths moved the knee's and current point's labels to other
//!   sides of their markers at the hand-over) and no redraw waits on a font measurement.
//! * **The page's font.** The charts ask for plotters' sans-serif, which this backend draws in the
//!   stylesheet's `system-ui, sans-serif` (`PAGE_SANS_SERIF`). The browser then finds the chart's
//!   text in the fonts the page's first layout already looked up, instead of making a platform
//!   font lookup (an IPC to the browser process on Linux) for each size of another family during
//!   the first chart draw.

use crate::choice::Choice;
use crate::present::chart::svg::page_text_size;
use crate::present::chart::Theme;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontFamily, FontTransform,
};
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

/// A drawing error from the canvas, as text.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanvasError {}

fn canvas_error(error: wasm_bindgen::JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(format!("{error:?}")))
}

/// The stylesheet's text font (`static/style.css`, `:root`), for plotters' sans-serif.
pub const PAGE_SANS_SERIF: &str = "system-ui, sans-serif";

/// The CSS font shorthand the canvas draws a text style in.
fn css_font<S: BackendTextStyle>(style: &S) -> String {
    let family = style.family();
    let family = match family {
        FontFamily::SansSerif => PAGE_SANS_SERIF,
        _ => family.as_str(),
    };
    format!("{} {}px {family}", style.style().as_str(), style.size())
}

/// A backend colour as a CSS colour (as plotters-canvas writes it).
fn css_color(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    format!("rgba({r},{g},{b},{})", color.alpha)
}

/// Moves a vertical or horizontal line onto the half pixel, so that a one-pixel line covers one
/// pixel column or row instead of blurring over two (as plotters-canvas does).
fn crisp_line(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let (mut from, mut to) = (
        (f64::from(from.0), f64::from(from.1)),
        (f64::from(to.0), f64::from(to.1)),
    );
    if from.0 == to.0 {
        from.0 -= 0.5;
        to.0 -= 0.5;
    }
    if from.1 == to.1 {
        from.1 -= 0.5;
        to.1 -= 0.5;
    }
    (from, to)
}

/// The path being collected: what it will be stroked or filled with.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    None,
    Stroke { color: String, width: f64 },
    Fill { color: String },
}

/// What the context was last given, so that an unchanged style is not set again.
#[derive(Default)]
struct ContextState {
    stroke: Option<(String, f64)>,
    fill: Option<String>,
    font: Option<String>,
    align: Option<&'static str>,
    baseline: Option<&'static str>,
}

pub struct CanvasBackend {
    canvas: web_sys::HtmlCanvasElement,
    context: CanvasRenderingContext2d,
    pending: Pending,
    state: ContextState,
}

impl CanvasBackend {
    /// `None` when the browser gives no 2D context for the canvas.
    pub fn new(canvas: &web_sys::HtmlCanvasElement) -> Option<CanvasBackend> {
        let context = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(CanvasBackend {
            canvas: canvas.clone(),
            context,
            pending: Pending::None,
            state: ContextState::default(),
        })
    }

    /// The canvas's 2D context (e.g. to copy an image onto it before plotters draws).
    pub fn context(&self) -> &CanvasRenderingContext2d {
        &self.context
    }

    fn set_stroke(&mut self, color: String, width: f64) {
        let state = &mut self.state;
        if state.stroke.as_ref() != Some(&(color.clone(), width)) {
            self.context.set_stroke_style_str(&color);
            self.context.set_line_width(width);
            state.stroke = Some((color, width));
        }
    }

    fn set_fill(&mut self, color: String) {
        let state = &mut self.state;
        if state.fill.as_ref() != Some(&color) {
            self.context.set_fill_style_str(&color);
            state.fill = Some(color);
        }
    }

    fn set_font(&mut self, font: String) {
        let state = &mut self.state;
        if state.font.as_ref() != Some(&font) {
            self.context.set_font(&font);
            state.font = Some(font);
        }
    }

    fn set_anchor(&mut self, align: &'static str, baseline: &'static str) {
        let state = &mut self.state;
        if state.align != Some(align) {
            self.context.set_text_align(align);
            state.align = Some(align);
        }
        if state.baseline != Some(baseline) {
            self.context.set_text_baseline(baseline);
            state.baseline = Some(baseline);
        }
    }

    /// Stroke or fill the collected path, if any.
    fn flush(&mut self) {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => {}
            Pending::Stroke { .. } => self.context.stroke(),
            Pending::Fill { .. } => self.context.fill(),
        }
    }

    /// Make room for a shape painted with `paint`: an opaque paint joins the collected path when
    /// it is the same, otherwise the collected path is painted and a new path begins with the
    /// style set. A translucent paint always begins its own path, painted at once (`finish`).
    fn begin(&mut self, paint: Pending, opaque: bool) {
        if opaque && self.pending == paint {
            return;
        }
        self.flush();
        match &paint {
            Pending::Stroke { color, width } => self.set_stroke(color.clone(), *width),
            Pending::Fill { color } => self.set_fill(color.clone()),
            Pending::None => {}
        }
        self.context.begin_path();
        self.pending = paint;
    }

    /// After a shape: a translucent one is painted now.
    fn finish(&mut self, opaque: bool) {
        if !opaque {
            self.flush();
        }
    }
}

fn stroke_of<S: BackendStyle>(style: &S) -> Pending {
    Pending::Stroke {
        color: css_color(style.color()),
        width: style.stroke_width() as f64,
    }
}

fn fill_of<S: BackendStyle>(style: &S) -> Pending {
    Pending::Fill {
        color: css_color(style.color()),
    }
}

impl Drop for CanvasBackend {
    /// A draw that ended early (an error) still paints what it collected.
    fn drop(&mut self) {
        self.flush();
    }
}

impl DrawingBackend for CanvasBackend {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.flush();
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        self.set_fill(css_color(color));
        self.context
            .fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let opaque = color.alpha >= 1.0;
        self.begin(stroke_of(style), opaque);
        let (from, to) = crisp_line(from, to);
        self.context.move_to(from.0, from.1);
        self.context.line_to(to.0, to.1);
        self.finish(opaque);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        let (x, y) = (f64::from(upper_left.0), f64::from(upper_left.1));
        let (width, height) = (
            f64::from(bottom_right.0 - upper_left.0),
            f64::from(bottom_right.1 - upper_left.1),
        );
        if fill {
            self.set_fill(css_color(style.color()));
            self.context.fill_rect(x, y, width, height);
        } else {
            self.set_stroke(css_color(style.color()), style.stroke_width() as f64);
            self.context.stroke_rect(x, y, width, height);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter();
        let Some(start) = path.next() else {
            return Ok(());
        };
        let opaque = color.alpha >= 1.0;
        self.begin(stroke_of(style), opaque);
        self.context.move_to(f64::from(start.0), f64::from(start.1));
        for next in path {
            self.context.line_to(f64::from(next.0), f64::from(next.1));
        }
        self.finish(opaque);
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let mut vertices = vertices.into_iter();
        let Some(start) = vertices.next() else {
            return Ok(());
        };
        let opaque = color.alpha >= 1.0;
        self.begin(fill_of(style), opaque);
        self.context.move_to(f64::from(start.0), f64::from(start.1));
        for next in vertices {
            self.context.line_to(f64::from(next.0), f64::from(next.1));
        }
        self.context.close_path();
        self.finish(opaque);
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let opaque = color.alpha >= 1.0;
        self.begin(
            if fill {
                fill_of(style)
            } else {
                stroke_of(style)
            },
            opaque,
        );
        let (x, y, r) = (f64::from(center.0), f64::from(center.1), f64::from(radius));
        // A subpath of its own: without the move the arc would join the previous shape.
        self.context.move_to(x + r, y);
        self.context
            .arc(x, y, r, 0.0, std::f64::consts::TAU)
            .map_err(canvas_error)?;
        self.finish(opaque);
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        let degrees: f64 = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        // Font, anchor and colour before `save`, so that `restore` leaves them as recorded.
        self.set_font(css_font(style));
        self.set_anchor(
            match style.anchor().h_pos {
                HPos::Left => "start",
                HPos::Right => "end",
                HPos::Center => "center",
            },
            match style.anchor().v_pos {
                VPos::Top => "top",
                VPos::Center => "middle",
                VPos::Bottom => "bottom",
            },
        );
        self.set_fill(css_color(color));
        let (mut x, mut y) = (f64::from(pos.0), f64::from(pos.1));
        if degrees != 0.0 {
            self.context.save();
            if let Err(error) = self
                .context
                .translate(x, y)
                .and_then(|()| self.context.rotate(degrees.to_radians()))
            {
                self.context.restore();
                return Err(canvas_error(error));
            }
            x = 0.0;
            y = 0.0;
        }
        let drawn = self.context.fill_text(text, x, y);
        if degrees != 0.0 {
            self.context.restore();
        }
        drawn.map_err(canvas_error)
    }

    /// The room the page's charts lay text out in (module doc); height = the font size.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        Ok(page_text_size(text, style.size()))
    }
}

/// Ready `canvas` for a draw: its backing store sized to its CSS box (`known_box` when the
/// caller already knows it, else measured, else `fallback` for a canvas without a layout box)
/// at the device pixel ratio (clamped to 1–3), a backend on it, and the chart options for that
/// ratio and the page's theme. Shared by every canvas chart on the page (`chart_canvas.rs`,
/// `load_canvas.rs`).
pub fn prepare(
    canvas: &web_sys::HtmlCanvasElement,
    known_box: Option<(i32, i32)>,
    fallback: (f64, f64),
) -> Result<(CanvasBackend, crate::present::chart::ChartOptions), String> {
    let ratio = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .clamp(1.0, 3.0);
    let measured = known_box.unwrap_or_else(|| (canvas.client_width(), canvas.client_height()));
    let (css_width, css_height) = match measured {
        (w, h) if w > 0 && h > 0 => (f64::from(w), f64::from(h)),
        _ => fallback,
    };
    let width = (css_width * ratio).round() as u32;
    let height = (css_height * ratio).round() as u32;
    if canvas.width() != width {
        canvas.set_width(width);
    }
    if canvas.height() != height {
        canvas.set_height(height);
    }
    let backend = CanvasBackend::new(canvas)
        .ok_or_else(|| "the browser gave no 2D canvas context".to_string())?;
    let options = crate::present::chart::ChartOptions {
        theme: if prefers_dark() {
            Theme::Dark
        } else {
            Theme::Light
        },
        scale: ratio,
    };
    Ok((backend, options))
}

/// Dark or light for the charts: a link's `theme=` (`<html data-theme>`) wins over the reader's
/// `prefers-color-scheme`.
pub fn prefers_dark() -> bool {
    let forced = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|root| root.get_attribute("data-theme"));
    match forced.as_deref().and_then(Theme::parse_exact) {
        Some(theme) => theme == Theme::Dark,
        None => web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|query| query.matches()),
    }
}
