//! The code-generation worker's screens of a run (the engine's [`Loaded`]), answered one at a
//! time (overview cards, charts and tables; a page
//! of messages; one message with its code and every score's details). Pure (no browser types),
//! so it is tested natively; the code-generation worker only stores the state and posts views.

use evalboard_engine::codegen::dto::SyntaxErrorDto;
use evalboard_engine::codegen::views::{
    self, component_means, component_scores, Message, Source, COMPONENTS,
};
use evalboard_engine::codegen::{
    lower, CodegenConfig, EntryScores, Loaded, MetricsEntry, MetricsSummaryFile, Profile,
};
use evalboard_report::charts::Theme;
use evalboard_report::codegen_charts::{codegen_charts, CodegenChartInput};

use crate::format::{dec, int, pct, NONE};
use crate::protocol::{
    ChartDto, CodegenAttempt, CodegenFilter, CodegenMessageView, CodegenQuery, CodegenRow,
    CodegenScore, CodegenView,
};

/// Rows per items page when the query does not say, and the most in one answer.
pub const ITEMS_PAGE: u32 = 200;
const ITEMS_MAX: u32 = 500;
/// Longest result or error text sent to the page (the rest is cut with a note).
const MAX_TEXT: usize = 4000;

/// What the page is told when a chat_history folder is loaded.
pub const NOT_RECORDED: &str = "Code was not recorded: metrics.json holds scores only. These \
    messages are shown as originally scored by the system that wrote them; Settings change how \
    they are aggregated, not the scores.";

fn score3(x: Option<f64>) -> String {
    dec(x, 3)
}

fn rate(n: u64, d: u64) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_TEXT {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX_TEXT).collect();
        format!("{head}… (cut at {MAX_TEXT} characters)")
    }
}

fn empty_view(st: &Loaded) -> CodegenView {
    CodegenView {
        name: st.run.name.clone(),
        profile: st.cfg.profile.name().to_string(),
        note: st.originals_only().then(|| NOT_RECORDED.to_string()),
        cards: Vec::new(),
        charts: Vec::new(),
        tables: Vec::new(),
        exports: Vec::new(),
        models: Vec::new(),
        sessions: Vec::new(),
        classes: Vec::new(),
        n_messages: st.messages.len() as u64,
        n_match: 0,
        offset: 0,
        rows: Vec::new(),
        message: None,
    }
}

/// One screen of the run.
pub fn view(st: &Loaded, q: &CodegenQuery) -> CodegenView {
    let mut v = empty_view(st);
    match q {
        CodegenQuery::Overview { dark } => overview(st, *dark, &mut v),
        CodegenQuery::Items {
            filter,
            offset,
            limit,
        } => items(st, filter, *offset, *limit, &mut v),
        CodegenQuery::Message { session, index } => v.message = message(st, *session, *index),
    }
    v
}

fn card(key: &str, label: &str, value: String, sub: String) -> (String, String, String, String) {
    (key.into(), label.into(), value, sub)
}

const GROUP_HEAD: [&str; 11] = [
    "Messages",
    "Overall",
    "Correctness",
    "Quality",
    "Performance",
    "Understanding",
    "Coverage",
    "Recovery",
    "Executed",
    "Errors",
    "Recovered",
];

fn group_table(first: &str, groups: &[views::Group]) -> Vec<Vec<String>> {
    let mut rows = vec![std::iter::once(first)
        .chain(GROUP_HEAD)
        .map(str::to_string)
        .collect::<Vec<_>>()];
    for g in groups {
        let s = &g.summary.summary;
        let mut row = vec![g.name.clone(), int(s.total_questions)];
        row.push(score3(s.average_overall_score));
        row.extend(component_means(&g.summary).into_iter().map(score3));
        row.push(pct(rate(s.successful_executions, s.total_questions)));
        row.push(int(s.errors_encountered));
        row.push(int(s.successful_recoveries));
        rows.push(row);
    }
    rows
}

