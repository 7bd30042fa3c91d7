//! Run comparison for multi-turn numeric QA runs: pairs two scored runs turn by turn on
//! (conversation id, turn index) and hands the pairs to [`crate::compare`].
//!
//! Each turn is judged by one answer scorer, `numerical_match@doc-v1` unless the caller picks
//! another ([`QA_COMPARE_SCORERS`]). Turns of a conversation that failed as a whole (e.g. an
//! evaluation timeout) are real, wrong turns here, as in the doc profile's statistics; they are
//! also listed as `failed_items` so a reader can tell them from wrong answers.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::{compare_pairs, CompareOptions, FlipCounts, PairedComparison, PairedItem};
use crate::numeric_qa::score::{answer_text, ScoredQaRun, TurnScore};

/// The scorers a comparison can judge turns by, default first.
pub const QA_COMPARE_SCORERS: &[&str] = &[
    "numerical_match@doc-v1",
    "exact_match@doc-v1",
    "soft_match@doc-v1",
    "unit_agnostic_match@doc-v1",
    "sign_agnostic_match@doc-v1",
    "general_match@doc-v1",
    "numerical_match@financial-agent-2",
    "financial_match@financial-agent-2",
    "soft_match@financial-agent-2",
];

/// The verdict of `scorer` (a name from [`QA_COMPARE_SCORERS`], with or without its `@version`
/// for the doc scorers) on one scored turn; `None` for an unknown scorer.
pub fn turn_verdict(t: &TurnScore, scorer: &str) -> Option<bool> {
    match scorer {
        "numerical_match@financial-agent-2" => Some(t.fa2.numerical),
        "financial_match@financial-agent-2" => Some(t.fa2.financial),
        "soft_match@financial-agent-2" => Some(t.fa2.soft_match),
        s => t.answer.flag(s.strip_suffix("@doc-v1").unwrap_or(s)),
    }
}

/// The full `name@version` of a comparison scorer (`numerical_match` → `numerical_match@doc-v1`);
/// `None` when it is not one of [`QA_COMPARE_SCORERS`].
pub fn canonical_scorer(s: &str) -> Option<&'static str> {
    QA_COMPARE_SCORERS
        .iter()
        .find(|full| **full == s || full.strip_suffix("@doc-v1") == Some(s))
        .copied()
}

/// Flip counts and accuracies of one group of paired turns (e.g. turn 2, or
/// `has_type2_question = true`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupComparison {
    /// `turn_idx`, `has_type2_question`, `has_non_numeric_values`, `has_duplicate_columns`,
    /// `conversation_type`.
    pub dimension: String,
    pub group: String,
    pub flips: FlipCounts,
    pub n_paired: u64,
    pub baseline_accuracy: Option<f64>,
    pub candidate_accuracy: Option<f64>,
}

/// A baseline-vs-candidate comparison of two numeric QA runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QaRunComparison {
    pub baseline: String,
    pub candidate: String,
    pub scorer: String,
    /// Pairs keyed `[conversation_id, turn_idx]`, sorted by conversation id then turn index.
    pub stats: PairedComparison,
    /// Keys of turns that belong to a conversation that failed as a whole in either run, with
    /// the failure reason.
    pub failed_items: Vec<FailedItem>,
    pub by_group: Vec<GroupComparison>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedItem {
    pub key: Vec<String>,
    /// `baseline` or `candidate` (or both, as two entries).
    pub run: String,
    pub reason: String,
}

/// Why a comparison cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QaCompareError {
    #[error("unknown scorer {0:?} (one of {list})", list = QA_COMPARE_SCORERS.join(", "))]
    UnknownScorer(String),
}

