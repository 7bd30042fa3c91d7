//! Which files of a folder belong to a code-generation run: metrics lists, metrics summaries and
//! trace JSONL, recognised by name and content. CSVs are not claimed here (a run's data files are
//! found through the traces that name them).

/// What a file of a code-generation run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CodegenFileKind {
    /// `metrics.json`: a JSON list of metric entries (scores, no code).
    MetricsJson,
    /// `metrics_summary.json`: `{session_id, total_entries, last_updated, summary}`.
    MetricsSummaryJson,
    /// Code-generation trace: one JSON message per line.
    TraceJsonl,
}

const SNIFF_PREFIX: usize = 64 * 1024;

pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn prefix_has(bytes: &[u8], needle: &str) -> bool {
    let head = bytes.get(..SNIFF_PREFIX.min(bytes.len())).unwrap_or(bytes);
    head.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Recognises a code-generation file by name and content. CSVs are not claimed (a run's data
/// files are found through the traces that name them).
pub fn sniff(path: &str, bytes: &[u8]) -> Option<CodegenFileKind> {
    let bytes = strip_bom(bytes);
    let name = file_name(path).to_ascii_lowercase();
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    match first {
        Some(b'[') => {
            if name == "metrics.json" || prefix_has(bytes, "\"code_correctness\"") {
                return Some(CodegenFileKind::MetricsJson);
            }
            None
        }
        Some(b'{') => {
            if is_trace_line(bytes) {
                return Some(CodegenFileKind::TraceJsonl);
            }
            let summary_like = prefix_has(bytes, "\"summary\"")
                && (prefix_has(bytes, "\"average_overall_score\"")
                    || prefix_has(bytes, "\"total_entries\""));
            if name == "metrics_summary.json" || summary_like {
                return Some(CodegenFileKind::MetricsSummaryJson);
            }
            None
        }
        _ => None,
    }
}

/// How many non-blank lines are tried before a file is given up as not a trace: a broken or
/// truncated first line does not decide alone.
const SNIFF_LINES: usize = 5;

/// The first of the first [`SNIFF_LINES`] non-blank lines that is a JSON object decides: a trace
/// message has `question`, `code` and `execution_result`.
fn is_trace_line(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
        .take(SNIFF_LINES)
        .find_map(
            |line| match serde_json::from_slice::<serde_json::Value>(line) {
                Ok(serde_json::Value::Object(o)) => Some(
                    o.contains_key("question")
                        && o.contains_key("code")
                        && o.contains_key("execution_result"),
                ),
                _ => None,
            },
        )
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_by_name_and_content() {
        let check = |path: &str, bytes: &str, want: Option<CodegenFileKind>| {
            assert_eq!(sniff(path, bytes.as_bytes()), want, "{path}: {bytes:?}");
        };
        use CodegenFileKind::*;
        check("s/metrics.json", "[]", Some(MetricsJson));
        check(
            "x.json",
            "\u{feff} [ {\"code_correctness\": {}} ]",
            Some(MetricsJson),
        );
        check("x.json", "[1, 2]", None);
        check("s/metrics_summary.json", "{}", Some(MetricsSummaryJson));
        check(
            "y.json",
            "{\"summary\": {\"average_overall_score\": 1}}",
            Some(MetricsSummaryJson),
        );
        check("y.json", "{\"summary\": 1}", None);
        let line = r#"{"question": "q", "code": "c", "execution_result": {"type": "number"}}"#;
        check("t.jsonl", &format!("\n{line}\n{line}"), Some(TraceJsonl));
        check("t.jsonl", "{\"question\": \"q\"}", None);
        // A truncated first line does not hide the file's other lines.
        check(
            "t.jsonl",
            &format!("{{\"question\": \"q\", \"co\n{line}\n"),
            Some(TraceJsonl),
        );
        check("t.jsonl", "{ broken\n{ broken\n{ broken\n", None);
        check("t.jsonl", "", None);
        check("data.csv", "a,b\n1,2", None);
    }
}