/// The summary keys compared "as originally scored vs re-scored".
const COMPARED: [(&str, &str); 13] = [
    ("average_overall_score", "Mean overall score"),
    ("average_correctness_score", "Mean correctness"),
    ("average_quality_score", "Mean quality"),
    ("average_performance_score", "Mean performance"),
    ("average_understanding_score", "Mean prompt understanding"),
    ("average_coverage_score", "Mean requirement coverage"),
    ("average_recovery_score", "Mean error recovery"),
    ("total_questions", "Messages"),
    ("successful_executions", "Successful executions"),
    ("errors_encountered", "Errors encountered"),
    ("total_recovery_attempts", "Recovery attempts"),
    ("successful_recoveries", "Successful recoveries"),
    ("recovery_success_rate", "Recovery success rate"),
];

/// A summary value as text: counts as integers, scores with three decimals.
fn summary_value(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::Number(n)) => match n.as_u64() {
            Some(i) => int(i),
            None => score3(n.as_f64()),
        },
        Some(serde_json::Value::Null) | None => NONE.to_string(),
        Some(other) => other.to_string(),
    }
}

fn summary_json(s: &MetricsSummaryFile) -> serde_json::Value {
    serde_json::to_value(&s.summary).unwrap_or(serde_json::Value::Null)
}

/// "As originally scored vs re-scored": the written metrics_summary.json (when the run has exactly
/// one), the summary recomputed from the original entries, and the re-scored trace messages.
fn original_table(st: &Loaded) -> Option<Vec<Vec<String>>> {
    let (orig, re) = views::original_and_rescored(&st.run, &st.scored, st.cfg.profile);
    let written: Vec<&serde_json::Value> = st
        .run
        .sessions
        .iter()
        .filter_map(|s| s.original_summary.as_ref()?.raw.get("summary"))
        .collect();
    if orig.is_none() && written.is_empty() {
        return None;
    }
    let profile = st.cfg.profile.name();
    let mut cols: Vec<(String, serde_json::Value)> = Vec::new();
    if let [only] = written.as_slice() {
        cols.push(("As written (metrics_summary.json)".into(), (*only).clone()));
    }
    if let Some(o) = &orig {
        cols.push((
            format!("As originally scored (metrics.json entries, {profile} summary)"),
            summary_json(o),
        ));
    }
    if let Some(r) = &re {
        cols.push((
            format!("Re-scored from the trace ({profile})"),
            summary_json(r),
        ));
    }
    let mut rows = vec![std::iter::once("Metric".to_string())
        .chain(cols.iter().map(|c| c.0.clone()))
        .collect::<Vec<_>>()];
    for (key, label) in COMPARED {
        let mut row = vec![label.to_string()];
        row.extend(cols.iter().map(|(_, v)| summary_value(v.get(key))));
        rows.push(row);
    }
    Some(rows)
}