struct Side<'a> {
    verdict: bool,
    expected: String,
    answer: String,
    failure: Option<&'a str>,
    groups: [(&'static str, String); 4],
}

fn sides<'a>(
    run: &'a ScoredQaRun,
    scorer: &str,
) -> Result<BTreeMap<(String, u32), Side<'a>>, QaCompareError> {
    let mut out = BTreeMap::new();
    for t in &run.turns {
        let verdict =
            turn_verdict(t, scorer).ok_or_else(|| QaCompareError::UnknownScorer(scorer.into()))?;
        let Some(conv) = run.run.conversations.get(t.conv as usize) else {
            continue;
        };
        let Some(turn) = conv.turns.get(t.turn as usize) else {
            continue;
        };
        let flag = |b: Option<bool>| match b {
            Some(true) => "true".to_string(),
            Some(false) => "false".to_string(),
            None => "unknown".to_string(),
        };
        // The first occurrence of a (conversation, turn) key wins, as in the readers.
        out.entry((conv.id.clone(), turn.turn_idx))
            .or_insert_with(|| Side {
                verdict,
                expected: turn.expected.display(),
                answer: answer_text(turn.predicted.as_ref()),
                failure: conv.failure.as_deref(),
                groups: [
                    ("has_type2_question", flag(conv.features.has_type2_question)),
                    (
                        "has_non_numeric_values",
                        flag(conv.features.has_non_numeric_values),
                    ),
                    (
                        "has_duplicate_columns",
                        flag(conv.features.has_duplicate_columns),
                    ),
                    (
                        "conversation_type",
                        conv.conversation_type
                            .clone()
                            .unwrap_or_else(|| "unknown".into()),
                    ),
                ],
            });
    }
    Ok(out)
}

