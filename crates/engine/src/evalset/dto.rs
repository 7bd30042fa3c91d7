//! Output contracts of the eval-set family: `scorecard.json` and `predictions.jsonl` rows.
//!
//! These are dedicated types with a fixed key order, so refactoring the model never changes a
//! file users depend on.

use serde::Serialize;

use super::score::{ItemScore, OrderedMap, Scorecard, ScoredRun, Verdict};

/// `scorecard.json`: the seed system's scorecard keys, in its order, plus `verdict`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScorecardFile {
    pub scorecard: Scorecard,
    pub verdict: Verdict,
}

impl Serialize for ScorecardFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let c = &self.scorecard;
        let mut st = s.serialize_struct("ScorecardFile", 11)?;
        st.serialize_field("n_items", &c.n_items)?;
        st.serialize_field("n_scored", &c.n_scored)?;
        st.serialize_field("n_skipped", &c.n_skipped)?;
        st.serialize_field("primary_score", &c.primary_score)?;
        st.serialize_field("stddev", &c.stddev)?;
        st.serialize_field("min_score", &c.min_score)?;
        st.serialize_field("max_score", &c.max_score)?;
        st.serialize_field("section_scores", &OrderedMap(&c.section_scores))?;
        st.serialize_field("category_scores", &OrderedMap(&c.category_scores))?;
        st.serialize_field("difficulty_scores", &OrderedMap(&c.difficulty_scores))?;
        st.serialize_field("verdict", &self.verdict)?;
        st.end()
    }
}

impl ScorecardFile {
    /// `None` when the run had no per-item predictions (there is no scorecard to write).
    pub fn from_scored(run: &ScoredRun) -> Option<ScorecardFile> {
        Some(ScorecardFile {
            scorecard: run.scorecard.clone()?,
            verdict: run.verdict,
        })
    }

    /// Pretty JSON (two-space indent) with a trailing newline.
    pub fn to_json_pretty(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// One `predictions.jsonl` row: the M37 per-item schema
/// `{item_id, expected, predicted, correctness, eval_time_ms}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PredictionRow {
    pub item_id: String,
    pub expected: Option<String>,
    pub predicted: Option<String>,
    /// 1.0 / 0.0, or null when the item could not be scored.
    pub correctness: Option<f64>,
    pub eval_time_ms: Option<u64>,
}

impl From<&ItemScore> for PredictionRow {
    fn from(s: &ItemScore) -> Self {
        PredictionRow {
            item_id: s.item_id.clone(),
            expected: s.expected.clone(),
            predicted: s.predicted.clone(),
            correctness: s.correctness,
            eval_time_ms: s.eval_time_ms,
        }
    }
}

/// Rows in eval-set order.
pub fn prediction_rows(run: &ScoredRun) -> Vec<PredictionRow> {
    run.items.iter().map(PredictionRow::from).collect()
}

/// `predictions.jsonl`: one compact JSON object per line, each ending in `\n`.
pub fn predictions_jsonl(run: &ScoredRun) -> String {
    let mut out = String::new();
    for row in prediction_rows(run) {
        out.push_str(&serde_json::to_string(&row).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evalset::score::AnswerScorer;

    #[test]
    fn key_order_is_the_contract() {
        let run = ScoredRun {
            name: "r".into(),
            scorer: AnswerScorer::V1,
            items: vec![ItemScore {
                item_id: "a".into(),
                expected: Some("42".into()),
                predicted: None,
                correctness: Some(0.0),
                reason: Some("missing prediction".into()),
                section: Some("core".into()),
                ..ItemScore::default()
            }],
            scorecard: Some(Scorecard {
                n_items: 1,
                n_scored: 1,
                primary_score: Some(0.0),
                min_score: Some(0.0),
                max_score: Some(0.0),
                section_scores: vec![("core".into(), 0.0)],
                ..Scorecard::default()
            }),
            verdict: Verdict::Fail,
            verdict_reason: String::new(),
            per_item_unavailable: None,
            run_failure: None,
            original: None,
            original_agreement: None,
            meta: Default::default(),
        };
        assert_eq!(
            predictions_jsonl(&run),
            "{\"item_id\":\"a\",\"expected\":\"42\",\"predicted\":null,\"correctness\":0.0,\"eval_time_ms\":null}\n"
        );
        let card = ScorecardFile::from_scored(&run).unwrap();
        assert_eq!(
            serde_json::to_string(&card).unwrap(),
            "{\"n_items\":1,\"n_scored\":1,\"n_skipped\":0,\"primary_score\":0.0,\"stddev\":null,\"min_score\":0.0,\"max_score\":0.0,\"section_scores\":{\"core\":0.0},\"category_scores\":{},\"difficulty_scores\":{},\"verdict\":\"fail\"}"
        );
        assert!(card.to_json_pretty().ends_with("}\n"));
    }
}
