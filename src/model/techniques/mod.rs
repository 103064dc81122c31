//! How serving techniques move the throughput–latency frontier, and how far synthetic uniform
//! lengths flatter a batching policy.
//!
//! * **Technique ladder** (PRODUCT.md "one curve per technique level"): the user's scenario is
//!   moved to each level — static batching (MODEL.md §4.1); continuous batching with a contiguous
//!   KV reservation (§4.2, §1.4); + paged KV (§1.4); + speculative decoding (§5) — keeping
//!   everything else, and each variant is validated once and swept. The tensor-parallel degree is
//!   pinned to what the user's scenario resolved, so every curve is the same hardware
//!   configuration and only the technique differs.
//! * **Synthetic vs production** (§4.1, §6.4, `lengths.rs`): the same settings evaluated with
//!   fixed lengths and with lognormal lengths, under both batching policies, at the same
//!   concurrency.
//!
//! Pure: variant `ScenarioInput`s go through `Scenario::try_from` like any other input; a
//! variant that does not validate (e.g. a contiguous reservation that leaves no room for one
//! request) is left out rather than reported as an error.

use super::pareto::{sweep, Curve};
use crate::scenario::{Batching, KvAlloc, Scenario, ScenarioInput, SpecMethod};

mod lengths;
pub use lengths::{chat_sigmas, GapPoint, LengthGap, LengthStudy};

/// One rung of the technique ladder, from oldest to newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TechniqueLevel {
    /// Request-level batching (FasterTransformer): pad, run to the longest output, release together.
    Static,
    /// Iteration-level batching (Orca) with the KV cache reserved for the whole context up front.
    Continuous,
    /// Continuous batching with paged KV (vLLM PagedAttention).
    Paged,
    /// Paged continuous batching with speculative decoding.
    Speculative,
}

impl TechniqueLevel {
    /// Oldest first: the order the frontier moves outward in.
    pub const ALL: [TechniqueLevel; 4] = [
        TechniqueLevel::Static,
        TechniqueLevel::Continuous,
        TechniqueLevel::Paged,
        TechniqueLevel::Speculative,
    ];

    /// Position on the ladder, 0 for static batching (also the chart's series style).
    pub fn index(self) -> usize {
        match self {
            TechniqueLevel::Static => 0,
            TechniqueLevel::Continuous => 1,
            TechniqueLevel::Paged => 2,
            TechniqueLevel::Speculative => 3,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            TechniqueLevel::Static => "static",
            TechniqueLevel::Continuous => "continuous",
            TechniqueLevel::Paged => "paged",
            TechniqueLevel::Speculative => "speculative",
        }
    }

