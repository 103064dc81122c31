//! The SVG backend the report and the native renders draw charts with: plotters' `SVGBackend`
//! with one difference, text measured by an estimate instead of plotters' font backend.
//!
//! plotters measures text (the legend's and the labels' boxes) through its font backend. On wasm
//! that appends a `<span style="…">` to the page's `<body>` per string (plotters
//! src/style/font/web.rs): each one a forced layout of the page and a `style-src-attr` violation
//! of the page's Content-Security-Policy (14 console errors per client report, issue 28 §2).
//! Natively it reads a system font, so one report would lay out differently per machine. The
//! estimate is the same everywhere: per-character advances of a sans-serif face in ems (narrow
//! punctuation and `il1`, wide capitals and `mw`), at the size `SVGBackend` writes
//! (`font-size` = the style's size ÷ 1.24, plotters-svg svg.rs `draw_text`).
//!
//! `CompactSvg` is a second SVG writer for the page's first screen, inlined into `index.html` at
//! build time (`page::first_screen`), where every byte is part of the first load: integer
//! coordinates, no attribute at its default value, consecutive lines of one stroke (and opaque
//! circles of one paint) merged into one `<path>`, no font family (the text takes the page's, as
//! the canvas chart does), and text at the size the page's canvas backend draws it (the style's
//! size, not ÷ 1.24), laid out in the room the canvas backend gives it (`page_text_size`).
//! Colours are presentation attributes (`fill=`, `stroke=`), which the Content-Security-Policy's
//! `style-src` does not govern and the stylesheet can override.

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle, FontTransform,
};
use std::fmt::Write;

/// `SVGBackend` with estimated text measurement (module doc).
pub struct EstimatedSvg<'a>(SVGBackend<'a>);

/// A drawing area of `size` CSS pixels writing SVG into `out`.
pub fn svg_area(out: &mut String, size: (u32, u32)) -> DrawingArea<EstimatedSvg<'_>, Shift> {
    EstimatedSvg(SVGBackend::with_string(out, size)).into_drawing_area()
}

/// A character's advance in ems in a typical sans-serif face (Helvetica/Arial-like metrics).
fn advance_em(c: char) -> f64 {
    match c {
        'i' | 'l' | 'j' | '1' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' => 0.28,
        ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' | '/' => 0.34,
        'm' | 'w' | 'M' | 'W' | '%' | '@' => 0.85,
        'A'..='Z' | '$' | '×' | '≥' | '≤' | '—' | '–' => 0.66,
        _ => 0.55,
    }
}

/// Width and height of `text` at plotters size `size` (module doc).
pub fn estimated_text_size(text: &str, size: f64) -> (u32, u32) {
    let px = size.max(0.0) / 1.24;
    let width: f64 = text.chars().map(advance_em).sum::<f64>() * px;
    (width.ceil() as u32, size.max(0.0).ceil() as u32)
}

type Error<'a> = DrawingErrorKind<<SVGBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for EstimatedSvg<'a> {
    type ErrorType = <SVGBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<'a>> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.draw_path(path, style)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.fill_polygon(vert, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        self.0.draw_text(text, style, pos)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), Error<'a>> {
        Ok(estimated_text_size(text, style.size()))
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.0.blit_bitmap(pos, (iw, ih), src)
    }
}

/// The compact SVG writer (module doc): the document's body collects in `out` (flushed when
/// the backend is presented or dropped), which `compact_svg_document` wraps in its `<svg>`.
pub struct CompactSvg<'a> {
    size: (u32, u32),
    out: &'a mut String,
    /// The `<path>` being extended by consecutive shapes of one paint (lines of one stroke,
    /// opaque circles of one fill or outline): its paint attributes and its `d`.
    open: Option<(String, String)>,
}

/// How much wider than the estimate the page's charts reserve for text (`page_text_size`).
const PAGE_FONT_WIDTH: f64 = 1.09;

