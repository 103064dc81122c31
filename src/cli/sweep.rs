//! `servecost sweep`: the whole throughput–latency curve, as a table, CSV or JSON.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{scenario_from, Outcome};
use crate::model::sweep;
use crate::present::report::{format_number, format_usd};

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
    if flags.has("--json") {
        return match serde_json::to_string_pretty(&curve) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
    }
    let mut out = String::new();
    let csv = flags.has("--csv");
    if csv {
        out.push_str("concurrency,tok_s_per_user,output_tok_s_per_gpu,output_tok_s,tpot_ms,ttft_ms,usd_per_m_output,fits,pareto,knee,bound\n");
    } else {
        out.push_str(&format!(
            "{:>8} {:>12} {:>14} {:>12} {:>10} {:>10} {:>10}  {}\n",
            "conc", "tok/s/user", "tok/s/GPU", "tok/s", "TPOT ms", "TTFT ms", "$/M out", "notes"
        ));
    }
    for (index, p) in curve.points.iter().enumerate() {
        let knee = curve.knee == Some(index);
        if csv {
            out.push_str(&format!(
                "{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.6},{},{},{},{}\n",
                p.concurrency,
                p.tok_s_per_user,
                p.output_tok_s_per_gpu,
                p.output_tok_s,
                p.tpot_ms,
                p.ttft_ms,
                p.usd_per_m_output,
                p.fits,
                p.pareto,
                knee,
                p.bound_label
            ));
        } else {
            let mut notes = vec![p.bound_label.to_string()];
            if p.pareto {
                notes.push("pareto".into());
            }
            if knee {
                notes.push("KNEE".into());
            }
            if !p.fits {
                notes.push("infeasible".into());
            }
            out.push_str(&format!(
                "{:>8} {:>12} {:>14} {:>12} {:>10} {:>10} {:>10}  {}\n",
                p.concurrency,
                format_number(p.tok_s_per_user),
                format_number(p.output_tok_s_per_gpu),
                format_number(p.output_tok_s),
                format_number(p.tpot_ms),
                format_number(p.ttft_ms),
                format_usd(p.usd_per_m_output),
                notes.join(", ")
            ));
        }
    }
    Outcome::ok(out)
}