    /// Legend text (the speculative level adds its method and parameters, see `label_for`).
    pub fn label(self) -> &'static str {
        match self {
            TechniqueLevel::Static => "static batching",
            TechniqueLevel::Continuous => "continuous batching (contiguous KV)",
            TechniqueLevel::Paged => "+ paged KV",
            TechniqueLevel::Speculative => "+ speculative decoding",
        }
    }

    /// Legend text on a narrow chart.
    pub fn short_label(self) -> &'static str {
        match self {
            TechniqueLevel::Static => "static",
            TechniqueLevel::Continuous => "contiguous KV",
            TechniqueLevel::Paged => "paged KV",
            TechniqueLevel::Speculative => "spec. decoding",
        }
    }

    /// The level a scenario sits at: static batching, else contiguous KV, else speculative
    /// decoding when it is on, else paged.
    pub fn of(input: &ScenarioInput) -> TechniqueLevel {
        if Batching::parse(&input.batching) == Some(Batching::Static) {
            TechniqueLevel::Static
        } else if KvAlloc::parse(&input.kv_alloc) == Some(KvAlloc::Contiguous) {
            TechniqueLevel::Continuous
        } else if matches!(SpecMethod::parse(&input.spec_decode), Some(Some(_))) {
            TechniqueLevel::Speculative
        } else {
            TechniqueLevel::Paged
        }
    }

    /// The user's scenario moved to this level, everything else kept. The speculative level
    /// keeps the user's method and α, γ, c when speculation is on, and otherwise uses the EAGLE
    /// presets (MODEL.md §5: α 0.8, γ 4, c 0.05).
    pub fn variant(self, input: &ScenarioInput) -> ScenarioInput {
        let mut variant = input.clone();
        let spec_on = matches!(SpecMethod::parse(&input.spec_decode), Some(Some(_)));
        let (batching, kv_alloc) = match self {
            TechniqueLevel::Static => (Batching::Static, None),
            TechniqueLevel::Continuous => (Batching::Continuous, Some(KvAlloc::Contiguous)),
            TechniqueLevel::Paged | TechniqueLevel::Speculative => {
                (Batching::Continuous, Some(KvAlloc::Paged))
            }
        };
        variant.batching = batching.id().into();
        if let Some(kv_alloc) = kv_alloc {
            variant.kv_alloc = kv_alloc.id().into();
        }
        if self == TechniqueLevel::Speculative {
            if !spec_on {
                variant.spec_decode = SpecMethod::Eagle.id().into();
                variant.spec_accept = None;
                variant.spec_len = None;
                variant.spec_draft_cost = None;
            }
        } else {
            variant.spec_decode = "off".into();
        }
        variant
    }

    /// The legend text for this level of a validated scenario: the speculative level names its
    /// method and `α`, `γ` ("+ speculative decoding (EAGLE, α 0.8, γ 4)").
    pub fn label_for(self, scenario: &Scenario) -> String {
        match (self, scenario.spec) {
            (TechniqueLevel::Speculative, Some(spec)) => {
                let method = match spec.method {
                    SpecMethod::Draft => "draft model",
                    SpecMethod::Eagle => "EAGLE",
                    SpecMethod::Mtp => "MTP",
                };
                format!(
                    "{} ({method}, α {}, γ {})",
                    self.label(),
                    spec.accept,
                    spec.len
                )
            }
            _ => self.label().to_string(),
        }
    }
}

/// One level's swept curve.
#[derive(Debug, Clone, PartialEq)]
pub struct TechniqueCurve {
    pub level: TechniqueLevel,
    pub label: String,
    pub curve: Curve,
    /// The user's own scenario sits at this level (its curve is the user's curve).
    pub current: bool,
}

/// The user's scenario with the tensor-parallel degree it resolved written in, so that a variant
/// cannot pick another TP (a contiguous reservation needs more memory and would make "auto"
/// choose more GPUs per replica: a different configuration, not a different technique).
fn pinned(input: &ScenarioInput, scenario: &Scenario) -> ScenarioInput {
    let mut input = input.clone();
    input.tp = Some(f64::from(scenario.par.tp));
    input
}

/// Validate and sweep the levels of a validated scenario; `skip_current` leaves out the user's
/// own level (a chart already has that curve).
fn curves(scenario: &Scenario, skip_current: bool) -> Vec<TechniqueCurve> {
    let current = TechniqueLevel::of(&scenario.input);
    let base = pinned(&scenario.input, scenario);
    TechniqueLevel::ALL
        .into_iter()
        .filter(|level| !(skip_current && *level == current))
        .filter_map(|level| {
            let input = if level == current {
                base.clone()
            } else {
                level.variant(&base)
            };
            let variant = Scenario::try_from(input).ok()?;
            Some(TechniqueCurve {
                level,
                label: level.label_for(&variant),
                curve: sweep(&variant),
                current: level == current,
            })
        })
        .collect()
}

/// Every level's curve for the user's scenario, oldest technique first; empty when the input
/// itself does not validate. The user's own level is swept from the user's exact settings.
pub fn technique_curves(input: &ScenarioInput) -> Vec<TechniqueCurve> {
    match Scenario::try_from(input.clone()) {
        Ok(scenario) => curves(&scenario, false),
        Err(_) => Vec::new(),
    }
}

