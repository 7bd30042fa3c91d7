//! What each file of a numeric QA run folder is, by content (the name only where content is
//! ambiguous): a trace, a batch results.json, a QA JSONL, a turns.csv, a ConvFinQA dataset, or one
//! of the original system's own output files.

use crate::diag::line_of_offset;
use crate::input::InputFile;
use crate::numeric_qa::formats::{convfinqa, fa2_results, fa2_traces, qa_jsonl};

/// What a file was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Fa2Trace,
    Fa2Results,
    QaJsonl,
    Fa2TurnsCsv,
    /// A CSV the original system wrote next to its traces (summary, errors, validation).
    OriginalCsv,
    /// A JSON file the original system wrote with aggregate scores or run metadata.
    OriginalJson,
    ConvFinQaDataset,
}

impl FileKind {
    /// A file a numeric QA run is read from (its vote in [`crate::family::family_vote`]).
    pub(crate) fn is_numeric_qa(self) -> bool {
        matches!(
            self,
            FileKind::Fa2Trace | FileKind::Fa2Results | FileKind::QaJsonl | FileKind::Fa2TurnsCsv
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            FileKind::Fa2Trace => "fa2-trace",
            FileKind::Fa2Results => "fa2-results",
            FileKind::QaJsonl => "qa-jsonl",
            FileKind::Fa2TurnsCsv => "fa2-turns-csv",
            FileKind::OriginalCsv => "original-csv",
            FileKind::OriginalJson => "original-json",
            FileKind::ConvFinQaDataset => "convfinqa-dataset",
        }
    }
}

/// The file as text, without a leading UTF-8 byte-order mark (Windows tools write one; every
/// format reads the same with or without it), or why it cannot be read at all (before looking
/// at its format).
pub(crate) fn text_of(f: &InputFile) -> Result<&str, String> {
    if f.bytes.is_empty() {
        return Err("empty file (0 bytes)".into());
    }
    std::str::from_utf8(&f.bytes)
        .map(|t| t.strip_prefix('\u{feff}').unwrap_or(t))
        .map_err(|e| {
            let at = e.valid_up_to();
            not_utf8_reason(at as u64, line_of_offset(&f.bytes, at))
        })
}

/// `b` without a leading UTF-8 byte-order mark.
pub(crate) fn without_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

pub(crate) fn not_utf8_reason(offset: u64, line: u32) -> String {
    format!("not UTF-8 text (invalid byte at offset {offset}, line {line})")
}

/// Whether a file name or path names a JSONL file (`.jsonl`, `.ndjson`, any case).
pub fn is_jsonl_name(name: &str) -> bool {
    let ends_with = |suffix: &str| {
        name.len() >= suffix.len()
            && name
                .as_bytes()
                .get(name.len() - suffix.len()..)
                .is_some_and(|end| end.eq_ignore_ascii_case(suffix.as_bytes()))
    };
    ends_with(".jsonl") || ends_with(".ndjson")
}

const ORIGINAL_JSON_NAMES: &[&str] = &[
    "statistics.json",
    "config.json",
    "aggregate_metrics.json",
    "metadata.json",
    "comparison_report.json",
];

/// Classifies a file by content (and, where content is ambiguous, by name).
pub fn classify(f: &InputFile) -> Result<FileKind, String> {
    classify_text(f).map(|(kind, _)| kind)
}

/// [`classify`], with the file's text (validated once, for the reader).
pub(crate) fn classify_text(f: &InputFile) -> Result<(FileKind, &str), String> {
    let text = text_of(f)?;
    kind_of(f).map(|kind| (kind, text))
}

/// What a JSON parse error says, without serde_json's own "at line L column C" suffix.
fn json_error_words(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The kind of a file that is UTF-8 text.
pub(crate) fn kind_of(f: &InputFile) -> Result<FileKind, String> {
    let name = f.file_name().to_ascii_lowercase();
    let b = without_bom(&f.bytes);
    if is_jsonl_name(&name) {
        if qa_jsonl::looks_like_qa_jsonl(b) {
            return Ok(FileKind::QaJsonl);
        }
        return Err("JSONL without conversation_id/turn_idx fields: not a numeric QA run".into());
    }
    if name.ends_with(".json") {
        if fa2_traces::looks_like_trace(b) {
            return Ok(FileKind::Fa2Trace);
        }
        if fa2_results::looks_like_results(b) {
            return Ok(FileKind::Fa2Results);
        }
        if convfinqa::looks_like_dataset(b) {
            return Ok(FileKind::ConvFinQaDataset);
        }
        if ORIGINAL_JSON_NAMES.iter().any(|n| name.ends_with(n)) {
            return Ok(FileKind::OriginalJson);
        }
        // A trace folder's JSON that does not sniff as a trace is still read as one, so the
        // trace reader can say what is wrong with it.
        if f.path.contains("traces/") {
            return Ok(FileKind::Fa2Trace);
        }
        // A file that is not JSON at all (cut off, hand-edited) says where it breaks; only valid
        // JSON of another shape is "an unknown shape" (skipping a value is iterative in
        // serde_json: no depth limit, no recursion).
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(b) {
            let words = json_error_words(&e);
            return Err(format!(
                "invalid JSON at line {}, column {}: {words}",
                e.line(),
                e.column()
            ));
        }
        return Err("JSON file of an unknown shape (not a trace, results.json or dataset)".into());
    }
    if name.ends_with(".csv") {
        if name == "turns.csv" || name.ends_with("_turns.csv") {
            return Ok(FileKind::Fa2TurnsCsv);
        }
        if ["summary.csv", "errors.csv", "validation.csv"]
            .iter()
            .any(|n| name.ends_with(n))
        {
            return Ok(FileKind::OriginalCsv);
        }
        return Err("CSV that is not one of summary/turns/errors/validation.csv".into());
    }
    if name.starts_with('.') {
        return Err("hidden file".into());
    }
    Err("not an evaluation file (expected .json, .jsonl or .csv)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(name: &str, text: &str) -> String {
        kind_of(&InputFile::new(name, text.as_bytes().to_vec())).expect_err("not a QA file")
    }

    #[test]
    fn a_broken_json_file_says_where_it_breaks() {
        assert_eq!(
            why("run/results.json", "{\"a\": [1, 2,\n"),
            "invalid JSON at line 2, column 0: EOF while parsing a value"
        );
        assert!(
            why("x.json", "{\"a\": 1} trailing").starts_with("invalid JSON at line 1, column 10")
        );
        assert!(
            why("x.json", &("[".repeat(100_000) + &"]".repeat(100_000))).contains("unknown shape")
        );
        assert!(why("x.json", &"[".repeat(100_000)).starts_with("invalid JSON at line 1"));
        assert!(why("x.json", "{\"a\": 1}").contains("unknown shape"));
    }
}
