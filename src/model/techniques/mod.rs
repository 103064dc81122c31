//! How serving techniques move the throughput–latency frontier.
//!
//! * **Technique ladder** (PRODUCT.md "one curve per technique level"): the user's scenario is
//!   moved to each level — static batching (MODEL.md §4.1); continuous batching with a contiguous
//!   KV reservation (§4.2, §1.4); + paged KV (§1.4); + speculative decoding (§5); +
//!   disaggregated prefill and decode (§4.4, `TechniqueLevel::Disaggregated`) — keeping
//!   everything else, and each variant is validated once and swept. The tensor-parallel degree is
//!   pinned to what the user's scenario resolved (both pools' TP for disaggregation), so every
//!   curve is the same hardware and replica shape and only the technique differs. A level whose
//!   variant does not validate (disaggregation on one GPU, or no split of the GPUs into two pools
//!   at that TP) has no curve, and the study says why (`TechniqueStudy::absent`).
//!
//! The gap between a synthetic benchmark and production traffic (issue 15 §4) needs the
//! simulator and the decision inputs, so it lives in `decide::production_gap`.
//!
//! Pure: variant `ScenarioInput`s go through `Scenario::try_from` like any other input; a
//! variant that does not validate (e.g. a contiguous reservation that leaves no room for one
//! request) is left out of the chart rather than reported as an error, with its reason kept.

use super::pareto::{sweep, Curve};
use crate::scenario::pools::Serving;
use crate::scenario::{Batching, KvAlloc, Scenario, ScenarioInput, SpecMethod};

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
    /// Paged continuous batching on separate prefill and decode pools (DistServe, Splitwise;
    /// MODEL.md §4.4), the GPUs split as `scenario::pools` chooses: the split with the highest
    /// throughput at both pools' capacity (DistServe's placement rule without an SLO).
    ///
    /// It is the newest rung, drawn after speculative decoding, but it branches from paged KV
    /// (speculation off) rather than stacking on speculative decoding: the published gains it
    /// stands for — DistServe's and Splitwise's against vLLM, AIConfigurator's 1.70× for
    /// Qwen3-32B FP8 on H200 — are disaggregated against aggregated serving of the same engine
    /// without speculative decoding, and `tests/disagg.rs` checks the model at that
    /// configuration; stacked on speculation the curve would mix two gains and compare with
    /// nothing published. Unlike the other rungs it does not dominate its predecessor:
    /// aggregated serving keeps the high-throughput end when TPOT is loose (DistServe §2,
    /// AIConfigurator), which the chart shows.
    Disaggregated,
}

impl TechniqueLevel {
    /// Oldest first: the order the frontier moves outward in.
    pub const ALL: [TechniqueLevel; 5] = [
        TechniqueLevel::Static,
        TechniqueLevel::Continuous,
        TechniqueLevel::Paged,
        TechniqueLevel::Speculative,
        TechniqueLevel::Disaggregated,
    ];

    /// Position on the ladder, 0 for static batching (also the chart's series style).
    pub fn index(self) -> usize {
        match self {
            TechniqueLevel::Static => 0,
            TechniqueLevel::Continuous => 1,
            TechniqueLevel::Paged => 2,
            TechniqueLevel::Speculative => 3,
            TechniqueLevel::Disaggregated => 4,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            TechniqueLevel::Static => "static",
            TechniqueLevel::Continuous => "continuous",
            TechniqueLevel::Paged => "paged",
            TechniqueLevel::Speculative => "speculative",
            TechniqueLevel::Disaggregated => "disaggregated",
        }
    }

