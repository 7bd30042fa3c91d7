//! Scoring of one code-generation message under two profiles: `ise547` (the seed 001 system's
//! `calculate_evaluation_metrics`, quirks included, float operations in the same order) and
//! `doc-v1` (the seed document's definitions; see docs/codegen.md for every divergence).

use serde::{Deserialize, Serialize};

use super::dto::*;
use super::model::{DataFile, EvalInputs, ExecutionResult, RecoveryAttempt};
use super::patterns::{self as pat, DocKeys};
use super::pyre::{is_word, Flags, Text};
use super::pystr;
use super::syntax::{check_syntax, SyntaxValidity};
use super::CodegenMessage;
use crate::Diagnostic;

/// Which definitions to score by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Profile {
    /// The seed document ("New Evaluation Metrics Guide"); where silent, the seed code.
    #[serde(rename = "doc-v1")]
    DocV1,
    /// The seed system's code, quirks included.
    #[serde(rename = "ise547")]
    Ise547,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::DocV1 => "doc-v1",
            Profile::Ise547 => "ise547",
        }
    }
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "doc-v1" => Some(Profile::DocV1),
            "ise547" => Some(Profile::Ise547),
            _ => None,
        }
    }
}

/// Overall-score weights, applied in this order (as the seed system summed them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    pub correctness: f64,
    pub quality: f64,
    pub performance: f64,
    pub understanding: f64,
    pub coverage: f64,
    pub recovery: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            correctness: 0.25,
            quality: 0.20,
            performance: 0.15,
            understanding: 0.15,
            coverage: 0.15,
            recovery: 0.10,
        }
    }
}

/// Scoring options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CodegenConfig {
    pub profile: Profile,
    pub weights: Weights,
    /// Recovery attempts taken into account (the seed system made at most 2).
    pub max_recovery_attempts: u32,
}

impl Default for CodegenConfig {
    fn default() -> Self {
        CodegenConfig {
            profile: Profile::DocV1,
            weights: Weights::default(),
            max_recovery_attempts: 2,
        }
    }
}

impl CodegenConfig {
    pub fn ise547() -> Self {
        CodegenConfig {
            profile: Profile::Ise547,
            ..CodegenConfig::default()
        }
    }
    /// `Err` names the first weight that is negative or not finite.
    pub fn validate(&self) -> Result<(), String> {
        let w = &self.weights;
        for (name, v) in [
            ("correctness", w.correctness),
            ("quality", w.quality),
            ("performance", w.performance),
            ("understanding", w.understanding),
            ("coverage", w.coverage),
            ("recovery", w.recovery),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "weight {name} must be a finite number >= 0, got {v}"
                ));
            }
        }
        Ok(())
    }
}

/// Lowers a trace message to the seed function's arguments, replaying the seed app: attempts
/// past `max_recovery_attempts` or after the first success are dropped (with a warning), and the
/// first successful attempt's code, result and time become the delivered ones.
pub fn lower(
    msg: &CodegenMessage,
    data: Option<&DataFile>,
    cfg: &CodegenConfig,
) -> (EvalInputs, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let max = usize::try_from(cfg.max_recovery_attempts).unwrap_or(usize::MAX);
    let mut attempts: Vec<RecoveryAttempt> = Vec::new();
    let mut delivered: Option<&RecoveryAttempt> = None;
    for (i, a) in msg.recovery_attempts.iter().enumerate() {
        if delivered.is_some() {
            diags.push(
                Diagnostic::warning(
                    &msg.file,
                    Some(msg.line),
                    "recovery attempts after the first successful one are not scored",
                )
                .with_record(format!("session {}", msg.session_id)),
            );
            break;
        }
        if i >= max {
            diags.push(
                Diagnostic::warning(
                    &msg.file,
                    Some(msg.line),
                    format!(
                        "{} recovery attempts, only the first {max} are scored (max_recovery_attempts)",
                        msg.recovery_attempts.len()
                    ),
                )
                .with_record(format!("session {}", msg.session_id)),
            );
            break;
        }
        attempts.push(a.clone());
        if a.success && msg.execution_result.is_error() {
            delivered = Some(a);
        }
    }
    let (code, execution_result, execution_time) = match delivered {
        Some(a) => (
            a.code.clone().unwrap_or_default(),
            ExecutionResult::success(a.execution_time),
            a.execution_time,
        ),
        None => (
            msg.code.clone(),
            msg.execution_result.clone(),
            msg.execution_time,
        ),
    };
    let columns = data
        .and_then(|d| d.columns.clone())
        .or_else(|| msg.columns.clone())
        .unwrap_or_default();
    let inputs = EvalInputs {
        timestamp: msg.timestamp.clone(),
        model: msg.model.clone(),
        question: msg.question.clone(),
        csv_file: msg.csv_file.clone(),
        columns,
        csv_size_bytes: data.map(|d| d.size_bytes),
        code,
        execution_result,
        execution_time,
        recovery_attempts: attempts,
        first_execution: msg.execution_result.clone(),
    };
    (inputs, diags)
}

