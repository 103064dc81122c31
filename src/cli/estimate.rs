//! `servecost estimate`: one operating point (a concurrency, the largest that fits, or the best
//! meeting an SLO), as text or JSON, with the tails at a percentile when asked.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{help, scenario_from, slo_settings, Outcome};
use crate::choice::Choice;
use crate::model::expected_error::{
    band, plus_minus, point_errors, Class, Metric, PointErrors, BAND_QUANTILE,
};
use crate::model::ttft::BenchmarkFigures;
use crate::model::{evaluate, OperatingPoint};
use crate::physics::memory::Parallelism;
use crate::present::assumptions::{assumptions, expected_error_text, parallelism_line};
use crate::present::format::{format_cost, format_number};
use crate::scenario::Scenario;
use crate::scenario::SloMethod;

pub(super) fn estimate(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--help") || flags.has("-h") {
        return Outcome::ok(help());
    }
    // Sessions (issue 27): the question is agents, answered by its own estimate.
    #[cfg(feature = "session-model")]
    if super::agents::asks_for_sessions(&flags) {
        return super::agents::estimate_agents(&flags);
    }
    let max_throughput = flags.has("--max-throughput");
    let has_concurrency = flags.text("--concurrency").is_some();
    let settings = match slo_settings(&flags) {
        Ok(settings) => settings,
        Err(outcome) => return outcome,
    };
    let chosen = [max_throughput, has_concurrency, settings.slo.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    if chosen != 1 {
        return Outcome::usage(
            "give exactly one operating point: --concurrency N, --max-throughput, or --slo-ttft-ms X --slo-tpot-ms Y",
        );
    }
    let scenario = match scenario_from(&flags) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let simulated = settings.method == SloMethod::Simulated;
    let (scenario, point, tail) = if let Some(slo) = settings.slo {
        let found = if simulated {
            crate::decide::slo_sim::best_point_meeting_simulated(&scenario, &slo)
                .map(|(point, tail)| (point, serde_json::to_value(tail).unwrap_or_default()))
        } else {
            crate::model::slo::best_point_meeting(&scenario, &slo)
                .map(|(point, tail)| (point, serde_json::to_value(tail).unwrap_or_default()))
        };
        match found {
            Some((point, tail)) => (scenario.with_concurrency(point.concurrency), point, Some(tail)),
            None => {
                return Outcome {
                    stdout: String::new(),
                    stderr: format!(
                        "no concurrency meets P{} TTFT <= {} ms and TPOT <= {} ms on this configuration ({} percentiles); relax the SLO or change hardware\n",
                        slo.percentile,
                        slo.ttft_ms,
                        slo.tpot_ms,
                        settings.method.id()
                    ),
                    code: 1,
                }
            }
        }
    } else {
        let scenario = if max_throughput {
            let c = crate::model::capacity::max_feasible(&scenario);
            scenario.with_concurrency(c)
        } else {
            scenario
        };
        // The headline as the page shows it beside its simulator panel (issue 26 §4).
        let point = crate::decide::headline::simulated_headline(&scenario, &evaluate(&scenario));
        // `--slo-percentile P` alone reports the tails at P (what `plan` quotes).
        let tail = settings.percentile.map(|p| {
            if simulated {
                crate::decide::slo_sim::simulated_tail(&scenario, p)
                    .map(|(tail, _)| serde_json::to_value(tail).unwrap_or_default())
                    .unwrap_or_default()
            } else {
                serde_json::to_value(crate::model::slo::tail_estimate(&scenario, &point, p))
                    .unwrap_or_default()
            }
        });
        (scenario, point, tail)
    };
    if flags.has("--json") {
        let mut value = match serde_json::to_value(&point) {
            Ok(value) => value,
            Err(e) => return Outcome::failure(e),
        };
        if let Some(object) = value.as_object_mut() {
            if let Some(tail) = tail {
                object.insert("slo_tail".into(), tail);
            }
            // The engine profile the efficiency knobs came from (issue 12 §4).
            object.insert(
                "engine_profile".into(),
                serde_json::to_value(&scenario.profile).unwrap_or_default(),
            );
            // The expected error of the headline numbers and where it comes from (issue 13 §1).
            let class = Class::of(&scenario, &point);
            if let Ok(serde_json::Value::Object(errors)) = serde_json::to_value(point_errors(class))
            {
                object.extend(errors);
            }
            object.insert("error_band".into(), error_band_json(class));
            // The other deployment at this concurrency (issue 25 §2).
            if let Some(other) = crate::decide::deployment::other_scenario(&scenario) {
                let c = crate::decide::deployment::contrast(&other, &point);
                object.insert(
                    "other_deployment".into(),
                    serde_json::json!({
                        crate::scenario::fields::DEPLOYMENT.key: c.deployment.id(),
                        "output_tok_s": c.output_tok_s,
                        "tpot_ms": c.tpot_ms,
                        "change": c.change,
                    }),
                );
            }
        }
        return Outcome::json(&value);
    }
    let mut text = human_estimate(&scenario, &point);
    if let Some(tail) = tail {
        let number = |key: &str| {
            tail.get(key)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(f64::NAN)
        };
        text.push_str(&format!(
            "\nP{} tails ({}): TTFT {} ms, TPOT {} ms\n",
            number("percentile"),
            tail.get("method")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(""),
            format_number(number("ttft_ms")),
            format_number(number("tpot_ms"))
        ));
    }
    Outcome::ok(text)
}

