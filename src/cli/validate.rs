//! `servecost validate`: predicted vs measured for a measurements file; `--fit` fits the engine
//! profiles (`calibration::profiles`) and prints them as `physics::engine::FITTED`;
//! `--cross-validate` reports out-of-sample errors holding out one GPU type, then one model at a
//! time, and one publication at a time (`--group-by source|gpu|model`; all three by default);
//! `--cross-validate --write-bands OUT` writes the expected-error table (`calibration::error_bands`,
//! shipped as `data/error_bands.csv`) to OUT and prints it as Markdown.

use super::args::{self, Flags, UsageError, SCENARIO_FLAGS};
use super::Outcome;
use crate::choice::Choice;

pub(super) fn validate_command(rest: &[String]) -> Outcome {
    let known = [SCENARIO_FLAGS, &["--group-by", "--write-bands"]].concat();
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let [path] = flags.positional.as_slice() else {
        return Outcome::usage("validate takes one file: servecost validate FILE.csv [--json]");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return Outcome::usage(format!("{path}: {e}")),
    };
    let overrides = match args::efficiency_overrides(&flags) {
        Ok(o) => o,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--cross-validate") || flags.has("--fit") || flags.has("--markdown") {
        let records = match crate::catalog::csv::parse_records(&text) {
            Ok(records) => records,
            Err(e) => return Outcome::usage(format!("{path}: {e}")),
        };
        if flags.has("--markdown") {
            return markdown_outcome(&records, &overrides);
        }
        if flags.has("--fit") {
            return fit_outcome(&records, &overrides, flags.has("--json"));
        }
        if let Some(out) = flags.text("--write-bands") {
            return bands_outcome(&records, &overrides, out);
        }
        return cross_validate_outcome(&text, &records, &overrides, &flags);
    }
    match crate::calibration::validate::validate(&text, &overrides) {
        Ok(report) if flags.has("--json") => Outcome::json(&report),
        Ok(report) => Outcome::ok(crate::calibration::validate::render(&report)),
        Err(e) => Outcome::usage(format!("{path}: {e}")),
    }
}

use crate::calibration::profiles::{self, GroupBy};
use crate::calibration::validate::{render, Summary};
use crate::catalog::csv::Record;
use crate::physics::engine::Scope;
use crate::scenario::EfficiencyOverrides;

fn fit_outcome(records: &[Record], overrides: &EfficiencyOverrides, json: bool) -> Outcome {
    let fits = profiles::fit_profiles(records, overrides);
    let table = profiles::table(&fits);
    let report = profiles::validate_under(records, overrides, &table);
    if json {
        return Outcome::json(&serde_json::json!({ "profiles": fits, "report": report }));
    }
    let mut out = String::from(
        "Engine profiles fitted (coordinate descent, mean |ln error| of each profile's rows):\n",
    );
    for f in &fits {
        let k = f.knobs;
        out.push_str(&format!(
            "  {:<13} {:<5} {:<5} rows {:>3}  objective {:.3}  --eta-mem {} --eta-compute {} --step-overhead-ms {} --layer-overhead-us {} --seq-overhead-us {} --server-overhead-ms {}{}\n",
            f.engine, f.stack.name(), f.deployment.id(), f.rows, f.objective, k.eta_mem, k.eta_compute, k.step_overhead_ms, k.layer_overhead_us, k.seq_overhead_us, k.server_overhead_ms,
            match f.scope {
                Scope::AllKnobs => "",
                Scope::ServerOverhead => "  (server overhead only; the rest the generic profile's)",
            }
        ));
    }
    out.push_str("\nAs `physics::engine::FITTED`:\n\npub static FITTED: &[Profile] = &[\n");
    for f in &fits {
        out.push_str(&f.rust());
    }
    out.push_str("];\n\nEvery row under the fitted profiles:\n\n");
    out.push_str(&render(&report));
    Outcome::ok(out)
}

