//! Synthetic vs production lengths (MODEL.md §4.1, §6.4): the same settings evaluated with fixed
//! lengths (what a benchmark with fixed `input_len`/`output_len` measures) and with lognormal
//! lengths, under both batching policies, at the same concurrency. Static batching pads every
//! request to the batch's longest prompt and output, so varied lengths cost it several-fold;
//! continuous batching barely notices.
//!
//! The four scenarios are validated once per scenario (`LengthStudy::new`); `at` evaluates four
//! operating points, cheap enough for every slider move.

use super::pinned;
use crate::model::evaluate;
use crate::scenario::{Batching, Scenario, WORKLOAD_PRESETS};

/// Lognormal spreads used for "production-like" lengths when the user's lengths are fixed: the
/// Azure conversation fit (MODEL.md §6.4), σ_P 0.99 and σ_O 0.86.
pub fn chat_sigmas() -> (f64, f64) {
    WORKLOAD_PRESETS
        .iter()
        .find(|preset| preset.id == "chat")
        .map_or((0.99, 0.86), |chat| (chat.input_sigma, chat.output_sigma))
}

/// What one side of the comparison shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapPoint {
    pub output_tok_s_per_gpu: f64,
    pub tpot_ms: f64,
    /// Within KV capacity and the engine limit at this concurrency.
    pub fits: bool,
}

/// One batching policy with fixed and with lognormal lengths, at the same concurrency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LengthGap {
    pub batching: Batching,
    pub synthetic: GapPoint,
    pub production: GapPoint,
}

impl LengthGap {
    /// How many times more output tokens/s the synthetic lengths show (`None` when the
    /// production side has no throughput).
    pub fn throughput_ratio(&self) -> Option<f64> {
        let production = self.production.output_tok_s_per_gpu;
        (production > 0.0 && production.is_finite())
            .then(|| self.synthetic.output_tok_s_per_gpu / production)
    }
}

/// The four validated scenarios of the comparison (both policies × both length shapes), built
/// once per scenario so that a slider move only evaluates four operating points.
#[derive(Debug, Clone, PartialEq)]
pub struct LengthStudy {
    /// Log-space σ of prompt and output lengths on the production side.
    pub input_sigma: f64,
    pub output_sigma: f64,
    /// Whether those σ are the user's (lognormal lengths) or the chat fit (the user's are fixed).
    pub sigmas_from_user: bool,
    pairs: Vec<(Batching, Scenario, Scenario)>,
}

impl LengthStudy {
    /// The comparison for a validated scenario: its means, its settings, TP pinned; the
    /// production side uses the user's σ when the user's lengths are lognormal, else the chat fit.
    pub fn new(scenario: &Scenario) -> LengthStudy {
        let user_lognormal = scenario.input.length_dist.trim() == "lognormal"
            && (scenario.input.input_sigma > 0.0 || scenario.input.output_sigma > 0.0);
        let (input_sigma, output_sigma) = if user_lognormal {
            (scenario.input.input_sigma, scenario.input.output_sigma)
        } else {
            chat_sigmas()
        };
        let base = pinned(&scenario.input, scenario);
        let pairs = [Batching::Continuous, Batching::Static]
            .into_iter()
            .filter_map(|batching| {
                let mut synthetic = base.clone();
                synthetic.batching = batching.id().into();
                synthetic.length_dist = "fixed".into();
                let mut production = synthetic.clone();
                production.length_dist = "lognormal".into();
                production.input_sigma = input_sigma;
                production.output_sigma = output_sigma;
                Some((
                    batching,
                    Scenario::try_from(synthetic).ok()?,
                    Scenario::try_from(production).ok()?,
                ))
            })
            .collect();
        LengthStudy {
            input_sigma,
            output_sigma,
            sigmas_from_user: user_lognormal,
            pairs,
        }
    }

    /// Both policies at `concurrency` requests in flight (continuous first).
    pub fn at(&self, concurrency: u32) -> Vec<LengthGap> {
        let point = |scenario: &Scenario| {
            let p = evaluate(&scenario.with_concurrency(concurrency));
            GapPoint {
                output_tok_s_per_gpu: p.output_tok_s_per_gpu,
                tpot_ms: p.tpot_ms,
                fits: p.fits,
            }
        };
        self.pairs
            .iter()
            .map(|(batching, synthetic, production)| LengthGap {
                batching: *batching,
                synthetic: point(synthetic),
                production: point(production),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;

    /// MODEL.md §4.1: with fixed lengths static and continuous batching are within a few per
    /// cent at B = 32; with Azure-conversation lognormals static batching loses several-fold
    /// (7.1× in the spec's prototype) while continuous batching barely moves.
    #[test]
    fn production_lengths_hurt_static_batching_far_more() {
        let scenario = Scenario::try_from(ScenarioInput {
            length_dist: "fixed".into(),
            ..ScenarioInput::small_reference()
        })
        .expect("valid");
        let study = LengthStudy::new(&scenario);
        assert!(!study.sigmas_from_user, "fixed lengths: the chat fit's σ");
        assert_eq!((study.input_sigma, study.output_sigma), (0.99, 0.86));
        let gaps = study.at(32);
        let continuous = gaps
            .iter()
            .find(|g| g.batching == Batching::Continuous)
            .expect("continuous");
        let stat = gaps
            .iter()
            .find(|g| g.batching == Batching::Static)
            .expect("static");
        let synthetic_ratio =
            stat.synthetic.output_tok_s_per_gpu / continuous.synthetic.output_tok_s_per_gpu;
        assert!(
            (synthetic_ratio - 1.0).abs() < 0.1,
            "fixed lengths: static ≈ continuous ({synthetic_ratio:.3})"
        );
        let static_gap = stat.throughput_ratio().expect("ratio");
        let continuous_gap = continuous.throughput_ratio().expect("ratio");
        assert!(static_gap > 4.0, "static gap {static_gap:.2}");
        assert!(continuous_gap < 1.3, "continuous gap {continuous_gap:.2}");
    }

    #[test]
    fn the_users_own_spread_is_the_production_side() {
        let scenario = Scenario::try_from(ScenarioInput {
            input_sigma: 0.5,
            output_sigma: 0.4,
            ..ScenarioInput::small_reference()
        })
        .expect("valid");
        let study = LengthStudy::new(&scenario);
        assert!(study.sigmas_from_user);
        assert_eq!((study.input_sigma, study.output_sigma), (0.5, 0.4));
        assert_eq!(study.at(8).len(), 2);
    }
}
