//! `servecost leaderboard`: every catalog GPU × precision × layout that fits, at a fixed
//! interactivity (`--tok-s-per-user X`, default 50) or mean TPOT (`--slo-tpot-ms Y`), ranked by
//! $/M output, each row with the `estimate` command that reproduces it (`decide::leaderboard`).
//! Disaggregated rows (xPyD units on one node) are marked in the `serving` column (`3P5D`) and
//! JSON (`serving`, pool fields); `--serving aggregated|disaggregated|any` (default any) picks
//! what is searched, as for `plan`.

use super::args::{
    cli_defaults, decision_input, scenario_input, Flags, UsageError, SCENARIO_FLAGS,
};
use super::Outcome;
use crate::choice::Choice;
use crate::decide::leaderboard::{
    estimate_args, leaderboard, shell_line, Leaderboard, LeaderboardInput, LeaderboardRequest, Row,
};
use crate::present::format::format_number;
use crate::scenario::fields::{
    CONCURRENCY, DECODE_EP, DECODE_GPUS, DECODE_TP, DP_ATTENTION, EP, GPU, GPUS, PP, PRECISION,
    PREFILL_EP, PREFILL_GPUS, PREFILL_TP, SLO_TTFT_MS, TP, USD_PER_GPU_HOUR,
};

/// The switch that keeps every fitting layout, not only the best per GPU × precision.
pub(super) const ALL_LAYOUTS: &str = "--all-layouts";

