//! Numbers as a reader sees them, shared by the page, the CLI and the exports: significant
//! digits (`format_number`), dollars per million tokens (`format_usd`, `format_cost`), dollar
//! amounts (`usd_amount`), thousands grouping and percentages.

/// Format a number with a sensible number of significant digits for display.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    let magnitude = value.abs();
    if magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// Format dollars per million tokens: three decimals ($1.157), more below a cent; a negative
/// amount (a margin) with its sign first (-$3.671).
pub fn format_usd(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    // The sign before the symbol: a loss reads "-$3.671", not "$-3.671".
    let sign = if value < 0.0 { "-" } else { "" };
    let value = value.abs();
    if value >= 0.01 || value == 0.0 {
        format!("{sign}${value:.3}")
    } else {
        format!("{sign}${value:.5}")
    }
}

/// What a cost says where there is no price per GPU-hour (CLI tables, copied text).
pub const NO_PRICE: &str = "no price";

/// `1155` → `1,155`; leaves decimals, signs and non-numbers alone.
pub fn group_thousands(text: &str) -> String {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (integer, fraction) = match rest.split_once('.') {
        Some((integer, fraction)) => (integer, Some(fraction)),
        None => (rest, None),
    };
    if integer.len() < 4 || !integer.bytes().all(|b| b.is_ascii_digit()) {
        return text.to_string();
    }
    let mut grouped = String::with_capacity(integer.len() + integer.len() / 3);
    for (index, digit) in integer.chars().enumerate() {
        if index > 0 && (integer.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    match fraction {
        Some(fraction) => format!("{sign}{grouped}.{fraction}"),
        None => format!("{sign}{grouped}"),
    }
}

/// Dollars as an amount: `$25.00`, `$18,250`, `-$3.67`.
pub fn usd_amount(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let value = value.abs();
    if value >= 1000.0 {
        format!("{sign}${}", group_thousands(&format!("{value:.0}")))
    } else {
        format!("{sign}${value:.2}")
    }
}

/// A fraction as a percentage: `0.4` → `40`, `0.0123` → `1.2`.
pub fn percent(fraction: f64) -> String {
    let p = fraction * 100.0;
    if !p.is_finite() {
        "–".into()
    } else if p >= 10.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

/// `format_usd`, or `NO_PRICE` when the scenario has no price per GPU-hour.
pub fn format_cost(value: Option<f64>) -> String {
    value.map_or_else(|| NO_PRICE.into(), format_usd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loss carries its sign before the dollar sign, at every size.
    #[test]
    fn negative_dollars_read_sign_first() {
        assert_eq!(format_usd(-3.6714), "-$3.671");
        assert_eq!(format_usd(-0.001), "-$0.00100");
        assert_eq!(format_usd(1.157), "$1.157");
        assert_eq!(usd_amount(-18_250.0), "-$18,250");
        assert_eq!(usd_amount(-3.5), "-$3.50");
        assert_eq!(usd_amount(25.0), "$25.00");
    }
}
