//! The headline never contradicts the simulator on screen (issue 26 §4). The page's simulator
//! panel runs the slider's operating point in a closed loop (`sim::load::simulate_operating_point`)
//! and `servecost estimate` runs the same; where the analytic steady state is saturated (the
//! admission queue it cannot follow, `OperatingPoint::saturated`) or differs from that run by
//! more than the error the page states for the metric (`model::expected_error`, the ± beside
//! it; without a band, the consistency bars the two are held to: 10 % tok/s, 15 % TPOT, 25 %
//! TTFT, `tests/consistency.rs`), the simulator's mean becomes the headline and says so.
//!
//! MODEL.md §4.2: tails and queueing come from the DES; the closed form is a steady state.

use crate::model::expected_error::{band, Class, Metric};
use crate::model::OperatingPoint;
use crate::scenario::Scenario;
use crate::sim::SimResult;

/// The consistency bars between the analytic model and the simulator (tok/s, TPOT, TTFT), used
/// where no expected-error band states a wider one.
pub const CONSISTENCY_BARS: [f64; 3] = [0.10, 0.15, 0.25];

/// Which headline figures the simulator's run replaces: `Some(mean)` where it does.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reconciled {
    /// The concurrency the run was at (the slider's).
    pub concurrency: u32,
    pub output_tok_s: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    /// Requests the run measured.
    pub requests: u32,
}

impl Reconciled {
    /// True when the simulator's value replaces at least one figure.
    pub fn any(&self) -> bool {
        self.output_tok_s.is_some() || self.tpot_ms.is_some() || self.ttft_ms.is_some()
    }

    /// As text for the explorer (`ui::tools` → the explorer's numbers, an event's detail):
    /// `concurrency requests tok/s tpot ttft e2e`, `-` for a figure kept analytic.
    pub fn encode(&self) -> String {
        let or_dash = |v: Option<f64>| v.map_or("-".into(), |v| v.to_string());
        format!(
            "{} {} {} {} {} {}",
            self.concurrency,
            self.requests,
            or_dash(self.output_tok_s),
            or_dash(self.tpot_ms),
            or_dash(self.ttft_ms),
            or_dash(self.e2e_ms)
        )
    }

    /// `encode`'s text back; `None` when malformed (never a made-up figure).
    pub fn decode(text: &str) -> Option<Reconciled> {
        let mut parts = text.split_whitespace();
        let concurrency = parts.next()?.parse().ok()?;
        let requests = parts.next()?.parse().ok()?;
        let mut figure = || -> Option<Option<f64>> {
            match parts.next()? {
                "-" => Some(None),
                n => n.parse::<f64>().ok().filter(|v| v.is_finite()).map(Some),
            }
        };
        Some(Reconciled {
            concurrency,
            requests,
            output_tok_s: figure()?,
            tpot_ms: figure()?,
            ttft_ms: figure()?,
            e2e_ms: figure()?,
        })
    }

    /// The point with the simulator's figures in place, `headline_source` "simulator" and a
    /// warning giving the analytic figures it replaced (`estimate`'s headline). A point the run
    /// does not belong to is returned unchanged.
    pub fn apply(&self, point: &OperatingPoint) -> OperatingPoint {
        let mut point = point.clone();
        if self.concurrency != point.concurrency || !self.any() {
            return point;
        }
        let mut replaced = Vec::new();
        if let Some(tok_s) = self.output_tok_s {
            replaced.push(format!("{:.0} output tok/s", point.output_tok_s));
            let per_gpu = tok_s / f64::from(point.gpus.max(1));
            point.output_tok_s = tok_s;
            point.output_tok_s_per_gpu = per_gpu;
        }
        if let Some(tpot) = self.tpot_ms {
            replaced.push(format!("TPOT {:.1} ms", point.tpot_ms));
            point.tpot_ms = tpot;
        }
        if let Some(ttft) = self.ttft_ms {
            replaced.push(format!("TTFT {:.0} ms", point.ttft_ms));
            point.ttft_ms = ttft;
        }
        if let Some(e2e) = self.e2e_ms {
            point.e2e_ms = e2e;
        }
        point.headline_source = crate::model::operating_point::HeadlineSource::Simulator;
        point.warnings.push(format!(
            "{}: {} are the simulator's means over {} requests (closed loop at {} in flight); the analytic form says {}",
            if point.saturated {
                "saturated (requests queue for admission)"
            } else {
                "the analytic form and the simulator differ here by more than the stated error"
            },
            self.names(),
            self.requests,
            self.concurrency,
            replaced.join(", ")
        ));
        point
    }

    /// "TTFT and E2E", "throughput, TPOT and TTFT": the figures replaced, in words.
    pub fn names(&self) -> String {
        let mut names = Vec::new();
        if self.output_tok_s.is_some() {
            names.push("throughput");
        }
        if self.tpot_ms.is_some() {
            names.push("TPOT");
        }
        if self.ttft_ms.is_some() {
            names.push("TTFT");
        }
        if self.e2e_ms.is_some() {
            names.push("E2E");
        }
        match names.split_last() {
            None => String::new(),
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        }
    }
}

