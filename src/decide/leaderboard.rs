//! The hardware leaderboard: for one model and workload, every catalog GPU × weight precision ×
//! replica layout that fits, each at a fixed interactivity (output tokens/s each user sees, or a
//! mean TPOT target), ranked by $/M output tokens, with the `estimate` command that reproduces
//! every row.
//!
//! For each GPU × precision the GPU runs (`precisions`) the replica layouts tried are
//! (`layouts`): TP over 1, 2, 4 and 8 GPUs (`plan::TP_CHOICES`, one node), and for an MoE model
//! also EP inside the TP group (`--tp N --ep N`) and DEP N (`--tp 1 --ep N`: attention DP N with
//! experts over EP N, `Parallelism::dep`); only when nothing fits on one node, 16, 32 and 64 GPUs
//! as TP 8 × PP (and DEP for MoE). Each layout's curve is swept (`model::pareto::sweep`) and the
//! row is the **highest-throughput curve point meeting the target** — an actual grid
//! concurrency, not an interpolation — so `servecost estimate … --concurrency C` at the row's
//! concurrency gives the row's numbers exactly (MODEL.md §4.5: x = tokens/s per user, y =
//! output tokens/s per GPU; the target is a vertical line on that chart).
//!
//! Prices are the catalog's typical rental price per GPU (`ScenarioInput::usd_per_gpu_hour =
//! None`); a GPU without one keeps its row with `usd_per_m_output = None` and ranks after every
//! priced row, by throughput. The best layout per GPU × precision is kept (all with
//! `all_layouts`). FP4 and INT4 rows carry `quality_caveat`: below 8 bits, accuracy depends on
//! the checkpoint and should be checked on the task.
//!
//! **Disaggregated rows** (issue 14 §2): for every GPU × precision that fits on one node, the
//! xPyD units that fill one node (`plan_disagg::unit_shapes` with `x·t_p + y·t_d = 8`: x
//! prefill replicas of TP t_p and y decode replicas of TP t_d, the KV hand-off on NVLink) are
//! swept the same way, and the best is a row of its own marked `serving = disaggregated` with
//! its pools (`3P5D`), so the board shows where disaggregation pays at this target. Its
//! `estimate` command carries `--serving disaggregated` and the pool flags. The base's
//! `serving` text picks the search as `plan --serving` does (`aggregated`, `disaggregated`,
//! `any`); the CLI and the page search both unless told otherwise.
//!
//! A request as given (`LeaderboardInput`) is checked once by `LeaderboardRequest::try_from`,
//! whose error names the field as the flag does (`tok-s-per-user`, `slo-tpot-ms`).

use crate::catalog::{catalog, Arch, Gpu};
use crate::choice::Choice;
use crate::decide::plan::TP_CHOICES;
use crate::decide::plan_disagg::{
    pools_of, unit_input, unit_shapes, PlanPools, ServingSearch, UNIT_GPUS,
};
use crate::model::{sweep, CurvePoint};
use crate::physics::parallelism::Parallelism;
use crate::physics::precision::Precision;
use crate::scenario::fields::{
    Field, CONCURRENCY, CUSTOM_MODEL, CUSTOM_MODEL_VALUE, FIELDS, GPU, INPUT_LEN, MODEL,
    OUTPUT_LEN, SLO_TPOT_MS, TOK_S_PER_USER, TTFT_CEILING_MS,
};
use crate::scenario::pools::Serving;
use crate::scenario::{Scenario, ScenarioError, ScenarioInput};
use serde::Serialize;

/// The interactivity target when none is given: 50 output tokens/s per user (20 ms TPOT).
pub const DEFAULT_TOK_S_PER_USER: f64 = 50.0;

/// The percentile the TTFT ceiling holds at when none is given: the decision inputs' default
/// SLO percentile (P90, as InferenceX reports interactivity).
pub const DEFAULT_TTFT_PERCENTILE: f64 = 90.0;

/// TTFT at `percentile` of a curve point: the analytic tail (`model::slo::tail_estimate`) of
/// the scenario evaluated there.
fn ttft_tail(scenario: &Scenario, point: &CurvePoint, percentile: f64) -> f64 {
    let at = scenario.with_concurrency(point.concurrency);
    let evaluated = crate::model::evaluate(&at);
    crate::model::slo::tail_estimate(&at, &evaluated, percentile).ttft_ms
}

/// The TTFT ceiling when none is given (issue 26 §3): a row's point must have its TTFT at the
/// ceiling's percentile (P90 by default) at most 2 s, MLPerf Inference's server TTFT limit for Llama 2 70B and Mixtral (`measurements.csv`
/// README, `slo_ttft_ms`), so a point that only reaches its throughput by queueing prefill for
/// seconds (a disaggregated unit past its prefill pool's capacity, a batch beyond the token
/// budget) is never ranked. A mean, the analytic model's; the simulator's tails are the plan's.
pub const DEFAULT_TTFT_CEILING_MS: f64 = 2000.0;
/// GPUs per replica tried only when a GPU × precision fits on no single node (`TP_CHOICES`).
pub const MULTI_NODE_GPUS: [u32; 3] = [16, 32, 64];
/// GPUs of one node: the widest tensor-parallel group a multi-node layout uses (TP 8 × PP).
const NODE_GPUS: u32 = 8;

