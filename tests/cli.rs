//! The `servecost` binary end to end: JSON fields, exit codes and messages naming the flag.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

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

const BASE: &[&str] = &[
    "estimate",
    "--model",
    "llama-3.1-70b",
    "--gpu",
    "h100-sxm",
    "--gpus",
    "8",
    "--precision",
    "fp8",
    "--input-len",
    "1155",
    "--output-len",
    "211",
    "--usd-per-gpu-hour",
    "3.125",
];

fn with(extra: &[&str]) -> Vec<&'static str> {
    let mut args: Vec<&'static str> = BASE.to_vec();
    for e in extra {
        args.push(Box::leak(e.to_string().into_boxed_str()));
    }
    args
}

/// `command` for the small reference deployment (Llama-3.1-8B on H100 SXM), then `rest`.
fn small<'a>(command: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![command, "--model", "llama-3.1-8b", "--gpu", "h100-sxm"];
    args.extend_from_slice(rest);
    args
}

#[test]
fn estimate_json_has_every_documented_field() {
    let (code, out, err) = servecost(&with(&["--concurrency", "64", "--json"]));
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    for field in [
        "concurrency",
        "output_tok_s",
        "output_tok_s_per_gpu",
        "total_tok_s",
        "tok_s_per_user",
        "tpot_ms",
        "ttft_ms",
        "e2e_ms",
        "max_concurrency",
        "tp",
        "replicas",
        "usd_per_m_output",
        "usd_per_m_input",
        "usd_per_m_blended",
        "bound",
        "fits",
        "warnings",
    ] {
        assert!(json.get(field).is_some(), "missing {field}");
    }
    assert_eq!(json["concurrency"], 64);
    assert_eq!(json["tp"], 2);
    assert_eq!(json["replicas"], 4);
    assert_eq!(json["fits"], true);
    // The cost identity on the CLI's own numbers: $/M output = GPUs × price ÷ (tok/s × 3600) × 1e6.
    let tok_s = json["output_tok_s"].as_f64().expect("number");
    let usd = json["usd_per_m_output"].as_f64().expect("number");
    assert!((usd - 8.0 * 3.125 / (tok_s * 3600.0) * 1e6).abs() < 1e-9);
    assert!(json["warnings"]
        .as_array()
        .expect("list")
        .iter()
        .any(|w| w.as_str().unwrap_or("").contains("chose TP 2")));
}

