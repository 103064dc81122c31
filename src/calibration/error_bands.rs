//! The expected-error table the page and the CLI quote beside each headline number
//! (`model::expected_error`, issue 13 §1), computed from the cross-validation; `servecost validate
//! FILE --cross-validate --write-bands OUT` writes it, and `data/error_bands.csv` is its output on
//! `data/measurements.csv` (`tests/validation.rs` checks they are identical).
//!
//! Per row: its class is the one the shipped profiles' prediction puts it in (what the page would
//! show for that scenario), and its error on each metric its prediction with its publication
//! held out (`profiles::cross_validate_groups` by source: what a new source should expect). Per class and metric,
//! the first of the class's own rows, any regime, any vendor, every row that has at least
//! `MIN_BAND_ROWS` rows gives the `BAND_QUANTILE` of their errors (interpolated between order
//! statistics like `validate`'s quantiles).

use crate::calibration::profiles::{cross_validate_groups, GroupBy, GroupReport};
use crate::calibration::validate::{validate_records, Comparison, Report, RowResult};
use crate::catalog::csv::Record;
use crate::model::expected_error::{
    Band, Class, Fallback, Metric, BAND_QUANTILE, CSV_HEADER, MIN_BAND_ROWS,
};
use crate::scenario::EfficiencyOverrides;
use std::collections::BTreeMap;

/// One row's out-of-sample errors, by metric.
#[derive(Debug, Clone, PartialEq)]
pub struct RowError {
    pub id: String,
    pub class: Class,
    /// `|predicted/measured − 1|` with the row's publication held out.
    pub errors: BTreeMap<Metric, f64>,
}

fn comparison(row: &RowResult, metric: Metric) -> Option<Comparison> {
    match metric {
        Metric::OutputTokS => row.throughput,
        Metric::TpotMs => row.tpot,
        Metric::TtftMs => row.ttft,
    }
}

/// Every runnable row's class and held-out error per metric, in file order.
pub fn row_errors(records: &[Record], base: &EfficiencyOverrides) -> Result<Vec<RowError>, String> {
    let shipped = validate_records(records, base);
    let by_source = cross_validate_groups(records, base, GroupBy::Source)?;
    Ok(row_errors_of(&shipped, &by_source))
}

/// `row_errors` from the shipped report and an already computed cross-validation by source.
pub fn row_errors_of(shipped: &Report, by_source: &GroupReport) -> Vec<RowError> {
    let folds = [by_source];
    shipped
        .rows
        .iter()
        .map(|row| {
            let errors = Metric::ALL
                .into_iter()
                .filter_map(|metric| {
                    let held_out = folds.iter().filter_map(|fold| {
                        fold.report
                            .rows
                            .iter()
                            .find(|r| r.id == row.id)
                            .and_then(|r| comparison(r, metric))
                            .map(|c| c.error.abs())
                    });
                    held_out.reduce(f64::max).map(|e| (metric, e))
                })
                .collect();
            RowError {
                id: row.id.clone(),
                class: row.class,
                errors,
            }
        })
        .collect()
}

/// The `q` quantile of `values` (sorted here), interpolated; `None` when empty.
fn quantile(values: &mut [f64], q: f64) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let position = q * (values.len().checked_sub(1)? as f64);
    let low = values.get(position.floor() as usize).copied()?;
    let high = values.get(position.ceil() as usize).copied().unwrap_or(low);
    Some(low + (high - low) * (position - position.floor()))
}

/// The band of one class and metric from the rows' errors (module doc); `None` when no row at
/// all compares the metric.
pub fn band_of(rows: &[RowError], class: Class, metric: Metric) -> Option<Band> {
    let admitted = |fallback: Fallback| -> Vec<(&str, f64)> {
        rows.iter()
            .filter(|r| fallback.admits(class, r.class))
            .filter_map(|r| r.errors.get(&metric).map(|e| (r.id.as_str(), *e)))
            .collect()
    };
    let (fallback, chosen) = Fallback::ALL
        .into_iter()
        .map(|f| (f, admitted(f)))
        .find(|(f, rows)| rows.len() >= MIN_BAND_ROWS || *f == Fallback::All)?;
    let mut errors: Vec<f64> = chosen.iter().map(|(_, e)| *e).collect();
    Some(Band {
        class,
        metric,
        error_pct: (quantile(&mut errors, BAND_QUANTILE)? * 1000.0).round() / 10.0,
        n: u32::try_from(chosen.len()).unwrap_or(u32::MAX),
        fallback,
        rows: chosen
            .iter()
            .map(|(id, _)| *id)
            .collect::<Vec<_>>()
            .join(" "),
    })
}

/// Every class's bands.
pub fn bands(rows: &[RowError]) -> Vec<Band> {
    Class::all()
        .flat_map(|class| {
            Metric::ALL
                .into_iter()
                .filter_map(move |metric| band_of(rows, class, metric))
        })
        .collect()
}

