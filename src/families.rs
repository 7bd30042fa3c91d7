//! The worker's comparison views: two runs (or a series) of any family through the engine's one
//! comparison ([`run::compare`]), paged and filtered for the Compare tab. Family-agnostic: what
//! a family adds (how items are judged, its headline rates, each item's category and question)
//! comes with the engine's comparison. Pure (no browser types), so it is tested natively.

use std::collections::BTreeSet;

use evalboard_engine::compare::{self, CompareOptions, PairedItem, Pairing};
use evalboard_engine::family::Family;
use evalboard_engine::run::{
    self, CompareError, CompareSettings, FamilySet, RunComparison, RunRef, ALL_FAMILIES,
};
use evalboard_engine::run_meta::RunMeta;
use evalboard_engine::series;
use evalboard_engine::slices::{self, Slices};
use evalboard_report::charts::Theme;
use evalboard_report::compare_charts;

use crate::format;
use crate::protocol::{
    series_metrics, Block, CompareQuery, CompareRow, CompareView, SeriesView, COMPARE_PAGE,
};

/// One side of a comparison: a run this worker holds, under the name the page knows it by, or
/// a run another worker holds (only its name and family are known here).
#[derive(Clone, Copy)]
pub enum Side<'a> {
    Run(&'a str, RunRef<'a>),
    Elsewhere(&'a str, Family),
}

impl<'a> Side<'a> {
    fn name(&self) -> &'a str {
        match self {
            Side::Run(n, _) | Side::Elsewhere(n, _) => n,
        }
    }

    fn family(&self) -> Family {
        match self {
            Side::Run(_, r) => r.family(),
            Side::Elsewhere(_, f) => *f,
        }
    }

    /// The run, when this worker holds it.
    fn run(&self) -> Option<RunRef<'a>> {
        match self {
            Side::Run(_, r) => Some(*r),
            Side::Elsewhere(..) => None,
        }
    }

    /// What the run is (model, eval set, config, status, durations …) and its loss curve.
    pub fn meta(&self) -> RunMeta {
        self.run().map(|r| r.meta()).unwrap_or_default()
    }
}

/// A series of runs (two or more, in order): the engine's series
/// ([`evalboard_engine::series::series_in`]), each step as [`compare_view`] shows it (rows only
/// for `step`, per `q`), run metadata side by side, the loss-curve overlay and, for three or
/// more runs, the headline metrics across the series.
pub fn series_view(sides: &[Side], step: usize, q: &CompareQuery, dark: bool) -> SeriesView {
    series_view_in::<ALL_FAMILIES>(sides, step, q, dark)
}

/// [`series_view`] for runs of the families in `FAMILIES` (a worker's family set).
pub fn series_view_in<const FAMILIES: FamilySet>(
    sides: &[Side],
    step: usize,
    q: &CompareQuery,
    dark: bool,
) -> SeriesView {
    let step = step.min(sides.len().saturating_sub(2));
    let quiet = CompareQuery {
        limit: 1,
        ..CompareQuery::default()
    };
    let runs: Vec<Option<RunRef>> = sides.iter().map(Side::run).collect();
    let series = series::series_in::<FAMILIES>(&runs, &settings(q));
    let steps: Vec<CompareView> = series
        .steps
        .into_iter()
        .zip(sides.windows(2))
        .enumerate()
        .filter_map(|(i, (s, w))| match w {
            [b, c] if i == step => Some(judges::<FAMILIES>(
                step_view::<FAMILIES>(b, c, s.comparison, q),
                b,
                q,
            )),
            [b, c] => {
                let mut v = step_view::<FAMILIES>(b, c, s.comparison, &quiet);
                v.rows.clear();
                Some(v)
            }
            _ => None,
        })
        .collect();
    let names: Vec<String> = sides.iter().map(|s| s.name().to_string()).collect();
    let theme = if dark { Theme::Dark } else { Theme::Light };
    let mut charts = Vec::new();
    let curves: Vec<(&str, &[(u64, f64)])> = names
        .iter()
        .zip(&series.metas)
        .map(|(n, m)| (n.as_str(), m.loss_curve.as_slice()))
        .collect();
    charts.extend(compare_charts::loss_curve_chart(&curves, theme));
    if sides.len() >= 3 {
        charts.push(compare_charts::series_metrics_chart(
            &names,
            &series_metrics(&steps),
            theme,
        ));
    }
    let mut view = SeriesView {
        runs: names,
        step: step as u32,
        charts: charts.into_iter().map(Into::into).collect(),
        meta: series.meta,
        steps,
        blocks: Vec::new(),
    };
    view.blocks = series_blocks(&view);
    view
}

