//! `servecost plan`: the cheapest GPU × TP × precision × batch meeting the SLOs for a traffic
//! level, why the others lost, and the cheapest plan against API prices.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{slo_input, Outcome};
use crate::choice::Choice;
use crate::decide::plan::{Candidate, PlanInput, PlanRequest};
use crate::physics::economics::PriceTier;
use crate::physics::precision::Precision;
use crate::present::format::{format_number, format_usd};
use crate::scenario::{LatencyMethod, ScenarioInput, Traffic, TrafficUnit};

pub(super) fn plan_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    known.extend([
        "--traffic-tok-s",
        "--traffic-req-s",
        "--gpus-allowed",
        "--price-tier",
        "--top",
    ]);
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    for searched in [
        "--gpu",
        "--gpus",
        "--tp",
        "--precision",
        "--concurrency",
        "--usd-per-gpu-hour",
    ] {
        if flags.text(searched).is_some() {
            return Outcome::usage(format!(
                "{searched}: plan searches this itself; use --gpus-allowed / --precisions-allowed / --price-tier"
            ));
        }
    }
    let mut flags = flags;
    let (serving, base) = match super::searched_base(&mut flags) {
        Ok(searched) => searched,
        Err(outcome) => return outcome,
    };
    let input = match plan_input(&flags, base) {
        Ok(input) => PlanInput { serving, ..input },
        Err(outcome) => return outcome,
    };
    let request = match PlanRequest::try_from(input) {
        Ok(request) => request,
        Err(e) => return Outcome::bad_field(&e),
    };
    let plan = match crate::decide::plan::plan(&request) {
        Ok(plan) => plan,
        Err(e) => return Outcome::usage(e),
    };
    // Which catalog GPUs were left out and why, on stderr: the plan's own output stays the same.
    let notes: String = plan
        .skipped
        .iter()
        .map(|s| format!("note: not searched: {}: {}\n", s.gpu, s.reason))
        .collect();
    let with_notes = |outcome: Outcome| Outcome {
        stderr: outcome.stderr + &notes,
        ..outcome
    };
    if flags.has("--json") {
        return with_notes(Outcome::json(&plan.candidates));
    }
    let mut out = format!(
        "Cheapest deployments for {} output tok/s ({} configurations searched; tails at the SLO from the {})\n",
        format_number(request.traffic_output_tok_s),
        plan.searched,
        if request.verify_with_simulator && request.slo.is_some() { "simulator" } else { "analytic model" }
    );
    out.push_str(&rules_line(&request));
    out.push_str(&prices_line(&request, &plan.candidates));
    out.push_str(&candidate_row(
        [
            "#",
            "gpu",
            "prec",
            "GPU/rep",
            "replicas",
            "GPUs",
            "conc",
            "tok/s/rep",
            "TTFT ms",
            "TPOT ms",
            "$/month",
            "$/M out",
            "util",
            "SLO check",
        ]
        .map(String::from),
    ));
    for (i, c) in plan.candidates.iter().enumerate() {
        out.push_str(&candidate_row([
            (i + 1).to_string(),
            match &c.pools {
                Some(p) => format!("{} {}P{}D", c.gpu, p.prefill_replicas, p.decode_replicas),
                None => c.gpu.clone(),
            },
            c.precision.id().to_string(),
            c.gpus_per_replica.to_string(),
            c.replicas.to_string(),
            c.total_gpus.to_string(),
            c.concurrency.to_string(),
            format_number(c.output_tok_s_per_replica),
            format_number(c.ttft_ms),
            format_number(c.tpot_ms),
            format!("${:.0}", c.usd_per_month),
            format_usd(c.usd_per_m_output),
            format!("{:.0} %", c.utilization * 100.0),
            slo_check(c),
        ]));
    }
    for (i, c) in plan.candidates.iter().enumerate() {
        if let Some(check) = c.traffic_check() {
            out.push_str(&format!("  #{}: checked in the simulator {check}\n", i + 1));
        }
        if let Some(range) = &c.range {
            out.push_str(&format!("  #{}: {}\n", i + 1, range.sentence()));
        }
    }
    for (i, c) in plan.candidates.iter().enumerate() {
        if let Some(caveat) = c.quality_caveat {
            out.push_str(&format!("  #{}: {caveat}\n", i + 1));
        }
    }
    if let Some(best) = plan.candidates.first() {
        out.push_str(&api_comparison(&request, best));
    }
    out.push_str("\nWhy the others lost\n");
    for r in &plan.rejected {
        out.push_str(&format!(
            "  {:<14} TP {:<2} {:<5} {}\n",
            r.gpu,
            r.tp,
            r.precision.id(),
            r.reason
        ));
    }
    with_notes(Outcome::ok(out))
}

/// The plan flags as given, on the base scenario.
fn plan_input(flags: &Flags, base: ScenarioInput) -> Result<PlanInput, Outcome> {
    let decision = super::args::decision_input(flags)?;
    let ownership = decision.ownership();
    let energy = crate::decide::sizing::SizingRules::of(&decision).energy;
    let of = |amount, unit| Some(Traffic { amount, unit });
    let traffic = match (
        flags.number("--traffic-tok-s")?,
        flags.number("--traffic-req-s")?,
    ) {
        (Some(tok_s), None) => of(tok_s, TrafficUnit::OutputTokS),
        (None, Some(req_s)) => of(req_s, TrafficUnit::RequestsPerS),
        // Neither or both: the plan asks for exactly one (`decide::plan::ONE_TRAFFIC_LEVEL`).
        _ => None,
    };
    Ok(PlanInput {
        base,
        serving: crate::decide::plan_disagg::ServingSearch::default(),
        traffic,
        slo: slo_input(flags)?,
        gpus_allowed: decision.gpus_allowed.unwrap_or_default(),
        // Blanks and case ignored, as the catalog's tiers always were.
        price_tier: super::choice_flag(flags, "--price-tier", PriceTier::parse)?,
        top: flags.number("--top")?,
        precisions_allowed: decision.precisions_allowed,
        ownership,
        max_utilization: Some(decision.max_utilization),
        gpus_per_node: Some(decision.gpus_per_node),
        energy,
    })
}

