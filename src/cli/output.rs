//! What a command hands back (the text for stdout and stderr and the exit code), and the
//! outcomes the commands share: a `--json` document, bad input naming the flag, a failure.
//! Each command's tables are written in its own file, one row function per table (the header
//! and the rows share it); `sweep --csv` writes the rows of the page's CSV download
//! (`share::curve_csv_rows`).

use super::args::{flag_for_field, UsageError};
use crate::scenario::ScenarioError;

/// What the process prints and returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Outcome {
    pub(super) fn ok(stdout: String) -> Outcome {
        Outcome {
            stdout,
            stderr: String::new(),
            code: 0,
        }
    }

    /// Bad input: status 2.
    pub(super) fn usage(message: impl std::fmt::Display) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr: format!("error: {message}\n"),
            code: 2,
        }
    }

    /// Bad input, named by the flag of the field the core's `try_from` names (`--slo-ttft-ms`).
    pub(super) fn bad_field(error: &ScenarioError) -> Outcome {
        Outcome::usage(format!(
            "{}: {}",
            flag_for_field(&error.field),
            error.message
        ))
    }

    /// A failure that is not the user's input (the catalog, serialization): status 1.
    pub(super) fn failure(message: impl std::fmt::Display) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr: format!("error: {message}\n"),
            code: 1,
        }
    }

    /// `--json`: the value, pretty-printed, with a final newline.
    pub(super) fn json(value: &impl serde::Serialize) -> Outcome {
        match serde_json::to_string_pretty(value) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome::failure(e),
        }
    }
}

/// A flag that does not read (`--top x`), so `?` works on `Flags::number` in a command.
impl From<UsageError> for Outcome {
    fn from(UsageError(message): UsageError) -> Outcome {
        Outcome::usage(message)
    }
}
