//! Judges a log item by item on the tool's item key (Inspect `(sample id, epoch)`,
//! lm-eval `(task, doc_id, filter)`, promptfoo `(test, column, repeat)`, OpenAI Evals
//! `sample_id`, HELM `(instance, perturbation, train trial)`) for the one join
//! ([`crate::compare::join`]). Both runs are judged by the baseline's headline score (a candidate that names another headline is judged by the
//! baseline's, with a warning) or, when a re-scorer is set, re-scored by the baseline's re-scorer
//! (a candidate re-scored otherwise, or not at all, is re-scored by it, with a warning).

use super::model::MetricKey;
use super::rescore::Rescorer;
use super::score::{headline_of, rescored_verdicts, verdicts, ItemVerdict, ScoredLog, Tally};
use crate::compare::join::{repeated_warnings, sort_unique, Judged, JudgedRow, Side};
use crate::compare::{ItemContext, ItemContexts, Unit};
use crate::family_run::{FamilyCompare, PairJudge};
use crate::repeats::Reduction;
use crate::run_table::{ItemKey, ItemUsage, MetricValue};

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

/// What judges two logs' items: a score the logs recorded, or a re-scorer.
#[derive(Debug, Clone, PartialEq)]
pub enum LogJudge {
    Recorded(MetricKey),
    Rescored(Rescorer),
}

/// One judged sample: its verdict and reading, target and output.
struct Judgement<'a> {
    correct: Option<bool>,
    reading: Option<f64>,
    sample: Option<&'a super::Sample>,
}

impl JudgedRow for Judgement<'_> {
    fn verdict(&self) -> Option<bool> {
        self.correct
    }
    fn reading(&self) -> Option<f64> {
        self.reading
    }
    fn expected(&self) -> Option<String> {
        self.sample.and_then(|s| text(&s.target))
    }
    fn answer(&self) -> Option<String> {
        self.sample.and_then(|s| s.output.clone())
    }
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

/// How two logs compare (docs/scoring.md): items pair on the tool's item key. Both are judged
/// by the baseline's headline score, or by the score the asked name picks ([`score_named`];
/// `Err` with the names the baseline has when it picks none); when a re-scorer is set (the
/// baseline's, else the candidate's), both are re-scored by it, and then an asked score is an
/// `Err` (it names a recorded score). A side judged otherwise than it was scored is a warning.
impl FamilyCompare for ScoredLog {
    type Judge = Option<LogJudge>;

    fn judge_pair(
        baseline: &Self,
        candidate: &Self,
        asked: Option<&str>,
    ) -> Result<PairJudge<Option<LogJudge>>, String> {
        let mut warnings = Vec::new();
        // evalboard's run rows keep the item keys of the tool that wrote the log.
        let rows = |s: &Self| s.log.run.tool == super::model::Tool::Evalboard;
        if baseline.log.run.tool != candidate.log.run.tool && !rows(baseline) && !rows(candidate) {
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
            if let Some(name) = asked {
                return Err(format!(
                    "--scorer {name:?} names a score the logs recorded, but their items are \
                     re-scored by {}: drop --scorer, or compare as recorded (--profile as-recorded)",
                    by.id()
                ));
            }
            let id = by.id();
            for (side, log) in [("baseline", baseline), ("candidate", candidate)] {
                match &log.rescored {
                    Some(r) if r.by == by => {}
                    other => warnings.push(format!(
                        "the {side} is {}: both are re-scored by {id}",
                        other
                            .as_ref()
                            .map_or("as recorded".to_string(), |r| format!(
                                "re-scored by {}",
                                r.id
                            ))
                    )),
                }
            }
            return Ok(PairJudge {
                judge: Some(LogJudge::Rescored(by)),
                judged_by: judged_by(&id, true),
                scorer: id,
                warnings,
                note: None,
            });
        }
        let named = match asked {
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
        // A log of the tool's own against run rows (a run read from a lake): judged by the
        // tool's key, which names the rows' score too (`score::entry_of`), not the other way.
        let (first, second) = match (rows(baseline), rows(candidate)) {
            (true, false) => (candidate, baseline),
            _ => (baseline, candidate),
        };
        let key: Option<MetricKey> = named
            .or_else(|| first.verdict_by.clone())
            .or_else(|| second.verdict_by.clone());
        if let (None, Some(b), Some(c), Some(k)) =
            (asked, &baseline.verdict_by, &candidate.verdict_by, &key)
        {
            // Run rows name the tool's key by its label: the same headline.
            if b.label() != c.label() {
                warnings.push(format!(
                    "the candidate's headline is {}, the baseline's {}: both are judged by {}",
                    c.label(),
                    b.label(),
                    k.label()
                ));
            }
        }
        let scorer = key.as_ref().map(MetricKey::label).unwrap_or_default();
        Ok(PairJudge {
            note: key
                .is_none()
                .then(|| "neither log names a headline score: nothing to pair".to_string()),
            judge: key.map(LogJudge::Recorded),
            judged_by: judged_by(&scorer, false),
            scorer,
            warnings,
        })
    }

    fn judged(&self, judge: &Option<LogJudge>, side: Side) -> Result<Judged<'_>, String> {
        let run = &self.log.run;
        let items: std::borrow::Cow<[ItemVerdict]> = match judge {
            // No score judges the log: every sample is an item, unscored (a query or the run
            // table still lists them all, as Items does).
            None => std::borrow::Cow::Owned(
                run.samples
                    .iter()
                    .enumerate()
                    .map(|(i, s)| ItemVerdict::of(i, s, None))
                    .collect(),
            ),
            Some(LogJudge::Recorded(key)) if self.verdict_by.as_ref() == Some(key) => {
                std::borrow::Cow::Borrowed(&self.items)
            }
            Some(LogJudge::Recorded(key)) => std::borrow::Cow::Owned(verdicts(run, key)),
            Some(LogJudge::Rescored(by)) => match &self.rescored {
                Some(r) if r.by == *by => std::borrow::Cow::Borrowed(&r.items),
                _ => std::borrow::Cow::Owned(rescored_verdicts(run, self.verdict_by.as_ref(), by)),
            },
        };
        let mut rows: Vec<(ItemKey, Judgement)> = items
            .iter()
            .map(|it| {
                (
                    ItemKey::from_parts(&it.key),
                    Judgement {
                        correct: it.correct,
                        reading: it.reading,
                        sample: run.samples.get(it.sample),
                    },
                )
            })
            .collect();
        let repeated = sort_unique(&mut rows);
        let warnings = repeated_warnings(side, &self.log.name, "item", repeated);
        Ok(Judged {
            items: Box::new(rows),
            failed: Vec::new(),
            warnings,
        })
    }

