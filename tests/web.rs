//! Browser tests of the page (wasm-bindgen-test in headless Chromium): mount the real `App`,
//! drive its controls with bubbling DOM events as a user's browser would, wait for Yew with
//! `yew::scheduler::flush()`, and compare what the page shows with what the model computes.
//! Only what needs a DOM is here: the page state and its reducers are native unit tests
//! (`src/page/tests/`).
#![cfg(target_arch = "wasm32")]
// Tests assert by panicking. Clippy grants `#[test]` functions that (clippy.toml) but does not
// recognise `#[wasm_bindgen_test]` ones, so the same allowance is stated here.
#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

use servecost::model::evaluate;
use servecost::model::pareto::{slider_to_concurrency, SLIDER_STEPS};
use servecost::scenario::Scenario;
use servecost::ui::widgets::price::usd_or_dash;
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

/// Mount a fresh page in its own container, as `index.html` lays it out: the masthead's share
/// slot, the explorer `App` in one element and, beside it, the `#tools` element the page's second module (`ui::tools`: the
/// simulator, decision and glossary panels) mounts into. Both render here from this one test
/// module; they talk through the `#tools` element exactly as the two modules of the real page do.
async fn mount_props(mut props: servecost::ui::explorer::app::AppProps) -> web_sys::Element {
    let root = document().create_element("div").expect("div");
    root.set_class_name("page");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    let share_slot = document().create_element("div").expect("div");
    share_slot.set_id(servecost::ui::platform::bridge::SHARE_SLOT_ID);
    root.append_child(&share_slot).expect("append");
    let app_root = document().create_element("div").expect("div");
    let tools = document().create_element("div").expect("div");
    tools.set_id(servecost::ui::platform::bridge::TOOLS_ROOT_ID);
    root.append_child(&app_root).expect("append");
    root.append_child(&tools).expect("append");
    props.tools = Some(tools.clone());
    yew::Renderer::<App>::with_root_and_props(app_root, props).render();
    yew::scheduler::flush().await;
    // As on the real page, the tools come only where the explorer links them (not in the embed).
    if tools.has_attribute(servecost::ui::platform::bridge::STATE_ATTR) {
        assert!(servecost::ui::tools::mount(Some(&root)), "the tools mount");
        // They mount in stages, a task each; the footer comes last.
        assert!(
            eventually(5_000, || tools
                .query_selector(".footer")
                .ok()
                .flatten()
                .is_some())
            .await,
            "the tools finish mounting"
        );
    }
    settle().await;
    root
}

/// Mount a fresh page with the built-in scenario and let it render and draw.
async fn mount() -> web_sys::Element {
    mount_props(servecost::ui::explorer::app::AppProps::default()).await
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

/// Let Yew render, then let the tools follow: the explorer writes its state on the `#tools`
/// element, and the tools sync to it in a zero-delay timeout of their own (`ui::tools`), which
/// may in turn send a state back. Two timer turns cover the round trip.
async fn settle() {
    yew::scheduler::flush().await;
    for _ in 0..2 {
        sleep(0).await;
        yew::scheduler::flush().await;
    }
}

/// Type `value` into an `<input>` and fire `input`, as a browser does on each keystroke.
async fn type_into(root: &web_sys::Element, selector: &str, value: &str) {
    let input: web_sys::HtmlInputElement = find(root, selector).dyn_into().expect("an <input>");
    input.set_value(value);
    fire(&input, "input");
    settle().await;
}

async fn choose(root: &web_sys::Element, selector: &str, value: &str) {
    let select: web_sys::HtmlSelectElement = find(root, selector).dyn_into().expect("a <select>");
    select.set_value(value);
    fire(&select, "change");
    settle().await;
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
        usd_or_dash(evaluate(&scenario).usd_per_m_output),
        "at load"
    );
    let (draws_before, measures_before) = (draws(), update_measures());
    assert!(draws_before >= 1.0, "the chart was drawn at start-up");

    type_into(&root, "#batch-size", &SLIDER_STEPS.to_string()).await;

    let concurrency = slider_to_concurrency(SLIDER_STEPS, scenario.engine_limit());
    let expected = usd_or_dash(evaluate(&scenario.with_concurrency(concurrency)).usd_per_m_output);
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

    let option = find(&root, "#gpu option[value=\"a10g\"]");
    assert!(option
        .text_content()
        .unwrap_or_default()
        .contains("spec incomplete"));
    let kept = metrics(&root);
    choose(&root, "#gpu", "a10g").await;
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
        "gpus",
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
    servecost::ui::platform::panic::show_fatal_error("stopped", "details").expect("shown");
    let banner = document()
        .get_element_by_id("fatal-error")
        .expect("#fatal-error");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(banner.query_selector("button").expect("selector").is_some());
    banner.remove();
}

// ------------------------------------------------------------------ share, embed, glossary

use servecost::share::decode;
use servecost::ui::explorer::app::AppProps;
use servecost::ui::widgets::metric::group_thousands;

/// Mount an App that opens `query` (as a link would), without touching the page's URL.
async fn mount_link(query: &str) -> web_sys::Element {
    mount_props(AppProps {
        query: Some(query.to_string().into()),
        ..AppProps::default()
    })
    .await
}

