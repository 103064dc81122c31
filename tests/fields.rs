//! The field table (`scenario::fields`) drives every reader and writer of inputs: each field
//! round-trips through a link and a JSON export (a property test over the whole table), every key
//! is accepted by the URL and the embed, links saved before the table still open to the same view,
//! and no key is spelled out as a string literal more than twice in the library.

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use proptest::prelude::*;
use servecost::catalog::catalog;
use servecost::choice::Choice;
use servecost::page::embed::embed_controls;
use servecost::physics::precision::Precision;
use servecost::scenario::fields::{
    Field, Inputs, Kind, CUSTOM_MODEL, FIELDS, GPUS_ALLOWED, PRECISIONS_ALLOWED, SESSION_KEYS,
};
use servecost::scenario::ScenarioInput;
use servecost::share::{decode, encode, percent_encode, read_json, to_json, ViewState};
use std::path::{Path, PathBuf};

/// A text the field's setter accepts, drawn from `pick` (a uniform number in [0, 1)) and `coin`.
fn valid_text(field: &Field, pick: f64, coin: bool) -> String {
    let cat = catalog().expect("catalog");
    let index = |len: usize| ((pick * len as f64) as usize).min(len.saturating_sub(1));
    if field.optional && coin && pick < 0.25 {
        return String::new();
    }
    if *field == CUSTOM_MODEL {
        let model = &cat.models[index(cat.models.len())];
        return model.to_json_value().to_json();
    }
    if *field == GPUS_ALLOWED {
        let take = 1 + index(3);
        return cat
            .gpus
            .iter()
            .take(take)
            .map(|g| g.id.as_str())
            .collect::<Vec<_>>()
            .join(",");
    }
    if *field == PRECISIONS_ALLOWED {
        let take = 1 + index(4);
        return Precision::ALL
            .iter()
            .take(take)
            .map(|p| p.id())
            .collect::<Vec<_>>()
            .join(",");
    }
    if !field.choices.is_empty() {
        return field.choices[index(field.choices.len())].0.to_string();
    }
    match field.kind {
        Kind::Choice | Kind::Text => {
            // The catalog-backed choices.
            if field.key == "gpu" {
                cat.gpus[index(cat.gpus.len())].id.clone()
            } else {
                cat.models[index(cat.models.len())].id.clone()
            }
        }
        Kind::Integer | Kind::Real => {
            let (min, max) = field.range.expect("a number has a range");
            let high = max.min(min + 10_000.0);
            let value = min + pick * (high - min);
            let value = if field.kind == Kind::Integer {
                value.round()
            } else {
                value
            };
            format!("{value}")
        }
    }
}

fn travelling() -> Vec<&'static Field> {
    FIELDS.iter().copied().filter(|f| !f.derived).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any values of any fields travel: set them, encode a link and a JSON export, read both
    /// back, and the inputs (scenario and decision) are the same.
    #[test]
    fn every_field_round_trips_through_link_and_json(
        edits in prop::collection::vec((0usize..64, 0.0f64..1.0, any::<bool>()), 1..8)
    ) {
        let fields = travelling();
        let mut inputs = Inputs::default();
        for (which, pick, coin) in &edits {
            let field = fields[which % fields.len()];
            let text = valid_text(field, *pick, *coin);
            field.set(&mut inputs, &text).map_err(|e| TestCaseError::fail(format!("{}={text}: {e}", field.key)))?;
            // What was set reads back as set (the getter and setter agree).
            if !text.is_empty() || field.optional {
                let mut again = inputs.clone();
                field.set(&mut again, &field.get(&inputs)).expect("its own text");
                prop_assert_eq!(&again, &inputs, "{}", field.key);
            }
        }
        let mut view = ViewState::default();
        view.set_inputs(inputs.clone());
        let (back, notices) = decode(&encode(&view));
        prop_assert!(notices.is_empty(), "{:?}", notices);
        prop_assert_eq!(back.inputs(), inputs.clone());
        let json = read_json(&to_json(&view)).map_err(TestCaseError::fail)?;
        prop_assert_eq!(json.inputs(), inputs);
    }
}

#[test]
fn every_key_is_accepted_by_a_link_and_the_embed() {
    for field in FIELDS {
        let text = valid_text(field, 0.5, false);
        let query = format!("v=1&{}={}", field.key, percent_encode(&text));
        let (_, notices) = decode(&query);
        assert!(notices.is_empty(), "{}: {notices:?}", field.key);
    }
    let keys: Vec<String> = FIELDS.iter().map(|f| f.key.to_string()).collect();
    let (controls, notices) = embed_controls(&keys);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(controls.len(), FIELDS.len());
    let (_, notices) = embed_controls(&["no-such-field".to_string()]);
    assert!(notices.iter().any(|n| n.contains("no-such-field")));
}