/// `error_band`: the class, and per metric the rows the band stands on (tok/s first: $/M
/// follows from it).
fn error_band_json(class: Class) -> serde_json::Value {
    let metric = |m: Metric| {
        band(class, m).map_or(serde_json::Value::Null, |b| {
            serde_json::json!({
                "error_pct": b.error_pct,
                "fallback": b.fallback,
                "basis": b.fallback.basis(class),
                "n": b.n,
                "rows": crate::model::expected_error::band_rows(class, m)
                    .unwrap_or_default()
                    .split(' ')
                    .collect::<Vec<_>>(),
            })
        })
    };
    let tok_s = metric(Metric::OutputTokS);
    serde_json::json!({
        "class": class,
        "quantile": BAND_QUANTILE,
        "fallback": tok_s.get("fallback"),
        "n": tok_s.get("n"),
        "rows": tok_s.get("rows"),
        "output_tok_s": tok_s,
        "tpot_ms": metric(Metric::TpotMs),
        "ttft_ms": metric(Metric::TtftMs),
    })
}

/// The estimate as text: the point's figures, the benchmark run when there is one, and the
/// assumptions.
fn human_estimate(scenario: &Scenario, p: &OperatingPoint) -> String {
    let errors = point_errors(Class::of(scenario, p));
    let mut out = String::new();
    performance_lines(&mut out, scenario, p, &errors);
    configuration_lines(&mut out, p);
    cost_lines(&mut out, p, &errors);
    if let Some(b) = &p.benchmark {
        benchmark_lines(&mut out, b);
    }
    out.push_str("\nAssumptions\n");
    for assumption in assumptions(scenario, p).lines() {
        out.push_str("  ");
        out.push_str(assumption);
        out.push('\n');
    }
    out.push_str("  ");
    out.push_str(&expected_error_text(Class::of(scenario, p)));
    out.push('\n');
    out
}

/// One `label value` line of the text, labels in a column of 28.
fn line(out: &mut String, label: &str, value: String) {
    out.push_str(&format!("{label:<28} {value}\n"));
}

/// " ±12 %" after a figure, or nothing without an expected error.
fn plus_minus_text(pct: Option<f64>) -> String {
    pct.map_or_else(String::new, |pct| format!(" {}", plus_minus(pct)))
}

