//! GPU specifications, read from the compiled-in copy of `shared/data/gpus.csv` (facts with sources).
//!
//! No logic beyond reading: what the model does with a missing number is decided in `model`.

use super::csv::{number, text, Record};
use serde::Serialize;

/// One accelerator as the catalog states it. Peaks are dense (no 2:4 sparsity), per GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub memory_gb: f64,
    pub memory_bw_tb_s: f64,
    pub bf16_tflops: Option<f64>,
    pub fp8_tflops: Option<f64>,
    pub fp4_tflops: Option<f64>,
    pub int8_tops: Option<f64>,
    /// Scale-up bandwidth per direction per GPU (NVLink, xGMI, PCIe), GB/s.
    pub link_gb_s: Option<f64>,
    pub tdp_w: Option<f64>,
    pub usd_per_gpu_hour_low: Option<f64>,
    pub usd_per_gpu_hour_typical: Option<f64>,
    pub usd_per_gpu_hour_high: Option<f64>,
    pub price_as_of: String,
    // The row's `source` and `notes`: `catalog::gpu_provenance(id)`.
}

impl Gpu {
    pub(super) fn from_record(record: &Record) -> Result<Gpu, String> {
        let required = |column: &str| -> Result<f64, String> {
            number(record, column)?.ok_or_else(|| format!("column `{column}` is empty"))
        };
        Ok(Gpu {
            id: text(record, "id").to_string(),
            name: text(record, "name").to_string(),
            vendor: text(record, "vendor").to_string(),
            memory_gb: required("memory_gb")?,
            memory_bw_tb_s: required("memory_bw_tb_s")?,
            bf16_tflops: number(record, "bf16_tflops")?,
            fp8_tflops: number(record, "fp8_tflops")?,
            fp4_tflops: number(record, "fp4_tflops")?,
            int8_tops: number(record, "int8_tops")?,
            link_gb_s: number(record, "link_gb_s")?,
            tdp_w: number(record, "tdp_w")?,
            usd_per_gpu_hour_low: number(record, "usd_per_gpu_hour_low")?,
            usd_per_gpu_hour_typical: number(record, "usd_per_gpu_hour_typical")?,
            usd_per_gpu_hour_high: number(record, "usd_per_gpu_hour_high")?,
            price_as_of: text(record, "price_as_of").to_string(),
        })
    }

    /// Why this GPU cannot be evaluated, when a number the model needs is missing from its spec.
    pub fn missing_spec(&self) -> Option<String> {
        if self.bf16_tflops.is_none() {
            return Some(format!(
                "{} has no published dense BF16 tensor TFLOP/s in the catalog, so compute time cannot be modelled",
                self.name
            ));
        }
        None
    }
}