/// The seed system's `calculate_evaluation_metrics`, under the chosen profile.
pub fn calculate_evaluation_metrics(inputs: &EvalInputs, cfg: &CodegenConfig) -> MetricsEntry {
    let p = cfg.profile;
    let code = Text::new(&inputs.code);
    let execution_success = !inputs.execution_result.is_error();

    // 1. Correctness.
    let syntax = check_syntax(&inputs.code);
    let validity = match syntax.validity {
        // exec() compiles the whole module first: a run that did not fail proves valid syntax.
        SyntaxValidity::Unchecked if execution_success => SyntaxValidity::Valid,
        v => v,
    };
    let valid = validity.is_valid();
    let correctness_score = valid.map(|v| {
        let mut s = 0.0;
        if v {
            s += 0.5;
        }
        if execution_success {
            s += 0.5;
        }
        s
    });
    let code_correctness = CodeCorrectness {
        syntax_valid: validity,
        syntax_errors: syntax.errors,
        execution_success,
        execution_error: if execution_success {
            serde_json::Value::Null
        } else {
            inputs
                .execution_result
                .data
                .clone()
                .unwrap_or(serde_json::Value::Null)
        },
        correctness_score,
    };

    // 2. Quality.
    let code_quality = code_quality(&inputs.code, &code, valid);

    // 3. Performance.
    let performance = performance(inputs, &code, &code_quality, execution_success);

    // 4-6. Understanding, coverage, recovery.
    let prompt_understanding = prompt_understanding(inputs, &code, p);
    let requirement_coverage = requirement_coverage(&inputs.question, &code, p);
    let error_recovery = error_recovery(inputs, p);

    let w = &cfg.weights;
    let overall_score = match (correctness_score, code_quality.quality_score) {
        (Some(c), Some(q)) => Some(
            c * w.correctness
                + q * w.quality
                + performance.performance_score * w.performance
                + prompt_understanding.understanding_score * w.understanding
                + requirement_coverage.coverage_score * w.coverage
                + error_recovery.recovery_score * w.recovery,
        ),
        _ => None,
    };

    MetricsEntry {
        timestamp: inputs.timestamp.clone(),
        model: inputs.model.clone(),
        question: inputs.question.clone(),
        csv_file: inputs.csv_file.clone(),
        code_correctness,
        code_quality,
        performance,
        prompt_understanding,
        requirement_coverage,
        error_recovery,
        overall_score,
    }
}

