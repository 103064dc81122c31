//! `servecost leaderboard` end to end: every row is reproduced by the `estimate` command it
//! prints (tok/s per GPU and $/M output within 1 %), rows rank by $/M with unpriced GPUs last,
//! and bad targets name their flag. GPUs are restricted with `--gpus-allowed` to keep it quick.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::process::Command;

fn servecost(args: &[&str]) -> (i32, String, String) {
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

fn board(args: &[&str]) -> Value {
    let mut all = vec!["leaderboard"];
    all.extend_from_slice(args);
    all.push("--json");
    let (code, out, err) = servecost(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

fn within_1_percent(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.01 * a.abs().max(b.abs())
}

/// Run each row's `estimate` command and compare; returns the rows.
fn check_rows_reproduce(board: &Value) -> Vec<Value> {
    let rows = board["rows"].as_array().expect("rows").clone();
    assert!(!rows.is_empty(), "{board}");
    for row in &rows {
        let args: Vec<String> = row["estimate_args"]
            .as_array()
            .expect("estimate_args")
            .iter()
            .map(|a| a.as_str().expect("text").to_string())
            .collect();
        let line = row["estimate"].as_str().expect("estimate line");
        assert!(line.starts_with("servecost estimate --model "), "{line}");
        let mut call: Vec<&str> = vec!["estimate"];
        call.extend(args.iter().map(String::as_str));
        call.push("--json");
        let (code, out, err) = servecost(&call);
        assert_eq!(code, 0, "{line}: {err}");
        let point: Value = serde_json::from_str(&out).expect("estimate JSON");
        let (board_tok, estimate_tok) = (
            row["output_tok_s_per_gpu"].as_f64().unwrap(),
            point["output_tok_s_per_gpu"].as_f64().unwrap(),
        );
        assert!(
            within_1_percent(board_tok, estimate_tok),
            "{line}: {board_tok} vs {estimate_tok}"
        );
        match (
            row["usd_per_m_output"].as_f64(),
            point["usd_per_m_output"].as_f64(),
        ) {
            (Some(a), Some(b)) => assert!(within_1_percent(a, b), "{line}: ${a} vs ${b}"),
            (None, None) => {}
            other => panic!("{line}: price differs {other:?}"),
        }
        assert_eq!(row["concurrency"], point["concurrency"], "{line}");
    }
    rows
}

#[test]
fn dense_rows_reproduce_and_rank_by_price_with_unpriced_last() {
    let board = board(&[
        "--model",
        "llama-3.1-70b",
        "--input-len",
        "1155",
        "--output-len",
        "211",
        "--gpus-allowed",
        "h100-sxm,b200,gb200",
    ]);
    assert_eq!(board["target"]["tok_s_per_user"], 50.0);
    let rows = check_rows_reproduce(&board);
    let prices: Vec<Option<f64>> = rows
        .iter()
        .map(|r| r["usd_per_m_output"].as_f64())
        .collect();
    let first_unpriced = prices
        .iter()
        .position(Option::is_none)
        .expect("gb200 has no price");
    assert!(
        prices[first_unpriced..].iter().all(Option::is_none),
        "{prices:?}"
    );
    let priced: Vec<f64> = prices.iter().flatten().copied().collect();
    assert!(priced.windows(2).all(|w| w[0] <= w[1]), "{priced:?}");
    for row in &rows {
        assert!(row["tok_s_per_user"].as_f64().unwrap() >= 50.0);
        let caveat = matches!(row["precision"].as_str(), Some("fp4" | "int4"));
        assert_eq!(row["quality_caveat"], caveat, "{row}");
    }
}

#[test]
fn moe_rows_at_a_tpot_target_reproduce_and_include_dep() {
    let board = board(&[
        "--model",
        "qwen3-235b-a22b",
        "--input-len",
        "1000",
        "--output-len",
        "500",
        "--slo-tpot-ms",
        "40",
        "--gpus-allowed",
        "h200-sxm,b200",
        "--all-layouts",
    ]);
    assert_eq!(board["target"]["tpot_ms"], 40.0);
    let rows = check_rows_reproduce(&board);
    assert!(rows.iter().all(|r| r["tpot_ms"].as_f64().unwrap() <= 40.0));
    assert!(
        rows.iter()
            .any(|r| r["layout"].as_str().is_some_and(|l| l.starts_with("DEP"))),
        "an MoE board tries DEP"
    );
}

#[test]
fn text_table_and_bad_targets() {
    let args = [
        "leaderboard",
        "--model",
        "llama-3.1-8b",
        "--input-len",
        "500",
        "--output-len",
        "200",
        "--gpus-allowed",
        "l40s",
    ];
    let (code, out, err) = servecost(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Hardware leaderboard at ≥ 50 tok/s per user"),
        "{out}"
    );
    assert!(
        out.contains("Reproduce a row")
            && out.contains("servecost estimate --model llama-3.1-8b --gpu l40s"),
        "{out}"
    );
    let mut both = args.to_vec();
    both.extend(["--tok-s-per-user", "40", "--slo-tpot-ms", "20"]);
    let (code, _, err) = servecost(&both);
    assert_eq!(code, 2);
    assert!(err.contains("--tok-s-per-user"), "{err}");
    let mut negative = args.to_vec();
    negative.extend(["--tok-s-per-user", "-3"]);
    let (code, _, err) = servecost(&negative);
    assert_eq!(code, 2);
    assert!(err.contains("--tok-s-per-user"), "{err}");
    let mut searched = args.to_vec();
    searched.extend(["--gpu", "h100-sxm"]);
    let (code, _, err) = servecost(&searched);
    assert_eq!(code, 2);
    assert!(err.contains("--gpu:"), "{err}");
}

/// Issue 14 §2: the board marks disaggregated configurations. For Qwen3-32B on H200 at ISL 4000
/// / OSL 500 and 100 tok/s per user (TPOT 10 ms, AIConfigurator's target), an xPyD unit on one
/// node is a row of its own (`serving`, its pools in JSON, `3P5D` in the text table), its
/// `estimate` command carries `--serving disaggregated` and the pool flags and reproduces it,
/// and it ranks above the aggregated row (DistServe, AIConfigurator: disaggregation pays when
/// TPOT is tight). `--serving aggregated` leaves the units out.
#[test]
fn disaggregated_units_are_rows_with_their_pools_and_reproduce() {
    let args = [
        "--model",
        "qwen3-32b",
        "--input-len",
        "4000",
        "--output-len",
        "500",
        "--length-dist",
        "fixed",
        "--kv-precision",
        "fp8",
        "--tok-s-per-user",
        "100",
        "--gpus-allowed",
        "h200-sxm",
    ];
    let board = board(&args);
    let rows = check_rows_reproduce(&board);
    let disaggregated: Vec<&Value> = rows
        .iter()
        .filter(|r| r["serving"] == "disaggregated")
        .collect();
    assert!(!disaggregated.is_empty(), "{board}");
    assert!(rows.iter().any(|r| r["serving"] == "aggregated"));
    for row in &disaggregated {
        let (p, d) = (
            row["prefill_gpus"].as_u64().expect("prefill_gpus"),
            row["decode_gpus"].as_u64().expect("decode_gpus"),
        );
        assert_eq!(p + d, 8, "one full node: {row}");
        assert_eq!(row["gpus"].as_u64(), Some(p + d));
        assert!(row["prefill_replicas"].as_u64().is_some() && row["decode_tp"].as_u64().is_some());
        let line = row["estimate"].as_str().expect("estimate");
        for flag in [
            "--serving disaggregated",
            "--prefill-gpus",
            "--prefill-tp",
            "--decode-gpus",
            "--decode-tp",
        ] {
            assert!(line.contains(flag), "{line} lacks {flag}");
        }
    }
    let best = |serving: &str| {
        rows.iter()
            .filter(|r| r["serving"] == serving && r["precision"] == "fp8")
            .filter_map(|r| r["usd_per_m_output"].as_f64())
            .fold(f64::INFINITY, f64::min)
    };
    let (aggregated_usd, disaggregated_usd) = (best("aggregated"), best("disaggregated"));
    println!("FP8 at 100 tok/s/user: aggregated ${aggregated_usd:.3}/M, disaggregated ${disaggregated_usd:.3}/M");
    assert!(
        disaggregated_usd < aggregated_usd,
        "{disaggregated_usd} vs {aggregated_usd}"
    );
    // The text table marks the unit.
    let mut text_args = vec!["leaderboard"];
    text_args.extend_from_slice(&args);
    let (code, out, err) = servecost(&text_args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" serving ") && out.contains("xPyD:"), "{out}");
    let mark = format!(
        "{}P{}D",
        disaggregated[0]["prefill_replicas"], disaggregated[0]["decode_replicas"]
    );
    assert!(out.contains(&mark), "{mark} in {out}");
    // Aggregated only when asked.
    let mut only = args.to_vec();
    only.extend(["--serving", "aggregated"]);
    let board = self::board(&only);
    let rows = board["rows"].as_array().expect("rows");
    assert!(rows.iter().all(|r| r["serving"] == "aggregated"), "{board}");
}
