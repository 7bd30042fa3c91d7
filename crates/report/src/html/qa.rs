//! The numeric-QA section of the report: headline metrics, readings, every dashboard chart,
//! breakdowns, error analysis, input files and the per-item table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use evalboard_engine::numeric_qa::aggregate::doc::Breakdown;
use evalboard_engine::numeric_qa::score::ScoredQaRun;
use evalboard_engine::numeric_qa::views::{self, ItemQuery};
use serde_json::Value;

use super::build::{
    capped_note, card, card_defined, diagnostics, figure, filter_box, h, int, kv_table, num, p,
    pct, sortable_items, table, Cell, Head, Row, TableOpts,
};
use super::encode::escape_html;
use super::HtmlOptions;
use crate::charts::Theme;
use crate::outputs::qa_outputs;
use crate::qa_charts::qa_charts;

fn breakdown_table(out: &mut String, title: &str, m: &BTreeMap<String, Breakdown>) {
    if m.is_empty() {
        return;
    }
    let _ = writeln!(out, "<h4>{}</h4>", escape_html(title));
    let heads: &[Head] = &[
        ("Value", false),
        ("Conversations", true),
        ("Turns", true),
        ("Numerical", true),
        ("Exact", true),
        ("Soft", true),
        ("Conversation-level", true),
        ("Logic recall", true),
        ("Error rate", true),
    ];
    let rows: Vec<Row> = m
        .iter()
        .map(|(k, b)| Row {
            cells: vec![
                Cell::text(k),
                Cell::num(&int(b.conversations), Some(b.conversations as f64)),
                Cell::num(&int(b.turns), Some(b.turns as f64)),
                Cell::num(&pct(b.numerical_accuracy), b.numerical_accuracy),
                Cell::num(&pct(b.exact_match_accuracy), b.exact_match_accuracy),
                Cell::num(&pct(b.soft_match_accuracy), b.soft_match_accuracy),
                Cell::num(
                    &pct(b.conversation_level_accuracy),
                    b.conversation_level_accuracy,
                ),
                Cell::num(&pct(b.avg_logic_recall), b.avg_logic_recall),
                Cell::num(&pct(b.error_rate), b.error_rate),
            ],
            ..Default::default()
        })
        .collect();
    table(
        out,
        heads,
        &rows,
        TableOpts {
            class: "eb-breakdown",
            sortable: true,
            ..Default::default()
        },
    );
}

