//! Colours and sizes of the Pareto chart: the Okabe–Ito colour-blind-safe palette, in a light
//! and a dark variant, and the pixel scale that keeps strokes and text crisp on HiDPI screens.
//!
//! Okabe & Ito, "Color Universal Design" (2008): eight colours distinguishable under the common
//! colour-vision deficiencies. Roles never rely on colour alone: the curve is solid, infeasible
//! points are dashed and hollow, the knee is a triangle and the current point a large ringed dot.

use crate::choice::choices;
use plotters::style::RGBColor;

/// Okabe–Ito "blue".
pub const OKABE_ITO_BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Okabe–Ito "sky blue" (the curve on a dark background, where blue is too dark).
pub const OKABE_ITO_SKY_BLUE: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
/// Okabe–Ito "vermillion": the current operating point.
pub const OKABE_ITO_VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// Okabe–Ito "bluish green": the knee.
pub const OKABE_ITO_BLUISH_GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Okabe–Ito "orange" (reserved for a second curve).
pub const OKABE_ITO_ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);

/// Light or dark page background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Light,
    Dark,
}

choices!(Theme {
    Theme::Light => "light", "Light";
    Theme::Dark => "dark", "Dark";
});

/// Every colour the chart uses, for one theme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    pub background: RGBColor,
    pub text: RGBColor,
    pub muted_text: RGBColor,
    pub axis: RGBColor,
    pub grid_bold: RGBColor,
    pub grid_light: RGBColor,
    pub curve: RGBColor,
    pub infeasible: RGBColor,
    pub knee: RGBColor,
    pub current: RGBColor,
    /// Halo drawn under the current point so it stays visible on top of the curve.
    pub halo: RGBColor,
}

impl Palette {
    pub fn for_theme(theme: Theme) -> Palette {
        match theme {
            Theme::Light => Palette {
                background: RGBColor(0xFF, 0xFF, 0xFF),
                text: RGBColor(0x1F, 0x29, 0x37),
                muted_text: RGBColor(0x4B, 0x55, 0x63),
                axis: RGBColor(0x6B, 0x72, 0x80),
                grid_bold: RGBColor(0xDD, 0xE1, 0xE6),
                grid_light: RGBColor(0xF1, 0xF3, 0xF5),
                curve: OKABE_ITO_BLUE,
                infeasible: RGBColor(0x8C, 0x8C, 0x8C),
                knee: OKABE_ITO_BLUISH_GREEN,
                current: OKABE_ITO_VERMILLION,
                halo: RGBColor(0xFF, 0xFF, 0xFF),
            },
            Theme::Dark => Palette {
                background: RGBColor(0x16, 0x1B, 0x22),
                text: RGBColor(0xE6, 0xE8, 0xEB),
                muted_text: RGBColor(0xB4, 0xBA, 0xC2),
                axis: RGBColor(0x8B, 0x93, 0x9E),
                grid_bold: RGBColor(0x33, 0x3A, 0x44),
                grid_light: RGBColor(0x22, 0x28, 0x30),
                curve: OKABE_ITO_SKY_BLUE,
                infeasible: RGBColor(0x8C, 0x8C, 0x8C),
                knee: OKABE_ITO_BLUISH_GREEN,
                current: OKABE_ITO_VERMILLION,
                halo: RGBColor(0x16, 0x1B, 0x22),
            },
        }
    }
}

/// How to draw: theme and pixel scale (device pixels per CSS pixel; 1.0 for SVG).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartOptions {
    pub theme: Theme,
    /// Multiplies every stroke width, marker size, margin and font size, so a canvas sized in
    /// device pixels looks the same as one sized in CSS pixels, only sharper.
    pub scale: f64,
}

impl Default for ChartOptions {
    fn default() -> ChartOptions {
        ChartOptions {
            theme: Theme::Light,
            scale: 1.0,
        }
    }
}

impl ChartOptions {
    /// The scale actually used: `scale` within [0.5, 4], or 1 when it is not a number.
    fn effective_scale(&self) -> f64 {
        if self.scale.is_finite() {
            self.scale.clamp(0.5, 4.0)
        } else {
            1.0
        }
    }

    /// A size in CSS pixels, scaled to backend pixels (at least 1).
    pub fn px(&self, css_px: f64) -> u32 {
        (css_px * self.effective_scale()).round().max(1.0) as u32
    }

    /// The same, signed, for offsets.
    pub fn offset(&self, css_px: f64) -> i32 {
        (css_px * self.effective_scale()).round() as i32
    }

    /// Backend pixels back to CSS pixels (to choose a layout by the chart's apparent size).
    pub fn css(&self, backend_px: u32) -> f64 {
        f64::from(backend_px) / self.effective_scale()
    }

    /// A font size in backend pixels, to a tenth of a pixel (at least 1): not rounded to whole
    /// pixels, so a 13.5 px label stays the page's 0.9rem.
    pub fn font(&self, css_px: f64) -> f64 {
        ((css_px * self.effective_scale() * 10.0).round() / 10.0).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_multiplies_sizes_and_survives_nonsense() {
        let one = ChartOptions::default();
        let two = ChartOptions { scale: 2.0, ..one };
        assert_eq!(one.px(10.0), 10);
        assert_eq!(two.px(10.0), 20);
        assert_eq!(two.offset(-3.0), -6);
        let nan = ChartOptions {
            scale: f64::NAN,
            ..one
        };
        assert_eq!(nan.px(10.0), 10);
        assert_eq!(one.px(0.0), 1, "never a zero-width stroke");
        assert_eq!(two.css(640), 320.0);
        // Fonts keep a tenth of a pixel (the page's 0.9rem is 13.5 px), and are never zero.
        assert_eq!(one.font(13.5), 13.5);
        assert_eq!(two.font(13.5), 27.0);
        assert_eq!(one.font(0.0), 1.0);
    }

    #[test]
    fn themes_differ_where_contrast_matters() {
        let light = Palette::for_theme(Theme::Light);
        let dark = Palette::for_theme(Theme::Dark);
        assert_ne!(light.background, dark.background);
        assert_ne!(light.curve, dark.curve);
        assert_eq!(light.current, dark.current);
    }
}
