//! A small RFC 4180 CSV reader for the compiled-in catalogs and for user-supplied measurement
//! files, and the writer of the tables the page exports (`write_rows`).
//!
//! Handles quoted fields, doubled quotes inside quotes, and LF or CRLF line ends. Rows are read
//! into maps keyed by the header so callers look fields up by name, never by position.

/// A CSV that could not be read, with the 1-based line where reading stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for CsvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CSV line {}: {}", self.line, self.message)
    }
}

/// One data row: header name → cell text (trimmed), kept sorted by name. A sorted list, not a
/// `BTreeMap`: a row has a few dozen columns, where a binary search is as quick, and the B-tree's
/// code (about 9 KB of wasm per key and value type) would be in the page's first load for the
/// catalog alone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record(Vec<(String, String)>);

impl Record {
    pub fn new() -> Record {
        Record::default()
    }

    fn find(&self, column: &str) -> Result<usize, usize> {
        self.0
            .binary_search_by(|(name, _)| name.as_str().cmp(column))
    }

    /// The cell of `column`, if the row has that column.
    pub fn get(&self, column: &str) -> Option<&String> {
        self.find(column)
            .ok()
            .and_then(|at| self.0.get(at))
            .map(|(_, cell)| cell)
    }

    /// Set the cell of `column` (replacing the one it had).
    pub fn insert(&mut self, column: String, cell: String) {
        match self.find(&column) {
            Ok(at) => {
                if let Some(entry) = self.0.get_mut(at) {
                    entry.1 = cell;
                }
            }
            Err(at) => self.0.insert(at, (column, cell)),
        }
    }

    /// The (column, cell) pairs, by column name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0.iter().map(|(name, cell)| (name, cell))
    }
}

/// Rows as RFC 4180 CSV: a cell with a comma, quote or line break is quoted (quotes doubled);
/// each row ends with a line feed. `parse_rows` reads it back.
pub fn write_rows(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|cell| {
                if cell.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", cell.replace('"', "\"\""))
                } else {
                    cell.clone()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// Split CSV text into rows of fields.
pub fn parse_rows(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
    let mut rows = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut line = 1usize;
    let mut chars = text.chars().peekable();
    let mut row_has_content = false;
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' => {
                    if chars.peek() == Some(&'"') {
                        field.push('"');
                        chars.next();
                    } else {
                        in_quotes = false;
                    }
                }
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_quotes = true;
                row_has_content = true;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                row_has_content = true;
            }
            '\r' => {}
            '\n' => {
                line += 1;
                if row_has_content || !field.is_empty() {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                row_has_content = false;
            }
            _ => {
                field.push(c);
                row_has_content = true;
            }
        }
    }
    if in_quotes {
        return Err(CsvError {
            line,
            message: "a quoted field is not closed".into(),
        });
    }
    if row_has_content || !field.is_empty() {
        row.push(field);
        rows.push(row);
    }
    Ok(rows)
}

/// Read CSV text with a header row into records keyed by column name.
pub fn parse_records(text: &str) -> Result<Vec<Record>, CsvError> {
    let rows = parse_rows(text)?;
    let mut iter = rows.into_iter();
    let header: Vec<String> = match iter.next() {
        Some(header) => header.into_iter().map(|h| h.trim().to_string()).collect(),
        None => {
            return Err(CsvError {
                line: 1,
                message: "the file is empty (no header row)".into(),
            })
        }
    };
    let mut records = Vec::new();
    for (index, row) in iter.enumerate() {
        if row.len() != header.len() {
            return Err(CsvError {
                line: index + 2,
                message: format!("{} fields where the header has {}", row.len(), header.len()),
            });
        }
        // Inserted one by one: collecting a map sorts its entries first, and that sort's code
        // would be one more in the page's first load (see `model::grid::sort_small`).
        let mut record = Record::new();
        for (name, cell) in header.iter().zip(row) {
            record.insert(name.clone(), cell.trim().to_string());
        }
        records.push(record);
    }
    Ok(records)
}

/// The text of a field, empty when the column is absent.
pub fn text<'a>(record: &'a Record, column: &str) -> &'a str {
    record.get(column).map(String::as_str).unwrap_or("")
}

/// A number in a field; `Ok(None)` when the cell is empty, an error naming the column when it is not a number.
pub fn number(record: &Record, column: &str) -> Result<Option<f64>, String> {
    let cell = text(record, column);
    if cell.is_empty() {
        return Ok(None);
    }
    cell.parse::<f64>()
        .map(Some)
        .map_err(|_| format!("column `{column}`: `{cell}` is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_rows_read_back() {
        let rows = vec![
            vec!["a".to_string(), "b, c".to_string()],
            vec!["say \"hi\"".to_string(), "two\nlines".to_string()],
        ];
        let text = write_rows(&rows);
        assert!(text.starts_with("a,\"b, c\"\n"), "{text}");
        assert_eq!(parse_rows(&text).expect("reads"), rows);
    }

    #[test]
    fn quoted_fields_commas_and_escaped_quotes() {
        let rows = parse_rows("a,b,c\n1,\"x, \"\"y\"\"\",3\r\n").unwrap_or_default();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows.get(1).and_then(|r| r.get(1)).map(String::as_str),
            Some("x, \"y\"")
        );
    }

    #[test]
    fn unclosed_quote_is_an_error() {
        assert!(parse_rows("a\n\"open").is_err());
    }

    #[test]
    fn ragged_row_is_an_error_naming_the_line() {
        let err = parse_records("a,b\n1,2\n3\n").err();
        assert_eq!(err.map(|e| e.line), Some(3));
    }
}
