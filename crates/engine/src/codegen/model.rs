//! Canonical, already-checked inputs of code-generation scoring: trace messages, data files, and
//! the exact argument set of the seed system's `calculate_evaluation_metrics` ([`EvalInputs`]).

use serde::{Deserialize, Serialize};

/// `{type, data, execution_time?}` as the seed system's executor returned it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecutionResult {
    /// `"table"`, `"number"`, `"text"`, `"chart"`, or `"error"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `None` when the key was absent (Python's `.get('data', '')` then gives `''`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_time: Option<f64>,
}

impl ExecutionResult {
    pub fn is_error(&self) -> bool {
        self.kind == "error"
    }
    /// A successful execution with no payload (used when replaying a successful recovery).
    pub fn success(execution_time: Option<f64>) -> ExecutionResult {
        ExecutionResult {
            kind: "recovered".into(),
            data: None,
            execution_time,
        }
    }
}

/// One recovery attempt, in the seed system's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryAttempt {
    pub attempt_number: Option<u64>,
    /// `None` when generating the fix itself failed.
    pub code: Option<String>,
    /// The fixed code's error, `None` on success.
    pub error: Option<String>,
    pub success: bool,
    pub execution_time: Option<f64>,
}

/// Token counts of a message, when the trace has them (display only; no score uses them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub prompt: Option<u64>,
    pub completion: Option<u64>,
    pub total: Option<u64>,
}

/// One line of a code-generation trace (see docs/codegen.md), checked.
///
/// `code` / `execution_result` / `execution_time` are the FIRST generation and its execution,
/// before any recovery; `recovery_attempts` follow in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodegenMessage {
    /// Trace file (relative path) and 1-based line.
    pub file: String,
    pub line: u32,
    pub session_id: String,
    pub timestamp: Option<String>,
    pub model: String,
    pub question: String,
    pub csv_file: Option<String>,
    /// Column names given in the trace line itself.
    pub columns: Option<Vec<String>>,
    /// The run-folder CSV this message's data resolved to, if any.
    pub data_file: Option<String>,
    pub code: String,
    pub execution_result: ExecutionResult,
    pub execution_time: Option<f64>,
    pub tokens: Option<Tokens>,
    pub recovery_attempts: Vec<RecoveryAttempt>,
}

/// A CSV of the run folder: its header as pandas would read it, and its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFile {
    pub path: String,
    /// `None` when the header could not be read (pandas would have failed too).
    pub columns: Option<Vec<String>>,
    pub size_bytes: u64,
}

/// Exactly what the seed system's `calculate_evaluation_metrics` receives, plus the first
/// execution (which the seed system overwrote after a successful recovery; doc-v1 uses it).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalInputs {
    pub timestamp: Option<String>,
    pub model: String,
    pub question: String,
    pub csv_file: Option<String>,
    /// Column names of the data file (original case); empty when unknown.
    pub columns: Vec<String>,
    /// Byte size of the data file, when it is in the run folder.
    pub csv_size_bytes: Option<u64>,
    /// The delivered code: the first successful recovery's, else the first generation's.
    pub code: String,
    pub execution_result: ExecutionResult,
    pub execution_time: Option<f64>,
    pub recovery_attempts: Vec<RecoveryAttempt>,
    /// The first generation's execution result.
    pub first_execution: ExecutionResult,
}
