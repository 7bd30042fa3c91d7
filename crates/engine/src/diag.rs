//! Diagnostics: bad input is data. Readers return what they could read plus these.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One problem found in one input file, with enough position to find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Relative path inside the run folder.
    pub file: String,
    /// 1-based line, when the format has lines (JSONL, CSV, or a JSON parse error position).
    pub line: Option<u32>,
    /// Record inside the file (array index, trace turn), when that is the better locator.
    pub record: Option<String>,
    pub message: String,
}

impl Diagnostic {
    pub fn error(file: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.into(),
            line,
            record: None,
            message: message.into(),
        }
    }
    pub fn warning(file: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, line, message)
        }
    }
    pub fn with_record(mut self, record: impl Into<String>) -> Self {
        self.record = Some(record.into());
        self
    }
}

impl std::fmt::Display for Diagnostic {
    /// `file:line: severity: message` (record in brackets when present), like a compiler.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(rec) = &self.record {
            write!(f, " [{rec}]")?;
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        write!(f, ": {sev}: {}", self.message)
    }
}

/// 1-based line of a byte offset in `bytes`.
pub fn line_of_offset(bytes: &[u8], offset: usize) -> u32 {
    let end = offset.min(bytes.len());
    newlines(bytes.get(..end).unwrap_or_default()).saturating_add(1)
}

fn newlines(bytes: &[u8]) -> u32 {
    u32::try_from(memchr::memchr_iter(b'\n', bytes).count()).unwrap_or(u32::MAX)
}

/// 1-based lines of the records of one file, asked in file order: each call counts only the
/// newlines since the previous one. [`line_of_offset`] per record counts from the start each
/// time, which makes a reader quadratic in the file's size (a 20,000-row turns.csv took seconds,
/// a 100,000-row one minutes).
#[derive(Debug, Clone)]
pub struct LineCursor<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: u32,
}

impl<'a> LineCursor<'a> {
    pub fn new(bytes: &'a [u8]) -> LineCursor<'a> {
        LineCursor {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// The line of `offset`. An offset before the previous one is counted from the start again
    /// (correct, just not incremental).
    pub fn line_of(&mut self, offset: usize) -> u32 {
        let end = offset.min(self.bytes.len());
        if end < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        let added = newlines(self.bytes.get(self.offset..end).unwrap_or_default());
        self.line = self.line.saturating_add(added);
        self.offset = end;
        self.line
    }
}

/// Where a record came from, for diagnostics and deep links.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRef {
    /// Relative path inside the run folder (shared by every record of the file).
    pub file: std::sync::Arc<str>,
    /// 1-based line (JSONL, CSV) when the format has lines.
    pub line: Option<u32>,
    /// 0-based record index inside a JSON array, when the format has records.
    pub record: Option<u32>,
}

/// `text` cut to `max` characters, `…` marking the cut: input quoted in a message.
pub fn shortened(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}…", text.get(..at).unwrap_or(text))),
        None => std::borrow::Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_cursor_agrees_with_line_of_offset_forward_and_back() {
        let text = b"a\nbb\n\nccc\r\nd";
        let mut c = LineCursor::new(text);
        for off in [0, 1, 2, 4, 5, 6, 11, 99, 3, 0, 12] {
            assert_eq!(c.line_of(off), line_of_offset(text, off), "offset {off}");
        }
        assert_eq!(line_of_offset(text, 99), 5);
    }
}
