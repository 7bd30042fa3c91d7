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
use evalboard_engine::run_table::ItemKey;
use evalboard_report::charts::Theme;
use evalboard_report::codegen_charts::{codegen_charts, CodegenChartInput};

use crate::format::{dec, int, pct, NONE};
use crate::protocol::{
    Block, Cell, ChartDto, Choice, ItemsLayout, ScreenFilter, ScreenItem, ScreenQuery, ScreenRow,
    ScreenView, Table, TableRow,
};
use crate::screen::{self, card, clip, group, note, table, text};

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

/// The chart `key` of `charts` as a block (taken: each is shown once).
fn take_chart(charts: &mut [Option<ChartDto>], key: &str) -> Vec<Block> {
    charts
        .iter_mut()
        .find(|c| c.as_ref().is_some_and(|c| c.key == key))
        .and_then(Option::take)
        .map(Block::Chart)
        .into_iter()
        .collect()
}

/// One screen of the run.
pub fn view(st: &Loaded, q: &ScreenQuery) -> ScreenView {
    let mut v = screen::empty(&st.run.name);
    v.n_items = st.messages.len() as u64;
    match q {
        ScreenQuery::Overview { dark, .. } => overview(st, *dark, &mut v),
        ScreenQuery::Items {
            filter,
            offset,
            limit,
        } => items(st, filter, *offset, *limit, &mut v),
        ScreenQuery::Item { key } => v.item = message_of(st, key),
        // Laid out by the run store from both runs' items (`crate::pair`).
        ScreenQuery::Pair { .. } | ScreenQuery::Hits { .. } => {}
    }
    v
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
        row.extend(cols.iter().map(|(_, v)| {
            let shown = summary_value(v.get(key));
            // A rate above 1 cannot be a rate: flagged where it stands (the ISE547 formula).
            match v.get(key).and_then(serde_json::Value::as_f64) {
                Some(r) if key == "recovery_success_rate" && r > 1.0 => {
                    format!("{shown} (impossible: above 1)")
                }
                _ => shown,
            }
        }));
        rows.push(row);
    }
    Some(rows)
}

