//! The eval-set section of the report: scorecard, score charts by section, category and
//! difficulty, diagnostics and the per-item table.

use evalboard_engine::{evalset, Diagnostic};
use serde_json::Value;

use super::build::{
    bar_figure, capped_note, card, count_cards, diagnostics, filter_box, h, json_text, num, p, pct,
    sortable_items, verdict_slug, Cell, Row, VERDICTS,
};
use super::HtmlOptions;
use crate::evalset_statistics;

/// The eval-set section of run `idx`; returns its statistics value.
pub(crate) fn section(
    out: &mut String,
    idx: usize,
    s: &evalset::ScoredRun,
    diags: &[Diagnostic],
    o: &HtmlOptions,
) -> Value {
    let st = evalset_statistics(s);
    let id = |part: &str| format!("run{idx}-{part}");
    h(out, 3, &id("headline"), "Scorecard");
    out.push_str("<div class=\"eb-cards\">\n");
    count_cards(out, &st, &["n_items", "n_scored", "n_skipped"]);
    for (k, main) in [
        ("primary_score", true),
        ("stddev", false),
        ("min_score", false),
        ("max_score", false),
    ] {
        let v = st.get(k).and_then(Value::as_f64);
        let shown = if k == "stddev" { num(v, 3) } else { pct(v) };
        card(out, k, k, &shown, v.map(|x| x.to_string()), main);
    }
    let verdict = st.get("verdict").map(json_text).unwrap_or_default();
    card(
        out,
        "verdict",
        "verdict",
        &verdict,
        Some(verdict.clone()),
        false,
    );
    out.push_str("</div>\n");
    p(
        out,
        "eb-muted",
        &format!("Verdict: {verdict} — {}", s.verdict_reason),
    );
    if let Some(why) = &s.per_item_unavailable {
        p(out, "eb-note", why);
    }
    if let Some(f) = &s.run_failure {
        p(out, "eb-note", &format!("Run status: {f}"));
    }
    if let Some(card) = &s.scorecard {
        h(out, 3, &id("charts"), "Charts");
        out.push_str("<div class=\"eb-grid\">\n");
        for (key, title, groups) in [
            ("section_scores", "Score by section", &card.section_scores),
            (
                "category_scores",
                "Score by category",
                &card.category_scores,
            ),
            (
                "difficulty_scores",
                "Score by difficulty",
                &card.difficulty_scores,
            ),
        ] {
            if groups.is_empty() {
                continue;
            }
            let bars: Vec<(String, Option<f64>)> =
                groups.iter().map(|(k, v)| (k.clone(), Some(*v))).collect();
            bar_figure(out, key, title, "Mean score (%)", &bars, true);
        }
        out.push_str("</div>\n");
    }
    diagnostics(out, diags, o);

    h(out, 3, &id("items"), "Items");
    let total = s.items.len();
    let rows: Vec<Row> = s
        .items
        .iter()
        .take(o.max_table_rows)
        .map(|it| {
            let c = it.is_correct();
            Row {
                class: None,
                verdict: Some(verdict_slug(c)),
                cells: vec![
                    Cell::text(&it.item_id),
                    Cell::long(it.expected.as_deref().unwrap_or("")),
                    Cell::long(it.predicted.as_deref().unwrap_or("")),
                    Cell::long(it.extracted.as_deref().unwrap_or("")),
                    Cell::verdict(c),
                    Cell::verdict(it.original_correct.map(|x| x == 1.0)),
                    Cell::text(it.section.as_deref().unwrap_or("")),
                    Cell::text(it.category.as_deref().unwrap_or("")),
                    Cell::text(it.difficulty.as_deref().unwrap_or("")),
                    Cell::long(it.reason.as_deref().unwrap_or("")),
                ],
            }
        })
        .collect();
    let table_id = id("items-table");
    filter_box(out, &table_id, &VERDICTS);
    capped_note(out, &rows, total, "predictions.jsonl", &|| {
        evalset::dto::predictions_jsonl(s)
    });
    sortable_items(
        out,
        &table_id,
        &[
            ("Item", false),
            ("Expected", false),
            ("Predicted", false),
            ("Extracted", false),
            ("Correct", false),
            ("Originally", false),
            ("Section", false),
            ("Category", false),
            ("Difficulty", false),
            ("Why", false),
        ],
        &rows,
    );
    st
}

/// An eval-set run (as read, and its scoring), as the report takes it
/// ([`super::FamilyReport`]).
pub(crate) struct Report<'a>(pub &'a evalset::EvalRun, pub &'a evalset::ScoredRun);

impl<'a> super::FamilyReport<'a> for Report<'a> {
    fn section(&self, out: &mut String, idx: usize, o: &HtmlOptions) -> Value {
        section(out, idx, self.1, &self.0.diagnostics, o)
    }
    fn settings(&self, out: &mut String, family: evalboard_engine::family::Family) {
        super::build::kv_table(
            out,
            &[
                ("Family".into(), family.label().into()),
                ("Scorer".into(), self.1.scorer.id().into()),
            ],
        )
    }
    fn output_plan(&self) -> crate::RunOutputPlan<'a> {
        crate::RunOutputPlan::made(evalset_statistics(self.1), crate::evalset_files(self.1))
    }
}
