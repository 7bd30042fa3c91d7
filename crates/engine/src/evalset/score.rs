//! `answer_correctness@v1` (and `@v1-extract`) per item, and the seed system's scorecard.
//!
//! v1 reproduces tunix-rt's `AnswerCorrectnessJudge._compare`: `s.strip().lower()` on both sides,
//! then string equality (Python's `strip` whitespace set and Unicode `lower`, so `"ß"` never
//! equals `"SS"` and NBSP / em spaces around an answer are stripped). The scorecard reproduces
//! `compute_scorecard` (M35) bit for bit: rows sorted by id, primary-score rules
//! `metrics.answer_correctness` → `correctness` → `score` (÷100 when > 1), out-of-range and NaN
//! skipped, population standard deviation, per-group means in first-seen order.

use std::collections::HashMap;

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::pyfloat::{py_float, py_json_key, py_str, py_strip, py_truthy};
use super::{EvalItem, EvalRun, Prediction, SummaryEntry};
use crate::family::Family;
use crate::scorer_table::Scorer;

/// Which answer comparison scores an item.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AnswerScorer {
    /// `answer_correctness@v1`: the whole prediction, stripped and lower-cased, equals the
    /// expected answer stripped and lower-cased.
    #[default]
    #[serde(rename = "answer_correctness@v1")]
    V1,
    /// `answer_correctness@v1-extract`: as v1, after [`extract_answer`] on the prediction.
    #[serde(rename = "answer_correctness@v1-extract")]
    V1Extract,
}

/// `answer_correctness@v1`.
pub const V1: Scorer = Scorer::new(
    "answer_correctness@v1",
    Family::Evalset,
    "The whole prediction equals the expected answer after stripping whitespace and lower-casing both.",
    ["Answer", "answer", "true"],
);
/// `answer_correctness@v1-extract`. In an example, `\n` stands for a line break.
pub const V1_EXTRACT: Scorer = Scorer::new(
    "answer_correctness@v1-extract",
    Family::Evalset,
    "As v1, on the answer extracted from the prediction (after `Answer:`, else its last non-blank line).",
    ["Paris", "The capital is Paris.\\nAnswer: paris", "true"],
);

/// The eval-set scorers, in [`AnswerScorer::ALL`] order.
pub const SCORERS: [Scorer; 2] = [V1, V1_EXTRACT];

impl AnswerScorer {
    /// Every answer scorer, in [`SCORERS`] order.
    pub const ALL: [AnswerScorer; 2] = [AnswerScorer::V1, AnswerScorer::V1Extract];

    /// The scorer's entry in the scorer table.
    pub fn scorer(self) -> &'static Scorer {
        match self {
            AnswerScorer::V1 => &V1,
            AnswerScorer::V1Extract => &V1_EXTRACT,
        }
    }

    /// `name@version` (its serde name too).
    pub fn id(self) -> &'static str {
        self.scorer().id
    }

    /// Accepts the full id or its version part (`v1`, `v1-extract`).
    pub fn from_id(s: &str) -> Option<AnswerScorer> {
        let v = s.trim();
        let v = v.strip_prefix(V1.name()).unwrap_or(v);
        let v = v.strip_prefix('@').unwrap_or(v);
        AnswerScorer::ALL
            .into_iter()
            .find(|a| a.scorer().version() == v)
    }
}

/// The pass threshold the seed judge used: a run passes only when every item is correct.
pub const DEFAULT_PASS_THRESHOLD: f64 = 1.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoringOptions {
    pub scorer: AnswerScorer,
    /// A run that did not fail passes when `primary_score >= pass_threshold`.
    pub pass_threshold: f64,
}

impl Default for ScoringOptions {
    fn default() -> Self {
        ScoringOptions {
            scorer: AnswerScorer::V1,
            pass_threshold: DEFAULT_PASS_THRESHOLD,
        }
    }
}

/// `s.strip().lower()` as Python computes it.
pub fn normalize_answer(s: &str) -> String {
    py_strip(s).to_lowercase()
}

/// `answer_correctness@v1` on two texts.
pub fn answers_match(expected: &str, predicted: &str) -> bool {
    normalize_answer(expected) == normalize_answer(predicted)
}

/// Which rule of [`extract_answer`] produced the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractRule {
    /// The text after an `Answer:` marker.
    AnswerMarker,
    /// The last non-blank line.
    FinalLine,
    /// The prediction was blank.
    Empty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extracted<'a> {
    pub text: &'a str,
    pub rule: ExtractRule,
}

