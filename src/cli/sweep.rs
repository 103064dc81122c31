//! `servecost sweep`: the whole throughput–latency curve, as a table, CSV or JSON.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{scenario_from, Outcome};
use crate::model::sweep;
use crate::present::format::{format_cost, format_number};
use crate::scenario::no_price_warning;
use crate::share::curve_csv_rows;

pub(super) fn sweep_command(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--max-throughput") || flags.text("--concurrency").is_some() {
        return Outcome::usage("sweep takes no operating point (--concurrency / --max-throughput)");
    }
    let scenario = match scenario_from(&flags) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let curve = sweep(&scenario);
    // Without a price the cost cells are null, empty or "no price"; stderr says why.
    let note = match scenario.usd_per_gpu_hour {
        Some(_) => String::new(),
        None => format!("note: {}\n", no_price_warning(&scenario.gpu)),
    };
    let with_note = |outcome: Outcome| Outcome {
        stderr: outcome.stderr + &note,
        ..outcome
    };
    if flags.has("--json") {
        return with_note(Outcome::json(&curve));
    }
    if flags.has("--csv") {
        // The same rows as the page's CSV download, without its `#` assumption lines.
        return with_note(Outcome::ok(curve_csv_rows(&curve)));
    }
    let mut out = table_row(
        "conc",
        [
            "tok/s/user",
            "tok/s/GPU",
            "tok/s",
            "TPOT ms",
            "TTFT ms",
            "$/M out",
        ]
        .map(String::from),
        "notes",
    );
    for (index, p) in curve.points.iter().enumerate() {
        let mut notes = vec![p.bound_label.to_string()];
        if p.pareto {
            notes.push("pareto".into());
        }
        if curve.knee == Some(index) {
            notes.push("KNEE".into());
        }
        if !p.fits {
            notes.push("infeasible".into());
        }
        out.push_str(&table_row(
            &p.concurrency.to_string(),
            [
                format_number(p.tok_s_per_user),
                format_number(p.output_tok_s_per_gpu),
                format_number(p.output_tok_s),
                format_number(p.tpot_ms),
                format_number(p.ttft_ms),
                format_cost(p.usd_per_m_output),
            ],
            &notes.join(", "),
        ));
    }
    with_note(Outcome::ok(out))
}

/// One line of the table; the header and the points share the column widths.
fn table_row(concurrency: &str, numbers: [String; 6], notes: &str) -> String {
    let [per_user, per_gpu, total, tpot, ttft, usd] = numbers;
    format!(
        "{concurrency:>8} {per_user:>12} {per_gpu:>14} {total:>12} {tpot:>10} {ttft:>10} {usd:>10}  {notes}\n"
    )
}
