//! The page's state and reducers as plain Rust: what the user typed, the last good view, the
//! knobs and the decision inputs. No DOM: the Yew shell in `ui/` dispatches into it.

/// The agentic panel's data (issue 27 §4; the tools module's build only).
#[cfg(feature = "session-model")]
pub mod agents;
pub mod decision_data;
pub mod decisions;
pub mod embed;
pub mod fields;
pub mod first_screen;
pub mod knobs;
pub mod leaderboard;
pub mod pins;
pub mod report;
pub mod state;

#[cfg(test)]
mod tests;