/// The `@v1-extract` rule. Lines are split on `\n` (a trailing `\r` is dropped).
///
/// 1. **Answer marker.** A marker is the ASCII word `answer` in any case, not preceded by an
///    ASCII letter or digit, followed by optional spaces/tabs and a `:`. Lines are scanned from
///    last to first; in the first line that has a marker whose rest of line is non-empty (after
///    stripping Python whitespace, then `*` emphasis, then whitespace again), that rest is the
///    answer (the leftmost such marker in the line).
/// 2. **Final line.** Otherwise the last line that is not blank, stripped.
/// 3. Otherwise (blank prediction) the empty string.
pub fn extract_answer(text: &str) -> Extracted<'_> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    for line in lines.iter().rev() {
        if let Some(ans) = marker_answer(line) {
            return Extracted {
                text: ans,
                rule: ExtractRule::AnswerMarker,
            };
        }
    }
    for line in lines.iter().rev() {
        let t = py_strip(line);
        if !t.is_empty() {
            return Extracted {
                text: t,
                rule: ExtractRule::FinalLine,
            };
        }
    }
    Extracted {
        text: "",
        rule: ExtractRule::Empty,
    }
}

fn marker_answer(line: &str) -> Option<&str> {
    const WORD: &[u8] = b"answer";
    let b = line.as_bytes();
    let mut i = 0;
    while i + WORD.len() <= b.len() {
        let hit = b
            .get(i..i + WORD.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(WORD));
        let boundary = i == 0 || !b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric);
        if hit && boundary {
            let mut j = i + WORD.len();
            while b.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
                j += 1;
            }
            if b.get(j) == Some(&b':') {
                // ASCII positions are always char boundaries.
                let rest = line.get(j + 1..).unwrap_or("");
                let ans = py_strip(py_strip(rest).trim_matches('*'));
                if !ans.is_empty() {
                    return Some(ans);
                }
            }
        }
        i += 1;
    }
    None
}

/// Why an item scored 0 or was skipped.
pub const REASON_MISSING: &str = "missing prediction";
pub const REASON_NO_EXPECTED: &str = "no expected answer";

/// One item, scored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemScore {
    pub item_id: String,
    pub expected: Option<String>,
    pub predicted: Option<String>,
    /// What `@v1-extract` compared (absent under v1).
    pub extracted: Option<String>,
    /// 1.0 correct, 0.0 wrong / missing / failed; `None` when the item could not be scored.
    pub correctness: Option<f64>,
    /// Why the item scored 0 without a comparison, or was skipped.
    pub reason: Option<String>,
    /// The original system's verdict, when the predictions file carried one.
    pub original_correct: Option<f64>,
    pub eval_time_ms: Option<u64>,
    pub section: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
}

impl ItemScore {
    /// `Some(true)` correct, `Some(false)` scored 0, `None` not scored.
    pub fn is_correct(&self) -> Option<bool> {
        self.correctness.map(|c| c == 1.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
        }
    }
}

/// How the re-scored items compare with the verdicts the original system wrote.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginalAgreement {
    /// Items scored here that also carry an original verdict.
    pub n_compared: u64,
    pub n_disagree: u64,
    /// Ids whose original verdict (`>= 0.5` counts as correct) differs, sorted.
    pub disagreeing_ids: Vec<String>,
}

/// A run, scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoredRun {
    pub name: String,
    pub scorer: AnswerScorer,
    /// One per eval-set item, in eval-set order. Empty when per-item scoring is unavailable.
    pub items: Vec<ItemScore>,
    /// `None` when the run has no per-item predictions (see `per_item_unavailable`).
    pub scorecard: Option<Scorecard>,
    pub verdict: Verdict,
    pub verdict_reason: String,
    /// "per-item diff unavailable" and why, when the run has no per-item predictions.
    pub per_item_unavailable: Option<String>,
    /// The run's failure status (manifest `status`), when it failed / crashed / timed out.
    pub run_failure: Option<String>,
    /// The matching eval-summary entry, as originally scored.
    pub original: Option<SummaryEntry>,
    pub original_agreement: Option<OriginalAgreement>,
    /// Model, eval set, manifest, durations and the training loss curve, for comparisons.
    pub meta: crate::run_meta::RunMeta,
}

impl ScoredRun {
    /// Items that were scored, as (id, correct) pairs.
    pub fn outcomes(&self) -> impl Iterator<Item = (&str, Option<bool>)> {
        self.items
            .iter()
            .map(|i| (i.item_id.as_str(), i.is_correct()))
    }
}

