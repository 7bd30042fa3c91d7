//! The canonical model every evaluation tool's log is lowered into (FORMATS.md §6, "mapping to one
//! item table"): a run (what the log says about itself, the metrics it recorded, the headline
//! numbers recomputed from its samples) and its samples keyed as the tool keys them. Plain serde
//! types only (no `flatten`, `untagged`, `serde_json::Value`): the dashboard sends them through
//! postcard. Free-form JSON (configs, metadata) is kept as compact JSON text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The tool that wrote a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    InspectAi,
    LmEvaluationHarness,
    Promptfoo,
    OpenaiEvals,
    Helm,
    /// evalboard's own run rows: a run read from a lake, or exported from a view.
    Evalboard,
}

impl Tool {
    pub fn label(&self) -> &'static str {
        match self {
            Tool::InspectAi => "Inspect AI",
            Tool::LmEvaluationHarness => "lm-evaluation-harness",
            Tool::Promptfoo => "promptfoo",
            Tool::OpenaiEvals => "OpenAI Evals",
            Tool::Helm => "HELM",
            Tool::Evalboard => "evalboard",
        }
    }
}

/// One evaluation run as another tool logged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalLogRun {
    pub tool: Tool,
    /// The writer's version (`eval.packages.inspect_ai`, `lm_eval_version`, …) when recorded.
    pub tool_version: Option<String>,
    /// The log's own format version (Inspect `version`), when it has one.
    pub format_version: Option<i64>,
    /// How many samples the log's header says it holds (Inspect `results.total_samples`: samples
    /// × epochs), when it says.
    pub declared_samples: Option<u64>,
    /// The input files this run was read from (relative paths).
    pub files: Vec<String>,
    /// The tool's run status (`success`, `started`, `error`, …) when recorded.
    pub status: Option<String>,
    pub task: Option<String>,
    pub task_version: Option<String>,
    pub model: Option<String>,
    pub dataset: Option<String>,
    /// The run's identity (Inspect `eval_id`, promptfoo `evalId`, OpenAI Evals `run_id`).
    pub eval_id: Option<String>,
    /// The invocation that produced it (Inspect `run_id`), when different from `eval_id`.
    pub run_id: Option<String>,
    /// Creation time as the tool wrote it (ISO-8601 or the tool's own spelling).
    pub created: Option<String>,
    /// Run configuration as compact JSON text, by section (`eval.config`, `generate`, `plan`, …).
    pub config: BTreeMap<String, String>,
    /// The metrics the log itself recorded.
    pub recorded: Vec<RecordedMetric>,
    /// Headline numbers: each recorded metric beside the same number recomputed from the samples.
    pub headlines: Vec<Headline>,
    /// The metric the tool names as its headline (Inspect `results.headline`, else the first score).
    pub primary: Option<MetricKey>,
    pub samples: Vec<Sample>,
}

/// Which aggregate a metric is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MetricKey {
    /// The slice the metric is computed over: the lm-eval task, the promptfoo prompt column;
    /// empty when the log has one (Inspect, OpenAI Evals).
    pub group: String,
    /// The scorer (Inspect scorer, or its dict key as Inspect names the score), lm-eval metric.
    pub scorer: String,
    /// Inspect's epoch reducer (`mean`, `max`, …), lm-eval's filter (`strict-match`, `none`).
    pub variant: Option<String>,
    /// The metric's name (`accuracy`, `stderr`, `mean`, `acc`, `pass_rate`, …); empty in
    /// evalboard's run rows, whose scores are named by their scorer alone.
    pub metric: String,
}

impl MetricKey {
    /// Whether the metric counts things (samples, requests, tokens, milliseconds) rather than
    /// scores them: promptfoo's `stats` and column `metrics`, OpenAI Evals' `usage_*` sums. Shown
    /// as a whole number when it is one.
    pub fn is_count(&self) -> bool {
        matches!(self.scorer.as_str(), "stats" | "metrics" | "sampling")
    }

    /// `group/scorer[variant]/metric`, for messages and test output.
    pub fn label(&self) -> String {
        let mut s = String::new();
        if !self.group.is_empty() {
            s.push_str(&self.group);
            s.push('/');
        }
        s.push_str(&self.scorer);
        if let Some(v) = &self.variant {
            s.push('[');
            s.push_str(v);
            s.push(']');
        }
        // evalboard's rows name a score by its scorer alone (no metric).
        if !self.metric.is_empty() {
            s.push('/');
            s.push_str(&self.metric);
        }
        s
    }
}

/// A metric as the log recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedMetric {
    pub key: MetricKey,
    /// `None` when recorded as null, NaN, infinite or a non-number (`"N/A"`).
    pub value: Option<f64>,
    /// The standard error recorded beside it, when the tool records one.
    pub stderr: Option<f64>,
}

