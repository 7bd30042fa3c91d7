//! Code-generation runs (ISE547): reading, re-scoring, metrics.json/metrics_summary.json.
//!
//! Pipeline: run folder files → [`read_codegen_run`] ([`CodegenRun`]: sessions with the
//! originally scored `metrics.json` entries, and re-scorable trace messages) →
//! [`CodegenRun::score`] under a [`CodegenConfig`] (profile `doc-v1` or `ise547`) → output DTOs
//! ([`MetricsEntry`], [`MetricsSummaryFile`]) with the seed system's key names.
//!
//! Originally scored entries are shown as they were and aggregated, never re-scored (they hold
//! no code). See docs/codegen.md for the trace format and the doc-v1 / ise547 divergences.

pub mod aggregate;
pub mod compare;
pub mod dto;
pub mod model;
pub mod nesting;
// Transitional: the old name of [`compare`] until every consumer uses the new one.
pub mod patterns;
pub mod pyre;
pub mod pystr;
pub mod read;
pub mod score;
pub mod sniff;
pub mod syntax;
pub mod views;

use serde::{Deserialize, Serialize};

pub use aggregate::{summarize, EntryScores, SummaryOptions};
pub use dto::{MetricsEntry, MetricsSummaryFile, Summary};
pub use model::{CodegenMessage, DataFile, EvalInputs, ExecutionResult, RecoveryAttempt, Tokens};
pub use read::{file_reports, read_codegen_run};
pub use score::{
    calculate_evaluation_metrics, classify_error, lower, CodegenConfig, Profile, Weights,
};
pub use sniff::{sniff, CodegenFileKind};
pub use syntax::{check_syntax, SyntaxValidity, PARSER_AVAILABLE};

use crate::accounting::InputFileReport;
use crate::Diagnostic;

/// A code-generation run as every consumer keeps it: read once, scored under `cfg`, with its
/// files' accounting and its messages (re-scored trace messages, else the `metrics.json`
/// entries as originally scored).
#[derive(Debug, Clone)]
pub struct Loaded {
    pub run: CodegenRun,
    pub cfg: CodegenConfig,
    pub scored: ScoredRun,
    pub files: Vec<InputFileReport>,
    pub messages: Vec<views::Message>,
}

impl Loaded {
    /// Scores `run` under `cfg`.
    pub fn new(run: CodegenRun, files: Vec<InputFileReport>, cfg: &CodegenConfig) -> Loaded {
        let (scored, messages) = run.score_with_messages(cfg);
        Loaded {
            run,
            cfg: *cfg,
            scored,
            files,
            messages,
        }
    }

    /// Scores again under new settings.
    pub fn rescore(&mut self, cfg: &CodegenConfig) {
        self.cfg = *cfg;
        (self.scored, self.messages) = self.run.score_with_messages(cfg);
    }

    /// The summary of every message (re-scored where possible, else as originally scored).
    pub fn summary(&self) -> MetricsSummaryFile {
        match &self.scored.summary {
            Some(s) => s.clone(),
            None => views::run_summary(&self.run.name, &self.messages, self.cfg.profile),
        }
    }

    /// Nothing in the run can be re-scored (chat_history folders).
    pub fn originals_only(&self) -> bool {
        self.messages
            .iter()
            .all(|m| m.source == views::Source::Original)
    }
}

