//! `servecost models` and `servecost gpus`: the catalog, one line per entry.

use super::Outcome;
use crate::catalog::catalog;

pub(super) fn list_models() -> Outcome {
    match catalog() {
        Ok(cat) => Outcome::ok(
            cat.models
                .iter()
                .map(|m| {
                    format!(
                        "{:<20} {} ({:?}, {:?})\n",
                        m.id, m.name, m.arch, m.attention
                    )
                })
                .collect(),
        ),
        Err(e) => Outcome::failure(e),
    }
}

pub(super) fn list_gpus() -> Outcome {
    match catalog() {
        Ok(cat) => Outcome::ok(
            cat.gpus
                .iter()
                .map(|g| {
                    let note = g
                        .missing_spec()
                        .map(|why| format!("  [cannot evaluate: {why}]"))
                        .unwrap_or_default();
                    format!("{:<16} {}{}\n", g.id, g.name, note)
                })
                .collect(),
        ),
        Err(e) => Outcome::failure(e),
    }
}