/// The interactivity a row must reach.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// Output tokens/s per user ≥ this (`OperatingPoint::tok_s_per_user` = 1000 / TPOT ms).
    TokSPerUser(f64),
    /// Mean TPOT ≤ this many ms (the curve's TPOT, not a percentile tail: `plan` does tails).
    TpotMs(f64),
}

impl Target {
    /// Whether a curve point meets the target.
    pub fn met_by(self, point: &CurvePoint) -> bool {
        match self {
            Target::TokSPerUser(x) => point.tok_s_per_user >= x,
            Target::TpotMs(y) => point.tpot_ms <= y,
        }
    }

    /// "≥ 50 tok/s per user", "TPOT ≤ 20 ms".
    pub fn text(self) -> String {
        match self {
            Target::TokSPerUser(x) => format!("≥ {x} tok/s per user"),
            Target::TpotMs(y) => format!("mean TPOT ≤ {y} ms"),
        }
    }
}

/// A leaderboard request as given, nothing checked yet (parse, don't validate).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeaderboardInput {
    /// Model, workload, engine and technique settings; GPU, count, layout, precision, price and
    /// concurrency are searched or picked.
    pub base: ScenarioInput,
    /// At most one of the two targets; neither is `DEFAULT_TOK_S_PER_USER`.
    pub tok_s_per_user: Option<f64>,
    pub slo_tpot_ms: Option<f64>,
    /// TTFT at `ttft_percentile` a row's point may not exceed; `None` =
    /// `DEFAULT_TTFT_CEILING_MS`.
    pub ttft_ceiling_ms: Option<f64>,
    /// The percentile the ceiling holds at (the decision inputs' SLO percentile); `None` = 90.
    pub ttft_percentile: Option<f64>,
    /// GPU ids; empty = every catalog GPU with a complete spec.
    pub gpus_allowed: Vec<String>,
    /// Every fitting layout, not only the best per GPU × precision.
    pub all_layouts: bool,
    /// Aggregated layouts, disaggregated units or both.
    pub serving: ServingSearch,
}

/// What to rank, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderboardRequest {
    pub base: ScenarioInput,
    pub target: Target,
    /// TTFT at `ttft_percentile` a row's point may not exceed, ms.
    pub ttft_ceiling_ms: f64,
    /// The percentile of TTFT the ceiling holds at (the analytic tail, `model::slo`).
    pub ttft_percentile: f64,
    pub gpus_allowed: Vec<String>,
    pub all_layouts: bool,
    /// Aggregated layouts, disaggregated units or both.
    pub serving: ServingSearch,
}

impl TryFrom<LeaderboardInput> for LeaderboardRequest {
    type Error = ScenarioError;

    /// Checks the target: one of the two, in its field's range. The base scenario is checked
    /// per configuration (`Scenario::try_from`), GPU ids when the catalog is read.
    fn try_from(input: LeaderboardInput) -> Result<LeaderboardRequest, ScenarioError> {
        let target = match (input.tok_s_per_user, input.slo_tpot_ms) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError {
                    field: TOK_S_PER_USER.key.into(),
                    message: format!(
                        "give one target: --{} X or --{} Y, not both",
                        TOK_S_PER_USER.key, SLO_TPOT_MS.key
                    ),
                })
            }
            (Some(x), None) => Target::TokSPerUser(positive(&TOK_S_PER_USER, x)?),
            (None, Some(y)) => Target::TpotMs(positive(&SLO_TPOT_MS, y)?),
            (None, None) => Target::TokSPerUser(DEFAULT_TOK_S_PER_USER),
        };
        let ttft_ceiling_ms = match input.ttft_ceiling_ms {
            Some(ceiling) => positive(&TTFT_CEILING_MS, ceiling)?,
            None => DEFAULT_TTFT_CEILING_MS,
        };
        let ttft_percentile = match input.ttft_percentile {
            Some(p) => crate::scenario::fields::SLO_PERCENTILE.real(p)?,
            None => DEFAULT_TTFT_PERCENTILE,
        };
        Ok(LeaderboardRequest {
            serving: input.serving,
            base: input.base,
            target,
            ttft_ceiling_ms,
            ttft_percentile,
            gpus_allowed: input.gpus_allowed,
            all_layouts: input.all_layouts,
        })
    }
}

fn positive(field: &Field, value: f64) -> Result<f64, ScenarioError> {
    let value = field.real(value)?;
    if value > 0.0 && value.is_finite() {
        Ok(value)
    } else {
        Err(ScenarioError {
            field: field.key.into(),
            message: format!("must be positive (got {value})"),
        })
    }
}

