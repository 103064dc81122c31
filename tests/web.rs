//! Browser tests of the page (wasm-bindgen-test in headless Chromium): mount the real `App`,
//! drive its controls with bubbling DOM events as a user's browser would, wait for Yew with
//! `yew::scheduler::flush()`, and compare what the page shows with what the model computes.
//! Also the page's reducer, which needs no DOM but only builds for wasm32.
#![cfg(target_arch = "wasm32")]
// Tests assert by panicking. Clippy grants `#[test]` functions that (clippy.toml) but does not
// recognise `#[wasm_bindgen_test]` ones, so the same allowance is stated here.
#![allow(clippy::expect_used, clippy::panic)]

use servecost::model::pareto::{slider_to_concurrency, SLIDER_STEPS};
use servecost::model::{evaluate, sweep};
use servecost::report::format_usd;
use servecost::scenario::Scenario;
use servecost::ui::fields::Field;
use servecost::ui::state::{Action, State};
use servecost::ui::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const METRICS: [&str; 9] = [
    "output_tok_s",
    "output_tok_s_per_gpu",
    "tok_s_per_user",
    "tpot_ms",
    "ttft_ms",
    "max_concurrency",
    "usd_per_m_output",
    "usd_per_m_input",
    "usd_per_m_blended",
];

fn document() -> web_sys::Document {
    web_sys::window()
        .expect("window")
        .document()
        .expect("document")
}

/// Mount a fresh App in its own container and let it render and draw.
async fn mount() -> web_sys::Element {
    let root = document().create_element("div").expect("div");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    root
}

fn find(root: &web_sys::Element, selector: &str) -> web_sys::Element {
    root.query_selector(selector)
        .expect("valid selector")
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

fn text(root: &web_sys::Element, selector: &str) -> String {
    find(root, selector)
        .text_content()
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn metric(root: &web_sys::Element, name: &str) -> String {
    text(root, &format!("[data-metric=\"{name}\"]"))
}

fn metrics(root: &web_sys::Element) -> Vec<String> {
    METRICS.iter().map(|m| metric(root, m)).collect()
}

/// Dispatch a bubbling event (Yew listens at the app root, so it must bubble).
fn fire(element: &web_sys::Element, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init).expect("event");
    element.dispatch_event(&event).expect("dispatch");
}

/// Type `value` into an `<input>` and fire `input`, as a browser does on each keystroke.
async fn type_into(root: &web_sys::Element, selector: &str, value: &str) {
    let input: web_sys::HtmlInputElement = find(root, selector).dyn_into().expect("an <input>");
    input.set_value(value);
    fire(&input, "input");
    yew::scheduler::flush().await;
}

async fn choose(root: &web_sys::Element, selector: &str, value: &str) {
    let select: web_sys::HtmlSelectElement = find(root, selector).dyn_into().expect("a <select>");
    select.set_value(value);
    fire(&select, "change");
    yew::scheduler::flush().await;
}

fn draws() -> f64 {
    let window = web_sys::window().expect("window");
    js_sys::Reflect::get(&window, &"__servecostDraws".into())
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
}

fn update_measures() -> u32 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0, |p| {
            p.get_entries_by_name_with_entry_type("servecost:update", "measure")
                .length()
        })
}

