//! Judges a scored eval-set run item by item (key = item id) for the one join
//! ([`crate::compare::join`]).

use super::score::{score_run, AnswerScorer, ItemScore, ScoredRun, ScoringOptions};
use super::{EvalRun, RunPair};
use crate::compare::join::{repeated_warnings, sort_unique, FailedGroup, Judged, JudgedRow, Side};
use crate::compare::{ItemContext, ItemContexts, Unit};
use crate::family_run::{FamilyCompare, PairJudge};
use crate::run_table::{ItemKey, MetricValue};

impl JudgedRow for &ItemScore {
    fn verdict(&self) -> Option<bool> {
        self.is_correct()
    }
    fn expected(&self) -> Option<String> {
        self.expected.clone()
    }
    fn answer(&self) -> Option<String> {
        self.predicted.clone()
    }
}

/// How two eval-set runs compare: items pair on their id, judged by the scorer each run was
/// scored with (the baseline's named); an item scored 0 without a comparison (no prediction)
/// is a failed item. Without per-item predictions in a run, the comparison says so.
impl FamilyCompare for RunPair<'_> {
    type Judge = ();

    fn judge_pair(
        baseline: &Self,
        candidate: &Self,
        _asked: Option<&str>,
    ) -> Result<PairJudge<()>, String> {
        let (b, c) = (baseline.scored, candidate.scored);
        let note = match (&b.per_item_unavailable, &c.per_item_unavailable) {
            (Some(r), _) => Some(format!("baseline {}: {r}", b.name)),
            (None, Some(r)) => Some(format!("candidate {}: {r}", c.name)),
            (None, None) => None,
        };
        let scorer = b.scorer.id().to_string();
        Ok(PairJudge {
            judge: (),
            judged_by: judged_by(&scorer),
            scorer,
            warnings: Vec::new(),
            note,
        })
    }

    fn judged(&self, _: &(), side: Side) -> Result<Judged<'_>, String> {
        let mut rows: Vec<(ItemKey, &ItemScore)> = self
            .scored
            .items
            .iter()
            .map(|it| (ItemKey::text(&it.item_id), it))
            .collect();
        let repeated = sort_unique(&mut rows);
        let failed = rows
            .iter()
            .filter_map(|(key, it)| {
                let why = it.reason.as_ref()?;
                Some(FailedGroup {
                    key: key.clone(),
                    reason: why.clone(),
                    answer: why.clone(),
                })
            })
            .collect();
        let warnings = repeated_warnings(side, &self.scored.name, "item", repeated);
        Ok(Judged {
            items: Box::new(rows),
            failed,
            warnings,
        })
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
        out.entry(ItemKey::text(&i.item_id))
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
                ..ItemContext::default()
            });
    }
}

/// Each item's query fields ([`crate::query`]), under the eval set's and the predictions'
/// names: `item_id`, `prompt` (the registry's question), `expected`, `predicted`, `extracted`,
/// `correctness` (`score.<scorer id>` too), `reason` (why it scored 0 unscored; also `error`),
/// `original_correct`, `eval_time_ms` and the normalised `latency_s`, `model` (the run's).
pub fn query_fields(scored: &ScoredRun, docs: &mut crate::query::Docs<'_>) {
    use crate::query::Value;
    let model = scored.meta.get("model");
    for i in &scored.items {
        let Some(d) = docs.get(&ItemKey::text(&i.item_id)) else {
            continue;
        };
        if d.fields.iter().any(|(k, _)| k == "item_id") {
            continue;
        }
        d.rename_text("question", "prompt");
        d.rename_text("answer", "predicted");
        d.push("item_id", Value::Str(i.item_id.clone()));
        d.push_str("model", model);
        d.push_str("extracted", i.extracted.as_deref());
        d.push_num("correctness", i.correctness);
        d.push_num(&format!("score.{}", scored.scorer.id()), i.correctness);
        if let Some(r) = &i.reason {
            d.push_text("reason", r);
            d.push("error", Value::Str(r.clone()));
        }
        d.push_num("original_correct", i.original_correct);
        d.push_num("eval_time_ms", i.eval_time_ms.map(|ms| ms as f64));
        d.push_num("latency_s", i.eval_time_ms.map(|ms| ms as f64 / 1000.0));
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
        let read = EvalRun::default();
        let (a, b) = (
            RunPair {
                run: &read,
                scored: &a,
            },
            RunPair {
                run: &read,
                scored: &b,
            },
        );
        let cmp = crate::family_run::judge_and_join(&a, &b, None, &Default::default()).unwrap();
        let flips: Vec<(String, Flip)> = cmp
            .stats
            .pairs
            .iter()
            .map(|p| (p.key.to_string(), p.flip()))
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
        assert_eq!(cmp.note, None);
    }
}
