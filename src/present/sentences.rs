//! The sentences the page, the report, the CLI and the widget share, so they never word a
//! scenario two ways: `scenario_sentence` (the printed summary's first line), `answer_sentence`
//! (the line above the chart, from the numbers panel's own figures) and `conditions_line` (the
//! widget's precision · lengths · engine · price basis).

use crate::choice::Choice;
use crate::model::OperatingPoint;
use crate::present::assumptions::layout_name;
use crate::present::format::{format_number, format_usd, group_thousands};
use crate::scenario::Scenario;

/// The conditions a number holds under, in one line, for the embedded widget (issue 28 §5: the
/// glossary text beside it says "report the conditions with the number"): "FP8 · 1,155 in / 211
/// out tokens (Chat) · vllm tuned · $2.65/GPU-h, catalog typical". The price's basis is the
/// catalog tier it matches (`decide::pricing::tier_of`) or "your price".
pub fn conditions_line(scenario: &Scenario) -> String {
    let workload = crate::scenario::fields::workload_of(&scenario.input);
    let workload = crate::scenario::fields::WORKLOAD
        .choices
        .iter()
        .find(|(id, _)| *id == workload && workload != crate::scenario::fields::CUSTOM_WORKLOAD)
        .map(|(_, label)| {
            format!(
                " ({})",
                label.split([':', '/']).next().unwrap_or(label).trim()
            )
        })
        .unwrap_or_default();
    let price = match scenario.usd_per_gpu_hour {
        Some(price) => {
            let basis = crate::decide::pricing::tier_of(&scenario.gpu, price)
                .map_or(crate::decide::pricing::YOUR_PRICE.to_string(), |tier| {
                    format!("catalog {}", tier.id())
                });
            format!("${price}/GPU-h, {basis}")
        }
        None => "no price per GPU-hour".into(),
    };
    format!(
        "{} · {} in / {} out tokens{workload} · {} {} · {price}",
        scenario.precision.id().to_ascii_uppercase(),
        group_thousands(&format_number(scenario.workload.input_mean)),
        group_thousands(&format_number(scenario.workload.output_mean)),
        scenario.profile.engine,
        scenario.profile.deployment.id(),
    )
}

/// The page's answer for the current point in one sentence, above the chart (issue 28 §7): "64 in
/// flight on 8 × NVIDIA H100 SXM5 80GB: 2,375 tok/s, 38.2 tok/s per user, $2.923 per M output
/// tokens — limited by weight bandwidth." `output_tok_s` is the figure the numbers panel shows
/// (the simulator's where its run replaces the analytic one, `decide::headline`), so the sentence
/// and the panel never disagree; the rest is the operating point's. A point that does not fit
/// says so instead of quoting numbers it cannot reach.
pub fn answer_sentence(point: &OperatingPoint, hardware: &str, output_tok_s: f64) -> String {
    let in_flight = point.concurrency;
    if !point.fits {
        return format!(
            "{in_flight} in flight do not fit on {hardware}: at most {} fit in its KV cache.",
            group_thousands(&point.max_concurrency.to_string())
        );
    }
    let cost = match point.usd_per_m_output {
        Some(usd) => format!("{} per M output tokens", format_usd(usd)),
        None => "no price per GPU-hour".into(),
    };
    format!(
        "{in_flight} in flight on {hardware}: {} tok/s, {} tok/s per user, {cost} — limited by {}.",
        group_thousands(&format_number(output_tok_s)),
        group_thousands(&format_number(point.tok_s_per_user)),
        point.bound_label,
    )
}

/// The scenario in one sentence, for the printed summary's first line (issue 28 §1): "Llama 3.1
/// 70B in FP8 on 8 × NVIDIA H100 SXM5 80GB (TP 2, 4 replicas), vllm tuned, 1,155 input and 211
/// output tokens per request, 64 in flight, $2.65 per GPU-hour."
pub fn scenario_sentence(scenario: &Scenario) -> String {
    let replicas = match scenario.replicas {
        1 => "1 replica".to_string(),
        n => format!("{n} replicas"),
    };
    let price = scenario
        .usd_per_gpu_hour
        .map(|usd| format!(", {} per GPU-hour", format_usd(usd)))
        .unwrap_or_else(|| ", no price per GPU-hour".into());
    format!(
        "{} in {} on {} × {} ({}, {replicas}), {} {}, {} input and {} output tokens per request, {} in flight{price}.",
        scenario.model.name,
        scenario.precision.id().to_ascii_uppercase(),
        scenario.total_gpus(),
        scenario.gpu.name,
        layout_name(scenario.par),
        scenario.profile.engine,
        scenario.profile.deployment.id(),
        format_number(scenario.workload.input_mean),
        format_number(scenario.workload.output_mean),
        scenario.concurrency,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;
    use crate::scenario::ScenarioInput;

    #[test]
    fn the_answer_sentence_quotes_the_point_and_what_limits_it() {
        let input = ScenarioInput {
            concurrency: 64.0,
            ..ScenarioInput::default()
        };
        let scenario = Scenario::try_from(input).expect("valid");
        let point = evaluate(&scenario);
        let sentence = answer_sentence(&point, "8 × H100", point.output_tok_s);
        assert!(
            sentence.starts_with("64 in flight on 8 × H100: "),
            "{sentence}"
        );
        let tok_s = group_thousands(&format_number(point.output_tok_s));
        assert!(
            sentence.contains(&format!(" {tok_s} tok/s, ")),
            "{sentence}"
        );
        assert!(
            sentence.ends_with(&format!("limited by {}.", point.bound_label)),
            "{sentence}"
        );
        match point.usd_per_m_output {
            Some(usd) => assert!(sentence.contains(&format_usd(usd)), "{sentence}"),
            None => assert!(sentence.contains("no price per GPU-hour"), "{sentence}"),
        }
        // The figure passed in (the simulator's, when it replaces the analytic one) is the one quoted.
        let replaced = answer_sentence(&point, "8 × H100", 1234.0);
        assert!(replaced.contains(" 1,234 tok/s, "), "{replaced}");
        let infeasible = crate::model::OperatingPoint {
            fits: false,
            ..point
        };
        let refused = answer_sentence(&infeasible, "8 × H100", 1.0);
        assert!(
            refused.contains("do not fit") && !refused.contains("tok/s"),
            "{refused}"
        );
    }

    #[test]
    fn the_conditions_line_names_precision_lengths_engine_and_price_basis() {
        let scenario = Scenario::default_scenario().expect("valid");
        let line = conditions_line(&scenario);
        let parts: Vec<&str> = line.split(" · ").collect();
        assert_eq!(parts.len(), 4, "{line}");
        assert_eq!(
            parts.first().copied(),
            Some(scenario.precision.id().to_ascii_uppercase().as_str())
        );
        assert!(
            line.contains(" in / ") && line.contains(" out tokens"),
            "{line}"
        );
        assert!(line.contains(scenario.profile.engine.as_str()), "{line}");
        let priced = scenario.usd_per_gpu_hour.is_some();
        assert_eq!(
            line.ends_with("catalog typical") || line.ends_with("your price"),
            priced,
            "{line}"
        );
    }
}