/// One configuration at the target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub gpu: String,
    pub gpu_name: String,
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub precision: Precision,
    /// FP4 or INT4 weights: accuracy depends on the checkpoint.
    pub quality_caveat: bool,
    /// GPUs of one replica (the scenario's GPU count).
    pub gpus: u32,
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    pub dp_attention: u32,
    /// "TP 8", "TP 8 × EP 8", "DEP 8", "TP 8 × PP 2"; disaggregated "P TP 2 + D TP 1".
    pub layout: String,
    /// Aggregated or disaggregated (then `pools` says how: an xPyD unit).
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub serving: Serving,
    #[serde(flatten)]
    pub pools: Option<PlanPools>,
    /// Requests in flight on the replica (a disaggregated unit: across both pools): a grid
    /// concurrency of the swept curve.
    pub concurrency: u32,
    pub output_tok_s_per_gpu: f64,
    pub tok_s_per_user: f64,
    pub tpot_ms: f64,
    pub ttft_ms: f64,
    /// TTFT at the request's percentile (the analytic tail the ceiling is checked on).
    pub ttft_tail_ms: f64,
    /// The catalog's typical rental price; `None`: no price, the row ranks by throughput.
    pub usd_per_gpu_hour: Option<f64>,
    /// All-in $/M output tokens at this point (`physics::cost`), `None` without a price.
    pub usd_per_m_output: Option<f64>,
    /// Its range within the expected throughput error of the row's class (issue 26 §7,
    /// `expected_error::Class::usd_per_m_range`), as (low, high).
    pub usd_per_m_output_range: Option<(f64, f64)>,
    /// The scenario of the row at its concurrency: what `estimate` and the page's Load take.
    #[serde(skip)]
    pub input: ScenarioInput,
}

/// A GPU × precision with no row, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Missed {
    pub gpu: String,
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub precision: Precision,
    pub reason: String,
}

/// A catalog GPU left out of a search over the whole catalog.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub gpu: String,
    pub reason: String,
}

/// The ranked rows and what had none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Leaderboard {
    pub target: Target,
    pub rows: Vec<Row>,
    pub missed: Vec<Missed>,
    pub skipped: Vec<Skipped>,
    /// Layouts swept (GPU × precision × GPUs × layout that fit).
    pub searched: usize,
}

/// One GPU × precision's outcome (`rows_for`).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub rows: Vec<Row>,
    pub missed: Option<Missed>,
    pub searched: usize,
}

/// The precisions `gpu` runs: BF16; FP8 and FP4 where it has tensor cores for them (a
/// fallback to weight-only would rank a format the GPU does not support natively); INT4
/// weight-only (W4A16 kernels, at the BF16 peak: `precision::gemm_mode`) everywhere.
pub fn precisions(gpu: &Gpu) -> Vec<Precision> {
    let native = |peak: Option<f64>| peak.is_some_and(|p| p > 0.0);
    let mut out = vec![Precision::Bf16];
    if native(gpu.fp8_tflops) {
        out.push(Precision::Fp8);
    }
    if native(gpu.fp4_tflops) {
        out.push(Precision::Fp4);
    }
    out.push(Precision::Int4);
    out
}

/// The layouts of a replica of `gpus` GPUs: TP (TP 8 × PP beyond a node), and for an MoE
/// model also EP inside the TP group and DEP (MODEL.md §2.8).
pub fn layouts(gpus: u32, moe: bool) -> Vec<Parallelism> {
    let mut out = Vec::new();
    if gpus <= NODE_GPUS {
        out.push(Parallelism::tensor(gpus));
        if moe && gpus > 1 {
            out.push(Parallelism {
                ep: gpus,
                ..Parallelism::tensor(gpus)
            });
        }
    } else {
        out.push(Parallelism {
            pp: gpus / NODE_GPUS,
            ..Parallelism::tensor(NODE_GPUS)
        });
    }
    if moe && gpus > 1 {
        out.push(Parallelism::dep(gpus));
    }
    out
}

/// The replica layouts a leaderboard searches for one GPU × precision, in two tiers: first one
/// node's (`layouts` over `plan::TP_CHOICES` up to `gpus_per_node`: TP, and for an MoE model EP
/// inside the TP group and DEP), then past one node (`layouts` over `MULTI_NODE_GPUS`: TP 8 ×
/// PP, and DEP for MoE), which a search tries **only when nothing in the first tier fits**.
/// The hardware leaderboard (`rows_for`) and the agentic one (`decide::agents::agent_leaderboard`)
/// both search these, so they rank the same configurations.
pub fn layout_tiers(moe: bool, gpus_per_node: u32) -> [Vec<Parallelism>; 2] {
    let tier = |counts: &[u32]| -> Vec<Parallelism> {
        counts
            .iter()
            .flat_map(|&count| layouts(count, moe))
            .collect()
    };
    let one_node: Vec<u32> = TP_CHOICES
        .into_iter()
        .filter(|g| *g <= gpus_per_node.max(1))
        .collect();
    [tier(&one_node), tier(&MULTI_NODE_GPUS)]
}

