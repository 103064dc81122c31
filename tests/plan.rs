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
        Some(serving) => {
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
        None => vec!["--tp".into(), gpus.clone()],
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
        slo: Some(servecost::model::slo::Slo {
            ttft_ms: 1500.0,
            tpot_ms: 40.0,
            percentile: 90.0,
        }),
        gpus_allowed: GPUS_ALLOWED.split(',').map(Into::into).collect(),
        price_tier: servecost::model::economics::PriceTier::Typical,
        top: 1000,
        verify_with_simulator: false,
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
