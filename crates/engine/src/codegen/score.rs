//! Scoring of one code-generation message under two profiles: `ise547` (the ISE547 system's
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

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: [&str; 5] = ["name", "age", "salary", "department", "hire_date"];

    fn ok(time: Option<f64>) -> ExecutionResult {
        ExecutionResult {
            kind: "table".into(),
            data: Some(serde_json::json!({})),
            execution_time: time,
        }
    }

    fn err(msg: &str) -> ExecutionResult {
        ExecutionResult {
            kind: "error".into(),
            data: Some(serde_json::json!(msg)),
            execution_time: None,
        }
    }

    fn attempt(success: bool, error: Option<&str>) -> RecoveryAttempt {
        RecoveryAttempt {
            attempt_number: None,
            code: Some("result = 1".into()),
            error: error.map(str::to_string),
            success,
            execution_time: None,
        }
    }

    /// A successful run of `code` for `question` on employees.csv (175 bytes).
    fn inputs(question: &str, code: &str) -> EvalInputs {
        EvalInputs {
            timestamp: Some("t".into()),
            model: "m".into(),
            question: question.into(),
            csv_file: Some("employees.csv".into()),
            columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
            csv_size_bytes: Some(175),
            code: code.into(),
            execution_result: ok(Some(0.01)),
            execution_time: Some(0.01),
            recovery_attempts: Vec::new(),
            first_execution: ok(Some(0.01)),
        }
    }

    fn failing(first_error: &str, attempts: Vec<RecoveryAttempt>) -> EvalInputs {
        EvalInputs {
            execution_result: err(first_error),
            first_execution: err(first_error),
            execution_time: None,
            recovery_attempts: attempts,
            ..inputs("q", "result = df.x")
        }
    }

    fn score(i: &EvalInputs, p: Profile) -> MetricsEntry {
        calculate_evaluation_metrics(
            i,
            &CodegenConfig {
                profile: p,
                ..CodegenConfig::default()
            },
        )
    }

    fn both(i: &EvalInputs) -> [MetricsEntry; 2] {
        [score(i, Profile::Ise547), score(i, Profile::DocV1)]
    }

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    // ---- correctness -------------------------------------------------------------------------

    #[cfg(feature = "python-syntax")]
    #[test]
    fn correctness_is_half_syntax_half_execution() {
        let check = |code: &str, result: ExecutionResult, want: f64| {
            let i = EvalInputs {
                execution_result: result.clone(),
                first_execution: result,
                ..inputs("q", code)
            };
            for e in both(&i) {
                assert_eq!(e.code_correctness.correctness_score, Some(want), "{code}");
            }
        };
        check("result = 1", ok(None), 1.0);
        check("result = 1", err("boom"), 0.5);
        check("result = (", err("boom"), 0.0);
        check("result = (", ok(None), 0.5);
        let e = score(&failing("Execution error: 'x'", vec![]), Profile::Ise547);
        assert_eq!(
            e.code_correctness.execution_error,
            serde_json::json!("Execution error: 'x'")
        );
    }

    #[cfg(not(feature = "python-syntax"))]
    #[test]
    fn without_parser_syntax_is_inferred_or_unchecked() {
        let e = score(&inputs("q", "result = 1"), Profile::Ise547);
        assert_eq!(e.code_correctness.syntax_valid, SyntaxValidity::Valid);
        assert_eq!(e.code_correctness.correctness_score, Some(1.0));
        let e = score(&failing("boom", vec![]), Profile::Ise547);
        assert_eq!(e.code_correctness.syntax_valid, SyntaxValidity::Unchecked);
        assert_eq!(e.code_correctness.correctness_score, None);
        assert_eq!(e.code_quality.quality_score, None);
        assert_eq!(e.overall_score, None);
    }

    // ---- quality -----------------------------------------------------------------------------

    #[test]
    fn quality_flags_lines_and_complexity() {
        let check = |code: &str, imports: bool, comments: bool, lines: u64, complexity: u64| {
            let q = code_quality(code, &Text::new(code), Some(true));
            assert_eq!(
                (
                    q.has_imports,
                    q.has_comments,
                    q.line_count,
                    q.complexity_score
                ),
                (imports, comments, lines, complexity),
                "{code:?}"
            );
        };
        check("result = 1", false, false, 1, 0);
        check("x = 1\nimport pandas as pd", true, false, 2, 0);
        check("  import os", false, false, 1, 0);
        check("from a.b import c", true, false, 1, 0);
        check("x = 'import y'", false, false, 1, 0);
        // '#' anywhere counts as a comment, even inside a string (seed quirk, both profiles).
        check("x = '#1'", false, true, 1, 0);
        check("\n \t\n\u{a0}\nx", false, false, 1, 0);
        check("", false, false, 0, 0);
        // Each keyword counts once; `elif` does not contain a whole-word `if`.
        check("if a:\n    pass\nif b:\n    pass", false, false, 4, 1);
        check("elif_x = 1", false, false, 1, 0);
        check("for i in x:\n    while y:\n        try:\n            pass\n        except E:\n            pass", false, false, 6, 4);
    }

    #[test]
    fn readability_deductions() {
        let check = |code: &str, want: i64| {
            let q = code_quality(code, &Text::new(code), Some(true));
            assert_eq!(q.readability_score, want, "{code:?}");
        };
        let long = format!("x = '{}'", "a".repeat(100));
        check("x = 1", 10);
        // More than 20% of lines (blank ones included) longer than 100 chars: -2.
        check(&long, 8);
        check(&format!("{long}\n1\n2\n3\n4"), 10);
        check(&format!("{long}\n1\n2\n3"), 8);
        // No comment and more than 10 non-blank lines: -1.
        check(&"x = 1\n".repeat(11), 9);
        check(&format!("# c\n{}", "x = 1\n".repeat(11)), 10);
        // More than 5 distinct control keywords: -1.
        let six = "# c\nif a:\n  pass\nelif b:\n  pass\nelse:\n  pass\nfor i in x:\n  pass\nwhile c:\n  pass\ntry:\n  pass\nexcept E:\n  pass";
        check(six, 9);
    }

    #[test]
    fn safety_patterns_and_python_max() {
        let check = |code: &str, issues: usize, score: PyNum| {
            let s = safety(&Text::new(code));
            assert_eq!(
                (s.safety_issues.len(), s.safety_score),
                (issues, score),
                "{code:?}"
            );
            assert_eq!(s.is_safe, issues == 0);
        };
        check("result = df.head()", 0, PyNum::Float(1.0));
        check("df.TO_CSV('x')", 1, PyNum::Float(0.8));
        check("open('f', 'w')", 1, PyNum::Float(0.8));
        check("open('f',\n 'w')", 0, PyNum::Float(1.0));
        check("with open(\"f\", \"r\") as f: pass", 1, PyNum::Float(0.8));
        check("import os\nos.system('x')", 2, PyNum::Float(0.6));
        check(
            "eval('1'); exec('2'); subprocess.run()",
            3,
            PyNum::Float(1.0 - 3.0 * 0.2),
        );
        // Five or more issues: Python's max(0, x) keeps the int 0.
        check(
            "df.to_csv(); df.to_excel(); x.write(); requests.get(); urllib.x",
            5,
            PyNum::Int(0),
        );
        check(
            "import sys\nimport subprocess\nimport os\nos.system(1)\neval(1)\nexec(1)",
            6,
            PyNum::Int(0),
        );
        let s = safety(&Text::new("requests.get(u)\npd.read_csv(p)"));
        let sev: Vec<(&str, &str)> = s
            .safety_issues
            .iter()
            .map(|i| (i.category.as_str(), i.severity.as_str()))
            .collect();
        assert_eq!(sev, vec![("file_read", "medium"), ("network", "high")]);
        assert_eq!(s.safety_issues[0].pattern, r"pd\.read_");
    }

    #[test]
    fn quality_score_weights() {
        let check = |code: &str, valid: bool, want: f64| {
            let q = code_quality(code, &Text::new(code), Some(valid));
            assert!(
                approx(q.quality_score.unwrap_or(f64::NAN), want),
                "{code:?}: {:?}",
                q.quality_score
            );
        };
        // syntax 0.3 + safety 0.3 + readability/10 × 0.2 + imports 0.2
        check("x = 1", true, 0.8);
        check("x = 1", false, 0.5);
        check("import pandas as pd\nx = 1", true, 1.0);
        check("import os", true, 0.3 + 0.8 * 0.3 + 0.2 + 0.2);
        check(
            &format!("x = '{}'", "a".repeat(100)),
            true,
            0.3 + 0.3 + 0.16,
        );
        assert_eq!(code_quality("x", &Text::new("x"), None).quality_score, None);
    }

    // ---- performance -------------------------------------------------------------------------

    #[test]
    fn performance_time_buckets_length_and_success() {
        let check = |time: Option<f64>, len: usize, success: bool, want: f64| {
            let code = format!("x{}", " ".repeat(len.saturating_sub(1)));
            let result = if success { ok(time) } else { err("e") };
            let i = EvalInputs {
                execution_time: time,
                execution_result: result.clone(),
                first_execution: result,
                ..inputs("q", &code)
            };
            // "x   " is O(1) time (1.0 × 0.3) and O(1) space (1.0 × 0.2).
            let e = score(&i, Profile::Ise547);
            assert!(
                approx(e.performance.performance_score, want),
                "{time:?} {len} {success}: {}",
                e.performance.performance_score
            );
            assert_eq!(e.performance.execution_time_ms, time.map(|t| t * 1000.0));
        };
        let base = 0.3 + 0.2;
        check(Some(0.0999), 10, true, 0.3 + base + 0.1 + 0.1);
        check(Some(0.1), 10, true, 0.25 + base + 0.1 + 0.1);
        check(Some(1.0), 10, true, 0.15 + base + 0.1 + 0.1);
        check(Some(5.0), 10, true, 0.05 + base + 0.1 + 0.1);
        check(Some(-1.0), 10, true, 0.3 + base + 0.1 + 0.1);
        check(None, 499, false, 0.2 + base + 0.1);
        check(None, 500, false, 0.15 + base + 0.05);
        check(None, 999, false, 0.15 + base + 0.05);
        check(None, 1000, false, 0.1 + base);
    }

    #[test]
    fn time_complexity_patterns_and_loops() {
        let check = |code: &str, notation: &str, loops: u64| {
            let t = time_complexity(&Text::new(code));
            assert_eq!(
                (t.notation.as_str(), t.nested_loops),
                (notation, loops),
                "{code:?}"
            );
            assert_eq!(t.estimated_operations, loops + 1);
        };
        check("x = 1", "O(1)", 0);
        check("df.head()", "O(1)", 0);
        check("df.MEAN()", "O(n)", 0);
        check("df.sort_values('a')", "O(n log n)", 0);
        check("pd.concat([a, b], axis=1)", "O(n²)", 0);
        check("pd.concat([a, b])", "O(1)", 0);
        check("for x in y:\n  pass", "O(n)", 1);
        check("for x in y:\n  df.sum()", "O(n²)", 1);
        check("df.apply(f).sort_values('a')", "O(n log n)", 1);
        check("for a in b:\n  for c in d:\n    pass", "O(n²)", 2);
        check("for a in b:\n  while c:\n    df.sum()", "O(n²)", 2);
        check(
            "df.iterrows(); df.itertuples(); df.sort_index()",
            "O(n³)",
            2,
        );
        check("format x in y", "O(1)", 0);
        let scores: Vec<f64> = [
            "x",
            "df.sum()",
            "df.sort_index()",
            "df.merge(b)",
            "for a in b:\n for c in d:\n  df.merge(e)",
        ]
        .iter()
        .map(|c| time_complexity(&Text::new(c)).score)
        .collect();
        assert_eq!(scores, vec![1.0, 0.7, 0.5, 0.3, 0.1]);
    }

    #[test]
    fn space_complexity_and_memory() {
        let check =
            |code: &str, csv: Option<&str>, size: Option<u64>, notation: &str, mem: PyNum| {
                let s = space_complexity(&Text::new(code), csv, size);
                assert_eq!(
                    (s.notation.as_str(), s.estimated_memory_mb),
                    (notation, mem),
                    "{code:?}"
                );
            };
        let mb = 175.0 / (1024.0 * 1024.0);
        check("x = 1", Some("e.csv"), Some(175), "O(1)", PyNum::Float(mb));
        check(
            "result = df",
            Some("e.csv"),
            Some(175),
            "O(n)",
            PyNum::Float(mb * 2.0),
        );
        check(
            "df.pivot_table()",
            Some("e.csv"),
            Some(175),
            "O(n²)",
            PyNum::Float(mb * 4.0),
        );
        check("result = df", None, Some(175), "O(n)", PyNum::Int(0));
        check("result = df", Some(""), Some(175), "O(n)", PyNum::Int(0));
        check("result = df", Some("e.csv"), None, "O(n)", PyNum::Int(0));
        check(
            "result=df.head()",
            Some("e.csv"),
            Some(0),
            "O(n)",
            PyNum::Float(0.0),
        );
        let scores: Vec<f64> = ["x", "df_new = 1", "df.join(x)"]
            .iter()
            .map(|c| space_complexity(&Text::new(c), None, None).score)
            .collect();
        assert_eq!(scores, vec![1.0, 0.6, 0.2]);
    }

    // ---- prompt understanding ----------------------------------------------------------------

    fn understanding(question: &str, code: &str, p: Profile) -> PromptUnderstanding {
        prompt_understanding(&inputs(question, code), &Text::new(code), p)
    }

    #[test]
    fn column_extraction_rule() {
        let check = |q: &str, code: &str, want: f64, extracted: &[&str]| {
            let u = understanding(q, code, Profile::Ise547);
            assert!(
                approx(u.details.column_extraction_score, want),
                "{q} / {code}: {u:?}"
            );
            assert_eq!(u.details.extracted_columns, extracted);
        };
        check(
            "salary of each name",
            "r = df[['name', 'salary']]",
            0.4,
            &["name", "salary"],
        );
        check("salary of each name", "r = df['SALARY']", 0.2, &["salary"]);
        check("salary", "r = df.salary", 0.0, &[]);
        check("hello", "r = df['age']", 0.2, &["age"]);
        check("hello", "r = 1", 0.1, &[]);
        // pandas method names are never columns; `hire date` matches hire_date.
        check(
            "hire date",
            "r = df['mean'] + df['hire_date']",
            0.4,
            &["hire_date"],
        );
    }

    #[test]
    fn ise547_column_mention_is_substring() {
        let u = understanding("What is the average bonus?", "r = 1", Profile::Ise547);
        assert_eq!(u.details.mentioned_columns, vec!["age"]);
        assert_eq!(u.details.column_extraction_score, 0.0);
    }

    #[test]
    fn doc_v1_column_mention_is_whole_word() {
        let u = understanding("What is the average bonus?", "r = 1", Profile::DocV1);
        assert!(u.details.mentioned_columns.is_empty());
        assert_eq!(u.details.column_extraction_score, 0.1);
        let u = understanding(
            "list names and ages",
            "r = df[['name', 'age']]",
            Profile::DocV1,
        );
        assert_eq!(u.details.mentioned_columns, vec!["name", "age"]);
    }

    #[test]
    fn doc_v1_extracts_quoted_column_literals() {
        let code = "r = df.groupby('department')['salary'].mean()";
        let ise = understanding("salary by department", code, Profile::Ise547);
        let doc = understanding("salary by department", code, Profile::DocV1);
        assert!(ise.details.extracted_columns.is_empty());
        assert_eq!(doc.details.extracted_columns, vec!["department", "salary"]);
        assert_eq!(doc.details.column_extraction_score, 0.4);
    }

    #[test]
    fn nl_parsing_rule() {
        let check = |q: &str, code: &str, want: f64| {
            for p in [Profile::Ise547, Profile::DocV1] {
                let u = understanding(q, code, p);
                assert!(
                    approx(u.details.nl_parsing_score, want),
                    "{p:?} {q} / {code}: {u:?}"
                );
            }
        };
        check("show the top 5", "r = df.nlargest(5, 'a')", 0.06);
        check("show the top 5", "r = df", 0.06 * 0.3);
        check("first 10 rows", "r = df.iloc[:10]", 0.06);
        check("lowest 2", "r = df.sort_values('a', ascending=True)", 0.06);
        check("only Sales", "r = df[df['d'] == 'Sales']", 0.06);
        check("plot it", "fig = df.plot()", 0.06);
        check("nothing here", "r = df.head()", 0.0);
        check("top 5 rows, plot them", "r = df.head(5)", 0.06 + 0.06 * 0.3);
    }

    #[test]
    fn statistical_rule() {
        let check = |q: &str, code: &str, p: Profile, want: f64, ops: &[&str]| {
            let u = understanding(q, code, p);
            assert!(
                approx(u.details.statistical_understanding_score, want),
                "{q}: {u:?}"
            );
            assert_eq!(u.details.statistical_operations, ops);
        };
        check(
            "mean salary",
            "r = df['salary'].mean()",
            Profile::Ise547,
            0.1,
            &["mean"],
        );
        check(
            "mean salary",
            "r = df['salary']",
            Profile::Ise547,
            0.1 * 0.2,
            &["mean"],
        );
        check(
            "how many rows",
            "r = len(df)",
            Profile::Ise547,
            0.1,
            &["count"],
        );
        check(
            "for each team",
            "r = df.pivot_table()",
            Profile::Ise547,
            0.1,
            &["groupby"],
        );
        check("nothing", "r = df.mean()", Profile::Ise547, 0.0, &[]);
    }

    #[test]
    fn ise547_understanding_is_uncapped() {
        let q = "average, sum, maximum, minimum and count per team";
        let code = "r = df.groupby('t').agg(['mean']).mean().sum().max().min().count()";
        let u = understanding(q, code, Profile::Ise547);
        assert!(approx(u.details.statistical_understanding_score, 0.6));
        assert!(approx(u.understanding_score, 0.6), "{u:?}");
        let u = understanding("top 3 highest 2 first 4 bottom 1 where plot, average sum max min count by age", "df['age'].nlargest(3).head(4).tail(1); df[df.a].plot(); x.mean().sum().max().min().count(); df.groupby('a')", Profile::Ise547);
        assert!(u.understanding_score > 1.0, "{u:?}");
    }

    #[test]
    fn doc_v1_caps_statistical_at_0_3() {
        let q = "average, sum, maximum, minimum and count per team";
        let code = "r = df.groupby('t').agg(['mean']).mean().sum().max().min().count()";
        let u = understanding(q, code, Profile::DocV1);
        assert_eq!(u.details.statistical_understanding_score, 0.3);
        assert!(u.understanding_score <= 1.0);
    }

    #[test]
    fn doc_v1_keywords_are_whole_words() {
        // "address" contains "add" (sum) and "adds" is an inflection of it.
        let ise = understanding("show the address", "r = df", Profile::Ise547);
        let doc = understanding("show the address", "r = df", Profile::DocV1);
        assert_eq!(ise.details.statistical_operations, vec!["sum"]);
        assert!(doc.details.statistical_operations.is_empty());
        let doc = understanding("it adds up", "r = df", Profile::DocV1);
        assert_eq!(doc.details.statistical_operations, vec!["sum"]);
    }

    #[test]
    fn doc_v1_number_patterns_need_word_start() {
        // "stop 5" holds `top\s+\d+` and "commonly" holds "only" for the seed code.
        for (q, ise_nl) in [("stop 5 now", 0.06 * 0.3), ("commonly seen", 0.06 * 0.3)] {
            let ise = understanding(q, "r = 1", Profile::Ise547);
            let doc = understanding(q, "r = 1", Profile::DocV1);
            assert!(approx(ise.details.nl_parsing_score, ise_nl), "{q}: {ise:?}");
            assert_eq!(doc.details.nl_parsing_score, 0.0, "{q}");
        }
    }

    #[test]
    fn has_word_rule() {
        let check = |text: &str, kw: &str, want: bool| {
            assert_eq!(has_word(text, kw), want, "{text:?} {kw:?}")
        };
        check("sort by name", "sort", true);
        check("sorted by name", "sort", true);
        check("resort", "sort", false);
        check("sorting", "sort", true);
        check("sortable", "sort", false);
        check("group by a", "group by", true);
        check("group  by a", "group by", false);
        check("for engineering", "or", false);
        check("this or that", "or", true);
        check("", "or", false);
        check("or", "", false);
        check("é-sum", "sum", true);
        check("ésum", "sum", false);
    }

    // ---- requirement coverage ----------------------------------------------------------------

    fn coverage(q: &str, code: &str, p: Profile) -> RequirementCoverage {
        requirement_coverage(q, &Text::new(code), p)
    }

    #[test]
    fn no_requirements_full_coverage() {
        for p in [Profile::Ise547, Profile::DocV1] {
            let c = coverage("Hello", "x = 1", p);
            assert_eq!(c.coverage_score, 1.0);
            assert!(c.details.missing_requirements.is_empty());
        }
    }

    #[test]
    fn filter_conditions_rule() {
        let c = coverage(
            "age greater than 30 and salary less than 5",
            "r = df[df.age > 30]",
            Profile::DocV1,
        );
        assert!(
            approx(c.details.filter_conditions_coverage, 1.0 / 3.0),
            "{c:?}"
        );
        assert_eq!(
            c.details.missing_requirements,
            vec!["Missing 2 filter condition(s)"]
        );
        assert!(approx(
            c.coverage_score,
            (1.0 / 3.0) * 0.3 + 0.3 + 0.2 + 0.2
        ));
        let c = coverage(
            "age greater than 30 and salary",
            "a = df[x]\nb = df.loc[y]\nc = df.query('z')",
            Profile::DocV1,
        );
        assert_eq!(c.details.filter_conditions_coverage, 1.0);
        // One keyword is not "multiple conditions".
        let c = coverage("where age is 3", "r = df", Profile::DocV1);
        assert_eq!(c.details.filter_conditions_coverage, 1.0);
    }

    #[test]
    fn ise547_filter_keywords_are_substrings() {
        // "for" contains "or", "engineering" contains "in": two "conditions" in the seed code.
        let c = coverage(
            "Sum of salary for Engineering",
            "r = df[df.d == 'E'].s.sum()",
            Profile::Ise547,
        );
        assert_eq!(c.details.filter_conditions_coverage, 0.5);
        let c = coverage(
            "Sum of salary for Engineering",
            "r = df[df.d == 'E'].s.sum()",
            Profile::DocV1,
        );
        assert_eq!(c.details.filter_conditions_coverage, 1.0);
    }

    #[test]
    fn groupby_columns_rule() {
        let c = coverage(
            "count group by department, hire_date",
            "r = df.groupby(['department', 'hire_date']).size()",
            Profile::DocV1,
        );
        assert_eq!(c.details.groupby_columns_coverage, 1.0);
        let c = coverage(
            "count group by department, hire_date",
            "r = df.groupby('department').size()",
            Profile::DocV1,
        );
        assert_eq!(c.details.groupby_columns_coverage, 0.5);
        assert_eq!(
            c.details.missing_requirements,
            vec!["Missing 1 groupby column(s)"]
        );
        let c = coverage(
            "count group by department, hire_date",
            "r = df.size()",
            Profile::DocV1,
        );
        assert_eq!(c.details.groupby_columns_coverage, 0.0);
        assert_eq!(
            c.details.missing_requirements,
            vec!["Groupby operation missing"]
        );
        // A single column is not a "group by X, Y" list.
        let c = coverage("count by department", "r = 1", Profile::DocV1);
        assert_eq!(c.details.groupby_columns_coverage, 1.0);
    }

    #[test]
    fn ise547_groupby_columns_counted_twice() {
        // "group by a, b" matches both the "group by" and the "by" pattern: a and b count twice.
        let q = "count group by department, hire_date";
        let code = "r = df.groupby('department').size()";
        let ise = coverage(q, code, Profile::Ise547);
        let doc = coverage(q, code, Profile::DocV1);
        assert_eq!(
            ise.details.missing_requirements,
            vec!["Missing 2 groupby column(s)"]
        );
        assert_eq!(
            doc.details.missing_requirements,
            vec!["Missing 1 groupby column(s)"]
        );
        assert_eq!(ise.details.groupby_columns_coverage, 0.5);
    }

    #[test]
    fn doc_v1_groupby_needs_word_by() {
        // ise547's `by\s+…` also matches inside "nearby"; doc-v1 anchors it at a word start.
        let q = "stores nearby a, b";
        let ise = coverage(q, "r = df", Profile::Ise547);
        let doc = coverage(q, "r = df", Profile::DocV1);
        assert_eq!(ise.details.groupby_columns_coverage, 0.0);
        assert_eq!(doc.details.groupby_columns_coverage, 1.0);
    }

    #[test]
    fn sorting_and_join_rules() {
        let check = |q: &str, code: &str, sort: f64, join: f64, missing: &[&str]| {
            let c = coverage(q, code, Profile::DocV1);
            assert_eq!(
                (
                    c.details.sorting_coverage,
                    c.details.join_conditions_coverage
                ),
                (sort, join),
                "{q}"
            );
            assert_eq!(c.details.missing_requirements, missing);
        };
        check("sort by age", "r = df.sort_values('age')", 1.0, 1.0, &[]);
        check(
            "sort by age",
            "r = df",
            0.0,
            1.0,
            &["Sorting operation missing"],
        );
        check("smallest 3", "r = df.nsmallest(3, 'a')", 1.0, 1.0, &[]);
        check("merge the tables", "r = a.merge(b)", 1.0, 1.0, &[]);
        check(
            "merge the tables",
            "r = a",
            1.0,
            0.0,
            &["Join/merge operation missing"],
        );
        check(
            "combine and sort",
            "r = a",
            0.0,
            0.0,
            &["Sorting operation missing", "Join/merge operation missing"],
        );
        let c = coverage("stop the border", "r = a", Profile::Ise547);
        assert_eq!(
            c.details.sorting_coverage, 0.0,
            "ise547: 'top' in 'stop', 'order' in 'border'"
        );
    }

    // ---- error recovery ----------------------------------------------------------------------

    #[test]
    fn error_classes() {
        let check = |msg: Option<&str>, ise: &str, doc: &str| {
            assert_eq!(classify_error(msg, Profile::Ise547), ise, "ise547 {msg:?}");
            assert_eq!(classify_error(msg, Profile::DocV1), doc, "doc-v1 {msg:?}");
        };
        check(Some("KeyError: 'age'"), "column_error", "column_error");
        check(Some("no such Column"), "column_error", "column_error");
        check(
            Some("SyntaxError: invalid syntax"),
            "syntax_error",
            "syntax_error",
        );
        check(Some("TypeError: bad operand"), "type_error", "type_error");
        check(Some("cannot cast dtype"), "type_error", "type_error");
        check(
            Some("IndexError: list index out of range"),
            "index_error",
            "index_error",
        );
        check(
            Some("AttributeError: 'int' object has no attribute 'x'"),
            "attribute_error",
            "attribute_error",
        );
        check(
            Some("ValueError: could not convert"),
            "value_error",
            "value_error",
        );
        check(
            Some("Execution error: 'dept'"),
            "other_error",
            "other_error",
        );
        check(None, "unknown", "other_error");
        check(Some(""), "unknown", "other_error");
        assert_eq!(ERROR_CLASSES.len(), 7);
    }

    #[test]
    fn doc_v1_classifies_by_exception_name() {
        let check = |msg: &str, ise: &str, doc: &str| {
            assert_eq!(classify_error(Some(msg), Profile::Ise547), ise, "{msg}");
            assert_eq!(classify_error(Some(msg), Profile::DocV1), doc, "{msg}");
        };
        check(
            "ValueError: invalid literal for int() with base 10: 'a'",
            "syntax_error",
            "value_error",
        );
        check(
            "AttributeError: 'Index' object has no attribute 'foo'",
            "index_error",
            "attribute_error",
        );
        check(
            "TypeError: 'NoneType' has no column",
            "column_error",
            "type_error",
        );
        check(
            "IndentationError: unexpected indent",
            "other_error",
            "syntax_error",
        );
        check("MyKeyErrorish thing", "column_error", "column_error");
    }

    #[test]
    fn recovery_without_error() {
        let i = inputs("q", "r = 1");
        let [ise, doc] = both(&i);
        let e = &ise.error_recovery;
        assert_eq!(
            (
                e.has_error,
                e.recovery_success,
                e.recovery_success_rate,
                e.error_fix_quality,
                e.recovery_score
            ),
            (false, true, Some(1.0), Some(1.0), 1.0)
        );
        let d = &doc.error_recovery;
        assert_eq!(
            (
                d.has_error,
                d.recovery_success,
                d.recovery_success_rate,
                d.error_fix_quality,
                d.recovery_score
            ),
            (false, false, None, None, 1.0)
        );
    }

    #[test]
    fn recovery_without_attempts_scores_zero() {
        let [ise, doc] = both(&failing("boom", vec![]));
        assert_eq!(ise.error_recovery.recovery_score, 0.0);
        assert_eq!(ise.error_recovery.recovery_success_rate, Some(0.0));
        assert_eq!(ise.error_recovery.error_fix_quality, Some(0.0));
        assert_eq!(doc.error_recovery.recovery_score, 0.0);
        assert_eq!(doc.error_recovery.recovery_success_rate, None);
        assert_eq!(ise.error_recovery.error_message, serde_json::json!("boom"));
        // An error result without data: Python's .get('data', '') gives ''.
        let mut i = failing("x", vec![]);
        i.execution_result.data = None;
        i.first_execution.data = None;
        assert_eq!(
            score(&i, Profile::Ise547).error_recovery.error_message,
            serde_json::json!("")
        );
    }

    #[test]
    fn fix_quality_per_attempt() {
        let i = failing(
            "KeyError: 'a'",
            vec![
                attempt(false, Some("KeyError: 'b'")),
                attempt(false, Some("TypeError: x")),
                attempt(false, None),
            ],
        );
        for e in both(&i) {
            let q: Vec<f64> = e
                .error_recovery
                .recovery_details
                .iter()
                .map(|d| d.fix_quality)
                .collect();
            assert_eq!(q, vec![0.1, 0.5, 0.5]);
            let n: Vec<u64> = e
                .error_recovery
                .recovery_details
                .iter()
                .map(|d| d.attempt_number)
                .collect();
            assert_eq!(n, vec![1, 2, 3]);
            assert!(approx(
                e.error_recovery.error_fix_quality.unwrap_or(f64::NAN),
                1.1 / 3.0
            ));
            // 3 attempts: the attempts component reaches min(3/3, 1) = 1.
            assert!(approx(
                e.error_recovery.recovery_score,
                0.0 * 0.5 + (1.1 / 3.0) * 0.3 + 0.2
            ));
        }
    }

    #[test]
    fn doc_example_recovery_follows_formulas_not_its_numbers() {
        // The seed document's example: a failed attempt (same error class) then a success. Its
        // text says error_fix_quality 0.75 and recovery_score 0.65; its formulas give these.
        let i = failing(
            "KeyError: 'age'",
            vec![attempt(false, Some("KeyError: 'age'")), attempt(true, None)],
        );
        let e = score(&i, Profile::DocV1).error_recovery;
        assert_eq!(e.recovery_success_rate, Some(0.5));
        assert!(approx(e.error_fix_quality.unwrap_or(f64::NAN), 0.55));
        assert!(approx(
            e.recovery_score,
            0.5 * 0.5 + 0.55 * 0.3 + (2.0 / 3.0) * 0.2
        ));
        assert!((e.recovery_score - 0.548_333).abs() < 1e-6);
        assert!(e.recovery_success);
    }

    #[test]
    fn ise547_successful_recovery_hides_the_error() {
        let msg = CodegenMessage {
            file: "t.jsonl".into(),
            line: 1,
            session_id: "s".into(),
            timestamp: None,
            model: "m".into(),
            question: "q".into(),
            csv_file: None,
            columns: None,
            data_file: None,
            code: "r = df['x']".into(),
            execution_result: err("KeyError: 'x'"),
            execution_time: None,
            tokens: None,
            recovery_attempts: vec![attempt(false, Some("KeyError: 'y'")), attempt(true, None)],
        };
        let cfg = CodegenConfig::ise547();
        let (i, diags) = lower(&msg, None, &cfg);
        assert!(diags.is_empty());
        assert_eq!(i.code, "result = 1");
        let ise = calculate_evaluation_metrics(&i, &cfg).error_recovery;
        assert_eq!(
            (
                ise.has_error,
                ise.recovery_attempts_count,
                ise.recovery_score
            ),
            (false, 2, 1.0)
        );
        assert!(ise.recovery_details.is_empty());
        let doc = calculate_evaluation_metrics(&i, &CodegenConfig::default()).error_recovery;
        assert_eq!(
            (
                doc.has_error,
                doc.recovery_success,
                doc.recovery_details.len()
            ),
            (true, true, 2)
        );
    }

    #[test]
    fn lower_caps_attempts_and_drops_after_success() {
        let mut msg = CodegenMessage {
            file: "t.jsonl".into(),
            line: 7,
            session_id: "s".into(),
            timestamp: None,
            model: "m".into(),
            question: "q".into(),
            csv_file: Some("d.csv".into()),
            columns: Some(vec!["A".into()]),
            data_file: None,
            code: "c0".into(),
            execution_result: err("e"),
            execution_time: Some(0.5),
            tokens: None,
            recovery_attempts: vec![
                attempt(false, Some("e1")),
                attempt(false, Some("e2")),
                attempt(true, None),
            ],
        };
        let cfg = CodegenConfig::default();
        let (i, diags) = lower(&msg, None, &cfg);
        assert_eq!(i.recovery_attempts.len(), 2);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].line, Some(7));
        assert_eq!((i.code.as_str(), i.execution_time), ("c0", Some(0.5)));
        assert_eq!(i.columns, vec!["A"]);
        let three = CodegenConfig {
            max_recovery_attempts: 3,
            ..cfg
        };
        let (i, diags) = lower(&msg, None, &three);
        assert!(diags.is_empty());
        assert_eq!(i.recovery_attempts.len(), 3);
        assert!(!i.execution_result.is_error());
        msg.recovery_attempts.insert(0, attempt(true, None));
        let (i, diags) = lower(&msg, None, &three);
        assert_eq!(i.recovery_attempts.len(), 1);
        assert_eq!(diags.len(), 1);
        let data = DataFile {
            path: "d.csv".into(),
            columns: Some(vec!["B".into()]),
            size_bytes: 9,
        };
        let (i, _) = lower(&msg, Some(&data), &three);
        assert_eq!(
            (i.columns.clone(), i.csv_size_bytes),
            (vec!["B".to_string()], Some(9))
        );
    }

    // ---- overall -----------------------------------------------------------------------------

    #[test]
    fn overall_weights_each_component() {
        let i = inputs(
            "average salary by department, top 3",
            "r = df.groupby('department')['salary'].mean().head(3)",
        );
        let base = score(&i, Profile::Ise547);
        let components = [
            base.code_correctness.correctness_score.unwrap_or(f64::NAN),
            base.code_quality.quality_score.unwrap_or(f64::NAN),
            base.performance.performance_score,
            base.prompt_understanding.understanding_score,
            base.requirement_coverage.coverage_score,
            base.error_recovery.recovery_score,
        ];
        for (k, want) in components.iter().enumerate() {
            let mut w = [0.0; 6];
            w[k] = 1.0;
            let cfg = CodegenConfig {
                weights: Weights {
                    correctness: w[0],
                    quality: w[1],
                    performance: w[2],
                    understanding: w[3],
                    coverage: w[4],
                    recovery: w[5],
                },
                ..CodegenConfig::ise547()
            };
            let got = calculate_evaluation_metrics(&i, &cfg).overall_score;
            assert_eq!(got, Some(*want), "weight {k}");
        }
        let d = Weights::default();
        assert_eq!(
            [
                d.correctness,
                d.quality,
                d.performance,
                d.understanding,
                d.coverage,
                d.recovery
            ],
            [0.25, 0.20, 0.15, 0.15, 0.15, 0.10]
        );
        let want = components[0] * 0.25
            + components[1] * 0.20
            + components[2] * 0.15
            + components[3] * 0.15
            + components[4] * 0.15
            + components[5] * 0.10;
        assert_eq!(base.overall_score, Some(want));
    }

    #[test]
    fn config_validation_and_profile_names() {
        assert!(CodegenConfig::default().validate().is_ok());
        for bad in [-0.1, f64::NAN, f64::INFINITY] {
            let cfg = CodegenConfig {
                weights: Weights {
                    quality: bad,
                    ..Weights::default()
                },
                ..CodegenConfig::default()
            };
            assert!(cfg.validate().is_err(), "{bad}");
        }
        for p in [Profile::DocV1, Profile::Ise547] {
            assert_eq!(Profile::parse(p.name()), Some(p));
            assert_eq!(
                serde_json::to_value(p).ok(),
                Some(serde_json::json!(p.name()))
            );
        }
        assert_eq!(Profile::parse("doc"), None);
        assert_eq!(CodegenConfig::default().max_recovery_attempts, 2);
    }

    #[test]
    fn nasty_inputs_do_not_panic() {
        for (q, code) in [
            ("", ""),
            ("%% 1,000 -5 NaN None", "result = float('nan')  # %"),
            ("group by , , ,", "df.groupby([)"),
            ("top 😀 5", "df[[\"😀\"]]\r\n\u{0}"),
            (&"by a, ".repeat(500), &"df[x]".repeat(2000)),
        ] {
            for e in both(&inputs(q, code)) {
                assert!(e.overall_score.is_none_or(f64::is_finite));
            }
        }
    }
}