/// The QA section of run `idx`. Returns the statistics.json value it shows (for the embedded
/// data block).
pub(crate) fn section(out: &mut String, idx: usize, s: &ScoredQaRun, o: &HtmlOptions) -> Value {
    let outputs = qa_outputs(s);
    let st = &outputs.statistics;
    let (ov, sizes) = views::overview_with_sizes(s, 25);
    let id = |part: &str| format!("run{idx}-{part}");

    // Headline metrics.
    h(out, 3, &id("headline"), "Headline metrics");
    out.push_str("<div class=\"eb-cards\">\n");
    let count = |k: &str| st.get(k).and_then(Value::as_u64);
    for (k, label) in [
        ("total_conversations", "Conversations"),
        ("total_turns", "Turns"),
    ] {
        let v = count(k);
        card(
            out,
            k,
            label,
            &v.map_or("n/a".into(), int),
            v.map(|x| x.to_string()),
            false,
        );
    }
    // The family's headline table (engine::headline), as the CLI prints it.
    for (i, m) in evalboard_engine::numeric_qa::aggregate::headline(s.config.profile)
        .iter()
        .enumerate()
    {
        let v = st.get(m.key).and_then(Value::as_f64);
        let (label, definition) =
            evalboard_engine::numeric_qa::aggregate::metric_words(m, &s.config.tolerances);
        card_defined(
            out,
            m.key,
            &label,
            &pct(v),
            v.map(|x| x.to_string()),
            i == 0,
            &definition,
        );
    }
    let cpc = st.get("cost_per_correct_answer").and_then(Value::as_f64);
    card(
        out,
        "cost_per_correct_answer",
        "Cost per correct answer",
        &cpc.map_or("n/a".into(), |x| format!("{x:.0} tokens")),
        cpc.map(|x| x.to_string()),
        false,
    );
    if let Some(usd) = st
        .get("cost_per_correct_answer_usd")
        .and_then(Value::as_f64)
    {
        card(
            out,
            "cost_per_correct_answer_usd",
            "Cost per correct answer ($)",
            &format!("${usd:.4}"),
            Some(usd.to_string()),
            false,
        );
    }
    if let Some(usd) = st.get("total_cost_usd").and_then(Value::as_f64) {
        card(
            out,
            "total_cost_usd",
            "Total cost ($)",
            &format!("${usd:.2}"),
            Some(usd.to_string()),
            false,
        );
    }
    out.push_str("</div>\n");
    if let Some(Value::Array(models)) = st.get("unpriced_models") {
        if !models.is_empty() {
            let names: Vec<String> = models.iter().map(super::build::json_text).collect();
            p(
                out,
                "eb-note",
                &format!(
                    "Unpriced models (no dollar cost computed for them): {}",
                    names.join(", ")
                ),
            );
        }
    }
    if ov.originally_scored_turns > 0 {
        p(
            out,
            "eb-muted",
            &format!(
                "{} of {} originally scored turns disagree with the re-scored verdict.",
                int(ov.disagreements),
                int(ov.originally_scored_turns)
            ),
        );
    }

    // Readings.
    h(out, 3, &id("readings"), "Readings");
    for r in &ov.readings {
        let gap = r
            .gap
            .map_or("n/a".into(), |g| format!("{:+.1} points", g * 100.0));
        let _ = writeln!(
            out,
            "<div class=\"eb-reading\" data-reading=\"{}\"><b>{} ({})</b>{}</div>",
            escape_html(&r.key),
            escape_html(&r.title),
            escape_html(&gap),
            escape_html(&r.text)
        );
    }

    // Charts.
    h(out, 3, &id("charts"), "Charts");
    out.push_str("<div class=\"eb-grid\">\n");
    for c in qa_charts(&ov.stats, &sizes, Theme::Light) {
        figure(out, &c);
    }
    out.push_str("</div>\n");

    // Breakdowns.
    h(out, 3, &id("breakdowns"), "Breakdowns");
    let stats = &ov.stats;
    breakdown_table(out, "By has_type2_question", &stats.by_has_type2_question);
    breakdown_table(
        out,
        "By has_non_numeric_values",
        &stats.by_has_non_numeric_values,
    );
    breakdown_table(
        out,
        "By has_duplicate_columns",
        &stats.by_has_duplicate_columns,
    );
    breakdown_table(out, "By conversation type", &stats.by_conversation_type);
    breakdown_table(out, "By model", &stats.by_model);
    let by_turn: Vec<Row> = stats
        .accuracy_by_turn_number
        .keys()
        .chain(stats.avg_operations_by_turn.keys())
        .chain(stats.logic_recall_by_turn.keys())
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|k| {
            let acc = stats.accuracy_by_turn_number.get(&k).copied();
            let ops = stats.avg_operations_by_turn.get(&k).copied();
            let rec = stats.logic_recall_by_turn.get(&k).copied();
            Row {
                cells: vec![
                    Cell::num(&k.0.to_string(), Some(f64::from(k.0))),
                    Cell::num(&pct(acc), acc),
                    Cell::num(&num(ops, 2), ops),
                    Cell::num(&pct(rec), rec),
                ],
                ..Default::default()
            }
        })
        .collect();
    if !by_turn.is_empty() {
        out.push_str("<h4>By turn index</h4>\n");
        table(
            out,
            &[
                ("Turn index", true),
                ("Numerical accuracy", true),
                ("Avg. operations", true),
                ("Logic recall", true),
            ],
            &by_turn,
            TableOpts {
                sortable: true,
                ..Default::default()
            },
        );
    }

    // Error analysis.
    h(out, 3, &id("errors"), "Error analysis");
    if stats.error_types.is_empty() {
        p(out, "eb-muted", "No turn recorded an error.");
    } else {
        let rows: Vec<Row> = stats
            .error_types
            .iter()
            .map(|(k, n)| Row {
                cells: vec![Cell::text(k), Cell::num(&int(*n), Some(*n as f64))],
                ..Default::default()
            })
            .collect();
        table(
            out,
            &[("Error type", false), ("Turns", true)],
            &rows,
            TableOpts {
                sortable: true,
                ..Default::default()
            },
        );
    }
    if ov.first_wrong.is_empty() {
        p(out, "eb-muted", "No wrong turns.");
    } else {
        out.push_str("<h4>First wrong turns</h4>\n");
        let rows: Vec<Row> = ov
            .first_wrong
            .iter()
            .map(|w| Row {
                cells: vec![
                    Cell::text(&w.conversation_id),
                    Cell::num(&w.turn_idx.to_string(), Some(f64::from(w.turn_idx))),
                    Cell::long(&w.question),
                    Cell::long(&w.expected),
                    Cell::long(&w.predicted),
                    Cell::long(w.reason.as_deref().unwrap_or("")),
                ],
                ..Default::default()
            })
            .collect();
        table(
            out,
            &[
                ("Conversation", false),
                ("Turn", true),
                ("Question", false),
                ("Expected", false),
                ("Predicted", false),
                ("Why", false),
            ],
            &rows,
            TableOpts::default(),
        );
    }

    // Input files and diagnostics.
    h(out, 3, &id("files"), "Input files");
    let file_rows: Vec<Row> = s
        .run
        .files
        .iter()
        .map(|f| Row {
            cells: vec![
                Cell::text(&f.path),
                Cell::text(f.format.as_deref().unwrap_or("")),
                Cell::text(&format!("{:?}", f.status)),
                Cell::num(&int(f.bytes), Some(f.bytes as f64)),
                Cell::long(f.reason.as_deref().unwrap_or("")),
            ],
            ..Default::default()
        })
        .collect();
    table(
        out,
        &[
            ("File", false),
            ("Format", false),
            ("Status", false),
            ("Bytes", true),
            ("Reason", false),
        ],
        &file_rows,
        TableOpts {
            sortable: true,
            ..Default::default()
        },
    );
    diagnostics(out, &s.run.diagnostics, o);

    // Items.
    h(out, 3, &id("items"), "Items");
    items_table(out, idx, s, &outputs, o);
    outputs.statistics
}