fn overview(st: &Loaded, dark: bool, v: &mut ScreenView) {
    let p = st.cfg.profile;
    let sum = st.summary();
    let s = &sum.summary;
    let n = s.total_questions;
    let cards = vec![
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
            match s.recovery_success_rate {
                Some(r) if r > 1.0 => format!(
                    "above 100%: {} recoveries over {} errors counted — see the note above",
                    int(s.successful_recoveries),
                    int(s.errors_encountered)
                ),
                _ => "successful recoveries / errors encountered".into(),
            },
        ),
    ];
    let funnel = views::funnel(&st.messages);
    let by_model = views::by_model(&st.messages, p);
    let by_session = views::by_session(&st.messages, p);
    let theme = if dark { Theme::Dark } else { Theme::Light };
    let mut charts: Vec<Option<ChartDto>> = codegen_charts(
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
    .map(|c| Some(ChartDto::from(c)))
    .collect();
    let mut components = vec![vec!["Component".to_string(), "Mean score".to_string()]];
    components.push(vec!["Overall".into(), score3(s.average_overall_score)]);
    for ((_, label), m) in COMPONENTS.iter().zip(component_means(&sum)) {
        components.push(vec![label.to_string(), score3(m)]);
    }
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
    let pair = |key: &str, blocks: Vec<Block>| group(key, "pair", None, blocks);
    if st.originals_only() {
        v.blocks.push(note("not-recorded", "note", NOT_RECORDED));
    }
    // The cards and the funnel count errors differently under some profiles: said, not left to
    // be found (issue 17.7); an impossible rate is flagged where it stands.
    let funnel_errors: u64 = funnel.iter().map(|r| r.errors).sum();
    if funnel_errors != s.errors_encountered {
        v.blocks.push(note(
            "errors-differ",
            "note",
            format!(
                "The recovery funnel counts {} first executions that failed; the Errors \
                 encountered card counts {} ({}). Both are right: they count different things.",
                int(funnel_errors),
                int(s.errors_encountered),
                match (p, st.originals_only()) {
                    (Profile::DocV1, false) => "first executions that failed, re-scored",
                    _ => "has_error as scored, so an error a recovery fixed is not counted",
                }
            ),
        ));
    }
    if let Some(r) = s.recovery_success_rate.filter(|r| *r > 1.0) {
        v.blocks.push(note(
            "impossible-rate",
            "warn",
            format!(
                "A recovery rate of {} is impossible as a rate: the {} profile divides {} \
                 successful recoveries by {} errors encountered, and errors that a recovery \
                 fixed are not counted as encountered. The ISE547 code computes it this way; \
                 the doc-v1 profile counts every failed first execution.",
                pct(Some(r)),
                p.name(),
                int(s.successful_recoveries),
                int(s.errors_encountered)
            ),
        ));
    }
    v.blocks.push(Block::Cards {
        primary: "average_overall_score".into(),
        cards,
    });
    let mut first = take_chart(&mut charts, "components");
    first.push(table("components", "Mean scores", components));
    v.blocks.push(pair("components", first));
    let mut second = take_chart(&mut charts, "overall_distribution");
    second.extend(take_chart(&mut charts, "recovery_funnel"));
    v.blocks.push(pair("distribution", second));
    v.blocks
        .push(table("recovery_funnel", "Error recovery by error class", f));
    let dists: Vec<Block> = charts
        .iter_mut()
        .filter(|c| {
            c.as_ref()
                .is_some_and(|c| c.key.starts_with("distribution_"))
        })
        .filter_map(Option::take)
        .map(Block::Chart)
        .collect();
    v.blocks.push(group(
        "distributions",
        "small",
        Some("Score distributions by component".into()),
        dists,
    ));
    let mut groups = take_chart(&mut charts, "by_model");
    groups.extend(take_chart(&mut charts, "by_session"));
    v.blocks.push(pair("groups", groups));
    v.blocks.push(table(
        "by_model",
        "By model",
        group_table("Model", &by_model),
    ));
    v.blocks.push(table(
        "by_session",
        "By session",
        group_table("Session", &by_session),
    ));
    if let Some(t) = original_table(st) {
        if t.iter()
            .flatten()
            .any(|c| c.ends_with("(impossible: above 1)"))
        {
            v.blocks.push(note(
                "impossible-original",
                "warn",
                "A recovery success rate above 1 in the table below is impossible as a rate: the \
                 system that wrote it divides successful recoveries by errors encountered, and an \
                 error that a recovery fixed is not counted as encountered.",
            ));
        }
        v.blocks.push(table(
            "original_vs_rescored",
            "As originally scored vs re-scored",
            t,
        ));
    }
    v.exports = evalboard_report::codegen_files(&st.scored)
        .into_iter()
        .map(|(path, _)| {
            let what = if path.ends_with("metrics_summary.json") {
                "The session's summary (the seed system's schema)."
            } else {
                "The session's entries, one per message (the seed system's schema)."
            };
            (path, what.to_string())
        })
        .collect();
}

fn matches(m: &Message, f: &ScreenFilter, text: Option<&str>) -> bool {
    let eq = |name: &str, have: &str| f.choice(name).is_none_or(|w| w == have);
    eq("model", &m.model)
        && eq("session", &m.session_id)
        && f.choice("class")
            .is_none_or(|c| m.error_class.as_deref() == Some(c))
        && text.is_none_or(|t| {
            [&m.question, &m.outcome, &m.model, &m.session_id]
                .iter()
                .any(|s| s.to_lowercase().contains(t))
        })
}

