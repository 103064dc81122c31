//! The compiled-in catalogs: GPUs, models and API prices as data (facts with their sources), no logic.
//!
//! The CSV files in `data/` are copies of `shared/data/`; `tests/catalog.rs` checks that they still
//! agree. They are parsed once, on first use, and kept for the life of the program.

mod api_prices;
pub mod csv;
mod gpus;
mod hf_config;
mod model_json;
mod models;

pub use api_prices::ApiPrice;
pub use gpus::Gpu;
pub use hf_config::parse_hf_config;
pub use models::{Arch, Attention, ModelSpec};

use std::sync::OnceLock;

const GPUS_CSV: &str = include_str!("../../data/gpus.csv");
const MODELS_CSV: &str = include_str!("../../data/models.csv");
const API_PRICES_CSV: &str = include_str!("../../data/api_prices.csv");
/// servecost's own data beside the shared catalog: checkpoint formats `models.csv` has no column
/// for (each row with its source).
const EXPERT_FORMATS_CSV: &str = include_str!("../../data/expert_formats.csv");

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
    /// (`data/expert_formats.csv`: `id,expert_format,source`; `mxfp4` is the one format known).
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

/// The compiled-in catalog. An error here means the bundled CSVs are malformed, which
/// `tests/catalog.rs` rules out; callers still handle it rather than panic.
pub fn catalog() -> Result<&'static Catalog, &'static str> {
    static CATALOG: OnceLock<Result<Catalog, String>> = OnceLock::new();
    CATALOG
        .get_or_init(|| Catalog::parse(GPUS_CSV, MODELS_CSV))
        .as_ref()
        .map_err(String::as_str)
}
