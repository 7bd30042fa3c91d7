//! The eval-log section of the report: the headline cards (and, under a re-scorer, the re-scored
//! ones), every headline number recomputed beside the one the log recorded, the diagnostics and
//! the samples (capped, with the full items.csv embedded), and the dashboard's charts (each
//! score's mean, the accuracy by the first breakdown field) and its breakdown tables (by epoch,
//! task, metadata field: the same engine function as the dashboard's overview), and, for items
//! judged more than once, the repeats' summary (pass@k, pass^k, flaky items).

use evalboard_engine::evallog::views::{breakdowns, MAX_BREAKDOWNS, MAX_GROUPS};
use evalboard_engine::evallog::ScoredLog;
use serde_json::Value;

use super::build::{
    capped_note, card, count_cards, diagnostics, figure, filter_box, h, int, kv_table, num, p, pct,
    sortable_items, table, verdict_slug, Cell, Row, TableOpts, VERDICTS,
};
use super::HtmlOptions;
use crate::evallog_statistics;

/// The eval-log section of run `idx`; returns its statistics value.
pub(crate) fn section(out: &mut String, idx: usize, s: &ScoredLog, o: &HtmlOptions) -> Value {
    let st = evallog_statistics(s);
    let id = |part: &str| format!("run{idx}-{part}");
    h(out, 3, &id("headline"), "Headline");
    out.push_str("<div class=\"eb-cards\">\n");
    let rescored = s.rescored.is_some();
    let cards: &[(&str, bool)] = if rescored {
        &[
            ("rescored_score", true),
            ("headline_score", false),
            ("headline_recorded", false),
        ]
    } else {
        &[("headline_score", true), ("headline_recorded", false)]
    };
    for &(k, main) in cards {
        let v = st.get(k).and_then(Value::as_f64);
        card(out, k, k, &num(v, 4), v.map(|x| x.to_string()), main);
    }
    count_cards(out, &st, &["n_samples", "n_errors", "n_mismatches"]);
    if rescored {
        count_cards(out, &st, &["n_disagreements"]);
    }
    out.push_str("</div>\n");
    if let Some(why) = s.headline_not_recomputed() {
        p(
            out,
            "eb-muted",
            &format!(
                "The headline score is not recomputed ({why}): only the log's own number stands."
            ),
        );
    }
    for words in [s.accuracy_words(), s.rescored_words()]
        .into_iter()
        .flatten()
    {
        p(out, "eb-muted", &words);
    }
    let run = &s.log.run;
    let recorded_by = s
        .verdict_by
        .as_ref()
        .map(|k| k.label())
        .unwrap_or_else(|| "no score (the log names none)".into());
    let judged = match &s.rescored {
        Some(r) => format!(
            "items re-scored by {} from each sample's output and targets (as originally scored: \
             by {recorded_by}; {})",
            r.id,
            match s.disagreements().len() {
                1 => "1 verdict differs".to_string(),
                n => format!("{n} verdicts differ"),
            }
        ),
        None => format!("items judged by {recorded_by}"),
    };
    p(
        out,
        "eb-muted",
        &format!(
            "{} log{}; {judged}.",
            run.tool.label(),
            run.tool_version
                .as_deref()
                .map(|v| format!(" (version {v})"))
                .unwrap_or_default(),
        ),
    );
    // The dashboard's charts, drawn by the same function.
    let charts = crate::evallog_charts::evallog_charts(s, crate::charts::Theme::Light);
    if !charts.is_empty() {
        h(out, 3, &id("charts"), "Charts");
        for c in &charts {
            figure(out, c);
        }
    }
    h(out, 3, &id("scores"), "Recorded and recomputed");
    let rows: Vec<Row> = run
        .headlines
        .iter()
        .map(|hl| Row {
            cells: vec![
                Cell::text(&hl.key.label()),
                Cell::num(&num(hl.recomputed, 6), hl.recomputed),
                Cell::num(&num(hl.recorded, 6), hl.recorded),
                Cell::num(&int(hl.n), Some(hl.n as f64)),
                Cell::text(hl.note.as_deref().unwrap_or("")),
            ],
            ..Default::default()
        })
        .collect();
    table(
        out,
        &[
            ("Metric", false),
            ("Recomputed", true),
            ("Recorded", true),
            ("n", true),
            ("Note", false),
        ],
        &rows,
        TableOpts {
            id: Some(&id("scores-table")),
            class: "",
            sortable: true,
            scroll: true,
        },
    );
    // Items judged more than once: the engine's summary, as `score` and the dashboard show it.
    if let Some(r) = evalboard_engine::evallog::repeats::summary(s) {
        h(out, 3, &id("repeats"), "Repeats (pass@k, flaky items)");
        kv_table(out, &r.rows());
    }
    breakdown_tables(out, &id("breakdowns"), s);
    h(out, 3, &id("diagnostics"), "Diagnostics");
    diagnostics(out, &s.log.diagnostics, o);
    items(out, &id("items"), s, o);
    st
}

