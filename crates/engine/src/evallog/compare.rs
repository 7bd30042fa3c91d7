//! Pairs two judged logs item by item on the tool's item key (Inspect `(sample id, epoch)`,
//! lm-eval `(task, doc_id, filter)`, promptfoo `(test, column, repeat)`, OpenAI Evals
//! `sample_id`, HELM `(instance, perturbation, train trial)`) for [`crate::compare`]. Both runs are judged by the
//! baseline's headline score (a candidate that names another headline is judged by the
//! baseline's, with a warning).

use std::collections::BTreeMap;

use super::model::MetricKey;
use super::score::{headline_of, verdicts, ItemVerdict, ScoredLog};
use crate::compare::{
    compare_pairs, CompareOptions, ItemContext, ItemContexts, MetricDelta, PairedComparison,
    PairedItem,
};

/// A baseline-vs-candidate comparison of two logs.
#[derive(Debug, Clone, PartialEq)]
pub struct LogComparison {
    pub baseline: String,
    pub candidate: String,
    /// The score both runs are judged by (its label).
    pub scorer: String,
    pub stats: PairedComparison,
    /// Why there are no pairs, when there are none.
    pub note: Option<String>,
    pub warnings: Vec<String>,
}

/// How two logs' items are joined and judged, in a sentence.
pub fn judged_by(scorer: &str) -> String {
    format!("samples joined on the tool's item key, judged by {scorer} (correct = reads 1)")
}

fn text(v: &[String]) -> Option<String> {
    (!v.is_empty()).then(|| v.join(" | "))
}

/// One pair per item key found in either run, sorted by key; a key seen twice in one run is a
/// warning (the first is used).
fn pair(
    b: (&ScoredLog, &[ItemVerdict]),
    c: (&ScoredLog, &[ItemVerdict]),
    warnings: &mut Vec<String>,
) -> Vec<PairedItem> {
    type Side<'a> = Option<&'a ItemVerdict>;
    let mut by_key: BTreeMap<&[String], (Side, Side)> = BTreeMap::new();
    for (side, (run, items)) in [("baseline", b), ("candidate", c)] {
        for it in items {
            let slot = by_key.entry(&it.key).or_default();
            let slot = if side == "baseline" {
                &mut slot.0
            } else {
                &mut slot.1
            };
            if slot.is_some() {
                warnings.push(format!(
                    "{side} {}: item {} appears twice; the first is used",
                    run.log.name,
                    it.key.join("/")
                ));
            } else {
                *slot = Some(it);
            }
        }
    }
    fn sample<'a>(run: &'a ScoredLog, it: Option<&ItemVerdict>) -> Option<&'a super::Sample> {
        it.and_then(|i| run.log.run.samples.get(i.sample))
    }
    by_key
        .into_iter()
        .map(|(key, (bi, ci))| {
            let (bs, cs) = (sample(b.0, bi), sample(c.0, ci));
            PairedItem {
                key: key.to_vec(),
                baseline: bi.and_then(|i| i.correct),
                candidate: ci.and_then(|i| i.correct),
                expected: bs.or(cs).and_then(|s| text(&s.target)),
                baseline_answer: bs.and_then(|s| s.output.clone()),
                candidate_answer: cs.and_then(|s| s.output.clone()),
            }
        })
        .collect()
}

/// The score `name` picks in `log`: a headline's label (`match[mean]/accuracy`,
/// `arith_gen/exact_match[strict-match]/exact_match`), else the first headline of that scorer
/// (`match`, `exact_match`), else of that `group/scorer` (`arith_mc/acc`).
pub fn score_named(log: &ScoredLog, name: &str) -> Option<MetricKey> {
    let hs = &log.log.run.headlines;
    hs.iter()
        .find(|h| h.key.label() == name)
        .or_else(|| hs.iter().find(|h| h.key.scorer == name))
        .or_else(|| {
            hs.iter()
                .find(|h| format!("{}/{}", h.key.group, h.key.scorer) == name)
        })
        .map(|h| h.key.clone())
}