#[wasm_bindgen_test]
async fn the_slider_moves_the_price_to_what_the_model_says() {
    let root = mount().await;
    let before = metric(&root, "usd_per_m_output");
    let scenario = Scenario::default_scenario().expect("default scenario");
    assert_eq!(
        before,
        format_usd(evaluate(&scenario).usd_per_m_output),
        "at load"
    );
    let (draws_before, measures_before) = (draws(), update_measures());
    assert!(draws_before >= 1.0, "the chart was drawn at start-up");

    type_into(&root, "#batch-size", &SLIDER_STEPS.to_string()).await;

    let concurrency = slider_to_concurrency(SLIDER_STEPS, scenario.engine_limit());
    let expected = format_usd(evaluate(&scenario.with_concurrency(concurrency)).usd_per_m_output);
    let after = metric(&root, "usd_per_m_output");
    assert_ne!(after, before);
    assert_eq!(after, expected, "C = {concurrency}");
    assert!(text(&root, ".slider-value").contains(&concurrency.to_string()));
    assert!(draws() > draws_before, "redrawn");
    assert!(
        update_measures() > measures_before,
        "a servecost:update measure per update"
    );
    // The far end is beyond the KV cache: the page says how many fit.
    let status = text(&root, "#kv-status");
    assert!(status.contains("Beyond KV capacity"), "{status}");
    assert!(
        status.contains(&scenario.kv_capacity().to_string()),
        "{status}"
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn an_invalid_input_length_names_the_field_and_keeps_the_last_view() {
    let root = mount().await;
    let good = metrics(&root);
    assert!(text(&root, "#input-error").is_empty());
    for bad in ["abc", "0", "", "-5"] {
        type_into(&root, "#input-len", bad).await;
        let message = text(&root, "#input-error");
        assert!(message.contains("Input length"), "{bad:?} -> {message:?}");
        assert_eq!(
            find(&root, "#input-error").get_attribute("role").as_deref(),
            Some("alert")
        );
        assert_eq!(
            find(&root, "#input-len")
                .get_attribute("aria-invalid")
                .as_deref(),
            Some("true")
        );
        assert_eq!(metrics(&root), good, "metrics kept after {bad:?}");
    }
    type_into(&root, "#input-len", "1155").await;
    assert!(text(&root, "#input-error").is_empty());
    assert_eq!(metrics(&root), good);
    root.remove();
}

#[wasm_bindgen_test]
async fn choosing_a_model_changes_throughput_and_a_gpu_without_specs_explains_itself() {
    let root = mount().await;
    let before = metric(&root, "output_tok_s");
    choose(&root, "#model", "llama-3.1-8b").await;
    assert_ne!(metric(&root, "output_tok_s"), before);
    choose(&root, "#model", "llama-3.1-70b").await;
    assert_eq!(metric(&root, "output_tok_s"), before, "deterministic");

    let option = find(&root, "#gpu option[value=\"h100-nvl\"]");
    assert!(option
        .text_content()
        .unwrap_or_default()
        .contains("spec incomplete"));
    let kept = metrics(&root);
    choose(&root, "#gpu", "h100-nvl").await;
    let message = text(&root, "#input-error");
    assert!(
        message.starts_with("GPU:") && message.contains("BF16"),
        "{message}"
    );
    assert_eq!(metrics(&root), kept);
    root.remove();
}

#[wasm_bindgen_test]
async fn every_metric_is_focusable_and_described() {
    let root = mount().await;
    for name in METRICS {
        let value = find(&root, &format!("[data-metric=\"{name}\"]"));
        assert!(
            value
                .text_content()
                .unwrap_or_default()
                .chars()
                .any(|c| c.is_ascii_digit()),
            "{name}"
        );
        let holder = value
            .closest(".metric")
            .ok()
            .flatten()
            .expect("inside a .metric");
        assert_eq!(
            holder.get_attribute("tabindex").as_deref(),
            Some("0"),
            "{name}"
        );
        let tip_id = holder
            .get_attribute("aria-describedby")
            .expect("aria-describedby");
        let tip = find(&root, &format!("#{tip_id}"));
        assert!(
            !tip.text_content().unwrap_or_default().is_empty(),
            "{name} has a definition"
        );
    }
    for id in [
        "model",
        "gpu",
        "gpu-count",
        "tp",
        "precision",
        "kv-precision",
        "input-len",
        "output-len",
        "usd-per-gpu-hour",
        "batch-size",
    ] {
        let label = root
            .query_selector(&format!("label[for=\"{id}\"]"))
            .expect("selector");
        assert!(label.is_some(), "#{id} has a <label>");
    }
    assert!(!text(&root, "#assumptions-text").is_empty());
    root.remove();
}

#[wasm_bindgen_test]
fn the_fatal_error_banner_offers_a_reload() {
    servecost::ui::panic::show_fatal_error("stopped", "details").expect("shown");
    let banner = document()
        .get_element_by_id("fatal-error")
        .expect("#fatal-error");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(banner.query_selector("button").expect("selector").is_some());
    banner.remove();
}

#[wasm_bindgen_test]
fn slider_moves_keep_the_curve_and_edits_resweep_only_when_needed() {
    let state = State::initial();
    let view = state.view.clone().expect("default view");
    // Same position: nothing to do (no re-render).
    assert!(state
        .apply(Action::MoveSlider(state.slider_position))
        .is_none());
    let moved = state.apply(Action::MoveSlider(0)).expect("moved");
    let moved_view = moved.view.clone().expect("view");
    assert_eq!(moved_view.concurrency(), 1);
    assert!(
        moved_view.curve == view.curve,
        "the same Rc: no re-sweep on a slider move"
    );
    assert_eq!(*moved_view.curve, sweep(&view.scenario));
    // Typing the same number differently keeps the curve too.
    let same = state
        .apply(Action::Edit(Field::InputLen, "1155.0".into()))
        .expect("edited");
    assert!(same.view.expect("view").curve == view.curve);
    let longer = state
        .apply(Action::Edit(Field::InputLen, "4000".into()))
        .expect("edited");
    assert!(longer.view.expect("view").curve != view.curve);
}

#[wasm_bindgen_test]
fn a_bad_field_stays_an_error_while_another_field_changes() {
    let state = State::initial();
    let bad = state
        .apply(Action::Edit(Field::OutputLen, "lots".into()))
        .expect("edited");
    assert_eq!(
        bad.error.as_ref().map(|e| e.field.as_str()),
        Some("output-len")
    );
    let still = bad
        .apply(Action::Edit(Field::InputLen, "2000".into()))
        .expect("edited");
    assert_eq!(
        still.error.as_ref().map(|e| e.field.as_str()),
        Some("output-len")
    );
    assert!(still.view == state.view, "the last good view stays");
    let fixed = still
        .apply(Action::Edit(Field::OutputLen, "300".into()))
        .expect("edited");
    assert!(fixed.error.is_none());
    assert_eq!(
        fixed.view.expect("view").scenario.workload.input_mean,
        2000.0
    );
}

#[wasm_bindgen_test]
fn a_new_gpu_brings_its_catalog_price_and_scenario_errors_name_their_field() {
    let state = State::initial();
    let mi300x = state
        .apply(Action::Edit(Field::Gpu, "mi300x".into()))
        .expect("edited");
    assert_eq!(mi300x.texts.usd_per_gpu_hour, "1.68");
    assert!(mi300x.error.is_none(), "{:?}", mi300x.error);
    let three = state
        .apply(Action::Edit(Field::GpuCount, "3".into()))
        .expect("edited");
    let error = three.error.expect("70B FP8 does not split over 3 GPUs");
    assert_eq!(error.field, "gpu-count");
    assert!(error.text().starts_with("GPU count:"), "{}", error.text());
}
