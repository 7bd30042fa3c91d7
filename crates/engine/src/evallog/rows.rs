//! The rows of a file of records written either as JSON lines or as one JSON array of them, told
//! apart by content (the first character that is not white space: `[` for an array), whatever
//! the file's name: lm-evaluation-harness wrote its samples files as JSON lines from v0.4.3 on,
//! as one indented JSON array before (v0.4.0–v0.4.2 under a `.jsonl` name, and the first
//! `EvaluationTracker` of 2024-05 as `samples_<task>_<date>.json`).
//!
//! An array is cut into its elements by [`crate::json_array::element_spans`] without parsing
//! them, and each element is parsed on its own ([`super::json::parse`]: Python's `NaN`, repeated
//! keys), so one bad element is one error (its index and line) and the others are read. Bounds
//! are the JSONL reader's: one element's tree at a time, serde_json's nesting limit.

use serde_json::Value;

use super::json::{self, At};
use crate::diag::{Diagnostic, LineCursor};
use crate::input::InputFile;

/// Where a row sits in its file: its first line and, in an array, its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowAt {
    /// 1-based line the row starts on.
    pub line: u32,
    /// 0-based index of the element, when the file is one JSON array.
    pub element: Option<usize>,
}

impl RowAt {
    /// An error about this row: its line, and its element as the record.
    pub fn error(&self, path: &str, message: impl Into<String>) -> Diagnostic {
        let d = Diagnostic::error(path, Some(self.line), message);
        match self.element {
            Some(i) => d.with_record(element_record(i)),
            None => d,
        }
    }
}

fn element_record(i: usize) -> String {
    format!("element {i}")
}

/// Whether the text is one JSON array (its first non-white-space byte is `[`).
pub fn is_array(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// Each row of `file`, parsed, in file order: each element of a JSON array, else each non-blank
/// line. A row that does not parse is an error in `diags` and skipped.
pub fn each_row(
    file: &InputFile,
    diags: &mut Vec<Diagnostic>,
    mut row: impl FnMut(RowAt, Value, &mut Vec<Diagnostic>),
) {
    if !is_array(&file.bytes) {
        json::each_line(file, diags, |line, v, diags| {
            row(
                RowAt {
                    line,
                    element: None,
                },
                v,
                diags,
            )
        });
        return;
    }
    let path = file.path.as_str();
    let bytes = file.bytes.as_slice();
    let Ok((spans, problems)) = crate::json_array::element_spans(bytes) else {
        return;
    };
    // Problems and spans each come in file order: one cursor each.
    let mut lines = LineCursor::new(bytes);
    for (off, msg) in problems {
        diags.push(Diagnostic::error(path, Some(lines.line_of(off)), msg));
    }
    let mut lines = LineCursor::new(bytes);
    for (i, (s, e)) in spans.into_iter().enumerate() {
        let line = lines.line_of(s);
        let at = At {
            path,
            line,
            member: None,
        };
        match json::parse::<Value>(bytes.get(s..e).unwrap_or_default(), at, diags) {
            Ok(v) => row(
                RowAt {
                    line,
                    element: Some(i),
                },
                v,
                diags,
            ),
            Err(err) => {
                let err_line = u32::try_from(err.line()).unwrap_or(1).saturating_sub(1);
                diags.push(
                    Diagnostic::error(
                        path,
                        Some(line.saturating_add(err_line)),
                        format!(
                            "element {i} does not parse: {} (column {})",
                            crate::json_array::error_message(&err),
                            err.column()
                        ),
                    )
                    .with_record(element_record(i)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> (Vec<(RowAt, Value)>, Vec<Diagnostic>) {
        let f = InputFile::new("s.jsonl", text);
        let mut out = Vec::new();
        let mut diags = Vec::new();
        each_row(&f, &mut diags, |at, v, _| out.push((at, v)));
        (out, diags)
    }

    #[test]
    fn an_array_is_read_element_by_element() {
        let (got, diags) = rows("[\n  {\n    \"doc_id\": 0\n  },\n  {\n    \"doc_id\": NaN,\n    \"x\": nope\n  },\n  {\"doc_id\": 2}\n]\n");
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0].0,
            RowAt {
                line: 2,
                element: Some(0)
            }
        );
        assert_eq!(
            got[1].0,
            RowAt {
                line: 9,
                element: Some(2)
            }
        );
        assert_eq!(got[1].1["doc_id"], 2);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].line, Some(7));
        assert_eq!(diags[0].record.as_deref(), Some("element 1"));
        assert!(
            diags[0]
                .message
                .starts_with("element 1 does not parse: expected ident (column 11)"),
            "{}",
            diags[0].message
        );
    }

    #[test]
    fn lines_and_cut_arrays() {
        let (got, diags) = rows("{\"doc_id\": 0}\n\n{\"doc_id\": 1}\n");
        assert_eq!(got.iter().map(|r| r.0.line).collect::<Vec<_>>(), [1, 3]);
        assert!(got.iter().all(|r| r.0.element.is_none()) && diags.is_empty());
        let (got, diags) = rows("[{\"doc_id\": 0}, {\"doc_id\": 1}");
        assert_eq!(got.len(), 2);
        assert_eq!(diags[0].message, "the list is not closed with ]");
        let (got, diags) = rows("[{\"doc_id\": 0}, {\"doc_id\": ");
        assert_eq!((got.len(), diags.len()), (1, 2));
    }
}
