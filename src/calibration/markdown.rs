//! `docs/VALIDATION.md`, generated (issue 25 §4): every figure on that page comes from this
//! module's rendering of the fit, the shipped profiles' report, the three cross-validations and
//! the expected-error table, so a refit regenerates the page (`servecost validate
//! data/measurements.csv --markdown > docs/VALIDATION.md`) instead of hand-editing it, and
//! `tests/validation.rs` fails when the committed page is not what the current model renders.
//! The prose here states methods and causes, never a fitted figure.

use crate::calibration::profiles::{publication, GroupBy, GroupReport, ProfileFit};
use crate::calibration::validate::{render, summarise_rows, Report, Summary};
use crate::choice::Choice;
use crate::model::expected_error::Band;
use crate::physics::engine::Scope;
use std::collections::BTreeMap;

/// Issue 25's targets for the cross-validated medians `(tok/s, TPOT, TTFT)`, held out by
/// publication.
pub const TARGETS_BY_SOURCE: (f64, f64, f64) = (0.20, 0.20, 0.35);
/// The same, held out by GPU type or by model.
pub const TARGETS_BY_GROUP: (f64, f64, f64) = (0.15, 0.15, 0.30);

/// The targets of a grouping.
pub fn targets(by: GroupBy) -> (f64, f64, f64) {
    match by {
        GroupBy::Source => TARGETS_BY_SOURCE,
        GroupBy::Gpu | GroupBy::Model => TARGETS_BY_GROUP,
    }
}

/// Everything the page shows, computed elsewhere (the CLI computes it; the test reuses its own).
pub struct Inputs<'a> {
    /// Rows in the file, run or skipped.
    pub rows_in_file: usize,
    /// The shipped profiles on every row.
    pub shipped: &'a Report,
    /// `validate --fit` on the whole file.
    pub fits: &'a [ProfileFit],
    /// The cross-validations, in `GroupBy::ALL` order.
    pub folds: &'a [&'a GroupReport],
    /// `data/error_bands.csv`'s bands.
    pub bands: &'a [Band],
}

fn pct(value: f64) -> String {
    format!("{:.1} %", value * 100.0)
}

fn summary_cells(summary: &Option<Summary>) -> String {
    match summary {
        Some(s) => format!(
            "{} / {} ({})",
            pct(s.median_abs_error),
            pct(s.p80_abs_error),
            s.rows
        ),
        None => "—".into(),
    }
}

fn grouping_name(by: GroupBy) -> &'static str {
    match by {
        GroupBy::Source => "publication",
        GroupBy::Gpu => "GPU type",
        GroupBy::Model => "model id",
    }
}