/// "TP 8", "TP 8 × EP 8", "DEP 8", "TP 8 × PP 2".
pub fn layout_name(par: Parallelism) -> String {
    if par.dp > 1 && par.tp == 1 && par.ep == par.dp {
        return format!("DEP {}", par.dp);
    }
    let mut name = format!("TP {}", par.tp);
    if par.ep > 1 {
        name.push_str(&format!(" × EP {}", par.ep));
    }
    if par.pp > 1 {
        name.push_str(&format!(" × PP {}", par.pp));
    }
    name
}

impl Row {
    /// "$0.509 ($0.45–0.58)": the $/M and its range within the expected throughput error, or
    /// "no price".
    pub fn usd_text(&self) -> String {
        use crate::present::format::format_usd;
        match (self.usd_per_m_output, self.usd_per_m_output_range) {
            (Some(usd), Some((low, high))) => format!(
                "{} ({}–{})",
                format_usd(usd),
                format_usd(low),
                format_usd(high).trim_start_matches('$')
            ),
            (Some(usd), None) => format_usd(usd),
            (None, _) => "no price".to_string(),
        }
    }

    /// The serving mark of the table: `aggregated`, or the xPyD unit (`3P5D`).
    pub fn serving_mark(&self) -> String {
        match self.pools {
            Some(p) => format!("{}P{}D", p.prefill_replicas, p.decode_replicas),
            None => Serving::Aggregated.id().to_string(),
        }
    }
}

/// The base scenario moved to one configuration (the catalog's typical price, the concurrency
/// picked later; always aggregated). The layout fields are set as `estimate` reads them:
/// `--tp`, `--pp` and `--ep` (EP above TP is attention DP, `scenario::parallel`).
pub fn configuration(
    base: &ScenarioInput,
    gpu: &Gpu,
    precision: Precision,
    par: Parallelism,
) -> ScenarioInput {
    let above_one = |n: u32| (n > 1).then_some(f64::from(n));
    ScenarioInput {
        gpu: gpu.id.clone(),
        gpu_count: f64::from(par.gpus_per_replica()),
        tp: Some(f64::from(par.tp)),
        pp: above_one(par.pp),
        ep: above_one(par.ep),
        dp_attention: None,
        eplb_redundant_experts: if par.ep > 1 {
            base.eplb_redundant_experts
        } else {
            0.0
        },
        precision,
        usd_per_gpu_hour: None,
        ..aggregated(base)
    }
}

/// The base with serving aggregated and no pool fields.
fn aggregated(base: &ScenarioInput) -> ScenarioInput {
    ScenarioInput {
        serving: Serving::Aggregated,
        prefill_gpus: None,
        prefill_tp: None,
        prefill_ep: None,
        decode_gpus: None,
        decode_tp: None,
        decode_ep: None,
        ..base.clone()
    }
}

/// The xPyD units that fill one node, as `plan --serving` enumerates them.
fn full_node_units() -> impl Iterator<Item = (u32, u32, u32, u32)> {
    unit_shapes()
        .into_iter()
        .filter(|(x, tp_p, y, tp_d)| x * tp_p + y * tp_d == UNIT_GPUS)
}

/// Whether the base's model is a mixture of experts (a catalog model or a pasted one).
pub fn is_moe(base: &ScenarioInput) -> Result<bool, String> {
    if base.model.trim() == CUSTOM_MODEL_VALUE {
        return base
            .custom_model
            .as_ref()
            .map(|m| m.arch == Arch::Moe)
            .ok_or_else(|| "`custom` needs a custom model".to_string());
    }
    let cat = catalog()?;
    cat.model(base.model.trim())
        .map(|m| m.arch == Arch::Moe)
        .ok_or_else(|| format!("unknown model `{}`", base.model))
}

/// The GPUs to rank: the allowed list, or every catalog GPU with a complete spec (the rest
/// in `Skipped`). Errors for an unknown id or an empty list.
pub fn gpus(request: &LeaderboardRequest) -> Result<(Vec<&'static Gpu>, Vec<Skipped>), String> {
    let cat = catalog()?;
    let mut skipped = Vec::new();
    let mut chosen = Vec::new();
    if request.gpus_allowed.is_empty() {
        for gpu in &cat.gpus {
            match gpu.missing_spec() {
                None => chosen.push(gpu),
                Some(reason) => skipped.push(Skipped {
                    gpu: gpu.id.clone(),
                    reason,
                }),
            }
        }
    } else {
        for id in &request.gpus_allowed {
            chosen.push(
                cat.gpu(id.trim())
                    .ok_or_else(|| format!("unknown GPU `{id}` in the allowed list"))?,
            );
        }
    }
    if chosen.is_empty() {
        return Err("no GPU to rank".into());
    }
    Ok((chosen, skipped))
}