fn items_table(
    out: &mut String,
    idx: usize,
    s: &ScoredQaRun,
    outputs: &crate::outputs::RunOutputs,
    o: &HtmlOptions,
) {
    let total = s.turns.len();
    let cap = o.max_table_rows;
    let mut rows = Vec::with_capacity(total.min(cap));
    let mut offset = 0;
    while offset < total.min(cap) {
        let page = views::items(
            s,
            &ItemQuery {
                offset,
                limit: 1000.min(cap - offset),
                ..Default::default()
            },
        );
        if page.rows.is_empty() {
            break;
        }
        offset += page.rows.len();
        for r in page.rows {
            let verdict = if r.correct { "correct" } else { "wrong" };
            rows.push(Row {
                class: None,
                verdict: Some(verdict),
                cells: vec![
                    Cell::text(&r.conversation_id),
                    Cell::num(&r.turn_idx.to_string(), Some(f64::from(r.turn_idx))),
                    Cell::long(&r.question),
                    Cell::long(&r.expected),
                    Cell::long(&r.predicted),
                    Cell::verdict(Some(r.correct)),
                    Cell::verdict(Some(r.exact_match)),
                    Cell::verdict(Some(r.soft_match)),
                    Cell::num(&pct(r.logic_recall), r.logic_recall),
                    Cell::num(
                        &r.operations_per_turn
                            .map_or("n/a".into(), |x| x.to_string()),
                        r.operations_per_turn.map(f64::from),
                    ),
                    Cell::num(
                        &r.tokens.map_or("n/a".into(), int),
                        r.tokens.map(|x| x as f64),
                    ),
                    Cell::long(r.error_type.as_deref().unwrap_or("")),
                    Cell::long(r.reason.as_deref().unwrap_or("")),
                ],
            });
        }
    }
    let table_id = format!("run{idx}-items-table");
    filter_box(
        out,
        &table_id,
        &[("correct", "Correct"), ("wrong", "Wrong")],
    );
    capped_note(out, &rows, total, "turns.csv", &|| {
        outputs.file("turns.csv").unwrap_or("").to_string()
    });
    p(
        out,
        "eb-print-only eb-muted",
        "Printed copies show at most the first 200 rows of this table.",
    );
    sortable_items(
        out,
        &table_id,
        &[
            ("Conversation", false),
            ("Turn", true),
            ("Question", false),
            ("Expected", false),
            ("Predicted", false),
            ("Correct", false),
            ("Exact", false),
            ("Soft", false),
            ("Logic recall", true),
            ("Ops", true),
            ("Tokens", true),
            ("Error", false),
            ("Why", false),
        ],
        &rows,
    );
}

