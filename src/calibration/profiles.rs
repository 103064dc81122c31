//! Engine profiles fitted on measurements (issue 12 §4), and the cross-validation that grades
//! them on whole groups they never saw (§7): one GPU type at a time, then one model at a time.
//!
//! **The fit.** Rows are grouped by profile: the row's `engine` on its GPU's software stack
//! (`model::engine::Stack`). Per stack, the generic profile is fitted on every row of that stack;
//! then each engine with at least `MIN_PROFILE_ROWS` rows of its own gets its own profile,
//! fitted on those rows starting from the generic one. An engine with fewer rows but at least
//! `MIN_SERVER_ROWS` that measure TTFT gets only its own server overhead (`Scope::ServerOverhead`:
//! one knob, which a TTFT row identifies; NVIDIA NIM's two rows put it near zero where the
//! InferenceX SGLang/TensorRT-LLM rows that dominate the generic fit want 150 ms). An engine with
//! fewer rows, or unknown, runs the stack's generic profile; a stack with no row runs the CUDA generic profile with the
//! unseen-stack discount (`ProfileKnobs::unseen_stack`). One set of knobs per profile: never a
//! factor per row, model or GPU.
//!
//! Each profile's five knobs (`η_m`, `η_c`, `t_it0`, `t_L0`, `t_srv`) are found by coordinate
//! descent over the grids below (the §8 plausible ranges of `fit.rs`, plus the server overhead's),
//! minimising the mean absolute log error of every compared metric of the profile's rows
//! (`fit::objective`): each sweep tries every grid value of one knob with the others held, keeps
//! the best, and moves to the next knob, until a sweep changes nothing (at most `SWEEPS`). The
//! search is deterministic, so the shipped `engine::FITTED` table is exactly what
//! `servecost validate data/measurements.csv --fit` prints, which `tests/validation.rs` checks.
//!
//! **Cross-validation by group.** For each value of the grouping column (`gpu_id` or
//! `model_id`), the profiles are fitted on the rows of every other value and the held-out rows
//! are predicted with them (through `engine::resolve_in`, so a held-out row whose engine or stack
//! has no training row gets exactly the fallback a user would get). The report holds only
//! out-of-sample predictions.

use crate::calibration::fit::{
    objective, ETA_COMPUTE, ETA_MEM, LAYER_OVERHEAD_US, STEP_OVERHEAD_MS,
};
use crate::calibration::validate::{
    row_engine, row_stack, summarise_rows, validate_with, Report, Summary,
};
use crate::catalog::csv::{self, Record};
use crate::model::engine::{
    self, Profile, ProfileKnobs, Scope, Stack, GENERIC, MIN_PROFILE_ROWS, MIN_SERVER_ROWS,
};
use crate::scenario::EfficiencyOverrides;
use serde::Serialize;
use std::collections::BTreeSet;

/// Server overhead grid, ms per request (0 for an in-process benchmark up to a slow API path).
pub const SERVER_OVERHEAD_MS: [f64; 12] = [
    0.0, 5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0, 500.0,
];

/// Most coordinate-descent sweeps per profile.
pub const SWEEPS: usize = 4;

/// One fitted profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileFit {
    pub engine: String,
    pub stack: Stack,
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
            "    Profile {{\n        engine: {engine},\n        stack: Stack::{:?},\n        scope: Scope::{:?},\n        knobs: ProfileKnobs {{\n            eta_mem: {:?},\n            eta_compute: {:?},\n            step_overhead_ms: {:?},\n            layer_overhead_us: {:?},\n            server_overhead_ms: {:?},\n        }},\n        rows: {},\n    }},\n",
            self.stack,
            self.scope,
            k.eta_mem,
            k.eta_compute,
            k.step_overhead_ms,
            k.layer_overhead_us,
            k.server_overhead_ms,
            self.rows
        )
    }
}