/// Scores every item of `run` and builds the scorecard and verdict.
pub fn score_run(run: &EvalRun, opts: &ScoringOptions) -> ScoredRun {
    let run_failure = run
        .manifest
        .as_ref()
        .and_then(|m| m.failure_status())
        .map(str::to_string);
    let original = run.original_entry().cloned();
    let mut scored = ScoredRun {
        name: run.name.clone(),
        scorer: opts.scorer,
        items: Vec::new(),
        scorecard: None,
        verdict: Verdict::Fail,
        verdict_reason: String::new(),
        per_item_unavailable: None,
        run_failure: run_failure.clone(),
        original,
        original_agreement: None,
        meta: crate::evalset::meta::evalset_meta(run, opts.scorer.id()),
    };

    if run.predictions.is_empty() {
        let why = if !run.prediction_files.is_empty() {
            "per-item diff unavailable: the predictions files hold no usable prediction"
        } else if !run.summaries.is_empty() {
            "per-item diff unavailable: the run has only eval_summary.json (as originally \
             scored), no per-item predictions"
        } else {
            "per-item diff unavailable: the run has no predictions file"
        };
        scored.per_item_unavailable = Some(why.to_string());
        let orig = scored.original.as_ref().and_then(|e| e.accuracy);
        (scored.verdict, scored.verdict_reason) = match (&run_failure, orig) {
            (Some(s), _) => (Verdict::Fail, format!("run status: {s}")),
            (None, Some(a)) => threshold_verdict(a, opts.pass_threshold, " (as originally scored)"),
            (None, None) => (Verdict::Fail, "no predictions and no original score".into()),
        };
        return scored;
    }

    let by_id: HashMap<&str, &Prediction> = run
        .predictions
        .iter()
        .map(|p| (p.item_id.as_str(), p))
        .collect();
    for item in &run.items {
        let pred = by_id.get(item.id.as_str()).copied();
        scored
            .items
            .push(score_item(item, pred, run_failure.as_deref(), opts.scorer));
    }
    scored.original_agreement = agreement(&scored.items);

    let rows: Vec<ScoreRow> = scored.items.iter().map(ScoreRow::from_item).collect();
    let card = compute_scorecard(&rows, Some(&run.items));
    (scored.verdict, scored.verdict_reason) = match (&run_failure, card.primary_score) {
        (Some(s), _) => (Verdict::Fail, format!("run status: {s}")),
        (None, Some(p)) => threshold_verdict(p, opts.pass_threshold, ""),
        (None, None) => (Verdict::Fail, "no item could be scored".into()),
    };
    scored.scorecard = Some(card);
    scored
}

fn threshold_verdict(score: f64, threshold: f64, note: &str) -> (Verdict, String) {
    let s = py_str(&serde_json::json!(score));
    let t = py_str(&serde_json::json!(threshold));
    if score >= threshold {
        (
            Verdict::Pass,
            format!("primary_score {s} >= threshold {t}{note}"),
        )
    } else {
        (
            Verdict::Fail,
            format!("primary_score {s} < threshold {t}{note}"),
        )
    }
}

fn score_item(
    item: &EvalItem,
    pred: Option<&Prediction>,
    run_failure: Option<&str>,
    scorer: AnswerScorer,
) -> ItemScore {
    let mut s = ItemScore {
        item_id: item.id.clone(),
        expected: item.expected.clone(),
        section: pred
            .and_then(|p| p.section.clone())
            .or_else(|| item.section.clone()),
        category: pred
            .and_then(|p| p.category.clone())
            .or_else(|| item.category.clone()),
        difficulty: pred
            .and_then(|p| p.difficulty.clone())
            .or_else(|| item.difficulty.clone()),
        ..ItemScore::default()
    };
    if let Some(p) = pred {
        s.predicted.clone_from(&p.predicted);
        s.original_correct = p.original_correct;
        s.eval_time_ms = p.eval_time_ms;
    }
    if let Some(status) = run_failure {
        s.correctness = Some(0.0);
        s.reason = Some(format!("run status: {status}"));
        return s;
    }
    let Some(p) = pred else {
        s.correctness = Some(0.0);
        s.reason = Some(REASON_MISSING.into());
        return s;
    };
    if let Some(f) = &p.failure {
        s.correctness = Some(0.0);
        s.reason = Some(f.clone());
        return s;
    }
    let Some(predicted) = &p.predicted else {
        s.correctness = Some(0.0);
        s.reason = Some(REASON_MISSING.into());
        return s;
    };
    let Some(expected) = &item.expected else {
        s.reason = Some(REASON_NO_EXPECTED.into());
        return s;
    };
    let compared = match scorer {
        AnswerScorer::V1 => predicted.as_str(),
        AnswerScorer::V1Extract => {
            let e = extract_answer(predicted).text;
            s.extracted = Some(e.to_string());
            e
        }
    };
    s.correctness = Some(if answers_match(expected, compared) {
        1.0
    } else {
        0.0
    });
    s
}

