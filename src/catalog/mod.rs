//! The compiled-in catalogs: GPUs, models and API prices as data (facts with their sources), no
//! logic (the bundled published measurements and the rule matching one to a configuration are
//! `scenario::measurements`, one floor up, because the rule reads the field table).
//!
//! `data/gpus.csv`, `models.csv`, `api_prices.csv` and `measurements.csv` are copies of
//! `shared/data/` (`tests/catalog.rs` checks the first three still agree);
//! `data/expert_formats.csv` is servecost's own sourced list of checkpoints whose routed experts
//! ship as MXFP4. They are parsed once, on first use, and kept for the life of the program.
//!
//! The GPU and model catalogs are compiled in as two parts each, split by `build.rs`: the facts
//! (`catalog()`, everything the model reads) and their provenance, the rows' `source` and `notes`
//! (`gpu_provenance`, `model_provenance`), read only where a fact's origin is shown. Code that
//! never asks for the provenance (the explorer's first module) does not carry it.

mod api_prices;
pub mod csv;
mod gpus;
mod hf_config;
mod model_json;
mod models;

pub use api_prices::{dated, ApiPrice, UNDATED};
pub use gpus::Gpu;
pub use hf_config::parse_hf_config;
pub use models::{Arch, Attention, ModelSpec};

use std::sync::OnceLock;

/// `data/gpus.csv` and `data/models.csv` without their `source` and `notes` columns (`build.rs`).
const GPUS_CSV: &str = include_str!(concat!(env!("OUT_DIR"), "/gpus_facts.csv"));
const MODELS_CSV: &str = include_str!(concat!(env!("OUT_DIR"), "/models_facts.csv"));
/// Those columns, as `id,source,notes` (`build.rs`).
const GPU_PROVENANCE_CSV: &str = include_str!(concat!(env!("OUT_DIR"), "/gpus_provenance.csv"));
const MODEL_PROVENANCE_CSV: &str = include_str!(concat!(env!("OUT_DIR"), "/models_provenance.csv"));
const API_PRICES_CSV: &str = include_str!("../../data/api_prices.csv");
/// servecost's own data beside the shared catalog: checkpoint formats `models.csv` has no column
/// for (`data/expert_formats.csv`, each row with its source; compiled in without it, `build.rs`).
const EXPERT_FORMATS_CSV: &str =
    include_str!(concat!(env!("OUT_DIR"), "/expert_formats_facts.csv"));

/// Every GPU and model the app and the CLI know by id. API prices are separate (`api_prices`):
/// the explorer's first module never needs them, so it neither parses nor carries them.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    pub gpus: Vec<Gpu>,
    pub models: Vec<ModelSpec>,
}

/// Parse `api_prices.csv` text; the error names the row and the column.
pub fn parse_api_prices(api_prices_csv: &str) -> Result<Vec<ApiPrice>, String> {
    csv::parse_records(api_prices_csv)
        .map_err(|e| format!("api_prices.csv: {e}"))?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            ApiPrice::from_record(r).map_err(|e| format!("api_prices.csv row {}: {e}", i + 2))
        })
        .collect()
}

