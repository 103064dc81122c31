//! API list prices per model, read from the compiled-in copy of `shared/data/api_prices.csv`
//! (USD per million input, cached input (where the source prices it) and output tokens, with
//! provider, date and source).

use super::csv::{number, text, Record};
use serde::Serialize;

/// What the page and the report show for a price without a date. The community price database's
/// older entries carry none (their `notes` say "Entry undated"); a blank cell would read as a
/// date left out.
pub const UNDATED: &str = "undated";

/// `as_of`, or `UNDATED` when it is blank.
pub fn dated(as_of: &str) -> &str {
    if as_of.trim().is_empty() {
        UNDATED
    } else {
        as_of
    }
}

/// One provider's list price for one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApiPrice {
    pub model_id: String,
    pub provider: String,
    pub usd_per_m_input: f64,
    /// Cached (cache-hit, cache-read) input tokens, where the source gives a price for them.
    pub usd_per_m_cached_input: Option<f64>,
    pub usd_per_m_output: f64,
    pub as_of: String,
    pub source: String,
    pub notes: String,
}

impl ApiPrice {
    pub(super) fn from_record(record: &Record) -> Result<ApiPrice, String> {
        let required = |column: &str| -> Result<f64, String> {
            number(record, column)?.ok_or_else(|| format!("column `{column}` is empty"))
        };
        Ok(ApiPrice {
            model_id: text(record, "model_id").to_string(),
            provider: text(record, "provider").to_string(),
            usd_per_m_input: required("usd_per_m_input")?,
            usd_per_m_cached_input: number(record, "usd_per_m_cached_input")?,
            usd_per_m_output: required("usd_per_m_output")?,
            as_of: text(record, "as_of").to_string(),
            source: text(record, "source").to_string(),
            notes: text(record, "notes").to_string(),
        })
    }

    /// Blended price at `input_per_output` input tokens per output token (3 for the usual 3:1).
    pub fn blended(&self, input_per_output: f64) -> f64 {
        (input_per_output * self.usd_per_m_input + self.usd_per_m_output) / (input_per_output + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blank date reads `undated`; a date stays itself.
    #[test]
    fn a_price_without_a_date_is_undated() {
        let prices = crate::catalog::api_prices_for("llama-3.1-70b");
        let date = |provider: &str| {
            prices
                .iter()
                .find(|p| p.provider == provider)
                .map(|p| dated(&p.as_of))
        };
        assert_eq!(date("Novita"), Some(UNDATED));
        assert_eq!(date("Together AI"), Some("2025-07-03"));
        assert_eq!(dated(" "), UNDATED);
    }
}