/// A headline number: what the log recorded and what the samples give when recomputed the way
/// the tool computes it. A consumer shows both and warns when they differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    pub key: MetricKey,
    pub recorded: Option<f64>,
    pub recomputed: Option<f64>,
    /// Samples (or reduced items) the recomputation used.
    pub n: u64,
    /// Why it was not recomputed, or a known quirk of the tool's own computation.
    pub note: Option<String>,
}

/// Why a recorded number has no recomputed one when its reader gave no reason.
pub const NOT_RECOMPUTED: &str = "not recomputed: no sample gives it";

/// How a headline's recorded number stands against the recomputed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadlineState {
    /// Both present, within the tolerance.
    Agrees,
    /// Both present, further apart than the tolerance: a real disagreement.
    Disagrees,
    /// Recorded, but not recomputed (no samples for it, an unsupported reducer or aggregation, a
    /// corpus-level metric): the note says why. Never a disagreement.
    NotRecomputed,
    /// Recomputed only: the log did not record it (or recorded it as null/NaN/text).
    NotRecorded,
}

impl HeadlineState {
    /// As `score --json` spells it (`scores[].state`).
    pub fn label(&self) -> &'static str {
        match self {
            HeadlineState::Agrees => "agrees",
            HeadlineState::Disagrees => "disagrees",
            HeadlineState::NotRecomputed => "not recomputed",
            HeadlineState::NotRecorded => "not recorded",
        }
    }
}

impl Headline {
    /// Both present and within `tol` of each other (or both absent).
    pub fn agrees(&self, tol: f64) -> bool {
        match (self.recorded, self.recomputed) {
            (Some(a), Some(b)) => (a - b).abs() <= tol,
            (None, None) => true,
            _ => false,
        }
    }

    /// Both present and more than `tol` apart (a NaN on either side is apart): the one case that
    /// is a mismatch.
    pub fn disagrees(&self, tol: f64) -> bool {
        match (self.recorded, self.recomputed) {
            (Some(a), Some(b)) => {
                let d = (a - b).abs();
                d.is_nan() || d > tol
            }
            _ => false,
        }
    }

    /// Where the recorded number stands against the recomputed one.
    pub fn state(&self, tol: f64) -> HeadlineState {
        match (self.recorded, self.recomputed) {
            (Some(_), None) => HeadlineState::NotRecomputed,
            (None, _) => HeadlineState::NotRecorded,
            (Some(_), Some(_)) if self.disagrees(tol) => HeadlineState::Disagrees,
            (Some(_), Some(_)) => HeadlineState::Agrees,
        }
    }

    /// Why it was not recomputed: its note, else [`NOT_RECOMPUTED`]; `None` when it was.
    pub fn not_recomputed_reason(&self) -> Option<&str> {
        self.recomputed
            .is_none()
            .then(|| self.note.as_deref().unwrap_or(NOT_RECOMPUTED))
    }
}

impl EvalLogRun {
    /// The run's status when it says the run did not finish, so its samples may be incomplete:
    /// Inspect's `started`, `cancelled` or `error`; an OpenAI Evals file without its
    /// `final_report`; a HELM run folder without its stats. `None` for a finished run (a
    /// promptfoo export with provider errors is finished: its errors are counted on their own).
    pub fn unfinished_status(&self) -> Option<&str> {
        let st = self.status.as_deref()?;
        let finished = match self.tool {
            Tool::InspectAi => st == "success",
            Tool::OpenaiEvals | Tool::Helm | Tool::LmEvaluationHarness => st == "complete",
            Tool::Promptfoo => true,
            // The exported run's status (`scored`) says it was read whole.
            Tool::Evalboard => st == "scored",
        };
        (!finished).then_some(st)
    }

    /// The status the log records of the run's lifecycle: Inspect's (`started`, `success`,
    /// `error`, `cancelled`), OpenAI Evals' (`complete` with its final report, `no
    /// final_report` before). `None` for the other tools, whose status says how the log was
    /// read (a HELM folder's files, a promptfoo export's provider errors), not where the run is.
    pub fn lifecycle_status(&self) -> Option<&str> {
        match self.tool {
            Tool::InspectAi | Tool::OpenaiEvals => self.status.as_deref(),
            _ => None,
        }
    }

    /// Gives every recorded number that was not recomputed a reason (its reader's note, else
    /// [`NOT_RECOMPUTED`]); a run with no samples says so in each.
    pub fn explain_not_recomputed(&mut self) {
        let no_samples = self.samples.is_empty();
        for h in self
            .headlines
            .iter_mut()
            .filter(|h| h.recorded.is_some() && h.recomputed.is_none())
        {
            if no_samples {
                h.note = Some(match h.note.take() {
                    Some(n) if n.contains("no sample") => n,
                    Some(n) => format!("no samples read; {n}"),
                    None => "no samples read: nothing to recompute it from".into(),
                });
            } else if h.note.is_none() {
                h.note = Some(NOT_RECOMPUTED.into());
            }
        }
    }
}

