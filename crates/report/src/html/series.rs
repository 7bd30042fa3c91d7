//! The series section of the report (three or more runs of one family in order, e.g. successive
//! training stages): each headline metric across the runs (table + chart), flips and statistics
//! per consecutive pair, then every step's changed items, regressions first.

use std::fmt::Write as _;

use evalboard_engine::compare::CompareOptions;
use evalboard_engine::run::{CompareSettings, FamilySet, ALL_FAMILIES};
use evalboard_engine::run_meta::{MetaRow, RunMeta};
use serde::Serialize;

use super::build::{figure, h, p, pct, table, Cell, Head, Row, TableOpts};
use super::compare::{comparison, section_with_id, Comparison};
use super::encode::escape_html;
use super::meta::{loss_figure, meta_table};
use super::{HtmlOptions, ReportRun};
use crate::charts::Theme;
use crate::compare_charts::series_metrics_chart;

/// A series: the runs in order and every consecutive comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub family: &'static str,
    pub runs: Vec<String>,
    /// (metric label, one value per run).
    pub metrics: Vec<(String, Vec<Option<f64>>)>,
    /// Run `i` → run `i + 1`.
    pub steps: Vec<Comparison>,
    /// Every run against the run before it of its task, Holm's correction over the steps: the
    /// many-runs comparison with a moving baseline
    /// ([`evalboard_engine::compare::many::compare_series_in`]).
    pub table: Option<evalboard_engine::compare::many::ManyComparison>,
    pub meta: Vec<MetaRow>,
}

/// The series of `runs` (in order) when there are at least three runs, all numeric QA or all
/// eval sets; `None` otherwise.
pub fn series(runs: &[ReportRun], opts: &CompareOptions) -> Option<Series> {
    series_in::<ALL_FAMILIES>(runs, opts)
}

/// [`series`] for runs of the families in `FAMILIES` (a consumer's family set): the engine's
/// series ([`evalboard_engine::series::series_in`]), each step as the report shows a comparison.
pub fn series_in<const FAMILIES: FamilySet>(
    runs: &[ReportRun],
    opts: &CompareOptions,
) -> Option<Series> {
    let family = runs.first()?.family();
    if runs.len() < 3
        || family == evalboard_engine::family::Family::Codegen
        || runs.iter().any(|r| r.family() != family)
    {
        return None;
    }
    let settings = CompareSettings {
        qa_scorer: None,
        opts: opts.clone(),
        pairing: Default::default(),
    };
    let s = evalboard_engine::series::series_in::<FAMILIES>(runs, &settings);
    let given: Vec<evalboard_engine::compare::many::ManyRun> = runs
        .iter()
        .map(|r| evalboard_engine::compare::many::ManyRun {
            path: r.name().to_string(),
            run: Ok(*r),
        })
        .collect();
    let table =
        evalboard_engine::compare::many::compare_series_in::<FAMILIES>(&given, &settings, 1).ok();
    Some(Series {
        table,
        family: family.name(),
        runs: runs.iter().map(|r| r.name().to_string()).collect(),
        metrics: evalboard_engine::series::metrics_in::<FAMILIES>(runs),
        steps: s
            .steps
            .into_iter()
            .zip(runs.windows(2))
            .filter_map(|(step, pair)| match pair {
                [a, b] => Some(comparison(a, b, step.comparison, step.meta)),
                _ => None,
            })
            .collect(),
        meta: s.meta,
    })
}