/// The rules the plan was searched under: precisions, utilization ceiling, GPUs per server.
fn rules_line(request: &PlanRequest) -> String {
    let precisions: Vec<String> = request
        .precisions
        .iter()
        .map(|p| p.id().to_ascii_uppercase())
        .collect();
    let tps: Vec<String> = request.tp_choices().map(|tp| tp.to_string()).collect();
    format!(
        "Rules: weights {}{}; at most {:.0} % utilization; {} GPUs per server (GPUs per replica {}; past one server, whole servers)\n",
        precisions.join(", "),
        if request
            .precisions
            .iter()
            .any(|p| matches!(p, Precision::Fp4 | Precision::Int4))
        {
            " (4-bit allowed: quality caveat, check accuracy)"
        } else {
            " (no 4-bit weights: allow them with --precisions-allowed)"
        },
        request.max_utilization * 100.0,
        request.gpus_per_node,
        tps.join(", ")
    )
}

/// Where the prices come from: the catalog tier and the dates of its quotes, or owned hardware.
fn prices_line(request: &PlanRequest, candidates: &[Candidate]) -> String {
    if request.price_tier == PriceTier::Owned {
        return "Prices: owned hardware, the same capex per GPU for every GPU type (capex ÷ depreciation + power + hosting + operations)\n".into();
    }
    let mut dates: Vec<String> = candidates
        .iter()
        .filter_map(|c| {
            c.price_source
                .split_once("as of ")
                .map(|(_, d)| d.to_string())
        })
        .collect();
    dates.sort();
    dates.dedup();
    format!(
        "Prices: catalog {} rental quotes{} (sources: `servecost gpus`)\n",
        request.price_tier.id(),
        if dates.is_empty() {
            String::new()
        } else {
            format!(", as of {}", dates.join(", "))
        }
    )
}

/// How the candidate's SLO was checked: "sim ✓" (simulated percentiles), "analytic" (the
/// analytic tail estimate only) or "–" (no SLO).
fn slo_check(c: &Candidate) -> String {
    match c.latency_method {
        LatencyMethod::Simulated => "sim ✓".into(),
        LatencyMethod::Analytic => "analytic".into(),
        LatencyMethod::Mean => "–".into(),
    }
}

/// One line of the candidate table; the header and the candidates share the column widths.
fn candidate_row(cells: [String; 14]) -> String {
    let [rank, gpu, prec, per_rep, reps, gpus, conc, tok_s, ttft, tpot, month, per_m, util, check] =
        cells;
    format!(
        "{rank:>3} {gpu:<14} {prec:>4} {per_rep:>6} {reps:>8} {gpus:>6} {conc:>7} \
         {tok_s:>11} {ttft:>9} {tpot:>9} {month:>11} {per_m:>9} {util:>5} {check:>9}\n"
    )
}

/// The cheapest plan against every API price for the model (MODEL.md §7 break-even).
fn api_comparison(request: &PlanRequest, best: &Candidate) -> String {
    let model_id = request.base.model.trim();
    let prices = crate::catalog::api_prices_for(model_id);
    if prices.is_empty() {
        return format!("\nNo API prices in the catalog for {model_id}.\n");
    }
    let usd_per_hour = f64::from(best.total_gpus) * best.usd_per_gpu_hour;
    let capacity_output = best.output_tok_s_per_replica * f64::from(best.replicas);
    let ratio = request.base.input_len / request.base.output_len.max(1.0);
    let capacity_input = capacity_output * ratio;
    let traffic_input = request.traffic_output_tok_s * ratio;
    let self_at_traffic =
        usd_per_hour * 1e6 / ((request.traffic_output_tok_s + traffic_input) * 3600.0);
    let mut out = format!(
        "\nAgainst API prices ({} input : 1 output tokens; self-hosted ${:.3}/M at this traffic, utilization {:.0} %)\n",
        format_number(ratio),
        self_at_traffic,
        best.utilization * 100.0
    );
    out.push_str(&format!(
        "  {:<40} {:>9} {:>9} {:>10} {:>12}\n",
        "provider", "$/M in", "$/M out", "$/M mixed", "break-even u"
    ));
    for price in prices {
        if let Some(b) = crate::physics::economics::break_even(
            usd_per_hour,
            capacity_input,
            capacity_output,
            price,
        ) {
            let verdict = if b.break_even_utilization > 1.0 {
                "never".to_string()
            } else {
                format!("{:.0} %", b.break_even_utilization * 100.0)
            };
            out.push_str(&format!(
                "  {:<40} {:>9.3} {:>9.3} {:>10.3} {:>12}\n",
                price.provider.chars().take(40).collect::<String>(),
                b.api_usd_per_m_input,
                b.api_usd_per_m_output,
                b.api_usd_per_m_mixed,
                verdict
            ));
        }
    }
    out
}