/// Links written by the page before the field table (`v=1`, commit 516e60e) open to the view
/// they described. Each expected view is built field by field, not from the decoder.
#[test]
fn links_saved_before_the_table_still_open() {
    let (first, notices) = decode("v=1&model=llama-3.1-8b&gpu=a100-sxm-80gb&gpus=2&precision=bf16&concurrency=37&spec-decode=eagle&eta-mem=0.7&pin=gpu%3Ah200-sxm&x=tpot");
    assert!(notices.is_empty(), "{notices:?}");
    let mut expected = ViewState::default();
    expected.scenario.model = "llama-3.1-8b".into();
    expected.scenario.gpu = "a100-sxm-80gb".into();
    expected.scenario.gpu_count = 2.0;
    expected.scenario.precision = servecost::physics::precision::Precision::Bf16;
    expected.scenario.concurrency = 37.0;
    expected.scenario.efficiency.eta_mem = Some(0.7);
    expected.scenario.spec_decode = Some(servecost::scenario::SpecMethod::Eagle);
    // A version-1 link naming no price meant the old default's $3.125 (issue 26 §6 made the
    // unstated price the GPU's catalog quote from version 2 on).
    let legacy = Some(servecost::share::LEGACY_UNSTATED_PRICE);
    expected.scenario.usd_per_gpu_hour = legacy;
    expected.pins.push(ScenarioInput {
        gpu: "h200-sxm".into(),
        usd_per_gpu_hour: legacy,
        ..ScenarioInput::default()
    });
    expected.chart.x = servecost::present::chart::XAxis::Tpot;
    assert_eq!(first, expected);

    let (second, notices) = decode("v=1&model=mixtral-8x7b&tp=4&ep=2&length-dist=fixed&prefix-hit=0.25&usd-per-gpu-hour=2.49&batching=static&kv-alloc=contiguous&max-model-len=4096&y=usd");
    assert!(notices.is_empty(), "{notices:?}");
    let mut expected = ViewState::default();
    let s = &mut expected.scenario;
    s.model = "mixtral-8x7b".into();
    s.tp = Some(4.0);
    s.ep = Some(2.0);
    s.length_dist = servecost::scenario::LengthDist::Fixed;
    s.prefix_hit = 0.25;
    s.usd_per_gpu_hour = Some(2.49);
    s.batching = servecost::scenario::Batching::Static;
    s.kv_alloc = servecost::scenario::KvAlloc::Contiguous;
    s.max_model_len = Some(4096.0);
    expected.chart.y = servecost::present::chart::YAxis::UsdPerMOutput;
    assert_eq!(second, expected);

    let (third, notices) = decode("v=1&kv-precision=fp8&input-len=2048&output-len=28&input-sigma=1.36&output-sigma=0.85&max-num-seqs=256&chunk-tokens=8192&spec-decode=draft&spec-accept=0.6&spec-len=3&step-overhead-ms=1.5&moe-imbalance=1.2&embed=1&controls=model%2Cgpu%2Cgpus&theme=dark");
    assert!(notices.is_empty(), "{notices:?}");
    let mut expected = ViewState::default();
    let s = &mut expected.scenario;
    s.kv_precision = Some(servecost::physics::precision::KvPrecision::Fp8);
    s.input_len = 2048.0;
    s.output_len = 28.0;
    s.input_sigma = 1.36;
    s.output_sigma = 0.85;
    s.max_num_seqs = Some(256.0);
    s.chunk_tokens = Some(8192.0);
    s.spec_decode = Some(servecost::scenario::SpecMethod::Draft);
    s.spec_accept = Some(0.6);
    s.spec_len = Some(3.0);
    s.efficiency.step_overhead_ms = Some(1.5);
    s.efficiency.moe_imbalance = Some(1.2);
    s.usd_per_gpu_hour = legacy;
    expected.embed.embed = true;
    expected.embed.controls = vec!["model".into(), "gpu".into(), "gpus".into()];
    expected.embed.theme = Some(servecost::present::chart::Theme::Dark);
    assert_eq!(third, expected);
    // The old embed name of the GPU count still names a control.
    let (controls, notices) = embed_controls(&["gpu-count".to_string()]);
    assert!(notices.is_empty());
    assert_eq!(controls[0].key, "gpus");
}

