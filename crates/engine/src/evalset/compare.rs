//! Pairs two scored eval-set runs item by item (key = item id) for [`crate::compare`].

use std::collections::BTreeMap;

use serde::Serialize;

use super::score::{score_run, AnswerScorer, ItemScore, ScoredRun, ScoringOptions};
use super::EvalRun;
use crate::compare::{
    compare_pairs, CompareOptions, ItemContext, ItemContexts, PairedComparison, PairedItem, Unit,
};
use crate::run_table::MetricValue;

/// A baseline-vs-candidate comparison of two eval-set runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunComparison {
    pub baseline: String,
    pub candidate: String,
    /// The scorer both runs were scored with (they must match to be compared).
    pub scorer: String,
    pub stats: PairedComparison,
    /// Set when either run has no per-item predictions: the pairs are then empty.
    pub per_item_unavailable: Option<String>,
}

/// One pair per item id found in either run, sorted by id. An item is `None` on a side where it
/// is absent or was not scored.
pub fn pair_items(baseline: &ScoredRun, candidate: &ScoredRun) -> Vec<PairedItem> {
    let mut by_id: BTreeMap<&str, (Option<&ItemScore>, Option<&ItemScore>)> = BTreeMap::new();
    for it in &baseline.items {
        by_id.entry(it.item_id.as_str()).or_default().0 = Some(it);
    }
    for it in &candidate.items {
        by_id.entry(it.item_id.as_str()).or_default().1 = Some(it);
    }
    by_id
        .into_iter()
        .map(|(id, (b, c))| PairedItem {
            key: vec![id.to_string()],
            baseline: b.and_then(ItemScore::is_correct),
            candidate: c.and_then(ItemScore::is_correct),
            expected: b
                .and_then(|i| i.expected.clone())
                .or_else(|| c.and_then(|i| i.expected.clone())),
            baseline_answer: b.and_then(|i| i.predicted.clone()),
            candidate_answer: c.and_then(|i| i.predicted.clone()),
        })
        .collect()
}

/// Flips, McNemar and the bootstrap CI between two scored runs.
pub fn compare_runs(
    baseline: &ScoredRun,
    candidate: &ScoredRun,
    opts: &CompareOptions,
) -> RunComparison {
    let unavailable = match (
        &baseline.per_item_unavailable,
        &candidate.per_item_unavailable,
    ) {
        (Some(r), _) => Some(format!("baseline {}: {r}", baseline.name)),
        (None, Some(r)) => Some(format!("candidate {}: {r}", candidate.name)),
        (None, None) => None,
    };
    RunComparison {
        baseline: baseline.name.clone(),
        candidate: candidate.name.clone(),
        scorer: baseline.scorer.id().to_string(),
        stats: compare_pairs(pair_items(baseline, candidate), opts),
        per_item_unavailable: unavailable,
    }
}

/// How two eval-set runs' items are joined and judged, in a sentence.
pub fn judged_by(scorer: &str) -> String {
    format!("items joined on id, judged by {scorer}")
}

/// The primary score of a run under `scorer` (the run's own scoring when it used that scorer).
fn primary_under(run: &EvalRun, scored: &ScoredRun, scorer: AnswerScorer) -> Option<f64> {
    let primary = |s: &ScoredRun| s.scorecard.as_ref().and_then(|c| c.primary_score);
    if scored.scorer == scorer {
        return primary(scored);
    }
    primary(&score_run(
        run,
        &ScoringOptions {
            scorer,
            ..ScoringOptions::default()
        },
    ))
}

/// The run's primary score under both answer scorers.
pub fn metrics(run: &EvalRun, scored: &ScoredRun) -> Vec<MetricValue> {
    [
        (AnswerScorer::V1, "primary_score"),
        (AnswerScorer::V1Extract, "primary_score_extract"),
    ]
    .into_iter()
    .map(|(scorer, key)| {
        // The second label names the version alone: a chart legend cut to its first words
        // still tells the two apart.
        let label = match scorer {
            AnswerScorer::V1 => format!("Primary score ({})", scorer.id()),
            AnswerScorer::V1Extract => format!(
                "Primary score (@{})",
                scorer.id().rsplit('@').next().unwrap_or_default()
            ),
        };
        MetricValue::new(key, &label, Unit::Rate, primary_under(run, scored, scorer))
    })
    .collect()
}

/// The category (else section) and prompt of every scored item, by `[item id]`; its fields:
/// category, section, difficulty (those it has).
pub fn item_context(run: &EvalRun, scored: &ScoredRun, out: &mut ItemContexts) {
    let prompts: std::collections::HashMap<&str, &str> = run
        .items
        .iter()
        .map(|i| (i.id.as_str(), i.prompt.as_str()))
        .collect();
    for i in &scored.items {
        out.entry(vec![i.item_id.clone()])
            .or_insert_with(|| ItemContext {
                category: i.category.clone().or_else(|| i.section.clone()),
                question: prompts.get(i.item_id.as_str()).map(|p| p.to_string()),
                fields: [
                    ("category", &i.category),
                    ("section", &i.section),
                    ("difficulty", &i.difficulty),
                ]
                .into_iter()
                .filter_map(|(k, v)| Some((k.to_string(), v.clone()?)))
                .collect(),
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Flip;
    use crate::evalset::score::{AnswerScorer, Verdict};

    fn run(name: &str, items: &[(&str, Option<f64>)]) -> ScoredRun {
        ScoredRun {
            name: name.into(),
            scorer: AnswerScorer::V1,
            items: items
                .iter()
                .map(|(id, c)| ItemScore {
                    item_id: (*id).into(),
                    correctness: *c,
                    predicted: Some(format!("{name}-{id}")),
                    ..ItemScore::default()
                })
                .collect(),
            scorecard: None,
            verdict: Verdict::Fail,
            verdict_reason: String::new(),
            per_item_unavailable: None,
            run_failure: None,
            original: None,
            original_agreement: None,
            meta: Default::default(),
        }
    }

    #[test]
    fn pairs_by_id_and_counts_flips() {
        let a = run(
            "a",
            &[
                ("1", Some(1.0)),
                ("2", Some(0.0)),
                ("3", Some(1.0)),
                ("4", None),
            ],
        );
        let b = run("b", &[("2", Some(1.0)), ("1", Some(0.0)), ("5", Some(0.0))]);
        let cmp = compare_runs(&a, &b, &CompareOptions::default());
        let flips: Vec<(String, Flip)> = cmp
            .stats
            .pairs
            .iter()
            .map(|p| (p.key[0].clone(), p.flip()))
            .collect();
        assert_eq!(
            flips,
            [
                ("1".to_string(), Flip::Regressed),
                ("2".to_string(), Flip::Improved),
                ("3".to_string(), Flip::OnlyInBaseline),
                ("4".to_string(), Flip::Unscored),
                ("5".to_string(), Flip::OnlyInCandidate),
            ]
        );
        assert_eq!(cmp.stats.pairs[0].baseline_answer.as_deref(), Some("a-1"));
        assert_eq!(cmp.stats.pairs[0].candidate_answer.as_deref(), Some("b-1"));
        assert_eq!(cmp.stats.n_paired, 2);
        assert_eq!(cmp.stats.mcnemar_p, 1.0);
        assert_eq!(cmp.per_item_unavailable, None);
    }
}