/// The settings block of a QA run: profile, scorers with tolerances, price table.
pub(crate) fn settings(out: &mut String, s: &ScoredQaRun) {
    let cfg = &s.config;
    kv_table(
        out,
        &[
            ("Profile".into(), cfg.profile.name().into()),
            ("Relative tolerance".into(), cfg.tolerances.rel.to_string()),
            ("Absolute tolerance".into(), cfg.tolerances.abs.to_string()),
            (
                "Exact-match relative tolerance".into(),
                cfg.tolerances.exact_rel.to_string(),
            ),
        ],
    );
    let stats = evalboard_engine::numeric_qa::aggregate::doc::statistics(s);
    if !stats.scorers.is_empty() {
        let rows: Vec<Row> = stats
            .scorers
            .iter()
            .map(|sc| Row {
                cells: vec![
                    Cell::text(&sc.name),
                    Cell::text(
                        &sc.tolerances
                            .iter()
                            .map(|(k, v)| format!("{k} = {v}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
                ..Default::default()
            })
            .collect();
        table(
            out,
            &[("Scorer", false), ("Tolerances", false)],
            &rows,
            TableOpts::default(),
        );
    }
    if cfg.prices.models.is_empty() {
        p(
            out,
            "eb-muted",
            "No price table: cost is reported in tokens only.",
        );
    } else {
        let rows: Vec<Row> = cfg
            .prices
            .models
            .iter()
            .map(|(m, pr)| Row {
                cells: vec![
                    Cell::text(m),
                    Cell::num(&pr.input_per_mtok.to_string(), Some(pr.input_per_mtok)),
                    Cell::num(&pr.output_per_mtok.to_string(), Some(pr.output_per_mtok)),
                ],
                ..Default::default()
            })
            .collect();
        table(
            out,
            &[
                ("Model", false),
                ("Input $/Mtok", true),
                ("Output $/Mtok", true),
            ],
            &rows,
            TableOpts::default(),
        );
    }
}

/// A numeric QA run, as the report takes it ([`super::FamilyReport`]).
pub(crate) struct Report<'a>(pub &'a ScoredQaRun);

impl<'a> super::FamilyReport<'a> for Report<'a> {
    fn section(&self, out: &mut String, idx: usize, o: &HtmlOptions) -> Value {
        section(out, idx, self.0, o)
    }
    fn settings(&self, out: &mut String, _: evalboard_engine::family::Family) {
        settings(out, self.0)
    }
    fn output_plan(&self) -> crate::RunOutputPlan<'a> {
        let plan = crate::outputs::qa_output_plan(self.0);
        crate::RunOutputPlan {
            statistics: plan.statistics,
            files: plan
                .files
                .into_iter()
                .map(|(n, make)| (n.to_string(), make))
                .collect(),
            diagnostics: plan.diagnostics,
        }
    }
}
