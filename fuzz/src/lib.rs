//! Fuzz harnesses for every decoder of outside input, one function per target, each taking the
//! raw bytes a user (or a hostile link) could hand the page or the CLI.
//!
//! Each harness decodes, and whatever decodes is then taken down the same path the page takes
//! (validate, evaluate, sweep, draw the chart), because a panic anywhere on that path kills the
//! page. Where the format promises more than "no panic", the harness checks it too: a decoded
//! link encodes to a link that decodes to the same view, and an exported JSON file imports back
//! to the same view. A failed check panics, which is how libFuzzer learns of it.
//!
//! This file is compiled twice: as the library of the `servecost-fuzz` crate (the libFuzzer
//! binaries in `fuzz_targets/` call it) and, through `#[path]`, into `tests/fuzz_corpus.rs`,
//! which replays the committed corpus and every regression natively in `cargo test`.

use servecost::calibration::calibrate::parse_measurements;
use servecost::calibration::validate::{render, validate};
use servecost::catalog::parse_hf_config;
use servecost::json;
use servecost::model::{evaluate, sweep};
use servecost::present::assumptions::assumptions;
use servecost::present::chart::{
    render_svg, render_svg_with, ChartOptions, Marker, Overlay, Theme, MAX_PINNED_CURVES,
    MAX_TEXT_POINTS,
};
use servecost::scenario::{EfficiencyOverrides, Scenario, ScenarioInput};
use servecost::share::{
    decode, encode, from_json, sanitize, scenario_pairs, to_json, ViewState, MAX_VALUE_LEN,
};
use std::cell::RefCell;
use std::collections::HashSet;

/// A harness: takes the raw input, panics on a crash or a broken promise.
pub type Harness = fn(&[u8]);

/// Every target: its name (the directory under `corpus/` and `regressions/`) and its harness.
pub const TARGETS: &[(&str, Harness)] = &[
    ("url_state", url_state),
    ("scenario_json", scenario_json),
    ("hf_config", hf_config),
    ("measurements", measurements),
    ("validate_csv", validate_csv),
    ("chart_overlay", chart_overlay),
];

/// Scenarios already shown in this process, by their link (most mutated inputs decode to a
/// scenario seen before, often the default one; sweeping it again finds nothing new and costs
/// milliseconds). A crash still reproduces on its own: a fresh process has shown nothing.
const SHOWN_LIMIT: usize = 100_000;
thread_local! {
    static SHOWN: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
}

/// `show`, unless this scenario was shown before in this process.
fn show_once(input: &ScenarioInput, scenario: &Scenario) {
    let link = encode(&ViewState {
        scenario: input.clone(),
        ..ViewState::default()
    });
    let first_time = SHOWN.with(|shown| {
        let mut shown = shown.borrow_mut();
        shown.len() >= SHOWN_LIMIT || shown.insert(link)
    });
    if first_time {
        show(scenario);
    }
}

/// What the page does with a valid scenario: clamp the concurrency to the engine limit (as
/// `ui::state::View::compute` does), evaluate the point, sweep the curve, write the assumptions
/// and draw the chart (to SVG here, to a canvas in the page; the drawing code is the same).
fn show(scenario: &Scenario) {
    let limit = scenario.engine_limit().max(1);
    let scenario = if scenario.concurrency > limit {
        scenario.with_concurrency(limit)
    } else {
        scenario.clone()
    };
    let point = evaluate(&scenario);
    let curve = sweep(&scenario);
    let _ = assumptions(&scenario, &point);
    let options = ChartOptions {
        theme: Theme::Light,
        scale: 1.0,
    };
    let _ = render_svg(&curve, &Marker::from(&point), &options, (640, 400));
}

/// URL state (`?model=...&gpus=...&pin=...`): `share::decode`, then `share::sanitize` and the
/// page's path for the main scenario and every pin. The link a decoded view encodes to must be a
/// fixed point: it decodes without notices to a view that encodes to the same link (so a shared
/// link reproduces what it showed; defaults may be spelled out or left out, e.g. `x=interactivity`).
pub fn url_state(data: &[u8]) {
    let query = String::from_utf8_lossy(data);
    let (view, mut notices) = decode(&query);

    let link = encode(&view);
    let (again, again_notices) = decode(&link);
    assert_eq!(
        encode(&again),
        link,
        "the link changed on a round trip: {view:?} -> {again:?}"
    );
    assert!(
        again_notices.is_empty(),
        "re-decoding our own link {link:?} gave notices {again_notices:?}"
    );

    for input in std::iter::once(view.scenario).chain(view.pins) {
        if let Some((input, scenario)) = sanitize(input, &mut notices) {
            show_once(&input, &scenario);
        }
    }
}

/// Scenario JSON import (`share::from_json`). An accepted file is a valid scenario; it is shown,
/// and exporting it again (`to_json`) imports back to the same view.
pub fn scenario_json(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(view) = from_json(&text) else {
        return;
    };
    let scenario = Scenario::try_from(view.scenario.clone());
    assert!(
        scenario.is_ok(),
        "from_json accepted an invalid scenario: {scenario:?}"
    );
    if let Ok(scenario) = scenario {
        show_once(&view.scenario, &scenario);
    }
    let exported = to_json(&view);
    let again = from_json(&exported);
    assert_eq!(
        again.as_ref(),
        Ok(&view),
        "from_json(to_json(view)) != view for export {exported}"
    );
}

