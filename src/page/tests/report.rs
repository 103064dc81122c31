//! The client report (`page::report`): self-contained (no script, no external request), every
//! section and every input present, prices labelled by where they come from.

use crate::page::report::{client_report, escape, ReportContext};
use crate::scenario::fields::FIELDS;
use crate::share::decode;

fn report(query: &str) -> String {
    let (view, notices) = decode(query);
    assert!(notices.is_empty(), "{notices:?}");
    client_report(
        &view,
        &ReportContext {
            generated: "2026-12-01 12:00 UTC".into(),
            link: format!("https://example.test/servecost/?{query}"),
        },
    )
    .expect("the report builds")
}

#[test]
fn the_report_is_self_contained_and_holds_every_section_and_input() {
    let query = "v=1&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=32\
                 &slo-tpot-ms=50&slo-ttft-ms=2000&traffic=20&gpus-allowed=h100-sxm,l40s\
                 &usd-per-gpu-hour=";
    let html = report(query);
    for forbidden in [
        "<script",
        "src=\"http",
        "url(",
        "@import",
        "<link",
        "<iframe",
    ] {
        assert!(
            !html.contains(forbidden),
            "the report must not contain {forbidden}"
        );
    }
    for section in [
        "At 32 in flight",
        "<svg",
        "Service level and traffic",
        "Simulated tails at 32 in flight",
        "This configuration for that traffic",
        "Plan: the cheapest deployments",
        "Why the others lost",
        "Against API prices",
        "± is the expected error",
        "Hardware leaderboard for Llama 3.1 8B",
        "Every input",
        "Assumptions and sources",
        "prices as of",
        "Generated 2026-12-01 12:00 UTC",
        "https://example.test/servecost/?v=1&amp;model=llama-3.1-8b",
        "@page{size:A4",
    ] {
        assert!(html.contains(section), "missing {section:?}");
    }
    // Every input that differs from the defaults is listed by its label; the rest are counted.
    let defaults = crate::scenario::fields::Inputs::default();
    let inputs = crate::share::decode(query).0.inputs();
    let mut at_default = 0;
    for field in FIELDS.iter().filter(|f| !f.derived) {
        if field.get(&inputs) == field.get(&defaults) {
            at_default += 1;
        } else {
            assert!(
                html.contains(&escape(field.label)),
                "input {} missing",
                field.key
            );
        }
    }
    assert!(html.contains(&format!(
        "The other {at_default} inputs are at servecost's defaults"
    )));
    // An empty price is the catalog's typical tier, named with its date.
    assert!(html.contains("$2.65 (catalog typical, as of 2026-05)"));
    assert!(!html.contains("your price"));
}

#[test]
fn a_typed_price_is_your_price_and_no_traffic_means_no_plan() {
    let html = report("v=1&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&usd-per-gpu-hour=1.23&traffic=");
    assert!(
        html.contains("$1.23 (your price)"),
        "typed price not labelled"
    );
    assert!(html.contains("No traffic level is set"));
    assert!(!html.contains("Why the others lost"));
    // A price is shown as given, not rounded to three significant figures ($3.12).
    let default = report("v=1&traffic=");
    assert!(default.contains("$3.125 (your price)"), "{default}");
}

#[test]
fn a_bad_scenario_names_its_field() {
    let (mut view, _) = decode("v=1&model=llama-3.1-8b");
    view.scenario.gpu_count = 0.0;
    let error = client_report(&view, &ReportContext::default()).expect_err("gpus 0 is invalid");
    assert!(error.starts_with("gpus"), "{error}");
}

#[test]
fn escape_covers_markup_and_quotes() {
    assert_eq!(
        escape("<a href=\"x\">&'"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
    );
}

/// The report's text after the first `start` up to the next `end`.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    html.split_once(start)
        .and_then(|(_, rest)| rest.split(end).next())
        .unwrap_or_else(|| panic!("no {start:?} in the report"))
}

/// Every API price in the report carries its date, or says that its source gives none (the
/// catalog's Groq and Novita prices for Llama 3.1 70B are undated; Together AI's is dated).
#[test]
fn api_prices_show_their_date_or_say_they_are_undated() {
    let html = report("v=1&model=llama-3.1-70b&gpu=h100-sxm&gpus=8&concurrency=64");
    let api = between(&html, "Against API prices", "</table>");
    assert!(api.contains("</a>, as of 2025-07-03"), "{api}");
    assert_eq!(
        api.matches("</a>, undated").count(),
        2,
        "Groq and Novita: {api}"
    );
    assert_eq!(
        api.matches("<tr>").count() - 1,
        api.matches("</a>, as of ").count() + api.matches("</a>, undated").count(),
        "one date or `undated` per row: {api}"
    );
}