/// `check_code_quality` + `check_code_safety` + the quality score (identical in both profiles).
pub fn code_quality(raw: &str, code: &Text, syntax_valid: Option<bool>) -> CodeQuality {
    let lines: Vec<&str> = raw.split('\n').collect();
    let line_count = lines.iter().filter(|l| !pystr::strip(l).is_empty()).count() as u64;
    let has_imports = pat::search(pat::IMPORTS, Flags::M, code);
    let has_comments = pat::search(pat::COMMENT, Flags::NONE, code);
    let complexity_score = pat::COMPLEXITY_KEYWORDS
        .iter()
        .filter(|kw| pat::search(&format!(r"\b{kw}\b"), Flags::NONE, code))
        .count() as u64;
    let mut readability: i64 = 10;
    let long_lines = lines.iter().filter(|l| pystr::len(l) > 100).count();
    if (long_lines as f64) > (lines.len() as f64) * 0.2 {
        readability -= 2;
    }
    if !has_comments && line_count > 10 {
        readability -= 1;
    }
    if complexity_score > 5 {
        readability -= 1;
    }
    let readability_score = readability.max(0);
    let safety = safety(code);
    let quality_score = syntax_valid.map(|valid| {
        let mut q = 0.0;
        if valid {
            q += 0.3;
        }
        q += safety.safety_score.as_f64() * 0.3;
        q += readability_score as f64 / 10.0 * 0.2;
        if has_imports && line_count > 0 {
            q += 0.2;
        }
        q
    });
    CodeQuality {
        has_imports,
        has_comments,
        line_count,
        complexity_score,
        readability_score,
        safety,
        quality_score,
    }
}

/// `check_code_safety`: every dangerous pattern found, 0.2 off per issue, Python's `max(0, x)`.
pub fn safety(code: &Text) -> Safety {
    let mut issues = Vec::new();
    for (category, patterns) in pat::SAFETY {
        for p in patterns {
            if pat::search(p, Flags::I, code) {
                let severity = if category == "system" || category == "network" {
                    "high"
                } else {
                    "medium"
                };
                issues.push(SafetyIssue {
                    category: category.into(),
                    pattern: (*p).into(),
                    severity: severity.into(),
                });
            }
        }
    }
    let safety_score = if issues.is_empty() {
        PyNum::Float(1.0)
    } else {
        let x = 1.0 - issues.len() as f64 * 0.2;
        // Python's max(0, x) returns the int 0 unless x > 0.
        if x > 0.0 {
            PyNum::Float(x)
        } else {
            PyNum::Int(0)
        }
    };
    Safety {
        is_safe: issues.is_empty(),
        safety_issues: issues,
        safety_score,
    }
}

/// `analyze_time_complexity`.
pub fn time_complexity(code: &Text) -> TimeComplexity {
    let nested_loops: u64 = pat::LOOPS
        .iter()
        .map(|p| pat::re(p, Flags::I).count(code) as u64)
        .sum();
    let rank = |n: &str| pat::TIME_ORDER.iter().position(|o| *o == n).unwrap_or(0);
    let mut max = "O(1)";
    for (notation, patterns) in pat::TIME_OPS {
        for p in patterns {
            if pat::search(p, Flags::I, code) && rank(notation) > rank(max) {
                max = notation;
            }
        }
    }
    if nested_loops == 1 {
        max = match max {
            "O(1)" => "O(n)",
            "O(n)" => "O(n²)",
            other => other,
        };
    } else if nested_loops >= 2 {
        max = match max {
            "O(1)" | "O(n)" => "O(n²)",
            _ => "O(n³)",
        };
    }
    let score = match max {
        "O(1)" => 1.0,
        "O(log n)" => 0.9,
        "O(n)" => 0.7,
        "O(n log n)" => 0.5,
        "O(n²)" => 0.3,
        "O(n³)" => 0.1,
        _ => 0.5,
    };
    TimeComplexity {
        notation: max.into(),
        score,
        nested_loops,
        estimated_operations: nested_loops + 1,
    }
}

/// `analyze_space_complexity`; memory is the data file's size times 1/2/4 by notation, the int 0
/// when the file is not there (as when the seed system's `os.path.getsize` failed).
pub fn space_complexity(
    code: &Text,
    csv_file: Option<&str>,
    csv_size_bytes: Option<u64>,
) -> SpaceComplexity {
    let rank = |n: &str| pat::SPACE_ORDER.iter().position(|o| *o == n).unwrap_or(0);
    let mut max = "O(1)";
    for (notation, patterns) in pat::SPACE_OPS {
        for p in patterns {
            if pat::search(p, Flags::I, code) && rank(notation) > rank(max) {
                max = notation;
            }
        }
    }
    let estimated_memory_mb = match (csv_file.filter(|f| !f.is_empty()), csv_size_bytes) {
        (Some(_), Some(size)) => {
            let file_size = size as f64 / (1024.0 * 1024.0);
            let multiplier = match max {
                "O(1)" => 1.0,
                "O(n²)" => 4.0,
                _ => 2.0,
            };
            PyNum::Float(file_size * multiplier)
        }
        _ => PyNum::Int(0),
    };
    let score = match max {
        "O(1)" => 1.0,
        "O(n)" => 0.6,
        "O(n²)" => 0.2,
        _ => 0.5,
    };
    SpaceComplexity {
        notation: max.into(),
        score,
        estimated_memory_mb,
    }
}