/// The profile a row belongs to: `(engine, stack)`; `None` for a GPU the catalog lacks.
fn profile_key(record: &Record) -> Option<(String, Stack)> {
    Some((row_engine(record), row_stack(record)?))
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

/// Coordinate descent from `start` on `records` (module doc).
fn descend(
    records: &[Record],
    base: &EfficiencyOverrides,
    start: ProfileKnobs,
    scope: Scope,
) -> (ProfileKnobs, f64) {
    let score = |knobs: ProfileKnobs| objective(&validate_with(records, base, |_| Some(knobs))).0;
    let mut best = start;
    let mut best_score = score(start);
    type Set = fn(&mut ProfileKnobs, f64);
    let axes: [(&[f64], Set); 5] = [
        (&ETA_MEM, |k, v| k.eta_mem = v),
        (&ETA_COMPUTE, |k, v| k.eta_compute = v),
        (&STEP_OVERHEAD_MS, |k, v| k.step_overhead_ms = v),
        (&LAYER_OVERHEAD_US, |k, v| k.layer_overhead_us = v),
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

/// Fit every profile the rows support (module doc), generic profiles first.
pub fn fit_profiles(records: &[Record], base: &EfficiencyOverrides) -> Vec<ProfileFit> {
    let rows = compared(records, base);
    let keyed: Vec<(Record, (String, Stack))> = rows
        .into_iter()
        .filter_map(|r| profile_key(&r).map(|k| (r, k)))
        .collect();
    let stacks: BTreeSet<Stack> = keyed.iter().map(|(_, (_, s))| *s).collect();
    let mut fits = Vec::new();
    for stack in stacks {
        let of_stack: Vec<Record> = keyed
            .iter()
            .filter(|(_, (_, s))| *s == stack)
            .map(|(r, _)| r.clone())
            .collect();
        let (generic, score) = descend(&of_stack, base, ProfileKnobs::UNFITTED, Scope::AllKnobs);
        fits.push(ProfileFit {
            engine: GENERIC.into(),
            stack,
            scope: Scope::AllKnobs,
            knobs: generic,
            rows: of_stack.len(),
            objective: score,
        });
        let engines: BTreeSet<&str> = keyed
            .iter()
            .filter(|(_, (e, s))| *s == stack && e != GENERIC)
            .map(|(_, (e, _))| e.as_str())
            .filter(|e| engine::ENGINES.iter().any(|(id, _)| id == e))
            .collect();
        for name in engines {
            let own: Vec<Record> = keyed
                .iter()
                .filter(|(_, (e, s))| *s == stack && e == name)
                .map(|(r, _)| r.clone())
                .collect();
            let scope = if own.len() >= MIN_PROFILE_ROWS {
                Scope::AllKnobs
            } else if ttft_rows(&own) >= MIN_SERVER_ROWS {
                Scope::ServerOverhead
            } else {
                continue;
            };
            let (knobs, score) = descend(&own, base, generic, scope);
            fits.push(ProfileFit {
                engine: name.into(),
                stack,
                scope,
                knobs,
                rows: own.len(),
                objective: score,
            });
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
        Some(engine::resolve_in(profiles, &row_engine(record), &vendor).knobs)
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
}

impl GroupBy {
    pub fn column(self) -> &'static str {
        match self {
            GroupBy::Gpu => "gpu_id",
            GroupBy::Model => "model_id",
        }
    }
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
    let groups: BTreeSet<String> = rows
        .iter()
        .map(|r| csv::text(r, by.column()).to_string())
        .collect();
    if groups.len() < 2 {
        return Err(format!(
            "cross-validation by {} needs rows of at least two groups, the file has {}",
            by.column(),
            groups.len()
        ));
    }
    let mut held_out = Vec::new();
    let mut results = Vec::new();
    for group in &groups {
        let (test, train): (Vec<Record>, Vec<Record>) = rows
            .iter()
            .cloned()
            .partition(|r| csv::text(r, by.column()) == group);
        let fitted = table(&fit_profiles(&train, base));
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