const COLUMNS: [(&str, &str); 13] = [
    ("#", "eb-num eb-muted"),
    ("Session", "eb-mono"),
    ("Model", ""),
    ("Question", ""),
    ("Result", ""),
    ("Error class", "eb-mono"),
    ("Overall", "eb-num"),
    ("Corr.", "eb-num"),
    ("Qual.", "eb-num"),
    ("Perf.", "eb-num"),
    ("Underst.", "eb-num"),
    ("Cover.", "eb-num"),
    ("Recov.", "eb-num"),
];

fn items(st: &Loaded, f: &ScreenFilter, offset: u32, limit: u32, v: &mut ScreenView) {
    let choice = |name: &str, label: &str, options: Vec<String>| Choice {
        name: name.into(),
        label: label.into(),
        options,
    };
    v.layout = ItemsLayout {
        kind: "codegen".into(),
        noun: ("message".into(), "messages".into()),
        columns: screen::columns(&COLUMNS),
        filters: vec![
            choice(
                "model",
                "Model",
                screen::distinct(st.messages.iter().map(|m| m.model.as_str())),
            ),
            choice(
                "session",
                "Session",
                screen::distinct(st.messages.iter().map(|m| m.session_id.as_str())),
            ),
            choice(
                "class",
                "Error class",
                views::funnel(&st.messages)
                    .into_iter()
                    .map(|r| r.class)
                    .collect(),
            ),
        ],
        search: "question, result, model or session".into(),
        footnote: "Click a message (or Enter) for its code, result and every score's details."
            .into(),
    };
    let text = screen::search(f);
    let hits: Vec<(usize, &Message)> = st
        .messages
        .iter()
        .filter(|m| matches(m, f, text.as_deref()))
        .enumerate()
        .collect();
    screen::page(v, hits, offset, limit, |(i, m)| ScreenRow {
        key: message_key(m),
        bad: !m.scores.execution_success,
        cells: [
            (i + 1).to_string(),
            m.session_id.clone(),
            m.model.clone(),
            m.question.clone(),
            m.outcome.clone(),
            m.error_class.clone().unwrap_or_default(),
        ]
        .into_iter()
        .chain(
            std::iter::once(m.scores.overall_score)
                .chain(component_scores(&m.scores))
                .map(score3),
        )
        .collect(),
    });
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
) -> Vec<ScoreLine> {
    let w = &cfg.weights;
    let mut out = vec![ScoreLine {
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
        out.push(ScoreLine {
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

/// A score of a message with what it is made of.
struct ScoreLine {
    key: String,
    label: String,
    score: Option<f64>,
    /// The same score as originally scored (a `metrics.json` entry at the same position of the
    /// session), when the folder has one next to the re-scored trace.
    original: Option<f64>,
    /// (what, value) lines: extracted vs mentioned columns, missing requirements, …
    details: Vec<(String, String)>,
}

/// One recovery attempt of a message.
struct Attempt {
    number: u64,
    success: bool,
    error: Option<String>,
    fix_quality: Option<f64>,
    /// The fixed code (not recorded in a metrics.json).
    code: Option<String>,
}

/// What the message drawer shows, before it is laid out as blocks.
struct MessageParts {
    index: u32,
    session_id: String,
    model: String,
    timestamp: Option<String>,
    question: String,
    csv_file: Option<String>,
    /// `file:line` it was read from.
    source: String,
    /// Scored under the current settings (a trace), or as originally scored (a metrics.json).
    rescored: bool,
    /// The delivered code (after a successful recovery, the fix); `None` when not recorded.
    code: Option<String>,
    /// The first generation, when a recovery replaced it.
    first_code: Option<String>,
    result: String,
    error: Option<String>,
    error_class: Option<String>,
    scores: Vec<ScoreLine>,
    attempts: Vec<Attempt>,
}

impl MessageParts {
    /// Facts, question, code (or why there is none), result, scores, recovery attempts.
    fn into_item(self) -> ScreenItem {
        let m = self;
        let key = ItemKey::text_index(&m.session_id, m.index.into());
        let or_none = |x: Option<String>| x.unwrap_or_else(|| NONE.into());
        let mut b = vec![
            Block::Facts(vec![
                ("Model".into(), m.model),
                ("Time".into(), or_none(m.timestamp)),
                ("Data file".into(), or_none(m.csv_file)),
                (
                    "Scores".into(),
                    if m.rescored {
                        "re-scored under the current settings"
                    } else {
                        "as originally scored"
                    }
                    .into(),
                ),
                ("Source".into(), m.source),
            ]),
            Block::Heading("Question".into()),
            text("question", m.question, false),
            Block::Heading("Code".into()),
        ];
        b.push(match m.code {
            Some(code) => Block::Code {
                label: "Delivered code".into(),
                code,
            },
            None => note(
                "code-not-recorded",
                "note",
                "Code was not recorded for this message (metrics.json holds scores only): the \
                 scores below are as originally scored.",
            ),
        });
        if let Some(c) = m.first_code {
            b.push(group(
                "first-code",
                "more",
                Some("First generation (replaced by the recovery)".into()),
                vec![Block::Code {
                    label: "First generation".into(),
                    code: c,
                }],
            ));
        }
        b.push(Block::Heading("Result".into()));
        b.push(text("result", m.result, true));
        if let Some(e) = m.error {
            let class = m.error_class.unwrap_or_default();
            b.push(note("error", "error", format!("Error ({class}): {e}")));
        }
        b.push(Block::Heading("Scores".into()));
        let has_original = m.scores.iter().any(|s| s.original.is_some());
        let mut head = vec![
            "Score".to_string(),
            if m.rescored {
                "Re-scored"
            } else {
                "As originally scored"
            }
            .to_string(),
        ];
        let mut numeric = vec![false, true];
        if has_original {
            head.push("As originally scored".into());
            numeric.push(true);
        }
        head.push("Details".into());
        numeric.push(false);
        let rows = m
            .scores
            .into_iter()
            .map(|s| {
                let mut cells = vec![Cell::Text(s.label), Cell::Text(score3(s.score))];
                if has_original {
                    cells.push(Cell::Text(score3(s.original)));
                }
                cells.push(Cell::Pairs(s.details));
                TableRow {
                    key: Some(s.key),
                    flag: s.original.is_some() && s.original != s.score,
                    cells,
                }
            })
            .collect();
        b.push(Block::Table(Table {
            key: "message-scores".into(),
            title: None,
            head,
            numeric,
            rows,
        }));
        if !m.attempts.is_empty() {
            b.push(Block::Heading("Recovery attempts".into()));
            for a in m.attempts {
                let title = format!(
                    "Attempt {} · {} · fix quality {}",
                    a.number,
                    if a.success { "fixed" } else { "failed" },
                    score3(a.fix_quality)
                );
                let mut inner = Vec::new();
                if let Some(e) = a.error {
                    inner.push(text("attempt-error", e, true));
                }
                if let Some(c) = a.code {
                    inner.push(Block::Code {
                        label: "Fixed code".into(),
                        code: c,
                    });
                }
                b.push(Block::Group {
                    key: "attempt".into(),
                    layout: "box".into(),
                    title: Some(title),
                    ok: a.success,
                    blocks: inner,
                });
            }
        }
        ScreenItem {
            key,
            title: format!("Message {} · session {}", m.index + 1, m.session_id),
            blocks: b,
        }
    }
}

/// A message's key: `[session id, message index]`, as a comparison pairs it.
fn message_key(m: &Message) -> ItemKey {
    ItemKey::text_index(&m.session_id, m.index.into())
}

/// The message of `key` (the first of a key seen twice, as a comparison pairs it).
fn message_of(st: &Loaded, key: &ItemKey) -> Option<ScreenItem> {
    message(st, st.messages.iter().find(|m| message_key(m) == *key)?)
}

/// The drawer of message `m` of the run.
fn message(st: &Loaded, m: &Message) -> Option<ScreenItem> {
    let (session, index) = (m.session, m.index);
    let sess = st.run.sessions.get(session as usize)?;
    let original_entry = sess
        .original
        .as_ref()
        .and_then(|o| o.entries.get(index as usize));
    let mut v = MessageParts {
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
                .map(|(i, a)| Attempt {
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
                    .map(|d| Attempt {
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
    Some(v.into_item())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of message `index` of session `session` (by position); a key no message has
    /// when there is none.
    fn key_at(st: &Loaded, session: u32, index: u32) -> ItemKey {
        st.messages
            .iter()
            .find(|m| m.session == session && m.index == index)
            .map_or_else(|| ItemKey::text("no such message"), message_key)
    }
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

    use crate::screen::testing::{card_value, cell, flat, tables};

    fn has_note(blocks: &[Block], key: &str) -> bool {
        flat(blocks)
            .iter()
            .any(|b| matches!(b, Block::Note { key: k, .. } if k == key))
    }

    fn items_of(st: &Loaded, filter: ScreenFilter, offset: u32, limit: u32) -> ScreenView {
        view(
            st,
            &ScreenQuery::Items {
                filter,
                offset,
                limit,
            },
        )
    }

    fn choose(name: &str, value: &str) -> ScreenFilter {
        ScreenFilter {
            choices: vec![(name.into(), value.into())],
            text: None,
        }
    }

    #[test]
    fn trace_overview_matches_the_sessions_summaries() {
        let st = state("ok/trace");
        let v = view(
            &st,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        assert!(!has_note(&v.blocks, "not-recorded"));
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
        let keys: Vec<&str> = flat(&v.blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Chart(c) => Some(c.key.as_str()),
                _ => None,
            })
            .collect();
        assert!(keys.contains(&"components") && keys.contains(&"recovery_funnel"));
        assert!(
            keys.iter()
                .filter(|k| k.starts_with("distribution_"))
                .count()
                >= 6
        );
        let names: Vec<&str> = tables(&v.blocks).iter().map(|t| t.key.as_str()).collect();
        assert_eq!(
            names,
            ["components", "recovery_funnel", "by_model", "by_session"]
        );
        // Score and count columns are numbers; names are not.
        let by_model = tables(&v.blocks)[2];
        assert_eq!(by_model.numeric.first(), Some(&false));
        assert!(
            by_model.numeric[1..].iter().all(|n| *n),
            "{:?}",
            by_model.numeric
        );
        assert_eq!(v.exports.len(), 4, "{:?}", v.exports);
        assert!(v.exports[0].0.ends_with("/metrics.json"));
        let (name, text) = export(&st, &v.exports[0].0).expect("exports");
        assert!(!name.contains('/'));
        assert!(text.contains("\"overall_score\""));
        assert!(export(&st, "nope.json").is_err());
    }

    #[test]
    fn items_filter_and_page() {
        let st = state("ok/trace");
        let all = items_of(&st, ScreenFilter::default(), 0, 0);
        assert_eq!((all.n_items, all.n_match, all.rows.len()), (8, 8, 8));
        assert_eq!(all.layout.filters[0].options, ["gpt-4", "llama-3.3-70b"]);
        assert_eq!(all.layout.columns.len(), all.rows[0].cells.len());
        assert_eq!(all.rows[0].cells[0], "1");
        let llama = items_of(&st, choose("model", "llama-3.3-70b"), 0, 0);
        assert_eq!(llama.n_match, 4);
        let cols = items_of(&st, choose("class", "column_error"), 0, 0);
        assert!(cols.n_match >= 1);
        assert!(cols.rows.iter().all(|r| r.cells[5] == "column_error"));
        let text = items_of(
            &st,
            ScreenFilter {
                choices: Vec::new(),
                text: Some("SALARY".into()),
            },
            0,
            0,
        );
        assert!(text.n_match >= 1);
        assert!(text
            .rows
            .iter()
            .all(|r| r.cells[3].to_lowercase().contains("salary")));
        let page = items_of(&st, ScreenFilter::default(), 6, 5);
        assert_eq!((page.offset, page.rows.len()), (6, 2));
        assert_eq!(page.rows[0].cells[0], "7");
        let past = items_of(&st, ScreenFilter::default(), 99, 5);
        assert!(past.rows.is_empty());
    }

    #[test]
    fn message_detail_has_code_attempts_and_details() {
        let st = state("ok/trace");
        // Session 0, message 2: fixed on the second attempt.
        let m = view(
            &st,
            &ScreenQuery::Item {
                key: key_at(&st, 0, 2),
            },
        )
        .item
        .expect("message");
        let all = flat(&m.blocks);
        let codes: Vec<&str> = all
            .iter()
            .filter_map(|b| match b {
                Block::Code { code, .. } => Some(code.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            codes.first(),
            Some(&"result = df[df['department']=='Engineering']['salary'].sum()")
        );
        assert!(all
            .iter()
            .any(|b| matches!(b, Block::Group { key, .. } if key == "first-code")));
        let attempts: Vec<(&Option<String>, bool)> = all
            .iter()
            .filter_map(|b| match b {
                Block::Group { key, title, ok, .. } if key == "attempt" => Some((title, *ok)),
                _ => None,
            })
            .collect();
        assert_eq!(attempts.len(), 2);
        assert!(attempts[1].1);
        assert!(all.iter().any(
            |b| matches!(b, Block::Note { text, .. } if text.starts_with("Error (column_error)"))
        ));
        assert!(all.iter().any(|b| matches!(b, Block::Facts(f) if f.iter().any(|(k, v)| k == "Scores" && v.starts_with("re-scored")))));
        let scores = tables(&m.blocks)[0];
        assert_eq!(scores.key, "message-scores");
        assert_eq!(scores.rows.len(), 7);
        let understanding = scores
            .rows
            .iter()
            .find(|r| r.key.as_deref() == Some("understanding"))
            .expect("understanding");
        assert!(understanding
            .cells
            .iter()
            .any(|c| cell(c).contains("extracted columns (code)")));
        assert!(view(
            &st,
            &ScreenQuery::Item {
                key: key_at(&st, 9, 0)
            }
        )
        .item
        .is_none());
    }

    #[test]
    fn chat_history_is_as_originally_scored_and_says_so() {
        let st = state("ok/chat_history");
        assert!(st.originals_only());
        let v = view(
            &st,
            &ScreenQuery::Overview {
                dark: true,
                choices: Vec::new(),
            },
        );
        assert!(has_note(&v.blocks, "not-recorded"));
        let t = tables(&v.blocks);
        let orig = t
            .iter()
            .find(|t| t.key == "original_vs_rescored")
            .expect("side by side");
        assert!(orig.head.iter().any(|h| h.starts_with("As written")));
        // The written summary and the recomputed one agree on this fixture.
        let overall = &orig.rows[0].cells;
        assert_eq!(overall.get(1), overall.get(2), "{overall:?}");
        let sum = st.scored.sessions[0]
            .original_summary
            .as_ref()
            .and_then(|s| s.summary.average_overall_score);
        assert_eq!(headline(&st), sum);
        let m = view(
            &st,
            &ScreenQuery::Item {
                key: key_at(&st, 0, 0),
            },
        )
        .item
        .expect("message");
        assert!(has_note(&m.blocks, "code-not-recorded"));
        assert!(!flat(&m.blocks)
            .iter()
            .any(|b| matches!(b, Block::Code { .. })));
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
        let v = view(
            &st,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        assert!(flat(&v.blocks)
            .iter()
            .any(|b| matches!(b, Block::Cards { cards, .. } if cards[0].3.ends_with("ise547"))));
    }
}