/// The other levels' curves, to draw behind the scenario's own (already swept) curve.
pub fn background_curves(scenario: &Scenario) -> Vec<TechniqueCurve> {
    curves(scenario, true)
}

/// Everything this module derives from one scenario: what a page recomputes when the scenario
/// changes (never on a slider move).
#[derive(Debug, Clone, PartialEq)]
pub struct TechniqueStudy {
    /// The scenario's own level.
    pub current: TechniqueLevel,
    /// Its legend text (`TechniqueLevel::label_for`).
    pub current_label: String,
    /// The other levels' curves, oldest first (empty while `background_pending`).
    pub background: Vec<TechniqueCurve>,
    /// The other levels are not swept yet (`first_screen`): a page's first chart shows the
    /// scenario's own curve and draws the ladder a browser task later (`with_background`).
    pub background_pending: bool,
    pub lengths: LengthStudy,
}

impl TechniqueStudy {
    pub fn new(scenario: &Scenario) -> TechniqueStudy {
        TechniqueStudy::first_screen(scenario).with_background(scenario)
    }

    /// The study without the ladder's other curves (three more sweeps): what the page's first
    /// chart needs. The synthetic-vs-production study is complete (the slider path reads it).
    pub fn first_screen(scenario: &Scenario) -> TechniqueStudy {
        let current = TechniqueLevel::of(&scenario.input);
        TechniqueStudy {
            current,
            current_label: current.label_for(scenario),
            background: Vec::new(),
            background_pending: true,
            lengths: LengthStudy::new(scenario),
        }
    }

