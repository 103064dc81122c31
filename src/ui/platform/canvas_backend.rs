//! The plotters backend the page draws with: plotters-canvas's `CanvasBackend`, except that text
//! is measured with the canvas's own `measureText` and drawn in the page's own font; and
//! `prepare`, the sizing and theme glue every canvas chart shares.
//!
//! The font: the charts ask for plotters' sans-serif, which this backend draws in the
//! stylesheet's `system-ui, sans-serif` (`PAGE_SANS_SERIF`). The browser then finds the chart's
//! text in the fonts the page's first layout already looked up, instead of making a platform
//! font lookup (an IPC to the browser process on Linux) for each size of another family during
//! the first chart draw.
//!
//! Why: plotters' default text measurement on wasm (plotters/src/style/font/web.rs) appends a
//! `<span style="…">` to `<body>`, reads its size and removes it, once per measured string. Each
//! of those forces a layout of the whole page on every redraw (the chart legend measures its
//! labels), and the inline `style` attribute would need `style-src-attr 'unsafe-inline'` in the
//! page's Content-Security-Policy. `measureText` needs neither.

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontFamily, FontTransform,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

/// A drawing error from the canvas, as text (plotters-canvas does not export its error type).
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

fn convert<E: std::error::Error + Send + Sync>(
    error: DrawingErrorKind<E>,
) -> DrawingErrorKind<CanvasError> {
    match error {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(CanvasError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

pub struct MeasuringCanvas {
    inner: CanvasBackend,
    context: Option<web_sys::CanvasRenderingContext2d>,
}

impl MeasuringCanvas {
    /// `None` when the browser gives no 2D context for the canvas.
    pub fn new(canvas: &web_sys::HtmlCanvasElement) -> Option<MeasuringCanvas> {
        let context = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok());
        let inner = CanvasBackend::with_canvas_object(canvas.clone())?;
        Some(MeasuringCanvas { inner, context })
    }
}

/// The stylesheet's text font (`static/style.css`, `:root`), for plotters' sans-serif.
pub const PAGE_SANS_SERIF: &str = "system-ui, sans-serif";

/// The CSS font shorthand the canvas measures and draws a text style in.
fn css_font<S: BackendTextStyle>(style: &S) -> String {
    let family = style.family();
    let family = match family {
        FontFamily::SansSerif => PAGE_SANS_SERIF,
        _ => family.as_str(),
    };
    format!("{} {}px {family}", style.style().as_str(), style.size())
}

/// A backend colour as a CSS colour.
fn css_color(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    format!("rgba({r},{g},{b},{})", color.alpha)
}

impl DrawingBackend for MeasuringCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared().map_err(convert)
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present().map_err(convert)
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(point, color).map_err(convert)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(from, to, style).map_err(convert)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner
            .draw_rect(upper_left, bottom_right, style, fill)
            .map_err(convert)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, style).map_err(convert)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(vert, style).map_err(convert)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner
            .draw_circle(center, radius, style, fill)
            .map_err(convert)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        // As plotters-canvas draws text (`CanvasBackend::draw_text`), in `css_font`'s font.
        let Some(context) = self.context.as_ref() else {
            return self.inner.draw_text(text, style, pos).map_err(convert);
        };
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let degrees: f64 = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let (mut x, mut y) = (f64::from(pos.0), f64::from(pos.1));
        if degrees != 0.0 {
            context.save();
            context
                .translate(x, y)
                .and_then(|()| context.rotate(degrees.to_radians()))
                .map_err(canvas_error)?;
            x = 0.0;
            y = 0.0;
        }
        context.set_text_baseline(match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        context.set_text_align(match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        });
        context.set_fill_style_str(&css_color(color));
        context.set_font(&css_font(style));
        let drawn = context.fill_text(text, x, y);
        if degrees != 0.0 {
            context.restore();
        }
        drawn.map_err(canvas_error)
    }

    /// Width from `measureText`; height = the font size (what the canvas lays a line out in).
    /// Without a context, a rough 0.6 em per character.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        let size = style.size().max(0.0);
        let measured = self.context.as_ref().and_then(|context| {
            context.set_font(&css_font(style));
            context
                .measure_text(text)
                .ok()
                .map(|metrics| metrics.width())
        });
        let width = measured.unwrap_or_else(|| size * 0.6 * text.chars().count() as f64);
        Ok((width.max(0.0).ceil() as u32, size.ceil() as u32))
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
) -> Result<(MeasuringCanvas, crate::present::chart::ChartOptions), String> {
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
    let backend = MeasuringCanvas::new(canvas)
        .ok_or_else(|| "the browser gave no 2D canvas context".to_string())?;
    let options = crate::present::chart::ChartOptions {
        theme: if prefers_dark() {
            crate::present::chart::Theme::Dark
        } else {
            crate::present::chart::Theme::Light
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
    match forced.as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|query| query.matches()),
    }
}