/// `--markdown`: docs/VALIDATION.md (`calibration::markdown`): the fit, the shipped report, the
/// three cross-validations and the expected-error table, rendered.
fn markdown_outcome(records: &[Record], overrides: &EfficiencyOverrides) -> Outcome {
    use crate::calibration::{error_bands, markdown};
    let shipped = crate::calibration::validate::validate_records(records, overrides);
    let fits = profiles::fit_profiles(records, overrides);
    let mut folds = Vec::new();
    for by in GroupBy::ALL.iter().copied() {
        match profiles::cross_validate_groups(records, overrides, by) {
            Ok(fold) => folds.push(fold),
            Err(e) => return Outcome::usage(e),
        }
    }
    let Some(by_source) = folds.iter().find(|f| f.by == GroupBy::Source) else {
        return Outcome::usage("no cross-validation by source");
    };
    let bands = error_bands::bands(&error_bands::row_errors_of(&shipped, by_source));
    let fold_refs: Vec<&profiles::GroupReport> = folds.iter().collect();
    Outcome::ok(markdown::validation_markdown(&markdown::Inputs {
        rows_in_file: records.len(),
        shipped: &shipped,
        fits: &fits,
        folds: &fold_refs,
        bands: &bands,
    }))
}

/// `--write-bands OUT`: the expected-error table to OUT (CSV), and as Markdown on stdout.
fn bands_outcome(records: &[Record], overrides: &EfficiencyOverrides, out: &str) -> Outcome {
    use crate::calibration::error_bands;
    let rows = match error_bands::row_errors(records, overrides) {
        Ok(rows) => rows,
        Err(e) => return Outcome::usage(e),
    };
    let bands = error_bands::bands(&rows);
    if let Err(e) = std::fs::write(out, error_bands::render_csv(&bands)) {
        return Outcome::failure(format!("{out}: {e}"));
    }
    Outcome::ok(format!(
        "Expected error per class: the 68th percentile of |predicted/measured - 1| over each row's prediction with its publication held out (cross-validation by source); (n) rows, and the fallback when the class had fewer than {} rows. Written to {out}.\n\n{}",
        crate::model::expected_error::MIN_BAND_ROWS,
        error_bands::render_markdown(&bands)
    ))
}

fn summary_cell(s: &Option<Summary>) -> String {
    match s {
        Some(s) => format!(
            "{:>3} rows {:>5.1}% / {:>5.1}%",
            s.rows,
            s.median_abs_error * 100.0,
            s.p80_abs_error * 100.0
        ),
        None => format!("{:>23}", "—"),
    }
}

fn cross_validate_outcome(
    text: &str,
    records: &[Record],
    overrides: &EfficiencyOverrides,
    flags: &Flags,
) -> Outcome {
    let by: Vec<GroupBy> = match flags.values.get("--group-by").map(String::as_str) {
        None => GroupBy::ALL.to_vec(),
        Some(key) => match GroupBy::parse_exact(key) {
            Some(by) => vec![by],
            None => return Outcome::usage(format!("--group-by: {}", GroupBy::not_one_of(key))),
        },
    };
    let _ = text;
    let mut reports = Vec::new();
    for by in by {
        match profiles::cross_validate_groups(records, overrides, by) {
            Ok(report) => reports.push(report),
            Err(e) => return Outcome::usage(e),
        }
    }
    if flags.has("--json") {
        return Outcome::json(&reports);
    }
    let mut out = String::new();
    for r in &reports {
        out.push_str(&format!(
            "Cross-validation holding out one {} at a time: each row predicted by profiles fitted on the other groups' rows\n\n",
            r.by.label()
        ));
        out.push_str(&format!(
            "  {:<16} {:>7} | {:>23} | {:>23} | {:>23}\n",
            "held out", "trained", "tok/s median / p80", "TPOT median / p80", "TTFT median / p80"
        ));
        for g in &r.groups {
            out.push_str(&format!(
                "  {:<16} {:>7} | {} | {} | {}\n",
                g.group,
                g.trained_on,
                summary_cell(&g.throughput),
                summary_cell(&g.tpot),
                summary_cell(&g.ttft)
            ));
        }
        out.push('\n');
        out.push_str(&render(&r.report));
        out.push('\n');
    }
    Outcome::ok(out)
}
