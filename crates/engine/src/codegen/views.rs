//! View models of a scored code-generation run for the dashboard and the report: one flat
//! [`Message`] per chat message (re-scored trace messages, else the `metrics.json` entries as
//! originally scored), the run-level summary, the six component means, the recovery funnel by
//! error class, and breakdowns by model and by session. Pure and deterministic.

use super::aggregate::{summarize, EntryScores, SummaryOptions};
use super::score::{classify_error, lower, ERROR_CLASSES};
use super::{CodegenConfig, CodegenRun, MetricsSummaryFile, Profile, ScoredRun};

/// The six component scores: key (as in `EntryScores` / the summary's `average_<key>_score`)
/// and label, in the order the overall score weighs them.
pub const COMPONENTS: [(&str, &str); 6] = [
    ("correctness", "Correctness"),
    ("quality", "Quality"),
    ("performance", "Performance"),
    ("understanding", "Prompt understanding"),
    ("coverage", "Requirement coverage"),
    ("recovery", "Error recovery"),
];

/// The six component scores of one entry, in [`COMPONENTS`] order.
pub fn component_scores(e: &EntryScores) -> [Option<f64>; 6] {
    [
        e.correctness_score,
        e.quality_score,
        e.performance_score,
        e.understanding_score,
        e.coverage_score,
        e.recovery_score,
    ]
}

/// The six component means of a summary, in [`COMPONENTS`] order.
pub fn component_means(s: &MetricsSummaryFile) -> [Option<f64>; 6] {
    let m = &s.summary;
    [
        m.average_correctness_score,
        m.average_quality_score,
        m.average_performance_score,
        m.average_understanding_score,
        m.average_coverage_score,
        m.average_recovery_score,
    ]
}

/// Where a message's scores come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A trace message, re-scored under the current settings.
    Rescored,
    /// A `metrics.json` entry as originally scored (no code was recorded).
    Original,
}

/// One chat message as the views list it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Index of the session in the run (and in the scored run), and of the message in it.
    pub session: u32,
    pub index: u32,
    pub session_id: String,
    pub source: Source,
    /// The file and 1-based line the message was read from.
    pub file: String,
    pub line: Option<u32>,
    pub model: String,
    pub question: String,
    pub scores: EntryScores,
    /// `executed`, the result type (`table`, `number`…), `recovered`, or `error: <message>`.
    pub outcome: String,
    /// The first execution failed (before any recovery).
    pub failed_first: bool,
    /// That failure's message, when recorded.
    pub first_error: Option<String>,
    /// Its class under the current profile ([`classify_error`]).
    pub error_class: Option<String>,
    /// Recovery attempts taken into account, and whether one of them fixed the error.
    pub attempts: u64,
    pub recovered: bool,
}

fn json_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// How a message ended: `recovered`, else what it ran to, else its error.
fn outcome(ran: Option<String>, recovered: bool, error: Option<&str>) -> String {
    match (recovered, ran) {
        (true, _) => "recovered".to_string(),
        (false, Some(r)) => r,
        (false, None) => format!("error: {}", error.unwrap_or("")),
    }
}