/// A code-generation run folder, read.
#[derive(Debug, Clone, PartialEq)]
pub struct CodegenRun {
    pub name: String,
    /// Sorted by session id.
    pub sessions: Vec<CodegenSession>,
    /// The folder's CSVs, by path.
    pub data_files: Vec<DataFile>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One chat session: what the seed system wrote for it and/or trace messages to score.
#[derive(Debug, Clone, PartialEq)]
pub struct CodegenSession {
    pub session_id: String,
    /// `metrics.json` as originally scored.
    pub original: Option<OriginalMetrics>,
    /// `metrics_summary.json` as originally written.
    pub original_summary: Option<OriginalSummary>,
    /// Trace messages, in file then line order.
    pub messages: Vec<CodegenMessage>,
}

/// A `metrics.json` as written by the seed system.
#[derive(Debug, Clone, PartialEq)]
pub struct OriginalMetrics {
    pub file: String,
    pub entries: Vec<OriginalEntry>,
}

/// One original entry: the JSON as written, what the summary reads from it, and the typed DTO
/// when the entry has the full shape.
#[derive(Debug, Clone, PartialEq)]
pub struct OriginalEntry {
    pub index: usize,
    pub line: u32,
    pub raw: serde_json::Value,
    pub scores: EntryScores,
    pub typed: Option<MetricsEntry>,
}

/// A `metrics_summary.json` as written by the seed system.
#[derive(Debug, Clone, PartialEq)]
pub struct OriginalSummary {
    pub file: String,
    pub raw: serde_json::Value,
    pub typed: Option<MetricsSummaryFile>,
}

/// A scored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredRun {
    pub name: String,
    pub profile: Profile,
    pub sessions: Vec<ScoredSession>,
    pub diagnostics: Vec<Diagnostic>,
    /// The run-level summary, as the dashboard shows it: [`views::run_summary`] over every
    /// message of the run ([`views::messages`]: each session's re-scored trace messages, else
    /// its `metrics.json` entries as originally scored). `None` when the run has no message.
    pub summary: Option<MetricsSummaryFile>,
}

/// One session, scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredSession {
    pub session_id: String,
    /// Re-scored trace messages (the `metrics.json` this profile writes), in message order.
    pub entries: Vec<MetricsEntry>,
    /// Summary of `entries`; `None` when the session has no trace messages.
    pub summary: Option<MetricsSummaryFile>,
    /// Summary of the originally scored `metrics.json` entries, recomputed under this
    /// profile's summary rules; `None` without a `metrics.json`.
    pub original_summary: Option<MetricsSummaryFile>,
}

impl CodegenRun {
    /// The run holds something to show: a trace message, an original `metrics.json` entry or
    /// an original summary.
    pub fn is_usable(&self) -> bool {
        self.sessions.iter().any(|s| {
            !s.messages.is_empty()
                || s.original_summary.is_some()
                || s.original.as_ref().is_some_and(|o| !o.entries.is_empty())
        })
    }

    pub fn data_file(&self, path: &str) -> Option<&DataFile> {
        self.data_files.iter().find(|d| d.path == path)
    }

    /// Scores every trace message and summarizes every session. Reading diagnostics are carried
    /// over; scoring adds its own (attempts dropped, original summary disagreeing with its
    /// entries).
    pub fn score(&self, cfg: &CodegenConfig) -> ScoredRun {
        self.score_with_messages(cfg).0
    }