/// A GPU without a catalog rental price (GB200), none typed: throughput and latency as ever,
/// every cost `null` in JSON with the warning in the list, "no price" in the text, an empty
/// cost column in `sweep --csv`, and `simulate` runs. It used to fail on `--usd-per-gpu-hour`.
#[test]
fn a_gpu_without_a_price_gives_performance_and_null_costs() {
    let scenario = [
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "gb200",
        "--input-len",
        "1000",
        "--output-len",
        "200",
    ];
    let command = |name: &str, extra: &[&str]| -> Vec<String> {
        std::iter::once(name)
            .chain(scenario)
            .chain(extra.iter().copied())
            .map(String::from)
            .collect()
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        servecost(&args)
    };
    let (code, out, err) = run(command("estimate", &["--concurrency", "64", "--json"]));
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    for field in [
        "usd_per_m_output",
        "usd_per_m_input",
        "usd_per_m_blended",
        "cost",
    ] {
        assert_eq!(json[field], serde_json::Value::Null, "{field}");
    }
    assert!(json["output_tok_s"].as_f64().is_some_and(|v| v > 0.0));
    assert!(json["tpot_ms"].as_f64().is_some_and(|v| v > 0.0));
    assert!(json["warnings"].as_array().expect("list").iter().any(|w| w
        .as_str()
        .unwrap_or("")
        .starts_with(
        "no rental price for NVIDIA GB200 NVL72 (per Blackwell GPU) in the catalog: cost not shown"
    )));

    let (code, text, err) = run(command("estimate", &["--concurrency", "64"]));
    assert_eq!(code, 0, "{err}");
    for label in [
        "$/M output (all-in)",
        "$/M input (GPU time)",
        "$/M blended (3:1)",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} line in {text}"));
        assert!(line.ends_with(" no price"), "{line}");
    }
    assert!(text.contains("Price: none"), "{text}");

    let (code, csv, err) = run(command("sweep", &["--csv"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no rental price"), "{err}");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(rows.len() > 3);
    for row in rows {
        assert_eq!(row.split(',').nth(6), Some(""), "{row}");
    }
    let (code, table, err) = run(command("sweep", &[]));
    assert_eq!(code, 0, "{err}");
    assert!(
        table.lines().skip(1).all(|l| l.contains("no price")),
        "{table}"
    );

    let (code, out, err) = run(command(
        "simulate",
        &["--concurrency", "16", "--requests", "200"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Simulated 200 requests"), "{out}");
}

#[test]
fn max_throughput_is_the_largest_fitting_concurrency() {
    let (code, out, _) = servecost(&with(&["--max-throughput", "--json"]));
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(json["concurrency"], json["max_concurrency"]);
    assert_eq!(json["fits"], true);
    let (_, over, _) = servecost(&with(&["--concurrency", "100000", "--json"]));
    let over: serde_json::Value = serde_json::from_str(&over).expect("valid JSON");
    assert_eq!(over["fits"], false);
    assert_eq!(over["bound"], "kv_capacity");
}

#[test]
fn bad_input_names_the_flag_and_exits_nonzero() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "estimate",
                "--model",
                "nope",
                "--gpu",
                "h100-sxm",
                "--input-len",
                "1",
                "--output-len",
                "1",
                "--concurrency",
                "1",
            ],
            "--model",
        ),
        (
            small(
                "estimate",
                &[
                    "--input-len",
                    "0",
                    "--output-len",
                    "1",
                    "--concurrency",
                    "1",
                ],
            ),
            "--input-len",
        ),
        (
            small(
                "estimate",
                &[
                    "--input-len",
                    "10",
                    "--output-len",
                    "-4",
                    "--concurrency",
                    "1",
                ],
            ),
            "--output-len",
        ),
        (
            small(
                "estimate",
                &[
                    "--gpus",
                    "8",
                    "--tp",
                    "3",
                    "--input-len",
                    "10",
                    "--output-len",
                    "4",
                    "--concurrency",
                    "1",
                ],
            ),
            "--tp",
        ),
        (
            vec![
                "estimate",
                "--model",
                "llama-3.1-405b",
                "--gpu",
                "h100-sxm",
                "--gpus",
                "1",
                "--input-len",
                "10",
                "--output-len",
                "4",
                "--concurrency",
                "1",
            ],
            "--gpus",
        ),
        (
            small(
                "estimate",
                &[
                    "--input-len",
                    "abc",
                    "--output-len",
                    "4",
                    "--concurrency",
                    "1",
                ],
            ),
            "--input-len",
        ),
        (
            small("estimate", &["--input-len", "10", "--output-len", "4"]),
            "--concurrency",
        ),
        (
            small(
                "estimate",
                &[
                    "--input-len",
                    "10",
                    "--output-len",
                    "4",
                    "--concurrency",
                    "1",
                    "--bogus",
                    "1",
                ],
            ),
            "--bogus",
        ),
        // SLO, plan and simulate options are checked by the core's `try_from`, named as flags.
        (
            vec![
                "plan",
                "--model",
                "llama-3.1-8b",
                "--workload",
                "chat",
                "--traffic-req-s",
                "5",
                "--slo-method",
                "exact",
            ],
            "--slo-method",
        ),
        (
            vec![
                "plan",
                "--model",
                "llama-3.1-8b",
                "--workload",
                "chat",
                "--traffic-req-s",
                "-5",
            ],
            "--traffic-req-s",
        ),
        (
            small(
                "simulate",
                &["--workload", "chat", "--rate", "1", "--burstiness", "0"],
            ),
            "--burstiness",
        ),
    ];
    for (args, flag) in &cases {
        let (code, _, err) = servecost(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(flag), "{args:?}: `{err}` should name {flag}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn sweep_csv_has_a_header_and_a_frontier() {
    let mut args = BASE.to_vec();
    args[0] = "sweep";
    args.push("--csv");
    let (code, out, err) = servecost(&args);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert!(lines
        .next()
        .unwrap_or("")
        .starts_with("concurrency,tok_s_per_user,output_tok_s_per_gpu"));
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() > 20);
    assert!(
        rows.iter().any(|r| r.contains(",true,true,")),
        "some feasible frontier point"
    );
    assert!(
        rows.iter().any(|r| r.contains(",false,")),
        "points beyond capacity are listed as infeasible"
    );
}

#[test]
fn simulate_reports_tails_deterministically() {
    let args = small(
        "simulate",
        &[
            "--workload",
            "chat",
            "--rate",
            "10",
            "--requests",
            "1500",
            "--seed",
            "7",
            "--json",
        ],
    );
    let (code, first, err) = servecost(&args);
    assert_eq!(code, 0, "{err}");
    let (_, second, _) = servecost(&args);
    assert_eq!(first, second, "same seed, same output");
    let json: serde_json::Value = serde_json::from_str(&first).expect("JSON");
    for metric in ["ttft", "tpot", "itl", "e2e"] {
        let p50 = json[format!("{metric}_ms_p50")].as_f64().expect("p50");
        let p95 = json[format!("{metric}_ms_p95")].as_f64().expect("p95");
        let p99 = json[format!("{metric}_ms_p99")].as_f64().expect("p99");
        assert!(p99 >= p95 && p95 >= p50 && p50 > 0.0, "{metric}");
    }
    for key in [
        "output_tok_s",
        "total_tok_s",
        "output_tok_s_per_gpu",
        "preemptions",
        "completed",
        "bound_hit",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    assert_eq!(json["bound_hit"], false);
    let (code, _, err) = servecost(&small("simulate", &["--workload", "chat"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("--concurrency") && err.contains("--rate"),
        "{err}"
    );
    let (code, _, err) = servecost(&small("simulate", &["--workload", "chat", "--rate", "-1"]));
    assert_eq!(code, 2);
    assert!(err.contains("rate"), "{err}");
}

#[test]
fn calibrate_fits_a_benchmark_file() {
    let dir = std::env::temp_dir().join(format!("servecost-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bench.json");
    std::fs::write(
        &file,
        r#"[{"max_concurrency": 1, "output_throughput": 95, "mean_tpot_ms": 10.2, "mean_ttft_ms": 70},
            {"max_concurrency": 32, "output_throughput": 2000, "mean_tpot_ms": 15.0, "mean_ttft_ms": 110}]"#,
    )
    .expect("write");
    let path = file.to_string_lossy().into_owned();
    let (code, out, err) = servecost(&small(
        "calibrate",
        &[
            "--measurements",
            &path,
            "--input-len",
            "1000",
            "--output-len",
            "200",
            "--precision",
            "bf16",
            "--json",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(
        json["rms_log_error_after"].as_f64().unwrap()
            <= json["rms_log_error_before"].as_f64().unwrap()
    );
    assert_eq!(json["residuals"].as_array().map(Vec::len), Some(2));
    // Two points cannot determine four knobs: the verdict says so in JSON and in the text.
    assert_eq!(json["verdict"]["points"], 2);
    assert_eq!(
        json["verdict"]["knobs_kept"],
        serde_json::json!(["t_it0", "t_L0"])
    );
    let warning = json["verdict"]["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("2 points cannot determine 4 knobs: fitted η_m, η_c only"),
        "{warning}"
    );
    let (code, out, err) = servecost(&small(
        "calibrate",
        &[
            "--measurements",
            &path,
            "--input-len",
            "1000",
            "--output-len",
            "200",
            "--precision",
            "bf16",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Fit quality: this fit cannot be trusted as it stands:\n  - 2 points cannot determine 4 knobs"),
        "{out}"
    );
    std::fs::write(&file, "{\"output_throughput\": 5}").expect("write");
    let (code, _, err) = servecost(&small(
        "calibrate",
        &[
            "--measurements",
            &path,
            "--input-len",
            "10",
            "--output-len",
            "10",
        ],
    ));
    assert_eq!(code, 2);
    assert!(err.contains("max_concurrency"), "{err}");
}

/// DEP 8 (`--tp 1 --ep 8`, MODEL.md §2.8) of DeepSeek-R1 on 8 H200s runs, names its layout in
/// text and JSON, and a layout that does not divide the GPUs names the flag.
#[test]
fn estimate_runs_attention_dp_with_expert_parallel() {
    let dep8 = [
        "estimate",
        "--model",
        "deepseek-r1",
        "--gpu",
        "h200-sxm",
        "--gpus",
        "8",
        "--tp",
        "1",
        "--ep",
        "8",
        "--precision",
        "fp8",
        "--input-len",
        "1000",
        "--output-len",
        "1000",
        "--usd-per-gpu-hour",
        "3",
        "--concurrency",
        "256",
    ];
    let (code, out, err) = servecost(&dep8);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("DEP 8 (TP 1 × attention DP 8, EP 8 × moe-TP 1, PP 1), 1 replicas on 8 GPUs"),
        "{out}"
    );
    assert!(
        out.contains("Expert load: the busiest of 8 EP ranks"),
        "{out}"
    );
    let mut json_args = dep8.to_vec();
    json_args.push("--json");
    let (code, out, err) = servecost(&json_args);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(json["dp_attention"], 8);
    assert_eq!(json["ep"], 8);
    assert_eq!(json["replicas"], 1);
    assert!(json["output_tok_s"].as_f64().unwrap() > 0.0);
    // Without attention DP the JSON stays as it was: no `dp_attention` key.
    let (_, plain, _) = servecost(&with(&["--concurrency", "64", "--json"]));
    let plain: serde_json::Value = serde_json::from_str(&plain).expect("valid JSON");
    assert!(plain.get("dp_attention").is_none());

    // Attention DP 3 on 8 GPUs (EP left to its default).
    let mut bad: Vec<&str> = dep8.to_vec();
    bad.truncate(9);
    bad.extend(dep8.get(11..).unwrap_or_default());
    bad.extend(["--dp-attention", "3"]);
    let (code, _, err) = servecost(&bad);
    assert_eq!(code, 2);
    assert!(err.contains("--dp-attention"), "{err}");
}

/// Issue 12 §3: `--protocol benchmark --num-prompts 640` prints the benchmark block in
/// `estimate` and replays 640 requests, all measured, in `simulate`.
#[test]
fn the_benchmark_protocol_runs_in_estimate_and_simulate() {
    let flags = [
        "--input-len",
        "1000",
        "--output-len",
        "200",
        "--concurrency",
        "64",
        "--protocol",
        "benchmark",
        "--num-prompts",
        "640",
    ];
    let (code, out, err) = servecost(&small("estimate", &flags));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Benchmark run (640 prompts, 64 at once"),
        "{out}"
    );
    assert!(out.contains("mean / median TTFT"), "{out}");
    let (code, out, err) = servecost(&small("simulate", &flags));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Simulated 640 requests (640 completed, 640 measured)"),
        "{out}"
    );
}

/// Every headline number carries its expected error (issue 13 §1): the four `*_error_pct`
/// fields are positive and the `error_band` names the class, the rows and the fallback; the
/// text shows "±" beside the numbers.
#[test]
fn estimate_carries_the_expected_error_of_its_numbers() {
    let (code, out, err) = servecost(&with(&["--concurrency", "64", "--json"]));
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    for field in [
        "output_tok_s_error_pct",
        "tpot_ms_error_pct",
        "ttft_ms_error_pct",
        "usd_per_m_output_error_pct",
    ] {
        let pct = json[field]
            .as_f64()
            .unwrap_or_else(|| panic!("{field}: {}", json[field]));
        assert!(pct > 0.0 && pct.is_finite(), "{field} {pct}");
    }
    // $/M's error is the upper side of the inverse of tok/s's: E/(1−E).
    let e = json["output_tok_s_error_pct"].as_f64().expect("number") / 100.0;
    let usd = json["usd_per_m_output_error_pct"].as_f64().expect("number") / 100.0;
    assert!((usd - e / (1.0 - e)).abs() < 1e-9, "{usd} vs {e}");
    let band = &json["error_band"];
    assert!(band["class"]
        .as_str()
        .expect("class")
        .starts_with("dense/nvidia/"));
    let n = band["n"].as_u64().expect("n");
    assert!(n >= 4);
    assert_eq!(band["rows"].as_array().expect("rows").len() as u64, n);
    assert!(band["fallback"].is_string());
    assert!(band["ttft_ms"]["n"].as_u64().expect("ttft n") >= 4);
    let (code, text, err) = servecost(&with(&["--concurrency", "64"]));
    assert_eq!(code, 0, "{err}");
    let tok_line = text
        .lines()
        .find(|l| l.starts_with("output tok/s"))
        .expect("tok/s line");
    assert!(tok_line.contains(" ±"), "{tok_line}");
    assert!(text
        .lines()
        .any(|l| l.starts_with("TTFT") && l.contains('±')));
    assert!(text.contains("Expected error (dense/nvidia/"), "{text}");
}

/// Every command's `--help` prints the usage and exits 0, instead of asking for a required flag.
#[test]
fn every_command_answers_help() {
    for command in [
        "estimate",
        "sweep",
        "validate",
        "plan",
        "leaderboard",
        "simulate",
        "calibrate",
    ] {
        let (code, stdout, stderr) = servecost(&[command, "--help"]);
        assert_eq!(code, 0, "{command}: {stderr}");
        assert!(stdout.contains("USAGE"), "{command}");
        assert!(
            stdout.contains(&format!("servecost {command}")),
            "{command}"
        );
    }
    let (code, _, stderr) = servecost(&["frobnicate"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("leaderboard"), "{stderr}");
}
