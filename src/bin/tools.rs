//! The page's second wasm module, built by scripts/build-tools and imported by the explorer after
//! its first chart (src/ui/platform/tools_link.rs): mounts the simulator, decision and glossary panels.

#[cfg(target_arch = "wasm32")]
fn main() {
    servecost::ui::tools::start();
}

/// The simulator's standard run, timed in the browser, for `scripts/bench`
/// (`servecost::ui::platform::bench_hook`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = "__servecostSimBench")]
pub fn sim_bench(kind: Option<String>) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    servecost::ui::platform::bench_hook::sim_bench(kind)
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("the `tools` binary is the page's second module; `trunk build` builds it (scripts/build-tools)");
}
