//! `servecost plan`: its choices meet their SLOs, nothing cheaper in the search space does, and
//! re-evaluating a returned configuration with `estimate` gives the same numbers.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_servecost"))
        .args(args)
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The model every plan here is for, and the GPUs it may use.
const MODEL: &str = "llama-3.1-8b";
const GPUS_ALLOWED: &str = "h100-sxm,a100-sxm-80gb,l40s,h200-sxm";

const PLAN: &[&str] = &[
    "plan",
    "--model",
    MODEL,
    "--workload",
    "chat",
    "--traffic-tok-s",
    "30000",
    "--slo-ttft-ms",
    "1500",
    "--slo-tpot-ms",
    "40",
    "--slo-percentile",
    "90",
    "--gpus-allowed",
    GPUS_ALLOWED,
    "--top",
    "50",
    "--json",
];

fn plan() -> Vec<Value> {
    let (code, out, err) = run(PLAN);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Vec<Value>>(&out).expect("JSON list")
}

#[test]
fn plan_json_fields_and_order() {
    let list = plan();
    assert!(list.len() > 3);
    for field in [
        "gpu",
        "gpus_per_replica",
        "tp",
        "replicas",
        "total_gpus",
        "precision",
        "concurrency",
        "output_tok_s_per_replica",
        "ttft_ms",
        "tpot_ms",
        "usd_per_month",
        "usd_per_m_output",
        "usd_per_m_blended",
        "meets_slo",
    ] {
        assert!(list[0].get(field).is_some(), "missing {field}");
    }
    for pair in list.windows(2) {
        assert!(pair[0]["usd_per_month"].as_f64() <= pair[1]["usd_per_month"].as_f64());
    }
    for c in &list {
        assert_eq!(c["meets_slo"], true);
        assert!(c["ttft_ms"].as_f64().unwrap() <= 1500.0);
        assert!(c["tpot_ms"].as_f64().unwrap() <= 40.0);
        let capacity =
            c["output_tok_s_per_replica"].as_f64().unwrap() * c["replicas"].as_f64().unwrap();
        assert!(capacity >= 30000.0);
    }
}