/// One item of work: a GPU and a precision it runs.
pub type Item = (&'static Gpu, Precision);

/// The work of one leaderboard, one item per GPU × precision, in catalog order: a caller that
/// must not block (the page) runs `rows_for` on one item per task.
pub fn work(request: &LeaderboardRequest) -> Result<(Vec<Item>, Vec<Skipped>), String> {
    let (gpus, skipped) = gpus(request)?;
    let items = gpus
        .into_iter()
        .flat_map(|gpu| precisions(gpu).into_iter().map(move |p| (gpu, p)))
        .collect();
    Ok((items, skipped))
}

/// Every layout of one GPU × precision that fits, each at its best point meeting the target;
/// only the best of them unless `all_layouts`. Multi-node counts are tried only when no
/// single-node layout fits.
pub fn rows_for(request: &LeaderboardRequest, gpu: &Gpu, precision: Precision) -> Part {
    let missed = |reason: String| Missed {
        gpu: gpu.id.clone(),
        precision,
        reason,
    };
    let moe = match is_moe(&request.base) {
        Ok(moe) => moe,
        Err(reason) => {
            return Part {
                rows: Vec::new(),
                missed: Some(missed(reason)),
                searched: 0,
            }
        }
    };
    let mut rows = Vec::new();
    let mut disaggregated = Vec::new();
    let mut searched = 0;
    let mut best_interactivity: Option<f64> = None;
    // The lowest tail TTFT of a point meeting the target, when every such point is above the
    // ceiling (the reason such a GPU × precision is listed as missed).
    let mut lowest_ttft_at_target: Option<f64> = None;
    let mut last_error = None;
    // Sweep one configuration; its best point meeting the target becomes a row.
    let mut consider = |input: ScenarioInput, rows: &mut Vec<Row>| -> bool {
        let scenario = match Scenario::try_from(input) {
            Ok(scenario) => scenario,
            Err(e) => {
                last_error = Some(e.message);
                return false;
            }
        };
        let curve = sweep(&scenario);
        let fitting = curve.points.iter().filter(|p| p.fits);
        let fastest = fitting.clone().map(|p| p.tok_s_per_user).fold(None, max);
        best_interactivity = max(best_interactivity, fastest.unwrap_or(f64::NAN));
        // Each point meeting the target with its TTFT at the ceiling's percentile (the
        // analytic tail: a mean hides the long prompts that wait for their own prefill).
        let at_target: Vec<(&CurvePoint, f64)> = fitting
            .filter(|p| request.target.met_by(p))
            .map(|p| (p, ttft_tail(&scenario, p, request.ttft_percentile)))
            .collect();
        let meeting: Vec<(&CurvePoint, f64)> = at_target
            .iter()
            .copied()
            .filter(|(_, tail)| *tail <= request.ttft_ceiling_ms)
            .collect();
        if meeting.is_empty() {
            for (_, tail) in &at_target {
                lowest_ttft_at_target =
                    Some(lowest_ttft_at_target.map_or(*tail, |low| low.min(*tail)));
            }
        }
        // Of equal throughputs the lowest concurrency: past a disaggregated unit's prefill
        // capacity the curve is flat (more requests only queue for prefill, TTFT grows).
        let top = meeting
            .iter()
            .map(|(p, _)| p.output_tok_s_per_gpu)
            .fold(f64::NEG_INFINITY, f64::max);
        let best = meeting
            .into_iter()
            .filter(|(p, _)| p.output_tok_s_per_gpu >= top * (1.0 - 1e-9))
            .min_by_key(|(p, _)| p.concurrency);
        if let Some((point, tail)) = best {
            let mut row = row(&scenario, gpu, precision, point);
            row.ttft_tail_ms = tail;
            rows.push(row);
        }
        true
    };
    let mut fits_one_node = false;
    for (node, tier) in layout_tiers(moe, NODE_GPUS).into_iter().enumerate() {
        if searched > 0 {
            break;
        }
        // Aggregated layouts; with `--serving disaggregated` only to learn whether one node
        // holds the model (then the units are tried).
        for par in tier {
            let input = configuration(&request.base, gpu, precision, par);
            let mut scratch = Vec::new();
            let target = if request.serving.aggregated() {
                &mut rows
            } else {
                &mut scratch
            };
            if consider(input, target) {
                searched += usize::from(request.serving.aggregated());
                fits_one_node |= node == 0;
            }
        }
        if node == 0 && fits_one_node && request.serving.disaggregated() {
            for shape in full_node_units() {
                let input = unit_input(&request.base, gpu, precision, None, &pools_of(shape));
                if consider(input, &mut disaggregated) {
                    searched += 1;
                }
            }
        }
    }
    let reason = match (searched, best_interactivity, lowest_ttft_at_target) {
        (0, _, _) => format!(
            "does not fit on up to {} GPUs{}",
            MULTI_NODE_GPUS.last().copied().unwrap_or(NODE_GPUS),
            last_error.map(|e| format!(": {e}")).unwrap_or_default()
        ),
        (_, _, Some(lowest)) => format!(
            "no layout meets {} with a P{} TTFT of at most {} ms (the ceiling): the lowest at the target is {lowest:.0} ms",
            request.target.text(),
            request.ttft_percentile,
            request.ttft_ceiling_ms,
        ),
        (_, Some(fastest), None) => format!(
            "no layout meets {}: the fastest reaches {:.1} tok/s per user",
            request.target.text(),
            fastest
        ),
        (_, None, None) => format!("no layout meets {}", request.target.text()),
    };
    if !request.all_layouts {
        rank(&mut rows);
        rows.truncate(1);
        rank(&mut disaggregated);
        disaggregated.truncate(1);
    }
    rows.extend(disaggregated);
    Part {
        missed: rows.is_empty().then(|| missed(reason)),
        rows,
        searched,
    }
}

fn max(a: Option<f64>, b: f64) -> Option<f64> {
    if b.is_nan() {
        return a;
    }
    Some(a.map_or(b, |a| a.max(b)))
}

fn row(scenario: &Scenario, gpu: &Gpu, precision: Precision, point: &CurvePoint) -> Row {
    let par = scenario.par;
    let pools = scenario.pools.as_deref().map(|pools| {
        let prefill = &pools.prefill;
        PlanPools {
            prefill_replicas: prefill.replicas,
            prefill_tp: prefill.par.tp,
            decode_replicas: scenario.replicas,
            decode_tp: par.tp,
            prefill_gpus: prefill.gpu_count,
            decode_gpus: scenario.gpu_count,
        }
    });
    let layout = match pools {
        Some(p) => format!("P TP {} + D TP {}", p.prefill_tp, p.decode_tp),
        None => layout_name(par),
    };
    Row {
        gpu: gpu.id.clone(),
        gpu_name: gpu.name.clone(),
        precision,
        quality_caveat: matches!(precision, Precision::Fp4 | Precision::Int4),
        gpus: scenario.total_gpus(),
        tp: par.tp,
        pp: par.pp,
        ep: par.ep,
        dp_attention: par.dp,
        layout,
        serving: if pools.is_some() {
            Serving::Disaggregated
        } else {
            Serving::Aggregated
        },
        pools,
        concurrency: point.concurrency,
        output_tok_s_per_gpu: point.output_tok_s_per_gpu,
        tok_s_per_user: point.tok_s_per_user,
        tpot_ms: point.tpot_ms,
        ttft_ms: point.ttft_ms,
        ttft_tail_ms: point.ttft_ms,
        usd_per_gpu_hour: scenario.usd_per_gpu_hour,
        usd_per_m_output: point.usd_per_m_output,
        usd_per_m_output_range: point.usd_per_m_output.and_then(|usd| {
            crate::model::expected_error::Class::at(scenario, point.regime).usd_per_m_range(usd)
        }),
        input: ScenarioInput {
            concurrency: f64::from(point.concurrency),
            ..scenario.input.clone()
        },
    }
}

/// Cheapest $/M first; rows without a price after every priced one, by throughput per GPU
/// (higher first); ties by fewer GPUs.
pub fn rank(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        let by_price = match (a.usd_per_m_output, b.usd_per_m_output) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_price
            .then(b.output_tok_s_per_gpu.total_cmp(&a.output_tok_s_per_gpu))
            .then(a.gpus.cmp(&b.gpus))
    });
}