fn agreement(items: &[ItemScore]) -> Option<OriginalAgreement> {
    let mut a = OriginalAgreement::default();
    for it in items {
        let (Some(ours), Some(orig)) = (it.is_correct(), it.original_correct) else {
            continue;
        };
        a.n_compared += 1;
        if ours != (orig >= 0.5) {
            a.n_disagree += 1;
            a.disagreeing_ids.push(it.item_id.clone());
        }
    }
    a.disagreeing_ids.sort();
    (a.n_compared > 0).then_some(a)
}

// ---------------------------------------------------------------------------------------------
// The seed system's scorecard
// ---------------------------------------------------------------------------------------------

/// One evaluation row as `compute_scorecard` sees it: an id, the extracted score and labels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreRow {
    pub item_id: String,
    /// Already extracted (see [`extract_score`]); `None` counts as skipped.
    pub score: Option<f64>,
    pub section: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
}

impl ScoreRow {
    /// Lowers a raw evaluation row (`{item_id|id, metrics{answer_correctness}, correctness,
    /// score, section, category, difficulty}`) exactly as `compute_scorecard` reads it.
    pub fn from_json(row: &Value) -> ScoreRow {
        let Value::Object(o) = row else {
            return ScoreRow::default();
        };
        let truthy = |k: &str| o.get(k).filter(|v| py_truthy(v));
        ScoreRow {
            item_id: truthy("item_id")
                .or_else(|| truthy("id"))
                .map(py_str)
                .unwrap_or_default(),
            score: extract_score(row),
            section: truthy("section").and_then(py_json_key),
            category: truthy("category").and_then(py_json_key),
            difficulty: truthy("difficulty").and_then(py_json_key),
        }
    }

    fn from_item(s: &ItemScore) -> ScoreRow {
        ScoreRow {
            item_id: s.item_id.clone(),
            score: s.correctness,
            section: s.section.clone(),
            category: s.category.clone(),
            difficulty: s.difficulty.clone(),
        }
    }
}

/// `_extract_score` (M35): `metrics.answer_correctness`, else `correctness`, else `score`
/// (÷100 when > 1); each read with Python's `float()` and falling through only when absent,
/// null or not convertible. A value outside [0, 1] or NaN gives `None` (skipped).
pub fn extract_score(row: &Value) -> Option<f64> {
    let Value::Object(o) = row else {
        return None;
    };
    let mut value: Option<f64> = None;
    if let Some(Value::Object(m)) = o.get("metrics") {
        value = m.get("answer_correctness").and_then(py_float);
    }
    if value.is_none() {
        value = o.get("correctness").and_then(py_float);
    }
    if value.is_none() {
        value = o
            .get("score")
            .and_then(py_float)
            .map(|f| if f > 1.0 { f / 100.0 } else { f });
    }
    value.filter(|v| (0.0..=1.0).contains(v))
}

/// `compute_primary_score` (M34): `metrics.answer_correctness`, else `score` (÷100 when > 1),
/// in row order, mean of the values in [0, 1]; `None` when there are none.
pub fn compute_primary_score(rows: &[Value]) -> Option<f64> {
    let mut valid = Vec::new();
    for row in rows {
        let Value::Object(o) = row else {
            continue;
        };
        let mut value: Option<f64> = None;
        if let Some(Value::Object(m)) = o.get("metrics") {
            value = m.get("answer_correctness").and_then(py_float);
        }
        if value.is_none() {
            value = o
                .get("score")
                .and_then(py_float)
                .map(|f| if f > 1.0 { f / 100.0 } else { f });
        }
        if let Some(v) = value.filter(|v| (0.0..=1.0).contains(v)) {
            valid.push(v);
        }
    }
    mean(&valid)
}

/// The scorecard (M35). Serialises with exactly the seed's keys, in its order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scorecard {
    pub n_items: u64,
    pub n_scored: u64,
    pub n_skipped: u64,
    pub primary_score: Option<f64>,
    /// Population standard deviation; `None` under 2 scored items.
    pub stddev: Option<f64>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    /// Group means, in the order groups first appear among the rows sorted by id.
    pub section_scores: Vec<(String, f64)>,
    pub category_scores: Vec<(String, f64)>,
    pub difficulty_scores: Vec<(String, f64)>,
}

/// A `Vec<(String, f64)>` serialised as a JSON object in its order.
pub(crate) struct OrderedMap<'a>(pub &'a [(String, f64)]);

