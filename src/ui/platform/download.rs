//! Files in and out of the page, all local: a download is a `blob:` (or `data:`) URL clicked
//! through a temporary `<a download>`, never a request; an upload is read with `Blob.text()`.
//! Also composes the PNG export: the chart's own canvas (exactly as drawn, at device
//! resolution) on an offscreen canvas with a caption underneath.

use crate::present::chart::{Palette, Theme};
use gloo::timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Largest file an import accepts (a scenario export is a few kilobytes).
pub const MAX_IMPORT_BYTES: f64 = 1_048_576.0;
/// Object URLs are revoked this long after the click (the download has started by then).
const REVOKE_AFTER_MS: u32 = 10_000;
/// Caption text size and line height in CSS pixels.
const CAPTION_FONT_CSS_PX: f64 = 13.0;
const CAPTION_LINE_CSS_PX: f64 = 19.0;
const CAPTION_PADDING_CSS_PX: f64 = 10.0;

fn document() -> Result<web_sys::Document, JsValue> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))
}

/// Click a temporary `<a href download>`.
fn click_link(href: &str, file_name: &str) -> Result<(), JsValue> {
    let anchor: web_sys::HtmlAnchorElement = document()?.create_element("a")?.dyn_into()?;
    anchor.set_href(href);
    anchor.set_download(file_name);
    anchor.set_rel("noopener");
    anchor.click();
    Ok(())
}

/// Offer `text` as a file named `file_name` of type `mime`.
pub fn download_text(file_name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let clicked = click_link(&url, file_name);
    Timeout::new(REVOKE_AFTER_MS, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    clicked
}

/// Offer a `data:` URL (the PNG) as a file.
pub fn download_data_url(file_name: &str, data_url: &str) -> Result<(), JsValue> {
    click_link(data_url, file_name)
}

fn context_2d(
    canvas: &web_sys::HtmlCanvasElement,
) -> Result<web_sys::CanvasRenderingContext2d, JsValue> {
    canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2D context"))?
        .dyn_into()
        .map_err(JsValue::from)
}

fn css_color(color: plotters::style::RGBColor) -> String {
    format!("rgb({}, {}, {})", color.0, color.1, color.2)
}

/// The chart canvas plus `caption` lines underneath, as a PNG `data:` URL. `dark` picks the
/// chart's own palette for the caption band, so the image looks like the page.
pub fn chart_png(
    chart: &web_sys::HtmlCanvasElement,
    caption: &[String],
    dark: bool,
) -> Result<String, JsValue> {
    let (width, height) = (chart.width(), chart.height());
    if width == 0 || height == 0 {
        return Err(JsValue::from_str("the chart has not been drawn"));
    }
    // Device pixels per CSS pixel of the chart as drawn, so the caption matches its type.
    let scale = match chart.client_width() {
        w if w > 0 => (f64::from(width) / f64::from(w)).clamp(1.0, 4.0),
        _ => 1.0,
    };
    let lines = caption.len() as f64;
    let band = ((2.0 * CAPTION_PADDING_CSS_PX + lines * CAPTION_LINE_CSS_PX) * scale).ceil();
    let out: web_sys::HtmlCanvasElement = document()?.create_element("canvas")?.dyn_into()?;
    out.set_width(width);
    out.set_height(height.saturating_add(band as u32));
    let context = context_2d(&out)?;
    let palette = Palette::for_theme(if dark { Theme::Dark } else { Theme::Light });
    context.set_fill_style_str(&css_color(palette.background));
    context.fill_rect(0.0, 0.0, f64::from(out.width()), f64::from(out.height()));
    context.draw_image_with_html_canvas_element(chart, 0.0, 0.0)?;
    context.set_font(&format!(
        "{:.0}px system-ui, -apple-system, \"Segoe UI\", Roboto, \"DejaVu Sans\", sans-serif",
        CAPTION_FONT_CSS_PX * scale
    ));
    context.set_text_baseline("top");
    let left = CAPTION_PADDING_CSS_PX * scale;
    let max_width = f64::from(width) - 2.0 * left;
    for (index, line) in caption.iter().enumerate() {
        let color = if index + 1 == caption.len() {
            palette.muted_text
        } else {
            palette.text
        };
        context.set_fill_style_str(&css_color(color));
        let top = f64::from(height)
            + (CAPTION_PADDING_CSS_PX + index as f64 * CAPTION_LINE_CSS_PX) * scale;
        context.fill_text_with_max_width(line, left, top, max_width)?;
    }
    out.to_data_url()
}

/// The text of the first file chosen in `input`, or why there is none to read.
pub async fn read_chosen_file(input: &web_sys::HtmlInputElement) -> Result<String, String> {
    let file = input
        .files()
        .and_then(|files| files.get(0))
        .ok_or("no file was chosen")?;
    if file.size() > MAX_IMPORT_BYTES {
        return Err(format!(
            "the file is {:.0} KB; a scenario export is a few KB (limit 1 MB)",
            file.size() / 1024.0
        ));
    }
    let text = JsFuture::from(file.text())
        .await
        .map_err(|_| "the browser could not read the file".to_string())?;
    text.as_string()
        .ok_or_else(|| "the file is not text".to_string())
}