/// What the page should show for `scenario`, metric by metric (same order as `METRICS`).
fn expected_metrics(scenario: &Scenario) -> Vec<String> {
    let p = evaluate(scenario);
    let number = |v: f64| group_thousands(&servecost::present::format::format_number(v));
    vec![
        number(p.output_tok_s),
        number(p.output_tok_s_per_gpu),
        number(p.tok_s_per_user),
        number(p.tpot_ms),
        number(p.ttft_ms),
        group_thousands(&p.max_concurrency.to_string()),
        usd_or_dash(p.usd_per_m_output),
        usd_or_dash(p.usd_per_m_input),
        usd_or_dash(p.usd_per_m_blended),
    ]
}

/// Wait `ms` milliseconds (a macrotask, so timers due before it have run).
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("timer");
}

const LINK: &str = "v=2&model=llama-3.1-8b&gpu=a100-sxm-80gb&gpus=2&precision=bf16&input-len=2000&output-len=300&usd-per-gpu-hour=1.8&concurrency=37";

#[wasm_bindgen_test]
async fn a_link_reproduces_the_numbers_of_the_scenario_it_names() {
    let root = mount_link(LINK).await;
    let (view, notices) = decode(LINK);
    assert!(notices.is_empty(), "{notices:?}");
    let scenario = Scenario::try_from(view.scenario.clone()).expect("valid link");
    assert_eq!(metrics(&root), expected_metrics(&scenario));
    assert_ne!(
        metrics(&root),
        expected_metrics(&Scenario::default_scenario().expect("default")),
        "not just the defaults"
    );
    let model: web_sys::HtmlSelectElement = find(&root, "#model").dyn_into().expect("select");
    assert_eq!(model.value(), "llama-3.1-8b");
    assert!(text(&root, ".slider-value").contains("37"));
    assert!(root
        .query_selector("#url-notice")
        .expect("selector")
        .is_none());
    // That the state encodes back to the same link is a native test
    // (`page::tests::state::a_link_builds_a_state_that_encodes_back_to_the_same_link`).
    root.remove();
}

#[wasm_bindgen_test]
async fn a_hostile_link_shows_a_notice_as_text_and_the_defaults() {
    let hostile = "gpus=abc&model=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&tp=3&%E0%A4%A&pin=tp:5&x=evil&theme=%3Cb%3E&zzz=1";
    let root = mount_link(hostile).await;
    let notice = find(&root, "#url-notice");
    assert_eq!(notice.get_attribute("role").as_deref(), Some("status"));
    let said = notice.text_content().unwrap_or_default();
    for field in ["gpus", "model", "tp", "zzz", "x="] {
        assert!(said.contains(field), "{field} named in {said:?}");
    }
    assert!(said.contains("theme=`<b>`"), "quoted as text: {said:?}");
    assert!(
        root.query_selector("img, b").expect("selector").is_none(),
        "never markup"
    );
    assert_eq!(
        metrics(&root),
        expected_metrics(&Scenario::default_scenario().expect("default"))
    );
    // Dismissing the notice removes it; the page keeps working.
    let dismiss = find(&root, "#url-notice button");
    dismiss
        .dyn_ref::<web_sys::HtmlElement>()
        .expect("button")
        .click();
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("#url-notice")
        .expect("selector")
        .is_none());
    type_into(&root, "#batch-size", "0").await;
    assert!(text(&root, ".slider-value").contains('1'));
    root.remove();

    let too_long = format!("v=2&model={}", "a".repeat(20_000));
    let root = mount_link(&too_long).await;
    assert!(text(&root, "#url-notice").contains("limit"));
    root.remove();
}

