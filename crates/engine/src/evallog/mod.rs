//! Evaluation logs of other tools, read as those tools write them: Inspect AI (`.eval`
//! zip and `.json`), lm-evaluation-harness (`results_*.json` + `samples_*.jsonl`), promptfoo
//! (`-o x.json` / `.jsonl`), OpenAI Evals (record JSONL), HELM (a run folder). Registered as
//! [`crate::family::Family::EvalLog`] in [`crate::run`] ([`score`]: a log as one run, its items
//! judged by the headline score or re-scored; [`compare`]: pairing on the tool's item key).
//!
//! Pipeline:
//! 1. [`sniff()`]: each file's kind by content ([`sniff::EvalLogFileKind`]).
//! 2. [`read()`]: one run per log (an lm-eval results file with its samples files is one run,
//!    paired by content in [`lm_eval_pair`]; so is a HELM run folder);
//!    every file accounted for ([`crate::accounting`]); bad input is [`crate::diag::Diagnostic`]s,
//!    `Err` only when nothing is usable.
//!    - [`archive`]: a bounded zip reader (central directory, zip64, stored / deflate / zstd
//!      members, output capped by input size × ratio and an absolute cap) for `.eval` files;
//!    - [`eval_file`]: an `.eval` read through its central directory from any random-access
//!      source, a member at a time (a big `File` in the browser: the sample table from the
//!      summaries first, then every sample, a sample's member again when it is opened);
//!    - [`json`]: Python-written JSON (bare `NaN`/`Infinity` read as unscored), Inspect's
//!      `value_to_float`;
//!    - [`rows`]: a file of records as JSON lines or one JSON array, by content;
//!    - per format: [`inspect`], [`lm_eval`], [`promptfoo`], [`openai_evals`], [`helm`].
//! 3. [`model`]: the canonical run and samples (samples keyed as the tool keys them, every
//!    score as recorded plus its 0–1 reading) and the headline numbers, each recorded metric beside
//!    the same number recomputed from the samples the way the tool computes it
//!    ([`model::Headline`]: `recorded`, `recomputed`).
//! 4. [`score`]: the log as a run, its items judged as recorded (by the headline score) and, when
//!    the settings name one, by a re-scorer ([`rescore`]: `exact@v1`, `match@v1`, … re-run on
//!    each sample's output and targets), with the items whose verdict flips between the two; its
//!    samples billed under the price table ([`billing`]: tokens by price class as each tool
//!    counts them, cost beside the cost the tool recorded).
//!
//! Beside the pipeline, [`messages`] reads one sample's whole conversation when it is opened
//! (Inspect's `messages`: from one `.eval` member, a chunked sample's message chunks or a `.json`
//! log), so the item table never holds the conversations.

pub mod archive;
pub mod billing;
pub mod checks;
pub mod compare;
pub mod eval_file;
pub mod evalboard_rows;
pub mod helm;
pub mod inspect;
pub mod json;
pub mod leaves;
pub mod live;
pub mod live_archive;
pub mod lm_eval;
pub mod lm_eval_pair;
pub mod long_text;
pub mod messages;
pub mod model;
pub mod openai_evals;
pub mod promptfoo;
mod promptfoo_counts;
pub mod query;
pub mod read;
pub mod repeats;
pub mod rescore;
pub mod rows;
pub mod score;
pub mod sniff;
pub mod validate;
pub mod views;

pub use model::{
    EvalLogRun, Headline, HeadlineState, MetricKey, RecordedMetric, RecordedValue, Sample,
    SampleId, SampleKey, ScoreEntry, Tokens, Tool,
};
pub use read::{read, EvalLogRead};
pub use rescore::{EvalLogOptions, RescoreKind, Rescorer};
pub use score::{read_log, score_log, LoadedLog, ScoredLog};
pub use sniff::{sniff, EvalLogFileKind};

impl crate::family_run::FamilyRun for score::ScoredLog {
    fn profile(&self) -> String {
        match &self.rescored {
            Some(r) => r.id.clone(),
            None => "as-recorded".to_string(),
        }
    }

    fn size(&self) -> String {
        score::ScoredLog::size(self)
    }

    fn meta(&self) -> crate::run_meta::RunMeta {
        score::meta(&self.log)
    }

    fn counts(&self) -> (usize, usize) {
        (0, self.log.run.samples.len())
    }

    fn declared_items(&self) -> Option<u64> {
        self.log.run.declared_samples
    }

    fn lifecycle_status(&self) -> Option<String> {
        self.log.run.lifecycle_status().map(str::to_string)
    }

    fn headline_metrics(&self) -> &'static [crate::headline::Metric] {
        &score::HEADLINE
    }

    /// The headline score or, re-scored, the re-scored value, with what its CI is
    /// computed from ([`ScoredLog::headline_spread`]).
    fn headline(&self) -> crate::run_table::MetricValue {
        use crate::run_table::{MetricValue, Unit};
        let mut m = match &self.rescored {
            Some(r) => MetricValue::new(
                "rescored_score",
                &format!("Re-scored ({})", r.id),
                Unit::Score,
                self.headline_value(),
            ),
            None => MetricValue::new(
                "headline_score",
                &match &self.verdict_by {
                    Some(k) => format!("Headline score ({})", k.label()),
                    // No score names a headline (a log with no scorer): no empty "()".
                    None => "Headline score (none in the log)".to_string(),
                },
                Unit::Score,
                self.headline_value(),
            ),
        };
        (m.counts, m.stderr) = self.headline_spread(m.value, repeats::summary(self).as_ref());
        m
    }

    fn metrics(&self) -> Vec<crate::run_table::MetricValue> {
        compare::metrics(self)
    }

    fn item_context(&self, out: &mut crate::compare::ItemContexts) {
        compare::item_context(self, out)
    }

    fn unpriced_models(&self) -> Vec<String> {
        self.billing.unpriced_models.clone()
    }

    fn repeats(&self) -> Option<crate::repeats::RepeatSummary> {
        repeats::summary(self)
    }

    /// An lm-eval suite's tasks, each judged by its first recorded metric
    /// ([`ScoredLog::task_judges`]), that score recomputed as the task's headline.
    fn task_judges(&self) -> Vec<crate::run_table::TaskJudge> {
        self.task_judges()
            .into_iter()
            .map(|(task, key)| crate::run_table::TaskJudge {
                task,
                judge: key.label(),
                headline: self.score_headline(&key),
            })
            .collect()
    }

    /// Every score the log recorded that judges its samples (not a count, not a standard
    /// error), in the log's order, the run's own headline first ([`ScoredLog::judge_choices`]).
    fn judge_choices(&self) -> Vec<crate::run_table::JudgeChoice> {
        self.judge_choices()
    }

    fn query_fields(&self, docs: &mut crate::query::Docs<'_>) {
        query::query_fields(self, docs)
    }
}
