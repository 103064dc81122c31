//! Where the chart's text labels go: nearer their own marker than any other (issue 28 §3), clear
//! of each other, the plot's edges and every plotted point and line (`Obstacles`), else where
//! they cover the fewest (`Cost`). `pareto.rs` lists what is plotted (`obstacles`), draws each
//! label where `place_label` or `choose` puts it, with a leader line when it moved out, and
//! records where each went (`LabelPlacement`), so tests check the geometry on any backend.

use super::style::ChartOptions;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Which side of its point a label goes on. The curve falls from upper left to lower right, so
/// labels above-right or below-left of a point stay clear of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    AboveRight,
    /// For points near the right edge, where the curve runs nearly vertically.
    AboveLeft,
    BelowLeft,
    BelowRight,
    /// Straight beside or over the point, tried after the four corners: a box there is only
    /// `gap` from its point, not `gap`·√2, so it stays nearest its own marker among crowded
    /// curves (the technique ladder) where no corner does.
    Right,
    Left,
    Above,
    Below,
}

/// What a label in the plot names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Labelled {
    Knee,
    Current,
    /// The note at the feasibility edge's line, by the x axis: it names a line, not a marker.
    InfeasibleNote,
}

/// Where a label in the plot went, in backend pixels: the point it names (`marker`; the foot of
/// the edge's line for the note), its box (left, top, right, bottom) and whether a leader line
/// joins them. What a draw returns with its `Frame` (`draw_pareto_placed`), so a test checks the
/// placement without reading any backend's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelPlacement {
    pub labelled: Labelled,
    pub marker: (i32, i32),
    pub text_box: [i32; 4],
    pub leader: bool,
}

impl LabelPlacement {
    /// The record of the label `place_label` has just placed (the last box in `placed`).
    pub(super) fn of_last(
        labelled: Labelled,
        marker: (i32, i32),
        spot: &Spot,
        placed: &[[i32; 4]],
    ) -> LabelPlacement {
        LabelPlacement {
            labelled,
            marker,
            text_box: placed.last().copied().unwrap_or_default(),
            leader: spot.leader,
        }
    }

    /// The leader line from the marker to the label's nearest edge, when the label moved away.
    pub(super) fn leader_line(&self) -> Option<Vec<(i32, i32)>> {
        self.leader
            .then(|| vec![self.marker, leader_end(self.marker, self.text_box)])
    }
}

/// How far (CSS px, along each axis) a label's corner sits from its point: the usual gap, then
/// farther out, for when every side is taken at the usual one. On a phone with the technique
/// ladder behind the curve the nearest clear spot can be 50–60 px out (the current point on the
/// knee, whose label took the spot beside it; a long "(infeasible)" label among five curves).
pub(super) const LABEL_GAPS_CSS_PX: [f64; 8] = [9.0, 14.0, 20.0, 27.0, 35.0, 44.0, 54.0, 64.0];

/// Where a label goes: the side of its point and the gap (backend px) between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spot {
    side: Side,
    gap: i32,
    /// How far a box straight beside or over its point slid along its side to stay inside the
    /// plot (`slide`).
    shift: (i32, i32),
    /// Whether a leader line joins the label to its point: it moved out past the usual gap, or
    /// no spot was nearer its own marker than every other (a crowded phone chart), and the
    /// line says which marker it names.
    pub(super) leader: bool,
}

impl Spot {
    /// The label's offset from its point and its text alignment.
    pub(super) fn offset(self) -> ((i32, i32), Pos) {
        let ((x, y), pos) = label_offset(self.side, self.gap);
        ((x + self.shift.0, y + self.shift.1), pos)
    }
}

/// The point of `text_box` nearest `marker` (backend px): where its leader line ends.
pub(super) fn leader_end(marker: (i32, i32), [left, top, right, bottom]: [i32; 4]) -> (i32, i32) {
    (
        marker.0.clamp(left, right.max(left)),
        marker.1.clamp(top, bottom.max(top)),
    )
}

