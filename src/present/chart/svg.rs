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

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

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

#[cfg(test)]
mod tests {
    use super::*;

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
