//! The eval-set views the dashboard and the report show: the scorecard with its group means,
//! every item with its prompt, what `@v1-extract` compared, the items on which the two answer
//! scorers disagree, and `evalboard validate` of every eval-set file.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

pub use super::model::ValidationDto;
use super::score::{score_run, AnswerScorer, ItemScore, ScoredRun, ScoringOptions};
use super::validate::{EvalsetFinding, EvalsetValidateReport};
use super::EvalRun;

/// A group mean of a scorecard (section, category or difficulty) with its counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRow {
    pub name: String,
    pub n_scored: u64,
    pub n_correct: u64,
    pub score: f64,
}

/// One eval-set item as scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalsetItemRow {
    pub id: String,
    pub prompt: String,
    pub expected: Option<String>,
    pub predicted: Option<String>,
    /// What `answer_correctness@v1-extract` compared.
    pub extracted: Option<String>,
    pub correct: Option<bool>,
    pub reason: Option<String>,
    pub original_correct: Option<f64>,
    pub section: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
}

/// An item whose verdict differs between `@v1` and `@v1-extract`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractFlip {
    pub id: String,
    pub v1: Option<bool>,
    pub extract: Option<bool>,
    pub predicted: Option<String>,
    pub extracted: Option<String>,
    pub expected: Option<String>,
}

/// An eval-set run as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalsetView {
    pub name: String,
    pub model: Option<String>,
    /// The scorer of the headline (`answer_correctness@v1` or `@v1-extract`).
    pub scorer: String,
    pub n_items: u64,
    pub n_scored: u64,
    pub n_skipped: u64,
    pub primary_score: Option<f64>,
    pub stddev: Option<f64>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    pub verdict: String,
    pub verdict_reason: String,
    pub per_item_unavailable: Option<String>,
    pub run_failure: Option<String>,
    /// (dimension, rows): section, category, difficulty.
    pub groups: Vec<(String, Vec<GroupRow>)>,
    pub items: Vec<EvalsetItemRow>,
    pub v1_score: Option<f64>,
    pub v1_extract_score: Option<f64>,
    pub extract_flips: Vec<ExtractFlip>,
    /// The eval_summary.json entry that scored this run originally.
    pub original: Option<crate::evalset::SummaryEntry>,
    pub original_agreement: Option<crate::evalset::score::OriginalAgreement>,
    pub validation: Vec<ValidationDto>,
}

/// `evalboard validate` of every eval-set file among `files`, in input order.
pub fn validation(files: &[crate::InputFile]) -> Vec<ValidationDto> {
    files
        .iter()
        .filter(|f| super::sniff(&f.path, &f.bytes) == Some(super::EvalsetFileKind::EvalSet))
        .map(|f| {
            validation_dto(
                &f.path,
                super::validate_evalset(&f.path, &f.bytes, super::validate::DEFAULT_MIN_ITEMS),
            )
        })
        .collect()
}

/// The validation of one eval-set file, as the views show it.
fn validation_dto(file: &str, r: EvalsetValidateReport) -> ValidationDto {
    let line = |f: &EvalsetFinding| match f.line {
        Some(l) => format!("line {l}: {}", f.message),
        None => f.message.clone(),
    };
    let dim = |name: &str, m: &BTreeMap<String, u64>| {
        (
            name.to_string(),
            m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>(),
        )
    };
    ValidationDto {
        file: file.to_string(),
        items: r.items,
        errors: r.errors.iter().map(line).collect(),
        warnings: r.warnings.iter().map(line).collect(),
        composition: vec![
            dim("section", &r.composition.section),
            dim("category", &r.composition.category),
            dim("difficulty", &r.composition.difficulty),
        ],
    }
}

fn primary(s: &ScoredRun) -> Option<f64> {
    s.scorecard.as_ref().and_then(|c| c.primary_score)
}

