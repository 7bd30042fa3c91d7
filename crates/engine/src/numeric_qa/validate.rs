//! Dataset validation: execute every turn_program and compare with executed_answers.
//!
//! `evalboard validate <FILE>` prints [`ValidateReport`] as JSON and exits with
//! [`ValidateReport::exit_code`]: 0 clean, 1 a program mismatch or an invalid record, 2 the file
//! is unusable.

use serde::Serialize;

use crate::diag::{Diagnostic, Severity};
use crate::numeric_qa::finqa_program::{execute, Dialect};
use crate::numeric_qa::formats::convfinqa::read_dataset;

/// Options for [`validate_dataset_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidateOptions {
    /// Which official executor produced `executed_answers` (ConvFinQA by default: a bare value
    /// program is valid).
    pub dialect: Dialect,
}

/// The result of validating one dataset file. Serializes to exactly
/// `{"conversations", "turns", "programs_checked", "program_mismatches", "errors", "warnings"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ValidateReport {
    /// Conversations read (bad records excluded).
    pub conversations: usize,
    /// Dialogue turns (questions) of those conversations.
    pub turns: usize,
    /// (turn_program, executed_answer) pairs executed and compared.
    pub programs_checked: usize,
    pub program_mismatches: Vec<ProgramMismatch>,
    pub errors: Vec<ReportDiagnostic>,
    pub warnings: Vec<ReportDiagnostic>,
    /// Nothing in the file could be read.
    #[serde(skip)]
    pub unusable: bool,
}

/// A turn whose program does not reproduce its executed answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgramMismatch {
    pub id: String,
    pub turn_idx: u32,
    pub program: String,
    /// The recorded `executed_answers` value, as in the file.
    pub expected: serde_json::Value,
    /// The executor's result: a number, "yes"/"no", or `"invalid: <reason>"`.
    pub got: serde_json::Value,
}

/// A diagnostic as the report prints it; the record locator is folded into the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportDiagnostic {
    pub file: String,
    pub line: Option<u32>,
    pub message: String,
}

impl From<&Diagnostic> for ReportDiagnostic {
    fn from(d: &Diagnostic) -> Self {
        ReportDiagnostic {
            file: d.file.clone(),
            line: d.line,
            message: match &d.record {
                Some(record) => format!("{record}: {}", d.message),
                None => d.message.clone(),
            },
        }
    }
}

impl ValidateReport {
    /// 0 clean, 1 any program mismatch or error, 2 the file is unusable.
    pub fn exit_code(&self) -> i32 {
        if self.unusable {
            2
        } else if !self.program_mismatches.is_empty() || !self.errors.is_empty() {
            1
        } else {
            0
        }
    }

    fn add_diagnostics(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors.push(d.into()),
                Severity::Warning | Severity::Info => self.warnings.push(d.into()),
            }
        }
    }
}

/// Validates a ConvFinQA dataset file with the default options.
pub fn validate_dataset(path: &str, bytes: &[u8]) -> ValidateReport {
    validate_dataset_with(path, bytes, &ValidateOptions::default())
}