/// Rank every GPU × precision. Errors only for a bad GPU list or an unreadable catalog.
pub fn leaderboard(request: &LeaderboardRequest) -> Result<Leaderboard, String> {
    let (items, skipped) = work(request)?;
    let mut board = Leaderboard {
        target: request.target,
        rows: Vec::new(),
        missed: Vec::new(),
        skipped,
        searched: 0,
    };
    for (gpu, precision) in items {
        board.add(rows_for(request, gpu, precision));
    }
    rank(&mut board.rows);
    Ok(board)
}

impl Leaderboard {
    /// An empty board for `target`, to fill part by part (`add`) and `rank` at the end.
    pub fn empty(target: Target, skipped: Vec<Skipped>) -> Leaderboard {
        Leaderboard {
            target,
            rows: Vec::new(),
            missed: Vec::new(),
            skipped,
            searched: 0,
        }
    }

    pub fn add(&mut self, part: Part) {
        self.rows.extend(part.rows);
        self.missed.extend(part.missed);
        self.searched += part.searched;
    }
}

/// The `servecost estimate` arguments that reproduce `input` (a row's scenario at its
/// concurrency), built from the field table: `--KEY VALUE` for the required fields (model,
/// GPU, lengths) and the concurrency, and for every other scenario field whose text differs
/// from `defaults` (the CLI's own starting inputs). A pasted model has no flag of its own:
/// the caller adds `--model-config FILE`.
pub fn estimate_args(input: &ScenarioInput, defaults: &ScenarioInput) -> Vec<String> {
    let always: [&Field; 5] = [&MODEL, &GPU, &INPUT_LEN, &OUTPUT_LEN, &CONCURRENCY];
    let custom = input.model.trim() == CUSTOM_MODEL_VALUE;
    let mut args = Vec::new();
    for field in FIELDS.iter().copied() {
        if field.derived || *field == CUSTOM_MODEL || (custom && *field == MODEL) {
            continue;
        }
        let (Some(text), Some(default)) = (field.get_scenario(input), field.get_scenario(defaults))
        else {
            continue;
        };
        if always.contains(&field) || text != default {
            args.push(format!("--{}", field.key));
            args.push(text);
        }
    }
    args
}