/// Every message of the run in session then message order: a session's re-scored trace
/// messages when it has any, else its original `metrics.json` entries.
pub fn messages(run: &CodegenRun, scored: &ScoredRun, cfg: &CodegenConfig) -> Vec<Message> {
    let mut out = Vec::new();
    for (si, (sess, ssess)) in run.sessions.iter().zip(&scored.sessions).enumerate() {
        let si = si as u32;
        if !ssess.entries.is_empty() {
            for (mi, (m, e)) in sess.messages.iter().zip(&ssess.entries).enumerate() {
                let data = m.data_file.as_deref().and_then(|p| run.data_file(p));
                let (inputs, _) = lower(m, data, cfg);
                let failed_first = m.execution_result.is_error();
                let first_error = failed_first
                    .then(|| m.execution_result.data.as_ref().and_then(json_text))
                    .flatten();
                let recovered = failed_first && inputs.recovery_attempts.iter().any(|a| a.success);
                let ran = (!failed_first).then(|| m.execution_result.kind.clone());
                let outcome = outcome(ran, recovered, first_error.as_deref());
                out.push(Message {
                    session: si,
                    index: mi as u32,
                    session_id: sess.session_id.clone(),
                    source: Source::Rescored,
                    file: m.file.clone(),
                    line: Some(m.line),
                    model: e.model.clone(),
                    question: e.question.clone(),
                    scores: EntryScores::from_entry(e),
                    outcome,
                    failed_first,
                    error_class: None,
                    first_error,
                    attempts: inputs.recovery_attempts.len() as u64,
                    recovered,
                });
            }
        } else if let Some(orig) = &sess.original {
            for (mi, e) in orig.entries.iter().enumerate() {
                let get = |path: &[&str]| path.iter().try_fold(&e.raw, |cur, k| cur.get(k));
                let s = &e.scores;
                let attempts = s.recovery_attempts_count;
                let failed_first = s.has_error || attempts > 0;
                let recovered = attempts > 0 && s.recovery_success;
                let first_error = get(&["error_recovery", "error_message"])
                    .and_then(json_text)
                    .or_else(|| get(&["code_correctness", "execution_error"]).and_then(json_text))
                    .filter(|_| failed_first);
                let ran = s.execution_success.then(|| "executed".to_string());
                let outcome = outcome(ran, recovered, first_error.as_deref());
                out.push(Message {
                    session: si,
                    index: mi as u32,
                    session_id: sess.session_id.clone(),
                    source: Source::Original,
                    file: orig.file.clone(),
                    line: Some(e.line),
                    model: s.model.clone().unwrap_or_else(|| "unknown".into()),
                    question: get(&["question"])
                        .and_then(|q| q.as_str())
                        .unwrap_or_default()
                        .to_string(),
                    scores: s.clone(),
                    outcome,
                    failed_first,
                    error_class: None,
                    first_error,
                    attempts,
                    recovered,
                });
            }
        }
    }
    for m in out.iter_mut().filter(|m| m.failed_first) {
        m.error_class = Some(classify_error(m.first_error.as_deref(), cfg.profile).to_string());
    }
    out
}

/// Errors, attempts and recoveries of one error class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunnelRow {
    pub class: String,
    /// Messages whose first execution failed with this class of error.
    pub errors: u64,
    /// Of those, messages with at least one recovery attempt.
    pub attempted: u64,
    /// Recovery attempts made for them.
    pub attempts: u64,
    /// Messages a recovery attempt fixed.
    pub recovered: u64,
}

/// The recovery funnel by error class: the seed's classes in their order, then any other class
/// (`unknown`) by name; classes without errors are left out.
pub fn funnel(msgs: &[Message]) -> Vec<FunnelRow> {
    let mut rows: Vec<FunnelRow> = Vec::new();
    for m in msgs.iter().filter(|m| m.failed_first) {
        let class = m.error_class.as_deref().unwrap_or("other_error");
        if !rows.iter().any(|r| r.class == class) {
            rows.push(FunnelRow {
                class: class.to_string(),
                ..FunnelRow::default()
            });
        }
        let Some(row) = rows.iter_mut().find(|r| r.class == class) else {
            continue;
        };
        row.errors += 1;
        row.attempted += u64::from(m.attempts > 0);
        row.attempts += m.attempts;
        row.recovered += u64::from(m.recovered);
    }
    let rank = |c: &str| {
        ERROR_CLASSES
            .iter()
            .position(|k| *k == c)
            .unwrap_or(usize::MAX)
    };
    rows.sort_by(|a, b| {
        rank(&a.class)
            .cmp(&rank(&b.class))
            .then_with(|| a.class.cmp(&b.class))
    });
    rows
}

/// The summary of a group of messages (a model, a session, the run).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub name: String,
    pub summary: MetricsSummaryFile,
}

