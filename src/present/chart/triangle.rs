//! The chart's triangle marker (the knee, triangle-marked pins and their legend symbols): plotters'
//! `TriangleMarker` with its three vertices as constants.
//!
//! plotters computes the vertices with `cos` and `sin` of -90°, -210° and -330° at every draw
//! (`plotters::element::points`, 0.3.7), which links the trigonometric functions (argument
//! reduction alone is 5 KB) into the page's first wasm module for three fixed numbers. Same
//! geometry and rounding: vertex = ceil(centre + size × (cos θ, sin θ)), filled in the style's
//! colour.

use plotters::element::{Drawable, PointCollection};
use plotters::style::{Color, ShapeStyle};
use plotters_backend::{BackendCoord, DrawingBackend, DrawingErrorKind};

/// (cos θ, sin θ) for θ = -90°, -210°, -330°, as plotters computes them (θ = degrees × π / 180
/// in f64, then `cos` and `sin`): an upward triangle inscribed in the unit circle. The last bits
/// are kept, so the pixels match plotters' exactly (its right vertex rounds one pixel lower at
/// some sizes).
const VERTICES: [(f64, f64); 3] = [
    (6.123_233_995_736_766e-17, -1.0),
    (-0.866_025_403_784_438_6, 0.500_000_000_000_000_1),
    (0.866_025_403_784_438_4, 0.500_000_000_000_000_4),
];

/// A filled upward triangle of circumradius `size` pixels centred on `centre`.
pub struct Triangle<Coord> {
    centre: Coord,
    size: u32,
    style: ShapeStyle,
}

impl<Coord> Triangle<Coord> {
    pub fn new<S: Into<ShapeStyle>>(centre: Coord, size: u32, style: S) -> Self {
        Triangle {
            centre,
            size,
            style: style.into(),
        }
    }
}

impl<'a, Coord: 'a> PointCollection<'a, Coord> for &'a Triangle<Coord> {
    type Point = &'a Coord;
    type IntoIter = std::iter::Once<&'a Coord>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.centre)
    }
}

impl<Coord, DB: DrawingBackend> Drawable<DB> for Triangle<Coord> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        let size = f64::from(self.size);
        // Pixel coordinates are far inside i32 (the `as` saturates regardless).
        let vertices = VERTICES.map(|(cos, sin)| {
            (
                (cos * size + f64::from(x)).ceil() as i32,
                (sin * size + f64::from(y)).ceil() as i32,
            )
        });
        backend.fill_polygon(vertices, &self.style.color.to_backend_color())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// The constants are the cosines and sines plotters computes, bit for bit.
    #[test]
    fn vertices_are_the_cosines_and_sines_plotters_computes() {
        for (&(cos, sin), degrees) in VERTICES.iter().zip([-90_i32, -210, -330]) {
            let rad = f64::from(degrees) * std::f64::consts::PI / 180.0;
            assert_eq!((cos, sin), (rad.cos(), rad.sin()), "{degrees} degrees");
        }
    }

    /// Same polygon as plotters' `TriangleMarker` for the same centre, size and style.
    #[test]
    fn draws_the_polygon_plotters_triangle_marker_draws() {
        let svg = |draw: &dyn Fn(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>)| {
            let mut out = String::new();
            {
                let area = SVGBackend::with_string(&mut out, (60, 60)).into_drawing_area();
                draw(&area);
                area.present().ok();
            }
            out
        };
        for size in 1_u32..=24 {
            let ours = svg(&|area| {
                area.draw(&Triangle::new((30, 30), size, RED.filled())).ok();
            });
            let theirs = svg(&|area| {
                area.draw(&TriangleMarker::new((30, 30), size, RED.filled()))
                    .ok();
            });
            assert!(ours.contains("<polygon"), "{ours}");
            assert_eq!(ours, theirs, "size {size}");
        }
    }
}