    /// The repeat part of the tool's key ([`super::repeats::repeat_part`]: Inspect's epoch,
    /// promptfoo's repeat, HELM's train trial) and, for a recorded score, its own epoch reducer
    /// (an Inspect headline `match[pass_at_2]/accuracy` is reduced by `pass_at_2`), else `mean`
    /// (Inspect's default).
    fn repeats_by(&self, judge: &Option<LogJudge>) -> Option<(usize, Reduction)> {
        let part = super::repeats::repeat_part(&self.log.run)?;
        let own = match judge {
            Some(LogJudge::Recorded(key)) => key.variant.as_deref().and_then(Reduction::parse),
            _ => None,
        };
        Some((part, own.unwrap_or(Reduction::Mean)))
    }
}

/// The run's headline score, recomputed and as recorded, then (when it is re-scored) the
/// re-scored value; the accuracy and error rate of the samples, and where the log records them
/// their tokens, cost under the price table and per correct item, the cost the tool recorded,
/// the cache-hit ratio and latency (mean, p50, p95, max).
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
    let b = &s.billing;
    if b.n_with_tokens > 0 {
        // Null when a sample's model has no price: both sides of a comparison show the row.
        out.push(MetricValue::new(
            "total_cost_usd",
            "Cost (price table)",
            Unit::Usd,
            b.cost,
        ));
        out.push(MetricValue::new(
            "cost_per_correct_usd",
            "Cost per correct",
            Unit::Usd,
            s.cost_per_correct(),
        ));
    }
    if u.cost.is_some() {
        out.push(MetricValue::new(
            "cost",
            "Cost (recorded)",
            Unit::Usd,
            u.cost,
        ));
    }
    if let Some(r) = b.cache_hit_ratio() {
        out.push(MetricValue::new(
            "cache_hit_ratio",
            "Cache-hit ratio",
            Unit::Rate,
            Some(r),
        ));
    }
    if u.n_latency > 0 {
        for (key, label, value) in [
            ("latency_mean", "Mean latency", u.latency_mean),
            ("latency_p50", "Latency p50", u.latency_p50),
            ("latency_p95", "Latency p95", u.latency_p95),
            ("latency_max", "Latency max", u.latency_max),
        ] {
            out.push(MetricValue::new(key, label, Unit::Seconds, value));
        }
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
        out.entry(ItemKey::from_parts(&it.key)).or_insert_with(|| {
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
                usage: sample_usage(s, it.sample, sample),
            }
        });
    }
}

/// A sample's tokens by price class ([`super::billing`]), latency, cost (under the price table,
/// as the run's total cost sums it; else the tool's own) and recorded scores: `{scorer: value}`,
/// a dict-valued scorer's entries as `{scorer: {key: value}}`.
fn sample_usage(s: &ScoredLog, at: usize, sample: &super::model::Sample) -> ItemUsage {
    use serde_json::{Map, Value};
    let bill = s.billing.samples.get(at);
    let mut scores = Map::new();
    for e in &sample.scores {
        let v = recorded_json(&e.value);
        match &e.key {
            None => {
                scores.insert(e.scorer.clone(), v);
            }
            Some(k) => {
                let slot = scores
                    .entry(e.scorer.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = slot {
                    m.insert(k.clone(), v);
                }
            }
        }
    }
    ItemUsage {
        tokens: bill.and_then(|b| b.split),
        latency_ms: sample.latency.filter(|x| x.is_finite()).map(|s| s * 1000.0),
        cost_usd: bill.and_then(|b| b.cost).or(sample.cost),
        source_scores: (!scores.is_empty()).then(|| Value::Object(scores).to_string()),
    }
}

/// A recorded score as JSON: a non-finite number (`NaN`) as its token's text.
fn recorded_json(v: &super::model::RecordedValue) -> serde_json::Value {
    use super::model::RecordedValue as R;
    use serde_json::Value;
    match v {
        R::Null => Value::Null,
        R::Bool(b) => Value::Bool(*b),
        R::Int(i) => Value::from(*i),
        R::Float(x) => serde_json::Number::from_f64(*x)
            .map_or_else(|| Value::String(x.to_string()), Value::Number),
        R::Str(s) | R::NonFinite(s) => Value::String(s.clone()),
        R::List(l) => Value::Array(l.iter().map(recorded_json).collect()),
    }
}