/// The page.
pub fn validation_markdown(inputs: &Inputs) -> String {
    let shipped = inputs.shipped;
    let mut out = String::new();
    out.push_str("# Validation: predicted vs published measurements\n\n");
    out.push_str("<!-- Generated: `servecost validate data/measurements.csv --markdown > docs/VALIDATION.md`.\n     tests/validation.rs fails when this file is not what the current model renders. Do not edit. -->\n\n");
    // The file, by publication and deployment.
    let mut publications: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &shipped.rows {
        *publications.entry(publication(&row.id)).or_default() += 1;
    }
    out.push_str(&format!(
        "The model against `data/measurements.csv` (a copy of `shared/data/measurements.csv`, checked by `tests/catalog.rs`): {} rows, {} run, {} skipped with their reasons. Rows run per publication (the id's prefix, the unit the primary cross-validation holds out): {}.\n\n",
        inputs.rows_in_file,
        shipped.rows.len(),
        shipped.skipped.len(),
        publications
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.push_str("```\ncargo build --release\ntarget/release/servecost validate data/measurements.csv                      # every row under the shipped profiles\ntarget/release/servecost validate data/measurements.csv --fit                # the profile fit = physics::engine::FITTED\ntarget/release/servecost validate data/measurements.csv --cross-validate     # held out: one publication, one GPU type, one model at a time\ntarget/release/servecost validate data/measurements.csv --cross-validate --write-bands data/error_bands.csv\ntarget/release/servecost validate data/measurements.csv --markdown > docs/VALIDATION.md   # this page\n```\n\n");
    out.push_str(HOW_ROWS_RUN);

    out.push_str("\n## Errors held out (the gate)\n\nMedian / p80 of |predicted/measured − 1| over every held-out prediction (rows compared). Each grouping holds one group out whole, re-fits every profile on the other groups' rows and predicts the held-out rows through the fallbacks a user would get. `tests/validation.rs` bounds each figure a small margin above it; the issue's targets are the medians' goals.\n\n| held out | tok/s | TPOT | TTFT | targets (medians) |\n|---|---|---|---|---|\n");
    for fold in inputs.folds {
        let (t, p, f) = targets(fold.by);
        let met = |s: &Option<Summary>, target: f64| {
            s.map_or("—", |s| {
                if s.median_abs_error <= target {
                    "met"
                } else {
                    "not met"
                }
            })
        };
        out.push_str(&format!(
            "| one {} at a time | {} | {} | {} | {} / {} / {}: {}, {}, {} |\n",
            grouping_name(fold.by),
            summary_cells(&fold.report.throughput),
            summary_cells(&fold.report.tpot),
            summary_cells(&fold.report.ttft),
            pct(t),
            pct(p),
            pct(f),
            met(&fold.report.throughput, t),
            met(&fold.report.tpot, p),
            met(&fold.report.ttft, f),
        ));
    }
    out.push_str(&format!(
        "| in sample (shipped profiles) | {} | {} | {} | |\n",
        summary_cells(&shipped.throughput),
        summary_cells(&shipped.tpot),
        summary_cells(&shipped.ttft)
    ));
    for fold in inputs.folds {
        out.push_str(&format!(
            "\n### One {} at a time\n\n| held out | trained on | tok/s | TPOT | TTFT |\n|---|---|---|---|---|\n",
            grouping_name(fold.by)
        ));
        for g in &fold.groups {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                g.group,
                g.trained_on,
                summary_cells(&g.throughput),
                summary_cells(&g.tpot),
                summary_cells(&g.ttft)
            ));
        }
    }

    out.push_str("\n## In sample, by publication and deployment\n\n| publication | tok/s | TPOT | TTFT |\n|---|---|---|---|\n");
    for name in publications.keys() {
        let rows = shipped
            .rows
            .iter()
            .filter(|r| publication(&r.id) == *name)
            .cloned()
            .collect();
        let report = summarise_rows(rows);
        out.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            summary_cells(&report.throughput),
            summary_cells(&report.tpot),
            summary_cells(&report.ttft)
        ));
    }

    out.push_str(PROFILES_TEXT);
    out.push_str("| engine | stack | deployment | rows | knobs fitted | η_m | η_c | t_it0 ms | t_L0 µs | t_seq µs | t_srv ms | objective |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for f in inputs.fits {
        let k = f.knobs;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3} |\n",
            f.engine,
            f.stack.name(),
            f.deployment.id(),
            f.rows,
            match f.scope {
                Scope::AllKnobs => "all",
                Scope::ServerOverhead => "t_srv only",
            },
            k.eta_mem,
            k.eta_compute,
            k.step_overhead_ms,
            k.layer_overhead_us,
            k.seq_overhead_us,
            k.server_overhead_ms,
            f.objective
        ));
    }

    out.push_str("\n## Expected error shown in the page\n\nPer class (architecture / vendor / deployment / regime) the 68th percentile of |error| of each row's prediction with its publication held out (`data/error_bands.csv`, `model::expected_error`); (n) rows, and the fallback when the class had too few.\n\n");
    out.push_str(&crate::calibration::error_bands::render_markdown(
        inputs.bands,
    ));
    out.push_str(CAUSES_TEXT);
    out.push_str("\n## Every row (shipped profiles, in sample)\n\n```\n");
    out.push_str(&render(shipped));
    out.push_str("```\n");
    out
}

const HOW_ROWS_RUN: &str = "## How each row is run

| `mode` | operating point |
|---|---|
| `offline` | the largest concurrency whose KV fits, capped by the engine's limit |
| `concurrency`, `batch1` | closed loop at that concurrency; a serving benchmark's protocol where the source is one (below) |
| `static_batch` | one batch of that size under static batching (MODEL.md §4.1) |
| `server` | simulated Poisson arrivals at the row's `target_qps`; without a rate, the highest throughput whose simulated P99 TTFT and TPOT meet the row's SLOs |

- **Deployment.** Each row runs under the profile of its engine, its GPU's software stack and its `deployment` (`tuned` or `stock`, the data README's rule by source); the engine's default limits are those of that deployment (`physics::engine::engine_limits`: a stock vLLM on an A100 admits 256 sequences and 2,048 batched tokens, SGLang's chunk grows with GPU memory, TGI admits 128 requests).
- **Harness.** InferenceX, GPUStack and dstack rows ran through an API server and a benchmark client: `protocol = benchmark` with the `--num-prompts` their notes state (10 × C for InferenceX) and the profile's server overhead. Engine-level tables (`offline`, `batch1`, `static_batch` of the other sources) ran in process, without one.
- **Bursts** (`N` prompts at request rate `inf`, no concurrency cap: one wave, `C = N`) are replayed in the simulator: the run lasts until its longest request ends, and the scheduler admits by the engine's limits and the KV capacity.
- **Lengths.** Rows measured on ShareGPT (EOS not ignored) run lognormal lengths about their means with the chat preset's spreads (the Azure conversation fit, MODEL.md §6.4); the other rows fixed lengths of their means.
";

const PROFILES_TEXT: &str = "
## Engine profiles (the fit)