/// Reads the dataset, executes every `turn_program` against its table and compares the result
/// with `executed_answers` as the official evaluator does (after `round(x, 5)`).
pub fn validate_dataset_with(
    path: &str,
    bytes: &[u8],
    options: &ValidateOptions,
) -> ValidateReport {
    let mut report = ValidateReport::default();
    let dataset = match read_dataset(path, bytes) {
        Ok(ds) => ds,
        Err(diagnostics) => {
            report.unusable = true;
            report.add_diagnostics(&diagnostics);
            return report;
        }
    };
    report.add_diagnostics(&dataset.diagnostics);
    report.conversations = dataset.conversations.len();
    for conv in &dataset.conversations {
        report.turns += conv.questions.len();
        for (turn_idx, (program, expected)) in conv
            .turn_programs
            .iter()
            .zip(&conv.executed_answers)
            .enumerate()
        {
            report.programs_checked += 1;
            let got = execute(program, &conv.table, options.dialect);
            if !got.matches(expected) {
                report.program_mismatches.push(ProgramMismatch {
                    id: conv.id.clone(),
                    turn_idx: u32::try_from(turn_idx).unwrap_or(u32::MAX),
                    program: program.clone(),
                    expected: serde_json::to_value(expected).unwrap_or_default(),
                    got: got.to_json(),
                });
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(json: &str, expected: serde_json::Value, exit_code: i32) {
        let report = validate_dataset("d.json", json.as_bytes());
        let got = serde_json::to_value(&report).expect("serializes");
        assert_eq!(got, expected, "{json}");
        assert_eq!(report.exit_code(), exit_code);
    }

    #[test]
    fn clean_dataset() {
        check(
            r#"{"dev": [{"id": "a", "doc": {"table": {"2019": {"margin": "25%"}, "2018": {"margin": 0.2}}},
               "features": {"num_dialogue_turns": 3},
               "dialogue": {"conv_questions": ["q1", "q2", "q3"], "conv_answers": ["5", "yes", "x"],
                 "turn_program": ["5", "greater(2, 1)", "table_average(margin, none)"],
                 "executed_answers": [5, "yes", 0.225]}}]}"#,
            serde_json::json!({
                "conversations": 1, "turns": 3, "programs_checked": 3,
                "program_mismatches": [], "errors": [], "warnings": []
            }),
            0,
        );
    }

    #[test]
    fn mismatches_and_record_errors() {
        check(
            r#"{"dev": [
                {"id": "a", "doc": {"table": []}, "features": {"num_dialogue_turns": 4},
                 "dialogue": {"conv_questions": ["q1", "q2", "q3", "q4"], "conv_answers": ["", "", "", ""],
                   "turn_program": ["subtract(5, 3)", "divide(1, 0)", "greater(1, 2)", "add(2.675, 0)"],
                   "executed_answers": [2.5, 1.0, "yes", 2.675]}},
                {"id": "b"}
            ]}"#,
            serde_json::json!({
                "conversations": 1, "turns": 4, "programs_checked": 4,
                "program_mismatches": [
                    {"id": "a", "turn_idx": 0, "program": "subtract(5, 3)", "expected": 2.5, "got": 2.0},
                    {"id": "a", "turn_idx": 1, "program": "divide(1, 0)", "expected": 1.0,
                     "got": "invalid: step 0: float division by zero"},
                    {"id": "a", "turn_idx": 2, "program": "greater(1, 2)", "expected": "yes", "got": "no"}
                ],
                "errors": [{"file": "d.json", "line": 6,
                            "message": "dev[1] id=b: record skipped: missing field dialogue"}],
                "warnings": []
            }),
            1,
        );
    }

    #[test]
    fn unusable_file() {
        check(
            "{\"dev\": [}",
            serde_json::json!({
                "conversations": 0, "turns": 0, "programs_checked": 0, "program_mismatches": [],
                "errors": [{"file": "d.json", "line": 1,
                            "message": "not valid JSON: expected value at line 1 column 10"}],
                "warnings": []
            }),
            2,
        );
        assert_eq!(validate_dataset("d.json", b"{\"dev\": [1]}").exit_code(), 2);
    }

    #[test]
    fn warnings_alone_keep_the_exit_code_clean() {
        let report = validate_dataset(
            "d.json",
            br#"[{"id": "a", "dialogue": {"conv_questions": ["q"], "conv_answers": ["1"],
                 "turn_program": ["1"], "executed_answers": [1.0]}}]"#,
        );
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
        assert_eq!(report.exit_code(), 0);
    }

    #[test]
    fn recorded_floats_compare_bit_exactly() {
        // Needs serde_json's float_roundtrip: the default parser reads this 1 ulp low.
        check(
            r#"[{"id": "big", "doc": {"table": []}, "features": {},
                "dialogue": {"conv_questions": ["q", "r"], "conv_answers": ["", ""],
                  "turn_program": ["exp(-2, 1000)", "divide(1e16, 2.675)"],
                  "executed_answers": [1.0715086071862673e+301, 3738317757009346.0]}}]"#,
            serde_json::json!({
                "conversations": 1, "turns": 2, "programs_checked": 2,
                "program_mismatches": [], "errors": [], "warnings": []
            }),
            0,
        );
    }

    #[test]
    fn the_finqa_dialect_rejects_bare_values() {
        let json = br#"[{"id": "a", "doc": {"table": []}, "features": {},
            "dialogue": {"conv_questions": ["q"], "conv_answers": ["1"],
            "turn_program": ["1"], "executed_answers": [1.0]}}]"#;
        let options = ValidateOptions {
            dialect: Dialect::FinQa,
        };
        let report = validate_dataset_with("d.json", json, &options);
        assert_eq!(report.program_mismatches.len(), 1);
        assert_eq!(validate_dataset("d.json", json).exit_code(), 0);
    }
}
