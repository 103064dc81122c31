//! Predicted vs measured: run each row of a `measurements.csv`-format file through the model at
//! the operating point its `mode` names, and summarise the errors.
//!
//! Mode mapping: `offline` → max-throughput (largest concurrency that fits, capped by the
//! engine's limit); `concurrency`/`batch1` → that closed-loop concurrency; `static_batch` → one
//! batch of that size under static batching; `server` → simulated Poisson arrivals at the row's
//! target rate (or, without one, the SLO mode: highest throughput whose simulated P99 TTFT and
//! TPOT meet the row's SLOs). Engine defaults (limit, chunk budget, KV format when unstated) are per engine,
//! never per row.
//!
//! How a row was measured is a property of its source family (`harness`), not a fit: the
//! InferenceX sweeps, GPUStack's performance lab and dstack's runs are serving benchmarks
//! (`bench_serving --max-concurrency C`, `num_prompts = 10 × C` for InferenceX; `vllm bench
//! serve` / `benchmark_serving` with the `--num-prompts N` their notes state, a burst being
//! `N` prompts at request rate `inf` with no concurrency cap, one wave of `C = N`:
//! `shared/data/README.md`), so they run under
//! `protocol = benchmark` and are compared with the benchmark's mean TTFT, TPOT and throughput;
//! a **burst** (one wave: `N` prompts at once, `C = N`) is replayed in the simulator (issue 25
//! §3), whose run lasts until the longest request ends and whose scheduler admits by the
//! engine's default limits and KV capacity, which a closed form of the first wave cannot follow.
//! Rows measured on a chat dataset (ShareGPT, `EOS not ignored`) run lognormal lengths of the
//! row's means with the chat spreads (`scenario::WORKLOAD_PRESETS`' `chat`, the Azure
//! conversation fit, MODEL.md §6.4: no ShareGPT fit is in the spec); the other rows fixed ones;
//! the other `concurrency`/`server` rows are API clients (NIM's AIPerf, MLPerf Server) and keep
//! the default server overhead; `offline`, `batch1` and `static_batch` rows are engine-level
//! tables measured in process (TensorRT-LLM's benchmarks), without an API server, so their
//! server overhead is 0.

use crate::catalog::csv::{self, Record};
use crate::choice::Choice;
use crate::model::evaluate;
use crate::model::expected_error::Class;
use crate::physics::engine::{self, Deployment, ProfileKnobs, Stack};
use crate::physics::precision::{KvPrecision, Precision};
use crate::scenario::{
    Batching, EfficiencyOverrides, LengthDist, Protocol, Scenario, ScenarioInput,
    DEFAULT_CHUNK_TOKENS, DEFAULT_MAX_NUM_SEQS,
};
use serde::Serialize;

/// One metric compared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Comparison {
    pub predicted: f64,
    pub measured: f64,
    /// `predicted/measured − 1`.
    pub error: f64,
}

impl Comparison {
    fn new(predicted: f64, measured: f64) -> Option<Comparison> {
        (measured > 0.0 && predicted.is_finite() && predicted > 0.0).then(|| Comparison {
            predicted,
            measured,
            error: predicted / measured - 1.0,
        })
    }
}

/// The result for one row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowResult {
    pub id: String,
    pub model: String,
    pub gpu: String,
    pub gpus: u32,
    pub mode: String,
    pub concurrency: u32,
    /// The scenario's class at the predicted point (`model::expected_error`).
    pub class: Class,
    pub throughput: Option<Comparison>,
    pub tpot: Option<Comparison>,
    pub ttft: Option<Comparison>,
    pub notes: Vec<String>,
}

/// A row not run, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub id: String,
    pub reason: String,
}

/// Error statistics of one metric over the rows that report it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub rows: usize,
    pub median_abs_error: f64,
    pub p80_abs_error: f64,
    /// `exp(mean(ln(predicted/measured)))`: above 1 the model over-predicts.
    pub geometric_bias: f64,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub rows: Vec<RowResult>,
    pub skipped: Vec<Skipped>,
    pub throughput: Option<Summary>,
    pub tpot: Option<Summary>,
    pub ttft: Option<Summary>,
}