/// Width and height of `text` drawn at `size` CSS pixels in the page's font (`system-ui`): the
/// room every chart on the page lays its text out in, the build-time first screen's SVG
/// (`CompactSvg`) and the live canvas (`ui::platform::canvas_backend`) alike. The same estimate
/// on both, not the canvas's `measureText`, so the legend and the knee's and current point's
/// labels land on the same side of their markers in the static chart and in the live one that
/// replaces it (issue 28 §8: measured widths differ from any estimate by a few pixels, enough
/// to move a label to another side of its marker at the hand-over), and on every system. The
/// estimate runs wider than `system-ui` on the common systems (DejaVu Sans, the widest of them
/// here, by about 8 % on the legend's texts: `PAGE_FONT_WIDTH`), so the layout leaves room.
pub fn page_text_size(text: &str, size: f64) -> (u32, u32) {
    let (width, _) = estimated_text_size(text, size * 1.24 * PAGE_FONT_WIDTH);
    (width, size.max(0.0).ceil() as u32)
}

/// An error of the compact writer (writing to a `String` does not fail).
#[derive(Debug)]
pub struct CompactSvgError;

impl std::fmt::Display for CompactSvgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("compact SVG")
    }
}

impl std::error::Error for CompactSvgError {}

type CompactError = DrawingErrorKind<CompactSvgError>;

/// `#RRGGBB` and, below full opacity, ` opacity="…"` for `attribute` (fill or stroke).
fn paint(attribute: &str, color: BackendColor) -> (String, String) {
    let (r, g, b) = color.rgb;
    let opacity = if color.alpha < 1.0 {
        format!(" {attribute}-opacity=\"{:.2}\"", color.alpha.max(0.0))
    } else {
        String::new()
    };
    (format!("#{r:02X}{g:02X}{b:02X}"), opacity)
}

/// Text as SVG character data.
fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The SVG document around a body `CompactSvg` wrote: `attributes` (e.g. a role) on its root
/// element, the chart's size as its `viewBox`, so that it scales to its box as the canvas does.
pub fn compact_svg_document(size: (u32, u32), body: &str, attributes: &str) -> String {
    let (w, h) = size;
    // Inline in HTML, an <svg> needs no xmlns.
    format!("<svg viewBox=\"0 0 {w} {h}\"{attributes}>{body}</svg>")
}

/// A subpath through `points`: an absolute move to the first, then relative line-tos (`l`, then
/// implicit pairs), whose small, repeating offsets compress better than absolute coordinates
/// (about 0.8 KB gzip off the default first screen's `index.html`).
fn polyline<I: IntoIterator<Item = BackendCoord>>(points: I) -> String {
    let mut d = String::new();
    let mut last: Option<BackendCoord> = None;
    for (i, (x, y)) in points.into_iter().enumerate() {
        let _ = match (i, last) {
            (_, None) => write!(d, "M{x} {y}"),
            (1, Some((px, py))) => write!(d, "l{} {}", x - px, y - py),
            (_, Some((px, py))) => write!(d, " {} {}", x - px, y - py),
        };
        last = Some((x, y));
    }
    d
}

impl Drop for CompactSvg<'_> {
    fn drop(&mut self) {
        self.close_path();
    }
}

impl<'a> CompactSvg<'a> {
    /// A writer of a chart of `size` pixels into `out`.
    pub fn new(out: &'a mut String, size: (u32, u32)) -> CompactSvg<'a> {
        CompactSvg {
            size,
            out,
            open: None,
        }
    }

    fn close_path(&mut self) {
        if let Some((paint, d)) = self.open.take() {
            let _ = write!(self.out, "<path d=\"{d}\" {paint}/>");
        }
    }

    /// `subpath` as a part of the open `<path>` when that has the same `paint`, else of a new one.
    fn extend(&mut self, paint: String, subpath: &str) {
        match &mut self.open {
            Some((open, d)) if *open == paint => d.push_str(subpath),
            _ => {
                self.close_path();
                self.open = Some((paint, subpath.to_string()));
            }
        }
    }

    /// A polyline, as a subpath of the open `<path>` when that has the same stroke (dashes,
    /// grid lines and ticks are many short lines of one stroke), else of a new one. After the
    /// first point, relative line-tos (`polyline`).
    fn stroke<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) {
        if style.color().alpha == 0.0 {
            return;
        }
        let subpath = polyline(path);
        self.extend(CompactSvg::shape_paint(style, false), &subpath);
    }

    /// A rectangle's or circle's paint: filled, or outlined at the style's width.
    fn shape_paint<S: BackendStyle>(style: &S, fill: bool) -> String {
        if fill {
            let (color, opacity) = paint("fill", style.color());
            format!("fill=\"{color}\"{opacity}")
        } else {
            let (color, opacity) = paint("stroke", style.color());
            format!(
                "fill=\"none\" stroke=\"{color}\"{opacity}{}",
                CompactSvg::stroke_width(style)
            )
        }
    }

