//! What would make a scenario that does not fit in memory fit: the smallest GPU count at its
//! precision, and a narrower precision on its GPU count. A "does not fit" error names them
//! (`Scenario::try_from`), so the page, the CLI and a link that asked for too little hardware all
//! say how many GPUs would do.
//!
//! "Fits" is exactly validation's rule (the weights with room for KV cache, MODEL.md §1.4):
//! each candidate is validated, with TP chosen automatically (the smallest power of two whose
//! replica fits), and without naming a remedy of its own.

use super::{Remedy, Scenario, ScenarioInput};
use crate::choice::Choice;
use crate::physics::precision::Precision;

/// The largest GPU count tried: a rack-scale deployment (and the GPU count's own range ends
/// well below anything a single model needs).
pub const MAX_FIT_GPUS: u32 = 1024;

/// `input` with TP left to the model (the smallest power of two whose replica fits).
fn auto_tp(input: &ScenarioInput) -> ScenarioInput {
    let mut candidate = input.clone();
    candidate.tp = None;
    candidate
}

fn fits(input: &ScenarioInput) -> bool {
    Scenario::validate(input.clone(), Remedy::Skip).is_ok()
}

/// The smallest power-of-two GPU count, up to `MAX_FIT_GPUS`, on which `input` (TP chosen
/// automatically; every other field as given) validates, or `None` when none does.
pub fn smallest_fitting_gpu_count(input: &ScenarioInput) -> Option<u32> {
    let mut candidate = auto_tp(input);
    (0..=MAX_FIT_GPUS.ilog2())
        .map(|exponent| 1u32 << exponent)
        .find(|&gpus| {
            candidate.gpu_count = f64::from(gpus);
            fits(&candidate)
        })
}

/// The widest precision narrower than `input`'s (fewer bytes per weight) on which `input` fits on
/// its own GPU count (TP chosen automatically), or `None`.
pub fn narrower_fitting_precision(input: &ScenarioInput) -> Option<Precision> {
    let current = input.precision;
    let mut candidate = auto_tp(input);
    // `Precision::ALL` runs from the widest to the narrowest.
    Precision::ALL
        .iter()
        .copied()
        .filter(|p| p.bytes_per_weight() < current.bytes_per_weight())
        .find(|p| {
            candidate.precision = *p;
            fits(&candidate)
        })
}

/// "16 GPUs would fit it, or fp4 on 8": what fits, or `None` when nothing tried does.
pub fn remedy(input: &ScenarioInput) -> Option<String> {
    let gpus = smallest_fitting_gpu_count(input).map(|n| match n {
        1 => "1 GPU would fit it".to_string(),
        n => format!("{n} GPUs would fit it"),
    });
    let precision = narrower_fitting_precision(input).map(|p| p.id());
    let count = input.gpu_count;
    match (gpus, precision) {
        (Some(gpus), Some(precision)) => Some(format!("{gpus}, or {precision} on {count}")),
        (Some(gpus), None) => Some(gpus),
        (None, Some(precision)) => Some(format!("{precision} would fit it on {count} GPUs")),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deepseek(gpus: f64, precision: &str) -> ScenarioInput {
        ScenarioInput {
            model: "deepseek-r1".into(),
            gpu_count: gpus,
            precision: Choice::parse(precision).expect("an id of the set"),
            ..ScenarioInput::default()
        }
    }

    /// DeepSeek-R1's 671 B parameters in FP8 (~671 GB) exceed 8 × 80 GB H100s; 16 hold them with
    /// room for KV cache, and so do 8 in FP4 (~336 GB).
    #[test]
    fn the_smallest_fitting_count_is_the_first_power_of_two_that_validates() {
        let input = deepseek(8.0, "fp8");
        assert!(Scenario::try_from(input.clone()).is_err());
        assert_eq!(smallest_fitting_gpu_count(&input), Some(16));
        let on = |gpus: f64| ScenarioInput {
            gpu_count: gpus,
            ..input.clone()
        };
        assert!(Scenario::try_from(on(16.0)).is_ok());
        assert!(Scenario::try_from(on(8.0)).is_err());
        assert_eq!(narrower_fitting_precision(&input), Some(Precision::Fp4));
        // BF16 weights need twice FP8's GPUs; a model that fits one GPU needs one.
        assert_eq!(smallest_fitting_gpu_count(&deepseek(8.0, "bf16")), Some(32));
        assert_eq!(
            narrower_fitting_precision(&deepseek(8.0, "bf16")),
            Some(Precision::Fp4)
        );
        let small = ScenarioInput {
            model: "llama-3.1-8b".into(),
            ..ScenarioInput::default()
        };
        assert_eq!(smallest_fitting_gpu_count(&small), Some(1));
        // Nothing narrower than FP4 exists.
        assert_eq!(narrower_fitting_precision(&deepseek(1.0, "fp4")), None);
    }

    #[test]
    fn the_does_not_fit_error_names_the_gpus_that_would_fit() {
        let error = Scenario::try_from(deepseek(8.0, "fp8")).expect_err("too big");
        assert_eq!(error.field, "gpus");
        assert!(
            error
                .message
                .ends_with("; 16 GPUs would fit it, or fp4 on 8"),
            "{}",
            error.message
        );
        assert_eq!(error.message.matches("would fit").count(), 1);
        // With TP given, "not even one request fits" names the count too.
        let error = Scenario::try_from(ScenarioInput {
            tp: Some(8.0),
            ..deepseek(8.0, "fp8")
        })
        .expect_err("too big");
        assert!(
            error.message.contains("16 GPUs would fit it"),
            "{}",
            error.message
        );
        // When nothing tried validates (here a prompt longer than the context), no remedy.
        assert_eq!(
            remedy(&ScenarioInput {
                input_len: 1e9,
                ..deepseek(8.0, "fp4")
            }),
            None
        );
    }
}
