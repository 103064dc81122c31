//! Notes the page prints under the chart where a curve would otherwise look wrong.
//!
//! With fixed (identical) lengths the static-batching curve lies above continuous batching with
//! paged KV. That is the model, not a slip: static batching pads nothing when every request has
//! the same length, and it prefills the whole batch at once before decoding (MODEL.md §4.1,
//! `model::static_batching`), so its decode steps carry no prefill and its TPOT is the pure
//! decode step. Continuous batching admits a new request's prefill into the running decode steps
//! (§4.2, `model::serving`), which stalls every stream: a longer TPOT, but a far shorter TTFT.
//! The chart's x axis is interactivity (1 ÷ TPOT), which does not show TTFT, so the note does.

use crate::model::techniques::{TechniqueLevel, TechniqueStudy};
use crate::model::{Curve, CurvePoint};
use crate::physics::workload::Workload;
use crate::present::format::{format_number, group_thousands};

/// The curve of `level`: the main one (`curve`) when it is the scenario's own level.
fn level_curve<'a>(
    study: &'a TechniqueStudy,
    curve: &'a Curve,
    level: TechniqueLevel,
) -> Option<&'a Curve> {
    if study.current == level {
        return Some(curve);
    }
    study
        .background
        .iter()
        .find(|t| t.level == level)
        .map(|t| &t.curve)
}

/// Why static batching lies above continuous + paged KV, with both at the static curve's grid
/// concurrency nearest `concurrency`; `None` unless the lengths are fixed and it does lie above
/// there (more tokens/s per user at the same concurrency).
pub fn static_batching_note(
    study: &TechniqueStudy,
    curve: &Curve,
    workload: &Workload,
    concurrency: u32,
) -> Option<String> {
    if workload.input_sigma > 0.0 || workload.output_sigma > 0.0 {
        return None;
    }
    let fixed = level_curve(study, curve, TechniqueLevel::Static)?;
    let paged = level_curve(study, curve, TechniqueLevel::Paged)?;
    // The static curve's feasible point nearest the current concurrency, and paged KV's at the
    // same grid concurrency.
    let distance = |p: &&CurvePoint| p.concurrency.abs_diff(concurrency);
    let a = fixed
        .points
        .iter()
        .filter(|p| p.fits)
        .min_by_key(distance)?;
    let b = paged
        .points
        .iter()
        .find(|p| p.fits && p.concurrency == a.concurrency)?;
    if a.tok_s_per_user <= b.tok_s_per_user {
        return None;
    }
    let ms = |v: f64| format!("{} ms", group_thousands(&format_number(v)));
    Some(format!(
        "Why static batching lies above continuous batching here: every request has the same length, so it pads nothing, and it prefills the whole batch before decoding, so its decode steps carry no prefill. At C = {}: TPOT {} vs {} (continuous + paged KV), but TTFT {} vs {}, at {} vs {} output tok/s per GPU.",
        a.concurrency,
        ms(a.tpot_ms),
        ms(b.tpot_ms),
        ms(a.ttft_ms),
        ms(b.ttft_ms),
        format_number(a.output_tok_s_per_gpu),
        format_number(b.output_tok_s_per_gpu),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::model::sweep;
    use crate::scenario::{Scenario, ScenarioInput};

    fn note(length_dist: &str, batching: &str, concurrency: u32) -> Option<String> {
        let kv_alloc = if batching == "static" {
            "contiguous"
        } else {
            "paged"
        };
        let scenario = Scenario::try_from(ScenarioInput {
            length_dist: Choice::parse(length_dist).expect("an id of the set"),
            batching: Choice::parse(batching).expect("an id of the set"),
            kv_alloc: Choice::parse(kv_alloc).expect("an id of the set"),
            ..ScenarioInput::default()
        })
        .expect("valid");
        let study = TechniqueStudy::new(&scenario);
        static_batching_note(&study, &sweep(&scenario), &scenario.workload, concurrency)
    }

    /// The two figures the note compares after `label` ("TPOT 12.3 ms vs 45.6 ms"): static
    /// batching's, then continuous batching's with paged KV.
    fn compared(text: &str, label: &str) -> (f64, f64) {
        let rest = text.split(label).nth(1).expect("the label");
        let mut figures = rest.split(" vs ").take(2).map(|part| {
            let number: String = part
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
                .filter(|c| *c != ',')
                .collect();
            number.parse::<f64>().expect("a figure")
        });
        (
            figures.next().expect("static"),
            figures.next().expect("paged"),
        )
    }

    /// With fixed lengths the note gives the figures behind the gap: static batching's shorter
    /// TPOT is paid in TTFT at about the same throughput; with spread lengths there is no note
    /// (padding puts static batching below). Shapes, not fitted figures (they move with every
    /// refit): which side is shorter, not by how much.
    #[test]
    fn fixed_lengths_explain_static_batching_above_continuous() {
        for batching in ["static", "continuous"] {
            let text = note("fixed", batching, 64).expect("a note");
            assert!(text.contains("At C = 64: TPOT "), "{text}");
            let (tpot_static, tpot_paged) = compared(&text, "TPOT ");
            assert!(tpot_static > 0.0 && tpot_static < tpot_paged, "{text}");
            let (ttft_static, ttft_paged) = compared(&text, "TTFT ");
            assert!(ttft_paged > 0.0 && ttft_static > ttft_paged, "{text}");
            // "At about the same throughput": within a factor of two either way.
            let (tok_s_static, tok_s_paged) = compared(&text, ", at ");
            assert!(
                tok_s_static < 2.0 * tok_s_paged && tok_s_paged < 2.0 * tok_s_static,
                "{text}"
            );
        }
        assert_eq!(note("lognormal", "continuous", 64), None);
        assert_eq!(note("lognormal", "static", 64), None);
    }
}