/// The error the page states for `metric` at this point's class, as a fraction (its ±), else
/// the consistency bar.
fn stated_error(class: Class, metric: Metric) -> f64 {
    let bar = match metric {
        Metric::OutputTokS => CONSISTENCY_BARS[0],
        Metric::TpotMs => CONSISTENCY_BARS[1],
        _ => CONSISTENCY_BARS[2],
    };
    band(class, metric).map_or(bar, |b| (b.error_pct / 100.0).max(bar))
}

/// Which figures the simulator's closed-loop run `sim` of `scenario` at `point`'s concurrency
/// replaces: TTFT and E2E when the point is saturated; any of throughput, TPOT and TTFT that
/// differs from the run's mean by more than its stated error. A run that measured nothing
/// replaces nothing.
pub fn reconcile(scenario: &Scenario, point: &OperatingPoint, sim: &SimResult) -> Reconciled {
    let mut out = Reconciled {
        concurrency: point.concurrency,
        requests: sim.measured,
        ..Reconciled::default()
    };
    if sim.measured == 0 {
        return out;
    }
    let class = Class::of(scenario, point);
    let beyond = |analytic: f64, simulated: f64, metric: Metric| {
        simulated.is_finite()
            && simulated > 0.0
            && ((analytic - simulated) / simulated).abs() > stated_error(class, metric)
    };
    if beyond(point.output_tok_s, sim.output_tok_s, Metric::OutputTokS) {
        out.output_tok_s = Some(sim.output_tok_s);
    }
    if beyond(point.tpot_ms, sim.tpot.mean_ms, Metric::TpotMs) {
        out.tpot_ms = Some(sim.tpot.mean_ms);
    }
    if point.saturated || beyond(point.ttft_ms, sim.ttft.mean_ms, Metric::TtftMs) {
        out.ttft_ms = Some(sim.ttft.mean_ms);
        out.e2e_ms = Some(sim.e2e.mean_ms);
    }
    out
}

/// `estimate`'s headline: the scenario's analytic point, reconciled with the same closed-loop
/// run the page's simulator panel makes; the analytic point when the simulator cannot run.
pub fn simulated_headline(scenario: &Scenario, point: &OperatingPoint) -> OperatingPoint {
    match crate::sim::load::simulate_operating_point(scenario) {
        Ok(sim) => reconcile(scenario, point, &sim).apply(point),
        Err(_) => point.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;
    use crate::scenario::ScenarioInput;

    #[test]
    fn the_text_round_trips_and_bad_text_is_nothing() {
        let r = Reconciled {
            concurrency: 64,
            requests: 2000,
            output_tok_s: None,
            tpot_ms: Some(78.5),
            ttft_ms: Some(320.25),
            e2e_ms: Some(9000.0),
        };
        assert_eq!(Reconciled::decode(&r.encode()), Some(r));
        assert_eq!(Reconciled::decode("64 2000 - NaN - -"), None);
        assert_eq!(Reconciled::decode("x"), None);
        assert_eq!(r.names(), "TPOT, TTFT and E2E");
    }

    /// A point far past its KV capacity is saturated: its TTFT headline is the simulator's, and
    /// a calm point keeps every analytic figure (the two agree within the stated errors).
    #[test]
    fn a_saturated_headline_is_the_simulators_and_a_calm_one_is_not() {
        let calm = Scenario::try_from(ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu_count: 1.0,
            concurrency: 8.0,
            ..ScenarioInput::default()
        })
        .expect("valid");
        let point = evaluate(&calm);
        assert!(!point.saturated);
        let headline = simulated_headline(&calm, &point);
        assert_eq!(
            headline.headline_source,
            crate::model::operating_point::HeadlineSource::Analytic,
            "{:?}",
            headline.warnings
        );
        assert_eq!(headline.ttft_ms, point.ttft_ms);

        let full = calm.with_concurrency(calm.kv_capacity().saturating_mul(2).max(64));
        let point = evaluate(&full);
        assert!(point.saturated);
        let sim = crate::sim::load::simulate_operating_point(&full).expect("runs");
        let r = reconcile(&full, &point, &sim);
        assert_eq!(r.ttft_ms, Some(sim.ttft.mean_ms));
        let shown = r.apply(&point);
        assert_eq!(shown.ttft_ms, sim.ttft.mean_ms);
        assert_eq!(
            shown.headline_source,
            crate::model::operating_point::HeadlineSource::Simulator
        );
        assert!(shown.warnings.iter().any(|w| w.starts_with("saturated")));
        // A run at another concurrency does not belong to the point.
        let other = Reconciled {
            concurrency: point.concurrency + 1,
            ..r
        };
        assert_eq!(other.apply(&point), point);
    }
}