impl Serialize for OrderedMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Serialize for Scorecard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Scorecard", 10)?;
        st.serialize_field("n_items", &self.n_items)?;
        st.serialize_field("n_scored", &self.n_scored)?;
        st.serialize_field("n_skipped", &self.n_skipped)?;
        st.serialize_field("primary_score", &self.primary_score)?;
        st.serialize_field("stddev", &self.stddev)?;
        st.serialize_field("min_score", &self.min_score)?;
        st.serialize_field("max_score", &self.max_score)?;
        st.serialize_field("section_scores", &OrderedMap(&self.section_scores))?;
        st.serialize_field("category_scores", &OrderedMap(&self.category_scores))?;
        st.serialize_field("difficulty_scores", &OrderedMap(&self.difficulty_scores))?;
        st.end()
    }
}

/// Groups scores by label, remembering the order labels first appear.
#[derive(Default)]
struct Groups {
    order: Vec<(String, Vec<f64>)>,
    index: HashMap<String, usize>,
}

impl Groups {
    fn add(&mut self, key: &str, v: f64) {
        match self.index.get(key) {
            Some(&i) => {
                if let Some(g) = self.order.get_mut(i) {
                    g.1.push(v);
                }
            }
            None => {
                self.index.insert(key.to_string(), self.order.len());
                self.order.push((key.to_string(), vec![v]));
            }
        }
    }
    fn means(self) -> Vec<(String, f64)> {
        self.order
            .into_iter()
            .filter_map(|(k, v)| mean(&v).map(|m| (k, m)))
            .collect()
    }
}

/// `compute_scorecard` (M35). Rows are sorted by `item_id` (stable) before anything is summed;
/// a row's own labels win, else the eval item's with the same id.
pub fn compute_scorecard(rows: &[ScoreRow], eval_items: Option<&[EvalItem]>) -> Scorecard {
    let mut meta: HashMap<&str, &EvalItem> = HashMap::new();
    for it in eval_items.unwrap_or(&[]) {
        if !it.id.is_empty() {
            meta.insert(it.id.as_str(), it);
        }
    }
    let mut sorted: Vec<&ScoreRow> = rows.iter().collect();
    sorted.sort_by(|a, b| a.item_id.cmp(&b.item_id));

    let mut all = Vec::new();
    let (mut sections, mut categories, mut difficulties) =
        (Groups::default(), Groups::default(), Groups::default());
    let mut n_skipped = 0u64;
    for row in &sorted {
        let Some(v) = row.score.filter(|v| (0.0..=1.0).contains(v)) else {
            n_skipped += 1;
            continue;
        };
        all.push(v);
        let m = meta.get(row.item_id.as_str());
        let pick = |own: &Option<String>, from: fn(&EvalItem) -> &Option<String>| {
            own.clone()
                .filter(|s| !s.is_empty())
                .or_else(|| m.and_then(|i| from(i).clone()))
                .filter(|s| !s.is_empty())
        };
        if let Some(s) = pick(&row.section, |i| &i.section) {
            sections.add(&s, v);
        }
        if let Some(c) = pick(&row.category, |i| &i.category) {
            categories.add(&c, v);
        }
        if let Some(d) = pick(&row.difficulty, |i| &i.difficulty) {
            difficulties.add(&d, v);
        }
    }
    let primary = mean(&all);
    Scorecard {
        n_items: sorted.len() as u64,
        n_scored: all.len() as u64,
        n_skipped,
        primary_score: primary,
        stddev: if all.len() >= 2 {
            population_stddev(&all)
        } else {
            None
        },
        min_score: py_min(&all),
        max_score: py_max(&all),
        section_scores: sections.means(),
        category_scores: categories.means(),
        difficulty_scores: difficulties.means(),
    }
}

/// `sum(v) / len(v)`: left-to-right summation as CPython's `sum` up to 3.11 does it (3.12+
/// compensates; for 0/1 scores both are exact).
fn mean(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = 0.0;
    for x in v {
        s += x;
    }
    Some(s / v.len() as f64)
}

/// `_compute_stddev`: `sqrt(sum((x - mean) ** 2) / n)`.
fn population_stddev(v: &[f64]) -> Option<f64> {
    let m = mean(v)?;
    let mut s = 0.0;
    for x in v {
        let d = x - m;
        s += d * d;
    }
    Some((s / v.len() as f64).sqrt())
}

/// Python's `min`: the first of equal minima.
fn py_min(v: &[f64]) -> Option<f64> {
    let (first, rest) = v.split_first()?;
    Some(rest.iter().fold(*first, |m, x| if *x < m { *x } else { m }))
}

fn py_max(v: &[f64]) -> Option<f64> {
    let (first, rest) = v.split_first()?;
    Some(rest.iter().fold(*first, |m, x| if *x > m { *x } else { m }))
}