fn summary_of<'a>(
    name: &str,
    msgs: impl Iterator<Item = &'a Message>,
    profile: Profile,
) -> MetricsSummaryFile {
    let scores: Vec<EntryScores> = msgs.map(|m| m.scores.clone()).collect();
    summarize(
        &scores,
        &SummaryOptions {
            session_id: name.to_string(),
            last_updated: None,
        },
        profile,
    )
}

/// The summary of every message, as `metrics_summary.json` computes it for one session.
pub fn run_summary(name: &str, msgs: &[Message], profile: Profile) -> MetricsSummaryFile {
    summary_of(name, msgs.iter(), profile)
}

/// Summaries by a key, groups in first-occurrence order.
fn groups_by(msgs: &[Message], profile: Profile, key: fn(&Message) -> &str) -> Vec<Group> {
    let mut names: Vec<&str> = Vec::new();
    for m in msgs {
        if !names.contains(&key(m)) {
            names.push(key(m));
        }
    }
    names
        .into_iter()
        .map(|n| Group {
            name: n.to_string(),
            summary: summary_of(n, msgs.iter().filter(|m| key(m) == n), profile),
        })
        .collect()
}

/// Summaries by model, in first-occurrence order.
pub fn by_model(msgs: &[Message], profile: Profile) -> Vec<Group> {
    groups_by(msgs, profile, |m| &m.model)
}

/// Summaries by session, in session order.
pub fn by_session(msgs: &[Message], profile: Profile) -> Vec<Group> {
    groups_by(msgs, profile, |m| &m.session_id)
}