/// The table as `data/error_bands.csv` holds it (per cents to one decimal).
pub fn render_csv(bands: &[Band]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for b in bands {
        let [arch, vendor, deployment, regime] = {
            let id = b.class.id();
            let mut parts = id.split('/').map(str::to_string);
            [
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            ]
        };
        out.push_str(&format!(
            "{arch},{vendor},{deployment},{regime},{},{:.1},{},{},{}\n",
            b.metric.id(),
            b.error_pct,
            b.n,
            b.fallback.id(),
            b.rows
        ));
    }
    out
}

/// The table as Markdown (docs/VALIDATION.md, "Expected error shown in the page").
pub fn render_markdown(bands: &[Band]) -> String {
    let mut out = String::from("| class | tok/s | TPOT | TTFT |\n|---|---|---|---|\n");
    for class in Class::all() {
        let cell = |metric| {
            bands
                .iter()
                .find(|b| b.class == class && b.metric == metric)
                .map_or("—".to_string(), |b| {
                    let note = match b.fallback {
                        Fallback::None => String::new(),
                        f => format!(", {}", f.id()),
                    };
                    format!("±{:.0} % ({}{note})", b.error_pct, b.n)
                })
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            class.id(),
            cell(Metric::OutputTokS),
            cell(Metric::TpotMs),
            cell(Metric::TtftMs)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Arch;
    use crate::model::expected_error::{parse, Regime, Vendor};

    fn class(arch: Arch, vendor: Vendor, regime: Regime) -> Class {
        Class {
            arch,
            vendor,
            deployment: crate::physics::engine::Deployment::Tuned,
            regime,
        }
    }

    fn row(id: &str, class: Class, tok_s: f64) -> RowError {
        RowError {
            id: id.into(),
            class,
            errors: BTreeMap::from([(Metric::OutputTokS, tok_s)]),
        }
    }

    #[test]
    fn a_class_with_enough_rows_stands_alone_and_a_thin_one_widens() {
        let moe_amd_sat = class(Arch::Moe, Vendor::Amd, Regime::Saturated);
        let moe_amd_lat = class(Arch::Moe, Vendor::Amd, Regime::LatencyBound);
        let moe_nv = class(Arch::Moe, Vendor::Nvidia, Regime::Saturated);
        let dense = class(Arch::Dense, Vendor::Nvidia, Regime::ThroughputBound);
        let mut rows: Vec<RowError> = (0..4)
            .map(|i| row(&format!("S{i}"), moe_amd_sat, 0.1 * f64::from(i + 1)))
            .collect();
        rows.push(row("L0", moe_amd_lat, 0.5));
        rows.extend((0..3).map(|i| row(&format!("N{i}"), moe_nv, 0.2)));
        rows.push(row("D0", dense, 0.05));
        let own = band_of(&rows, moe_amd_sat, Metric::OutputTokS).expect("band");
        assert_eq!(own.fallback, Fallback::None);
        assert_eq!((own.n, own.rows.as_str()), (4, "S0 S1 S2 S3"));
        // 68th percentile of 0.1..0.4: position 2.04 → 0.3 + 0.04 × 0.1.
        assert_eq!(own.error_pct, 30.4);
        let thin = band_of(&rows, moe_amd_lat, Metric::OutputTokS).expect("band");
        assert_eq!((thin.fallback, thin.n), (Fallback::AnyRegime, 5));
        let nv = band_of(&rows, moe_nv, Metric::OutputTokS).expect("band");
        assert_eq!((nv.fallback, nv.n), (Fallback::AnyVendor, 8));
        let dense_band = band_of(&rows, dense, Metric::OutputTokS).expect("band");
        assert_eq!((dense_band.fallback, dense_band.n), (Fallback::All, 9));
        // No row compares TPOT at all: no band.
        assert_eq!(band_of(&rows, dense, Metric::TpotMs), None);
    }

    #[test]
    fn the_csv_reads_back_as_the_same_bands() {
        let c = class(Arch::Dense, Vendor::Nvidia, Regime::LatencyBound);
        let rows: Vec<RowError> = (0..5).map(|i| row(&format!("R{i}"), c, 0.125)).collect();
        let table = bands(&rows);
        assert_eq!(table.len(), 36, "every class × tok/s");
        let read = parse(&render_csv(&table));
        assert_eq!(read.len(), table.len());
        assert!(read.iter().zip(&table).all(|(a, b)| a.class == b.class
            && a.fallback == b.fallback
            && a.n == b.n
            && a.rows == b.rows
            && a.error_pct == b.error_pct));
        assert!(
            render_markdown(&table).contains("| dense/nvidia/tuned/latency-bound | ±12 % (5) |")
        );
    }
}