/// The headline metrics of an eval-set run (keys of its scorecard statistics), in display order.
pub const HEADLINE: [crate::headline::Metric; 5] = {
    use crate::headline::{Metric, Shown::AsRecorded};
    const fn field(key: &'static str, label: &'static str, definition: &'static str) -> Metric {
        Metric {
            key,
            label,
            shown: AsRecorded,
            definition,
        }
    }
    [
        field("n_items", "Items", "Items in the eval set (or predicted, when no set is attached)."),
        field("n_scored", "Scored", "Items with a prediction the scorer could judge."),
        field("n_skipped", "Skipped", "Items without a usable prediction (not counted as correct)."),
        field(
            "primary_score",
            "Primary score",
            "Share of scored items whose answer matches the expected answer under the selected scorer.",
        ),
        field("verdict", "Verdict", "Pass or fail of the primary score against the pass threshold."),
    ]
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every scorer's example in the scorer table, scored: the verdict the table gives.
    #[test]
    fn examples_in_the_table_are_what_the_scorers_give() {
        for s in AnswerScorer::ALL {
            let e = &s.scorer().example;
            let predicted = e.predicted.replace("\\n", "\n");
            let compared = match s {
                AnswerScorer::V1 => predicted.as_str(),
                AnswerScorer::V1Extract => extract_answer(&predicted).text,
            };
            let got = answers_match(e.expected, compared);
            assert_eq!(got.to_string(), e.verdict, "{}", s.id());
        }
        // The extract example is one v1 alone gets wrong.
        let e = &V1_EXTRACT.example;
        assert!(!answers_match(
            e.expected,
            &e.predicted.replace("\\n", "\n")
        ));
    }

    fn check_match(expected: &str, predicted: &str, correct: bool) {
        assert_eq!(
            answers_match(expected, predicted),
            correct,
            "{expected:?} vs {predicted:?}"
        );
    }

    #[test]
    fn v1_normalisation() {
        check_match("Answer", "answer", true);
        check_match("Multi\nLine", "multi\nline", true);
        check_match("Paris", "paris.", false);
        check_match("ß", "SS", false);
        check_match("ß", "ss", false);
        check_match("42", "\u{a0}42\u{2003}", true);
        check_match("42", "\u{1c}42\u{1f}", true);
        check_match("42", "\u{200b}42", false);
        check_match("1,000", "1000", false);
        check_match("50%", "50 %", false);
        check_match("-5", "−5", false);
        check_match("", "   ", true);
        check_match("ΣΑΣ", "σας", true);
        check_match("İ", "i̇", true);
        check_match("a  b", "a b", false);
    }

    fn check_extract(input: &str, text: &str, rule: ExtractRule) {
        assert_eq!(extract_answer(input), Extracted { text, rule }, "{input:?}");
    }

    #[test]
    fn extract_rules() {
        check_extract("Answer: 42", "42", ExtractRule::AnswerMarker);
        check_extract(
            "reasoning\nFinal answer : Paris \nmore",
            "Paris",
            ExtractRule::AnswerMarker,
        );
        check_extract("ANSWER:\t 7\r\nthen 8", "7", ExtractRule::AnswerMarker);
        check_extract("**Answer:** 12", "12", ExtractRule::AnswerMarker);
        check_extract("Answer: 1\nAnswer: 2", "2", ExtractRule::AnswerMarker);
        check_extract("Answer: 1\nAnswer:\n3", "1", ExtractRule::AnswerMarker);
        check_extract("Answer:\n\nStep 1\n63", "63", ExtractRule::FinalLine);
        check_extract("reanswer: 5\nx", "x", ExtractRule::FinalLine);
        check_extract("the answer is 5", "the answer is 5", ExtractRule::FinalLine);
        check_extract("15 + 27 = 42\n42\n42\n\n  \n", "42", ExtractRule::FinalLine);
        check_extract(
            "Answer: 1 answer: 2",
            "1 answer: 2",
            ExtractRule::AnswerMarker,
        );
        check_extract("Ответ\nanswer: ß", "ß", ExtractRule::AnswerMarker);
        check_extract("", "", ExtractRule::Empty);
        check_extract(" \n\u{a0}\n", "", ExtractRule::Empty);
    }

    #[test]
    fn scorer_ids_round_trip() {
        for (s, entry) in AnswerScorer::ALL.into_iter().zip(&SCORERS) {
            assert_eq!(s.scorer(), entry);
            assert_eq!(AnswerScorer::from_id(s.id()), Some(s));
            assert_eq!(AnswerScorer::from_id(entry.version()), Some(s));
            // The serde name (the protocol's and the JSON outputs') is the table's id.
            assert_eq!(serde_json::to_value(s).unwrap(), json!(entry.id));
        }
        assert_eq!(
            AnswerScorer::from_id("v1-extract"),
            Some(AnswerScorer::V1Extract)
        );
        assert_eq!(AnswerScorer::from_id("v2"), None);
    }

    fn check_score(row: Value, expected: Option<f64>) {
        assert_eq!(extract_score(&row), expected, "{row}");
    }

    #[test]
    fn extract_score_priorities() {
        check_score(
            json!({"metrics": {"answer_correctness": 0.8}, "score": 10}),
            Some(0.8),
        );
        check_score(
            json!({"metrics": {"answer_correctness": 1.5}, "score": 0.5}),
            None,
        );
        check_score(
            json!({"metrics": {"answer_correctness": "abc"}, "score": 50}),
            Some(0.5),
        );
        check_score(
            json!({"metrics": {"answer_correctness": null}, "correctness": 1}),
            Some(1.0),
        );
        check_score(
            json!({"metrics": {"answer_correctness": "nan"}, "score": 50}),
            None,
        );
        check_score(json!({"correctness": true}), Some(1.0));
        check_score(json!({"correctness": "0.25"}), Some(0.25));
        check_score(json!({"correctness": -0.1, "score": 1}), None);
        check_score(json!({"score": 60}), Some(0.6));
        check_score(json!({"score": 1.5}), Some(0.015));
        check_score(json!({"score": 150}), None);
        check_score(json!({"score": "abc"}), None);
        check_score(json!({"score": "50%"}), None);
        check_score(json!({"score": "1_00"}), Some(1.0));
        check_score(json!({"score": "inf"}), None);
        check_score(json!({"score": -0.0}), Some(-0.0));
        check_score(json!({"score": [1]}), None);
        check_score(json!({"metrics": "notadict", "score": 0.6}), Some(0.6));
        check_score(json!({}), None);
        check_score(json!("row"), None);
    }

    fn row(id: &str, score: Option<f64>, section: Option<&str>) -> ScoreRow {
        ScoreRow {
            item_id: id.into(),
            score,
            section: section.map(String::from),
            ..ScoreRow::default()
        }
    }

    #[test]
    fn scorecard_groups_sorting_and_metadata_fallback() {
        let items = vec![
            EvalItem {
                id: "b".into(),
                category: Some("geo".into()),
                difficulty: Some("hard".into()),
                ..EvalItem::default()
            },
            EvalItem {
                id: "a".into(),
                section: Some("core".into()),
                category: Some("arith".into()),
                ..EvalItem::default()
            },
        ];
        let rows = vec![
            row("c", Some(0.0), Some("edge_case")),
            row("b", Some(1.0), Some("core")),
            row("a", Some(0.5), None),
            row("d", None, Some("core")),
            row("e", Some(f64::NAN), Some("core")),
        ];
        let card = compute_scorecard(&rows, Some(&items));
        let got = serde_json::to_string(&card).unwrap();
        assert_eq!(
            got,
            r#"{"n_items":5,"n_scored":3,"n_skipped":2,"primary_score":0.5,"stddev":0.408248290463863,"min_score":0.0,"max_score":1.0,"section_scores":{"core":0.75,"edge_case":0.0},"category_scores":{"arith":0.5,"geo":1.0},"difficulty_scores":{"hard":1.0}}"#
        );
    }

    #[test]
    fn scorecard_of_nothing_is_null_not_zero() {
        let card = compute_scorecard(&[], None);
        assert_eq!(
            serde_json::to_value(&card).unwrap(),
            json!({"n_items": 0, "n_scored": 0, "n_skipped": 0, "primary_score": null,
                   "stddev": null, "min_score": null, "max_score": null,
                   "section_scores": {}, "category_scores": {}, "difficulty_scores": {}})
        );
        let one = compute_scorecard(&[row("a", Some(1.0), None)], None);
        assert_eq!(one.stddev, None);
        assert_eq!(one.min_score, Some(1.0));
    }

    #[test]
    fn primary_score_m34_ignores_correctness() {
        let rows = [json!({"correctness": 1.0}), json!({"score": 80})];
        assert_eq!(compute_primary_score(&rows), Some(0.8));
        assert_eq!(compute_primary_score(&[]), None);
        assert_eq!(compute_primary_score(&[json!({"correctness": 1.0})]), None);
    }

    fn run_of(items: &[(&str, &str)], preds: Vec<Prediction>) -> EvalRun {
        EvalRun {
            name: "r".into(),
            items: items
                .iter()
                .map(|(id, exp)| EvalItem {
                    id: (*id).into(),
                    expected: Some((*exp).into()),
                    section: Some("core".into()),
                    ..EvalItem::default()
                })
                .collect(),
            prediction_files: vec!["p.jsonl".into()],
            predictions: preds,
            ..EvalRun::default()
        }
    }

    fn pred(id: &str, text: Option<&str>, failure: Option<&str>) -> Prediction {
        Prediction {
            item_id: id.into(),
            predicted: text.map(String::from),
            failure: failure.map(String::from),
            ..Prediction::default()
        }
    }

    #[test]
    fn score_run_failures_and_reasons() {
        let run = run_of(
            &[
                ("a", "42"),
                ("b", "Paris"),
                ("c", "7"),
                ("d", "1"),
                ("e", "2"),
            ],
            vec![
                pred("a", Some(" 42 "), None),
                pred("b", Some("The answer: paris"), None),
                pred("c", Some("7"), Some("crashed")),
                pred("d", None, None),
            ],
        );
        let scored = score_run(&run, &ScoringOptions::default());
        let got: Vec<(Option<f64>, Option<&str>)> = scored
            .items
            .iter()
            .map(|i| (i.correctness, i.reason.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (Some(1.0), None),
                (Some(0.0), None),
                (Some(0.0), Some("crashed")),
                (Some(0.0), Some(REASON_MISSING)),
                (Some(0.0), Some(REASON_MISSING)),
            ]
        );
        let card = scored.scorecard.as_ref().unwrap();
        assert_eq!(card.primary_score, Some(0.2));
        assert_eq!(scored.verdict, Verdict::Fail);
        assert_eq!(scored.verdict_reason, "primary_score 0.2 < threshold 1.0");

        let opts = ScoringOptions {
            scorer: AnswerScorer::V1Extract,
            pass_threshold: 0.4,
        };
        let scored = score_run(&run, &opts);
        assert_eq!(scored.items[1].extracted.as_deref(), Some("paris"));
        assert_eq!(scored.items[1].correctness, Some(1.0));
        assert_eq!(scored.verdict, Verdict::Pass);
    }

    #[test]
    fn failed_run_scores_zero_and_fails() {
        let mut run = run_of(&[("a", "42")], vec![pred("a", Some("42"), None)]);
        run.manifest = Some(super::super::RunManifest {
            status: Some("timeout".into()),
            ..Default::default()
        });
        let scored = score_run(&run, &ScoringOptions::default());
        assert_eq!(scored.items[0].correctness, Some(0.0));
        assert_eq!(
            scored.items[0].reason.as_deref(),
            Some("run status: timeout")
        );
        assert_eq!(scored.items[0].predicted.as_deref(), Some("42"));
        assert_eq!(scored.verdict, Verdict::Fail);
        assert_eq!(scored.verdict_reason, "run status: timeout");
    }

    #[test]
    fn items_without_expected_are_skipped_not_zero() {
        let mut run = run_of(&[("a", "42")], vec![pred("a", Some("42"), None)]);
        run.items[0].expected = None;
        let scored = score_run(&run, &ScoringOptions::default());
        assert_eq!(scored.items[0].correctness, None);
        assert_eq!(scored.items[0].reason.as_deref(), Some(REASON_NO_EXPECTED));
        let card = scored.scorecard.unwrap();
        assert_eq!(
            (card.n_items, card.n_skipped, card.primary_score),
            (1, 1, None)
        );
        assert_eq!(scored.verdict_reason, "no item could be scored");
    }

    #[test]
    fn summary_only_run_reports_unavailable() {
        let run = EvalRun {
            summaries: vec![super::super::EvalSummary {
                entries: vec![SummaryEntry {
                    name: "m36".into(),
                    accuracy: None,
                    ..SummaryEntry::default()
                }],
                ..Default::default()
            }],
            ..EvalRun::default()
        };
        let scored = score_run(&run, &ScoringOptions::default());
        assert!(scored.scorecard.is_none());
        assert!(scored
            .per_item_unavailable
            .as_deref()
            .unwrap()
            .starts_with("per-item diff unavailable: the run has only eval_summary.json"));
        assert_eq!(scored.verdict, Verdict::Fail);
        assert_eq!(
            scored.verdict_reason,
            "no predictions and no original score"
        );
    }

    #[test]
    fn agreement_with_original_verdicts() {
        let mut a = pred("a", Some("42"), None);
        a.original_correct = Some(1.0);
        let mut b = pred("b", Some("x"), None);
        b.original_correct = Some(1.0);
        let run = run_of(&[("a", "42"), ("b", "y")], vec![a, b]);
        let scored = score_run(&run, &ScoringOptions::default());
        assert_eq!(
            scored.original_agreement,
            Some(OriginalAgreement {
                n_compared: 2,
                n_disagree: 1,
                disagreeing_ids: vec!["b".into()]
            })
        );
    }
}
