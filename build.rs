//! Build script: splits the GPU and model catalogs (`data/gpus.csv`, `data/models.csv`, copies of
//! `shared/data/`) into the facts and their provenance, which the library compiles in apart.
//!
//! The model needs only the facts; the `source` and `notes` columns (about a third of each
//! file, and about 10 KB gzip of the explorer's first load) are read only where a page or command
//! shows where a fact comes from: the tools module's panels, the client report, the CLI
//! (`catalog::provenance`). Writes `$OUT_DIR/{gpus,models}_facts.csv` (every column but those
//! two) and `$OUT_DIR/{gpus,models}_provenance.csv` (`id,source,notes`), with the same CSV reader
//! and writer the library uses (`src/catalog/csv.rs`). `data/` itself is never changed.

#[path = "src/catalog/csv.rs"]
#[allow(dead_code)]
mod csv;

use std::error::Error;
use std::path::Path;

/// The columns kept out of the facts.
const PROVENANCE: [&str; 2] = ["source", "notes"];

fn split(name: &str, out_dir: &Path) -> Result<(), Box<dyn Error>> {
    let path = format!("data/{name}.csv");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path)?;
    let rows = csv::parse_rows(&text).map_err(|e| format!("{path}: {e}"))?;
    let header = rows
        .first()
        .ok_or_else(|| format!("{path}: no header row"))?;
    let column = |wanted: &str| {
        header
            .iter()
            .position(|h| h == wanted)
            .ok_or_else(|| format!("{path}: no `{wanted}` column"))
    };
    let id = column("id")?;
    let kept: Vec<usize> = (0..header.len())
        .filter(|&i| {
            header
                .get(i)
                .is_some_and(|h| !PROVENANCE.contains(&h.as_str()))
        })
        .collect();
    let origin = [id, column(PROVENANCE[0])?, column(PROVENANCE[1])?];
    let pick = |row: &Vec<String>, columns: &[usize]| -> Vec<String> {
        columns
            .iter()
            .map(|&i| row.get(i).cloned().unwrap_or_default())
            .collect()
    };
    let facts: Vec<Vec<String>> = rows.iter().map(|row| pick(row, &kept)).collect();
    let provenance: Vec<Vec<String>> = rows.iter().map(|row| pick(row, &origin)).collect();
    std::fs::write(
        out_dir.join(format!("{name}_facts.csv")),
        csv::write_rows(&facts),
    )?;
    std::fs::write(
        out_dir.join(format!("{name}_provenance.csv")),
        csv::write_rows(&provenance),
    )?;
    Ok(())
}

/// `data/{name}.csv` without the `dropped` columns, as `$OUT_DIR/{name}_facts.csv`:
/// `error_bands` without `rows` (the ids each band stands on, about half its gzip: the explorer's
/// ± needs only the figures; the ids are read where the page shows them, the tools module's
/// "± expected error" details, `model::expected_error::band_rows`), and `expert_formats` without
/// its `source` (which no page or command reads; the file keeps it).
fn without_columns(name: &str, dropped: &[&str], out_dir: &Path) -> Result<(), Box<dyn Error>> {
    let path = format!("data/{name}.csv");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path)?;
    let rows = csv::parse_rows(&text).map_err(|e| format!("{path}: {e}"))?;
    let header = rows
        .first()
        .ok_or_else(|| format!("{path}: no header row"))?;
    let kept: Vec<usize> = (0..header.len())
        .filter(|&i| {
            header
                .get(i)
                .is_some_and(|h| !dropped.contains(&h.as_str()))
        })
        .collect();
    let facts: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            kept.iter()
                .map(|&i| row.get(i).cloned().unwrap_or_default())
                .collect()
        })
        .collect();
    std::fs::write(
        out_dir.join(format!("{name}_facts.csv")),
        csv::write_rows(&facts),
    )?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/catalog/csv.rs");
    let out_dir = std::env::var("OUT_DIR")?;
    for name in ["gpus", "models"] {
        split(name, Path::new(&out_dir))?;
    }
    without_columns("error_bands", &["rows"], Path::new(&out_dir))?;
    without_columns("expert_formats", &["source"], Path::new(&out_dir))?;
    Ok(())
}
