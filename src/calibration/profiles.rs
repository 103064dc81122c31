//! Engine profiles fitted on measurements (issue 12 §4), and the cross-validation that grades
//! them on whole groups they never saw (§7): one GPU type at a time, then one model at a time.
//!
//! **The fit.** Rows are grouped by profile: the row's `engine` on its GPU's software stack
//! (`physics::engine::Stack`). Per stack, the generic profile is fitted on every row of that stack;
//! then each engine with at least `MIN_PROFILE_ROWS` rows of its own gets its own profile,
//! fitted on those rows starting from the generic one. An engine with fewer rows but at least
//! `MIN_SERVER_ROWS` that measure TTFT gets only its own server overhead (`Scope::ServerOverhead`:
//! one knob, which a TTFT row identifies; NVIDIA NIM's two rows put it near zero where the
//! InferenceX SGLang/TensorRT-LLM rows that dominate the generic fit want 150 ms). An engine with
//! fewer rows, or unknown, runs the stack's generic profile; a stack with no row runs the CUDA generic profile with the
//! unseen-stack discount (`ProfileKnobs::unseen_stack`). One set of knobs per profile: never a
//! factor per row, model or GPU.
//!
//! Each profile's six knobs (`η_m`, `η_c`, `t_it0`, `t_L0`, `t_seq`, `t_srv`) are found by
//! coordinate descent over the grids below (MODEL.md §8's plausible ranges, widened for stock
//! engines, plus the per-sequence and server overheads'), minimising the mean absolute log error of every compared metric of the profile's rows
//! (`RowCache::objective`): each sweep tries every grid value of one knob with the others held, keeps
//! the best, and moves to the next knob, until a sweep changes nothing (at most `SWEEPS`). The
//! search is deterministic, so the shipped `engine::FITTED` table is exactly what
//! `servecost validate data/measurements.csv --fit` prints, which `tests/validation.rs` checks.
//!
//! **Cross-validation by group.** For each value of the grouping column (`gpu_id` or
//! `model_id`), the profiles are fitted on the rows of every other value and the held-out rows
//! are predicted with them (through `engine::resolve_in`, so a held-out row whose engine or stack
//! has no training row gets exactly the fallback a user would get). The report holds only
//! out-of-sample predictions.

use crate::calibration::validate::{
    row_deployment, row_engine, row_stack, summarise_rows, validate_with, Comparison, Report,
    Summary,
};
use crate::catalog::csv::{self, Record};
use crate::choice::{choices, Choice};
use crate::physics::engine::{
    self, Deployment, Profile, ProfileKnobs, Scope, Stack, GENERIC, MIN_PROFILE_ROWS,
    MIN_SERVER_ROWS,
};
use crate::scenario::EfficiencyOverrides;
use serde::Serialize;
use std::collections::BTreeSet;
use std::collections::HashMap;

/// The profile fit's grids: MODEL.md §8's plausible ranges widened below (η) and above
/// (overheads) to cover an engine at its defaults on an older release (eager kernels beyond the
/// CUDA-graph batch sizes, unfused attention on ROCm): a stock profile sat at the edges of the
/// tuned grids (issue 25 §3).
pub const ETA_MEM: [f64; 12] = [
    0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85,
];
/// See `ETA_MEM`.
pub const ETA_COMPUTE: [f64; 13] = [
    0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8,
];
/// See `ETA_MEM`; ms per step.
pub const STEP_OVERHEAD_MS: [f64; 11] = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0];
/// See `ETA_MEM`; µs per reference layer.
pub const LAYER_OVERHEAD_US: [f64; 9] = [5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0];

/// Server overhead grid, ms per request (0 for an in-process benchmark up to a slow API path).
pub const SERVER_OVERHEAD_MS: [f64; 12] = [
    0.0, 5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0, 500.0,
];