/// Everything the eval-set overview and items table show.
pub fn evalset_view(run: &EvalRun, s: &ScoredRun) -> EvalsetView {
    // Both answer scorers: the run's own, and the other one for the items they disagree on.
    let other_scorer = match s.scorer {
        AnswerScorer::V1 => AnswerScorer::V1Extract,
        AnswerScorer::V1Extract => AnswerScorer::V1,
    };
    let other = score_run(
        run,
        &ScoringOptions {
            scorer: other_scorer,
            ..ScoringOptions::default()
        },
    );
    let (v1, extract) = match s.scorer {
        AnswerScorer::V1 => (s, &other),
        AnswerScorer::V1Extract => (&other, s),
    };
    let prompts: HashMap<&str, &str> = run
        .items
        .iter()
        .map(|i| (i.id.as_str(), i.prompt.as_str()))
        .collect();
    let items: Vec<EvalsetItemRow> = s
        .items
        .iter()
        .map(|i| EvalsetItemRow {
            id: i.item_id.clone(),
            prompt: prompts
                .get(i.item_id.as_str())
                .map(|p| p.to_string())
                .unwrap_or_default(),
            expected: i.expected.clone(),
            predicted: i.predicted.clone(),
            extracted: extract
                .items
                .iter()
                .find(|e| e.item_id == i.item_id)
                .and_then(|e| e.extracted.clone()),
            correct: i.is_correct(),
            reason: i.reason.clone(),
            original_correct: i.original_correct,
            section: i.section.clone(),
            category: i.category.clone(),
            difficulty: i.difficulty.clone(),
        })
        .collect();
    let card = s.scorecard.as_ref();
    let group = |name: &str,
                 means: Option<&Vec<(String, f64)>>,
                 key: fn(&EvalsetItemRow) -> Option<&String>| {
        let rows = means
            .map(|m| {
                m.iter()
                    .map(|(g, score)| {
                        let members = items
                            .iter()
                            .filter(|i| key(i) == Some(g) && i.correct.is_some());
                        let (n, ok) = members.fold((0, 0), |(n, ok), i| {
                            (n + 1, ok + u64::from(i.correct == Some(true)))
                        });
                        GroupRow {
                            name: g.clone(),
                            n_scored: n,
                            n_correct: ok,
                            score: *score,
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        (name.to_string(), rows)
    };
    let groups = vec![
        group("section", card.map(|c| &c.section_scores), |i| {
            i.section.as_ref()
        }),
        group("category", card.map(|c| &c.category_scores), |i| {
            i.category.as_ref()
        }),
        group("difficulty", card.map(|c| &c.difficulty_scores), |i| {
            i.difficulty.as_ref()
        }),
    ];
    let extract_by_id: HashMap<&str, &ItemScore> = extract
        .items
        .iter()
        .map(|i| (i.item_id.as_str(), i))
        .collect();
    let extract_flips = v1
        .items
        .iter()
        .filter_map(|a| {
            let b = extract_by_id.get(a.item_id.as_str())?;
            (a.is_correct() != b.is_correct()).then(|| ExtractFlip {
                id: a.item_id.clone(),
                v1: a.is_correct(),
                extract: b.is_correct(),
                predicted: a.predicted.clone(),
                extracted: b.extracted.clone(),
                expected: a.expected.clone(),
            })
        })
        .collect();
    EvalsetView {
        name: s.name.clone(),
        model: run.model.clone(),
        scorer: s.scorer.id().to_string(),
        n_items: card.map_or(items.len() as u64, |c| c.n_items),
        n_scored: card.map_or(0, |c| c.n_scored),
        n_skipped: card.map_or(0, |c| c.n_skipped),
        primary_score: card.and_then(|c| c.primary_score),
        stddev: card.and_then(|c| c.stddev),
        min_score: card.and_then(|c| c.min_score),
        max_score: card.and_then(|c| c.max_score),
        verdict: s.verdict.as_str().to_string(),
        verdict_reason: s.verdict_reason.clone(),
        per_item_unavailable: s.per_item_unavailable.clone(),
        run_failure: s.run_failure.clone(),
        groups,
        items,
        v1_score: primary(v1),
        v1_extract_score: primary(extract),
        extract_flips,
        original: s.original.clone(),
        original_agreement: s.original_agreement.clone(),
        validation: run.validation.clone(),
    }
}
