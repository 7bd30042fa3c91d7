//! Output DTOs with the ISE547 system's exact key names and key order: one `metrics.json` entry
//! ([`MetricsEntry`]) and `metrics_summary.json` ([`MetricsSummaryFile`]). Output formats are
//! contracts: these types change only on purpose.

use serde::{Deserialize, Serialize};

pub use super::syntax::{BareSyntaxError, SyntaxErrorDto, SyntaxValidity};

/// A number that Python wrote either as an int or as a float (`max(0, x)` keeps the int `0`;
/// a missing CSV leaves `estimated_memory_mb` at the int `0`). Serializes as Python would.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PyNum {
    Int(i64),
    Float(f64),
}

impl PyNum {
    pub fn as_f64(self) -> f64 {
        match self {
            PyNum::Int(i) => i as f64,
            PyNum::Float(f) => f,
        }
    }
}

/// One `metrics.json` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsEntry {
    /// Input data (the trace's own timestamp), never a clock read.
    pub timestamp: Option<String>,
    pub model: String,
    pub question: String,
    pub csv_file: Option<String>,
    pub code_correctness: CodeCorrectness,
    pub code_quality: CodeQuality,
    pub performance: Performance,
    pub prompt_understanding: PromptUnderstanding,
    pub requirement_coverage: RequirementCoverage,
    pub error_recovery: ErrorRecovery,
    /// `None` only when syntax validity is unchecked (no parser) and cannot be inferred.
    pub overall_score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeCorrectness {
    pub syntax_valid: SyntaxValidity,
    pub syntax_errors: Vec<SyntaxErrorDto>,
    pub execution_success: bool,
    pub execution_error: serde_json::Value,
    pub correctness_score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeQuality {
    pub has_imports: bool,
    pub has_comments: bool,
    pub line_count: u64,
    pub complexity_score: u64,
    pub readability_score: i64,
    pub safety: Safety,
    pub quality_score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Safety {
    pub is_safe: bool,
    pub safety_issues: Vec<SafetyIssue>,
    pub safety_score: PyNum,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SafetyIssue {
    pub category: String,
    /// The pattern's Python regex source, as the seed system wrote it.
    pub pattern: String,
    pub severity: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Performance {
    pub code_length: u64,
    pub estimated_complexity: u64,
    pub line_count: u64,
    pub execution_time_seconds: Option<f64>,
    pub execution_time_ms: Option<f64>,
    pub time_complexity: TimeComplexity,
    pub space_complexity: SpaceComplexity,
    pub performance_score: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeComplexity {
    pub notation: String,
    pub score: f64,
    pub nested_loops: u64,
    pub estimated_operations: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceComplexity {
    pub notation: String,
    pub score: f64,
    pub estimated_memory_mb: PyNum,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptUnderstanding {
    pub understanding_score: f64,
    pub details: UnderstandingDetails,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnderstandingDetails {
    pub column_extraction_score: f64,
    pub nl_parsing_score: f64,
    pub statistical_understanding_score: f64,
    /// Columns the code uses, lowercased, in first-use order (the seed system's order was a
    /// Python set's, i.e. arbitrary).
    pub extracted_columns: Vec<String>,
    pub mentioned_columns: Vec<String>,
    pub statistical_operations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequirementCoverage {
    pub coverage_score: f64,
    pub details: CoverageDetails,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageDetails {
    pub filter_conditions_coverage: f64,
    pub groupby_columns_coverage: f64,
    pub sorting_coverage: f64,
    pub join_conditions_coverage: f64,
    pub missing_requirements: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorRecovery {
    pub has_error: bool,
    pub error_message: serde_json::Value,
    pub recovery_attempts_count: u64,
    pub recovery_success: bool,
    /// `None` (doc-v1) when there is nothing to rate: no error, or no attempt.
    pub recovery_success_rate: Option<f64>,
    pub error_fix_quality: Option<f64>,
    pub recovery_details: Vec<RecoveryDetail>,
    pub recovery_score: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryDetail {
    pub attempt_number: u64,
    pub success: bool,
    pub error: Option<String>,
    pub fix_quality: f64,
}

/// `metrics_summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsSummaryFile {
    pub session_id: String,
    pub total_entries: u64,
    /// Input data: given by the caller, else the last entry's timestamp. Never a clock read.
    pub last_updated: Option<String>,
    pub summary: Summary,
}

/// The `summary` object. Averages are `None` (JSON null) when there is nothing to average.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub average_overall_score: Option<f64>,
    pub average_correctness_score: Option<f64>,
    pub average_quality_score: Option<f64>,
    pub average_performance_score: Option<f64>,
    pub average_understanding_score: Option<f64>,
    pub average_coverage_score: Option<f64>,
    pub average_recovery_score: Option<f64>,
    pub average_execution_time_seconds: Option<f64>,
    pub average_execution_time_ms: Option<f64>,
    /// First-occurrence order (the seed system's was a Python set's, i.e. arbitrary).
    pub models_used: Vec<String>,
    pub total_questions: u64,
    pub successful_executions: u64,
    pub errors_encountered: u64,
    pub total_recovery_attempts: u64,
    pub successful_recoveries: u64,
    pub recovery_success_rate: Option<f64>,
    pub time_complexity_distribution: Counts,
    pub space_complexity_distribution: Counts,
}

/// A JSON object of counts in first-occurrence key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts(pub Vec<(String, u64)>);

impl Counts {
    pub fn add(&mut self, key: &str) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, n)) => *n += 1,
            None => self.0.push((key.to_string(), 1)),
        }
    }
    pub fn get(&self, key: &str) -> Option<u64> {
        self.0.iter().find(|(k, _)| k == key).map(|&(_, n)| n)
    }
}

impl Serialize for Counts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, n) in &self.0 {
            map.serialize_entry(k, n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        let mut out = Vec::with_capacity(map.len());
        for (k, v) in map {
            let n = v.as_u64().ok_or_else(|| {
                serde::de::Error::custom(format!("count for {k:?} is not a count"))
            })?;
            out.push((k, n));
        }
        Ok(Counts(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pynum_keeps_python_int_or_float() {
        let check = |n: PyNum, json: &str| {
            assert_eq!(serde_json::to_string(&n).ok().as_deref(), Some(json));
            assert_eq!(serde_json::from_str::<PyNum>(json).ok(), Some(n));
        };
        check(PyNum::Int(0), "0");
        check(PyNum::Float(0.0), "0.0");
        check(PyNum::Float(0.8), "0.8");
        check(PyNum::Float(-0.5), "-0.5");
        assert_eq!(PyNum::Int(3).as_f64(), 3.0);
    }

    #[test]
    fn counts_keep_first_occurrence_order() {
        let mut c = Counts::default();
        for k in ["O(n)", "O(1)", "O(n)", "O(n²)"] {
            c.add(k);
        }
        let json = serde_json::to_string(&c).unwrap_or_default();
        assert_eq!(json, r#"{"O(n)":2,"O(1)":1,"O(n²)":1}"#);
        let back: Result<Counts, _> = serde_json::from_str(&json);
        assert_eq!(back.ok(), Some(c.clone()));
        assert_eq!(c.get("O(1)"), Some(1));
        assert_eq!(c.get("O(n³)"), None);
        assert!(serde_json::from_str::<Counts>(r#"{"a":-1}"#).is_err());
        assert!(serde_json::from_str::<Counts>(r#"{"a":1.5}"#).is_err());
    }
}
