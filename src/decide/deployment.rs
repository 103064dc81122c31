//! The other deployment beside the headline (issue 25 §2): every number is shown for the
//! deployment asked (`tuned` by default, what published benchmarks show) and, beside it, the
//! same scenario and concurrency under the other one ("stock launch: 1,480 tok/s, −38 %"), so
//! nobody reads a tuned number as a day-one number. One function, read by the CLI's `estimate`
//! and the page's numbers panel.

#[cfg(test)]
use crate::model::evaluate;
use crate::model::evaluate::{evaluate_in, SteadyMemo};
use crate::model::OperatingPoint;
use crate::physics::engine::Deployment;
use crate::present::format::{format_number, group_thousands};
use crate::scenario::{Scenario, ScenarioInput};

/// The same scenario under the other deployment (`None` when it does not validate, which the
/// first never fails to on its own: the deployment changes only the engine profile and its
/// default limits).
pub fn other_scenario(scenario: &Scenario) -> Option<Scenario> {
    let other = scenario.profile.deployment.other();
    Scenario::try_from(ScenarioInput {
        deployment: other,
        ..scenario.input.clone()
    })
    .ok()
}

/// The other deployment's figures at a concurrency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contrast {
    pub deployment: Deployment,
    pub output_tok_s: f64,
    pub tpot_ms: f64,
    /// `other/this − 1` on output tok/s.
    pub change: f64,
}

impl Contrast {
    /// "stock launch: 1,480 tok/s, −38 %, TPOT 31 ms" (tok/s of the whole system, as the
    /// headline's "All N GPUs").
    pub fn sentence(&self) -> String {
        let name = match self.deployment {
            Deployment::Stock => "stock launch",
            Deployment::Tuned => "tuned benchmark",
        };
        format!(
            "{name}: {} tok/s, {}{:.0} %, TPOT {} ms",
            group_thousands(&format_number(self.output_tok_s)),
            if self.change < 0.0 { "−" } else { "+" },
            (self.change * 100.0).abs(),
            format_number(self.tpot_ms)
        )
    }
}

/// `other` (from `other_scenario`) at `point`'s concurrency, against `point`.
pub fn contrast(other: &Scenario, point: &OperatingPoint) -> Contrast {
    contrast_in(other, point, &mut SteadyMemo::default())
}

/// `contrast` with the other scenario's batch steady states kept in `memo` across calls (the
/// page's slider path: one memoised evaluation per move, as the view's own point).
pub fn contrast_in(other: &Scenario, point: &OperatingPoint, memo: &mut SteadyMemo) -> Contrast {
    let there = evaluate_in(&other.with_concurrency(point.concurrency.max(1)), memo);
    Contrast {
        deployment: other.profile.deployment,
        output_tok_s: there.output_tok_s,
        tpot_ms: there.tpot_ms,
        change: if point.output_tok_s > 0.0 {
            there.output_tok_s / point.output_tok_s - 1.0
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default (tuned) scenario's stock launch is the same scenario under the stock
    /// profile, and the contrast's change is the ratio of the two evaluations.
    #[test]
    fn the_other_deployment_is_the_same_scenario_under_the_other_profile() {
        let scenario = Scenario::default_scenario().expect("default");
        assert_eq!(scenario.profile.deployment, Deployment::Tuned);
        let other = other_scenario(&scenario).expect("stock validates");
        assert_eq!(other.profile.deployment, Deployment::Stock);
        assert_eq!(other.model.id, scenario.model.id);
        let point = evaluate(&scenario);
        let c = contrast(&other, &point);
        let stock = evaluate(&other.with_concurrency(point.concurrency));
        assert_eq!(c.output_tok_s, stock.output_tok_s);
        assert!((c.change - (stock.output_tok_s / point.output_tok_s - 1.0)).abs() < 1e-12);
        let text = c.sentence();
        assert!(text.starts_with("stock launch: "), "{text}");
        assert!(text.contains(" %, TPOT "), "{text}");
        // And back: the stock scenario's other is tuned.
        let back = other_scenario(&other).expect("tuned validates");
        assert_eq!(back.profile.deployment, Deployment::Tuned);
        assert!(contrast(&back, &stock)
            .sentence()
            .starts_with("tuned benchmark: "));
    }
}