pub(super) fn leaderboard_command(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    // Sessions (issue 27): agents at the tier per MW or per $, one server per GPU type.
    #[cfg(feature = "session-model")]
    if super::agents::asks_for_sessions_without_gpu(rest) {
        let mut with_gpu = rest.to_vec();
        with_gpu.extend([format!("--{}", GPU.key), "h100-sxm".to_string()]);
        return match Flags::parse(&with_gpu, SCENARIO_FLAGS)
            .and_then(|flags| scenario_input(&flags))
        {
            Ok(base) => super::agents::leaderboard_agents(&flags, base),
            Err(UsageError(m)) => Outcome::usage(m),
        };
    }
    for searched in [
        &GPU,
        &GPUS,
        &TP,
        &PP,
        &EP,
        &DP_ATTENTION,
        &PRECISION,
        &CONCURRENCY,
        &USD_PER_GPU_HOUR,
        &PREFILL_GPUS,
        &PREFILL_TP,
        &PREFILL_EP,
        &DECODE_GPUS,
        &DECODE_TP,
        &DECODE_EP,
    ] {
        if flags.text(&format!("--{}", searched.key)).is_some() {
            return Outcome::usage(format!(
                "--{}: the leaderboard searches this itself (catalog typical prices); use --gpus-allowed",
                searched.key
            ));
        }
    }
    if flags.text(&format!("--{}", SLO_TTFT_MS.key)).is_some() {
        return Outcome::usage(format!(
            "--{}: the leaderboard ranks at one interactivity target (--tok-s-per-user or --slo-tpot-ms); TTFT is reported",
            SLO_TTFT_MS.key
        ));
    }
    for switch in ["--max-throughput", "--ideal-roofline"] {
        if flags.has(switch) {
            return Outcome::usage(format!("{switch} does not apply to the leaderboard"));
        }
    }
    let mut flags = flags;
    let (serving, base) = match super::searched_base(&mut flags) {
        Ok(searched) => searched,
        Err(outcome) => return outcome,
    };
    let decision = match decision_input(&flags) {
        Ok(decision) => decision,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let request = match LeaderboardRequest::try_from(LeaderboardInput {
        base,
        tok_s_per_user: decision.tok_s_per_user,
        slo_tpot_ms: decision.slo_tpot_ms,
        ttft_ceiling_ms: decision.ttft_ceiling_ms,
        ttft_percentile: Some(decision.slo_percentile),
        gpus_allowed: decision.gpus_allowed.unwrap_or_default(),
        all_layouts: flags.has(ALL_LAYOUTS),
        serving,
    }) {
        Ok(request) => request,
        Err(e) => return Outcome::bad_field(&e),
    };
    let board = match leaderboard(&request) {
        Ok(board) => board,
        Err(e) => return Outcome::usage(e),
    };
    let defaults = cli_defaults().scenario;
    let command = |row: &Row| {
        let mut args = estimate_args(&row.input, &defaults);
        if let Some(path) = flags.text("--model-config") {
            args.extend(["--model-config".to_string(), path.to_string()]);
        }
        args
    };
    let notes: String = board
        .skipped
        .iter()
        .map(|s| format!("note: not ranked: {}: {}\n", s.gpu, s.reason))
        .collect();
    let with_notes = |outcome: Outcome| Outcome {
        stderr: outcome.stderr + &notes,
        ..outcome
    };
    if flags.has("--json") {
        return with_notes(json(
            &board,
            &command,
            (request.ttft_ceiling_ms, request.ttft_percentile),
        ));
    }
    with_notes(Outcome::ok(text(
        &board,
        &command,
        (request.ttft_ceiling_ms, request.ttft_percentile),
    )))
}

/// The board as JSON, each row with its `estimate` command (as arguments and as one line).
fn json(
    board: &Leaderboard,
    command: &dyn Fn(&Row) -> Vec<String>,
    (ttft_ceiling_ms, ttft_percentile): (f64, f64),
) -> Outcome {
    let mut value = match serde_json::to_value(board) {
        Ok(value) => value,
        Err(e) => return Outcome::failure(e),
    };
    if let Some(object) = value.as_object_mut() {
        object.insert("ttft_ceiling_ms".into(), ttft_ceiling_ms.into());
        object.insert("ttft_percentile".into(), ttft_percentile.into());
    }
    if let Some(rows) = value
        .get_mut("rows")
        .and_then(serde_json::Value::as_array_mut)
    {
        for (row, json_row) in board.rows.iter().zip(rows.iter_mut()) {
            let args = command(row);
            if let Some(object) = json_row.as_object_mut() {
                object.insert(
                    "estimate".into(),
                    shell_line("servecost estimate", &args).into(),
                );
                object.insert("estimate_args".into(), args.into());
            }
        }
    }
    Outcome::json(&value)
}

fn text(
    board: &Leaderboard,
    command: &dyn Fn(&Row) -> Vec<String>,
    (ttft_ceiling_ms, ttft_percentile): (f64, f64),
) -> String {
    let mut out = format!(
        "Hardware leaderboard at {}, P{} TTFT <= {} ms ({} layouts swept; catalog typical prices; cheapest $/M output first, GPUs without a price last by throughput)\n",
        board.target.text(),
        ttft_percentile,
        crate::present::format::format_number(ttft_ceiling_ms),
        board.searched
    );
    out.push_str(&board_row(
        [
            "#",
            "GPU",
            "prec",
            "layout",
            "serving",
            "GPUs",
            "conc",
            "tok/s/GPU",
            "tok/s/user",
            "TPOT ms",
            "tail TTFT",
            "$/M out",
        ]
        .map(String::from),
    ));
    for (i, r) in board.rows.iter().enumerate() {
        out.push_str(&board_row([
            (i + 1).to_string(),
            r.gpu.clone(),
            format!(
                "{}{}",
                r.precision.id(),
                if r.quality_caveat { "*" } else { "" }
            ),
            r.layout.clone(),
            r.serving_mark(),
            r.gpus.to_string(),
            r.concurrency.to_string(),
            format_number(r.output_tok_s_per_gpu),
            format_number(r.tok_s_per_user),
            format_number(r.tpot_ms),
            format_number(r.ttft_tail_ms),
            r.usd_text(),
        ]));
    }
    if board.rows.iter().any(|r| r.pools.is_some()) {
        out.push_str(
            "  xPyD: disaggregated, x prefill and y decode replicas on one node (GPUs = both pools)\n",
        );
    }
    if board.rows.iter().any(|r| r.quality_caveat) {
        out.push_str(
            "  * FP4/INT4 weights: accuracy depends on the checkpoint; check it on your task\n",
        );
    }
    if !board.rows.is_empty() {
        out.push_str("\nReproduce a row\n");
        for (i, r) in board.rows.iter().enumerate() {
            out.push_str(&format!(
                "{:>3} {}\n",
                i + 1,
                shell_line("servecost estimate", &command(r))
            ));
        }
    }
    if !board.missed.is_empty() {
        out.push_str("\nNo row\n");
        for m in &board.missed {
            out.push_str(&format!(
                "  {:<14} {:<5} {}\n",
                m.gpu,
                m.precision.id(),
                m.reason
            ));
        }
    }
    out
}

/// One line of the table; the header and the rows share the column widths.
fn board_row(cells: [String; 12]) -> String {
    let [rank, gpu, prec, layout, serving, gpus, conc, per_gpu, per_user, tpot, ttft, per_m] =
        cells;
    format!(
        "{rank:>3} {gpu:<14} {prec:>5} {layout:<16} {serving:<10} {gpus:>4} {conc:>6} {per_gpu:>10} \
         {per_user:>10} {tpot:>8} {ttft:>9} {per_m:>9}\n"
    )
}
