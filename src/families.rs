//! The worker's views of eval-set runs and of run comparisons. Pure (no browser
//! types), so it is tested natively; the worker only stores the state and posts the views.

use std::collections::{BTreeSet, HashMap};

use evalboard_engine::aggregate::doc;
use evalboard_engine::codegen;
use evalboard_engine::compare::{self, CompareOptions, PairedItem};
use evalboard_engine::evalset::{self, AnswerScorer, EvalRun, ScoredRun, ScoringOptions};
use evalboard_engine::run::{self, CompareSettings, RunRef};
use evalboard_engine::scorers::ScoredQaRun;
use evalboard_engine::RunInput;

use evalboard_engine::run_meta::{self, RunMeta};
use evalboard_report::charts::Theme;
use evalboard_report::compare_charts;

use crate::codegen::CodegenState;
use crate::protocol::{
    series_metrics, CompareQuery, CompareRow, CompareView, EvalsetItemRow, EvalsetView,
    ExtractFlip, GroupRow, MetricDelta, SeriesView, ValidationDto,
};

/// Rows per compare page when the query does not say.
pub const COMPARE_PAGE: usize = 200;

/// An eval-set run as the worker keeps it: read once, scored under both scorers.
pub struct EvalsetState {
    pub run: EvalRun,
    pub v1: ScoredRun,
    pub extract: ScoredRun,
    pub validation: Vec<ValidationDto>,
    /// Which of the two is the headline (Settings).
    pub scorer: AnswerScorer,
}

impl EvalsetState {
    /// The headline scorer's result.
    pub fn headline(&self) -> &ScoredRun {
        match self.scorer {
            AnswerScorer::V1 => &self.v1,
            AnswerScorer::V1Extract => &self.extract,
        }
    }

    /// Scores again under new settings (headline scorer, pass threshold).
    pub fn rescore(&mut self, opts: &ScoringOptions) {
        (self.v1, self.extract) = score_both(&self.run, opts.pass_threshold);
        self.scorer = opts.scorer;
    }
}

fn score_both(run: &EvalRun, pass_threshold: f64) -> (ScoredRun, ScoredRun) {
    let score = |scorer| {
        evalset::score_run(
            run,
            &ScoringOptions {
                scorer,
                pass_threshold,
            },
        )
    };
    (score(AnswerScorer::V1), score(AnswerScorer::V1Extract))
}

/// Reads and scores an eval-set run under the default settings.
pub fn load_evalset(input: &RunInput) -> Result<EvalsetState, String> {
    load_evalset_with(input, &ScoringOptions::default())
}

/// Reads and scores an eval-set run; `Err` when it has neither items nor predictions.
pub fn load_evalset_with(input: &RunInput, opts: &ScoringOptions) -> Result<EvalsetState, String> {
    let mut run = evalset::read_evalset_run(&input.files, None);
    if run.items.is_empty() && run.predictions.is_empty() && run.summaries.is_empty() {
        return Err("no eval set, predictions or eval summary could be read".into());
    }
    run.name = input.name.clone();
    let (v1, extract) = score_both(&run, opts.pass_threshold);
    let validation = input
        .files
        .iter()
        .filter(|f| evalset::sniff(&f.path, &f.bytes) == Some(evalset::EvalsetFileKind::EvalSet))
        .map(|f| {
            validation_dto(
                &f.path,
                evalset::validate_evalset(&f.path, &f.bytes, evalset::validate::DEFAULT_MIN_ITEMS),
            )
        })
        .collect();
    Ok(EvalsetState {
        run,
        v1,
        extract,
        validation,
        scorer: opts.scorer,
    })
}

fn validation_dto(file: &str, r: evalset::EvalsetValidateReport) -> ValidationDto {
    let line = |f: &evalset::validate::EvalsetFinding| match f.line {
        Some(l) => format!("line {l}: {}", f.message),
        None => f.message.clone(),
    };
    let dim = |name: &str, m: &std::collections::BTreeMap<String, u64>| {
        (
            name.to_string(),
            m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>(),
        )
    };
    ValidationDto {
        file: file.to_string(),
        items: r.items,
        errors: r.errors.iter().map(line).collect(),
        warnings: r.warnings.iter().map(line).collect(),
        composition: vec![
            dim("section", &r.composition.section),
            dim("category", &r.composition.category),
            dim("difficulty", &r.composition.difficulty),
        ],
    }
}