/// The dashboard overview's breakdown tables (the same engine function,
/// [`evalboard_engine::evallog::views::breakdowns`]): per field of the log (epoch, task, filter,
/// prompt, a metadata field), each value's samples, those with a verdict, the correct ones, the
/// accuracy and the errored samples.
fn breakdown_tables(out: &mut String, section_id: &str, s: &ScoredLog) {
    let all = breakdowns(s);
    if all.is_empty() {
        return;
    }
    h(out, 3, section_id, "Breakdowns");
    p(
        out,
        "eb-muted",
        &format!(
            "The samples grouped by each field of the log with two to {MAX_GROUPS} values (the \
             first {MAX_BREAKDOWNS}); accuracy over the samples with a verdict, by {}.",
            s.judged_by().unwrap_or_else(|| "no score".into())
        ),
    );
    for (i, (field, groups)) in all.iter().enumerate() {
        h(out, 4, &format!("{section_id}-{i}"), &format!("By {field}"));
        let rows: Vec<Row> = groups
            .iter()
            .map(|g| Row {
                cells: vec![
                    Cell::text(&g.value),
                    Cell::num(&int(g.n), Some(g.n as f64)),
                    Cell::num(&int(g.n_verdict), Some(g.n_verdict as f64)),
                    Cell::num(&int(g.n_correct), Some(g.n_correct as f64)),
                    Cell::num(&pct(g.accuracy), g.accuracy),
                    Cell::num(&int(g.n_errors), Some(g.n_errors as f64)),
                ],
                ..Default::default()
            })
            .collect();
        table(
            out,
            &[
                (field.as_str(), false),
                ("Samples", true),
                ("With a verdict", true),
                ("Correct", true),
                ("Accuracy", true),
                ("Errored", true),
            ],
            &rows,
            TableOpts {
                id: Some(&format!("{section_id}-{i}-table")),
                class: "",
                sortable: true,
                scroll: true,
            },
        );
    }
}

/// Every sample (capped at `max_table_rows`): key, verdict (re-scored under a re-scorer, with the
/// verdict as originally scored beside it), input, target, output, the verdict's reason in the
/// tool's words, error.
fn items(out: &mut String, items_id: &str, s: &ScoredLog, o: &HtmlOptions) {
    h(out, 3, items_id, "Samples");
    let verdicts: std::collections::HashMap<usize, Option<bool>> =
        s.judged().iter().map(|i| (i.sample, i.correct)).collect();
    let rescored = s.rescored.is_some();
    let recorded: std::collections::HashMap<usize, Option<bool>> =
        s.items.iter().map(|i| (i.sample, i.correct)).collect();
    let samples = &s.log.run.samples;
    let rows: Vec<Row> = samples
        .iter()
        .enumerate()
        .take(o.max_table_rows)
        .map(|(i, sample)| {
            let c = verdicts.get(&i).copied().flatten();
            let mut cells = vec![
                Cell::text(&evalboard_engine::evallog::score::key_parts(&sample.key).join(" · ")),
                Cell::verdict(c),
            ];
            if rescored {
                cells.push(Cell::verdict(recorded.get(&i).copied().flatten()));
            }
            cells.extend([
                Cell::long(sample.input.as_deref().unwrap_or("")),
                Cell::long(&sample.target.join(" | ")),
                Cell::long(sample.output.as_deref().unwrap_or("")),
                Cell::long(s.reason(i).unwrap_or("")),
                Cell::long(sample.error.as_deref().unwrap_or("")),
            ]);
            Row {
                class: None,
                verdict: Some(verdict_slug(c)),
                cells,
            }
        })
        .collect();
    let table_id = format!("{items_id}-table");
    filter_box(out, &table_id, &VERDICTS);
    capped_note(out, &rows, samples.len(), "items.csv", &|| {
        crate::evallog_files::items_csv(s)
    });
    let mut columns = vec![("Sample", false), ("Correct", false)];
    if rescored {
        columns.push(("As recorded", false));
    }
    columns.extend([
        ("Input", false),
        ("Target", false),
        ("Output", false),
        ("Reason", false),
        ("Error", false),
    ]);
    sortable_items(out, &table_id, &columns, &rows);
}

/// An evaluation-tool log, as the report takes it ([`super::FamilyReport`]).
pub(crate) struct Report<'a>(pub &'a ScoredLog);

impl<'a> super::FamilyReport<'a> for Report<'a> {
    fn section(&self, out: &mut String, idx: usize, o: &HtmlOptions) -> Value {
        section(out, idx, self.0, o)
    }
    fn settings(&self, out: &mut String, family: evalboard_engine::family::Family) {
        let l = self.0;
        super::build::kv_table(
            out,
            &[
                ("Family".into(), family.label().into()),
                ("Tool".into(), l.log.run.tool.label().into()),
                (
                    "Judged by".into(),
                    l.verdict_by.as_ref().map(|k| k.label()).unwrap_or_default(),
                ),
            ],
        )
    }
    fn output_plan(&self) -> crate::RunOutputPlan<'a> {
        crate::RunOutputPlan::made(evallog_statistics(self.0), crate::evallog_files(self.0))
    }
}
