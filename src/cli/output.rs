//! What a command hands back: the text for stdout and stderr and the exit code.

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
    pub(super) fn usage(message: impl std::fmt::Display) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr: format!("error: {message}\n"),
            code: 2,
        }
    }
}