fn overview(st: &Loaded, dark: bool, v: &mut CodegenView) {
    let p = st.cfg.profile;
    let sum = st.summary();
    let s = &sum.summary;
    let n = s.total_questions;
    v.cards = vec![
        card(
            "messages",
            "Messages",
            int(n),
            format!(
                "{} · {}",
                if st.originals_only() {
                    "as originally scored"
                } else {
                    "re-scored"
                },
                p.name()
            ),
        ),
        card(
            "sessions",
            "Sessions",
            int(st.run.sessions.len() as u64),
            "chat sessions".into(),
        ),
        card(
            "models",
            "Models",
            int(s.models_used.len() as u64),
            s.models_used.join(", "),
        ),
        card(
            "average_overall_score",
            "Mean overall score",
            score3(s.average_overall_score),
            "weighted sum of the six components, 0–1".into(),
        ),
        card(
            "execution_success_rate",
            "Execution success",
            pct(rate(s.successful_executions, n)),
            format!("{} of {} ran", int(s.successful_executions), int(n)),
        ),
        card(
            "errors_encountered",
            "Errors encountered",
            int(s.errors_encountered),
            match (p, st.originals_only()) {
                (Profile::DocV1, false) => "first executions that failed".into(),
                _ => "has_error as scored: recovered errors not counted".into(),
            },
        ),
        card(
            "total_recovery_attempts",
            "Recovery attempts",
            int(s.total_recovery_attempts),
            format!("at most {} per message", st.cfg.max_recovery_attempts),
        ),
        card(
            "successful_recoveries",
            "Successful recoveries",
            int(s.successful_recoveries),
            "errors a recovery attempt fixed".into(),
        ),
        card(
            "recovery_success_rate",
            "Recovery rate",
            pct(s.recovery_success_rate),
            "successful recoveries / errors encountered".into(),
        ),
    ];
    let funnel = views::funnel(&st.messages);
    let by_model = views::by_model(&st.messages, p);
    let by_session = views::by_session(&st.messages, p);
    let theme = if dark { Theme::Dark } else { Theme::Light };
    v.charts = codegen_charts(
        &CodegenChartInput {
            summary: &sum,
            messages: &st.messages,
            funnel: &funnel,
            by_model: &by_model,
            by_session: &by_session,
        },
        theme,
    )
    .into_iter()
    .map(ChartDto::from)
    .collect();
    let mut components = vec![vec!["Component".to_string(), "Mean score".to_string()]];
    components.push(vec!["Overall".into(), score3(s.average_overall_score)]);
    for ((_, label), m) in COMPONENTS.iter().zip(component_means(&sum)) {
        components.push(vec![label.to_string(), score3(m)]);
    }
    v.tables
        .push(("components".into(), "Mean scores".into(), components));
    let mut f = vec![[
        "Error class",
        "First execution failed",
        "Recovery attempted",
        "Attempts",
        "Recovered",
        "Recovered / failed",
    ]
    .map(str::to_string)
    .to_vec()];
    for r in &funnel {
        f.push(vec![
            r.class.clone(),
            int(r.errors),
            int(r.attempted),
            int(r.attempts),
            int(r.recovered),
            pct(rate(r.recovered, r.errors)),
        ]);
    }
    v.tables.push((
        "recovery_funnel".into(),
        "Error recovery by error class".into(),
        f,
    ));
    v.tables.push((
        "by_model".into(),
        "By model".into(),
        group_table("Model", &by_model),
    ));
    v.tables.push((
        "by_session".into(),
        "By session".into(),
        group_table("Session", &by_session),
    ));
    if let Some(t) = original_table(st) {
        v.tables.push((
            "original_vs_rescored".into(),
            "As originally scored vs re-scored".into(),
            t,
        ));
    }
    v.exports = evalboard_report::codegen_files(&st.scored)
        .into_iter()
        .map(|(path, _)| path)
        .collect();
}

fn matches(m: &Message, f: &CodegenFilter) -> bool {
    let eq = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
    let text = f
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase);
    eq(&f.model, &m.model)
        && eq(&f.session, &m.session_id)
        && f.class
            .as_deref()
            .is_none_or(|c| m.error_class.as_deref() == Some(c))
        && text.is_none_or(|t| {
            [&m.question, &m.outcome, &m.model, &m.session_id]
                .iter()
                .any(|s| s.to_lowercase().contains(&t))
        })
}

fn distinct<'a>(xs: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in xs {
        if !out.iter().any(|o| o == x) {
            out.push(x.to_string());
        }
    }
    out
}

fn items(st: &Loaded, f: &CodegenFilter, offset: u32, limit: u32, v: &mut CodegenView) {
    v.models = distinct(st.messages.iter().map(|m| m.model.as_str()));
    v.sessions = distinct(st.messages.iter().map(|m| m.session_id.as_str()));
    v.classes = views::funnel(&st.messages)
        .into_iter()
        .map(|r| r.class)
        .collect();
    let hits: Vec<&Message> = st.messages.iter().filter(|m| matches(m, f)).collect();
    v.n_match = hits.len() as u64;
    let limit = if limit == 0 { ITEMS_PAGE } else { limit }.min(ITEMS_MAX) as usize;
    let offset = (offset as usize).min(hits.len());
    v.offset = offset as u64;
    v.rows = hits
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|m| CodegenRow {
            session: m.session,
            index: m.index,
            session_id: m.session_id.clone(),
            model: m.model.clone(),
            question: m.question.clone(),
            outcome: m.outcome.clone(),
            error_class: m.error_class.clone(),
            ok: m.scores.execution_success,
            scores: std::iter::once(m.scores.overall_score)
                .chain(component_scores(&m.scores))
                .collect(),
        })
        .collect();
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

