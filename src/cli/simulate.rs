//! `servecost simulate`: one discrete-event simulation run (closed or open loop), its latency
//! percentiles, throughput and goodput, as text or JSON.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{scenario_from, Outcome};
use crate::present::report::format_number;

pub(super) fn simulate_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    known.extend(["--rate", "--burstiness", "--requests", "--seed"]);
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let number = |flag: &str| flags.number(flag);
    let (concurrency, rate, burstiness) = match (
        number("--concurrency"),
        number("--rate"),
        number("--burstiness"),
    ) {
        (Err(UsageError(m)), _, _) | (_, Err(UsageError(m)), _) | (_, _, Err(UsageError(m))) => {
            return Outcome::usage(m)
        }
        (Ok(c), Ok(r), Ok(b)) => (c, r, b),
    };
    let arrivals = match (concurrency, rate) {
        (Some(c), None) => {
            if burstiness.is_some() {
                return Outcome::usage(
                    "--burstiness applies to --rate (open loop), not --concurrency",
                );
            }
            if !(c >= 1.0 && c.fract() == 0.0 && c <= 1_000_000.0) {
                return Outcome::usage(format!(
                    "--concurrency: a whole number from 1 to 1000000 (got {c})"
                ));
            }
            crate::sim::Arrivals::Closed {
                concurrency: c as u32,
            }
        }
        (None, Some(r)) => match burstiness {
            None => crate::sim::Arrivals::Poisson { rate_per_s: r },
            Some(cv) => crate::sim::Arrivals::Gamma { rate_per_s: r, cv },
        },
        _ => return Outcome::usage(
            "give exactly one of --concurrency N (closed loop) or --rate R (requests/s, open loop)",
        ),
    };
    let requests = match number("--requests") {
        Ok(None) => 2000,
        Ok(Some(n)) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(crate::sim::MAX_REQUESTS) => {
            n as u32
        }
        Ok(Some(n)) => {
            return Outcome::usage(format!(
                "--requests: a whole number from 1 to {} (got {n})",
                crate::sim::MAX_REQUESTS
            ))
        }
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let seed = match flags.text("--seed").map(|t| t.trim().parse::<u64>()) {
        None => 1,
        Some(Ok(seed)) => seed,
        Some(Err(_)) => {
            return Outcome::usage("--seed: a whole number from 0 to 18446744073709551615")
        }
    };
    let slo = match (number("--slo-ttft-ms"), number("--slo-tpot-ms")) {
        (Ok(Some(ttft_ms)), Ok(Some(tpot_ms))) => Some(crate::sim::Slo { ttft_ms, tpot_ms }),
        (Ok(None), Ok(None)) => None,
        _ => return Outcome::usage("give both --slo-ttft-ms and --slo-tpot-ms (or neither)"),
    };
    // The scenario's operating point is the closed-loop concurrency (or 1 for open loop).
    let mut scenario_flags = rest.to_vec();
    if concurrency.is_none() {
        scenario_flags.extend(["--concurrency".to_string(), "1".to_string()]);
    }
    let Ok(parsed) = Flags::parse(&scenario_flags, &known) else {
        return Outcome::usage("could not read the scenario flags");
    };
    let scenario = match scenario_from(&parsed) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let config = crate::sim::SimConfig {
        arrivals,
        requests,
        seed,
        slo,
        ..crate::sim::SimConfig::default()
    };
    let result = match crate::sim::simulate(&scenario, &config) {
        Ok(result) => result,
        Err(e) => return Outcome::usage(format!("--{}: {}", e.field.replace('_', "-"), e.message)),
    };
    if flags.has("--json") {
        return match serde_json::to_string_pretty(&simulation_json(&result)) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
    }
    let mut out = format!(
        "Simulated {} requests ({} completed, {} measured) on {} busy replica(s), seed {seed}\n",
        result.requests, result.completed, result.measured, result.busy_replicas
    );
    out.push_str(&format!(
        "output tok/s {} ({} per GPU), total tok/s {}, requests/s {}\n",
        format_number(result.output_tok_s),
        format_number(result.output_tok_s_per_gpu),
        format_number(result.total_tok_s),
        format_number(result.requests_per_s)
    ));
    out.push_str(&format!(
        "{:<6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "ms", "mean", "P50", "P90", "P95", "P99", "max"
    ));
    for (name, l) in [
        ("TTFT", &result.ttft),
        ("TPOT", &result.tpot),
        ("ITL", &result.itl),
        ("E2E", &result.e2e),
    ] {
        out.push_str(&format!(
            "{:<6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            name,
            format_number(l.mean_ms),
            format_number(l.p50_ms),
            format_number(l.p90_ms),
            format_number(l.p95_ms),
            format_number(l.p99_ms),
            format_number(l.max_ms)
        ));
    }
    out.push_str(&format!(
        "mean batch {:.1}, KV utilization {:.0} % (peak {:.0} %), preemptions {}, iterations {}, events {}\n",
        result.mean_batch,
        result.kv_utilization_mean * 100.0,
        result.kv_utilization_peak * 100.0,
        result.preemptions,
        result.iterations,
        result.events
    ));
    if let Some(slo) = &result.slo {
        out.push_str(&format!(
            "SLO attainment {:.1} %, goodput {} req/s ({} output tok/s)\n",
            slo.attainment * 100.0,
            format_number(slo.goodput_requests_per_s),
            format_number(slo.goodput_output_tok_s)
        ));
    }
    if let Some(reason) = &result.truncated {
        out.push_str(&format!(
            "TRUNCATED: {reason:?} — results cover only part of the run\n"
        ));
    }
    if result.low_confidence {
        out.push_str("low confidence: fewer than 500 measured requests after warm-up\n");
    }
    Outcome::ok(out)
}

/// The simulation result as JSON, with flat percentile keys (`ttft_ms_p99`, `tpot_ms_p95`,
/// `itl_ms_p99`, ...) beside the nested summaries, and `bound_hit` saying whether a bound cut the run.
fn simulation_json(result: &crate::sim::SimResult) -> serde_json::Value {
    let mut value = serde_json::to_value(result).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        for (name, summary) in [
            ("ttft", &result.ttft),
            ("tpot", &result.tpot),
            ("itl", &result.itl),
            ("e2e", &result.e2e),
        ] {
            for (suffix, v) in [
                ("mean", summary.mean_ms),
                ("p50", summary.p50_ms),
                ("p90", summary.p90_ms),
                ("p95", summary.p95_ms),
                ("p99", summary.p99_ms),
                ("max", summary.max_ms),
            ] {
                object.insert(format!("{name}_ms_{suffix}"), v.into());
            }
        }
        object.insert("bound_hit".into(), result.truncated.is_some().into());
    }
    value
}