    /// The same study with the other levels swept; `scenario` is the one it was made for.
    pub fn with_background(self, scenario: &Scenario) -> TechniqueStudy {
        if !self.background_pending {
            return self;
        }
        TechniqueStudy {
            background: background_curves(scenario),
            background_pending: false,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CurvePoint;

    /// Best output tok/s per GPU the curve reaches at `x` tok/s per user or more: its feasible
    /// points there, and the line between two neighbouring points that straddle `x`
    /// (interpolated in log x, as the chart draws it), so the sweep grid's spacing does not count.
    fn best_at(points: &[CurvePoint], x: f64) -> f64 {
        let feasible: Vec<&CurvePoint> = points.iter().filter(|p| p.fits).collect();
        let at_points = feasible
            .iter()
            .filter(|p| p.tok_s_per_user >= x)
            .map(|p| p.output_tok_s_per_gpu);
        let on_lines = feasible.windows(2).filter_map(|pair| {
            let (a, b) = (pair[0], pair[1]);
            let (lo, hi) = if a.tok_s_per_user < b.tok_s_per_user {
                (a, b)
            } else {
                (b, a)
            };
            (lo.tok_s_per_user < x && x <= hi.tok_s_per_user).then(|| {
                let t = (x.ln() - lo.tok_s_per_user.ln())
                    / (hi.tok_s_per_user.ln() - lo.tok_s_per_user.ln());
                lo.output_tok_s_per_gpu + t * (hi.output_tok_s_per_gpu - lo.output_tok_s_per_gpu)
            })
        });
        at_points.chain(on_lines).fold(0.0, f64::max)
    }

    fn peak(points: &[CurvePoint]) -> f64 {
        best_at(points, 0.0)
    }

    #[test]
    fn every_level_is_built_and_the_current_one_is_marked() {
        // TP left automatic, so the user's own curve is also the TP-pinned one.
        let input = ScenarioInput {
            tp: None,
            ..ScenarioInput::small_reference()
        };
        let curves = technique_curves(&input);
        let levels: Vec<TechniqueLevel> = curves.iter().map(|c| c.level).collect();
        assert_eq!(levels, TechniqueLevel::ALL.to_vec());
        let current: Vec<TechniqueLevel> = curves
            .iter()
            .filter(|c| c.current)
            .map(|c| c.level)
            .collect();
        assert_eq!(current, vec![TechniqueLevel::Paged]);
        let scenario = Scenario::try_from(input).expect("valid");
        let own = curves
            .iter()
            .find(|c| c.current)
            .expect("the current level");
        assert_eq!(own.curve, sweep(&scenario), "the user's own curve");
        assert!(curves
            .iter()
            .any(|c| c.label == "+ speculative decoding (EAGLE, α 0.8, γ 4)"));
        let background = background_curves(&scenario);
        assert_eq!(background.len(), 3);
        assert!(background.iter().all(|c| !c.current));
    }

    /// PRODUCT.md: continuous batching, paged attention and speculative decoding each push the
    /// frontier outward. For every point of one level, the next level reaches at least its
    /// throughput at equal or better interactivity (2 % slack on both: at C = 1 static and
    /// continuous batching are the same schedule and the two models differ by about 1 %), and
    /// its peak is clearly higher.
    #[test]
    fn each_level_dominates_the_previous_one() {
        let curves = technique_curves(&ScenarioInput::small_reference());
        for pair in curves.windows(2) {
            let (older, newer) = (&pair[0], &pair[1]);
            for p in older.curve.points.iter().filter(|p| p.fits) {
                let best = best_at(&newer.curve.points, p.tok_s_per_user * 0.98);
                assert!(
                    best >= p.output_tok_s_per_gpu * 0.98,
                    "{} at {:.1} tok/s/user: {:.0} < {} {:.0}",
                    newer.label,
                    p.tok_s_per_user,
                    best,
                    older.label,
                    p.output_tok_s_per_gpu
                );
            }
            assert!(
                peak(&newer.curve.points) > peak(&older.curve.points) * 1.1,
                "{} peaks above {}",
                newer.label,
                older.label
            );
        }
        // Continuous batching's gain over static is several-fold on production-like lengths
        // (MODEL.md §4.1: 7.1× at B = 32).
        let (static_peak, continuous_peak) =
            (peak(&curves[0].curve.points), peak(&curves[1].curve.points));
        assert!(
            continuous_peak > 4.0 * static_peak,
            "{continuous_peak} vs {static_peak}"
        );
    }

    #[test]
    fn levels_and_variants_round_trip() {
        let base = ScenarioInput::small_reference();
        for level in TechniqueLevel::ALL {
            assert_eq!(
                TechniqueLevel::of(&level.variant(&base)),
                level,
                "{level:?}"
            );
        }
        assert_eq!(TechniqueLevel::of(&base), TechniqueLevel::Paged);
        // The user's speculation settings survive; off becomes EAGLE's presets.
        let mut draft = base.clone();
        draft.spec_decode = "draft".into();
        draft.spec_accept = Some(0.6);
        let moved = TechniqueLevel::Speculative.variant(&draft);
        assert_eq!(
            (moved.spec_decode.as_str(), moved.spec_accept),
            ("draft", Some(0.6))
        );
        let eagle = TechniqueLevel::Speculative.variant(&base);
        assert_eq!(
            (eagle.spec_decode.as_str(), eagle.spec_accept),
            ("eagle", None)
        );
        assert_eq!(TechniqueLevel::Paged.variant(&draft).spec_decode, "off");
    }

    #[test]
    fn tp_is_pinned_across_levels() {
        // The glossary scenario: 70B FP8 on 8 × H100, auto TP 2.
        let scenario = Scenario::default_scenario().expect("valid");
        for level in TechniqueLevel::ALL {
            let input = level.variant(&pinned(&scenario.input, &scenario));
            let variant = Scenario::try_from(input).expect("valid");
            assert_eq!(variant.par.tp, scenario.par.tp, "{level:?}");
        }
    }

    #[test]
    fn an_invalid_input_has_no_curves() {
        let mut bad = ScenarioInput::small_reference();
        bad.input_len = -1.0;
        assert!(technique_curves(&bad).is_empty());
    }
}