/// [`SeriesView::blocks`]: the series' metrics and steps (three runs or more), then the run
/// metadata side by side.
fn series_blocks(v: &SeriesView) -> Vec<Block> {
    use crate::protocol::{Cell, Table, TableRow};
    let mut out = Vec::new();
    let n_steps = v.steps.len();
    if n_steps > 1 {
        let metrics = series_metrics(&v.steps);
        let mut head = vec!["Run".to_string()];
        head.extend(metrics.iter().map(|m| m.0.clone()));
        let mut rows = vec![head];
        rows.extend(v.runs.iter().enumerate().map(|(i, run)| {
            let mut row = vec![run.clone()];
            row.extend(
                metrics
                    .iter()
                    .map(|m| format::pct(m.1.get(i).copied().flatten())),
            );
            row
        }));
        let mut steps = vec![[
            "Step",
            "Regressed",
            "Improved",
            "Paired",
            "Δ accuracy",
            "95% CI",
            "McNemar p",
        ]
        .map(String::from)
        .to_vec()];
        steps.extend(v.steps.iter().enumerate().map(|(i, s)| {
            let ok = s.error.is_none();
            let count = |n: u64| if ok { format::int(n) } else { String::new() };
            vec![
                format!("{}. {} → {}", i + 1, s.baseline, s.candidate),
                count(s.flips.regressed),
                count(s.flips.improved),
                format::int(s.n_paired),
                format::signed_pp(s.accuracy_delta),
                format!(
                    "[{}, {}]",
                    format::signed_pp(s.ci_low),
                    format::signed_pp(s.ci_high)
                ),
                compare::p_value_text(s.mcnemar_p),
            ]
        }));
        // Each row headed by its run or step; the listed step marked.
        let headed = |mut b: Block, marked: Option<usize>| {
            if let Block::Table(t) = &mut b {
                for (i, r) in t.rows.iter_mut().enumerate() {
                    r.flag = marked == Some(i);
                    r.key = match r.cells.first() {
                        Some(Cell::Text(x)) => Some(x.clone()),
                        _ => None,
                    };
                }
            }
            b
        };
        let steps = crate::screen::table("series-steps", "Flips between consecutive runs", steps);
        out.push(crate::screen::group(
            "series",
            "section",
            Some(format!("Series of {} runs", v.runs.len())),
            vec![
                headed(crate::screen::table("series-metrics", "", rows), None),
                headed(steps, Some(v.step as usize)),
            ],
        ));
    }
    if !v.meta.is_empty() {
        let n_diff = v.meta.iter().filter(|r| r.differs).count();
        let mut head = vec!["Field".to_string()];
        head.extend(v.runs.iter().cloned());
        head.push(String::new());
        let rows =
            v.meta
                .iter()
                .map(|r| {
                    let mut cells = vec![Cell::Text(r.label.clone())];
                    cells.extend(r.values.iter().map(|x| {
                        Cell::Text(x.clone().unwrap_or_else(|| format::NONE.to_string()))
                    }));
                    cells.push(Cell::Text(if r.differs { "≠ differs" } else { "" }.into()));
                    TableRow {
                        key: Some(r.label.clone()),
                        flag: r.differs,
                        cells,
                    }
                })
                .collect();
        out.push(crate::screen::group(
            "run-metadata",
            "section",
            Some(format!(
                "Run metadata · {} of {} fields differ",
                n_diff,
                v.meta.len()
            )),
            vec![Block::Table(Table {
                key: "run-metadata".into(),
                title: None,
                numeric: Vec::new(),
                rows,
                head,
            })],
        ));
    }
    out
}

/// The slice table's header row, the field's column labelled `label`.
fn slice_head(label: &str) -> [&str; 7] {
    [
        label,
        "Paired",
        "Baseline",
        "Candidate",
        "Δ",
        "Regressed",
        "Improved",
    ]
}