fn performance(
    inputs: &EvalInputs,
    code: &Text,
    quality: &CodeQuality,
    execution_success: bool,
) -> Performance {
    let time = time_complexity(code);
    let space = space_complexity(code, inputs.csv_file.as_deref(), inputs.csv_size_bytes);
    let code_length = pystr::len(&inputs.code) as u64;
    let mut score = 0.0;
    match inputs.execution_time {
        Some(t) if t < 0.1 => score += 0.3,
        Some(t) if t < 1.0 => score += 0.25,
        Some(t) if t < 5.0 => score += 0.15,
        Some(_) => score += 0.05,
        None if code_length < 500 => score += 0.2,
        None if code_length < 1000 => score += 0.15,
        None => score += 0.1,
    }
    score += time.score * 0.3;
    score += space.score * 0.2;
    if code_length < 500 {
        score += 0.1;
    } else if code_length < 1000 {
        score += 0.05;
    }
    if execution_success {
        score += 0.1;
    }
    Performance {
        code_length,
        estimated_complexity: quality.complexity_score,
        line_count: quality.line_count,
        execution_time_seconds: inputs.execution_time,
        execution_time_ms: inputs.execution_time.map(|t| t * 1000.0),
        time_complexity: time,
        space_complexity: space,
        performance_score: score,
    }
}

/// doc-v1's keyword test: `kw` as whole words in `text`, optionally inflected (s, es, d, ed, ing).
pub fn has_word(text: &str, kw: &str) -> bool {
    if kw.is_empty() {
        return false;
    }
    text.match_indices(kw).any(|(i, _)| {
        let before_ok = text
            .get(..i)
            .and_then(|b| b.chars().next_back())
            .is_none_or(|c| !is_word(c));
        let rest = text.get(i + kw.len()..).unwrap_or("");
        before_ok
            && ["", "s", "es", "d", "ed", "ing"].iter().any(|suffix| {
                rest.strip_prefix(suffix)
                    .is_some_and(|after| after.chars().next().is_none_or(|c| !is_word(c)))
            })
    })
}