/// The offset and alignment of a label on `side` of its point, `gap` out. Straight beside or
/// over it the gap is a third wider, so the box clears the current point's halo (10 CSS px
/// against the first gap's 9) and still lies nearer than a corner box (12 < 9·√2).
pub(super) fn label_offset(side: Side, gap: i32) -> ((i32, i32), Pos) {
    let straight = gap + gap / 3;
    match side {
        Side::AboveRight => ((gap, -gap), Pos::new(HPos::Left, VPos::Bottom)),
        Side::AboveLeft => ((-gap, -gap), Pos::new(HPos::Right, VPos::Bottom)),
        Side::BelowLeft => ((-gap, gap), Pos::new(HPos::Right, VPos::Top)),
        Side::BelowRight => ((gap, gap), Pos::new(HPos::Left, VPos::Top)),
        Side::Right => ((straight, 0), Pos::new(HPos::Left, VPos::Center)),
        Side::Left => ((-straight, 0), Pos::new(HPos::Right, VPos::Center)),
        Side::Above => ((0, -straight), Pos::new(HPos::Center, VPos::Bottom)),
        Side::Below => ((0, straight), Pos::new(HPos::Center, VPos::Top)),
    }
}

/// The box (left, top, right, bottom, backend pixels) of a label of `size` drawn at `offset`
/// from `anchor` with alignment `pos`.
pub(super) fn label_box(
    anchor: (i32, i32),
    offset: (i32, i32),
    pos: Pos,
    size: (u32, u32),
) -> [i32; 4] {
    let (w, h) = (
        i32::try_from(size.0).unwrap_or(0),
        i32::try_from(size.1).unwrap_or(0),
    );
    let x = anchor.0
        + offset.0
        + match pos.h_pos {
            HPos::Left => 0,
            HPos::Center => -w / 2,
            HPos::Right => -w,
        };
    let y = anchor.1
        + offset.1
        + match pos.v_pos {
            VPos::Top => 0,
            VPos::Center => -h / 2,
            VPos::Bottom => -h,
        };
    [x, y, x + w, y + h]
}

/// How far a box on `side` slides along it to lie inside `bounds`: at most half its length, so
/// it stays beside (or over) its point. Only straight sides slide: a point on the plot's edge
/// (the first few in flight sit on the x axis, straight below the next ones) keeps a spot
/// beside it that is nearer it than any neighbour. A corner box does not slide.
fn slide(side: Side, label: [i32; 4], bounds: [i32; 4]) -> (i32, i32) {
    let fit = |low: i32, high: i32, min: i32, max: i32| {
        let limit = (high - low) / 2;
        let shift = if high > max {
            max - high
        } else if low < min {
            min - low
        } else {
            0
        };
        shift.clamp(-limit, limit.max(-limit))
    };
    let [left, top, right, bottom] = label;
    match side {
        Side::Right | Side::Left => (0, fit(top, bottom, bounds[1], bounds[3])),
        Side::Above | Side::Below => (fit(left, right, bounds[0], bounds[2]), 0),
        _ => (0, 0),
    }
}