One set of knobs per engine × software stack × deployment, never per row, model or GPU. Per stack, the tuned generic profile is fitted on every tuned row of the stack and each engine with at least 6 tuned rows gets its own, fitted from it; then the same for stock rows, starting from the stack's tuned generic knobs, when the stack has at least 6 stock rows. An engine with fewer rows but at least 2 that measure TTFT fits its server overhead only. A stock scenario on a stack without a stock profile takes the stack's tuned profile moved by the stock-vs-tuned shift another stack measured (every knob by the ratio of that stack's stock and tuned generic profiles, so the move keeps the target stack's own level of overheads), and says so; a stack without any row takes the CUDA profile with an assumed discount. Coordinate descent over each knob's grid (`calibration::profiles`), minimising the mean |ln error| of every compared metric of the profile's rows; the shipped table `physics::engine::FITTED` is this fit (`tests/validation.rs`).

";

const CAUSES_TEXT: &str = "
## Causes tested (issue 25 §3)

Each candidate was added to the model or the harness, the profiles re-fitted, and kept only where the cross-validated errors above say so.

- **Deployment (kept).** Tuned and stock rows had one profile per engine and stack: the fit split the difference between vendor-tuned benchmarks and engines at their defaults. Separate stock profiles moved the GPUStack closed loops at concurrency 1–8 from a 2–5× over-predicted TTFT to within tens of per cent, and their throughput to within a few per cent.
- **Server overhead per request (kept, per profile).** GPUStack measures 28–75 ms TTFT at 1–8 in flight with ~230-token prompts where the InferenceX-fitted 150 ms made the model say ~160 ms: the harnesses differ (InferenceX's client and server on one node with long prompts and a chat template; GPUStack's `vllm bench serve` with short ShareGPT prompts). The server overhead is a knob of each profile, so each deployment carries its own; the `server-overhead-ms` field overrides it for a user's own harness.
- **Bursts (kept: replayed).** A burst of N prompts at once was the analytic first wave at C = N, whose run ends when the mean request does; the engines admit by `max_num_seqs` and the KV cache and the run ends with its longest request (ShareGPT outputs spread wide). Replaying bursts in the simulator with the dataset's length spread took the GPUStack bursts from several-fold over-predicted throughput to tens of per cent. Default limits per engine, deployment and GPU (vLLM V1's by GPU memory, SGLang's chunk by memory, TGI's 128 requests) come from the engines' own sources (`physics::engine::engine_limits`).
- **Per-sequence CPU cost per step (tested, not supported by the data).** A knob `t_seq` (µs per running sequence per step: scheduling, sampling, detokenization, which vLLM's V1 and SGLang's overlap-scheduler posts name as CPU overhead) is in the step time and in every profile's fit, with a second descent started at a non-zero value; every profile fits it at 0. With bursts replayed and length spread modelled, the large-batch TPOT gap it was meant to explain is smaller, and what remains is not proportional to the batch across the rows. It stays a user knob (`seq-overhead-us`).
- **ROCm (open).** The ROCm profiles fit η far below CUDA's and large fixed overheads: the MI300X rows (InferenceX DeepSeek-R1 tuned; dstack's Llama 3.1 405B on TGI and a 2024 vLLM stock) are 1.5–3× slower than the step model's structure allows at CUDA-like efficiencies. The dstack rows include 64k–128k-token prompts whose TTFT grows faster than the model's attention term; a version-specific cause (vLLM 0.6's 512-token chunk when `max_model_len` > 32k, unfused ROCm attention) is not modelled.

## Agentic sessions (issue 27)

The session model (`model::sessions`: agents, turns re-sending a growing context, the prefix-cache hit rate that survives eviction) is checked against its own simulator (`tests/sessions.rs`: throughput, TPOT and TTFT within 10 / 15 / 25 %; the hit rate falls past the KV pool) and, outside the tests, against published agentic figures: Artificial Analysis AA-AgentPerf's workload shape and tiers, NVIDIA's agents-per-megawatt claim for GB300 NVL72 against HGX H200, and SemiAnalysis InferenceX's agentic traces. None of those figures is in `data/measurements.csv` or in any test (no engine, layout or tier threshold is published with them), so none is in the table below. The direction holds: the model ranks GB300 above H200 per GPU and per megawatt at both the 20 and 60 tok/s tiers, by more per GPU than per megawatt. The size does not: the model gives about 2–4× per megawatt where NVIDIA reports up to 20×. The commands, the figures and what cannot be checked yet (DeepSeek V4 Pro is not in the catalog; the published runs' engines, layouts and TTFT thresholds are not given) are in `docs/VALIDATION-NOTES.md`, \"Issue 27: agentic sessions\".

Studies from earlier stops (MoE compute, analytic vs simulator, disaggregation, calibration to a user's benchmark) are in `docs/VALIDATION-NOTES.md`, with the figures of their time.
";