/// The engine's slices ([`slices::slices`]) as the Compare tab shows them: the fields offered,
/// the field used and the table (a header row, then one row of text per value).
fn slice_table(s: Slices) -> (Vec<String>, Option<String>, Vec<Vec<String>>) {
    let Some(field) = s.by else {
        return (s.fields, None, Vec::new());
    };
    let mut out = vec![slice_head(&slices::field_label(&field))
        .map(str::to_string)
        .to_vec()];
    for r in &s.rows {
        out.push(vec![
            r.value.clone(),
            crate::format::int(r.paired),
            crate::format::pct(r.baseline_rate()),
            crate::format::pct(r.candidate_rate()),
            crate::format::pp(r.delta()),
            crate::format::int(r.regressed),
            crate::format::int(r.improved),
        ]);
    }
    (s.fields, Some(field), out)
}

/// How the dashboard compares two runs: each profile's own scorer, default statistics options,
/// items paired by item (their repeats reduced by the default reducer) when the query asks.
fn settings(q: &CompareQuery) -> CompareSettings {
    CompareSettings {
        qa_scorer: q.scorer.clone(),
        opts: CompareOptions::default(),
        pairing: if q.by_item {
            Pairing::ByItem(None)
        } else {
            Pairing::AsJudged
        },
    }
}

/// A by-item comparison's mean difference in words, as the Compare tab shows it beside the
/// pairing: the mean reduced value's change with its item-clustered CI (the same numbers `diff
/// --by-item` prints).
fn by_item_text(m: &compare::ItemMeans) -> String {
    let signed = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:+.4}"));
    let num = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.4}"));
    format!(
        "mean {} {} → {} over {} items, Δ {} (95% CI [{}, {}] clustered by item){}",
        m.reducer,
        num(m.baseline_mean),
        num(m.candidate_mean),
        m.n_items,
        signed(m.delta),
        signed(m.ci_low),
        signed(m.ci_high),
        if m.binary {
            ""
        } else {
            "; no McNemar test: values other than 0 and 1"
        }
    )
}

/// Baseline vs candidate: deltas, flips, McNemar, bootstrap CI and the rows the query asks for
/// ("regressions first": by flip class, then the comparison's item order).
pub fn compare_view(base: &Side, cand: &Side, q: &CompareQuery) -> CompareView {
    compare_view_in::<ALL_FAMILIES>(base, cand, q)
}

/// [`compare_view`] for runs of the families in `FAMILIES` (a worker's family set).
pub fn compare_view_in<const FAMILIES: FamilySet>(
    base: &Side,
    cand: &Side,
    q: &CompareQuery,
) -> CompareView {
    let cmp = base
        .run()
        .zip(cand.run())
        .map(|(b, c)| run::compare_in::<FAMILIES>(b, c, &settings(q)));
    judges::<FAMILIES>(step_view::<FAMILIES>(base, cand, cmp, q), base, q)
}

/// `view` with the judges `base` offers first among its cards ("Judged by"; also when the judge
/// picked cannot judge the pair, so that another can be picked).
fn judges<const FAMILIES: FamilySet>(
    mut view: CompareView,
    base: &Side,
    q: &CompareQuery,
) -> CompareView {
    let choices = base
        .run()
        .map(|b| b.judge_choices_in::<FAMILIES>())
        .unwrap_or_default();
    let default = choices
        .first()
        .map(|c| format!("{} (the baseline's headline)", c.label))
        .unwrap_or_default();
    if let Some(c) = crate::screen::judge_choice(&choices, q.scorer.as_deref(), &default) {
        view.cards.insert(0, c);
    }
    view
}