/// Per-sequence step overhead grid, µs per running sequence per step (0 for an engine whose
/// scheduling overlaps the GPU, up to a Python scheduler, sampler and detokenizer per request).
pub const SEQ_OVERHEAD_US: [f64; 9] = [0.0, 5.0, 10.0, 20.0, 40.0, 60.0, 80.0, 120.0, 160.0];

/// Most coordinate-descent sweeps per profile.
pub const SWEEPS: usize = 4;

/// One fitted profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileFit {
    pub engine: String,
    pub stack: Stack,
    pub deployment: Deployment,
    pub scope: Scope,
    pub knobs: ProfileKnobs,
    /// Rows with at least one comparison the knobs were fitted on.
    pub rows: usize,
    /// Mean |ln(predicted/measured)| over those rows' comparisons.
    pub objective: f64,
}

impl ProfileFit {
    /// The fit as a row of `engine::FITTED` (`None` for an engine name `ENGINES` lacks).
    pub fn profile(&self) -> Option<Profile> {
        let engine = engine::ENGINES
            .iter()
            .find(|(id, _)| *id == self.engine)
            .map(|(id, _)| *id)?;
        Some(Profile {
            engine,
            stack: self.stack,
            deployment: self.deployment,
            scope: self.scope,
            knobs: self.knobs,
            rows: u32::try_from(self.rows).unwrap_or(u32::MAX),
        })
    }

    /// The fit as Rust source for `engine::FITTED`.
    pub fn rust(&self) -> String {
        let engine = if self.engine == GENERIC {
            "GENERIC".to_string()
        } else {
            format!("\"{}\"", self.engine)
        };
        let k = self.knobs;
        format!(
            "    Profile {{\n        engine: {engine},\n        stack: Stack::{:?},\n        deployment: Deployment::{:?},\n        scope: Scope::{:?},\n        knobs: ProfileKnobs {{\n            eta_mem: {:?},\n            eta_compute: {:?},\n            step_overhead_ms: {:?},\n            layer_overhead_us: {:?},\n            server_overhead_ms: {:?},\n            seq_overhead_us: {:?},\n        }},\n        rows: {},\n    }},\n",
            self.stack,
            self.deployment,
            self.scope,
            k.eta_mem,
            k.eta_compute,
            k.step_overhead_ms,
            k.layer_overhead_us,
            k.server_overhead_ms,
            k.seq_overhead_us,
            self.rows
        )
    }
}

/// The profile a row belongs to: `(engine, stack, deployment)`; `None` for a GPU the catalog
/// lacks or a deployment cell that is neither `tuned` nor `stock`.
fn profile_key(record: &Record) -> Option<(String, Stack, Deployment)> {
    Some((
        row_engine(record),
        row_stack(record)?,
        row_deployment(record)?,
    ))
}

/// The rows that run under `base` and compare at least one metric.
fn compared(records: &[Record], base: &EfficiencyOverrides) -> Vec<Record> {
    records
        .iter()
        .filter(|record| {
            validate_with(std::slice::from_ref(*record), base, |_| None)
                .rows
                .iter()
                .any(|r| r.throughput.is_some() || r.tpot.is_some() || r.ttft.is_some())
        })
        .cloned()
        .collect()
}

/// One row's comparisons under one set of knobs, kept for the whole fit and for every fold of a
/// cross-validation: a row's prediction depends on its knobs only, never on the rows a fold
/// trains on, so the descents of the folds (which visit mostly the same knob sets) simulate each
/// burst once (`validate::burst_row`). Keyed by row id and the knobs' bits.
#[derive(Default)]
pub struct RowCache {
    rows: HashMap<(String, [u64; 6]), [Option<Comparison>; 3]>,
}