fn primary(s: &ScoredRun) -> Option<f64> {
    s.scorecard.as_ref().and_then(|c| c.primary_score)
}

pub fn primary_score(st: &EvalsetState) -> Option<f64> {
    primary(st.headline())
}

/// Everything the eval-set overview and items table show.
pub fn evalset_view(st: &EvalsetState) -> EvalsetView {
    let s = st.headline();
    let prompts: HashMap<&str, &str> = st
        .run
        .items
        .iter()
        .map(|i| (i.id.as_str(), i.prompt.as_str()))
        .collect();
    let items: Vec<EvalsetItemRow> = s
        .items
        .iter()
        .map(|i| EvalsetItemRow {
            id: i.item_id.clone(),
            prompt: prompts
                .get(i.item_id.as_str())
                .map(|p| p.to_string())
                .unwrap_or_default(),
            expected: i.expected.clone(),
            predicted: i.predicted.clone(),
            extracted: st
                .extract
                .items
                .iter()
                .find(|e| e.item_id == i.item_id)
                .and_then(|e| e.extracted.clone()),
            correct: i.is_correct(),
            reason: i.reason.clone(),
            original_correct: i.original_correct,
            section: i.section.clone(),
            category: i.category.clone(),
            difficulty: i.difficulty.clone(),
        })
        .collect();
    let card = s.scorecard.as_ref();
    let group = |name: &str,
                 means: Option<&Vec<(String, f64)>>,
                 key: fn(&EvalsetItemRow) -> Option<&String>| {
        let rows = means
            .map(|m| {
                m.iter()
                    .map(|(g, score)| {
                        let members = items
                            .iter()
                            .filter(|i| key(i) == Some(g) && i.correct.is_some());
                        let (n, ok) = members.fold((0, 0), |(n, ok), i| {
                            (n + 1, ok + u64::from(i.correct == Some(true)))
                        });
                        GroupRow {
                            name: g.clone(),
                            n_scored: n,
                            n_correct: ok,
                            score: *score,
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        (name.to_string(), rows)
    };
    let groups = vec![
        group("section", card.map(|c| &c.section_scores), |i| {
            i.section.as_ref()
        }),
        group("category", card.map(|c| &c.category_scores), |i| {
            i.category.as_ref()
        }),
        group("difficulty", card.map(|c| &c.difficulty_scores), |i| {
            i.difficulty.as_ref()
        }),
    ];
    let extract_by_id: HashMap<&str, &evalset::ItemScore> = st
        .extract
        .items
        .iter()
        .map(|i| (i.item_id.as_str(), i))
        .collect();
    let extract_flips = st
        .v1
        .items
        .iter()
        .filter_map(|a| {
            let b = extract_by_id.get(a.item_id.as_str())?;
            (a.is_correct() != b.is_correct()).then(|| ExtractFlip {
                id: a.item_id.clone(),
                v1: a.is_correct(),
                extract: b.is_correct(),
                predicted: a.predicted.clone(),
                extracted: b.extracted.clone(),
                expected: a.expected.clone(),
            })
        })
        .collect();
    EvalsetView {
        name: s.name.clone(),
        model: st.run.model.clone(),
        scorer: s.scorer.id().to_string(),
        n_items: card.map_or(items.len() as u64, |c| c.n_items),
        n_scored: card.map_or(0, |c| c.n_scored),
        n_skipped: card.map_or(0, |c| c.n_skipped),
        primary_score: card.and_then(|c| c.primary_score),
        stddev: card.and_then(|c| c.stddev),
        min_score: card.and_then(|c| c.min_score),
        max_score: card.and_then(|c| c.max_score),
        verdict: s.verdict.as_str().to_string(),
        verdict_reason: s.verdict_reason.clone(),
        per_item_unavailable: s.per_item_unavailable.clone(),
        run_failure: s.run_failure.clone(),
        groups,
        items,
        v1_score: primary(&st.v1),
        v1_extract_score: primary(&st.extract),
        extract_flips,
        original: s.original.clone(),
        original_agreement: s.original_agreement.clone(),
        validation: st.validation.clone(),
    }
}

/// One side of a comparison.
pub enum Side<'a> {
    Qa(&'a str, &'a ScoredQaRun),
    Evalset(&'a str, &'a EvalsetState),
    Codegen(&'a str, &'a CodegenState),
    /// A run another worker holds: only its name and family are known here.
    Elsewhere(&'a str, &'static str),
}

impl Side<'_> {
    fn name(&self) -> &str {
        match self {
            Side::Qa(n, _) | Side::Evalset(n, _) | Side::Codegen(n, _) | Side::Elsewhere(n, _) => n,
        }
    }
    fn family(&self) -> &'static str {
        match self {
            Side::Qa(..) => "numeric-qa",
            Side::Evalset(..) => "evalset",
            Side::Codegen(..) => "codegen",
            Side::Elsewhere(_, f) => f,
        }
    }
}

impl Side<'_> {
    /// What the run is (model, eval set, config, status, durations …) and its loss curve.
    pub fn meta(&self) -> RunMeta {
        if let Side::Qa(_, s) = self {
            return run_meta::qa_meta(s);
        }
        if let Side::Evalset(_, st) = self {
            return st.headline().meta.clone();
        }
        RunMeta::default()
    }
}

/// A series of runs (two or more, in order): every consecutive pair through [`compare_view`]
/// (rows only for `step`, per `q`), run metadata side by side, the loss-curve overlay and, for
/// three or more runs, the headline metrics across the series.
pub fn series_view(sides: &[Side], step: usize, q: &CompareQuery, dark: bool) -> SeriesView {
    let step = step.min(sides.len().saturating_sub(2));
    let quiet = CompareQuery {
        limit: 1,
        ..CompareQuery::default()
    };
    let steps: Vec<CompareView> = sides
        .windows(2)
        .enumerate()
        .filter_map(|(i, w)| match w {
            [b, c] if i == step => Some(compare_view(b, c, q)),
            [b, c] => {
                let mut v = compare_view(b, c, &quiet);
                v.rows.clear();
                Some(v)
            }
            _ => None,
        })
        .collect();
    let names: Vec<String> = sides.iter().map(|s| s.name().to_string()).collect();
    let metas: Vec<RunMeta> = sides.iter().map(Side::meta).collect();
    let theme = if dark { Theme::Dark } else { Theme::Light };
    let mut charts = Vec::new();
    let curves: Vec<(&str, &[(u64, f64)])> = names
        .iter()
        .zip(&metas)
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
    SeriesView {
        runs: names,
        step: step as u32,
        charts: charts.into_iter().map(Into::into).collect(),
        meta: run_meta::side_by_side(&metas.iter().collect::<Vec<_>>()),
        steps,
    }
}

/// Per-item extras (category, question) by joined key.
type Extras = HashMap<Vec<String>, (Option<String>, Option<String>)>;

/// The conversation type and question of every turn of a numeric QA run, by joined key.
fn qa_extras(s: &ScoredQaRun, extras: &mut Extras) {
    for t in &s.turns {
        let Some(conv) = s.run.conversations.get(t.conv as usize) else {
            continue;
        };
        let Some(turn) = conv.turns.get(t.turn as usize) else {
            continue;
        };
        extras
            .entry(vec![conv.id.clone(), turn.turn_idx.to_string()])
            .or_insert_with(|| (conv.conversation_type.clone(), Some(turn.question.clone())));
    }
}

fn qa_metrics(b: &ScoredQaRun, c: &ScoredQaRun) -> Vec<MetricDelta> {
    let (sb, sc) = (doc::statistics(b), doc::statistics(c));
    let m = |key: &str, label: &str, f: fn(&doc::Statistics) -> Option<f64>| MetricDelta {
        key: key.into(),
        label: label.into(),
        baseline: f(&sb),
        candidate: f(&sc),
    };
    vec![
        m("numerical_accuracy", "Numerical accuracy", |s| {
            s.numerical_accuracy
        }),
        m("exact_match_accuracy", "Exact match", |s| {
            s.exact_match_accuracy
        }),
        m(
            "conversation_level_accuracy",
            "Conversation-level accuracy",
            |s| s.conversation_level_accuracy,
        ),
        m("error_rate", "Error rate", |s| s.error_rate),
    ]
}

fn codegen_metrics(b: &CodegenState, c: &CodegenState) -> Vec<MetricDelta> {
    let (sb, sc) = (b.summary().summary, c.summary().summary);
    let m = |key: &str, label: &str, f: fn(&codegen::Summary) -> Option<f64>| MetricDelta {
        key: key.into(),
        label: label.into(),
        baseline: f(&sb),
        candidate: f(&sc),
    };
    let exec = |s: &codegen::Summary| {
        (s.total_questions > 0).then(|| s.successful_executions as f64 / s.total_questions as f64)
    };
    vec![
        m("execution_success_rate", "Execution success", exec),
        m(
            "average_overall_score",
            "Mean overall score (0–1 as %)",
            |s| s.average_overall_score,
        ),
        m("recovery_success_rate", "Recovery rate", |s| {
            s.recovery_success_rate
        }),
    ]
}

/// Baseline vs candidate: deltas, flips, McNemar, bootstrap CI and the rows the query asks for
/// ("regressions first": by flip class, then key).
pub fn compare_view<'a>(base: &'a Side, cand: &'a Side, q: &CompareQuery) -> CompareView {
    let opts = CompareOptions::default();
    let mut extras: Extras = HashMap::new();
    let mut view = CompareView {
        baseline: base.name().to_string(),
        candidate: cand.name().to_string(),
        family: base.family().to_string(),
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
        error: None,
        categories: Vec::new(),
        n_rows: 0,
        rows: Vec::new(),
    };
    // Which runs, as the engine's one comparison takes them.
    let as_run = |side: &'a Side| -> Option<RunRef<'a>> {
        match side {
            Side::Qa(_, s) => Some(RunRef::NumericQa(s)),
            Side::Evalset(_, st) => Some(RunRef::Evalset(st.headline(), &st.run.diagnostics)),
            Side::Codegen(_, st) => Some(RunRef::Codegen(&st.scored)),
            Side::Elsewhere(..) => None,
        }
    };
    let settings = CompareSettings {
        qa_scorer: None,
        opts: opts.clone(),
    };
    let cmp = match (as_run(base), as_run(cand)) {
        (Some(b), Some(c)) => run::compare(b, c, &settings).map_err(|e| e.to_string()),
        _ => Err(format!(
            "{} is a {} run and {} is a {} run: only runs of the same family can be compared",
            base.name(),
            base.family(),
            cand.name(),
            cand.family()
        )),
    };
    let mut cmp = match cmp {
        Ok(c) => c,
        Err(e) => {
            view.error = Some(e);
            return view;
        }
    };
    match (base, cand) {
        (Side::Qa(_, b), Side::Qa(_, c)) => {
            view.judged_by = format!(
                "turns joined on conversation id + turn index, judged by {}; turns of failed \
                 conversations (e.g. evaluation timeouts) count as wrong",
                cmp.scorer
            );
            view.metrics = qa_metrics(b, c);
            qa_extras(b, &mut extras);
            qa_extras(c, &mut extras);
        }
        (Side::Evalset(_, b), Side::Evalset(_, c)) => {
            view.judged_by = format!("items joined on id, judged by {}", cmp.scorer);
            view.metrics = vec![
                MetricDelta {
                    key: "primary_score".into(),
                    label: "Primary score (answer_correctness@v1)".into(),
                    baseline: primary(&b.v1),
                    candidate: primary(&c.v1),
                },
                MetricDelta {
                    key: "primary_score_extract".into(),
                    label: "Primary score (@v1-extract)".into(),
                    baseline: primary(&b.extract),
                    candidate: primary(&c.extract),
                },
            ];
            for st in [b, c] {
                for i in &st.headline().items {
                    extras.entry(vec![i.item_id.clone()]).or_insert_with(|| {
                        let prompt = st
                            .run
                            .items
                            .iter()
                            .find(|e| e.id == i.item_id)
                            .map(|e| e.prompt.clone());
                        (i.category.clone().or_else(|| i.section.clone()), prompt)
                    });
                }
            }
        }
        (Side::Codegen(_, b), Side::Codegen(_, c)) => {
            view.judged_by = format!(
                "messages joined on session id + message index, judged by {} (the delivered \
                 code ran); re-scored trace messages only",
                cmp.scorer
            );
            view.metrics = codegen_metrics(b, c);
            for st in [b, c] {
                for m in &st.messages {
                    extras
                        .entry(vec![m.session_id.clone(), m.index.to_string()])
                        .or_insert_with(|| (Some(m.model.clone()), Some(m.question.clone())));
                }
            }
            // The pairing carries the question as `expected`; here it has its own column.
            for p in &mut cmp.stats.pairs {
                p.expected = None;
            }
        }
        _ => {}
    }
    view.per_item_unavailable = cmp.notes();
    let stats = cmp.stats;
    view.flips = stats.flips;
    view.n_paired = stats.n_paired;
    view.baseline_accuracy = stats.baseline_accuracy;
    view.candidate_accuracy = stats.candidate_accuracy;
    view.accuracy_delta = stats.accuracy_delta;
    view.mcnemar_p = stats.mcnemar_p;
    view.ci_low = stats.bootstrap.low;
    view.ci_high = stats.bootstrap.high;
    view.categories = extras
        .values()
        .filter_map(|(c, _)| c.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut pairs: Vec<&PairedItem> = stats
        .pairs
        .iter()
        .filter(|p| q.flip.as_deref().is_none_or(|f| p.flip().slug() == f))
        .filter(|p| {
            q.category
                .as_deref()
                .is_none_or(|want| extras.get(&p.key).and_then(|e| e.0.as_deref()) == Some(want))
        })
        .collect();
    // Regressions first; within a class, the comparison's own item order (numeric turns).
    pairs.sort_by_key(|p| p.flip());
    view.n_rows = pairs.len();
    let limit = if q.limit == 0 { COMPARE_PAGE } else { q.limit };
    view.rows = pairs
        .into_iter()
        .take(limit)
        .map(|p| {
            let (category, question) = extras.get(&p.key).cloned().unwrap_or_default();
            let a = p.baseline_answer.as_deref().unwrap_or("");
            let b = p.candidate_answer.as_deref().unwrap_or("");
            CompareRow {
                key: p.key.join(" · "),
                flip: p.flip(),
                category,
                question,
                expected: p.expected.clone(),
                baseline_answer: p.baseline_answer.clone(),
                candidate_answer: p.candidate_answer.clone(),
                diff: compare::diff_text(a, b),
            }
        })
        .collect();
    view
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::compare::Flip;
    use evalboard_engine::pipeline;
    use evalboard_engine::scorers::{score_qa_run, ScoreConfig};
    use evalboard_engine::InputFile;

    fn qa(name: &str, lines: &[&str]) -> ScoredQaRun {
        let input = RunInput::new(
            name.to_string(),
            vec![InputFile::new(format!("{name}/a.jsonl"), lines.join("\n"))],
        );
        let run =
            pipeline::load_qa_run_with_progress(&input, None, &mut |_, _| {}).expect("readable");
        score_qa_run(run, &ScoreConfig::default())
    }

    fn ev(name: &str, items: &str, preds: &str) -> EvalsetState {
        let input = RunInput::new(
            name.to_string(),
            vec![
                InputFile::new(format!("{name}/eval_set.jsonl"), items),
                InputFile::new(format!("{name}/{name}_predictions.jsonl"), preds),
            ],
        );
        load_evalset(&input).expect("readable")
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
        s3.run.training_metrics = vec![evalset::TrainingMetricPoint {
            step: Some(414),
            loss: Some(0.857),
            ..Default::default()
        }];
        s3.rescore(&ScoringOptions::default());
        let sides = [
            Side::Evalset("s1", &s1),
            Side::Evalset("s2", &s2),
            Side::Evalset("s3", &s3),
        ];
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
        assert_eq!(v.steps[1].rows[0].key, "c", "regressions first");
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
        st.rescore(&ScoringOptions {
            scorer: AnswerScorer::V1Extract,
            pass_threshold: 0.5,
        });
        assert_eq!(primary_score(&st), Some(1.0));
        let v = evalset_view(&st);
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
        let v = compare_view(
            &Side::Qa("b", &b),
            &Side::Qa("c", &c),
            &CompareQuery::default(),
        );
        assert_eq!(v.error, None);
        assert_eq!((v.flips.regressed, v.flips.improved), (2, 1), "{v:?}");
        let flips: Vec<_> = v.rows.iter().map(|r| r.flip.slug()).collect();
        assert_eq!(flips, ["regressed", "regressed", "improved"]);
        assert_eq!(v.rows[0].key, "c1 · 0");
        assert_eq!(v.rows[0].candidate_answer.as_deref(), Some("<b>12</b>"));
        assert!(v.rows[1]
            .candidate_answer
            .as_deref()
            .unwrap_or("")
            .contains("timeout"));
        let only = compare_view(
            &Side::Qa("b", &b),
            &Side::Qa("c", &c),
            &CompareQuery {
                flip: Some("improved".into()),
                ..Default::default()
            },
        );
        assert_eq!(only.n_rows, 1);
        assert!(v.mcnemar_p > 0.0 && v.mcnemar_p <= 1.0);
    }

    fn codegen_run(dir: &str) -> CodegenState {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/codegen/diff")
            .join(dir);
        let files = ["traces.jsonl", "employees.csv"]
            .iter()
            .map(|f| InputFile::new(*f, std::fs::read(root.join(f)).unwrap_or_default()))
            .collect();
        crate::codegen::load_codegen(&RunInput::new(dir, files), &Default::default())
            .expect("readable")
    }

    #[test]
    fn codegen_comparison_pairs_messages_like_the_cli() {
        let (b, c) = (codegen_run("baseline"), codegen_run("candidate"));
        let v = compare_view(
            &Side::Codegen("baseline", &b),
            &Side::Codegen("candidate", &c),
            &CompareQuery::default(),
        );
        assert_eq!(v.error, None);
        assert_eq!(v.family, "codegen");
        // tests/fixtures/cli/diff/expected/codegen_baseline_vs_candidate.json
        assert_eq!((v.flips.regressed, v.flips.improved, v.n_paired), (1, 1, 8));
        assert_eq!(v.mcnemar_p, 1.0);
        assert_eq!((v.ci_low, v.ci_high), (Some(-0.375), Some(0.375)));
        assert_eq!(v.rows[0].key, "11111111-1111-1111-1111-111111111111 · 0");
        assert_eq!(v.rows[0].category.as_deref(), Some("gpt-4"));
        assert!(v.rows[0]
            .candidate_answer
            .as_deref()
            .is_some_and(|a| a.contains("KeyError")));
        // The category of a pair is the baseline's model.
        assert_eq!(v.categories, ["gpt-4", "llama-3.3-70b"]);
        let mixed = compare_view(
            &Side::Codegen("baseline", &b),
            &Side::Elsewhere("qa", "numeric-qa"),
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
        let v = evalset_view(&base);
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
            &Side::Evalset("base", &base),
            &Side::Evalset("cand", &cand),
            &CompareQuery::default(),
        );
        assert_eq!((c.flips.regressed, c.flips.improved), (1, 1));
        assert_eq!(c.rows[0].key, "a");
        assert_eq!(c.rows[0].category.as_deref(), Some("math"));
        assert_eq!(c.categories, ["geo", "math"]);
        let mixed = compare_view(
            &Side::Evalset("base", &base),
            &Side::Qa(
                "q",
                &qa(
                    "q",
                    &[
                        r#"{"conversation_id":"c","turn_idx":0,"question":"q","expected":1,"predicted":1}"#,
                    ],
                ),
            ),
            &CompareQuery::default(),
        );
        assert!(mixed.error.is_some());
    }
}