    fn stroke_width<S: BackendStyle>(style: &S) -> String {
        match style.stroke_width() {
            1 => String::new(),
            w => format!(" stroke-width=\"{w}\""),
        }
    }
}

impl DrawingBackend for CompactSvg<'_> {
    type ErrorType = CompactSvgError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), CompactError> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), CompactError> {
        self.close_path();
        Ok(())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), CompactError> {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.close_path();
        let (fill, opacity) = paint("fill", color);
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"1\" height=\"1\" fill=\"{fill}\"{opacity}/>",
            point.0, point.1
        );
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), CompactError> {
        self.stroke([from, to], style);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), CompactError> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.close_path();
        let (x, y) = upper_left;
        let (w, h) = (bottom_right.0 - x, bottom_right.1 - y);
        let paint_attributes = CompactSvg::shape_paint(style, fill);
        let _ = write!(
            self.out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" {paint_attributes}/>"
        );
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), CompactError> {
        self.stroke(path, style);
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), CompactError> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.close_path();
        let points = polyline(vert);
        let (color, opacity) = paint("fill", style.color());
        let _ = write!(
            self.out,
            "<path d=\"{points}Z\" fill=\"{color}\"{opacity}/>"
        );
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), CompactError> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        // Two arcs from the leftmost point, both one way round, as a subpath: a run of markers
        // of one paint (the frontier's dots, the curves' hollow rings) is one element, not one
        // each (54 `<circle>`s on the default first screen, each styled, laid out and painted
        // on its own before the first paint). Opaque paint only: translucent circles that
        // overlap would blend once in one path instead of twice.
        let (r, (x, y)) = (i64::from(radius), center);
        let circle = format!(
            "M{} {y}a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0 -{} 0",
            i64::from(x) - r,
            2 * r,
            2 * r
        );
        let paint_attributes = CompactSvg::shape_paint(style, fill);
        if style.color().alpha < 1.0 {
            self.close_path();
            let _ = write!(self.out, "<path d=\"{circle}\" {paint_attributes}/>");
        } else {
            self.extend(paint_attributes, &circle);
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), CompactError> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.close_path();
        let (x, y) = pos;
        let mut attributes = format!("x=\"{x}\" y=\"{y}\"");
        match style.anchor().h_pos {
            HPos::Left => {}
            HPos::Center => attributes.push_str(" text-anchor=\"middle\""),
            HPos::Right => attributes.push_str(" text-anchor=\"end\""),
        }
        // As the canvas backend's textBaseline top / middle / bottom.
        match style.anchor().v_pos {
            VPos::Top => attributes.push_str(" dominant-baseline=\"hanging\""),
            VPos::Center => attributes.push_str(" dominant-baseline=\"central\""),
            VPos::Bottom => attributes.push_str(" dominant-baseline=\"text-after-edge\""),
        }
        // To a tenth of a pixel: a 13.5 px label stays the page's 0.9rem, not a 14 px font of
        // its own.
        let _ = write!(
            attributes,
            " font-size=\"{}\"",
            (style.size() * 10.0).round() / 10.0
        );
        if let FontStyle::Bold = style.style() {
            attributes.push_str(" font-weight=\"bold\"");
        }
        let degrees = match style.transform() {
            FontTransform::Rotate90 => 90,
            FontTransform::Rotate180 => 180,
            FontTransform::Rotate270 => 270,
            _ => 0,
        };
        if degrees != 0 {
            let _ = write!(attributes, " transform=\"rotate({degrees} {x} {y})\"");
        }
        let (fill, opacity) = paint("fill", color);
        let _ = write!(
            self.out,
            "<text {attributes} fill=\"{fill}\"{opacity}>{}</text>",
            escape_text(text)
        );
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), CompactError> {
        // Drawn at the style's size (not ÷ 1.24), in the page's font: the canvas's room.
        Ok(page_text_size(text, style.size()))
    }

    fn blit_bitmap(
        &mut self,
        _pos: BackendCoord,
        _size: (u32, u32),
        _src: &[u8],
    ) -> Result<(), CompactError> {
        // The chart draws no bitmaps.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_writer_merges_one_strokes_lines_and_writes_integers() {
        use plotters::prelude::{Circle, PathElement, Text, BLACK, BLUE, RED, WHITE};
        use plotters::style::{Color, IntoFont};
        let mut body = String::new();
        {
            let area = CompactSvg::new(&mut body, (100, 80)).into_drawing_area();
            area.fill(&WHITE).expect("fills");
            for x in [10, 20, 30] {
                area.draw(&PathElement::new(vec![(x, 0), (x, 80)], BLUE))
                    .expect("draws");
            }
            area.draw(&PathElement::new(
                vec![(0, 40), (100, 40)],
                plotters::style::Color::stroke_width(&RED, 2),
            ))
            .expect("draws");
            for x in [50, 60] {
                area.draw(&Circle::new((x, 50), 3, BLACK.filled()))
                    .expect("draws");
            }
            area.draw(&Circle::new((70, 50), 3, BLACK.mix(0.5).filled()))
                .expect("draws");
            area.draw(&Text::new("a < b", (5, 5), ("sans-serif", 12).into_font()))
                .expect("draws");
            area.draw(&Text::new("c", (5, 20), ("sans-serif", 13.5).into_font()))
                .expect("draws");
        }
        let svg = compact_svg_document((100, 80), &body, "");
        assert!(svg.starts_with("<svg viewBox=\"0 0 100 80\">"), "{svg}");
        // The three blue lines are one path of three subpaths; the red one its own; the two
        // opaque black circles one path of two arcs each, the translucent one its own.
        assert_eq!(svg.matches("<path").count(), 4, "{svg}");
        assert!(
            svg.contains("d=\"M10 0l0 80M20 0l0 80M30 0l0 80\""),
            "{svg}"
        );
        assert!(
            svg.contains("stroke=\"#FF0000\" stroke-width=\"2\""),
            "{svg}"
        );
        assert!(
            svg.contains(
                "<path d=\"M47 50a3 3 0 1 0 6 0a3 3 0 1 0 -6 0M57 50a3 3 0 1 0 6 0a3 3 0 1 0 -6 0\" fill=\"#000000\"/>"
            ),
            "{svg}"
        );
        assert!(
            svg.contains("<path d=\"M67 50a3 3 0 1 0 6 0a3 3 0 1 0 -6 0\" fill=\"#000000\" fill-opacity=\"0.50\"/>"),
            "{svg}"
        );
        assert!(!svg.contains("<circle"), "{svg}");
        // Text at the canvas's size, escaped, with no font family.
        assert!(svg.contains("font-size=\"12\""), "{svg}");
        // A tenth of a pixel kept: the page's 0.9rem, not a 14 px font of its own.
        assert!(svg.contains("font-size=\"13.5\""), "{svg}");
        assert!(svg.contains(">a &lt; b</text>"), "{svg}");
        assert!(!svg.contains("font-family") && !svg.contains("opacity=\"1\""));
    }

    /// A subpath is an absolute move, then offsets; summed from the move they give back every
    /// point.
    #[test]
    fn a_polyline_moves_absolutely_then_steps_relatively() {
        let points = [(10, 40), (13, 35), (20, 35), (18, 60)];
        let d = polyline(points);
        assert_eq!(d, "M10 40l3 -5 7 0 -2 25");
        let numbers: Vec<i32> = d
            .trim_start_matches('M')
            .replace('l', " ")
            .split_whitespace()
            .map(|n| n.parse().expect("a number"))
            .collect();
        let mut at = (numbers[0], numbers[1]);
        let mut back = vec![at];
        for step in numbers[2..].chunks(2) {
            at = (at.0 + step[0], at.1 + step[1]);
            back.push(at);
        }
        assert_eq!(back, points);
        assert_eq!(polyline([(5, 5)]), "M5 5");
        assert_eq!(polyline(std::iter::empty()), "");
    }

    #[test]
    fn wider_text_measures_wider_and_height_is_the_size() {
        let (narrow, h) = estimated_text_size("ill", 15.0);
        let (wide, _) = estimated_text_size("MWM", 15.0);
        assert!(wide > 2 * narrow, "{wide} vs {narrow}");
        assert_eq!(h, 15);
        assert_eq!(estimated_text_size("", 15.0).0, 0);
        // Linear in the size.
        let (w10, _) = estimated_text_size("Output tok/s per GPU", 10.0);
        let (w20, _) = estimated_text_size("Output tok/s per GPU", 20.0);
        assert!((i64::from(w20) - 2 * i64::from(w10)).abs() <= 1);
    }
}