/// A link carries the decision inputs too: a reopened link shows the same $/month and SLO point.
#[test]
fn decision_inputs_travel_in_links() {
    let (view, notices) = decode("v=1&slo-ttft-ms=800&slo-tpot-ms=40&slo-percentile=95&traffic=2000000000&traffic-unit=tokens-per-day&offered-load=30&blend-ratio=1&energy=on&energy-usd-per-kwh=0.2&gpus-allowed=h100-sxm%2Cl40s");
    assert!(notices.is_empty(), "{notices:?}");
    let d = &view.decision;
    assert_eq!(
        (d.slo_ttft_ms, d.slo_tpot_ms, d.slo_percentile),
        (Some(800.0), Some(40.0), 95.0)
    );
    assert_eq!(d.traffic, Some(2e9));
    assert!(d.energy_on);
    assert_eq!(
        d.gpus_allowed.as_deref(),
        Some(&["h100-sxm".to_string(), "l40s".to_string()][..])
    );
    assert_eq!(decode(&encode(&view)).0, view);
    // Defaults stay out of links.
    assert_eq!(encode(&ViewState::default()), "v=2");
}

fn library_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            // Test modules in their own folders (`src/page/tests/`) are tests, not library code.
            if path.file_name().is_some_and(|n| n != "tests") {
                library_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each key is written once, in the table; a second literal is allowed (an alias, a different
/// thing of the same name). Words that are also CSV column names of the measurement and
/// calibration files, or a CLI command (`servecost gpus`), are counted apart from their field.
#[test]
fn no_key_is_spelled_out_more_than_twice_in_the_library() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    library_files(&src, &mut files);
    let texts: Vec<String> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("read");
            text.split("#[cfg(test)]").next().unwrap_or("").to_string()
        })
        .collect();
    // (key, literals that name something else: CSV columns, a command, a table header)
    let other_meanings = [("concurrency", 3), ("gpu", 1), ("gpus", 1)];
    let mut offences = Vec::new();
    for field in FIELDS {
        let literal = format!("\"{}\"", field.key);
        let count: usize = texts.iter().map(|t| t.matches(&literal).count()).sum();
        let allowed = 2 + other_meanings
            .iter()
            .find(|(key, _)| *key == field.key)
            .map_or(0, |(_, extra)| *extra);
        if count > allowed {
            offences.push(format!(
                "{}: {count} literals (at most {allowed})",
                field.key
            ));
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

/// The explorer's first load is built without the session model (issue 27): there a session key
/// (and `workload` naming a session preset) is carried as given, without a notice, and written
/// back by `encode`, so the tools module reads it and a shared agentic view reopens as it was
/// (issue 27 §4); with it, `SESSION_KEYS` are exactly the session rows, the last rows of the
/// table.
#[test]
fn session_keys_are_the_session_rows_or_carried() {
    let link = "v=2&workload=agentic-coding&session-turns=20&fleet-agents=10&gpus=4";
    let (view, notices) = decode(link);
    assert_eq!(view.scenario.gpu_count, 4.0);
    assert!(notices.is_empty(), "{notices:?}");
    let again = servecost::share::encode(&view);
    assert_eq!(decode(&again).0, view, "{again}");
    #[cfg(feature = "session-model")]
    assert_eq!(view.scenario.session_turns, Some(20.0));
    if cfg!(feature = "session-model") {
        let last: Vec<&str> = FIELDS
            .iter()
            .rev()
            .take(SESSION_KEYS.len())
            .map(|f| f.key)
            .collect();
        for key in SESSION_KEYS {
            assert!(last.contains(key), "{key}");
        }
    } else {
        for key in ["workload", "session-turns", "fleet-agents"] {
            assert!(again.contains(&format!("{key}=")), "{again}");
        }
        // A workload naming no preset is still the table's error.
        let (_, notices) = decode("v=2&workload=agentic");
        assert_eq!(notices.len(), 1, "{notices:?}");
        for key in SESSION_KEYS {
            assert!(Field::by_key(key).is_none(), "{key}");
        }
    }
}

/// The preset ids a build without the session model carries are the presets'.
#[cfg(feature = "session-model")]
#[test]
fn carried_workloads_are_the_session_presets() {
    use servecost::choice::Choice;
    use servecost::scenario::session_preset::SessionPreset;
    let ids: Vec<&str> = SessionPreset::ALL.iter().map(|p| p.id()).collect();
    assert_eq!(ids, servecost::scenario::fields::SESSION_WORKLOADS);
}