    /// [`CodegenRun::score`], with the run's messages ([`views::messages`]) that the run-level
    /// summary is computed from, for a caller that keeps them ([`Loaded`]).
    pub fn score_with_messages(&self, cfg: &CodegenConfig) -> (ScoredRun, Vec<views::Message>) {
        let mut diagnostics = self.diagnostics.clone();
        if let Err(e) = cfg.validate() {
            diagnostics.push(Diagnostic::error(&self.name, None, e));
        }
        let mut sessions = Vec::new();
        for s in &self.sessions {
            let mut entries = Vec::new();
            for m in &s.messages {
                let data = m.data_file.as_deref().and_then(|p| self.data_file(p));
                let (inputs, diags) = lower(m, data, cfg);
                diagnostics.extend(diags);
                entries.push(calculate_evaluation_metrics(&inputs, cfg));
            }
            let summary = (!entries.is_empty()).then(|| {
                let scores: Vec<EntryScores> =
                    entries.iter().map(EntryScores::from_entry).collect();
                summarize(
                    &scores,
                    &SummaryOptions {
                        session_id: s.session_id.clone(),
                        last_updated: None,
                    },
                    cfg.profile,
                )
            });
            let original_summary = s.original.as_ref().map(|o| {
                let scores: Vec<EntryScores> = o.entries.iter().map(|e| e.scores.clone()).collect();
                let last_updated = s
                    .original_summary
                    .as_ref()
                    .and_then(|os| os.raw.get("last_updated"))
                    .and_then(|v| v.as_str())
                    .map(str::to_string);
                summarize(
                    &scores,
                    &SummaryOptions {
                        session_id: s.session_id.clone(),
                        last_updated,
                    },
                    cfg.profile,
                )
            });
            if cfg.profile == Profile::Ise547 {
                if let (Some(recomputed), Some(written)) = (&original_summary, &s.original_summary)
                {
                    diagnostics.extend(compare_summaries(recomputed, written));
                }
            }
            sessions.push(ScoredSession {
                session_id: s.session_id.clone(),
                entries,
                summary,
                original_summary,
            });
        }
        let mut scored = ScoredRun {
            name: self.name.clone(),
            profile: cfg.profile,
            sessions,
            diagnostics,
            summary: None,
        };
        let messages = views::messages(self, &scored, cfg);
        if !messages.is_empty() {
            scored.summary = Some(views::run_summary(&self.name, &messages, cfg.profile));
        }
        (scored, messages)
    }
}

/// Keys of the written `summary` that disagree with the summary recomputed from the entries
/// (ise547 rules). Floats compare exactly; the two distributions and `models_used` compare as
/// sets, since the seed system wrote them in Python set order.
pub fn compare_summaries(
    recomputed: &MetricsSummaryFile,
    written: &OriginalSummary,
) -> Vec<Diagnostic> {
    let Some(written_summary) = written.raw.get("summary").and_then(|s| s.as_object()) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(ours)) = serde_json::to_value(&recomputed.summary) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, theirs) in written_summary {
        let Some(mine) = ours.get(key) else { continue };
        let same = match (mine, theirs) {
            (serde_json::Value::Array(a), serde_json::Value::Array(b)) => {
                a.len() == b.len() && a.iter().all(|x| b.contains(x))
            }
            (serde_json::Value::Number(a), serde_json::Value::Number(b)) => {
                a.as_f64() == b.as_f64()
            }
            (a, b) => a == b,
        };
        if !same {
            out.push(Diagnostic::warning(
                &written.file,
                None,
                format!("summary.{key} is {theirs} but its metrics.json entries give {mine}"),
            ));
        }
    }
    out
}

impl crate::family_run::FamilyRun for Loaded {
    fn profile(&self) -> String {
        self.scored.profile.name().to_string()
    }

    fn size(&self) -> String {
        use crate::family_run::count_of;
        format!(
            "{}, {}",
            count_of(self.scored.sessions.len(), "session", "sessions"),
            count_of(
                self.scored.sessions.iter().map(|x| x.entries.len()).sum(),
                "message",
                "messages"
            )
        )
    }

    fn meta(&self) -> crate::run_meta::RunMeta {
        crate::run_meta::RunMeta::default()
    }

    fn counts(&self) -> (usize, usize) {
        (self.run.sessions.len(), self.messages.len())
    }

    fn headline_metrics(&self) -> &'static [crate::headline::Metric] {
        &aggregate::HEADLINE
    }

    /// The mean overall score.
    fn headline(&self) -> crate::run_table::MetricValue {
        crate::run_table::MetricValue::new(
            "average_overall_score",
            "Mean overall score (0–1 as %)",
            crate::run_table::Unit::Rate,
            self.summary().summary.average_overall_score,
        )
    }

    fn metrics(&self) -> Vec<crate::run_table::MetricValue> {
        compare::metrics(self)
    }

    fn item_context(&self, out: &mut crate::compare::ItemContexts) {
        compare::item_context(self, out)
    }

    fn query_fields(&self, docs: &mut crate::query::Docs<'_>) {
        compare::query_fields(self, docs)
    }
}