fn summarise(values: impl Iterator<Item = Comparison>) -> Option<Summary> {
    let comparisons: Vec<Comparison> = values.collect();
    if comparisons.is_empty() {
        return None;
    }
    let mut abs: Vec<f64> = comparisons.iter().map(|c| c.error.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let quantile = |q: f64| {
        let position = q * (abs.len() as f64 - 1.0);
        let low = position.floor() as usize;
        let high = position.ceil() as usize;
        let a = abs.get(low).copied().unwrap_or(0.0);
        let b = abs.get(high).copied().unwrap_or(a);
        a + (b - a) * (position - low as f64)
    };
    let log_mean = comparisons
        .iter()
        .map(|c| (c.predicted / c.measured).ln())
        .sum::<f64>()
        / comparisons.len() as f64;
    Some(Summary {
        rows: comparisons.len(),
        median_abs_error: quantile(0.5),
        p80_abs_error: quantile(0.8),
        geometric_bias: log_mean.exp(),
    })
}

/// Run every row of a measurements CSV. `overrides` apply to every row (for calibration runs).
pub fn validate(text: &str, overrides: &EfficiencyOverrides) -> Result<Report, String> {
    let records = csv::parse_records(text).map_err(|e| e.to_string())?;
    Ok(validate_records(&records, overrides))
}

/// Run already-parsed measurement rows, each under its engine's shipped profile.
pub fn validate_records(records: &[Record], overrides: &EfficiencyOverrides) -> Report {
    validate_with(records, overrides, |_| None)
}

/// Run rows with the profile knobs `knobs_of` gives each row (`None`: the shipped profile);
/// `overrides` still win over them (calibration and cross-validation).
pub fn validate_with(
    records: &[Record],
    overrides: &EfficiencyOverrides,
    knobs_of: impl Fn(&Record) -> Option<ProfileKnobs>,
) -> Report {
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for record in records {
        match run_row(record, overrides, knobs_of(record)) {
            Ok(row) => rows.push(row),
            Err(reason) => skipped.push(Skipped {
                id: csv::text(record, "id").to_string(),
                reason,
            }),
        }
    }
    Report {
        throughput: summarise(rows.iter().filter_map(|r| r.throughput)),
        tpot: summarise(rows.iter().filter_map(|r| r.tpot)),
        ttft: summarise(rows.iter().filter_map(|r| r.ttft)),
        rows,
        skipped,
    }
}

/// Summaries of a set of row results (used by cross-validation).
pub fn summarise_rows(rows: Vec<RowResult>) -> Report {
    Report {
        throughput: summarise(rows.iter().filter_map(|r| r.throughput)),
        tpot: summarise(rows.iter().filter_map(|r| r.tpot)),
        ttft: summarise(rows.iter().filter_map(|r| r.ttft)),
        rows,
        skipped: Vec::new(),
    }
}

/// The engine a row ran (`generic` when the cell is blank).
pub fn row_engine(record: &Record) -> String {
    match csv::text(record, "engine").trim() {
        "" => engine::GENERIC.to_string(),
        name => name.to_ascii_lowercase(),
    }
}

/// How a row's engine was set up (`deployment` column; blank reads `tuned`, the class of every
/// row before the column existed); `None` for any other word.
pub fn row_deployment(record: &Record) -> Option<Deployment> {
    match csv::text(record, crate::scenario::fields::DEPLOYMENT.key).trim() {
        "" => Some(Deployment::Tuned),
        word => Deployment::parse(word),
    }
}

/// A row's words on how it was measured: its `length_note` and `notes`.
fn described(record: &Record) -> String {
    format!(
        "{} {}",
        csv::text(record, "length_note"),
        csv::text(record, "notes")
    )
}

/// The `--num-prompts N` a row's notes state (the benchmark client's flag), if any.
pub fn stated_prompts(record: &Record) -> Option<f64> {
    let notes = described(record);
    let (_, after) = notes.split_once("--num-prompts")?;
    let digits: String = after
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<f64>().ok().filter(|n| *n >= 1.0)
}

/// Whether a row's lengths are a chat dataset's (ShareGPT, lengths as the dataset has them):
/// its notes name ShareGPT. Such rows run lognormal lengths with the chat preset's spreads.
fn chat_dataset(record: &Record) -> bool {
    described(record).contains("ShareGPT")
}

/// The serving-benchmark source families (the row id's publication prefix): their rows ran
/// through an API server and a benchmark client at every mode, `batch1` included.
const SERVING_BENCHMARKS: [&str; 3] = ["IX", "GPS", "DTV"];

/// The software stack of a row's GPU (`None` for a GPU the catalog does not have).
pub fn row_stack(record: &Record) -> Option<Stack> {
    let catalog = crate::catalog::catalog().ok()?;
    let gpu = catalog.gpu(csv::text(record, "gpu_id"))?;
    Some(Stack::of_vendor(&gpu.vendor))
}

/// How a row's numbers were measured: `(protocol, server overhead ms)`; `None` keeps the
/// profile's overhead (see the module doc).
fn harness(record: &Record, mode: &str) -> (Protocol, Option<f64>) {
    let publication = crate::calibration::profiles::publication(csv::text(record, "id"));
    if csv::text(record, "source").contains("InferenceX")
        || SERVING_BENCHMARKS.contains(&publication)
    {
        (Protocol::Benchmark, None)
    } else if matches!(mode, "offline" | "batch1" | "static_batch") {
        (Protocol::Steady, Some(0.0))
    } else {
        (Protocol::Benchmark, None)
    }
}

/// Predict one row at the operating point its mode names and compare with what it measured.
fn run_row(
    record: &Record,
    overrides: &EfficiencyOverrides,
    knobs: Option<ProfileKnobs>,
) -> Result<RowResult, String> {
    let id = csv::text(record, "id").to_string();
    let mode = csv::text(record, "mode").to_string();
    let engine = row_engine(record);
    let mut notes = Vec::new();
    let stated = Stated::read(record, &mode, &mut notes)?;
    let harness = Harness::of(record, &mode, overrides, knobs, &mut notes);
    // One wave: every prompt at once (a burst), replayed in the simulator.
    let burst = match (harness.num_prompts, stated.concurrency) {
        (Some(n), Some(c)) => n <= c && n > 1.0,
        _ => false,
    };
    if harness.protocol == Protocol::Benchmark {
        notes.push(benchmark_note(harness.num_prompts));
    }
    let input = row_input(record, &mode, &engine, &stated, harness)?;
    let scenario = Scenario::try_from(input).map_err(|e| format!("scenario rejected: {e}"))?;
    if stated.kv_precision.is_none()
        && scenario.kv_precision != crate::physics::precision::KvPrecision::Bf16
    {
        notes.push(format!(
            "KV {} assumed (the {engine} profile's rule for {} weights)",
            scenario.kv_precision.id().to_ascii_uppercase(),
            stated.precision.id()
        ));
    }
    if knobs.is_none() {
        notes.push(profile_note(&scenario.profile));
    }
    if mode == "server" {
        if let Some(rate) = csv::number(record, "target_qps")? {
            return server_row(record, id, mode, scenario, rate, notes);
        }
    }
    if burst {
        return burst_row(record, id, mode, scenario, notes);
    }
    let scenario = operating_scenario(record, &mode, stated.concurrency, scenario, &mut notes)?;
    compare_row(record, id, mode, &scenario, notes)
}

/// What a row states about its configuration, read once (in the order its errors are named).
struct Stated {
    input_len: f64,
    output_len: f64,
    gpus: f64,
    precision: Precision,
    /// The KV cell; blank is the engine's choice (`None`, `auto`).
    kv_precision: Option<KvPrecision>,
    tp: Option<f64>,
    ep: Option<f64>,
    deployment: Deployment,
    /// The closed-loop concurrency (`None` for `offline` and `server` rows).
    concurrency: Option<f64>,
}

impl Stated {
    /// Read a row's configuration; notes attention data parallelism (EP over TP).
    fn read(record: &Record, mode: &str, notes: &mut Vec<String>) -> Result<Stated, String> {
        let number = |column: &str| csv::number(record, column);
        let input_len = number("input_len")?.ok_or("input length not stated by the source")?;
        let output_len = number("output_len")?.ok_or("output length not stated by the source")?;
        let gpus = number("num_gpus")?.ok_or("num_gpus missing")?;
        let precision = match csv::text(record, "precision") {
            "" => return Err("precision not stated by the source".into()),
            text => Precision::parse(text).ok_or_else(|| Precision::not_one_of(text))?,
        };
        let kv_precision = match csv::text(record, "kv_precision") {
            "" => None,
            text => <Option<KvPrecision>>::parse(text)
                .ok_or_else(|| <Option<KvPrecision>>::not_one_of(text))?,
        };
        let tp = number("tp")?;
        let ep = number("ep")?;
        if let (Some(tp), Some(ep)) = (tp, ep) {
            if ep > tp {
                notes.push(format!(
                    "EP {ep} over TP {tp}: attention data-parallel {:.0} ranks, experts over EP {ep}",
                    ep / tp
                ));
            }
        }
        let deployment = row_deployment(record).ok_or("deployment is neither tuned nor stock")?;
        let concurrency = match mode {
            "offline" | "server" => None,
            "concurrency" | "batch1" | "static_batch" => {
                Some(number("concurrency")?.ok_or("concurrency not stated")?)
            }
            other => return Err(format!("unknown mode `{other}`")),
        };
        Ok(Stated {
            input_len,
            output_len,
            gpus,
            precision,
            kv_precision,
            tp,
            ep,
            deployment,
            concurrency,
        })
    }
}

/// How a row is run: its protocol and prompt count, server overhead, efficiency knobs and
/// length distribution (module doc).
struct Harness {
    protocol: Protocol,
    num_prompts: Option<f64>,
    server_overhead_ms: Option<f64>,
    efficiency: EfficiencyOverrides,
    length_dist: LengthDist,
    input_sigma: f64,
    output_sigma: f64,
}

impl Harness {
    /// A row's harness under `knobs` (`overrides` win over them); notes chat-dataset lengths.
    fn of(
        record: &Record,
        mode: &str,
        overrides: &EfficiencyOverrides,
        knobs: Option<ProfileKnobs>,
        notes: &mut Vec<String>,
    ) -> Harness {
        let (protocol, in_process) = harness(record, mode);
        let server_overhead_ms = in_process.or(knobs.map(|k| k.server_overhead_ms));
        let efficiency = match knobs {
            Some(k) => EfficiencyOverrides {
                eta_mem: overrides.eta_mem.or(Some(k.eta_mem)),
                eta_compute: overrides.eta_compute.or(Some(k.eta_compute)),
                step_overhead_ms: overrides.step_overhead_ms.or(Some(k.step_overhead_ms)),
                layer_overhead_us: overrides.layer_overhead_us.or(Some(k.layer_overhead_us)),
                ..overrides.clone()
            },
            None => overrides.clone(),
        };
        let num_prompts = if protocol == Protocol::Benchmark {
            stated_prompts(record)
        } else {
            None
        };
        let (length_dist, input_sigma, output_sigma) = if chat_dataset(record) {
            let (si, so) = crate::scenario::chat_sigmas();
            notes.push(format!(
                "chat-dataset lengths: lognormal σ {si} / {so} about the row's means"
            ));
            (LengthDist::Lognormal, si, so)
        } else {
            (LengthDist::Fixed, 0.0, 0.0)
        };
        Harness {
            protocol,
            num_prompts,
            server_overhead_ms,
            efficiency,
            length_dist,
            input_sigma,
            output_sigma,
        }
    }
}

/// The note saying how a benchmark-protocol row's prompts arrive.
fn benchmark_note(num_prompts: Option<f64>) -> String {
    match num_prompts {
        Some(n) => format!(
            "benchmark protocol: concurrency requests at once, {n:.0} in all (the notes' --num-prompts)"
        ),
        None => "benchmark protocol: concurrency requests at once, 10 x concurrency in all".into(),
    }
}

/// The scenario input of a row: its configuration under its harness, at the engine's default
/// limits for its deployment and GPU (a static batch's limits raised to hold the batch).
fn row_input(
    record: &Record,
    mode: &str,
    engine: &str,
    stated: &Stated,
    harness: Harness,
) -> Result<ScenarioInput, String> {
    let (max_num_seqs, chunk_tokens) = row_limits(record, engine, stated.deployment);
    let static_batch = mode == "static_batch";
    Ok(ScenarioInput {
        protocol: harness.protocol,
        num_prompts: harness.num_prompts,
        deployment: stated.deployment,
        server_overhead_ms: harness.server_overhead_ms,
        model: csv::text(record, "model_id").to_string(),
        gpu: csv::text(record, "gpu_id").to_string(),
        gpu_count: stated.gpus,
        tp: stated.tp,
        pp: csv::number(record, "pp")?,
        ep: stated.ep,
        precision: stated.precision,
        // A blank KV cell is the engine's choice: the scenario's `auto` rule
        // (`engine::kv_when_unstated`).
        kv_precision: stated.kv_precision,
        input_len: stated.input_len,
        output_len: stated.output_len,
        input_sigma: harness.input_sigma,
        output_sigma: harness.output_sigma,
        prefix_hit: 0.0,
        usd_per_gpu_hour: Some(1.0),
        concurrency: stated.concurrency.unwrap_or(1.0),
        engine: engine.to_string(),
        max_num_seqs: Some(if static_batch {
            max_num_seqs.max(stated.concurrency.unwrap_or(1.0))
        } else {
            max_num_seqs
        }),
        chunk_tokens: Some(if static_batch {
            chunk_tokens.max(stated.input_len)
        } else {
            chunk_tokens
        }),
        batching: if static_batch {
            Batching::Static
        } else {
            Batching::Continuous
        },
        length_dist: harness.length_dist,
        efficiency: harness.efficiency,
        ..ScenarioInput::default()
    })
}

/// The engine's default `(max_num_seqs, chunk_tokens)` for a row's deployment and GPU (the
/// scenario's defaults where the engine names none).
fn row_limits(record: &Record, engine: &str, deployment: Deployment) -> (f64, f64) {
    let gpu_memory_gb = crate::catalog::catalog()
        .ok()
        .and_then(|c| c.gpu(csv::text(record, "gpu_id")).map(|g| g.memory_gb))
        .unwrap_or(0.0);
    let (max_num_seqs, chunk_tokens) = engine::engine_limits(
        engine,
        deployment,
        csv::text(record, "gpu_id"),
        gpu_memory_gb,
    )
    .map_or((DEFAULT_MAX_NUM_SEQS, DEFAULT_CHUNK_TOKENS), |limits| {
        limits
    });
    (f64::from(max_num_seqs), f64::from(chunk_tokens))
}

/// The note naming the engine profile a row ran under and its basis.
fn profile_note(p: &engine::Resolved) -> String {
    format!(
        "profile: {} on {} ({}, {} rows)",
        p.engine,
        p.stack.name(),
        match p.basis {
            engine::Basis::Fitted => "fitted",
            engine::Basis::ServerFitted => "its server overhead fitted, the rest generic",
            engine::Basis::StackGeneric => "the stack's generic profile",
            engine::Basis::Prior => "prior",
            engine::Basis::StockShifted => "tuned, shifted to stock",
            engine::Basis::TunedOnly => "tuned (no stock profile)",
        },
        p.rows
    )
}

/// The scenario at the row's operating point: its concurrency as stated; a server row without
/// an arrival rate at the SLO mode's point; otherwise (offline) the largest concurrency that fits.
fn operating_scenario(
    record: &Record,
    mode: &str,
    concurrency: Option<f64>,
    scenario: Scenario,
    notes: &mut Vec<String>,
) -> Result<Scenario, String> {
    Ok(match concurrency {
        None if mode == "server" => {
            // Server rows without an arrival rate: the SLO mode (MLPerf SLOs are 99th
            // percentiles) picks the highest-throughput concurrency meeting them, simulated.
            let ttft_ms =
                csv::number(record, "slo_ttft_ms")?.ok_or("server row without slo_ttft_ms")?;
            let tpot_ms =
                csv::number(record, "slo_tpot_ms")?.ok_or("server row without slo_tpot_ms")?;
            let slo = crate::scenario::Slo {
                ttft_ms,
                tpot_ms,
                percentile: 99.0,
            };
            notes.push(format!(
                "SLO mode: P99 TTFT <= {ttft_ms} ms, TPOT <= {tpot_ms} ms (simulated)"
            ));
            match crate::decide::slo_sim::best_point_meeting_simulated(&scenario, &slo) {
                Some((point, _)) => scenario.with_concurrency(point.concurrency),
                None => return Err("no concurrency meets the row's SLO in simulation".into()),
            }
        }
        None => {
            let c = crate::model::capacity::max_feasible(&scenario);
            scenario.with_concurrency(c)
        }
        Some(_) => scenario,
    })
}

/// The model's prediction at `scenario` against the row's measured throughput, TPOT and TTFT.
fn compare_row(
    record: &Record,
    id: String,
    mode: String,
    scenario: &Scenario,
    mut notes: Vec<String>,
) -> Result<RowResult, String> {
    let point = evaluate(scenario);
    if !point.fits {
        notes.push(format!(
            "the measured concurrency does not fit our KV estimate ({} fit)",
            point.max_concurrency
        ));
    }
    let measured_tok_s = csv::number(record, "output_tok_s_total")?;
    let tpot = csv::number(record, "tpot_ms")?;
    let ttft = csv::number(record, "ttft_ms")?;
    // A benchmark prints tokens over the run's duration and per-request means.
    let (tok_s, tpot_ms) = match &point.benchmark {
        Some(b) => (b.output_tok_s, b.mean_tpot_ms),
        None => (point.output_tok_s, point.tpot_ms),
    };
    Ok(RowResult {
        id,
        model: scenario.model.id.clone(),
        gpu: scenario.gpu.id.clone(),
        gpus: scenario.gpu_count,
        mode,
        concurrency: point.concurrency,
        class: Class::of(scenario, &point),
        throughput: measured_tok_s.and_then(|m| Comparison::new(tok_s, m)),
        tpot: tpot.and_then(|m| Comparison::new(tpot_ms, m)),
        ttft: ttft.and_then(|m| Comparison::new(point.ttft_ms, m)),
        notes,
    })
}

/// A server row with a target arrival rate: simulate Poisson arrivals at that rate (MLPerf Server
/// uses Poisson query arrivals) and compare the simulated throughput and mean latencies.
fn server_row(
    record: &Record,
    id: String,
    mode: String,
    scenario: Scenario,
    rate_per_s: f64,
    notes: Vec<String>,
) -> Result<RowResult, String> {
    let config = crate::sim::SimConfig {
        arrivals: crate::sim::Arrivals::Poisson { rate_per_s },
        // Enough requests that even an overloaded run keeps a long steady-state window.
        requests: 20_000,
        seed: crate::decide::slo_sim::SLO_SIM_SEED,
        ..crate::sim::SimConfig::default()
    };
    let what =
        format!("Poisson arrivals at {rate_per_s} req/s, simulated (20000 requests, seed 1)");
    // MLPerf reports the mean over tokens; the class is the analytic point's at the simulated
    // concurrency.
    simulated_row(
        record,
        (id, mode),
        &scenario,
        &config,
        what,
        |result| {
            (
                result.mean_batch.round().max(0.0) as u32,
                result.tpot_token_mean_ms,
            )
        },
        notes,
    )
}

/// A burst (one wave of `N = C` prompts): the benchmark replayed in the simulator (the same
/// fixed seed as the SLO checks), compared with its throughput over the run and its per-request
/// mean TTFT and TPOT, as `vllm bench serve` prints them.
fn burst_row(
    record: &Record,
    id: String,
    mode: String,
    scenario: Scenario,
    notes: Vec<String>,
) -> Result<RowResult, String> {
    let prompts = scenario.benchmark_prompts();
    let config = crate::sim::SimConfig {
        arrivals: crate::sim::Arrivals::Closed {
            concurrency: scenario.concurrency,
        },
        requests: prompts,
        seed: crate::decide::slo_sim::SLO_SIM_SEED,
        protocol: crate::scenario::Protocol::Benchmark,
        ..crate::sim::SimConfig::default()
    };
    let what = format!(
        "burst of {prompts} prompts replayed in the simulator (seed {})",
        config.seed
    );
    let concurrency = scenario.concurrency;
    simulated_row(
        record,
        (id, mode),
        &scenario,
        &config,
        what,
        |result| (concurrency, result.tpot.mean_ms),
        notes,
    )
}

/// A row run in the simulator under `config`, compared with the run's output tok/s, mean TTFT
/// and the TPOT `pick` chooses (with the concurrency the row's class is read at).
fn simulated_row(
    record: &Record,
    (id, mode): (String, String),
    scenario: &Scenario,
    config: &crate::sim::SimConfig,
    what: String,
    pick: impl Fn(&crate::sim::SimResult) -> (u32, f64),
    mut notes: Vec<String>,
) -> Result<RowResult, String> {
    let result =
        crate::sim::simulate(scenario, config).map_err(|e| format!("simulation rejected: {e}"))?;
    notes.push(what);
    if result.truncated.is_some() || result.low_confidence {
        notes.push("low-confidence simulation".into());
    }
    let number = |column: &str| csv::number(record, column);
    let (concurrency, tpot_ms) = pick(&result);
    let class = Class::of(
        scenario,
        &evaluate(&scenario.with_concurrency(concurrency.max(1))),
    );
    Ok(RowResult {
        id,
        model: scenario.model.id.clone(),
        gpu: scenario.gpu.id.clone(),
        gpus: scenario.gpu_count,
        mode,
        concurrency,
        class,
        throughput: number("output_tok_s_total")?
            .and_then(|m| Comparison::new(result.output_tok_s, m)),
        tpot: number("tpot_ms")?.and_then(|m| Comparison::new(tpot_ms, m)),
        ttft: number("ttft_ms")?.and_then(|m| Comparison::new(result.ttft.mean_ms, m)),
        notes,
    })
}

/// The report as the plain-text table `servecost validate` prints.
pub fn render(report: &Report) -> String {
    let cell = |c: &Option<Comparison>| match c {
        Some(c) => format!(
            "{:>9.1} {:>9.1} {:>+6.0}%",
            c.predicted,
            c.measured,
            c.error * 100.0
        ),
        None => format!("{:>9} {:>9} {:>7}", "", "", ""),
    };
    let mut out = format!(
        "{:<9} {:<15} {:<14} {:>4} {:<12} {:>5} | {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7}\n",
        "id", "model", "gpu", "gpus", "mode", "conc", "tok/s", "measured", "err", "TPOT ms", "measured", "err", "TTFT ms", "measured", "err"
    );
    for r in &report.rows {
        out.push_str(&format!(
            "{:<9} {:<15} {:<14} {:>4} {:<12} {:>5} | {} | {} | {}\n",
            r.id,
            r.model,
            r.gpu,
            r.gpus,
            r.mode,
            r.concurrency,
            cell(&r.throughput),
            cell(&r.tpot),
            cell(&r.ttft)
        ));
        for note in &r.notes {
            out.push_str(&format!("          note: {note}\n"));
        }
    }
    out.push_str("\nSkipped rows\n");
    for s in &report.skipped {
        out.push_str(&format!("  {:<9} {}\n", s.id, s.reason));
    }
    out.push_str(
        "\nSummary (absolute relative error; bias = geometric mean of predicted/measured)\n",
    );
    for (name, summary) in [
        ("output tok/s", &report.throughput),
        ("TPOT", &report.tpot),
        ("TTFT", &report.ttft),
    ] {
        match summary {
            Some(s) => out.push_str(&format!(
                "  {:<13} rows {:>3}   median {:>5.1}%   p80 {:>5.1}%   bias {:.3}\n",
                name,
                s.rows,
                s.median_abs_error * 100.0,
                s.p80_abs_error * 100.0,
                s.geometric_bias
            )),
            None => out.push_str(&format!("  {name:<13} no rows\n")),
        }
    }
    out
}