/// The plan in the report lists what the simulator confirms (`page::decisions::plan_request`):
/// for the default scenario at P90 TPOT 50 ms and 20 requests/s it used to list none ("No
/// configuration met the SLO") beside "73 met the SLO", and "costs more than the cheapest"
/// named a cheapest that was not listed.
#[test]
fn the_plan_lists_simulated_candidates_and_accounts_for_the_rest() {
    let html = report("v=1&slo-tpot-ms=50&slo-ttft-ms=2000&traffic=20");
    let plan = between(&html, "Plan: the cheapest deployments", "</section>");
    assert!(!plan.contains("No configuration met"), "{plan}");
    assert_eq!(
        plan.matches("simulated)</td>").count(),
        crate::page::report::REPORT_PLAN_TOP,
        "{plan}"
    );
    assert!(
        plan.contains(
            "meet the targets by the analytic tails; the cheapest were re-searched in the simulator"
        ),
        "{plan}"
    );
    assert!(
        plan.contains("were not simulated (the listed ones"),
        "{plan}"
    );
}

/// The report names its deployment and shows the other one beside the numbers, as the page's
/// numbers panel does (issue 25 §2), from the same function.
#[test]
fn the_report_shows_the_other_deployment() {
    let html = report("v=1&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=32");
    let numbers = between(&html, "At 32 in flight", "</table>");
    assert!(numbers.contains("Deployment: Tuned benchmark"), "{numbers}");
    assert!(numbers.contains("stock launch: "), "{numbers}");
    let stock =
        report("v=1&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=32&deployment=stock");
    let numbers = between(&stock, "At 32 in flight", "</table>");
    assert!(
        numbers.contains("Deployment: Stock launch (engine defaults)"),
        "{numbers}"
    );
    assert!(numbers.contains("tuned benchmark: "), "{numbers}");
}

/// The report's leaderboard states its TTFT ceiling and lists each row's TTFT (issue 26 §3).
#[test]
fn the_report_leaderboard_shows_ttft_and_its_ceiling() {
    let html =
        report("v=1&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=32&ttft-ceiling-ms=1500");
    let board = between(&html, "Hardware leaderboard for", "</section>");
    assert!(
        board.contains("with a P90 TTFT of at most 1500 ms"),
        "{board}"
    );
    assert!(board.contains("<th>TTFT ms (P90)</th>"), "{board}");
}

/// Issue 28 §2: the report carries the pinned comparison, each pin judged as the page's Compare
/// panel judges it (`decision_data::evaluate_pin`, the same traffic and rules); without pins
/// there is no such section.
#[test]
fn the_report_compares_the_pins_as_the_page_does() {
    use crate::page::decision_data::{evaluate_pin, Demand};
    use crate::page::pins::label_against;
    let (mut view, _) = decode("v=2&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&traffic=20");
    let without = client_report(&view, &ReportContext::default()).expect("builds");
    assert!(!without.contains("<h2>Pinned scenarios</h2>"));
    let pin = crate::scenario::ScenarioInput {
        gpu: "h200-sxm".into(),
        ..view.scenario.clone()
    };
    view.pins.push(pin.clone());
    let html = client_report(&view, &ReportContext::default()).expect("builds");
    let section = between(&html, "<h2>Pinned scenarios</h2>", "</section>");
    // Named by what differs from the current scenario, as the Compare panel names it.
    let name = label_against(&view.scenario, &pin);
    assert!(name.contains("H200") && !name.contains("Llama"), "{name}");
    assert!(section.contains(&escape(&name)), "{section}");
    assert!(section.contains("Current: "), "{section}");
    let (_, _, decided) = evaluate_pin(&pin, Demand::of(&view.decision, None))
        .evaluated
        .expect("the pin validates");
    let sized = decided.sized.expect("a traffic").expect("sized");
    assert!(
        section.contains(&format!("{} GPUs", sized.sizing.gpus)),
        "{section}"
    );
}

/// In agentic mode (issue 27 §4) the report carries the agentic section: the headline, the
/// figures at the slider's agents and at the tier, the economics and the assumptions (session shape, hit rate reached, power basis, prices with
/// dates); the plan, the tok/s leaderboard and the API comparison of single requests give way
/// to it. Without the mode there is no such section.
#[cfg(feature = "session-model")]
#[test]
fn an_agentic_report_carries_the_agents_section() {
    let html = report(
        "v=2&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=32&workload=agentic-coding\
         &tok-s-per-user=30&fleet-agents=500",
    );
    for part in [
        "Agents at the tier",
        "Agents per MW",
        "Prefix-cache hit rate reached",
        "Self-hosted $/M cached input",
        "Session shape (Agentic coding)",
        "Power basis",
        "API prices",
    ] {
        assert!(html.contains(&escape(part)), "{part}");
    }
    for left_out in [
        "Hardware leaderboard for",
        "Plan: the cheapest",
        "Against API prices",
    ] {
        assert!(!html.contains(left_out), "{left_out}");
    }
    let plain = report("v=2&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&concurrency=32");
    assert!(!plain.contains("Agents at the tier"));
}