impl Catalog {
    /// Parse catalog CSV texts; the error names the file, the row and the column.
    pub fn parse(gpus_csv: &str, models_csv: &str) -> Result<Catalog, String> {
        let gpus = csv::parse_records(gpus_csv)
            .map_err(|e| format!("gpus.csv: {e}"))?
            .iter()
            .enumerate()
            .map(|(i, r)| Gpu::from_record(r).map_err(|e| format!("gpus.csv row {}: {e}", i + 2)))
            .collect::<Result<Vec<_>, _>>()?;
        let models = csv::parse_records(models_csv)
            .map_err(|e| format!("models.csv: {e}"))?
            .iter()
            .enumerate()
            .map(|(i, r)| {
                ModelSpec::from_record(r).map_err(|e| format!("models.csv row {}: {e}", i + 2))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut catalog = Catalog { gpus, models };
        catalog.apply_expert_formats(EXPERT_FORMATS_CSV)?;
        Ok(catalog)
    }

    /// Mark the models whose routed experts ship in another format than the checkpoint's
    /// (`data/expert_formats.csv` without its `source`, `build.rs`: `id,expert_format`; `mxfp4` is
    /// the one format known).
    fn apply_expert_formats(&mut self, text: &str) -> Result<(), String> {
        let records = csv::parse_records(text).map_err(|e| format!("expert_formats.csv: {e}"))?;
        for (i, record) in records.iter().enumerate() {
            let id = csv::text(record, "id");
            let model = self
                .models
                .iter_mut()
                .find(|m| m.id == id)
                .ok_or_else(|| format!("expert_formats.csv row {}: no model `{id}`", i + 2))?;
            match csv::text(record, "expert_format") {
                "mxfp4" => model.mxfp4_experts = true,
                other => {
                    return Err(format!(
                        "expert_formats.csv row {}: unknown expert_format `{other}`",
                        i + 2
                    ))
                }
            }
        }
        Ok(())
    }

    pub fn gpu(&self, id: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|gpu| gpu.id == id)
    }

    pub fn model(&self, id: &str) -> Option<&ModelSpec> {
        self.models.iter().find(|model| model.id == id)
    }
}

/// The compiled-in API list prices (parsed on first use).
pub fn api_prices() -> Result<&'static [ApiPrice], &'static str> {
    static API_PRICES: OnceLock<Result<Vec<ApiPrice>, String>> = OnceLock::new();
    API_PRICES
        .get_or_init(|| parse_api_prices(API_PRICES_CSV))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(String::as_str)
}

/// API list prices for a model, cheapest blended (3:1) first; none if the list does not parse.
pub fn api_prices_for(model_id: &str) -> Vec<&'static ApiPrice> {
    let mut prices: Vec<&ApiPrice> = api_prices()
        .unwrap_or_default()
        .iter()
        .filter(|p| p.model_id == model_id)
        .collect();
    prices.sort_by(|a, b| a.blended(3.0).total_cmp(&b.blended(3.0)));
    prices
}

/// Where a catalog row's facts come from: its `source` and `notes` cells.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Provenance {
    pub source: String,
    pub notes: String,
}

/// `id,source,notes` rows as a map from id; a file that does not parse gives none (it is built
/// from the same `data/` files `tests/catalog.rs` checks).
fn parse_provenance(text: &str) -> Vec<(String, Provenance)> {
    csv::parse_records(text)
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let provenance = Provenance {
                source: csv::text(r, "source").to_string(),
                notes: csv::text(r, "notes").to_string(),
            };
            (csv::text(r, "id").to_string(), provenance)
        })
        .collect()
}

/// The `source` and `notes` of the catalog GPU `id` (parsed on first use).
pub fn gpu_provenance(id: &str) -> Option<&'static Provenance> {
    static ROWS: OnceLock<Vec<(String, Provenance)>> = OnceLock::new();
    let rows = ROWS.get_or_init(|| parse_provenance(GPU_PROVENANCE_CSV));
    rows.iter().find(|(row, _)| row == id).map(|(_, p)| p)
}

/// The `source` and `notes` of the catalog model `id` (parsed on first use). A pasted or imported
/// model carries its own in `ModelSpec::source` / `notes`.
pub fn model_provenance(id: &str) -> Option<&'static Provenance> {
    static ROWS: OnceLock<Vec<(String, Provenance)>> = OnceLock::new();
    let rows = ROWS.get_or_init(|| parse_provenance(MODEL_PROVENANCE_CSV));
    rows.iter().find(|(row, _)| row == id).map(|(_, p)| p)
}

/// The compiled-in catalog. An error here means the bundled CSVs are malformed, which
/// `tests/catalog.rs` rules out; callers still handle it rather than panic.
pub fn catalog() -> Result<&'static Catalog, &'static str> {
    static CATALOG: OnceLock<Result<Catalog, String>> = OnceLock::new();
    CATALOG
        .get_or_init(|| Catalog::parse(GPUS_CSV, MODELS_CSV))
        .as_ref()
        .map_err(String::as_str)
}