/// A sample's identity, as the tool keys it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SampleKey {
    /// Inspect: `(sample id, epoch)`; ids are `int | str` and `1` ≠ `"1"`.
    Inspect { id: SampleId, epoch: u32 },
    /// lm-evaluation-harness: one row per (task, doc, filter).
    LmEval {
        task: String,
        doc_id: i64,
        filter: String,
    },
    /// promptfoo: the test (description + vars as JSON), the prompt's label (the column label
    /// when two columns share it), the repeat (0-based).
    Promptfoo {
        test: String,
        prompt: String,
        repeat: u32,
    },
    /// OpenAI Evals: `<base>.<split>.<row index>`.
    OpenaiEvals { sample_id: String },
    /// HELM: instance, perturbation, train trial.
    Helm {
        instance: String,
        perturbation: Option<String>,
        trial: u32,
    },
    /// evalboard's run rows: the item key's parts as the run's own family keyed it.
    Evalboard { parts: Vec<String> },
}

/// An Inspect sample id: an int and a string are different ids.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SampleId {
    Int(i64),
    Str(String),
}

impl SampleId {
    /// Inspect's sort key (`sort_samples`): ints zero-filled to 20 characters, so they sort before
    /// strings.
    pub fn sort_key(&self) -> String {
        match self {
            SampleId::Int(i) => format!("{i:020}"),
            SampleId::Str(s) => s.clone(),
        }
    }
    pub fn label(&self) -> String {
        match self {
            SampleId::Int(i) => i.to_string(),
            SampleId::Str(s) => s.clone(),
        }
    }
}

/// A score value exactly as recorded (letters, bools, numbers, strings, lists).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RecordedValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A bare `NaN`, `Infinity` or `-Infinity` token (Inspect's "unscored" is `NaN`).
    NonFinite(String),
    List(Vec<RecordedValue>),
}

/// One scorer's verdict on one sample (a dict-valued scorer gives one entry per key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreEntry {
    /// The scorer's name (the key in Inspect's `sample.scores`, lm-eval's metric, promptfoo's
    /// `pass`/`score`/named metric).
    pub scorer: String,
    /// The dict key for dict-valued scores (Inspect names the aggregate score after it).
    pub key: Option<String>,
    pub value: RecordedValue,
    /// The 0–1 reading by the tool's own mapping (Inspect `value_to_float`); `None` = unscored
    /// (NaN, null), never 0.
    pub reading: Option<f64>,
    pub answer: Option<String>,
    pub explanation: Option<String>,
}

impl ScoreEntry {
    /// The name the tool aggregates this entry under (the dict key, else the scorer).
    pub fn score_name(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.scorer)
    }
}

/// Token counts of one sample as the tool records them (all models of the sample, graders
/// included, when the tool does not separate them). What each count includes differs by tool
/// (Inspect's `input_tokens` leaves cache reads out, OpenAI's `prompt_tokens` keeps them in):
/// [`super::billing::split`] reads them into price classes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub total: Option<u64>,
    pub reasoning: Option<u64>,
    /// Input read from the provider's prompt cache.
    pub cache_read: Option<u64>,
    /// Input written to the provider's prompt cache.
    pub cache_write: Option<u64>,
    /// Tokens of a response the tool replayed from its own response cache (promptfoo's
    /// `cached`): no request was made for them.
    #[serde(default)]
    pub replayed: Option<u64>,
}

/// One sample (item) of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub key: SampleKey,
    pub input: Option<String>,
    /// Target(s): one string, or several (Inspect lists, OpenAI Evals expected lists).
    pub target: Vec<String>,
    pub output: Option<String>,
    pub scores: Vec<ScoreEntry>,
    pub tokens: Tokens,
    /// Dollars, when the tool priced it; `None` = unpriced, not 0.
    pub cost: Option<f64>,
    /// Seconds.
    pub latency: Option<f64>,
    pub error: Option<String>,
    /// Sample metadata as compact JSON text per key.
    pub metadata: BTreeMap<String, String>,
    /// Where it was read from: the file, and the archive member or line.
    pub source: String,
    /// The tool's per-assertion results (promptfoo's `componentResults`), bounded; empty for
    /// the other tools.
    #[serde(default)]
    pub checks: Checks,
}

/// A sample's per-assertion results, in the tool's order (an assertion set's own results follow
/// it, one level deeper), at most [`super::checks::MAX_CHECKS`]; `more` counts the ones not kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Checks {
    pub list: Vec<Check>,
    pub more: u64,
}

/// One assertion's result as the tool recorded it (texts cut at
/// [`super::checks::MAX_CHECK_TEXT`] characters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// 0 for an assertion of the test, 1 for one inside an assertion set, and so on.
    pub depth: u32,
    /// Its type (`contains`, `llm-rubric`, `assert-set`, …; `(none)` when not recorded).
    pub kind: String,
    /// Its value (a string as written, anything else as compact JSON; else its threshold).
    pub value: Option<String>,
    /// `None` when the tool recorded no boolean.
    pub pass: Option<bool>,
    pub score: Option<f64>,
    pub reason: Option<String>,
}