/// `col in question_lower or col.replace('_', ' ') in question_lower` (ise547) or its whole-word
/// form (doc-v1).
fn mentions(question_lower: &str, col: &str, p: Profile) -> bool {
    let spaced = col.replace('_', " ");
    match p {
        Profile::Ise547 => question_lower.contains(col) || question_lower.contains(&spaced),
        Profile::DocV1 => has_word(question_lower, col) || has_word(question_lower, &spaced),
    }
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// Columns the code uses, lowercased, first-use order. ise547: `df['c']`, `df[['c', ...]]` only.
/// doc-v1 adds any quoted literal equal to a known column (`df.groupby('c')`, `.loc[:, 'c']`).
pub fn extracted_columns(code: &Text, available_lower: &[String], p: Profile) -> Vec<String> {
    let is_method = |s: &str| pat::PANDAS_METHODS.contains(&s);
    let mut out = Vec::new();
    for pattern in pat::COLUMN_ACCESS {
        for m in pat::re(pattern, Flags::I).findall(code) {
            let l = pystr::lower(&m);
            if !is_method(&l) {
                push_unique(&mut out, l);
            }
        }
    }
    let quoted = pat::re(pat::QUOTED, Flags::NONE);
    for inner in pat::re(pat::COLUMN_LIST, Flags::I).findall(code) {
        for col in quoted.findall(&Text::new(&inner)) {
            let l = pystr::lower(&col);
            if !is_method(&l) {
                push_unique(&mut out, l);
            }
        }
    }
    if p == Profile::DocV1 {
        for lit in quoted.findall(code) {
            let l = pystr::lower(&lit);
            if available_lower.contains(&l) {
                push_unique(&mut out, l);
            }
        }
    }
    out
}

/// `analyze_prompt_understanding`.
pub fn prompt_understanding(inputs: &EvalInputs, code: &Text, p: Profile) -> PromptUnderstanding {
    let available: Vec<String> = inputs.columns.iter().map(|c| pystr::lower(c)).collect();
    let ql = pystr::lower(&inputs.question);
    let qt = Text::new(&ql);

    let mentioned: Vec<String> = available
        .iter()
        .filter(|c| mentions(&ql, c, p))
        .cloned()
        .collect();
    let extracted = extracted_columns(code, &available, p);

    let column_extraction_score = if !mentioned.is_empty() {
        if !extracted.is_empty() {
            let matched = mentioned.iter().filter(|c| extracted.contains(c)).count();
            (matched as f64 / mentioned.len() as f64) * 0.4
        } else {
            0.0
        }
    } else if !extracted.is_empty() {
        0.2
    } else {
        0.1
    };
    let mut score = 0.0;
    let mut max_score = 0.0;
    score += column_extraction_score;
    max_score += 0.4;

    let mut nl = 0.0;
    for nlp in &pat::NL_PATTERNS {
        let in_question = match p {
            Profile::Ise547 => pat::any(nlp.question, Flags::NONE, &qt),
            Profile::DocV1 => match nlp.question_doc {
                DocKeys::Regexes(r) => pat::any(r, Flags::NONE, &qt),
                DocKeys::Words(w) => w.iter().any(|k| has_word(&ql, k)),
            },
        };
        let in_code = pat::any(nlp.code, Flags::I, code);
        if in_question && in_code {
            nl += nlp.weight;
        } else if in_question {
            nl += nlp.weight * 0.3;
        }
    }
    score += nl;
    max_score += 0.3;

    let mut stat = 0.0;
    let mut detected = Vec::new();
    for sp in &pat::STAT_PATTERNS {
        let in_question = match p {
            Profile::Ise547 => pat::any(sp.question, Flags::NONE, &qt),
            Profile::DocV1 => sp.question.iter().any(|k| has_word(&ql, k)),
        };
        if in_question {
            detected.push(sp.name.to_string());
            if pat::any(sp.code, Flags::I, code) {
                stat += sp.weight;
            } else {
                stat += sp.weight * 0.2;
            }
        }
    }
    if p == Profile::DocV1 && stat > 0.3 {
        // The document gives this component 0.0-0.3; the seed code let it reach 0.6.
        stat = 0.3;
    }
    score += stat;
    max_score += 0.3;

    PromptUnderstanding {
        understanding_score: score / max_score,
        details: UnderstandingDetails {
            column_extraction_score,
            nl_parsing_score: nl,
            statistical_understanding_score: stat,
            extracted_columns: extracted,
            mentioned_columns: mentioned,
            statistical_operations: detected,
        },
    }
}

/// `analyze_requirement_coverage`.
pub fn requirement_coverage(question: &str, code: &Text, p: Profile) -> RequirementCoverage {
    let ql = pystr::lower(question);
    let qt = Text::new(&ql);
    let keyword = |kw: &str| match p {
        Profile::Ise547 => ql.contains(kw),
        Profile::DocV1 => has_word(&ql, kw),
    };
    let mut missing = Vec::new();
    let mut score = 0.0;
    let mut max_score = 0.0;

    // 1. Filter conditions.
    let filter_count = pat::FILTER_KEYWORDS.iter().filter(|k| keyword(k)).count();
    let filter_ops = pat::re(pat::FILTER_OPS, Flags::NONE).count(code);
    let mut filter_cov = 1.0;
    if filter_count > 1 {
        if filter_ops < filter_count {
            filter_cov = filter_ops as f64 / filter_count as f64;
            missing.push(format!(
                "Missing {} filter condition(s)",
                filter_count - filter_ops
            ));
        }
        score += filter_cov * 0.3;
    } else {
        score += 0.3;
    }
    max_score += 0.3;

    // 2. Groupby columns.
    let patterns = match p {
        Profile::Ise547 => pat::GROUPBY_QUESTION,
        Profile::DocV1 => pat::GROUPBY_QUESTION_DOC,
    };
    let mut mentioned: Vec<String> = Vec::new();
    for pattern in patterns {
        for m in pat::re(pattern, Flags::NONE).findall(&qt) {
            for col in m.split(',') {
                let col = pystr::strip(col).to_string();
                match p {
                    Profile::Ise547 => mentioned.push(col),
                    Profile::DocV1 => push_unique(&mut mentioned, col),
                }
            }
        }
    }
    let mut groupby_cov = 1.0;
    if !mentioned.is_empty() {
        match pat::re(pat::GROUPBY_CODE, Flags::I).search(code) {
            Some(m) => {
                let inner = m.group1.unwrap_or_default();
                let in_code: Vec<String> = inner
                    .split(',')
                    .map(|c| pystr::lower(pystr::strip_chars(pystr::strip(c), &['\'', '"'])))
                    .collect();
                let matched = mentioned
                    .iter()
                    .filter(|col| {
                        let col = pystr::lower(col);
                        in_code.iter().any(|gc| gc.contains(&col))
                    })
                    .count();
                groupby_cov = matched as f64 / mentioned.len() as f64;
                if groupby_cov < 1.0 {
                    missing.push(format!(
                        "Missing {} groupby column(s)",
                        mentioned.len() - matched
                    ));
                }
            }
            None => {
                groupby_cov = 0.0;
                missing.push("Groupby operation missing".into());
            }
        }
        score += groupby_cov * 0.3;
    } else {
        score += 0.3;
    }
    max_score += 0.3;

    // 3. Sorting.
    let mut sorting_cov = 1.0;
    if pat::SORT_KEYWORDS.iter().any(|k| keyword(k)) {
        let in_code = pat::search(pat::SORT_CODE, Flags::I, code);
        sorting_cov = if in_code { 1.0 } else { 0.0 };
        if !in_code {
            missing.push("Sorting operation missing".into());
        }
        score += sorting_cov * 0.2;
    } else {
        score += 0.2;
    }
    max_score += 0.2;

    // 4. Joins.
    let mut join_cov = 1.0;
    if pat::JOIN_KEYWORDS.iter().any(|k| keyword(k)) {
        let in_code = pat::search(pat::JOIN_CODE, Flags::I, code);
        join_cov = if in_code { 1.0 } else { 0.0 };
        if !in_code {
            missing.push("Join/merge operation missing".into());
        }
        score += join_cov * 0.2;
    } else {
        score += 0.2;
    }
    max_score += 0.2;

    RequirementCoverage {
        coverage_score: score / max_score,
        details: CoverageDetails {
            filter_conditions_coverage: filter_cov,
            groupby_columns_coverage: groupby_cov,
            sorting_coverage: sorting_cov,
            join_conditions_coverage: join_cov,
            missing_requirements: missing,
        },
    }
}

/// Error classes of the seed system (`unknown` is ise547's class for an empty message).
pub const ERROR_CLASSES: [&str; 7] = [
    "column_error",
    "syntax_error",
    "type_error",
    "index_error",
    "attribute_error",
    "value_error",
    "other_error",
];

/// `_classify_error` (ise547: keyword substrings, in the seed's order; `None`/empty →
/// `unknown`). doc-v1 first looks for a Python exception class name (the earliest one in the
/// message wins), then falls back to the same keywords; `None`/empty → `other_error`.
pub fn classify_error(message: Option<&str>, p: Profile) -> &'static str {
    let Some(msg) = message.filter(|m| !m.is_empty()) else {
        return match p {
            Profile::Ise547 => "unknown",
            Profile::DocV1 => "other_error",
        };
    };
    if p == Profile::DocV1 {
        let classes = [
            ("KeyError", "column_error"),
            ("SyntaxError", "syntax_error"),
            ("IndentationError", "syntax_error"),
            ("TabError", "syntax_error"),
            ("TypeError", "type_error"),
            ("IndexError", "index_error"),
            ("AttributeError", "attribute_error"),
            ("ValueError", "value_error"),
        ];
        let earliest = classes
            .iter()
            .filter_map(|&(name, class)| {
                msg.match_indices(name)
                    .find(|&(i, _)| {
                        let before = msg.get(..i).and_then(|b| b.chars().next_back());
                        let after = msg.get(i + name.len()..).and_then(|a| a.chars().next());
                        before.is_none_or(|c| !is_word(c)) && after.is_none_or(|c| !is_word(c))
                    })
                    .map(|(i, _)| (i, class))
            })
            .min_by_key(|&(i, _)| i);
        if let Some((_, class)) = earliest {
            return class;
        }
    }
    let e = pystr::lower(msg);
    if e.contains("keyerror") || e.contains("column") {
        "column_error"
    } else if e.contains("syntax") || e.contains("invalid") {
        "syntax_error"
    } else if e.contains("type") || e.contains("dtype") {
        "type_error"
    } else if e.contains("index") || e.contains("out of range") {
        "index_error"
    } else if e.contains("attribute") || e.contains("has no attribute") {
        "attribute_error"
    } else if e.contains("value") {
        "value_error"
    } else {
        "other_error"
    }
}

