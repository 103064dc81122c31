//! The compiled-in catalog must state exactly what `shared/data` states: same ids, same values.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use servecost::catalog::{catalog, csv};
use std::path::Path;

/// The shared data folder beside the project (CI has it); falls back to the bundled copy.
fn shared(file: &str) -> String {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(file);
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file);
    if shared.exists() {
        let shared_text = std::fs::read_to_string(&shared).expect("read shared");
        let bundled_text = std::fs::read_to_string(&bundled).expect("read bundled");
        assert_eq!(
            shared_text, bundled_text,
            "data/{file} differs from shared/data/{file}: copy it again"
        );
        shared_text
    } else {
        eprintln!("note: ../shared/data/{file} not found; checking against the bundled copy");
        std::fs::read_to_string(&bundled).expect("read bundled")
    }
}

fn num(record: &csv::Record, column: &str) -> Option<f64> {
    csv::number(record, column).expect("numeric column")
}

#[test]
fn every_gpu_with_its_values() {
    let cat = catalog().expect("catalog parses");
    let rows = csv::parse_records(&shared("gpus.csv")).expect("gpus.csv parses");
    assert_eq!(rows.len(), cat.gpus.len());
    assert!(rows.len() >= 20);
    for row in &rows {
        let id = csv::text(row, "id");
        let gpu = cat
            .gpu(id)
            .unwrap_or_else(|| panic!("GPU {id} missing from the catalog"));
        assert_eq!(Some(gpu.memory_gb), num(row, "memory_gb"), "{id} memory");
        assert_eq!(
            Some(gpu.memory_bw_tb_s),
            num(row, "memory_bw_tb_s"),
            "{id} bandwidth"
        );
        assert_eq!(gpu.bf16_tflops, num(row, "bf16_tflops"), "{id} bf16");
        assert_eq!(gpu.fp8_tflops, num(row, "fp8_tflops"), "{id} fp8");
        assert_eq!(gpu.fp4_tflops, num(row, "fp4_tflops"), "{id} fp4");
        assert_eq!(gpu.link_gb_s, num(row, "link_gb_s"), "{id} link");
        assert_eq!(
            gpu.usd_per_gpu_hour_typical,
            num(row, "usd_per_gpu_hour_typical"),
            "{id} price"
        );
        let provenance = servecost::catalog::gpu_provenance(id).expect("provenance");
        assert_eq!(
            provenance.source,
            csv::text(row, "source"),
            "{id} keeps its source"
        );
        assert_eq!(provenance.notes, csv::text(row, "notes"), "{id} notes");
    }
}

#[test]
fn every_model_with_its_values() {
    let cat = catalog().expect("catalog parses");
    let rows = csv::parse_records(&shared("models.csv")).expect("models.csv parses");
    assert_eq!(rows.len(), cat.models.len());
    assert!(rows.len() >= 30);
    for row in &rows {
        let id = csv::text(row, "id");
        let model = cat
            .model(id)
            .unwrap_or_else(|| panic!("model {id} missing from the catalog"));
        let whole = |column: &str| num(row, column).map(|v| v as u32);
        assert_eq!(Some(model.num_layers), whole("num_layers"), "{id} layers");
        assert_eq!(Some(model.hidden_size), whole("hidden_size"), "{id} hidden");
        assert_eq!(Some(model.num_heads), whole("num_heads"), "{id} heads");
        assert_eq!(
            Some(model.num_kv_heads),
            whole("num_kv_heads"),
            "{id} kv heads"
        );
        assert_eq!(Some(model.head_dim), whole("head_dim"), "{id} head dim");
        assert_eq!(
            model.intermediate_size,
            whole("intermediate_size"),
            "{id} ffn"
        );
        assert_eq!(model.num_experts, whole("num_experts"), "{id} experts");
        assert_eq!(model.kv_lora_rank, whole("kv_lora_rank"), "{id} latent");
        assert_eq!(model.sliding_window, whole("sliding_window"), "{id} window");
        assert_eq!(Some(model.vocab_size), whole("vocab_size"), "{id} vocab");
        assert_eq!(
            model.total_params_b,
            num(row, "total_params_b"),
            "{id} params"
        );
        let provenance = servecost::catalog::model_provenance(id).expect("provenance");
        assert_eq!(
            provenance.source,
            csv::text(row, "source"),
            "{id} keeps its source"
        );
        assert_eq!(provenance.notes, csv::text(row, "notes"), "{id} notes");
        // The facts carry no copy: a catalog model's `source` is its provenance's.
        assert!(model.source.is_empty(), "{id}");
    }
}

