//! Pairs two judged logs item by item on the tool's item key (Inspect `(sample id, epoch)`,
//! lm-eval `(task, doc_id, filter)`, promptfoo `(test, column, repeat)`, OpenAI Evals
//! `sample_id`, HELM `(instance, perturbation, train trial)`) for [`crate::compare`]. Both runs are judged by the
//! baseline's headline score (a candidate that names another headline is judged by the
//! baseline's, with a warning) or, when a re-scorer is set, re-scored by the baseline's re-scorer
//! (a candidate re-scored otherwise, or not at all, is re-scored by it, with a warning).

use std::collections::BTreeMap;

use super::model::MetricKey;
use super::rescore::Rescorer;
use super::score::{headline_of, rescored_verdicts, verdicts, ItemVerdict, ScoredLog, Tally};
use crate::compare::{
    compare_pairs, CompareOptions, ItemContext, ItemContexts, PairedComparison, PairedItem, Unit,
};
use crate::run_table::MetricValue;

/// A baseline-vs-candidate comparison of two logs.
#[derive(Debug, Clone, PartialEq)]
pub struct LogComparison {
    pub baseline: String,
    pub candidate: String,
    /// The score both runs are judged by (its label), or the re-scorer's id.
    pub scorer: String,
    /// Whether the items were re-scored.
    pub rescored: bool,
    pub stats: PairedComparison,
    /// Why there are no pairs, when there are none.
    pub note: Option<String>,
    pub warnings: Vec<String>,
}

/// How two logs' items are joined and judged, in a sentence (`rescored`: `scorer` is a
/// re-scorer's id).
pub fn judged_by(scorer: &str, rescored: bool) -> String {
    if rescored {
        format!(
            "samples joined on the tool's item key, re-scored by {scorer} from each sample's \
             output and targets (correct = reads 1)"
        )
    } else {
        format!("samples joined on the tool's item key, judged by {scorer} (correct = reads 1)")
    }
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
/// baseline has when it names none of them); when a re-scorer is set, both sides re-scored by
/// the baseline's re-scorer (a `scorer` then is an `Err`: it names a recorded score).
pub fn compare_logs(
    baseline: &ScoredLog,
    candidate: &ScoredLog,
    scorer: Option<&str>,
    opts: &CompareOptions,
) -> Result<LogComparison, String> {
    let mut warnings = Vec::new();
    if baseline.log.run.tool != candidate.log.run.tool {
        warnings.push(format!(
            "the baseline is a {} log and the candidate a {} log: their item keys do not match",
            baseline.log.run.tool.label(),
            candidate.log.run.tool.label()
        ));
    }
    let rescorer = baseline
        .rescored
        .as_ref()
        .or(candidate.rescored.as_ref())
        .map(|r| r.by);
    if let Some(by) = rescorer {
        if let Some(name) = scorer {
            return Err(format!(
                "--scorer {name:?} names a score the logs recorded, but their items are \
                 re-scored by {}: drop --scorer, or compare as recorded (--profile as-recorded)",
                by.id()
            ));
        }
        let (stats, pairs_warnings) = rescored_pairs(baseline, candidate, &by, opts);
        warnings.extend(pairs_warnings);
        return Ok(LogComparison {
            baseline: baseline.log.name.clone(),
            candidate: candidate.log.name.clone(),
            scorer: by.id(),
            rescored: true,
            stats,
            note: None,
            warnings,
        });
    }
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
        rescored: false,
        stats,
        note,
        warnings,
    })
}