/// The JSON reader and writer every browser-side decoder uses (`servecost::json`): whatever
/// parses writes (compact and pretty) to text that parses back to the same value.
fn json_round_trip(text: &str) {
    let Ok(value) = json::parse(text) else {
        return;
    };
    for written in [value.to_json(), value.to_json_pretty()] {
        assert_eq!(
            json::parse(&written).as_ref(),
            Ok(&value),
            "JSON changed on a round trip through {written}"
        );
    }
}

/// A pasted Hugging Face `config.json`: first as plain JSON (`json_round_trip`), then through
/// `catalog::parse_hf_config`. A parsed model becomes the `custom` model of the default
/// scenario; if that validates, it is shown. The custom model
/// travels through a link unchanged, unless its description is longer than a link value may be
/// (`share::MAX_VALUE_LEN`, or the link longer than `MAX_QUERY_LEN`): then decoding the link must
/// say so in a notice, never drop it silently.
pub fn hf_config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    json_round_trip(&text);
    let Ok(spec) = parse_hf_config(&text) else {
        return;
    };
    let input = ScenarioInput {
        model: "custom".into(),
        custom_model: Some(spec),
        ..ScenarioInput::default()
    };
    if let Ok(scenario) = Scenario::try_from(input.clone()) {
        show_once(&input, &scenario);
    }
    let view = ViewState {
        scenario: input,
        ..ViewState::default()
    };
    let link = encode(&view);
    let (again, notices) = decode(&link);
    let description_len = scenario_pairs(&view.scenario)
        .into_iter()
        .find(|(key, _)| *key == "custom-model")
        .map_or(0, |(_, value)| value.len());
    if description_len > MAX_VALUE_LEN {
        // Named as too long itself, or the whole link is (MAX_QUERY_LEN after percent-encoding).
        assert!(
            !notices.is_empty(),
            "a {description_len}-byte custom model was dropped from a link without a notice"
        );
        return;
    }
    assert!(
        notices.is_empty(),
        "custom model link {link:?}: {notices:?}"
    );
    assert_eq!(
        again, view,
        "custom model changed on its way through {link:?}"
    );
}

/// Imported benchmark results, CSV or `vllm bench serve` JSON (`calibrate::parse_measurements`).
/// Whatever is accepted is a non-empty list of points with a whole concurrency of at least 1 and
/// positive, finite metrics, at least one per point.
pub fn measurements(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(points) = parse_measurements(&text) else {
        return;
    };
    assert!(!points.is_empty(), "accepted an empty list of points");
    for point in &points {
        assert!(point.concurrency >= 1, "concurrency 0 accepted: {point:?}");
        let metrics = [point.output_tok_s, point.tpot_ms, point.ttft_ms];
        assert!(
            metrics.iter().any(Option::is_some),
            "a point without metrics: {point:?}"
        );
        for value in metrics.into_iter().flatten() {
            assert!(
                value.is_finite() && value > 0.0,
                "non-positive metric: {point:?}"
            );
        }
    }
}

/// A measurements CSV for `servecost validate` (`validate::validate`): every row is predicted
/// by the model, and the report is rendered as text.
pub fn validate_csv(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(report) = validate(&text, &EfficiencyOverrides::default()) {
        let _ = render(&report);
    }
}

/// Chart overlay text (`Overlay::decode`): what the page's second module sends the explorer to
/// draw on its chart (pinned curves, SLO misses), through a DOM event any script on the page
/// could also send. Whatever arrives decodes to at most `MAX_PINNED_CURVES` curves of at most
/// `MAX_TEXT_POINTS` finite points, re-encodes to a fixed point, and draws on the default chart.
pub fn chart_overlay(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let overlay = Overlay::decode(&text);
    assert!(overlay.pins.len() <= MAX_PINNED_CURVES, "{overlay:?}");
    assert!(overlay.slo_missed.len() <= MAX_TEXT_POINTS);
    for pin in &overlay.pins {
        assert!(pin.points.len() <= MAX_TEXT_POINTS);
        assert!(
            pin.points
                .iter()
                .all(|p| p.tok_s_per_user.is_finite() && p.output_tok_s_per_gpu.is_finite()),
            "{pin:?}"
        );
    }
    let again = Overlay::decode(&overlay.encode());
    assert_eq!(
        Overlay::decode(&again.encode()),
        again,
        "not a fixed point: {overlay:?}"
    );
    assert_eq!(again.pins.len(), overlay.pins.len());
    assert_eq!(again.slo_missed, overlay.slo_missed);

    thread_local! {
        static DEFAULT: Option<(servecost::model::Curve, Marker)> = Scenario::default_scenario()
            .ok()
            .map(|scenario| (sweep(&scenario), Marker::from(&evaluate(&scenario))));
    }
    DEFAULT.with(|default| {
        let Some((curve, marker)) = default else {
            panic!("the default scenario does not validate");
        };
        let _ = render_svg_with(
            curve,
            marker,
            &overlay,
            &ChartOptions::default(),
            (640, 400),
        );
    });
}