/// Our parameter count from the architecture agrees with the catalog's stated total within 3 %
/// (the catalog counts biases and QK-norms we leave out; gpt-oss adds attention sinks).
#[test]
fn derived_parameter_counts_agree_with_the_catalog() {
    let cat = catalog().expect("catalog parses");
    for model in &cat.models {
        let arch = servecost::physics::architecture::Architecture::new(model);
        let stated = model.total_params_b.expect("total stated") * 1e9;
        let ours = arch.total_params();
        assert!(
            (ours / stated - 1.0).abs() < 0.03,
            "{}: ours {:.2} B vs stated {:.2} B",
            model.id,
            ours / 1e9,
            stated / 1e9
        );
    }
}

/// Every catalog model evaluates on a system big enough to hold it, and every GPU either
/// evaluates a small model or is rejected with an explanation naming what its spec lacks.
#[test]
fn every_model_and_gpu_evaluates_or_explains() {
    use servecost::model::evaluate;
    use servecost::scenario::{Scenario, ScenarioInput};
    let cat = catalog().expect("catalog parses");
    for model in &cat.models {
        // Sized to hold the weights: 8 × H100 up to 300 B parameters, 8 × H200 up to 700 B,
        // 16 × H200 beyond (Kimi K2's 1 T parameters in FP8 need more than 8 × 141 GB).
        let (gpu, gpu_count) = match model.total_params_b.unwrap_or(0.0) {
            b if b > 700.0 => ("h200-sxm", 16.0),
            b if b > 300.0 => ("h200-sxm", 8.0),
            _ => ("h100-sxm", 8.0),
        };
        let input = ScenarioInput {
            model: model.id.clone(),
            gpu: gpu.into(),
            gpu_count,
            ..ScenarioInput::default()
        };
        let scenario = Scenario::try_from(input)
            .unwrap_or_else(|e| panic!("{} on {gpu_count}×{gpu}: {e}", model.id));
        let point = evaluate(&scenario);
        assert!(
            point.output_tok_s.is_finite() && point.output_tok_s > 0.0,
            "{}",
            model.id
        );
        assert!(
            point.ttft_ms.is_finite() && point.tpot_ms.is_finite(),
            "{}",
            model.id
        );
    }
    for gpu in &cat.gpus {
        let input = ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu: gpu.id.clone(),
            gpu_count: 2.0,
            precision: servecost::physics::precision::Precision::Bf16,
            usd_per_gpu_hour: Some(2.0),
            ..ScenarioInput::default()
        };
        match Scenario::try_from(input) {
            Ok(scenario) => assert!(evaluate(&scenario).output_tok_s > 0.0, "{}", gpu.id),
            Err(e) => {
                assert!(
                    gpu.missing_spec().is_some() || gpu.link_gb_s.is_none(),
                    "{}: unexpected error {e}",
                    gpu.id
                );
                assert!(
                    e.message.contains(&gpu.name) || e.message.contains("link"),
                    "{}: {e}",
                    gpu.id
                );
            }
        }
    }
}

#[test]
fn every_api_price_with_its_values() {
    let cat = catalog().expect("catalog parses");
    let prices = servecost::catalog::api_prices().expect("api_prices.csv parses");
    let rows = csv::parse_records(&shared("api_prices.csv")).expect("api_prices.csv parses");
    assert_eq!(rows.len(), prices.len());
    for (row, price) in rows.iter().zip(prices) {
        assert_eq!(csv::text(row, "model_id"), price.model_id);
        assert_eq!(csv::text(row, "provider"), price.provider);
        assert_eq!(num(row, "usd_per_m_input"), Some(price.usd_per_m_input));
        assert_eq!(num(row, "usd_per_m_output"), Some(price.usd_per_m_output));
        assert_eq!(csv::text(row, "source"), price.source);
        assert!(
            cat.model(&price.model_id).is_some(),
            "{} priced but not in the model catalog",
            price.model_id
        );
    }
}