/// Flips, McNemar and the bootstrap CI between two judged logs, judged by the baseline's
/// headline score, or by the score `scorer` names ([`score_named`]; `Err` with the names the
/// baseline has when it names none of them).
pub fn compare_logs(
    baseline: &ScoredLog,
    candidate: &ScoredLog,
    scorer: Option<&str>,
    opts: &CompareOptions,
) -> Result<LogComparison, String> {
    let mut warnings = Vec::new();
    let named = match scorer {
        Some(name) => Some(score_named(baseline, name).ok_or_else(|| {
            let mut known: Vec<String> = baseline
                .log
                .run
                .headlines
                .iter()
                .map(|h| h.key.label())
                .collect();
            known.dedup();
            format!(
                "no score {name:?} in {} (its scores: {})",
                baseline.log.name,
                known.join(", ")
            )
        })?),
        None => None,
    };
    let key: Option<&MetricKey> = named
        .as_ref()
        .or(baseline.verdict_by.as_ref())
        .or(candidate.verdict_by.as_ref());
    if baseline.log.run.tool != candidate.log.run.tool {
        warnings.push(format!(
            "the baseline is a {} log and the candidate a {} log: their item keys do not match",
            baseline.log.run.tool.label(),
            candidate.log.run.tool.label()
        ));
    }
    if let (None, Some(b), Some(c)) = (scorer, &baseline.verdict_by, &candidate.verdict_by) {
        if b != c {
            warnings.push(format!(
                "the candidate's headline is {}, the baseline's {}: both are judged by {}",
                c.label(),
                b.label(),
                b.label()
            ));
        }
    }
    let (stats, note) = match key {
        Some(key) => {
            let bi = if baseline.verdict_by.as_ref() == Some(key) {
                baseline.items.clone()
            } else {
                verdicts(&baseline.log.run, key)
            };
            let ci = if candidate.verdict_by.as_ref() == Some(key) {
                candidate.items.clone()
            } else {
                verdicts(&candidate.log.run, key)
            };
            let pairs = pair((baseline, &bi), (candidate, &ci), &mut warnings);
            (compare_pairs(pairs, opts), None)
        }
        None => (
            compare_pairs(Vec::new(), opts),
            Some("neither log names a headline score: nothing to pair".to_string()),
        ),
    };
    Ok(LogComparison {
        baseline: baseline.log.name.clone(),
        candidate: candidate.log.name.clone(),
        scorer: key.map(MetricKey::label).unwrap_or_default(),
        stats,
        note,
        warnings,
    })
}

/// The headline score of both runs, recomputed and as recorded.
pub fn metrics(b: &ScoredLog, c: &ScoredLog) -> Vec<MetricDelta> {
    let recorded = |s: &ScoredLog| {
        let key = s.verdict_by.as_ref()?;
        headline_of(&s.log.run, key)?.recorded
    };
    vec![
        MetricDelta {
            key: "headline_score".into(),
            label: "Headline score".into(),
            baseline: b.headline_value(),
            candidate: c.headline_value(),
        },
        MetricDelta {
            key: "headline_recorded".into(),
            label: "Headline score (recorded)".into(),
            baseline: recorded(b),
            candidate: recorded(c),
        },
    ]
}

/// Each judged item's category (Inspect metadata `subject`/`category`, the promptfoo column, the
/// HELM split, else the lm-eval task)
/// and input, by item key.
pub fn item_context(s: &ScoredLog, out: &mut ItemContexts) {
    for it in &s.items {
        let Some(sample) = s.log.run.samples.get(it.sample) else {
            continue;
        };
        let category = ["subject", "category", "column", "split"]
            .iter()
            .find_map(|k| sample.metadata.get(*k))
            .map(|v| v.trim_matches('"').to_string())
            .or_else(|| match &sample.key {
                super::SampleKey::LmEval { task, .. } => Some(task.clone()),
                _ => None,
            });
        out.entry(it.key.clone()).or_insert_with(|| ItemContext {
            category,
            question: sample.input.clone(),
        });
    }
}