/// Concurrency, throughput (with the other deployment's), TPOT, TTFT and E2E, with their
/// expected errors.
fn performance_lines(
    out: &mut String,
    scenario: &Scenario,
    p: &OperatingPoint,
    errors: &PointErrors,
) {
    let pm = plus_minus_text;
    line(
        out,
        "concurrency (system)",
        format!(
            "{} ({:.1} per busy replica)",
            p.concurrency, p.batch_per_replica
        ),
    );
    line(
        out,
        "output tok/s",
        format!(
            "{}{} ({} per GPU)",
            format_number(p.output_tok_s),
            pm(errors.output_tok_s_error_pct),
            format_number(p.output_tok_s_per_gpu)
        ),
    );
    line(out, "total tok/s", format_number(p.total_tok_s));
    line(out, "tok/s per user", format_number(p.tok_s_per_user));
    if let Some(other) = crate::decide::deployment::other_scenario(scenario) {
        line(
            out,
            "",
            format!(
                "({})",
                crate::decide::deployment::contrast(&other, p).sentence()
            ),
        );
    }
    line(
        out,
        "TPOT",
        format!(
            "{} ms{}",
            format_number(p.tpot_ms),
            pm(errors.tpot_ms_error_pct)
        ),
    );
    let source = if p.headline_source == crate::model::operating_point::HeadlineSource::Simulator {
        " (simulated)"
    } else {
        ""
    };
    line(
        out,
        "TTFT",
        format!(
            "{} ms{}{source}",
            format_number(p.ttft_ms),
            pm(errors.ttft_ms_error_pct)
        ),
    );
    line(
        out,
        "E2E",
        format!("{} ms{source}", format_number(p.e2e_ms)),
    );
}

/// KV capacity, parallelism, memory per GPU, what bounds the step and the decode step's parts.
fn configuration_lines(out: &mut String, p: &OperatingPoint) {
    line(
        out,
        "max concurrency (KV)",
        format!("{} (engine limit {})", p.max_concurrency, p.engine_limit),
    );
    line(
        out,
        "parallelism",
        parallelism_line(
            Parallelism {
                tp: p.tp,
                pp: p.pp,
                ep: p.ep,
                dp: p.dp_attention,
            },
            p.replicas,
            p.gpus,
        ),
    );
    line(
        out,
        "memory per GPU",
        format!(
            "weights {:.1} GB, KV {:.1} GB used of {:.1} GB pool, free {:.1} GB",
            p.memory.weights_gb, p.memory.kv_used_gb, p.memory.kv_pool_gb, p.memory.free_gb
        ),
    );
    line(
        out,
        "bound by",
        format!(
            "{}{}",
            p.bound_label,
            if p.fits {
                ""
            } else {
                " (infeasible: beyond capacity)"
            }
        ),
    );
    line(
        out,
        "decode step",
        format!(
            "{} ms = linear {} + attention {} + elementwise {} + comm {} + overhead {}",
            format_number(p.decode_step.total_ms),
            format_number(p.decode_step.linear_ms),
            format_number(p.decode_step.attention_ms),
            format_number(p.decode_step.elementwise_ms),
            format_number(p.decode_step.communication_ms),
            format_number(p.decode_step.overhead_ms)
        ),
    );
}

/// $/M output (with its expected error), input and blended.
fn cost_lines(out: &mut String, p: &OperatingPoint, errors: &PointErrors) {
    line(
        out,
        "$/M output (all-in)",
        match (p.usd_per_m_output, errors.usd_per_m_output_error_pct) {
            (Some(_), Some(pct)) => {
                format!("{} (up to +{pct:.0} %)", format_cost(p.usd_per_m_output))
            }
            _ => format_cost(p.usd_per_m_output),
        },
    );
    line(out, "$/M input (GPU time)", format_cost(p.usd_per_m_input));
    line(out, "$/M blended (3:1)", format_cost(p.usd_per_m_blended));
}

/// The benchmark run's block: its prompts, TTFT, TPOT and throughput as the client prints them.
fn benchmark_lines(out: &mut String, b: &BenchmarkFigures) {
    out.push_str(&format!(
        "\nBenchmark run ({} prompts, {} at once; {})\n",
        b.num_prompts, b.first_wave, b.method
    ));
    line(
        out,
        "mean / median TTFT",
        format!(
            "{} / {} ms (first wave {} ms)",
            format_number(b.mean_ttft_ms),
            format_number(b.median_ttft_ms),
            format_number(b.first_wave_ttft_ms)
        ),
    );
    line(
        out,
        "mean TPOT",
        format!("{} ms", format_number(b.mean_tpot_ms)),
    );
    line(
        out,
        "output tok/s",
        format!(
            "{} over {} s",
            format_number(b.output_tok_s),
            format_number(b.duration_s)
        ),
    );
}