impl RowCache {
    fn comparisons(
        &mut self,
        record: &Record,
        base: &EfficiencyOverrides,
        knobs: ProfileKnobs,
    ) -> [Option<Comparison>; 3] {
        let key = (
            csv::text(record, "id").to_string(),
            [
                knobs.eta_mem.to_bits(),
                knobs.eta_compute.to_bits(),
                knobs.step_overhead_ms.to_bits(),
                knobs.layer_overhead_us.to_bits(),
                knobs.seq_overhead_us.to_bits(),
                knobs.server_overhead_ms.to_bits(),
            ],
        );
        *self.rows.entry(key).or_insert_with(|| {
            validate_with(std::slice::from_ref(record), base, |_| Some(knobs))
                .rows
                .first()
                .map_or([None; 3], |r| [r.throughput, r.tpot, r.ttft])
        })
    }

    /// The fit's objective for `records` under `knobs`: the mean |ln(predicted/measured)| of every
    /// compared metric.
    fn objective(
        &mut self,
        records: &[Record],
        base: &EfficiencyOverrides,
        knobs: ProfileKnobs,
    ) -> f64 {
        let errors: Vec<f64> = records
            .iter()
            .flat_map(|r| self.comparisons(r, base, knobs))
            .flatten()
            .map(|c| (c.predicted / c.measured).ln().abs())
            .collect();
        if errors.is_empty() {
            f64::INFINITY
        } else {
            errors.iter().sum::<f64>() / errors.len() as f64
        }
    }
}

/// Coordinate descent from `start` on `records` (module doc).
fn descend(
    records: &[Record],
    base: &EfficiencyOverrides,
    start: ProfileKnobs,
    scope: Scope,
    cache: &mut RowCache,
) -> (ProfileKnobs, f64) {
    let mut score = |knobs: ProfileKnobs| cache.objective(records, base, knobs);
    let mut best = start;
    let mut best_score = score(start);
    type Set = fn(&mut ProfileKnobs, f64);
    let axes: [(&[f64], Set); 6] = [
        (&ETA_MEM, |k, v| k.eta_mem = v),
        (&ETA_COMPUTE, |k, v| k.eta_compute = v),
        (&STEP_OVERHEAD_MS, |k, v| k.step_overhead_ms = v),
        (&LAYER_OVERHEAD_US, |k, v| k.layer_overhead_us = v),
        (&SEQ_OVERHEAD_US, |k, v| k.seq_overhead_us = v),
        (&SERVER_OVERHEAD_MS, |k, v| k.server_overhead_ms = v),
    ];
    // The server overhead is the last axis: a server-only profile descends on it alone.
    let axes: &[(&[f64], Set)] = match (scope, axes.split_last()) {
        (Scope::ServerOverhead, Some((server, _))) => std::slice::from_ref(server),
        _ => &axes,
    };
    for _ in 0..SWEEPS {
        let mut moved = false;
        for (grid, set) in axes {
            for value in grid.iter().copied() {
                let mut candidate = best;
                set(&mut candidate, value);
                if candidate == best {
                    continue;
                }
                let s = score(candidate);
                if s < best_score - 1e-12 {
                    best = candidate;
                    best_score = s;
                    moved = true;
                }
            }
        }
        if !moved {
            break;
        }
    }
    (best, best_score)
}

/// How many of `records` measure a TTFT.
fn ttft_rows(records: &[Record]) -> usize {
    records
        .iter()
        .filter(|r| matches!(csv::number(r, "ttft_ms"), Ok(Some(_))))
        .count()
}

/// Fit every profile the rows support (module doc), generic profiles first: per stack the
/// tuned profiles, then the stock ones, each stock fit starting from the stack's tuned generic
/// knobs; a stack with fewer than `MIN_PROFILE_ROWS` stock rows gets no stock profile (its stock
/// scenarios take `engine::resolve_in`'s shifted fallback).
pub fn fit_profiles(records: &[Record], base: &EfficiencyOverrides) -> Vec<ProfileFit> {
    fit_profiles_with(records, base, &mut RowCache::default())
}