fn overlaps(a: &[i32; 4], b: &[i32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// What a label's box would get in the way of, worst first, so the derived order ranks boxes:
/// leaving the plot or covering a label (`clashes`) is worse than covering a mark (`covered`,
/// issue 15 §3), which is worse than lying nearer another marker than its own (`strays`: by
/// how much, so the least misleading spot wins; the reader would take it for that
/// marker's, issue 28 §3), which is worse than crossing a line (`crossed`). Strays rank below
/// covered marks because a label that strays gets a leader line to its marker (`Spot::leader`),
/// while text over a point has no remedy; on roomy charts no label strays
/// (tests/chart_labels.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Cost {
    clashes: usize,
    covered: usize,
    strays: usize,
    crossed: usize,
}

impl Cost {
    const CLEAR: Cost = Cost {
        clashes: 0,
        strays: 0,
        covered: 0,
        crossed: 0,
    };
}

/// The squared distance (backend px²) from (`x`, `y`) to the nearest point of `label`.
fn distance_squared(&[left, top, right, bottom]: &[i32; 4], (x, y): (i32, i32)) -> i64 {
    let dx = i64::from((left - x).max(x - right).max(0));
    let dy = i64::from((top - y).max(y - bottom).max(0));
    dx * dx + dy * dy
}

/// What the plot shows, in backend pixels, for labels to keep clear of (issue 15 §3): marks
/// (curve points, the knee, pins, measured points), each a centre and a radius, and the
/// segments of the lines through them; and which of the marks are markers a label must lie
/// nearer its own one than any of (issue 28 §3): the knee, the current point, the infeasible
/// rings, the ring at each technique curve's end, pins' and measured points. The main curve's
/// frontier dots are not: a label beside a dot of the curve it names still reads as that
/// curve's, while one beside the knee, a ring or another curve's marker reads as theirs. A
/// technique curve's inner points are not either: only its line is drawn there. Built once per
/// draw; checking a box allocates nothing and costs O(marks + segments).
#[derive(Debug, Default, Clone)]
pub(super) struct Obstacles {
    /// (x, y, radius, whether it is a marker).
    marks: Vec<(i32, i32, i32, bool)>,
    segments: Vec<((i32, i32), (i32, i32))>,
}

impl Obstacles {
    /// A mark of `radius` at `centre`.
    pub(super) fn mark(&mut self, centre: (i32, i32), radius: u32) {
        self.push(centre, radius, false);
    }

    /// A mark that is a marker (see the type's doc).
    pub(super) fn marker(&mut self, centre: (i32, i32), radius: u32) {
        self.push(centre, radius, true);
    }

    fn push(&mut self, centre: (i32, i32), radius: u32, marker: bool) {
        let radius = i32::try_from(radius).unwrap_or(0);
        self.marks.push((centre.0, centre.1, radius, marker));
    }

    /// The segment from `from` (a line's previous point, if any) to `to`; returns `to`, the
    /// next segment's `from`.
    pub(super) fn join(&mut self, from: Option<(i32, i32)>, to: (i32, i32)) -> Option<(i32, i32)> {
        if let Some(from) = from {
            self.segments.push((from, to));
        }
        Some(to)
    }

    /// The marker a label names at `centre`, with the radius its drawing covers: the largest of
    /// the markers centred there (the current point's halo, the knee's triangle). Markers
    /// within it are hidden under that one, so they do not compete with it for its label.
    fn own(&self, centre: (i32, i32)) -> ((i32, i32), i64) {
        let radius = self
            .marks
            .iter()
            .filter(|&&(x, y, _, marker)| marker && (x, y) == centre)
            .map(|&(_, _, radius, _)| i64::from(radius))
            .max()
            .unwrap_or(0);
        (centre, radius * radius)
    }

    /// How much nearer `label` lies to a marker other than `own` (centre, squared radius:
    /// `Obstacles::own`) than to `own`'s centre, as a difference of squared distances (px²;
    /// integers, so the page's wasm carries no float rounding for it); 0 when its own is the
    /// nearest.
    fn strays(&self, label: &[i32; 4], ((x0, y0), hidden): ((i32, i32), i64)) -> usize {
        let nearest_other = self
            .marks
            .iter()
            .filter(|&&(x, y, _, marker)| {
                let (dx, dy) = (i64::from(x - x0), i64::from(y - y0));
                marker && dx * dx + dy * dy > hidden
            })
            .map(|&(x, y, _, _)| distance_squared(label, (x, y)))
            .min()
            .unwrap_or(i64::MAX);
        let reach = distance_squared(label, (x0, y0));
        usize::try_from(reach.saturating_sub(nearest_other)).unwrap_or(0)
    }

    /// What `label` gets in the way of: the edges of `bounds`, the boxes in `placed`, marks and
    /// lines; and, for a label naming the marker `own` (centre, squared radius: `Obstacles::own`),
    /// the markers outside that one but nearer the label than its centre.
    fn cost(
        &self,
        label: &[i32; 4],
        own: Option<((i32, i32), i64)>,
        placed: &[[i32; 4]],
        bounds: [i32; 4],
    ) -> Cost {
        let outside = label[0] < bounds[0]
            || label[2] > bounds[2]
            || label[1] < bounds[1]
            || label[3] > bounds[3];
        Cost {
            clashes: usize::from(outside) + placed.iter().filter(|p| overlaps(p, label)).count(),
            strays: own.map_or(0, |own| self.strays(label, own)),
            covered: self
                .marks
                .iter()
                .filter(|mark| covers(label, **mark))
                .count(),
            crossed: self
                .segments
                .iter()
                .filter(|segment| crosses(label, **segment))
                .count(),
        }
    }
}

/// Whether `label` comes within `radius` of the mark centred on (`x`, `y`).
fn covers(label: &[i32; 4], (x, y, radius, _): (i32, i32, i32, bool)) -> bool {
    distance_squared(label, (x, y)) < i64::from(radius) * i64::from(radius)
}

/// Whether the segment from `a` to `b` passes through `label`: their bounding boxes overlap and
/// the line through the segment does not leave all four corners on one side (the separating
/// axis test for a segment and an axis-aligned box).
fn crosses(
    &[left, top, right, bottom]: &[i32; 4],
    ((ax, ay), (bx, by)): ((i32, i32), (i32, i32)),
) -> bool {
    if ax.max(bx) < left || ax.min(bx) > right || ay.max(by) < top || ay.min(by) > bottom {
        return false;
    }
    // The cross product of the segment with the vector to (x, y): its sign says which side of
    // the line the point is on.
    let side = |x: i32, y: i32| {
        i64::from(bx - ax) * i64::from(y - ay) - i64::from(by - ay) * i64::from(x - ax)
    };
    let corners = [
        side(left, top),
        side(right, top),
        side(left, bottom),
        side(right, bottom),
    ];
    corners.iter().any(|&c| c <= 0) && corners.iter().any(|&c| c >= 0)
}

/// The first of `count` candidate boxes (`label_at(i)`, i in `0..count`) that is clear: inside
/// `bounds`, over no box in `placed`, no mark and no line of `obstacles`, and no nearer any mark
/// than to `own` (the marker it names, if any); else the one with the lowest `Cost`, the
/// earliest of equals. Candidates by index through a `&dyn`, so one copy of this serves every
/// label.
pub(super) fn choose(
    count: usize,
    label_at: &dyn Fn(usize) -> [i32; 4],
    own: Option<(i32, i32)>,
    placed: &[[i32; 4]],
    bounds: [i32; 4],
    obstacles: &Obstacles,
) -> usize {
    let own = own.map(|centre| obstacles.own(centre));
    let mut best: Option<(Cost, usize)> = None;
    for index in 0..count {
        let cost = obstacles.cost(&label_at(index), own, placed, bounds);
        if cost == Cost::CLEAR {
            return index;
        }
        if best.is_none_or(|(lowest, _)| cost < lowest) {
            best = Some((cost, index));
        }
    }
    best.map_or(0, |(_, index)| index)
}

/// Where a label of `size` goes by its marker at `anchor`: `preferred` at the usual gap if its
/// box is clear (`choose`: inside the plot, over no placed label, mark or line, nearer `anchor`
/// than any other mark), else the first other side that is, then the same at each larger gap;
/// if none is, the spot that gets in the way least (`Cost`), not blindly `preferred`. The
/// chosen box joins `placed`, so later labels keep clear of it. At most 8 × 8 boxes, each
/// checked against every mark and segment: ~10⁵ comparisons for the ~250 marks of five
/// curves, inside a slider move's budget.
pub(super) fn place_label(
    anchor: (i32, i32),
    preferred: Side,
    size: (u32, u32),
    placed: &mut Vec<[i32; 4]>,
    bounds: [i32; 4],
    obstacles: &Obstacles,
    options: &ChartOptions,
) -> Spot {
    // The sides in their usual order with `preferred` moved to the front.
    let mut sides = [
        Side::AboveRight,
        Side::AboveLeft,
        Side::BelowLeft,
        Side::BelowRight,
        Side::Right,
        Side::Left,
        Side::Above,
        Side::Below,
    ];
    if let Some(head) = sides
        .iter()
        .position(|side| *side == preferred)
        .and_then(|at| sides.get_mut(..=at))
    {
        head.rotate_right(1);
    }
    let spot_at = |index: usize| {
        let side = sides.get(index % sides.len()).copied().unwrap_or(preferred);
        let gap = options.offset(
            LABEL_GAPS_CSS_PX
                .get(index / sides.len())
                .copied()
                .unwrap_or(LABEL_GAPS_CSS_PX[0]),
        );
        let (offset, pos) = label_offset(side, gap);
        let shift = slide(side, label_box(anchor, offset, pos, size), bounds);
        Spot {
            side,
            gap,
            shift,
            leader: false,
        }
    };
    let label_at = |index: usize| {
        let (offset, pos) = spot_at(index).offset();
        label_box(anchor, offset, pos, size)
    };
    let count = sides.len() * LABEL_GAPS_CSS_PX.len();
    let chosen = choose(count, &label_at, Some(anchor), placed, bounds, obstacles);
    let (spot, label) = (spot_at(chosen), label_at(chosen));
    placed.push(label);
    Spot {
        leader: chosen >= sides.len() || obstacles.strays(&label, obstacles.own(anchor)) > 0,
        ..spot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label goes on its preferred side unless that covers a label placed before it or leaves
    /// the plot; then on the first side that does neither (issue 15 §2: static batching's knee,
    /// current point and KV note piled up).
    #[test]
    fn labels_keep_clear_of_each_other_and_of_the_edges() {
        let options = ChartOptions::default();
        let none = Obstacles::default();
        let bounds = [0, 0, 400, 300];
        let size = (80, 14);
        let mut placed = Vec::new();
        let at_centre = |placed: &mut Vec<[i32; 4]>| {
            place_label(
                (200, 150),
                Side::AboveRight,
                size,
                placed,
                bounds,
                &none,
                &options,
            )
            .side
        };
        let first = at_centre(&mut placed);
        assert_eq!(first, Side::AboveRight);
        // A second label at the same point cannot take the same box.
        let second = at_centre(&mut placed);
        assert_ne!(second, Side::AboveRight);
        assert!(!overlaps(&placed[0], &placed[1]), "{placed:?}");
        // Near the right edge the label turns left, near the top it goes below.
        let mut alone = Vec::new();
        assert_eq!(
            place_label(
                (390, 150),
                Side::AboveRight,
                size,
                &mut alone,
                bounds,
                &none,
                &options
            )
            .side,
            Side::AboveLeft
        );
        assert_eq!(
            place_label(
                (390, 5),
                Side::AboveRight,
                size,
                &mut alone,
                bounds,
                &none,
                &options
            )
            .side,
            Side::BelowLeft
        );
        // Nowhere clear: the preferred side.
        let mut full = vec![bounds];
        assert_eq!(
            place_label(
                (200, 150),
                Side::BelowRight,
                size,
                &mut full,
                bounds,
                &none,
                &options
            )
            .side,
            Side::BelowRight
        );
    }

    /// Marks outrank lines: a label moves off a line when another side is clear, and when no
    /// spot is clear it takes the one covering the fewest marks (issue 15 §3), not `preferred`.
    #[test]
    fn a_label_keeps_clear_of_marks_and_lines_else_covers_the_fewest_marks() {
        let options = ChartOptions::default();
        let bounds = [0, 0, 400, 300];
        let (anchor, size) = ((200, 150), (80, 14));
        let gap = options.offset(LABEL_GAPS_CSS_PX[0]);
        let box_of = |side: Side| {
            let (offset, pos) = label_offset(side, gap);
            label_box(anchor, offset, pos, size)
        };
        // A short line through the preferred box, with no mark on it, sends the label to the
        // next side.
        let mut line = Obstacles::default();
        line.segments.push(((250, 120), (250, 135)));
        let preferred = box_of(Side::AboveRight);
        assert!(
            crosses(&preferred, ((250, 120), (250, 135))),
            "{preferred:?}"
        );
        assert!(!crosses(&preferred, ((290, 100), (300, 140))));
        assert!(
            !crosses(&preferred, ((200, 150), (300, 160))),
            "below the box"
        );
        let spot = place_label(
            anchor,
            Side::AboveRight,
            size,
            &mut Vec::new(),
            bounds,
            &line,
            &options,
        );
        assert_eq!(
            spot,
            Spot {
                side: Side::AboveLeft,
                gap,
                shift: (0, 0),
                leader: false
            }
        );
        // Marks everywhere, 4 px apart, but for a hole around the below-left box with one mark
        // left in it: every spot covers marks, that one the fewest.
        let hole = box_of(Side::BelowLeft);
        let mut crowd = Obstacles::default();
        let in_hole = |x: i32, y: i32| {
            x >= hole[0] - 2 && x <= hole[2] + 2 && y >= hole[1] - 2 && y <= hole[3] + 2
        };
        let grid = (0..100)
            .flat_map(|i| (0..75).map(move |j| (4 * i, 4 * j)))
            .filter(|&(x, y)| !in_hole(x, y));
        for centre in grid {
            crowd.mark(centre, 1);
        }
        let centre = ((hole[0] + hole[2]) / 2, (hole[1] + hole[3]) / 2);
        crowd.mark(centre, 1);
        // The old rule (nothing clear: `preferred`) would leave it on the crowd.
        assert!(crowd.cost(&preferred, None, &[], bounds).covered > 50);
        let mut placed = Vec::new();
        let spot = place_label(
            anchor,
            Side::AboveRight,
            size,
            &mut placed,
            bounds,
            &crowd,
            &options,
        );
        assert_eq!(
            spot,
            Spot {
                side: Side::BelowLeft,
                gap,
                shift: (0, 0),
                leader: false
            }
        );
        assert_eq!(placed, vec![hole]);
        assert_eq!(crowd.cost(&hole, None, &[], bounds).covered, 1);
        // Covering a label or leaving the plot is worse than covering marks.
        let mut taken = vec![hole];
        let spot = place_label(
            anchor,
            Side::AboveRight,
            size,
            &mut taken,
            bounds,
            &crowd,
            &options,
        );
        assert_ne!(
            spot,
            Spot {
                side: Side::BelowLeft,
                gap,
                shift: (0, 0),
                leader: false
            }
        );
        assert!(!overlaps(&taken[0], &taken[1]));
    }
}