/// The view of the engine's comparison `cmp` of two sides (`None` when either run is held by
/// another worker).
fn step_view<const FAMILIES: FamilySet>(
    base: &Side,
    cand: &Side,
    cmp: Option<Result<RunComparison, CompareError>>,
    q: &CompareQuery,
) -> CompareView {
    let opts = CompareOptions::default();
    let mut view = CompareView {
        baseline: base.name().to_string(),
        candidate: cand.name().to_string(),
        family: base.family(),
        judged_by: String::new(),
        metrics: Vec::new(),
        flips: Default::default(),
        n_paired: 0,
        baseline_accuracy: None,
        candidate_accuracy: None,
        accuracy_delta: None,
        mcnemar_p: 1.0,
        ci_low: None,
        ci_high: None,
        resamples: opts.resamples,
        seed: opts.seed,
        per_item_unavailable: None,
        reading: None,
        error: None,
        categories: Vec::new(),
        slices: Vec::new(),
        slice_fields: Vec::new(),
        slice_by: None,
        n_rows: 0,
        rows: Vec::new(),
        pairing: None,
        cards: Vec::new(),
        metric_rows: Vec::new(),
    };
    let (b, c, cmp) = match (base, cand, cmp) {
        (Side::Run(_, b), Side::Run(_, c), Some(cmp)) => (b, c, cmp),
        _ => {
            view.error = Some(format!(
                "{} is a {} run and {} is a {} run: only runs of the same family can be compared",
                base.name(),
                base.family().label(),
                cand.name(),
                cand.family().label()
            ));
            return view;
        }
    };
    let cmp = match cmp {
        Ok(c) => c,
        Err(e) => {
            view.error = Some(e.to_string());
            return view;
        }
    };
    let context = slices::comparison_contexts_in::<FAMILIES>(&cmp, *b, *c);
    (view.slice_fields, view.slice_by, view.slices) =
        slice_table(slices::slices(&cmp, &context, q.by.as_deref()));
    view.per_item_unavailable = cmp.notes();
    view.reading = Some(cmp.reading());
    view.judged_by = cmp.judged_by;
    view.metrics = cmp.metrics;
    let stats = cmp.stats;
    view.pairing = match (cmp.pairing, &stats.by_item) {
        (Some(p), Some(m)) => Some(format!("{p} · {}", by_item_text(m))),
        (p, _) => p,
    };
    view.flips = stats.flips;
    view.n_paired = stats.n_paired;
    view.baseline_accuracy = stats.baseline_accuracy;
    view.candidate_accuracy = stats.candidate_accuracy;
    view.accuracy_delta = stats.accuracy_delta;
    view.mcnemar_p = stats.mcnemar_p;
    view.ci_low = stats.bootstrap.low;
    view.ci_high = stats.bootstrap.high;
    view.categories = context
        .values()
        .filter_map(|x| x.category.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut pairs: Vec<&PairedItem> = stats
        .pairs
        .iter()
        .filter(|p| q.flip.as_deref().is_none_or(|f| p.flip().slug() == f))
        .filter(|p| {
            q.category.as_deref().is_none_or(|want| {
                context.get(&p.key).and_then(|x| x.category.as_deref()) == Some(want)
            })
        })
        .collect();
    // Regressions first; within a class, the comparison's own item order (numeric turns).
    pairs.sort_by_key(|p| p.flip());
    view.n_rows = pairs.len();
    let limit = if q.limit == 0 {
        COMPARE_PAGE
    } else {
        q.limit.min(COMPARE_PAGE)
    };
    view.rows = pairs
        .into_iter()
        .take(limit)
        .map(|p| {
            let ctx = context.get(&p.key).cloned().unwrap_or_default();
            let a = p.baseline_answer.as_deref().unwrap_or("");
            let b = p.candidate_answer.as_deref().unwrap_or("");
            CompareRow {
                key: p.key.clone(),
                flip: p.flip(),
                // A pairing that carries the question as the expected value shows it once.
                expected: p
                    .expected
                    .clone()
                    .filter(|e| ctx.question.as_ref() != Some(e)),
                category: ctx.category,
                question: ctx.question,
                baseline_answer: p.baseline_answer.clone(),
                candidate_answer: p.candidate_answer.clone(),
                diff: compare::words::word_diff(a, b),
            }
        })
        .collect();
    shown(&mut view);
    view
}

/// A change with its sign, the magnitude shown by `show`.
fn signed(d: Option<f64>, show: impl Fn(f64) -> String) -> String {
    match d {
        Some(x) if x < 0.0 => format!("-{}", show(-x)),
        Some(x) => format!("+{}", show(x)),
        None => format::NONE.into(),
    }
}

/// What the Compare tab shows of a comparison, worded here so the page only renders it: the
/// headline cards and each metric in its own unit (a rate as a percentage and its change in
/// points; a score, a count, dollars or seconds with a signed change).
fn shown(view: &mut CompareView) {
    let f = view.flips;
    let card = |key: &str, label: &str, value: String, sub: String| {
        (key.to_string(), label.to_string(), value, sub)
    };
    view.cards = vec![Block::Cards {
        primary: "accuracy_delta".into(),
        cards: vec![
            card(
                "accuracy_delta",
                "Δ accuracy (paired)",
                format::signed_pp(view.accuracy_delta),
                format!(
                    "{} → {} over {} paired",
                    format::pct(view.baseline_accuracy),
                    format::pct(view.candidate_accuracy),
                    format::int(view.n_paired)
                ),
            ),
            card(
                "regressed",
                "Regressed",
                format::int(f.regressed),
                "correct → wrong".into(),
            ),
            card(
                "improved",
                "Improved",
                format::int(f.improved),
                "wrong → correct".into(),
            ),
            card(
                "mcnemar_p",
                "McNemar exact p",
                compare::p_value_text(view.mcnemar_p),
                "two-sided, on the flips".into(),
            ),
            card(
                "bootstrap_ci",
                "Bootstrap 95% CI",
                format!(
                    "[{}, {}]",
                    format::signed_pp(view.ci_low),
                    format::signed_pp(view.ci_high)
                ),
                format!(
                    "paired, {} resamples, seed {}",
                    format::int(u64::from(view.resamples)),
                    view.seed
                ),
            ),
        ],
    }];
    view.metric_rows = view
        .metrics
        .iter()
        .map(|m| {
            let d = m.baseline.zip(m.candidate).map(|(b, c)| c - b);
            let (shown, delta): (fn(Option<f64>) -> String, String) = match m.unit {
                compare::Unit::Rate => (format::pct, format::signed_pp(d)),
                compare::Unit::Score => (|x| format::dec(x, 4), signed(d, |x| format!("{x:.4}"))),
                compare::Unit::Count => (format::tokens, signed(d, |x| format::tokens(Some(x)))),
                compare::Unit::Usd => (format::usd, signed(d, |x| format::usd(Some(x)))),
                compare::Unit::Seconds => (
                    |x| format!("{} s", format::dec(x, 2)),
                    signed(d, |x| format!("{x:.2} s")),
                ),
            };
            (
                m.key.clone(),
                m.label.clone(),
                shown(m.baseline),
                shown(m.candidate),
                delta,
            )
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::compare::Flip;
    use evalboard_engine::evalset::views::evalset_view;
    use evalboard_engine::evalset::{self, AnswerScorer, ScoringOptions};
    use evalboard_engine::run::{ReadOptions, ScoredRun, Settings};
    use evalboard_engine::{InputFile, RunInput};

    fn scored(family: Family, input: RunInput, settings: &Settings) -> ScoredRun {
        let read = run::read_as(family, &input, None, ReadOptions::default()).expect("readable");
        run::score(read, settings, 1)
    }

    fn qa(name: &str, lines: &[&str]) -> ScoredRun {
        let input = RunInput::new(
            name.to_string(),
            vec![InputFile::new(format!("{name}/a.jsonl"), lines.join("\n"))],
        );
        scored(Family::NumericQa, input, &Settings::default())
    }

    fn ev(name: &str, items: &str, preds: &str) -> ScoredRun {
        ev_with(name, items, preds, &Settings::default())
    }

    fn ev_with(name: &str, items: &str, preds: &str, settings: &Settings) -> ScoredRun {
        let input = RunInput::new(
            name.to_string(),
            vec![
                InputFile::new(format!("{name}/eval_set.jsonl"), items),
                InputFile::new(format!("{name}/{name}_predictions.jsonl"), preds),
            ],
        );
        scored(Family::Evalset, input, settings)
    }

    fn side<'a>(name: &'a str, r: &'a ScoredRun) -> Side<'a> {
        Side::Run(name, r.as_ref())
    }

    fn primary_score(r: &ScoredRun) -> Option<f64> {
        r.as_ref().headline_value()
    }

    #[test]
    fn series_of_three_eval_set_runs() {
        let items = [
            r#"{"id":"a","prompt":"1+1","expected_answer":"2","category":"math"}"#,
            r#"{"id":"b","prompt":"2+2","expected_answer":"4","category":"math"}"#,
            r#"{"id":"c","prompt":"Capital of Italy?","expected_answer":"Rome","category":"geo"}"#,
        ]
        .join("\n");
        let preds = |a: &str, b: &str, c: &str| {
            format!(
                "{{\"id\":\"a\",\"prediction\":\"{a}\"}}\n{{\"id\":\"b\",\"prediction\":\"{b}\"}}\n{{\"id\":\"c\",\"prediction\":\"{c}\"}}\n"
            )
        };
        let s1 = ev("s1", &items, &preds("2", "5", "Rome"));
        let s2 = ev("s2", &items, &preds("3", "4", "Rome"));
        let mut s3 = ev("s3", &items, &preds("2", "4", "Paris"));
        // The last stage carries training metrics (one line, as the real files do).
        if let ScoredRun::Evalset(run, _) = &mut s3 {
            run.training_metrics = vec![evalset::TrainingMetricPoint {
                step: Some(414),
                loss: Some(0.857),
                ..Default::default()
            }];
        }
        s3.rescore(&Settings::default());
        let sides = [side("s1", &s1), side("s2", &s2), side("s3", &s3)];
        let v = series_view(&sides, 1, &CompareQuery::default(), true);
        assert_eq!(v.runs, ["s1", "s2", "s3"]);
        assert_eq!(v.step, 1);
        let flips: Vec<(u64, u64)> = v
            .steps
            .iter()
            .map(|s| (s.flips.regressed, s.flips.improved))
            .collect();
        assert_eq!(flips, [(1, 1), (1, 1)]);
        assert!(
            v.steps[0].rows.is_empty(),
            "only the chosen step lists items"
        );
        assert_eq!(
            crate::format::item_key(&v.steps[1].rows[0].key),
            "c",
            "regressions first"
        );
        // Deltas per category: s2 → s3 regresses the geo item and improves a math one.
        assert_eq!(
            v.steps[1].slices,
            [
                slice_head("Category"),
                ["geo", "1", "100.0%", "0.0%", "-100.0 pp", "1", "0"],
                ["math", "2", "50.0%", "100.0%", "+50.0 pp", "0", "1"],
            ]
        );
        assert_eq!(v.steps[1].rows[0].flip, Flip::Regressed);
        let keys: Vec<&str> = v.charts.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["loss_curve", "series_metrics"]);
        assert!(v.charts[0].svg.contains("ebc-dark"));
        assert!(v.charts[0].svg.contains("s3 (1 point)"));
        let metrics = series_metrics(&v.steps);
        assert_eq!(metrics[0].1.len(), 3);
        let loss = v.meta.iter().find(|r| r.key == "final_loss").unwrap();
        assert_eq!(loss.values, [None, None, Some("0.8570".to_string())]);
        assert!(loss.differs);
        // The step is clamped; two runs are a plain comparison without the metrics chart.
        assert_eq!(
            series_view(&sides, 9, &CompareQuery::default(), false).step,
            1
        );
        let two = series_view(&sides[..2], 0, &CompareQuery::default(), false);
        assert_eq!(two.steps.len(), 1);
        assert!(two.charts.is_empty());
        // The view crosses the protocol intact.
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<SeriesView>(&text).unwrap(), v);
    }

    #[test]
    fn headline_scorer_and_threshold_rescore() {
        let items = r#"{"id":"a","prompt":"p","expected_answer":"4"}"#;
        let mut st = ev("r", items, r#"{"id":"a","prediction":"Answer: 4"}"#);
        assert_eq!(primary_score(&st), Some(0.0));
        let settings = Settings {
            evalset: ScoringOptions {
                scorer: AnswerScorer::V1Extract,
                pass_threshold: 0.5,
            },
            ..Settings::default()
        };
        st.rescore(&settings);
        assert_eq!(primary_score(&st), Some(1.0));
        let ScoredRun::Evalset(run, s) = &st else {
            panic!("an eval-set run")
        };
        let v = evalset_view(run, s);
        assert_eq!(v.scorer, "answer_correctness@v1-extract");
        assert_eq!(v.verdict, "pass");
        assert!(
            v.verdict_reason.contains("threshold 0.5"),
            "{}",
            v.verdict_reason
        );
    }

    #[test]
    fn qa_comparison_joins_turns_and_lists_regressions_first() {
        let b = qa(
            "b",
            &[
                r#"{"conversation_id":"c1","turn_idx":0,"question":"q0","expected":"5%","predicted":0.05}"#,
                r#"{"conversation_id":"c1","turn_idx":1,"question":"q1","expected":"10","predicted":"3"}"#,
                r#"{"conversation_id":"c2","turn_idx":0,"question":"q2","expected":"7","predicted":7}"#,
            ],
        );
        let c = qa(
            "c",
            &[
                r#"{"conversation_id":"c1","turn_idx":0,"question":"q0","expected":"5%","predicted":"<b>12</b>"}"#,
                r#"{"conversation_id":"c1","turn_idx":1,"question":"q1","expected":"10","predicted":10}"#,
                r#"{"conversation_id":"c2","turn_idx":0,"conversation_error":"timeout"}"#,
            ],
        );
        let v = compare_view(&side("b", &b), &side("c", &c), &CompareQuery::default());
        assert_eq!(v.error, None);
        assert_eq!((v.flips.regressed, v.flips.improved), (2, 1), "{v:?}");
        let flips: Vec<_> = v.rows.iter().map(|r| r.flip.slug()).collect();
        assert_eq!(flips, ["regressed", "regressed", "improved"]);
        assert_eq!(crate::format::item_key(&v.rows[0].key), "c1 · 0");
        assert_eq!(v.rows[0].candidate_answer.as_deref(), Some("<b>12</b>"));
        assert!(v.rows[1]
            .candidate_answer
            .as_deref()
            .unwrap_or("")
            .contains("timeout"));
        // No categories: slices by turn (whole numbers in order), and by operations where
        // the turns carry a plan.
        assert_eq!(v.slice_fields, ["turn"]);
        let turns: Vec<&str> = v.slices.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(turns, ["Turn", "0", "1"]);
        assert_eq!(
            v.slices[1][1..],
            ["2", "100.0%", "0.0%", "-100.0 pp", "2", "0"]
        );
        let only = compare_view(
            &side("b", &b),
            &side("c", &c),
            &CompareQuery {
                flip: Some("improved".into()),
                ..Default::default()
            },
        );
        assert_eq!(only.n_rows, 1);
        assert!(v.mcnemar_p > 0.0 && v.mcnemar_p <= 1.0);
    }

    fn codegen_run(dir: &str) -> ScoredRun {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/codegen/diff")
            .join(dir);
        let files = ["traces.jsonl", "employees.csv"]
            .iter()
            .map(|f| InputFile::new(*f, std::fs::read(root.join(f)).unwrap_or_default()))
            .collect();
        scored(
            Family::Codegen,
            RunInput::new(dir, files),
            &Settings::default(),
        )
    }

    /// An evaluation-tool log folder of tests/fixtures/evallog/runs, scored.
    fn log_run(dir: &str) -> ScoredRun {
        ScoredRun::EvalLog(Box::new(crate::evallog::tests::log(&format!("runs/{dir}"))))
    }

    #[test]
    fn eval_log_comparison_slices_by_the_logs_breakdown_fields() {
        let (b, c) = (
            log_run("promptfoo_baseline"),
            log_run("promptfoo_candidate"),
        );
        let (b, c) = (side("baseline", &b), side("candidate", &c));
        let v = compare_view(&b, &c, &CompareQuery::default());
        assert_eq!(v.error, None);
        // The category's own field (promptfoo's column) first, then the log's other breakdowns.
        assert_eq!(v.slice_fields, ["column", "prompt", "promptIdx", "testIdx"]);
        assert_eq!(v.slice_by.as_deref(), Some("column"));
        let rows: Vec<&str> = v.slices.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(rows[0], "Column");
        assert_eq!(rows[1..], v.categories);
        let by_test = compare_view(
            &b,
            &c,
            &CompareQuery {
                by: Some("testIdx".into()),
                ..Default::default()
            },
        );
        let tests: Vec<&str> = by_test.slices.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(tests, ["TestIdx", "0", "1"]);
        // The two slicings count the same paired items, and the same flips.
        let total = |v: &CompareView, col: usize| -> u64 {
            v.slices
                .iter()
                .skip(1)
                .map(|r| r[col].parse::<u64>().unwrap())
                .sum()
        };
        for col in [1, 5, 6] {
            assert_eq!(total(&v, col), total(&by_test, col));
        }
        assert_eq!(total(&v, 1), v.n_paired);
        assert_eq!(total(&v, 5), v.flips.regressed);
    }

    #[test]
    fn codegen_comparison_pairs_messages_like_the_cli() {
        let (b, c) = (codegen_run("baseline"), codegen_run("candidate"));
        let v = compare_view(
            &side("baseline", &b),
            &side("candidate", &c),
            &CompareQuery::default(),
        );
        assert_eq!(v.error, None);
        assert_eq!(v.family, Family::Codegen);
        // tests/fixtures/cli/diff/expected/codegen_baseline_vs_candidate.json
        assert_eq!((v.flips.regressed, v.flips.improved, v.n_paired), (1, 1, 8));
        assert_eq!(v.mcnemar_p, 1.0);
        assert_eq!((v.ci_low, v.ci_high), (Some(-0.375), Some(0.375)));
        assert_eq!(
            crate::format::item_key(&v.rows[0].key),
            "11111111-1111-1111-1111-111111111111 · 0"
        );
        assert_eq!(v.rows[0].category.as_deref(), Some("gpt-4"));
        assert!(v.rows[0]
            .candidate_answer
            .as_deref()
            .is_some_and(|a| a.contains("KeyError")));
        // The category of a pair is the baseline's model.
        assert_eq!(v.categories, ["gpt-4", "llama-3.3-70b"]);
        let mixed = compare_view(
            &side("baseline", &b),
            &Side::Elsewhere("qa", Family::NumericQa),
            &CompareQuery::default(),
        );
        assert!(mixed.error.is_some());
    }

    #[test]
    fn evalset_view_and_comparison() {
        let items = [
            r#"{"id":"a","prompt":"2+2?","expected_answer":"4","section":"core","category":"math","difficulty":"easy"}"#,
            r#"{"id":"b","prompt":"Capital of France?","expected_answer":"Paris","section":"core","category":"geo","difficulty":"easy"}"#,
            r#"{"id":"c","prompt":"3*3?","expected_answer":"9","section":"edge_case","category":"math","difficulty":"hard"}"#,
        ]
        .join("\n");
        let base = ev(
            "base",
            &items,
            &[
                r#"{"id":"a","prediction":"4"}"#,
                r#"{"id":"b","prediction":"The answer is Paris"}"#,
                r#"{"id":"c","prediction":"9"}"#,
            ]
            .join("\n"),
        );
        let cand = ev(
            "cand",
            &items,
            &[
                r#"{"id":"a","prediction":"5"}"#,
                r#"{"id":"b","prediction":"paris"}"#,
                r#"{"id":"c","prediction":"9"}"#,
            ]
            .join("\n"),
        );
        let ScoredRun::Evalset(run, s) = &base else {
            panic!("an eval-set run")
        };
        let v = evalset_view(run, s);
        assert_eq!((v.n_items, v.n_scored), (3, 3));
        assert_eq!(v.items.len(), 3);
        assert_eq!(v.items[0].prompt, "2+2?");
        let section = &v.groups[0];
        assert_eq!(section.0, "section");
        assert_eq!(section.1[0].name, "core");
        assert_eq!(section.1[0].n_scored, 2);
        assert_eq!(v.validation.len(), 1);
        assert!(!v.validation[0].warnings.is_empty() || !v.validation[0].errors.is_empty());
        let c = compare_view(
            &side("base", &base),
            &side("cand", &cand),
            &CompareQuery::default(),
        );
        assert_eq!((c.flips.regressed, c.flips.improved), (1, 1));
        assert_eq!(crate::format::item_key(&c.rows[0].key), "a");
        assert_eq!(c.rows[0].category.as_deref(), Some("math"));
        assert_eq!(c.categories, ["geo", "math"]);
        // Sliced by category by default; by difficulty when asked (and by category again for
        // a field the items do not have).
        assert_eq!(c.slice_fields, ["category", "section", "difficulty"]);
        assert_eq!(c.slice_by.as_deref(), Some("category"));
        let by = |field: &str| {
            compare_view(
                &side("base", &base),
                &side("cand", &cand),
                &CompareQuery {
                    by: Some(field.into()),
                    ..Default::default()
                },
            )
        };
        let d = by("difficulty");
        assert_eq!(d.slice_by.as_deref(), Some("difficulty"));
        assert_eq!(
            d.slices,
            [
                slice_head("Difficulty"),
                ["easy", "2", "50.0%", "50.0%", "0.0 pp", "1", "1"],
                ["hard", "1", "100.0%", "100.0%", "0.0 pp", "0", "0"],
            ]
        );
        assert_eq!(d.rows, c.rows, "the slice changes the table, not the items");
        assert_eq!(by("prompt").slices, c.slices);
        let q = qa(
            "q",
            &[r#"{"conversation_id":"c","turn_idx":0,"question":"q","expected":1,"predicted":1}"#],
        );
        let mixed = compare_view(
            &side("base", &base),
            &side("q", &q),
            &CompareQuery::default(),
        );
        assert!(mixed.error.is_some());
    }
}