/// `fit_profiles` with a row cache kept across fits (cross-validation's folds).
pub fn fit_profiles_with(
    records: &[Record],
    base: &EfficiencyOverrides,
    cache: &mut RowCache,
) -> Vec<ProfileFit> {
    let rows = compared(records, base);
    let keyed: Vec<(Record, (String, Stack, Deployment))> = rows
        .into_iter()
        .filter_map(|r| profile_key(&r).map(|k| (r, k)))
        .collect();
    let stacks: BTreeSet<Stack> = keyed.iter().map(|(_, (_, s, _))| *s).collect();
    let mut fits = Vec::new();
    for stack in stacks {
        let mut tuned_generic = None;
        for deployment in Deployment::ALL.iter().copied() {
            let of_class: Vec<&(Record, (String, Stack, Deployment))> = keyed
                .iter()
                .filter(|(_, (_, s, d))| *s == stack && *d == deployment)
                .collect();
            let enough = match deployment {
                Deployment::Tuned => !of_class.is_empty(),
                Deployment::Stock => of_class.len() >= MIN_PROFILE_ROWS,
            };
            if !enough {
                continue;
            }
            let records: Vec<Record> = of_class.iter().map(|(r, _)| r.clone()).collect();
            let start = tuned_generic.unwrap_or(ProfileKnobs::UNFITTED);
            let (generic, score) = descend(&records, base, start, Scope::AllKnobs, cache);
            if deployment == Deployment::Tuned {
                tuned_generic = Some(generic);
            }
            fits.push(ProfileFit {
                engine: GENERIC.into(),
                stack,
                deployment,
                scope: Scope::AllKnobs,
                knobs: generic,
                rows: records.len(),
                objective: score,
            });
            let engines: BTreeSet<&str> = of_class
                .iter()
                .map(|(_, (e, _, _))| e.as_str())
                .filter(|e| *e != GENERIC && engine::ENGINES.iter().any(|(id, _)| id == e))
                .collect();
            for name in engines {
                let own: Vec<Record> = of_class
                    .iter()
                    .filter(|(_, (e, _, _))| e == name)
                    .map(|(r, _)| r.clone())
                    .collect();
                let scope = if own.len() >= MIN_PROFILE_ROWS {
                    Scope::AllKnobs
                } else if ttft_rows(&own) >= MIN_SERVER_ROWS {
                    Scope::ServerOverhead
                } else {
                    continue;
                };
                let (knobs, score) = descend(&own, base, generic, scope, cache);
                fits.push(ProfileFit {
                    engine: name.into(),
                    stack,
                    deployment,
                    scope,
                    knobs,
                    rows: own.len(),
                    objective: score,
                });
            }
        }
    }
    fits
}

/// The profile table a set of fits makes.
pub fn table(fits: &[ProfileFit]) -> Vec<Profile> {
    fits.iter().filter_map(ProfileFit::profile).collect()
}

/// Run rows under a profile table (the shipped one is `engine::FITTED`).
pub fn validate_under(
    records: &[Record],
    base: &EfficiencyOverrides,
    profiles: &[Profile],
) -> Report {
    validate_with(records, base, |record| {
        let vendor = crate::catalog::catalog()
            .ok()
            .and_then(|c| c.gpu(csv::text(record, "gpu_id")).map(|g| g.vendor.clone()))?;
        Some(
            engine::resolve_in(
                profiles,
                &row_engine(record),
                &vendor,
                row_deployment(record).unwrap_or_default(),
            )
            .knobs,
        )
    })
}

/// What a cross-validation holds out whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// One GPU type (`gpu_id`) at a time.
    Gpu,
    /// One model (`model_id`) at a time.
    Model,
    /// One publication at a time: the row id's prefix (`GPS`, `DTV`, `IX`, `TRT1`, …), which
    /// `shared/data/README.md` gives every row of one source family.
    Source,
}

// The ids are the names `--group-by` takes (a GPU's and a model's are their fields' keys).
choices!(GroupBy {
    GroupBy::Source => "source", "publication (source family)";
    GroupBy::Gpu => crate::scenario::fields::GPU.key, "GPU type";
    GroupBy::Model => crate::scenario::fields::MODEL.key, "model id";
});