    /// Legend text (the speculative level adds its method and parameters, see `label_for`).
    pub fn label(self) -> &'static str {
        match self {
            TechniqueLevel::Static => "static batching",
            TechniqueLevel::Continuous => "continuous batching (contiguous KV)",
            TechniqueLevel::Paged => "+ paged KV",
            TechniqueLevel::Speculative => "+ speculative decoding",
            TechniqueLevel::Disaggregated => "+ disaggregation",
        }
    }

    /// Legend text on a narrow chart.
    pub fn short_label(self) -> &'static str {
        match self {
            TechniqueLevel::Static => "static",
            TechniqueLevel::Continuous => "contiguous KV",
            TechniqueLevel::Paged => "paged KV",
            TechniqueLevel::Speculative => "spec. decoding",
            TechniqueLevel::Disaggregated => "disaggregated",
        }
    }

    /// The level a scenario sits at: disaggregated serving, else static batching, else
    /// contiguous KV, else speculative decoding when it is on, else paged.
    pub fn of(input: &ScenarioInput) -> TechniqueLevel {
        if input.serving == Serving::Disaggregated {
            TechniqueLevel::Disaggregated
        } else if input.batching == Batching::Static {
            TechniqueLevel::Static
        } else if input.kv_alloc == KvAlloc::Contiguous {
            TechniqueLevel::Continuous
        } else if input.spec_decode.is_some() {
            TechniqueLevel::Speculative
        } else {
            TechniqueLevel::Paged
        }
    }

    /// The user's scenario moved to this level, everything else kept. The speculative level
    /// keeps the user's method and α, γ, c when speculation is on, and otherwise uses the EAGLE
    /// presets (MODEL.md §5: α 0.8, γ 4, c 0.05). The disaggregated level serves the same GPUs
    /// (`gpu_count`, the total of both pools) as a prefill and a decode pool of the input's TP
    /// and EP with the split left to the model; a scenario that is already disaggregated keeps
    /// its pools. Every other level is aggregated.
    pub fn variant(self, input: &ScenarioInput) -> ScenarioInput {
        let mut variant = input.clone();
        let already_disaggregated = input.serving == Serving::Disaggregated;
        if self == TechniqueLevel::Disaggregated {
            if !already_disaggregated {
                variant.serving = Serving::Disaggregated;
                variant.prefill_gpus = None;
                variant.decode_gpus = None;
                variant.prefill_tp = input.tp;
                variant.decode_tp = input.tp;
                variant.prefill_ep = input.ep;
                variant.decode_ep = input.ep;
            }
        } else {
            variant.serving = Serving::Aggregated;
            variant.prefill_gpus = None;
            variant.prefill_tp = None;
            variant.prefill_ep = None;
            variant.decode_gpus = None;
            variant.decode_tp = None;
            variant.decode_ep = None;
        }
        let spec_on = input.spec_decode.is_some();
        let (batching, kv_alloc) = match self {
            TechniqueLevel::Static => (Batching::Static, None),
            TechniqueLevel::Continuous => (Batching::Continuous, Some(KvAlloc::Contiguous)),
            TechniqueLevel::Paged | TechniqueLevel::Speculative | TechniqueLevel::Disaggregated => {
                (Batching::Continuous, Some(KvAlloc::Paged))
            }
        };
        variant.batching = batching;
        if let Some(kv_alloc) = kv_alloc {
            variant.kv_alloc = kv_alloc;
        }
        if self == TechniqueLevel::Speculative {
            if !spec_on {
                variant.spec_decode = Some(SpecMethod::Eagle);
                variant.spec_accept = None;
                variant.spec_len = None;
                variant.spec_draft_cost = None;
            }
        } else if !(self == TechniqueLevel::Disaggregated && already_disaggregated) {
            variant.spec_decode = None;
        }
        variant
    }

    /// The legend text for this level of a validated scenario: the speculative level names its
    /// method and `α`, `γ` ("+ speculative decoding (EAGLE, α 0.8, γ 4)"), the disaggregated
    /// level its pools ("+ disaggregation (2P + 6D GPUs, TP 1)").
    pub fn label_for(self, scenario: &Scenario) -> String {
        if let (TechniqueLevel::Disaggregated, Some(pools)) = (self, scenario.pools.as_deref()) {
            let (prefill_tp, decode_tp) = (pools.prefill.par.tp, scenario.par.tp);
            let tp = if prefill_tp == decode_tp {
                format!("TP {decode_tp}")
            } else {
                format!("TP {prefill_tp} / {decode_tp}")
            };
            return format!(
                "{} ({}P + {}D GPUs, {tp})",
                self.label(),
                pools.prefill.gpu_count,
                scenario.gpu_count
            );
        }
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

/// A level with no curve for this scenario, and why (its variant's validation error).
#[derive(Debug, Clone, PartialEq)]
pub struct AbsentLevel {
    pub level: TechniqueLevel,
    /// "no disaggregation curve: disaggregated serving needs at least 2 GPUs: …".
    pub reason: String,
}

/// Validate and sweep the levels of a validated scenario; `skip_current` leaves out the user's
/// own level (a chart already has that curve). Levels whose variant does not validate come
/// back as `AbsentLevel`s.
fn curves(scenario: &Scenario, skip_current: bool) -> (Vec<TechniqueCurve>, Vec<AbsentLevel>) {
    let current = TechniqueLevel::of(&scenario.input);
    let base = pinned(&scenario.input, scenario);
    let mut absent = Vec::new();
    let curves = TechniqueLevel::ALL
        .into_iter()
        .filter(|level| !(skip_current && *level == current))
        .filter_map(|level| {
            let input = if level == current {
                base.clone()
            } else {
                level.variant(&base)
            };
            match Scenario::try_from(input) {
                Ok(variant) => Some(TechniqueCurve {
                    level,
                    label: level.label_for(&variant),
                    curve: sweep(&variant),
                    current: level == current,
                }),
                Err(error) => {
                    absent.push(AbsentLevel {
                        level,
                        // The variant's own field is not the reader's to change (the
                        // ladder sets it), so the reason names no field.
                        reason: format!(
                            "no {} curve: {}",
                            level.label().trim_start_matches("+ "),
                            error.message.trim_end_matches('.'),
                        ),
                    });
                    None
                }
            }
        })
        .collect();
    (curves, absent)
}

/// Every level's curve for the user's scenario, oldest technique first; empty when the input
/// itself does not validate. The user's own level is swept from the user's exact settings.
pub fn technique_curves(input: &ScenarioInput) -> Vec<TechniqueCurve> {
    match Scenario::try_from(input.clone()) {
        Ok(scenario) => curves(&scenario, false).0,
        Err(_) => Vec::new(),
    }
}

/// The other levels' curves, to draw behind the scenario's own (already swept) curve.
pub fn background_curves(scenario: &Scenario) -> Vec<TechniqueCurve> {
    curves(scenario, true).0
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
    /// The other levels with no curve, and why (empty while `background_pending`).
    pub absent: Vec<AbsentLevel>,
    /// The other levels are not swept yet (`first_screen`): a page's first chart shows the
    /// scenario's own curve and draws the ladder a browser task later (`with_background`).
    pub background_pending: bool,
}

impl TechniqueStudy {
    pub fn new(scenario: &Scenario) -> TechniqueStudy {
        TechniqueStudy::first_screen(scenario).with_background(scenario)
    }

    /// The study without the ladder's other curves (four more sweeps, one of them two-pool):
    /// what the page's first chart needs.
    pub fn first_screen(scenario: &Scenario) -> TechniqueStudy {
        let current = TechniqueLevel::of(&scenario.input);
        TechniqueStudy {
            current,
            current_label: current.label_for(scenario),
            background: Vec::new(),
            absent: Vec::new(),
            background_pending: true,
        }
    }

    /// The same study with the other levels swept; `scenario` is the one it was made for.
    pub fn with_background(self, scenario: &Scenario) -> TechniqueStudy {
        if !self.background_pending {
            return self;
        }
        let (background, absent) = curves(scenario, true);
        TechniqueStudy {
            background,
            absent,
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
        // One GPU cannot be split into a prefill and a decode pool.
        assert_eq!(levels, TechniqueLevel::ALL[..4].to_vec());
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
        let study = TechniqueStudy::new(&scenario);
        let [absent] = study.absent.as_slice() else {
            panic!("one absent level: {:?}", study.absent);
        };
        assert_eq!(absent.level, TechniqueLevel::Disaggregated);
        assert!(
            absent.reason.starts_with("no disaggregation curve: ")
                && absent.reason.contains("at least 2 GPUs"),
            "{}",
            absent.reason
        );
    }

    /// Qwen3-32B FP8 on 8 × H200, fixed ISL 4000 / OSL 500 (AIConfigurator's comparison, MODEL.md
    /// §4.4 [S31b]; `tests/disagg.rs` §3 checks the plans): the "+ disaggregation" curve exists,
    /// and at a tight TPOT it reaches clearly more output tok/s per GPU than the aggregated
    /// curve it branches from (paged KV, same TP) — prefills no longer stall the decoding
    /// streams — while at the loose end aggregated serving peaks higher (aggregation wins when
    /// TPOT is loose [S33]). Since issue 26 §5 the automatic split is the one whose prefill pool
    /// stays at most 80 % busy at the scenario's concurrency (64 here), and a point whose prefill
    /// pool is 95 % busy is infeasible, so the margin at a tight TPOT is smaller at TP 1 (3P + 5D:
    /// 604 vs 580) and still wide at TP 4 (4P + 4D: 518 vs 337, 1.54×). Tight is 20 ms at TP 1 (auto: the fastest TP 1 decodes at 74 tok/s
    /// per user) and 10 ms (AIConfigurator's target) at TP 4.
    ///
    /// Measured with the kernel-count floor and EP all-to-all only under attention DP: TP 1,
    /// 5P + 3D: 821 vs 592 output tok/s/GPU at 50 tok/s/user (1.39×), peaks 1,114 vs 1,314; TP 4,
    /// 4P + 4D: 586 vs 303 at 100 tok/s/user (1.93×; the plan-level check in `tests/disagg.rs`
    /// finds 2.24× cheaper), peaks 586 vs 936.
    #[test]
    fn disaggregation_beats_aggregated_at_tight_tpot() {
        for (tp, tight) in [(None, 50.0), (Some(4.0), 100.0)] {
            let scenario = Scenario::try_from(ScenarioInput {
                model: "qwen3-32b".into(),
                gpu: "h200-sxm".into(),
                gpu_count: 8.0,
                tp,
                precision: crate::physics::precision::Precision::Fp8,
                kv_precision: Some(crate::physics::precision::KvPrecision::Fp8),
                input_len: 4000.0,
                output_len: 500.0,
                length_dist: crate::scenario::LengthDist::Fixed,
                ..ScenarioInput::default()
            })
            .expect("valid");
            let study = TechniqueStudy::new(&scenario);
            assert!(study.absent.is_empty(), "{:?}", study.absent);
            let disaggregated = study
                .background
                .iter()
                .find(|c| c.level == TechniqueLevel::Disaggregated)
                .expect("the + disaggregation curve");
            assert!(
                disaggregated.label.starts_with("+ disaggregation (")
                    && disaggregated.label.contains("D GPUs, TP "),
                "{}",
                disaggregated.label
            );
            let paged = sweep(&scenario);
            let (disagg_tight, paged_tight) = (
                best_at(&disaggregated.curve.points, tight),
                best_at(&paged.points, tight),
            );
            let (disagg_peak, paged_peak) =
                (peak(&disaggregated.curve.points), peak(&paged.points));
            println!(
                "{}: {disagg_tight:.0} vs aggregated paged {paged_tight:.0} output tok/s/GPU at {tight} tok/s/user; peaks {disagg_peak:.0} vs {paged_peak:.0}",
                disaggregated.label
            );
            assert!(
                disagg_tight > paged_tight,
                "{disagg_tight:.0} vs {paged_tight:.0}"
            );
            assert!(
                disagg_peak < paged_peak,
                "{disagg_peak:.0} vs {paged_peak:.0}"
            );
        }
    }

    /// The first screen never sweeps the ladder (the disaggregated curve included); the second
    /// pass does.
    #[test]
    fn the_first_screen_defers_every_other_level() {
        let scenario = Scenario::default_scenario().expect("valid");
        let first = TechniqueStudy::first_screen(&scenario);
        assert!(first.background.is_empty() && first.absent.is_empty() && first.background_pending);
        let full = first.with_background(&scenario);
        assert!(!full.background_pending);
        assert!(full
            .background
            .iter()
            .any(|c| c.level == TechniqueLevel::Disaggregated));
    }

    /// PRODUCT.md: continuous batching, paged attention and speculative decoding each push the
    /// frontier outward. For every point of one level, the next level reaches at least its
    /// throughput at equal or better interactivity (2 % slack on both: at C = 1 static and
    /// continuous batching are the same schedule and the two models differ by about 1 %), and
    /// its peak is clearly higher.
    /// (Disaggregation is no such uniform gain: see `disaggregation_beats_aggregated_at_tight_tpot`.)
    #[test]
    fn each_level_dominates_the_previous_one() {
        let curves: Vec<TechniqueCurve> = technique_curves(&ScenarioInput::small_reference())
            .into_iter()
            .filter(|c| c.level != TechniqueLevel::Disaggregated)
            .collect();
        assert_eq!(curves.len(), 4);
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
        draft.spec_decode = Some(crate::scenario::SpecMethod::Draft);
        draft.spec_accept = Some(0.6);
        let moved = TechniqueLevel::Speculative.variant(&draft);
        assert_eq!(
            (moved.spec_decode, moved.spec_accept),
            (Some(SpecMethod::Draft), Some(0.6))
        );
        let eagle = TechniqueLevel::Speculative.variant(&base);
        assert_eq!(
            (eagle.spec_decode, eagle.spec_accept),
            (Some(SpecMethod::Eagle), None)
        );
        assert_eq!(TechniqueLevel::Paged.variant(&draft).spec_decode, None);
        // Disaggregation: the same GPUs in two pools of the input's TP, speculation off; an
        // aggregated level of a disaggregated input drops the pools.
        let moved = TechniqueLevel::Disaggregated.variant(&draft);
        assert_eq!(
            (
                moved.serving,
                moved.prefill_tp,
                moved.decode_tp,
                moved.spec_decode
            ),
            (Serving::Disaggregated, base.tp, base.tp, None)
        );
        let back = TechniqueLevel::Paged.variant(&moved);
        assert_eq!((back.serving, back.prefill_tp), (Serving::Aggregated, None));
    }

    #[test]
    fn tp_is_pinned_across_levels() {
        // The glossary scenario: 70B FP8 on 8 × H100, auto TP 2.
        let scenario = Scenario::default_scenario().expect("valid");
        for level in TechniqueLevel::ALL {
            let input = level.variant(&pinned(&scenario.input, &scenario));
            let variant = Scenario::try_from(input).expect("valid");
            assert_eq!(variant.par.tp, scenario.par.tp, "{level:?}");
            if let Some(pools) = variant.pools.as_deref() {
                assert_eq!(pools.prefill.par.tp, scenario.par.tp, "prefill pool");
                assert_eq!(variant.total_gpus(), scenario.gpu_count, "the same GPUs");
            }
        }
    }

    #[test]
    fn an_invalid_input_has_no_curves() {
        let mut bad = ScenarioInput::small_reference();
        bad.input_len = -1.0;
        assert!(technique_curves(&bad).is_empty());
    }
}