/// `args` as one shell line (a value with anything but plain characters single-quoted).
pub fn shell_line(program: &str, args: &[String]) -> String {
    let word = |arg: &String| {
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.,/:=+".contains(c));
        if plain {
            arg.clone()
        } else {
            format!("'{}'", arg.replace('\'', r"'\''"))
        }
    };
    std::iter::once(program.to_string())
        .chain(args.iter().map(word))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;

    fn request(model: &str, gpus: &[&str]) -> LeaderboardRequest {
        let mut base = ScenarioInput {
            model: model.into(),
            ..ScenarioInput::default()
        };
        base.apply_workload_preset("chat").expect("preset");
        LeaderboardRequest::try_from(LeaderboardInput {
            base,
            gpus_allowed: gpus.iter().map(|g| g.to_string()).collect(),
            ..LeaderboardInput::default()
        })
        .expect("valid")
    }

    /// The TTFT ceiling (issue 26 §3): every row's P90 TTFT is within it (the 2 s default, or a
    /// typed one), and a ceiling nothing meets ranks nothing, each GPU × precision missed with
    /// the ceiling and its lowest TTFT at the target in the reason.
    #[test]
    fn no_row_queues_past_the_ttft_ceiling() {
        let mut request = request("llama-3.1-70b", &["h100-sxm", "b200"]);
        request.serving = ServingSearch::Any;
        assert_eq!(request.ttft_ceiling_ms, DEFAULT_TTFT_CEILING_MS);
        let board = leaderboard(&request).expect("ranks");
        assert!(!board.rows.is_empty());
        assert_eq!(request.ttft_percentile, DEFAULT_TTFT_PERCENTILE);
        // The ceiling holds at P90: each row's tail is within it, and at least its mean.
        assert!(
            board
                .rows
                .iter()
                .all(|r| r.ttft_tail_ms <= DEFAULT_TTFT_CEILING_MS && r.ttft_tail_ms >= r.ttft_ms),
            "{:?}",
            board
                .rows
                .iter()
                .map(|r| (r.ttft_ms, r.ttft_tail_ms))
                .collect::<Vec<_>>()
        );
        let lowest = board
            .rows
            .iter()
            .map(|r| r.ttft_tail_ms)
            .fold(f64::INFINITY, f64::min);
        let tight = LeaderboardRequest {
            ttft_ceiling_ms: lowest * 0.5,
            ..request
        };
        let none = leaderboard(&tight).expect("runs");
        assert!(none.rows.is_empty(), "{:?}", none.rows);
        assert!(!none.missed.is_empty());
        for m in &none.missed {
            assert!(
                m.reason
                    .contains("(the ceiling): the lowest at the target is"),
                "{}",
                m.reason
            );
        }
        let bad = LeaderboardRequest::try_from(LeaderboardInput {
            ttft_ceiling_ms: Some(0.0),
            ..LeaderboardInput::default()
        })
        .expect_err("a zero ceiling");
        assert_eq!(bad.field, TTFT_CEILING_MS.key);
    }

    /// Every row meets the target, is the best of its GPU × precision, ranks by $/M with the
    /// unpriced after, and its scenario evaluated afresh at its concurrency gives its numbers.
    #[test]
    fn rows_meet_the_target_rank_by_price_and_reproduce() {
        let request = request("llama-3.1-8b", &["h100-sxm", "l40s", "gb200"]);
        let board = leaderboard(&request).expect("ranks");
        assert_eq!(board.target, Target::TokSPerUser(DEFAULT_TOK_S_PER_USER));
        assert!(board.rows.len() >= 5, "{:?}", board.rows);
        let mut seen = std::collections::BTreeSet::new();
        for row in &board.rows {
            assert!(row.tok_s_per_user >= DEFAULT_TOK_S_PER_USER, "{row:?}");
            assert!(
                seen.insert((row.gpu.clone(), row.precision.id())),
                "one row per GPU × precision"
            );
            assert_eq!(
                row.quality_caveat,
                matches!(row.precision, Precision::Fp4 | Precision::Int4)
            );
            let scenario = Scenario::try_from(row.input.clone()).expect("valid");
            let point = evaluate(&scenario);
            assert_eq!(point.concurrency, row.concurrency);
            assert_eq!(point.output_tok_s_per_gpu, row.output_tok_s_per_gpu);
            assert_eq!(point.usd_per_m_output, row.usd_per_m_output);
        }
        let priced: Vec<bool> = board
            .rows
            .iter()
            .map(|r| r.usd_per_m_output.is_some())
            .collect();
        assert!(
            priced.windows(2).all(|w| w[0] || !w[1]),
            "unpriced rows last: {priced:?}"
        );
        assert!(board
            .rows
            .iter()
            .any(|r| r.gpu == "gb200" && r.usd_per_m_output.is_none()));
        for pair in board.rows.windows(2) {
            match (pair[0].usd_per_m_output, pair[1].usd_per_m_output) {
                (Some(a), Some(b)) => assert!(a <= b),
                (None, None) => {
                    assert!(pair[0].output_tok_s_per_gpu >= pair[1].output_tok_s_per_gpu)
                }
                _ => {}
            }
        }
        assert!(!board
            .rows
            .iter()
            .any(|r| r.gpu == "h100-sxm" && r.precision.id() == "fp4"));
    }

    /// The row is the highest-throughput point meeting the target: no fitting point of the
    /// same layout's curve beats it and meets the target.
    #[test]
    fn the_row_is_the_best_point_meeting_the_target() {
        let mut request = request("llama-3.1-70b", &["h100-sxm"]);
        request.target = Target::TpotMs(30.0);
        request.all_layouts = true;
        let board = leaderboard(&request).expect("ranks");
        assert!(board.rows.len() >= 3);
        for row in &board.rows {
            assert!(row.tpot_ms <= 30.0);
            let curve = sweep(&Scenario::try_from(row.input.clone()).expect("valid"));
            let better = curve.points.iter().find(|p| {
                p.fits && p.tpot_ms <= 30.0 && p.output_tok_s_per_gpu > row.output_tok_s_per_gpu
            });
            assert_eq!(better, None, "{row:?}");
        }
        let impossible = LeaderboardRequest {
            target: Target::TokSPerUser(1e5),
            ..request
        };
        let board = leaderboard(&impossible).expect("ranks");
        assert!(board.rows.is_empty());
        assert!(board
            .missed
            .iter()
            .all(|m| m.reason.contains("the fastest reaches")));
    }

    /// An MoE model tries DEP and EP layouts; a model too big for a node goes multi-node.
    #[test]
    fn moe_layouts_and_multi_node() {
        let names: Vec<String> = layouts(8, true).into_iter().map(layout_name).collect();
        assert_eq!(names, ["TP 8", "TP 8 × EP 8", "DEP 8"]);
        let names: Vec<String> = layouts(16, false).into_iter().map(layout_name).collect();
        assert_eq!(names, ["TP 8 × PP 2"]);
        let request = LeaderboardRequest {
            target: Target::TokSPerUser(10.0),
            ..request("llama-3.1-405b", &["h100-sxm"])
        };
        let part = rows_for(
            &request,
            catalog().expect("catalog").gpu("h100-sxm").expect("gpu"),
            Precision::Bf16,
        );
        let row = part.rows.first().expect("fits on more than one node");
        assert!(row.gpus > 8 && row.pp > 1, "{row:?}");
    }

    #[test]
    fn input_is_checked_once_and_names_the_field() {
        let check = |x: Option<f64>, y: Option<f64>| {
            LeaderboardRequest::try_from(LeaderboardInput {
                tok_s_per_user: x,
                slo_tpot_ms: y,
                ..LeaderboardInput::default()
            })
            .map(|r| r.target)
            .map_err(|e| e.field)
        };
        assert_eq!(check(None, Some(25.0)), Ok(Target::TpotMs(25.0)));
        assert_eq!(check(Some(80.0), None), Ok(Target::TokSPerUser(80.0)));
        assert_eq!(check(Some(80.0), Some(25.0)), Err("tok-s-per-user".into()));
        assert_eq!(check(Some(-1.0), None), Err("tok-s-per-user".into()));
        assert_eq!(check(None, Some(0.0)), Err("slo-tpot-ms".into()));
        let bad = LeaderboardRequest {
            gpus_allowed: vec!["no-such-gpu".into()],
            ..request("llama-3.1-8b", &[])
        };
        assert!(leaderboard(&bad).is_err());
    }

    /// The command names the required fields, the row's layout and concurrency, and leaves out
    /// what equals the defaults.
    #[test]
    fn estimate_args_come_from_the_field_table() {
        let defaults = ScenarioInput {
            gpu_count: 1.0,
            ..ScenarioInput::default()
        };
        let input = ScenarioInput {
            gpu_count: 8.0,
            tp: Some(1.0),
            ep: Some(8.0),
            concurrency: 64.0,
            ..defaults.clone()
        };
        let args = estimate_args(&input, &defaults);
        let line = shell_line("servecost estimate", &args);
        assert_eq!(
            line,
            "servecost estimate --model llama-3.1-70b --gpu h100-sxm --gpus 8 --tp 1 --ep 8 \
             --input-len 1155 --output-len 211 --concurrency 64"
        );
        assert_eq!(
            shell_line("x", &["a b".into(), String::new()]),
            "x 'a b' ''"
        );
    }
}
