//! The many-runs section of the report (`report --baseline B RUN...` with three or more runs):
//! every run against the baseline as `evalboard compare` prints it — the ranked table with Holm's
//! correction, the reading and warnings, the interval plot of each change, the cost–quality
//! frontier with the unpriced runs listed apart, and the model × task grid. Every number is
//! [`evalboard_engine::compare::many::compare_many_in`]'s.

use std::fmt::Write as _;

use evalboard_engine::compare::many::{value_text, ManyComparison, RunRow};
use evalboard_engine::compare::p_value_text;
use evalboard_engine::run_table::Unit;

use super::build::{figure, h, int, p, table, Cell, Head, Row, TableOpts};
use super::encode::escape_html;
use crate::charts::Theme;
use crate::many_charts::{delta_chart, every_ci_holds_zero, frontier_charts};

fn count(x: Option<u64>) -> Cell {
    match x {
        Some(v) => Cell::num(&int(v), Some(v as f64)),
        None => Cell::num("–", None),
    }
}

fn row(r: &RunRow, with_task: bool, series: bool) -> Row {
    let unit = r.headline_unit;
    let ci = r.ci95.map_or_else(
        || "n/a".to_string(),
        |(l, h)| {
            format!(
                "[{}, {}]",
                value_text(Some(l), unit),
                value_text(Some(h), unit)
            )
        },
    );
    let delta = r
        .delta
        .map_or_else(|| "–".to_string(), |d| format!("{:+.1}", d * 100.0));
    let boot = r
        .bootstrap_ci
        .as_ref()
        .and_then(|b| b.low.zip(b.high))
        .map_or_else(
            || "–".to_string(),
            |(l, h)| format!("[{:+.1}, {:+.1}]", l * 100.0, h * 100.0),
        );
    let missing = match (r.only_in_baseline, r.only_in_run) {
        (Some(b), Some(o)) => format!("{b} / {o}"),
        _ => "–".into(),
    };
    let frontier = match r.on_frontier {
        Some(true) => "on",
        Some(false) => "dominated",
        None if r.n_items.is_some() => "unpriced",
        None => "",
    };
    let p = |x: Option<f64>| Cell::num(&x.map_or("–".into(), p_value_text), x);
    Row {
        class: if r.is_baseline {
            Some("eb-baseline")
        } else if r.regressed.is_some_and(|k| k > 0) {
            Some("eb-regressed")
        } else {
            None
        },
        verdict: None,
        cells: [
            Cell::text(&if r.is_baseline {
                format!(
                    "{} ({})",
                    r.label,
                    if series { "first" } else { "baseline" }
                )
            } else {
                r.label.clone()
            }),
            Cell::text(r.model.as_deref().unwrap_or("")),
        ]
        .into_iter()
        .chain(with_task.then(|| Cell::text(r.task.as_deref().unwrap_or(""))))
        .chain([
            count(r.n_items),
            Cell::num(&value_text(r.headline, unit), r.headline),
            Cell::text(&format!("{ci} {}", r.ci_method.name())),
            Cell::num(&delta, r.delta),
            Cell::text(&boot),
            count(r.regressed),
            count(r.improved),
            p(r.mcnemar_exact_p),
            p(r.holm_p),
            Cell::text(&missing),
            Cell::num(
                &r.cost_per_correct_usd
                    .map_or("–".into(), |v| format!("${v:.6}")),
                r.cost_per_correct_usd,
            ),
            Cell::text(frontier),
        ])
        .collect(),
    }
}