/// Both logs' items re-scored by `by` (the baseline's re-scorer, else the candidate's), paired:
/// a side re-scored otherwise, or not at all, is re-scored by `by` with a warning.
fn rescored_pairs(
    baseline: &ScoredLog,
    candidate: &ScoredLog,
    by: &Rescorer,
    opts: &CompareOptions,
) -> (PairedComparison, Vec<String>) {
    let mut warnings = Vec::new();
    let id = by.id();
    let mut items = |side: &str, log: &ScoredLog| -> Vec<ItemVerdict> {
        match &log.rescored {
            Some(r) if r.by == *by => r.items.clone(),
            other => {
                warnings.push(format!(
                    "the {side} is {}: both are re-scored by {id}",
                    other
                        .as_ref()
                        .map_or("as recorded".to_string(), |r| format!(
                            "re-scored by {}",
                            r.id
                        ))
                ));
                rescored_verdicts(&log.log.run, log.verdict_by.as_ref(), by)
            }
        }
    };
    let bi = items("baseline", baseline);
    let ci = items("candidate", candidate);
    let pairs = pair((baseline, &bi), (candidate, &ci), &mut warnings);
    (compare_pairs(pairs, opts), warnings)
}

/// The run's headline score, recomputed and as recorded, then (when it is re-scored) the
/// re-scored value; the accuracy and error rate of the samples, and their tokens, cost and mean
/// latency where the log records them.
pub fn metrics(s: &ScoredLog) -> Vec<MetricValue> {
    let recorded = s
        .verdict_by
        .as_ref()
        .and_then(|key| headline_of(&s.log.run, key)?.recorded);
    let mut out = vec![
        MetricValue::new(
            "headline_score",
            "Headline score",
            Unit::Score,
            s.recorded_headline_value(),
        ),
        MetricValue::new(
            "headline_recorded",
            "Headline score (recorded)",
            Unit::Score,
            recorded,
        ),
    ];
    if let Some(r) = s.rescored.as_ref() {
        out.push(MetricValue::new(
            "rescored_score",
            &format!("Re-scored ({})", r.id),
            Unit::Score,
            s.rescored_value(),
        ));
    }
    let n = s.log.run.samples.len();
    out.push(MetricValue::new(
        "accuracy",
        "Accuracy",
        Unit::Rate,
        Tally::of(&s.items).accuracy(),
    ));
    out.push(MetricValue::new(
        "error_rate",
        "Error rate",
        Unit::Rate,
        (n > 0).then(|| s.n_errors() as f64 / n as f64),
    ));
    let u = super::views::usage(&s.log.run);
    if u.n_with_tokens > 0 {
        out.push(MetricValue::new(
            "tokens",
            "Tokens",
            Unit::Count,
            Some(u.total as f64),
        ));
    }
    if u.cost.is_some() {
        out.push(MetricValue::new("cost", "Cost", Unit::Usd, u.cost));
    }
    if u.n_latency > 0 {
        out.push(MetricValue::new(
            "latency_mean",
            "Mean latency",
            Unit::Seconds,
            u.latency_mean,
        ));
    }
    out
}

/// Each judged item's category (Inspect metadata `subject`/`category`, the promptfoo column, the
/// HELM split, else the lm-eval task) and input, by item key; its fields: the log's breakdown
/// fields ([`super::views::breakdown_fields`]), the category's own field first.
pub fn item_context(s: &ScoredLog, out: &mut ItemContexts) {
    let breakdowns = super::views::breakdown_fields(&s.log.run);
    for it in s.judged() {
        let Some(sample) = s.log.run.samples.get(it.sample) else {
            continue;
        };
        let meta = ["subject", "category", "column", "split"]
            .into_iter()
            .find_map(|k| Some((k, sample.metadata.get(k)?)));
        let (from, category) = match (meta, &sample.key) {
            (Some((k, v)), _) => (Some(k), Some(v.trim_matches('"').to_string())),
            (None, super::SampleKey::LmEval { task, .. }) => (Some("task"), Some(task.clone())),
            (None, _) => (None, None),
        };
        out.entry(it.key.clone()).or_insert_with(|| {
            // The category's field first, the others in the breakdowns' order.
            let (mut fields, others): (Vec<_>, Vec<_>) = super::views::fields_of(sample)
                .into_iter()
                .filter(|(k, _)| breakdowns.contains(k))
                .partition(|(k, _)| Some(k.as_str()) == from);
            fields.extend(others);
            ItemContext {
                category,
                question: sample.input.clone(),
                fields,
            }
        });
    }
}