/// The error data as the text `_classify_error` would see (non-strings as JSON text).
fn error_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// `analyze_error_recovery`.
pub fn error_recovery(inputs: &EvalInputs, p: Profile) -> ErrorRecovery {
    let attempts = &inputs.recovery_attempts;
    let n = attempts.len();
    // ise547 judges the delivered result (an error fixed by recovery no longer counts as an
    // error); doc-v1 judges the first execution, the error that recovery was for.
    let judged = match p {
        Profile::Ise547 => &inputs.execution_result,
        Profile::DocV1 => &inputs.first_execution,
    };
    let has_error = judged.is_error();
    let error_message = if has_error {
        judged
            .data
            .clone()
            .unwrap_or(serde_json::Value::String(String::new()))
    } else {
        serde_json::Value::Null
    };
    let mut out = ErrorRecovery {
        has_error,
        error_message: error_message.clone(),
        recovery_attempts_count: n as u64,
        recovery_success: false,
        recovery_success_rate: Some(0.0),
        error_fix_quality: Some(0.0),
        recovery_details: Vec::new(),
        recovery_score: 0.0,
    };
    if !has_error {
        match p {
            Profile::Ise547 => {
                out.recovery_success = true;
                out.recovery_success_rate = Some(1.0);
                out.error_fix_quality = Some(1.0);
            }
            Profile::DocV1 => {
                out.recovery_success_rate = None;
                out.error_fix_quality = None;
            }
        }
        out.recovery_score = 1.0;
        return out;
    }
    if n == 0 {
        if p == Profile::DocV1 {
            out.recovery_success_rate = None;
            out.error_fix_quality = None;
        }
        return out;
    }
    let successful = attempts.iter().filter(|a| a.success).count();
    let rate = successful as f64 / n as f64;
    out.recovery_success = successful > 0;
    let original_class = classify_error(error_text(&error_message).as_deref(), p);
    let mut qualities = Vec::with_capacity(n);
    for (i, a) in attempts.iter().enumerate() {
        let q = if a.success {
            1.0
        } else if classify_error(a.error.as_deref(), p) != original_class {
            0.5
        } else {
            0.1
        };
        qualities.push(q);
        out.recovery_details.push(RecoveryDetail {
            attempt_number: i as u64 + 1,
            success: a.success,
            error: a.error.clone(),
            fix_quality: q,
        });
    }
    let fix_quality = qualities.iter().fold(0.0, |acc, q| acc + q) / n as f64;
    out.recovery_success_rate = Some(rate);
    out.error_fix_quality = Some(fix_quality);
    out.recovery_score = rate * 0.5 + fix_quality * 0.3 + (n as f64 / 3.0).min(1.0) * 0.2;
    out
}