impl GroupBy {
    /// The group a row belongs to.
    pub fn group(self, record: &Record) -> String {
        match self {
            GroupBy::Gpu => csv::text(record, "gpu_id").to_string(),
            GroupBy::Model => csv::text(record, "model_id").to_string(),
            GroupBy::Source => publication(csv::text(record, "id")).to_string(),
        }
    }
}

/// The publication of a row id: the part before its last `-` (`GPS-08` → `GPS`, `TRT1-03` →
/// `TRT1`); the whole id when it has none.
pub fn publication(id: &str) -> &str {
    id.rsplit_once('-').map_or(id, |(prefix, _)| prefix)
}

/// The out-of-sample errors of one held-out group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupResult {
    pub group: String,
    /// Rows of the other groups the fold's profiles were fitted on.
    pub trained_on: usize,
    pub throughput: Option<Summary>,
    pub tpot: Option<Summary>,
    pub ttft: Option<Summary>,
}

/// A cross-validation by group: the pooled out-of-sample report and each group's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupReport {
    pub by: GroupBy,
    pub report: Report,
    pub groups: Vec<GroupResult>,
}

/// Hold out each value of `by` in turn (module doc).
pub fn cross_validate_groups(
    records: &[Record],
    base: &EfficiencyOverrides,
    by: GroupBy,
) -> Result<GroupReport, String> {
    let rows = compared(records, base);
    let groups: BTreeSet<String> = rows.iter().map(|r| by.group(r)).collect();
    if groups.len() < 2 {
        return Err(format!(
            "cross-validation by {} needs rows of at least two groups, the file has {}",
            by.id(),
            groups.len()
        ));
    }
    let mut held_out = Vec::new();
    let mut results = Vec::new();
    let mut cache = RowCache::default();
    for group in &groups {
        let (test, train): (Vec<Record>, Vec<Record>) =
            rows.iter().cloned().partition(|r| by.group(r) == *group);
        let fitted = table(&fit_profiles_with(&train, base, &mut cache));
        let report = validate_under(&test, base, &fitted);
        results.push(GroupResult {
            group: group.clone(),
            trained_on: train.len(),
            throughput: report.throughput,
            tpot: report.tpot,
            ttft: report.ttft,
        });
        held_out.extend(report.rows);
    }
    // In file order, as the in-sample table prints.
    let order = |id: &str| rows.iter().position(|r| csv::text(r, "id") == id);
    held_out.sort_by_key(|r| order(&r.id));
    let mut report = summarise_rows(held_out);
    report.skipped = validate_with(records, base, |_| None).skipped;
    Ok(GroupReport {
        by,
        report,
        groups: results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "id,model_id,gpu_id,num_gpus,precision,engine,deployment,tp,input_len,output_len,mode,concurrency,output_tok_s_total,tpot_ms,ttft_ms,source";

    /// Closed-loop rows `(model, gpu, gpus, precision, input, output, concurrency)` chosen so each
    /// knob shows: batch-1 decode (η_m, t_it0, t_L0 with 32 and 80 layers), large batches and
    /// long prompts (η_c), TTFT (t_srv).
    const SHAPES: [(&str, &str, u32, &str, u32, u32, u32); 8] = [
        ("llama-3.1-8b", "h100-sxm", 1, "bf16", 1000, 200, 1),
        ("llama-3.1-8b", "h100-sxm", 1, "bf16", 1000, 200, 64),
        ("llama-3.1-8b", "h200-sxm", 1, "fp8", 8000, 50, 16),
        ("llama-3.1-70b", "h100-sxm", 4, "bf16", 2000, 100, 1),
        ("llama-3.1-70b", "h100-sxm", 4, "bf16", 500, 500, 32),
        ("llama-3.1-70b", "h200-sxm", 2, "fp8", 4000, 300, 8),
        ("llama-3.1-8b", "a100-sxm-80gb", 1, "bf16", 300, 300, 128),
        ("llama-3.1-70b", "a100-sxm-80gb", 8, "bf16", 16000, 20, 4),
    ];

    /// Knobs on the grids, none of them `UNFITTED`'s.
    const TRUE: ProfileKnobs = ProfileKnobs {
        eta_mem: 0.65,
        eta_compute: 0.45,
        step_overhead_ms: 1.0,
        layer_overhead_us: 10.0,
        server_overhead_ms: 50.0,
        seq_overhead_us: 0.0,
    };

    /// The rows the model itself predicts under `knobs`, as measurement records.
    fn synthetic(knobs: ProfileKnobs) -> Vec<Record> {
        let row = |i: usize, tok_s: f64, tpot: f64, ttft: f64| {
            let (model, gpu, gpus, precision, input, output, c) = SHAPES[i];
            format!("S-{i},{model},{gpu},{gpus},{precision},vllm,stock,{gpus},{input},{output},concurrency,{c},{tok_s},{tpot},{ttft},synthetic")
        };
        let text = |rows: Vec<String>| format!("{HEADER}\n{}\n", rows.join("\n"));
        let placeholders = (0..SHAPES.len()).map(|i| row(i, 1.0, 1.0, 1.0)).collect();
        let records = csv::parse_records(&text(placeholders)).expect("parses");
        let report = validate_with(&records, &EfficiencyOverrides::default(), |_| Some(knobs));
        assert!(report.skipped.is_empty(), "{:?}", report.skipped);
        let measured = report
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let p = |c: Option<Comparison>| c.expect("compared").predicted;
                row(i, p(r.throughput), p(r.tpot), p(r.ttft))
            })
            .collect();
        csv::parse_records(&text(measured)).expect("parses")
    }

    /// The fit recovers the knobs that made the data: the stock profile of an engine whose
    /// rows the model itself predicted under known knobs (its stack has no tuned row, so the
    /// stock fit starts from `UNFITTED`). η_m, η_c, t_srv and t_seq come back exactly; the
    /// per-step and per-layer overheads trade off against each other on these rows (both are
    /// fixed costs of a step), and coordinate descent, moving one knob at a time, stops at a
    /// neighbouring pair (0.75 ms / 15 µs for 1 ms / 10 µs) within 0.5 % mean error: a
    /// limitation of the search, stated here so that a better one shows.
    #[test]
    fn the_fit_recovers_the_knobs_that_made_the_data() {
        let fits = fit_profiles(&synthetic(TRUE), &EfficiencyOverrides::default());
        let vllm = fits
            .iter()
            .find(|f| f.engine == "vllm" && f.deployment == Deployment::Stock)
            .expect("a stock vLLM profile");
        assert_eq!(vllm.scope, Scope::AllKnobs);
        assert_eq!(vllm.rows, SHAPES.len());
        assert!(
            vllm.objective < 0.005,
            "objective {}: {:?}",
            vllm.objective,
            vllm.knobs
        );
        let k = vllm.knobs;
        assert_eq!(
            (
                k.eta_mem,
                k.eta_compute,
                k.server_overhead_ms,
                k.seq_overhead_us
            ),
            (
                TRUE.eta_mem,
                TRUE.eta_compute,
                TRUE.server_overhead_ms,
                TRUE.seq_overhead_us
            )
        );
        // The two fixed costs together stay near the truth for a 32-layer model's step.
        let fixed = |k: ProfileKnobs| k.step_overhead_ms + 32.0 * k.layer_overhead_us / 1000.0;
        assert!((fixed(k) - fixed(TRUE)).abs() <= 0.2 * fixed(TRUE), "{k:?}");
    }

    #[test]
    fn a_publication_is_the_id_before_its_number() {
        assert_eq!(publication("GPS-08"), "GPS");
        assert_eq!(publication("TRT1-03"), "TRT1");
        assert_eq!(publication("MLP41-10"), "MLP41");
        assert_eq!(publication("plain"), "plain");
        assert_eq!(GroupBy::ids("|"), "source|gpu|model", "--group-by's words");
    }
}
