//! Answer-correctness eval sets (tunix-rt): eval sets, predictions, scorecards.
//!
//! Pipeline for this family: [`sniff()`] each file → [`read_evalset_run`] lowers eval sets, the four
//! prediction shapes, eval summaries, training metrics and run manifests into [`EvalRun`] →
//! [`score::score_run`] applies `answer_correctness@v1` (or `@v1-extract`) and builds the
//! seed system's scorecard → [`dto`] writes `scorecard.json` / `predictions.jsonl` →
//! [`compare`] judges a scored run item by item for the one join ([`crate::compare::join`]).

pub mod compare;
pub mod dto;
pub mod meta;
pub mod model;
pub(crate) mod pyfloat;
pub mod read;
pub mod score;
pub mod sniff;
pub mod validate;
pub mod views;

pub use model::{
    EvalItem, EvalRun, EvalSummary, Prediction, RunManifest, SummaryEntry, SummarySection,
    TrainingMetricPoint,
};
pub use read::{read_eval_items, read_evalset_run, EvalItemsRead};
pub use score::{
    answers_match, compute_primary_score, compute_scorecard, extract_answer, extract_score,
    normalize_answer, score_run, AnswerScorer, ItemScore, ScoreRow, Scorecard, ScoredRun,
    ScoringOptions, Verdict,
};
pub use sniff::{sniff, EvalsetFileKind};
pub use validate::{validate_evalset, EvalsetValidateReport};

/// An eval-set run as the registry holds it: the run as read and its scoring.
#[derive(Debug, Clone, Copy)]
pub struct RunPair<'a> {
    pub run: &'a EvalRun,
    pub scored: &'a ScoredRun,
}

impl crate::family_run::FamilyRun for RunPair<'_> {
    fn profile(&self) -> String {
        self.scored.scorer.id().to_string()
    }

    fn size(&self) -> String {
        crate::family_run::count_of(self.scored.items.len(), "item", "items")
    }

    fn meta(&self) -> crate::run_meta::RunMeta {
        self.scored.meta.clone()
    }

    fn counts(&self) -> (usize, usize) {
        (0, self.scored.items.len())
    }

    fn headline_metrics(&self) -> &'static [crate::headline::Metric] {
        &score::HEADLINE
    }

    /// The primary score under the run's scorer (the mean of the scored items' scores), with
    /// its standard error: the scorecard's population deviation over `n` scores gives the
    /// sample one as `stddev / √(n − 1)`.
    fn headline(&self) -> crate::run_table::MetricValue {
        let s = self.scored;
        let mut m = crate::run_table::MetricValue::new(
            match s.scorer {
                AnswerScorer::V1 => "primary_score",
                AnswerScorer::V1Extract => "primary_score_extract",
            },
            &format!("Primary score ({})", s.scorer.id()),
            crate::run_table::Unit::Rate,
            s.scorecard.as_ref().and_then(|c| c.primary_score),
        );
        m.stderr = s.scorecard.as_ref().and_then(|c| {
            let sd = c.stddev?;
            (c.n_scored >= 2).then(|| crate::run_table::Stderr {
                value: sd / ((c.n_scored - 1) as f64).sqrt(),
                clustered_by_item: false,
            })
        });
        m
    }

    fn metrics(&self) -> Vec<crate::run_table::MetricValue> {
        compare::metrics(self.run, self.scored)
    }

    fn item_context(&self, out: &mut crate::compare::ItemContexts) {
        compare::item_context(self.run, self.scored, out)
    }

    fn query_fields(&self, docs: &mut crate::query::Docs<'_>) {
        compare::query_fields(self.scored, docs)
    }
}
