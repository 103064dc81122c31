//! What the model's numbers look like to a reader: charts drawn with plotters on any backend
//! (`chart`), number and money formatting (`format`), the assumptions block that travels with
//! every number (`assumptions`), the one-line sentences the page, the CLI and the widget share
//! (`sentences`), and one definition per metric and technique (`glossary`). Uses the core; the
//! core never uses it.

pub mod assumptions;
pub mod chart;
pub mod format;
pub mod glossary;
pub mod sentences;