/// Pairs `baseline` and `candidate` turn by turn and computes flips, McNemar's exact p and the
/// paired bootstrap CI of the accuracy difference, overall and per turn index and feature.
pub fn compare_qa_runs(
    baseline: &ScoredQaRun,
    candidate: &ScoredQaRun,
    scorer: &str,
    opts: &CompareOptions,
) -> Result<QaRunComparison, QaCompareError> {
    let scorer =
        canonical_scorer(scorer).ok_or_else(|| QaCompareError::UnknownScorer(scorer.into()))?;
    let b = sides(baseline, scorer)?;
    let c = sides(candidate, scorer)?;
    let mut keys: Vec<&(String, u32)> = b.keys().chain(c.keys()).collect();
    keys.sort();
    keys.dedup();

    let mut pairs = Vec::with_capacity(keys.len());
    let mut failed_items = Vec::new();
    let mut groups: BTreeMap<(String, String), Vec<PairedItem>> = BTreeMap::new();
    for k in keys {
        let (bs, cs) = (b.get(k), c.get(k));
        let key = vec![k.0.clone(), k.1.to_string()];
        for (name, s) in [("baseline", bs), ("candidate", cs)] {
            if let Some(reason) = s.and_then(|s| s.failure) {
                failed_items.push(FailedItem {
                    key: key.clone(),
                    run: name.into(),
                    reason: reason.into(),
                });
            }
        }
        let item = PairedItem {
            key,
            baseline: bs.map(|s| s.verdict),
            candidate: cs.map(|s| s.verdict),
            expected: bs.or(cs).map(|s| s.expected.clone()),
            baseline_answer: bs.map(|s| s.answer.clone()),
            candidate_answer: cs.map(|s| s.answer.clone()),
        };
        groups
            .entry(("turn_idx".into(), format!("{:>6}", k.1)))
            .or_default()
            .push(item.clone());
        if let Some(s) = bs.or(cs) {
            for (dim, g) in &s.groups {
                groups
                    .entry(((*dim).into(), g.clone()))
                    .or_default()
                    .push(item.clone());
            }
        }
        pairs.push(item);
    }
    let by_group = groups
        .into_iter()
        .map(|((dimension, group), items)| {
            let flips = FlipCounts::of(&items);
            let n = flips.n_paired();
            let acc = |x: u64| (n > 0).then(|| x as f64 / n as f64);
            GroupComparison {
                group: group.trim_start().to_string(),
                dimension,
                baseline_accuracy: acc(flips.regressed + flips.unchanged_correct),
                candidate_accuracy: acc(flips.improved + flips.unchanged_correct),
                n_paired: n,
                flips,
            }
        })
        .collect();
    let mut stats = compare_pairs(pairs, opts);
    // compare_pairs orders keys as strings; order turns numerically within a conversation.
    stats.pairs.sort_by(|x, y| {
        let k = |p: &PairedItem| {
            (
                p.key.first().cloned().unwrap_or_default(),
                p.key
                    .get(1)
                    .and_then(|t| t.parse::<u32>().ok())
                    .unwrap_or(0),
            )
        };
        k(x).cmp(&k(y))
    });
    Ok(QaRunComparison {
        baseline: baseline.run.name.clone(),
        candidate: candidate.run.name.clone(),
        scorer: scorer.to_string(),
        stats,
        failed_items,
        by_group,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric_qa::model::{QaConversation, QaRun, QaTurn, RawValue};
    use crate::numeric_qa::score::{score_qa_run, ScoreConfig};

    /// (conversation id, failure, [(expected, predicted)]).
    type Conv<'a> = (&'a str, Option<&'a str>, &'a [(&'a str, Option<&'a str>)]);

    fn run(name: &str, convs: &[Conv]) -> ScoredQaRun {
        let conversations = convs
            .iter()
            .map(|(id, failure, turns)| QaConversation {
                id: (*id).into(),
                failure: failure.map(Into::into),
                turns: turns
                    .iter()
                    .enumerate()
                    .map(|(i, (e, a))| QaTurn {
                        turn_idx: i as u32,
                        expected: RawValue::Str((*e).into()),
                        predicted: a.map(|a| RawValue::Str(a.into())),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        score_qa_run(
            QaRun {
                name: name.into(),
                conversations,
                ..Default::default()
            },
            &ScoreConfig::default(),
        )
    }

    #[test]
    fn pairs_flips_and_failed_conversations() {
        let base = run(
            "base",
            &[
                ("c1", None, &[("10", Some("10")), ("5%", Some("0.05"))]),
                ("c2", None, &[("3", Some("4"))]),
                ("c3", None, &[("1", Some("1"))]),
            ],
        );
        let cand = run(
            "cand",
            &[
                ("c1", None, &[("10", Some("11")), ("5%", Some("5%"))]),
                ("c2", None, &[("3", Some("3.001"))]),
                ("c3", Some("evaluation timeout"), &[("1", None)]),
                ("c4", None, &[("2", Some("2"))]),
            ],
        );
        let cmp =
            compare_qa_runs(&base, &cand, "numerical_match@doc-v1", &Default::default()).unwrap();
        let f = cmp.stats.flips;
        assert_eq!(
            (
                f.regressed,
                f.improved,
                f.unchanged_correct,
                f.unchanged_wrong,
                f.only_in_candidate
            ),
            (2, 1, 1, 0, 1)
        );
        let keys: Vec<_> = cmp.stats.pairs.iter().map(|p| p.key.join("/")).collect();
        assert_eq!(keys, ["c1/0", "c1/1", "c2/0", "c3/0", "c4/0"]);
        assert_eq!(cmp.failed_items.len(), 1);
        assert_eq!(cmp.failed_items[0].key, ["c3", "0"]);
        assert_eq!(cmp.failed_items[0].reason, "evaluation timeout");
        let t0 = cmp
            .by_group
            .iter()
            .find(|g| g.dimension == "turn_idx" && g.group == "0")
            .unwrap();
        assert_eq!(t0.n_paired, 3);
        assert_eq!(t0.baseline_accuracy, Some(2.0 / 3.0));
    }

    #[test]
    fn scorer_choice_and_unknown_scorer() {
        let base = run("b", &[("c", None, &[("10%", Some("10"))])]);
        let cand = run("c", &[("c", None, &[("10%", Some("0.1"))])]);
        let by = |s| {
            compare_qa_runs(&base, &cand, s, &Default::default())
                .unwrap()
                .stats
                .flips
        };
        assert_eq!(by("numerical_match@doc-v1").improved, 1);
        assert_eq!(by("general_match").unchanged_correct, 1);
        assert!(matches!(
            compare_qa_runs(&base, &cand, "nope", &Default::default()),
            Err(QaCompareError::UnknownScorer(_))
        ));
    }
}