/// Summaries of every original `metrics.json` entry and of every re-scored trace message of the
/// run (also those of sessions that have both), for "as originally scored vs re-scored".
pub fn original_and_rescored(
    run: &CodegenRun,
    scored: &ScoredRun,
    profile: Profile,
) -> (Option<MetricsSummaryFile>, Option<MetricsSummaryFile>) {
    let originals: Vec<EntryScores> = run
        .sessions
        .iter()
        .filter_map(|s| s.original.as_ref())
        .flat_map(|o| o.entries.iter().map(|e| e.scores.clone()))
        .collect();
    let rescored: Vec<EntryScores> = scored
        .sessions
        .iter()
        .flat_map(|s| s.entries.iter().map(EntryScores::from_entry))
        .collect();
    let has_original = run.sessions.iter().any(|s| s.original.is_some());
    let sum = |xs: &[EntryScores]| {
        summarize(
            xs,
            &SummaryOptions {
                session_id: run.name.clone(),
                last_updated: None,
            },
            profile,
        )
    };
    (
        has_original.then(|| sum(&originals)),
        (!rescored.is_empty()).then(|| sum(&rescored)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::read_codegen_run;
    use crate::InputFile;

    fn trace_line(q: &str, result: &str, attempts: &str) -> String {
        format!(
            r#"{{"session_id":"s1","model":"m","question":"{q}","code":"result = df['a'].sum()","execution_result":{result},"recovery_attempts":{attempts}}}"#
        )
    }

    fn check_funnel(msgs: &[Message], want: &[(&str, u64, u64, u64, u64)]) {
        let got: Vec<(String, u64, u64, u64, u64)> = funnel(msgs)
            .into_iter()
            .map(|r| (r.class, r.errors, r.attempted, r.attempts, r.recovered))
            .collect();
        let want: Vec<(String, u64, u64, u64, u64)> = want
            .iter()
            .map(|(c, a, b, d, e)| (c.to_string(), *a, *b, *d, *e))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn messages_summary_and_funnel_of_a_trace() {
        let lines = [
            trace_line("sum a", r#"{"type":"number","data":3}"#, "[]"),
            trace_line(
                "sum b",
                r#"{"type":"error","data":"KeyError: 'b'"}"#,
                r#"[{"attempt_number":1,"code":"x = 1","error":"KeyError: 'c'","success":false},{"attempt_number":2,"code":"x = 2","error":null,"success":true}]"#,
            ),
            trace_line("sum c", r#"{"type":"error","data":"TypeError: bad"}"#, "[]"),
        ];
        let files = [InputFile::new("t.jsonl", lines.join("\n"))];
        let run = read_codegen_run("r", &files);
        for profile in [Profile::DocV1, Profile::Ise547] {
            let cfg = CodegenConfig {
                profile,
                ..CodegenConfig::default()
            };
            let scored = run.score(&cfg);
            let msgs = messages(&run, &scored, &cfg);
            assert_eq!(msgs.len(), 3);
            assert_eq!(msgs[0].outcome, "number");
            assert_eq!(msgs[1].outcome, "recovered");
            assert_eq!((msgs[1].attempts, msgs[1].recovered), (2, true));
            assert_eq!(msgs[2].outcome, "error: TypeError: bad");
            assert_eq!(msgs[1].line, Some(2));
            check_funnel(
                &msgs,
                &[("column_error", 1, 1, 2, 1), ("type_error", 1, 0, 0, 0)],
            );
            let s = run_summary("r", &msgs, profile);
            // The run summary is the session's metrics_summary.json (one session here).
            assert_eq!(
                Some(&s.summary),
                scored.sessions[0].summary.as_ref().map(|x| &x.summary)
            );
            assert_eq!(by_model(&msgs, profile).len(), 1);
            assert_eq!(by_session(&msgs, profile)[0].name, "s1");
            let (orig, re) = original_and_rescored(&run, &scored, profile);
            assert!(orig.is_none());
            assert_eq!(re.map(|r| r.total_entries), Some(3));
        }
    }

    #[test]
    fn original_entries_are_listed_as_originally_scored() {
        let metrics = r#"[
            {"model":"gpt-4","question":"q1","overall_score":0.8,"code_correctness":{"execution_success":true},"error_recovery":{"has_error":false,"recovery_success":true,"recovery_attempts_count":0}},
            {"model":"gpt-4","question":"q2","overall_score":0.6,"code_correctness":{"execution_success":true,"execution_error":null},"error_recovery":{"has_error":false,"error_message":null,"recovery_success":true,"recovery_attempts_count":1}},
            {"question":"q3","overall_score":0.2,"code_correctness":{"execution_success":false,"execution_error":"KeyError: 'x'"},"error_recovery":{"has_error":true,"error_message":"KeyError: 'x'","recovery_success":false,"recovery_attempts_count":2}}
        ]"#;
        let files = [InputFile::new("chat_history/abc/metrics.json", metrics)];
        let run = read_codegen_run("r", &files);
        let cfg = CodegenConfig::default();
        let scored = run.score(&cfg);
        let msgs = messages(&run, &scored, &cfg);
        let got: Vec<(&str, &str, Source, bool)> = msgs
            .iter()
            .map(|m| {
                (
                    m.question.as_str(),
                    m.outcome.as_str(),
                    m.source,
                    m.failed_first,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("q1", "executed", Source::Original, false),
                ("q2", "recovered", Source::Original, true),
                ("q3", "error: KeyError: 'x'", Source::Original, true),
            ]
        );
        assert_eq!(msgs[2].model, "unknown");
        assert_eq!(msgs[0].session_id, "abc");
        // A recovered original recorded no error message: its class is unknown to us.
        check_funnel(
            &msgs,
            &[("column_error", 1, 1, 2, 0), ("other_error", 1, 1, 1, 1)],
        );
        let (orig, re) = original_and_rescored(&run, &scored, cfg.profile);
        assert_eq!(orig.map(|o| o.total_entries), Some(3));
        assert!(re.is_none());
        let s = run_summary("r", &msgs, cfg.profile);
        assert_eq!(
            Some(&s.summary),
            scored.sessions[0]
                .original_summary
                .as_ref()
                .map(|x| &x.summary)
        );
    }
}