fn list(xs: &[String]) -> String {
    if xs.is_empty() {
        "none".to_string()
    } else {
        xs.join(", ")
    }
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => NONE.to_string(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn lines(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// Each score of an entry with its details; `original` gives the "as originally scored" values.
fn score_lines(
    e: Option<&MetricsEntry>,
    s: &EntryScores,
    original: Option<&EntryScores>,
    rescored: bool,
    cfg: &CodegenConfig,
) -> Vec<CodegenScore> {
    let w = &cfg.weights;
    let mut out = vec![CodegenScore {
        key: "overall".into(),
        label: "Overall".into(),
        score: s.overall_score,
        original: original.and_then(|o| o.overall_score),
        details: vec![(
            "weights".into(),
            // Re-scored: the current weights; original entries: whatever their writer used.
            if rescored {
                format!(
                    "{} correctness + {} quality + {} performance + {} understanding + {} coverage + {} recovery",
                    w.correctness, w.quality, w.performance, w.understanding, w.coverage, w.recovery
                )
            } else {
                "as the system that wrote metrics.json weighed them".into()
            },
        )],
    }];
    let originals = original.map(component_scores);
    for (i, ((key, label), score)) in COMPONENTS.iter().zip(component_scores(s)).enumerate() {
        let details = match e {
            None => Vec::new(),
            Some(e) => details(e, key),
        };
        out.push(CodegenScore {
            key: key.to_string(),
            label: label.to_string(),
            score,
            original: originals.and_then(|o| o.get(i).copied().flatten()),
            details,
        });
    }
    out
}

fn details(e: &MetricsEntry, key: &str) -> Vec<(String, String)> {
    match key {
        "correctness" => {
            let c = &e.code_correctness;
            let errors: Vec<String> = c
                .syntax_errors
                .iter()
                .map(|x| match x {
                    SyntaxErrorDto::Bare(b) => b.message.clone(),
                    SyntaxErrorDto::Located { line, message, .. } => match line {
                        Some(l) => format!("line {l}: {message}"),
                        None => message.clone(),
                    },
                })
                .collect();
            lines(&[
                (
                    "syntax valid",
                    match c.syntax_valid.is_valid() {
                        Some(b) => yes_no(b),
                        None => "unchecked".into(),
                    },
                ),
                ("syntax errors", list(&errors)),
                ("execution success", yes_no(c.execution_success)),
                ("execution error", json_text(&c.execution_error)),
            ])
        }
        "quality" => {
            let q = &e.code_quality;
            let issues: Vec<String> = q
                .safety
                .safety_issues
                .iter()
                .map(|i| format!("{} ({}): {}", i.category, i.severity, i.pattern))
                .collect();
            lines(&[
                ("has imports", yes_no(q.has_imports)),
                ("has comments", yes_no(q.has_comments)),
                ("lines", int(q.line_count)),
                ("complexity", int(q.complexity_score)),
                ("readability", format!("{} / 10", q.readability_score)),
                ("safe", yes_no(q.safety.is_safe)),
                ("safety score", dec(Some(q.safety.safety_score.as_f64()), 2)),
                ("safety issues", list(&issues)),
            ])
        }
        "performance" => {
            let p = &e.performance;
            lines(&[
                ("code length", format!("{} characters", int(p.code_length))),
                (
                    "execution time",
                    p.execution_time_seconds
                        .map(|t| format!("{t} s"))
                        .unwrap_or_else(|| "not recorded".into()),
                ),
                (
                    "time complexity",
                    format!(
                        "{} (score {}, {} nested loops)",
                        p.time_complexity.notation,
                        p.time_complexity.score,
                        p.time_complexity.nested_loops
                    ),
                ),
                (
                    "space complexity",
                    format!(
                        "{} (score {}, ~{} MB)",
                        p.space_complexity.notation,
                        p.space_complexity.score,
                        dec(Some(p.space_complexity.estimated_memory_mb.as_f64()), 4)
                    ),
                ),
            ])
        }
        "understanding" => {
            let d = &e.prompt_understanding.details;
            lines(&[
                ("column extraction", score3(Some(d.column_extraction_score))),
                ("natural-language parsing", score3(Some(d.nl_parsing_score))),
                (
                    "statistical understanding",
                    score3(Some(d.statistical_understanding_score)),
                ),
                ("extracted columns (code)", list(&d.extracted_columns)),
                ("mentioned columns (question)", list(&d.mentioned_columns)),
                ("operations found", list(&d.statistical_operations)),
            ])
        }
        "coverage" => {
            let d = &e.requirement_coverage.details;
            lines(&[
                (
                    "filter conditions",
                    score3(Some(d.filter_conditions_coverage)),
                ),
                ("group-by columns", score3(Some(d.groupby_columns_coverage))),
                ("sorting", score3(Some(d.sorting_coverage))),
                ("join conditions", score3(Some(d.join_conditions_coverage))),
                ("missing requirements", list(&d.missing_requirements)),
            ])
        }
        _ => {
            let r = &e.error_recovery;
            lines(&[
                ("has error", yes_no(r.has_error)),
                ("error message", json_text(&r.error_message)),
                ("attempts", int(r.recovery_attempts_count)),
                ("recovered", yes_no(r.recovery_success)),
                ("success rate", score3(r.recovery_success_rate)),
                ("fix quality", score3(r.error_fix_quality)),
            ])
        }
    }
}

fn message(st: &Loaded, session: u32, index: u32) -> Option<CodegenMessageView> {
    let m = st
        .messages
        .iter()
        .find(|m| m.session == session && m.index == index)?;
    let sess = st.run.sessions.get(session as usize)?;
    let original_entry = sess
        .original
        .as_ref()
        .and_then(|o| o.entries.get(index as usize));
    let mut v = CodegenMessageView {
        session,
        index,
        session_id: m.session_id.clone(),
        model: m.model.clone(),
        timestamp: m.scores.timestamp.clone(),
        question: m.question.clone(),
        csv_file: None,
        source: match m.line {
            Some(l) => format!("{}:{l}", m.file),
            None => m.file.clone(),
        },
        rescored: m.source == Source::Rescored,
        code: None,
        first_code: None,
        result: String::new(),
        error: m.first_error.as_deref().map(clip),
        error_class: m.error_class.clone(),
        scores: Vec::new(),
        attempts: Vec::new(),
    };
    match m.source {
        Source::Rescored => {
            let msg = sess.messages.get(index as usize)?;
            let entry = st
                .scored
                .sessions
                .get(session as usize)?
                .entries
                .get(index as usize)?;
            let data = msg.data_file.as_deref().and_then(|p| st.run.data_file(p));
            let (inputs, _) = lower(msg, data, &st.cfg);
            v.csv_file = msg.csv_file.clone();
            v.first_code = (inputs.code != msg.code).then(|| msg.code.clone());
            v.code = Some(inputs.code.clone());
            let r = &msg.execution_result;
            v.result = clip(&match &r.data {
                _ if m.recovered => "error, fixed by a recovery attempt".to_string(),
                _ if r.is_error() => "error".to_string(),
                Some(d) => format!("{}: {}", r.kind, json_text(d)),
                None => r.kind.clone(),
            });
            v.scores = score_lines(
                Some(entry),
                &m.scores,
                original_entry.map(|o| &o.scores),
                true,
                &st.cfg,
            );
            let details = &entry.error_recovery.recovery_details;
            v.attempts = inputs
                .recovery_attempts
                .iter()
                .enumerate()
                .map(|(i, a)| CodegenAttempt {
                    number: a.attempt_number.unwrap_or(i as u64 + 1),
                    success: a.success,
                    error: a.error.clone(),
                    fix_quality: details.get(i).map(|d| d.fix_quality),
                    code: a.code.clone(),
                })
                .collect();
        }
        Source::Original => {
            let o = original_entry?;
            v.csv_file = o
                .raw
                .get("csv_file")
                .and_then(|c| c.as_str())
                .map(str::to_string);
            v.result = m.outcome.clone();
            v.scores = score_lines(o.typed.as_ref(), &m.scores, None, false, &st.cfg);
            if let Some(t) = &o.typed {
                v.attempts = t
                    .error_recovery
                    .recovery_details
                    .iter()
                    .map(|d| CodegenAttempt {
                        number: d.attempt_number,
                        success: d.success,
                        error: d.error.clone(),
                        fix_quality: Some(d.fix_quality),
                        code: None,
                    })
                    .collect();
            }
        }
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
    use evalboard_engine::{InputFile, RunInput};

    const XSS: &str = "<img src=x onerror=alert(1)>";

    /// The run folder `input/` of the case `tests/fixtures/codegen/<case>`.
    fn fixture(case: &str) -> RunInput {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/codegen")
            .join(case)
            .join("input");
        let mut files = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let (Ok(rel), Ok(bytes)) = (p.strip_prefix(&root), std::fs::read(&p)) {
                    files.push(InputFile::new(rel.to_string_lossy().to_string(), bytes));
                }
            }
        }
        assert!(!files.is_empty(), "no files under {}", root.display());
        RunInput::new(case, files)
    }

    fn state(case: &str) -> Loaded {
        let read = run::read_as(
            Family::Codegen,
            &fixture(case),
            None,
            ReadOptions::default(),
        )
        .expect("usable");
        match run::score(read, &Settings::default(), 1) {
            ScoredRun::Codegen(l) => *l,
            _ => unreachable!("a code-generation run"),
        }
    }

    fn headline(st: &Loaded) -> Option<f64> {
        run::RunRef::Codegen(st).headline_value()
    }

    fn export(st: &Loaded, file: &str) -> Result<(String, String), String> {
        crate::exports::export(run::RunRef::Codegen(st), file)
    }

    fn card_value(v: &CodegenView, key: &str) -> String {
        v.cards
            .iter()
            .find(|c| c.0 == key)
            .map(|c| c.2.clone())
            .unwrap_or_default()
    }

    #[test]
    fn trace_overview_matches_the_sessions_summaries() {
        let st = state("ok/trace");
        let v = view(&st, &CodegenQuery::Overview { dark: false });
        assert_eq!(v.note, None);
        assert_eq!(card_value(&v, "messages"), "8");
        assert_eq!(card_value(&v, "sessions"), "2");
        // The run's mean overall score is the mean over every re-scored entry.
        let entries: Vec<f64> = st
            .scored
            .sessions
            .iter()
            .flat_map(|s| s.entries.iter().filter_map(|e| e.overall_score))
            .collect();
        let mean = entries.iter().sum::<f64>() / entries.len() as f64;
        assert_eq!(
            card_value(&v, "average_overall_score"),
            format!("{mean:.3}")
        );
        let keys: Vec<&str> = v.charts.iter().map(|c| c.key.as_str()).collect();
        assert!(keys.contains(&"components") && keys.contains(&"recovery_funnel"));
        let tables: Vec<&str> = v.tables.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(
            tables,
            ["components", "recovery_funnel", "by_model", "by_session"]
        );
        assert_eq!(v.exports.len(), 4, "{:?}", v.exports);
        assert!(v.exports[0].ends_with("/metrics.json"));
        let (name, text) = export(&st, &v.exports[0]).expect("exports");
        assert!(!name.contains('/'));
        assert!(text.contains("\"overall_score\""));
        assert!(export(&st, "nope.json").is_err());
    }

    #[test]
    fn items_filter_and_page() {
        let st = state("ok/trace");
        let all = view(
            &st,
            &CodegenQuery::Items {
                filter: CodegenFilter::default(),
                offset: 0,
                limit: 0,
            },
        );
        assert_eq!((all.n_messages, all.n_match, all.rows.len()), (8, 8, 8));
        assert_eq!(all.models, ["gpt-4", "llama-3.3-70b"]);
        assert_eq!(all.rows[0].scores.len(), 7);
        let q = |filter: CodegenFilter, offset: u32, limit: u32| {
            view(
                &st,
                &CodegenQuery::Items {
                    filter,
                    offset,
                    limit,
                },
            )
        };
        let llama = q(
            CodegenFilter {
                model: Some("llama-3.3-70b".into()),
                ..Default::default()
            },
            0,
            0,
        );
        assert_eq!(llama.n_match, 4);
        let cols = q(
            CodegenFilter {
                class: Some("column_error".into()),
                ..Default::default()
            },
            0,
            0,
        );
        assert!(cols.n_match >= 1);
        assert!(cols
            .rows
            .iter()
            .all(|r| r.error_class.as_deref() == Some("column_error")));
        let text = q(
            CodegenFilter {
                text: Some("SALARY".into()),
                ..Default::default()
            },
            0,
            0,
        );
        assert!(text
            .rows
            .iter()
            .all(|r| r.question.to_lowercase().contains("salary")));
        let page = q(CodegenFilter::default(), 6, 5);
        assert_eq!((page.offset, page.rows.len()), (6, 2));
        let past = q(CodegenFilter::default(), 99, 5);
        assert!(past.rows.is_empty());
    }

    #[test]
    fn message_detail_has_code_attempts_and_details() {
        let st = state("ok/trace");
        // Session 0, message 2: fixed on the second attempt.
        let v = view(
            &st,
            &CodegenQuery::Message {
                session: 0,
                index: 2,
            },
        );
        let m = v.message.expect("message");
        assert!(m.rescored);
        assert_eq!(
            m.code.as_deref(),
            Some("result = df[df['department']=='Engineering']['salary'].sum()")
        );
        assert!(m.first_code.is_some());
        assert_eq!(m.attempts.len(), 2);
        assert!(m.attempts[1].success);
        assert_eq!(m.error_class.as_deref(), Some("column_error"));
        let understanding = m.scores.iter().find(|s| s.key == "understanding");
        let lines = understanding.map(|s| s.details.clone()).unwrap_or_default();
        assert!(lines.iter().any(|(k, _)| k == "extracted columns (code)"));
        assert_eq!(m.scores.len(), 7);
        let none = view(
            &st,
            &CodegenQuery::Message {
                session: 9,
                index: 0,
            },
        );
        assert!(none.message.is_none());
    }

    #[test]
    fn chat_history_is_as_originally_scored_and_says_so() {
        let st = state("ok/chat_history");
        assert!(st.originals_only());
        let v = view(&st, &CodegenQuery::Overview { dark: true });
        assert_eq!(v.note.as_deref(), Some(NOT_RECORDED));
        let orig = v
            .tables
            .iter()
            .find(|t| t.0 == "original_vs_rescored")
            .expect("side by side");
        assert!(orig.2[0].iter().any(|h| h.starts_with("As written")));
        // The written summary and the recomputed one agree on this fixture.
        let overall = &orig.2[1];
        assert_eq!(overall.get(1), overall.get(2), "{overall:?}");
        let sum = st.scored.sessions[0]
            .original_summary
            .as_ref()
            .and_then(|s| s.summary.average_overall_score);
        assert_eq!(headline(&st), sum);
        let m = view(
            &st,
            &CodegenQuery::Message {
                session: 0,
                index: 0,
            },
        )
        .message
        .expect("message");
        assert!(!m.rescored);
        assert_eq!(m.code, None);
    }

    #[test]
    fn malformed_input_is_reported_and_unusable_input_fails() {
        let st = state("err/malformed");
        assert!(st.scored.diagnostics.iter().any(|d| d.file == "trace.jsonl"
            && d.line == Some(2)
            && d.severity == evalboard_engine::diag::Severity::Error));
        assert!(st
            .files
            .iter()
            .any(|f| f.path == "trace.jsonl" && f.reason.is_some()));
        let bad = RunInput::new(
            "bad",
            vec![InputFile::new(
                "t.jsonl",
                format!("{{\"question\":\"{XSS}\",\"code\":5,\"execution_result\":{{}}}}\n"),
            )],
        );
        let err =
            run::read_as(Family::Codegen, &bad, None, ReadOptions::default()).expect_err("fails");
        assert!(err.diagnostics.iter().any(|d| d.line == Some(1)));
        assert_eq!(err.files.len(), 1);
    }

    #[test]
    fn rescoring_follows_the_settings() {
        let mut st = state("ok/trace");
        let before = headline(&st);
        st.rescore(&CodegenConfig {
            weights: evalboard_engine::codegen::Weights {
                correctness: 1.0,
                quality: 0.0,
                performance: 0.0,
                understanding: 0.0,
                coverage: 0.0,
                recovery: 0.0,
            },
            ..Default::default()
        });
        let correctness = st.summary().summary.average_correctness_score;
        assert_eq!(headline(&st), correctness);
        assert_ne!(headline(&st), before);
        st.rescore(&CodegenConfig::ise547());
        assert_eq!(
            view(&st, &CodegenQuery::Overview { dark: false }).profile,
            "ise547"
        );
    }
}