/// The comparison's warnings, the table of [`ManyComparison::runs`] (id `id`: a row per run
/// with its own numbers and, against its baseline — a series: the run before it — the paired
/// ones and Holm's p), then the rows' notes.
pub(crate) fn runs_table(out: &mut String, c: &ManyComparison, id: &'static str) {
    for w in &c.warnings {
        p(out, "eb-note", w);
    }
    let with_task = c.baseline.len() > 1;
    let mut heads: Vec<Head> = vec![("Run", false), ("Model", false)];
    if with_task {
        heads.push(("Task", false));
    }
    heads.extend_from_slice(&[
        ("Items", true),
        ("Headline", true),
        ("95% CI (method)", false),
        ("Δ (points)", true),
        ("Bootstrap 95% CI", false),
        ("Regressed", true),
        ("Improved", true),
        ("McNemar p", true),
        ("Holm p", true),
        (
            if c.series {
                "Only in the run before / run"
            } else {
                "Only in baseline / run"
            },
            false,
        ),
        ("Cost per correct", true),
        ("Frontier", false),
    ]);
    let rows: Vec<Row> = c.runs.iter().map(|r| row(r, with_task, c.series)).collect();
    table(
        out,
        &heads,
        &rows,
        TableOpts {
            id: Some(id),
            class: "eb-nowrap",
            sortable: true,
            scroll: true,
        },
    );
    let notes: Vec<String> = c
        .runs
        .iter()
        .filter_map(|r| Some(format!("{}: {}", r.label, r.note.as_deref()?)))
        .collect();
    if !notes.is_empty() {
        out.push_str("<ul class=\"eb-muted\">");
        for n in &notes {
            let _ = write!(out, "<li>{}</li>", escape_html(n));
        }
        out.push_str("</ul>\n");
    }
}

/// The section (id `many`).
pub(crate) fn section(out: &mut String, c: &ManyComparison) {
    out.push_str("<section id=\"many\">");
    h(out, 2, "many-h", "Runs against the baseline");
    p(out, "", &c.reading);
    p(
        out,
        "eb-muted",
        &format!(
            "Each run is paired with the baseline as evalboard diff pairs two runs ({}); \
             McNemar p-values adjusted by Holm's step-down method per baseline; items only one \
             side scored are counted apart, never as correct or wrong. Δ and its 95% CI are in \
             points over the paired items.",
            c.judged_by
        ),
    );
    runs_table(out, c, "many-runs");
    out.push_str("<div class=\"eb-grid\">");
    if let Some(chart) = delta_chart(c, Theme::Light) {
        figure(out, &chart);
    }
    for chart in frontier_charts(c, Theme::Light) {
        figure(out, &chart);
    }
    out.push_str("</div>\n");
    if every_ci_holds_zero(c) {
        p(
            out,
            "eb-note",
            "Every run's 95% interval includes zero: no run differs from its baseline beyond \
             noise by the paired bootstrap.",
        );
    }
    let unpriced: Vec<&str> = c
        .runs
        .iter()
        .filter(|r| r.n_items.is_some() && r.cost_per_correct_usd.is_none())
        .map(|r| r.label.as_str())
        .collect();
    if !unpriced.is_empty() {
        p(
            out,
            "eb-muted",
            &format!(
                "Not on the cost chart (no cost in dollars, or no correct item): {}.",
                unpriced.join(", ")
            ),
        );
    }
    if let Some(g) = &c.grid {
        h(out, 3, "many-grid", "Models × tasks");
        p(
            out,
            "eb-muted",
            &format!(
                "Each cell: the run's headline and, in parentheses, its change in points against \
                 {} on that task. Micro: Σ correct ÷ Σ items over the model's tasks. Macro: the \
                 unweighted mean of its task headlines, only when it has every task.",
                g.baseline_model
            ),
        );
        let unit = c
            .runs
            .first()
            .map(|r| r.headline_unit)
            .unwrap_or(Unit::Rate);
        let mut heads: Vec<Head> = vec![("Model", false)];
        heads.extend(g.tasks.iter().map(|t| (t.as_str(), true)));
        heads.extend([("Micro", true), ("Macro", true)]);
        let rows: Vec<Row> = g
            .models
            .iter()
            .map(|m| {
                let mut cells = vec![Cell::text(&m.model)];
                cells.extend(m.cells.iter().map(|cell| match cell {
                    None => Cell::num("–", None),
                    Some(x) => {
                        let shown = match x.delta {
                            Some(d) => {
                                format!("{} ({:+.1})", value_text(x.headline, unit), d * 100.0)
                            }
                            None => value_text(x.headline, unit),
                        };
                        Cell::num(&shown, x.headline)
                    }
                }));
                cells.push(Cell::num(&value_text(m.micro, Unit::Rate), m.micro));
                cells.push(Cell::num(&value_text(m.macro_mean, unit), m.macro_mean));
                Row {
                    cells,
                    ..Default::default()
                }
            })
            .collect();
        table(
            out,
            &heads,
            &rows,
            TableOpts {
                id: Some("many-grid-table"),
                scroll: true,
                ..Default::default()
            },
        );
    }
    out.push_str("</section>\n");
}