fn estimate(c: &Value, concurrency: &str) -> Value {
    let gpus = c["gpus_per_replica"].as_u64().unwrap().to_string();
    let args = [
        "estimate",
        "--model",
        MODEL,
        "--workload",
        "chat",
        "--gpu",
        c["gpu"].as_str().unwrap(),
        "--gpus",
        &gpus,
        "--precision",
        c["precision"].as_str().unwrap(),
        "--usd-per-gpu-hour",
        &c["usd_per_gpu_hour"].as_f64().unwrap().to_string(),
        "--concurrency",
        concurrency,
        "--slo-percentile",
        "90",
        "--json",
    ];
    // A disaggregated unit (`plan --serving any`, the default) is estimated with its pools.
    let pools: Vec<String> = match c.get("serving").and_then(Value::as_str) {
        Some(serving) if serving == "disaggregated" => {
            let n = |key: &str| c[key].as_u64().unwrap().to_string();
            vec![
                "--serving".into(),
                serving.into(),
                "--prefill-gpus".into(),
                n("prefill_gpus"),
                "--prefill-tp".into(),
                n("prefill_tp"),
                "--decode-gpus".into(),
                n("decode_gpus"),
                "--decode-tp".into(),
                n("decode_tp"),
            ]
        }
        _ => vec!["--tp".into(), gpus.clone()],
    };
    let mut args: Vec<&str> = args.to_vec();
    args.extend(pools.iter().map(String::as_str));
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

#[test]
fn estimate_reproduces_each_choice() {
    for c in plan().iter().take(4) {
        let e = estimate(c, &c["concurrency"].as_u64().unwrap().to_string());
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
        assert!(close(
            e["output_tok_s"].as_f64().unwrap(),
            c["output_tok_s_per_replica"].as_f64().unwrap()
        ));
        assert!(close(
            e["slo_tail"]["ttft_ms"].as_f64().unwrap(),
            c["ttft_ms"].as_f64().unwrap()
        ));
        assert!(close(
            e["slo_tail"]["tpot_ms"].as_f64().unwrap(),
            c["tpot_ms"].as_f64().unwrap()
        ));
    }
}

/// The library's plan over the same space with room for every candidate (`top` 1000, no
/// simulator verification): no configuration is dropped for cost, so every one that meets the SLO
/// is a candidate, and none of them is cheaper per month than the CLI plan's first choice.
#[test]
fn nothing_cheaper_meets_the_slo() {
    let list = plan();
    let best = list[0]["usd_per_month"].as_f64().unwrap();
    let lib_request = servecost::decide::plan::PlanRequest {
        base: {
            let mut b = servecost::scenario::ScenarioInput {
                model: MODEL.into(),
                ..Default::default()
            };
            b.apply_workload_preset("chat").unwrap();
            b
        },
        traffic_output_tok_s: 30000.0,
        slo: Some(servecost::scenario::Slo {
            ttft_ms: 1500.0,
            tpot_ms: 40.0,
            percentile: 90.0,
        }),
        gpus_allowed: GPUS_ALLOWED.split(',').map(Into::into).collect(),
        top: 1000,
        ..servecost::decide::plan::PlanRequest::with_defaults(
            servecost::scenario::ScenarioInput::default(),
            30000.0,
            None,
        )
    };
    let full = servecost::decide::plan::plan(&lib_request).expect("plans");
    for rejected in &full.rejected {
        assert!(
            !rejected.reason.starts_with("costs more"),
            "top 1000 keeps every feasible one"
        );
    }
    for c in &full.candidates {
        assert!(c.usd_per_month >= best - 1e-6);
    }
    assert_eq!(full.candidates.len(), full.feasible);
}

#[test]
fn plan_rejects_bad_input_naming_the_flag() {
    let (code, _, err) = run(&[
        "plan",
        "--model",
        MODEL,
        "--input-len",
        "100",
        "--output-len",
        "100",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--traffic"), "{err}");
    let (code, _, err) = run(&[
        "plan",
        "--model",
        MODEL,
        "--workload",
        "chat",
        "--traffic-tok-s",
        "-5",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("traffic"), "{err}");
    let (code, _, err) = run(&[
        "plan",
        "--model",
        MODEL,
        "--workload",
        "chat",
        "--traffic-tok-s",
        "5",
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--gpu"), "{err}");
}

/// A plan over the whole catalog ranks by price, so it leaves out the GPUs without one and says
/// which on stderr (the plan itself on stdout is unchanged); none of them is a candidate.
#[test]
fn a_plan_over_the_catalog_names_the_gpus_it_skipped_for_want_of_a_price() {
    let (code, out, err) = run(&[
        "plan",
        "--model",
        MODEL,
        "--workload",
        "chat",
        "--traffic-req-s",
        "50",
        "--slo-ttft-ms",
        "1000",
        "--slo-tpot-ms",
        "40",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: not searched: gb200: no typical rental price for NVIDIA GB200"),
        "{err}"
    );
    let list = serde_json::from_str::<Vec<Value>>(&out).expect("JSON list");
    assert!(!list.is_empty());
    assert!(list.iter().all(|c| c["gpu"] != "gb200"));
    assert!(list
        .iter()
        .all(|c| c["usd_per_month"].as_f64().is_some_and(|v| v > 0.0)));
}

/// The rules a buyer signs under, as flags: 4-bit weights only when allowed and then flagged,
/// the utilization ceiling, GPUs per server; the text names the rules and each candidate's SLO
/// check.
#[test]
fn plan_rules_as_flags_reach_the_json_and_the_text() {
    let args = |extra: &[&'static str]| {
        let mut args: Vec<&str> = vec![
            "plan",
            "--model",
            MODEL,
            "--workload",
            "chat",
            "--traffic-tok-s",
            "30000",
            "--slo-ttft-ms",
            "1500",
            "--slo-tpot-ms",
            "40",
            "--slo-method",
            "analytic",
            "--gpus-allowed",
            GPUS_ALLOWED,
            "--top",
            "50",
        ];
        args.extend(extra);
        args
    };
    let json = |extra: &[&'static str]| {
        let mut a = args(extra);
        a.push("--json");
        let (code, out, err) = run(&a);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Vec<Value>>(&out).expect("JSON list")
    };
    let default = json(&[]);
    assert!(!default.is_empty());
    for c in &default {
        assert!(
            ["bf16", "fp8"].contains(&c["precision"].as_str().unwrap()),
            "{c}"
        );
        assert!(c["utilization"].as_f64().unwrap() <= 0.8 + 1e-9, "{c}");
        assert!(c["quality_caveat"].is_null());
    }
    // Aggregated only: the cheaper disaggregated units (`--serving any`) would crowd the INT4
    // aggregated candidate out of the top K.
    let ruled = json(&[
        "--serving",
        "aggregated",
        "--precisions-allowed",
        "int4,fp8",
        "--max-utilization",
        "0.5",
        "--gpus-per-node",
        "4",
    ]);
    assert!(ruled.iter().any(|c| c["precision"] == "int4"));
    for c in &ruled {
        assert!(c["utilization"].as_f64().unwrap() <= 0.5 + 1e-9, "{c}");
        assert!(c["gpus_per_replica"].as_u64().unwrap() <= 4);
        let total = c["total_gpus"].as_u64().unwrap();
        assert!(total <= 4 || total % 4 == 0, "{c}");
        let caveat = c["quality_caveat"].as_str();
        if c["precision"] == "int4" {
            assert_eq!(
                caveat,
                Some("quality caveat: 4-bit weights, check accuracy")
            );
        } else {
            assert_eq!(caveat, None);
        }
    }
    let (code, out, err) = run(&args(&["--precisions-allowed", "int4"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Rules: weights INT4 (4-bit allowed"), "{out}");
    assert!(
        out.contains("at most 80 % utilization; 8 GPUs per server"),
        "{out}"
    );
    assert!(
        out.contains("SLO check") && out.contains("analytic"),
        "{out}"
    );
    assert!(out.contains("#1: quality caveat: 4-bit weights"), "{out}");
    for (flag, value) in [
        ("--precisions-allowed", "fp16"),
        ("--max-utilization", "1.5"),
        ("--gpus-per-node", "0"),
    ] {
        let (code, _, err) = run(&args(&[flag, value]));
        assert_eq!(code, 2, "{flag} {value}");
        assert!(err.contains(flag), "{err}");
    }
}

/// Owned hardware is a price tier wherever a price is: `estimate --price-tier owned` prices the
/// scenario at the ownership cost, `plan --price-tier owned` ranks by it, and each names where
/// its price comes from; a typed price is "your price".
#[test]
fn owned_hardware_prices_estimate_and_plan_and_typed_prices_say_so() {
    let owned = [
        "--capex-usd-per-gpu",
        "30000",
        "--depreciation-years",
        "4",
        "--energy-usd-per-kwh",
        "0.1",
        "--energy-pue",
        "1.3",
        "--hosting-usd-per-kw-month",
        "150",
        "--ops-usd-per-gpu-hour",
        "0.1",
    ];
    let mut estimate = vec![
        "estimate",
        "--model",
        MODEL,
        "--gpu",
        "h100-sxm",
        "--input-len",
        "1000",
        "--output-len",
        "200",
        "--concurrency",
        "32",
        "--price-tier",
        "owned",
    ];
    estimate.extend(owned);
    let (code, out, err) = run(&estimate);
    assert_eq!(code, 0, "{err}");
    // The worked example of `Ownership::cost`: $1.234 per GPU-hour for a 700 W H100.
    assert!(out.contains("Price: $1.234 per GPU-hour"), "{out}");
    let (code, out, err) = run(&[
        "estimate",
        "--model",
        MODEL,
        "--gpu",
        "h100-sxm",
        "--input-len",
        "1000",
        "--output-len",
        "200",
        "--concurrency",
        "32",
        "--usd-per-gpu-hour",
        "3.125",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(your price)"), "{out}");
    let (code, _, err) = run(&[
        "estimate",
        "--model",
        MODEL,
        "--gpu",
        "h100-sxm",
        "--input-len",
        "10",
        "--output-len",
        "10",
        "--concurrency",
        "1",
        "--price-tier",
        "owned",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--capex-usd-per-gpu"), "{err}");

    let mut plan = vec![
        "plan",
        "--model",
        MODEL,
        "--workload",
        "chat",
        "--traffic-tok-s",
        "30000",
        "--gpus-allowed",
        "h100-sxm",
        "--price-tier",
        "owned",
        "--json",
    ];
    plan.extend(owned);
    let (code, out, err) = run(&plan);
    assert_eq!(code, 0, "{err}");
    let list = serde_json::from_str::<Vec<Value>>(&out).expect("JSON list");
    assert!(!list.is_empty());
    for c in &list {
        assert!(
            (c["usd_per_gpu_hour"].as_f64().unwrap() - 1.2341).abs() < 1e-3,
            "{c}"
        );
        assert!(
            c["price_source"].as_str().unwrap().starts_with("owned"),
            "{c}"
        );
    }
    let typical = serde_json::from_str::<Vec<Value>>(&run(PLAN).1).expect("JSON list");
    assert!(typical[0]["price_source"]
        .as_str()
        .unwrap()
        .starts_with("catalog typical, as of 20"));
}
