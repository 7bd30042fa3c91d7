//! Answer-correctness eval sets (tunix-rt): eval sets, predictions, scorecards.
//!
//! Pipeline for this family: [`sniff()`] each file → [`read_evalset_run`] lowers eval sets, the four
//! prediction shapes, eval summaries, training metrics and run manifests into [`EvalRun`] →
//! [`score::score_run`] applies `answer_correctness@v1` (or `@v1-extract`) and builds the
//! seed system's scorecard → [`dto`] writes `scorecard.json` / `predictions.jsonl` →
//! [`compare::compare_runs`] pairs two scored runs item by item for [`crate::compare`].

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

pub use self::compare::compare_runs;
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