/// The series section (id `series`).
pub(crate) fn section(out: &mut String, s: &Series, loss: &[(&str, &RunMeta)], o: &HtmlOptions) {
    out.push_str("<section id=\"series\">");
    h(out, 2, "series-h", "Series");
    p(
        out,
        "eb-muted",
        &format!(
            "{} {} runs in order: {}. Each step compares a run with the one before it.",
            s.runs.len(),
            s.family,
            s.runs.join(" → ")
        ),
    );
    // Metrics across the runs: table (one row per run) and chart.
    let mut heads: Vec<Head> = vec![("Run", false)];
    heads.extend(s.metrics.iter().map(|(l, _)| (l.as_str(), true)));
    let rows: Vec<Row> = s
        .runs
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut cells = vec![Cell::text(name)];
            cells.extend(s.metrics.iter().map(|(_, v)| {
                let x = v.get(i).copied().flatten();
                Cell::num(&pct(x), x)
            }));
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
            id: Some("series-metrics"),
            ..Default::default()
        },
    );
    out.push_str("<div class=\"eb-grid\">");
    figure(
        out,
        &series_metrics_chart(&s.runs, &s.metrics, Theme::Light),
    );
    loss_figure(out, loss);
    out.push_str("</div>\n");
    // Each run against the one before it: the many-runs table with a moving baseline.
    if let Some(t) = &s.table {
        let _ = writeln!(
            out,
            "<h3 id=\"series-steps\">Each run against the run before it</h3>"
        );
        p(out, "", &t.reading);
        p(
            out,
            "eb-muted",
            &format!(
                "Each run is paired with the run before it of its task as evalboard diff pairs \
                 two runs ({}); McNemar p-values adjusted by Holm's step-down method over the \
                 steps; items only one side scored are counted apart, never as correct or \
                 wrong. Δ and its 95% CI are in points over the paired items. Each step's \
                 changed items follow below.",
                t.judged_by
            ),
        );
        super::many::runs_table(out, t, "series-steps-table");
    }
    let links: Vec<String> = s
        .steps
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "<a href=\"#ser{i}\">{} → {}</a>",
                escape_html(&c.baseline),
                escape_html(&c.candidate)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "<p class=\"eb-muted\">Changed items, step by step: {}</p>",
        links.join(" · ")
    );
    let _ = writeln!(out, "<h3 id=\"series-meta\">Run metadata</h3>");
    let names: Vec<&str> = s.runs.iter().map(String::as_str).collect();
    meta_table(out, &names, &s.meta);
    for (i, c) in s.steps.iter().enumerate() {
        section_with_id(out, &format!("ser{i}"), c, o);
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::evalset::{self, ScoringOptions};
    use evalboard_engine::InputFile;

    fn run(name: &str, answers: &[&str]) -> (evalset::EvalRun, evalset::ScoredRun) {
        let set = "{\"id\":\"a\",\"prompt\":\"p\",\"expected_answer\":\"1\"}\n\
                   {\"id\":\"b\",\"prompt\":\"p\",\"expected_answer\":\"2\"}\n";
        let preds: String = ["a", "b"]
            .iter()
            .zip(answers)
            .map(|(id, a)| format!("{{\"id\":\"{id}\",\"prediction\":\"{a}\"}}\n"))
            .collect();
        let mut r = evalset::read_evalset_run(
            &[
                InputFile::new(format!("{name}/set.jsonl"), set),
                InputFile::new(format!("{name}/p_predictions.jsonl"), preds),
                InputFile::new(
                    format!("{name}/metrics.jsonl"),
                    format!("{{\"step\": 1, \"loss\": {}}}\n", answers.len()),
                ),
            ],
            None,
        );
        r.name = name.into();
        let s = evalset::score_run(&r, &ScoringOptions::default());
        (r, s)
    }

    #[test]
    fn three_runs_of_one_family_make_a_series() {
        let (a, b, c) = (
            run("a", &["1", "2"]),
            run("b", &["1", "x"]),
            run("c", &["y", "2"]),
        );
        let runs = [
            ReportRun::Evalset(&a.0, &a.1),
            ReportRun::Evalset(&b.0, &b.1),
            ReportRun::Evalset(&c.0, &c.1),
        ];
        let s = series(&runs, &CompareOptions::default()).unwrap();
        assert_eq!(s.runs, ["a", "b", "c"]);
        // The headline first (the runs' scorer), then the other answer scorer's primary score.
        assert_eq!(
            s.metrics[0],
            (
                "Primary score (answer_correctness@v1)".to_string(),
                vec![Some(1.0), Some(0.5), Some(0.5)]
            )
        );
        assert_eq!(s.metrics[1].0, "Primary score (@v1-extract)");
        assert_eq!(s.metrics.len(), 2);
        let flips: Vec<(u64, u64)> = s
            .steps
            .iter()
            .map(|c| {
                let f = c.stats.as_ref().unwrap().flips;
                (f.regressed, f.improved)
            })
            .collect();
        assert_eq!(flips, [(1, 0), (1, 1)]);
        assert!(series(&runs[..2], &CompareOptions::default()).is_none());
        let mut html = String::new();
        let metas: Vec<RunMeta> = runs.iter().map(|r| r.meta()).collect();
        let loss: Vec<(&str, &RunMeta)> = vec![("a", &metas[0]), ("b", &metas[1])];
        section(&mut html, &s, &loss, &HtmlOptions::default());
        assert!(html.contains("id=\"series-steps-table\""));
        assert!(html.contains("data-chart=\"series_metrics\""));
        assert!(html.contains("data-chart=\"loss_curve\""));
        assert!(html.contains("id=\"ser1\""));
    }
}
