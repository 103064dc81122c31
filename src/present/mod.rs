//! What the model's numbers look like to a reader: charts drawn with plotters on any backend
//! (`chart`), the assumptions block and number formatting (`report`), and one definition per
//! metric and technique (`glossary`). Uses the core; the core never uses it.

pub mod chart;
pub mod glossary;
pub mod report;