#[wasm_bindgen_test]
async fn the_embed_widget_shows_chart_slider_cost_and_only_the_controls_asked_for() {
    let root = mount_link("v=2&embed=1&model=llama-3.1-8b&gpus=1&controls=gpu,bogus").await;
    find(&root, "#embed");
    find(&root, "#pareto-chart");
    assert!(root
        .query_selector(".masthead, .share-bar, #glossary")
        .expect("selector")
        .is_none());
    assert!(root.query_selector("#gpu").expect("selector").is_some());
    assert!(root.query_selector("#model").expect("selector").is_none());
    assert!(text(&root, "#url-notice").contains("bogus"));
    let href = find(&root, "#open-explorer")
        .get_attribute("href")
        .expect("href");
    assert!(
        href.contains("model=llama-3.1-8b") && href.contains("gpus=1"),
        "{href}"
    );
    assert!(
        !href.contains("embed") && !href.contains("controls"),
        "{href}"
    );
    let open = find(&root, "#open-explorer");
    assert_eq!(open.get_attribute("target").as_deref(), Some("_blank"));
    assert_eq!(open.get_attribute("rel").as_deref(), Some("noopener"));

    // The conditions line says which price the cost assumes and its basis (the link names
    // none: the GPU's catalog typical quote, issue 26 §6), with precision and lengths (28 §5).
    let conditions = text(&root, "#embed-conditions");
    assert!(
        conditions.contains(" in / ") && conditions.ends_with("/GPU-h, catalog typical"),
        "{conditions}"
    );
    // Cost and throughput carry their expected error, as in the explorer.
    for name in ["usd_per_m_output", "output_tok_s_per_gpu"] {
        let error = text(&root, &format!("#embed [data-error={name}]"));
        assert!(
            error.starts_with('±') && error.ends_with('%'),
            "{name}: {error}"
        );
    }
    let before = metric(&root, "usd_per_m_output");
    type_into(&root, "#batch-size", &SLIDER_STEPS.to_string()).await;
    assert_ne!(metric(&root, "usd_per_m_output"), before);
    let moved = find(&root, "#open-explorer")
        .get_attribute("href")
        .expect("href");
    assert!(
        moved.contains("concurrency="),
        "the link follows the slider: {moved}"
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn every_glossary_term_appears_with_its_definition() {
    let root = mount().await;
    for term in servecost::present::glossary::TERMS {
        let element = find(&root, &format!("[data-term=\"{}\"]", term.id));
        let shown = element.text_content().unwrap_or_default();
        let defined = root
            .query_selector(&format!("[data-term=\"{}\"] + dd", term.id))
            .expect("selector")
            .and_then(|dd| dd.text_content())
            .unwrap_or_default();
        assert!(
            shown.contains(term.definition) || defined == term.definition,
            "{} has its definition",
            term.id
        );
    }
    // The chart title's terms are focusable and described by their tooltip.
    let throughput = find(&root, "#chart-title [data-term=\"throughput\"]");
    assert_eq!(throughput.get_attribute("tabindex").as_deref(), Some("0"));
    let tip = throughput
        .get_attribute("aria-describedby")
        .expect("described");
    assert_eq!(
        text(&root, &format!("#{tip}")),
        servecost::present::glossary::THROUGHPUT.definition
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn the_page_writes_its_link_and_remembers_the_scenario_after_a_pause() {
    let window = web_sys::window().expect("window");
    let history = window.history().expect("history");
    let original = window.location().href().expect("href");
    let storage = window.local_storage().expect("storage").expect("storage");
    let saved = storage
        .get_item(servecost::ui::platform::share_sync::STORAGE_KEY)
        .expect("get");
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("?v=2&gpus=4&tp=4"))
        .expect("replaceState");

    let root = mount_props(AppProps {
        sync_location: true,
        ..AppProps::default()
    })
    .await;
    let four: web_sys::HtmlInputElement = find(&root, "#gpus").dyn_into().expect("input");
    assert_eq!(four.value(), "4", "the URL's scenario");

    type_into(&root, "#batch-size", "0").await;
    let search = || window.location().search().expect("search");
    assert!(
        !search().contains("concurrency="),
        "not written on every input event"
    );
    sleep(450).await;
    let written = search();
    assert!(
        written.starts_with("?v=2&") && written.contains("gpus=4"),
        "{written}"
    );
    assert!(written.contains("concurrency=1"), "{written}");
    let remembered = storage
        .get_item(servecost::ui::platform::share_sync::STORAGE_KEY)
        .expect("get")
        .expect("remembered");
    assert_eq!(decode(&remembered).0.scenario.gpu_count, 4.0);

    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&original))
        .expect("restore the URL");
    match saved {
        Some(text) => storage.set_item(servecost::ui::platform::share_sync::STORAGE_KEY, &text),
        None => storage.remove_item(servecost::ui::platform::share_sync::STORAGE_KEY),
    }
    .expect("restore storage");
    root.remove();
}

// ------------------------------------------- decision tools: compare, plan, calibrate, cost

async fn click(root: &web_sys::Element, selector: &str) {
    let element: web_sys::HtmlElement = find(root, selector).dyn_into().expect("an element");
    element.click();
    settle().await;
}

fn count(root: &web_sys::Element, selector: &str) -> u32 {
    root.query_selector_all(selector)
        .expect("selector")
        .length()
}

/// Paste into a `<textarea>` (fires `input`, as typing does).
async fn paste(root: &web_sys::Element, selector: &str, value: &str) {
    let area: web_sys::HtmlTextAreaElement = find(root, selector).dyn_into().expect("a <textarea>");
    area.set_value(value);
    fire(&area, "input");
    settle().await;
}

#[wasm_bindgen_test]
async fn pinning_scenarios_fills_the_compare_table_and_a_fifth_is_refused() {
    let root = mount().await;
    assert_eq!(
        count(&root, "#compare-table tbody tr"),
        1,
        "the current scenario only"
    );
    let draws_before = draws();
    click(&root, "#pin").await;
    choose(&root, "#model", "llama-3.1-8b").await;
    click(&root, "#pin").await;
    let rows = count(&root, "#compare-table tbody tr");
    assert_eq!(rows, 3, "current + two pins");
    let table = text(&root, "#compare-table");
    assert!(table.contains("pin 1: Llama 3.1 70B"), "{table}");
    // The default price is the catalog's typical quote, and every row says so (issue 26 §6).
    assert!(table.contains("(catalog typical, as of "), "{table}");
    assert!(table.contains("pin 2: Llama 3.1 8B"), "{table}");
    assert!(draws() > draws_before, "the pinned curves are drawn");
    // Each row has numbers: throughput at the SLO, $/M and GPUs for the default traffic.
    for cell in [
        "tok_s_per_gpu",
        "usd_per_m_output",
        "gpus_needed",
        "usd_per_month",
    ] {
        let selector = format!("#compare-table tbody tr:nth-child(3) [data-col=\"{cell}\"]");
        assert!(
            text(&root, &selector).chars().any(|c| c.is_ascii_digit()),
            "{cell}"
        );
    }
    // Pinning the same scenario again is refused with a message.
    click(&root, "#pin").await;
    assert!(text(&root, "#pins-notice").contains("already pinned"));
    assert_eq!(count(&root, "#compare-table tbody tr"), 3);
    // Two more, then the fifth is refused.
    type_into(&root, "#input-len", "4000").await;
    click(&root, "#pin").await;
    type_into(&root, "#output-len", "800").await;
    click(&root, "#pin").await;
    assert_eq!(count(&root, "#compare-table tbody tr"), 5);
    assert!(text(&root, "#pins-notice").is_empty());
    type_into(&root, "#output-len", "900").await;
    click(&root, "#pin").await;
    assert_eq!(
        count(&root, "#compare-table tbody tr"),
        5,
        "at most four pins"
    );
    assert!(text(&root, "#pins-notice").contains("at most 4"));
    // Unpin the first: the 8B pin becomes pin 1, named by what differs from the current 8B
    // scenario (its lengths, issue 28 §4).
    click(&root, "#unpin-1").await;
    assert_eq!(count(&root, "#compare-table tbody tr"), 4);
    let table = text(&root, "#compare-table");
    assert!(table.contains("pin 1: Input length 1155 tokens"), "{table}");
    root.remove();
}

#[wasm_bindgen_test]
async fn the_plan_button_ranks_the_cheapest_configurations_and_apply_loads_one() {
    let root = mount().await;
    choose(&root, "#model", "llama-3.1-8b").await;
    type_into(&root, "#slo-ttft-ms", "2000").await;
    type_into(&root, "#slo-tpot-ms", "50").await;
    assert_eq!(count(&root, "#plan-results"), 0, "not run on input");
    // The buyer's rules: no 4-bit weights unless ticked, an 80 % ceiling, 8 GPUs per server.
    let checked = |selector: &str| {
        find(&root, selector)
            .dyn_into::<web_sys::HtmlInputElement>()
            .expect("a checkbox")
            .checked()
    };
    assert!(checked("#plan-precision-bf16") && checked("#plan-precision-fp8"));
    assert!(!checked("#plan-precision-fp4") && !checked("#plan-precision-int4"));
    assert_eq!(input_value(&root, "#max-utilization"), "0.8");
    assert_eq!(input_value(&root, "#gpus-per-node"), "8");
    click(&root, "#plan-run").await;
    // The cheapest are re-searched in the simulator (about 1.5 s in a release build here; this
    // is a debug build on a machine that may be busy): the bound is generous, speed is not
    // what this checks.
    assert!(
        eventually(30_000, || count(&root, "#plan-results") > 0).await,
        "the plan finishes"
    );
    let rows = count(&root, "#plan-results tbody tr");
    assert!(rows >= 2, "{rows} candidates");
    let months: Vec<f64> = (1..=rows)
        .map(|i| {
            text(
                &root,
                &format!("#plan-results tbody tr:nth-child({i}) [data-col=\"usd_per_month\"]"),
            )
            .replace(['$', ','], "")
            .parse::<f64>()
            .expect("a dollar amount")
        })
        .collect();
    assert!(
        months.windows(2).all(|w| matches!(w, [a, b] if a <= b)),
        "ranked: {months:?}"
    );
    assert!(text(&root, "#plan-rejected").contains("Why the others lost"));
    // Each listed candidate's tails come from the simulator; the table downloads as CSV.
    assert_eq!(count(&root, "#plan-results [data-col=\"slo_check\"]"), rows);
    assert!(text(
        &root,
        "#plan-results tbody tr:nth-child(1) [data-col=\"slo_check\"]"
    )
    .contains("simulated"));
    assert_eq!(count(&root, "#plan-csv"), 1);
    assert_eq!(count(&root, "#compare-csv"), 1);
    // Apply the cheapest: the scenario takes its GPU and GPU count.
    let gpu = text(&root, "#plan-results tbody tr:nth-child(1) th");
    let total = text(
        &root,
        "#plan-results tbody tr:nth-child(1) [data-col=\"total_gpus\"]",
    );
    click(&root, "#plan-apply-1").await;
    let count_box: web_sys::HtmlInputElement = find(&root, "#gpus").dyn_into().expect("input");
    assert_eq!(count_box.value(), total);
    assert!(text(&root, ".subtitle").contains(&gpu), "{gpu}");
    root.remove();
}

#[wasm_bindgen_test]
async fn the_leaderboard_ranks_every_gpu_once_in_view_sorts_and_loads_a_row() {
    let root = mount().await;
    choose(&root, "#model", "llama-3.1-8b").await;
    assert_eq!(count(&root, "#leaderboard"), 0, "not computed out of view");
    find(&root, ".leaderboard-panel").scroll_into_view();
    assert!(
        eventually(60_000, || count(&root, "#leaderboard tbody tr") > 0).await,
        "the leaderboard fills once in view: {}",
        text(&root, "#leaderboard-status")
    );
    let rows = count(&root, "#leaderboard tbody tr");
    assert!(rows >= 10, "{rows} rows");
    assert!(
        text(&root, "#leaderboard").contains("no price"),
        "unpriced GPUs are marked"
    );
    let column = |name: &str| -> Vec<String> {
        (1..=rows)
            .map(|i| {
                text(
                    &root,
                    &format!("#leaderboard tbody tr:nth-child({i}) [data-col=\"{name}\"]"),
                )
            })
            .collect()
    };
    let numbers = |name: &str| -> Vec<f64> {
        column(name)
            .iter()
            .map(|t| t.replace([',', '$'], "").parse::<f64>().expect("a number"))
            .collect()
    };
    // Ranked by $/M, the unpriced last.
    let prices = column("usd-m");
    let first_unpriced = prices
        .iter()
        .position(|p| p == "no price")
        .expect("an unpriced row");
    assert!(
        prices[first_unpriced..].iter().all(|p| p == "no price"),
        "{prices:?}"
    );
    // Load the first row: the explorer takes its GPU count.
    let gpus = text(
        &root,
        "#leaderboard tbody tr:nth-child(1) [data-col=\"replica-gpus\"]",
    );
    click(&root, "#leaderboard-load-1").await;
    settle().await;
    let count_box: web_sys::HtmlInputElement = find(&root, "#gpus").dyn_into().expect("input");
    assert_eq!(count_box.value(), gpus);
    // Sorting by throughput: descending first, then ascending; aria-sort says which.
    click(&root, "#leaderboard-sort-tok-s-gpu").await;
    let header = find(&root, "#leaderboard-sort-tok-s-gpu")
        .parent_element()
        .expect("th");
    assert_eq!(
        header.get_attribute("aria-sort").as_deref(),
        Some("descending")
    );
    let down = numbers("tok-s-gpu");
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
    click(&root, "#leaderboard-sort-tok-s-gpu").await;
    assert_eq!(
        header.get_attribute("aria-sort").as_deref(),
        Some("ascending")
    );
    let up = numbers("tok-s-gpu");
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
    root.remove();
}

#[wasm_bindgen_test]
async fn calibrating_with_pasted_csv_shows_the_fitted_knobs_and_applies_them() {
    let root = mount().await;
    paste(&root, "#calibrate-text", "concurrency,output_tok_s\n0,5\n").await;
    click(&root, "#calibrate-run").await;
    let error = text(&root, "#calibrate-error");
    assert!(error.contains("line 2"), "{error}");

    let csv = "concurrency,output_tok_s,tpot_ms,ttft_ms\n1,60,16,120\n8,420,19,160\n32,1300,24,300\n64,2100,30,520\n";
    paste(&root, "#calibrate-text", csv).await;
    click(&root, "#calibrate-run").await;
    for name in [
        "fit_eta_mem",
        "fit_eta_compute",
        "fit_step_overhead_ms",
        "fit_layer_overhead_us",
    ] {
        assert!(
            metric(&root, name).chars().any(|c| c.is_ascii_digit()),
            "{name}"
        );
    }
    assert_eq!(
        count(&root, "#calibrate-table tbody tr"),
        4,
        "one row per point"
    );
    // The fit's verdict sits beside it: four points for four knobs.
    assert!(text(&root, "#calibrate-verdict").contains("4 points"));
    let before = metric(&root, "output_tok_s");
    click(&root, "#calibrate-apply").await;
    assert_ne!(
        metric(&root, "output_tok_s"),
        before,
        "the fitted knobs change the model"
    );
    let eta_mem: f64 = metric(&root, "fit_eta_mem").parse().expect("a number");
    let assumptions = text(&root, "#assumptions-text");
    assert!(
        assumptions.contains(&format!("η_mem {eta_mem:.2}")),
        "{assumptions}"
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn an_slo_and_a_traffic_volume_size_the_deployment() {
    let root = mount().await;
    // A typed TP: with an SLO, "auto" would re-choose the layout for it (issue 26 §2) a few
    // tasks after each edit, and this test reads the sizing of one configuration.
    choose(&root, "#tp", "1").await;
    let no_slo = metric(&root, "slo_output_tok_s_per_gpu");
    assert!(no_slo.chars().any(|c| c.is_ascii_digit()));
    type_into(&root, "#slo-tpot-ms", "30").await;
    let with_slo = metric(&root, "slo_output_tok_s_per_gpu");
    let number = |t: &str| t.replace(',', "").parse::<f64>().expect("a number");
    assert!(number(&with_slo) < number(&no_slo), "{with_slo} < {no_slo}");
    // 10 req/s by default; tokens per day is the same traffic in other units.
    let per_day: web_sys::HtmlInputElement = find(&root, "#traffic-tokens-per-day")
        .dyn_into()
        .expect("input");
    assert_eq!(per_day.value(), "1180000000");
    let gpus = metric(&root, "gpus_needed");
    type_into(&root, "#traffic", "100").await;
    assert!(number(&metric(&root, "gpus_needed")) > number(&gpus));
    assert!(metric(&root, "usd_per_month").starts_with('$'));
    // A bad SLO names its field and keeps the last good numbers.
    let good = metric(&root, "slo_output_tok_s_per_gpu");
    type_into(&root, "#slo-tpot-ms", "fast").await;
    assert!(text(&root, "#slo-tpot-ms-error").contains("TPOT target"));
    assert_eq!(metric(&root, "slo_output_tok_s_per_gpu"), good);
    // Utilization: half the load doubles the effective price.
    type_into(&root, "#offered-load", "50").await;
    let full = metric(&root, "cost_usd_per_m_output");
    let half = metric(&root, "effective_usd_per_m_output");
    let dollars = |t: &str| number(&t.replace('$', ""));
    assert!(
        (dollars(&half) / dollars(&full) - 2.0).abs() < 0.01,
        "{half} vs {full}"
    );
    // Switching the load to output tok/s keeps the same load.
    choose(&root, "#offered-load-unit", "tok-s").await;
    assert_eq!(metric(&root, "utilization_pct"), "50");
    let same = dollars(&metric(&root, "effective_usd_per_m_output"));
    assert!(
        (same / dollars(&half) - 1.0).abs() < 1e-3,
        "{same} vs {half}"
    );
    // A price tier writes the GPU's catalog price into the price field.
    choose(&root, "#price-tier", "low").await;
    let price: web_sys::HtmlInputElement =
        find(&root, "#usd-per-gpu-hour").dyn_into().expect("input");
    assert_eq!(price.value(), "1.49");
    root.remove();
}

// ------------------------------------------- serving techniques, advanced knobs, simulator

use servecost::scenario::ScenarioInput;

/// Wait (one timer task at a time, at most `bound_ms`) until `done` holds; false if it never did.
async fn eventually(bound_ms: i32, mut done: impl FnMut() -> bool) -> bool {
    let mut waited = 0;
    while !done() {
        if waited >= bound_ms {
            return false;
        }
        servecost::ui::tools::sim_panel::sleep_ms(50).await;
        yew::scheduler::flush().await;
        waited += 50;
    }
    true
}

fn input_value(root: &web_sys::Element, selector: &str) -> String {
    find(root, selector)
        .dyn_into::<web_sys::HtmlInputElement>()
        .map(|input| input.value())
        .or_else(|e| {
            e.dyn_into::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
        })
        .expect("an <input> or <select>")
}

#[wasm_bindgen_test]
async fn static_batching_changes_the_numbers_to_what_the_model_says() {
    let root = mount().await;
    let before = metric(&root, "output_tok_s");
    choose(&root, "#batching", "static").await;
    let after = metric(&root, "output_tok_s");
    assert_ne!(after, before);
    let scenario = Scenario::try_from(ScenarioInput {
        batching: servecost::scenario::Batching::Static,
        ..ScenarioInput::default()
    })
    .expect("valid");
    let expected = evaluate(&scenario).output_tok_s;
    assert_eq!(
        after,
        servecost::ui::widgets::metric::group_thousands(
            &servecost::present::format::format_number(expected)
        )
    );
    // The KV status and "max concurrency" are the static reservations' capacity, not the paged one.
    let capacity = servecost::model::capacity::static_kv_capacity(&scenario);
    assert!(capacity < scenario.kv_capacity());
    let status = text(&root, "#kv-status");
    assert!(
        status.contains(&format!("up to {capacity} requests"))
            || status.contains(&format!("{capacity} requests fit")),
        "{status}"
    );
    assert!(status.contains("static batching"), "{status}");
    assert_eq!(metric(&root, "max_concurrency"), capacity.to_string());
    choose(&root, "#batching", "continuous").await;
    assert_eq!(metric(&root, "output_tok_s"), before, "deterministic");
    root.remove();
}

#[wasm_bindgen_test]
async fn a_workload_preset_sets_lengths_spreads_and_the_distribution() {
    let root = mount().await;
    assert_eq!(input_value(&root, "#workload"), "chat");
    let before = metric(&root, "output_tok_s");
    choose(&root, "#workload", "code").await;
    assert_eq!(input_value(&root, "#input-len"), "2048");
    assert_eq!(input_value(&root, "#output-len"), "28");
    assert_eq!(input_value(&root, "#input-sigma"), "1.36");
    assert_eq!(input_value(&root, "#workload"), "code");
    assert_ne!(metric(&root, "output_tok_s"), before);
    choose(&root, "#workload", "uniform").await;
    assert_eq!(input_value(&root, "#length-dist"), "fixed");
    assert_eq!(input_value(&root, "#workload"), "uniform");
    // Typing a length that matches no preset shows "custom".
    choose(&root, "#workload", "chat").await;
    type_into(&root, "#input-len", "1000").await;
    assert_eq!(input_value(&root, "#workload"), "custom");
    root.remove();
}

/// The simulator's figures replace a headline only for the scenario they were simulated for.
/// Once a run has finished, the first render of a new scenario (before the panel's effect marks
/// the run stale) used to compare the new point with the old run and send the old run's tok/s
/// and TPOT to the explorer under the new scenario's key: after an edit the page kept showing
/// the previous scenario's throughput until the new run came in.
#[wasm_bindgen_test]
async fn a_finished_simulation_never_speaks_for_the_next_scenario() {
    let root = mount().await;
    // A typed TP, so auto's layout choice for the decision inputs cannot move the numbers.
    choose(&root, "#tp", "2").await;
    assert!(
        eventually(30_000, || text(&root, "#sim-status")
            .starts_with("Simulated"))
        .await,
        "status: {}",
        text(&root, "#sim-status")
    );
    choose(&root, "#model", "llama-3.1-8b").await;
    assert!(text(&root, "#sim-status").contains("updating"));
    let scenario = Scenario::try_from(ScenarioInput {
        model: "llama-3.1-8b".into(),
        tp: Some(2.0),
        ..ScenarioInput::default()
    })
    .expect("valid");
    assert_eq!(
        metrics(&root),
        expected_metrics(&scenario),
        "the new scenario's analytic numbers, not the previous scenario's simulated ones"
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn the_simulator_fills_the_tail_latencies_after_a_pause() {
    let root = mount().await;
    let filled = |name: &str| metric(&root, name).chars().any(|c| c.is_ascii_digit());
    let done = eventually(30_000, || {
        filled("tpot_ms_p99") && !text(&root, "#sim-status").contains("updating")
    })
    .await;
    assert!(done, "status: {}", text(&root, "#sim-status"));
    for name in [
        "ttft_ms_p95",
        "ttft_ms_p99",
        "tpot_ms_p95",
        "tpot_ms_p99",
        "itl_ms_p99",
        "sim_preemptions",
    ] {
        assert!(filled(name), "{name}: {:?}", metric(&root, name));
    }
    let number = |name: &str| {
        metric(&root, name)
            .replace(',', "")
            .parse::<f64>()
            .expect("a number")
    };
    assert!(number("tpot_ms_p99") >= number("tpot_ms_p50"));
    assert!(number("ttft_ms_p99") >= number("ttft_ms_p95"));
    // The load sweep arrives too, and a slider move marks the operating point stale at once.
    assert!(
        eventually(30_000, || text(&root, "#load-status")
            .contains("8 Poisson runs"))
        .await
    );
    type_into(&root, "#batch-size", "300").await;
    assert!(text(&root, "#sim-status").contains("updating"));
    assert!(eventually(30_000, || !text(&root, "#sim-status").contains("updating")).await);
    root.remove();
}

#[wasm_bindgen_test]
async fn a_bad_efficiency_knob_names_the_field_and_its_range() {
    let root = mount().await;
    let good = metrics(&root);
    type_into(&root, "#eta-mem", "1.5").await;
    let message = text(&root, "#input-error");
    assert!(
        message.contains("Memory-bandwidth efficiency") && message.contains("0.05 to 1"),
        "{message}"
    );
    assert_eq!(
        find(&root, "#eta-mem")
            .get_attribute("aria-invalid")
            .as_deref(),
        Some("true")
    );
    assert_eq!(metrics(&root), good, "the last good view stays");
    type_into(&root, "#eta-mem", "").await;
    assert!(text(&root, "#input-error").is_empty());
    assert_eq!(metrics(&root), good, "empty = the default");
    type_into(&root, "#eta-mem", "0.9").await;
    assert_ne!(metrics(&root), good);
    root.remove();
}

const LLAMA_8B_CONFIG: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
  "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
  "tie_word_embeddings": false, "model_type": "llama", "_name_or_path": "my-llama"}"#;

async fn paste_config(root: &web_sys::Element, text: &str) {
    let area: web_sys::HtmlTextAreaElement = find(root, "#custom-model")
        .dyn_into()
        .expect("a <textarea>");
    area.set_value(text);
    fire(&area, "input");
    settle().await;
}

#[wasm_bindgen_test]
async fn a_pasted_config_json_becomes_the_model() {
    let root = mount().await;
    // A typed TP, so the comparison with the catalog's model below is of one layout whatever
    // decision inputs an earlier test left in storage (auto chooses by them, issue 26 §2).
    choose(&root, "#tp", "1").await;
    let good = metrics(&root);
    assert!(root
        .query_selector("#custom-model")
        .expect("selector")
        .is_none());
    choose(&root, "#model", "custom").await;
    assert!(text(&root, "#input-error").contains("custom"));
    paste_config(&root, "{ not json").await;
    assert!(text(&root, "#input-error").contains("not valid JSON"));
    paste_config(&root, r#"{"num_hidden_layers": 32}"#).await;
    let message = text(&root, "#input-error");
    assert!(message.contains("`hidden_size` is missing"), "{message}");
    assert_eq!(metrics(&root), good, "the last good view stays");
    paste_config(&root, LLAMA_8B_CONFIG).await;
    assert!(
        text(&root, "#input-error").is_empty(),
        "{}",
        text(&root, "#input-error")
    );
    assert_eq!(metric(&root, "custom_params_b"), "8.03 B");
    let catalog_8b = Scenario::try_from(ScenarioInput {
        model: "llama-3.1-8b".into(),
        tp: Some(1.0),
        ..ScenarioInput::default()
    })
    .expect("valid");
    assert_eq!(
        metric(&root, "output_tok_s"),
        servecost::ui::widgets::metric::group_thousands(
            &servecost::present::format::format_number(evaluate(&catalog_8b).output_tok_s)
        ),
        "the same architecture as the catalog's Llama 3.1 8B"
    );
    root.remove();
}

/// The tools module's numbers follow the explorer's ideal-roofline switch, which the share query
/// does not carry: the explorer mirrors it on the `#tools` element.
#[wasm_bindgen_test]
async fn the_tools_follow_the_ideal_roofline_switch() {
    let root = mount().await;
    let tools = find(&root, "#tools");
    assert!(!tools.has_attribute(servecost::ui::platform::bridge::IDEAL_ATTR));
    let cost_before = text(&root, ".decisions");
    let checkbox: web_sys::HtmlInputElement = find(&root, "#ideal-roofline")
        .dyn_into()
        .expect("a checkbox");
    checkbox.set_checked(true);
    fire(&checkbox, "change");
    settle().await;
    assert!(tools.has_attribute(servecost::ui::platform::bridge::IDEAL_ATTR));
    assert!(
        eventually(2_000, || text(&root, ".decisions") != cost_before).await,
        "the decision panels' numbers move with the switch"
    );
    root.remove();
}

/// Every API price in the self-host-or-API table shows its date, or says that its source gives
/// none: the built-in scenario's model (Llama 3.1 70B) has undated Groq and Novita prices.
#[wasm_bindgen_test]
async fn every_api_price_shows_its_date_or_says_it_is_undated() {
    let root = mount().await;
    let cells = root
        .query_selector_all("#break-even-table td[data-col=as_of]")
        .expect("valid selector");
    let dates: Vec<String> = (0..cells.length())
        .filter_map(|i| cells.item(i)?.text_content())
        .collect();
    assert!(dates.len() >= 3, "{dates:?}");
    assert!(dates.iter().all(|d| !d.trim().is_empty()), "{dates:?}");
    assert!(
        dates.iter().any(|d| d == servecost::catalog::UNDATED),
        "{dates:?}"
    );
    root.remove();
}

/// A GPU the catalog has no rental price for (GB200) shows its performance, "—" where a cost
/// would be, and a hint whose link moves the focus to the price control; no error. Typing a
/// price brings the costs back.
#[wasm_bindgen_test]
async fn a_gpu_without_a_price_shows_its_performance_and_asks_for_a_price() {
    use servecost::ui::widgets::price::NO_COST;
    let root = mount().await;
    choose(&root, "#gpu", "gb200").await;
    assert_eq!(
        text(&root, "#input-error"),
        "",
        "a missing price is no error"
    );
    assert_eq!(
        input_value(&root, "#usd-per-gpu-hour"),
        "",
        "no other GPU's price"
    );
    let scenario = Scenario::try_from(ScenarioInput {
        gpu: "gb200".into(),
        usd_per_gpu_hour: None,
        ..ScenarioInput::default()
    })
    .expect("valid without a price");
    assert_eq!(metrics(&root), expected_metrics(&scenario));
    assert!(metric(&root, "output_tok_s").starts_with(|c: char| c.is_ascii_digit()));
    for name in [
        "usd_per_m_output",
        "usd_per_m_input",
        "usd_per_m_blended",
        "cost_usd_per_m_output",
        "usd_per_hour",
        "effective_usd_per_m_output",
    ] {
        assert_eq!(metric(&root, name), NO_COST, "{name}");
    }
    for hint in [
        "#numbers-no-price",
        "#cost-no-price",
        "#break-even-no-price",
    ] {
        assert!(text(&root, hint).contains("enter a price"), "{hint}");
    }
    let link = find(&root, "#numbers-no-price a");
    assert_eq!(
        link.get_attribute("href").as_deref(),
        Some("#usd-per-gpu-hour")
    );
    link.dyn_into::<web_sys::HtmlElement>()
        .expect("a link")
        .click();
    settle().await;
    assert_eq!(
        document().active_element().map(|e| e.id()).as_deref(),
        Some("usd-per-gpu-hour"),
        "the link focuses the price control"
    );
    let before = draws();
    choose(&root, "#chart-y", "usd").await;
    assert!(
        draws() > before,
        "the $/M axis draws (its no-price message)"
    );
    type_into(&root, "#usd-per-gpu-hour", "6").await;
    assert!(metric(&root, "usd_per_m_output").starts_with('$'));
    assert!(root
        .query_selector("[data-no-price]")
        .expect("selector")
        .is_none());
    root.remove();
}

#[wasm_bindgen_test]
async fn the_chart_axes_redraw_the_chart() {
    let root = mount().await;
    let before = draws();
    choose(&root, "#chart-y", "usd").await;
    assert!(draws() > before, "redrawn");
    choose(&root, "#chart-x", "tpot").await;
    assert_eq!(input_value(&root, "#chart-x"), "tpot");
    let label = find(&root, "label[for=\"chart-y\"]");
    assert!(!label.text_content().unwrap_or_default().is_empty());
    root.remove();
}
