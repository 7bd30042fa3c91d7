//! The judges a run offers (`RunRef::judge_choices_in`, the dashboard's "Judged by"): an lm-eval
//! suite of two tasks (`tests/fixtures/evallog/runs/lm_eval_baseline`: `arith_gen` with two
//! filters, `arith_mc` with `acc` and `acc_norm`) lists every recorded score that judges its
//! samples — no standard error — in the log's order, its own headline first; each is a name
//! `--scorer` takes, and its headline is that score as recomputed, with the counts its CI is
//! computed from; a numeric QA run offers its comparison scorers.

use evalboard_engine::evallog::compare::score_named;
use evalboard_engine::family::Family;
use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings, ALL_FAMILIES};
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{fixture, read_folder};

/// The run in `dir`, read as `family` and scored under the default settings.
fn load(dir: &std::path::Path, family: Family) -> ScoredRun {
    let files: Vec<InputFile> = read_folder(dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let read = run::read_as(
        family,
        &RunInput::new("run", files),
        None,
        ReadOptions::default(),
    )
    .unwrap();
    run::score(read, &Settings::default(), 1)
}

#[test]
fn a_suite_offers_every_score_of_every_task_its_headline_first() {
    let s = load(&fixture("evallog/runs/lm_eval_baseline"), Family::EvalLog);
    let r = s.as_ref();
    let choices = r.judge_choices_in::<ALL_FAMILIES>();
    let judges: Vec<&str> = choices.iter().map(|c| c.judge.as_str()).collect();
    assert_eq!(
        judges,
        [
            "arith_gen/exact_match[strict-match]/exact_match",
            "arith_gen/exact_match[flexible-extract]/exact_match",
            "arith_mc/acc[none]/acc",
            "arith_mc/acc_norm[none]/acc_norm",
        ]
    );
    let tasks: Vec<Option<&str>> = choices.iter().map(|c| c.task.as_deref()).collect();
    assert_eq!(
        tasks,
        [
            Some("arith_gen"),
            Some("arith_gen"),
            Some("arith_mc"),
            Some("arith_mc")
        ]
    );
    assert_eq!(choices[0].label, "arith_gen: exact_match (strict-match)");
    assert_eq!(choices[2].label, "arith_mc: acc (none)");
    // The first is the run's own headline, as the run gives it.
    assert_eq!(choices[0].headline, r.headline());
    let ScoredRun::EvalLog(log) = &s else {
        panic!("an eval log")
    };
    for c in &choices {
        // A name --scorer takes, picking that score.
        let key = score_named(log, &c.judge).expect("a --scorer name");
        assert_eq!(key.label(), c.judge);
        // Its headline: the recomputed value, with its counts (every reading 0 or 1).
        let counts = c.headline.counts.expect("counts");
        assert_eq!(counts.n, 5, "{}", c.judge);
        assert_eq!(c.headline.value, counts.value(), "{}", c.judge);
        // Its verdicts are that score's: the headline's correct count.
        let v = r.verdicts_in::<ALL_FAMILIES>(Some(&c.judge)).unwrap();
        let right = v.rows.iter().filter(|x| x.correct == Some(true)).count() as u64;
        assert_eq!(right, counts.correct, "{}", c.judge);
    }
    // The tasks' judges ([`TaskJudge`]) are each task's first choice, with the same headline.
    let f = r.family_run_in::<ALL_FAMILIES>().unwrap();
    let tj = f.task_judges();
    assert_eq!(tj.len(), 2);
    for t in &tj {
        let c = choices
            .iter()
            .find(|c| c.task.as_deref() == Some(&t.task))
            .unwrap();
        assert_eq!((&c.judge, &c.headline), (&t.judge, &t.headline));
    }
    // The values differ by task: arith_gen strict 0.6, arith_mc acc 0.8 (the results file's).
    assert_eq!(choices[0].headline.value, Some(0.6));
    assert_eq!(choices[2].headline.value, Some(0.8));
}

/// A numeric QA run (the demo's gpt-4o, doc profile) offers the comparison scorers that read its
/// turns, `numerical_match@doc-v1` (its headline) first; each choice's count is what a
/// comparison judged by it counts right (`verdicts_in`), of every turn.
#[test]
fn a_numeric_qa_run_offers_its_comparison_scorers() {
    let s = load(
        &evalboard_test_support::workspace_root().join("demo/gpt-4o"),
        Family::NumericQa,
    );
    let r = s.as_ref();
    let choices = r.judge_choices_in::<ALL_FAMILIES>();
    let judges: Vec<&str> = choices.iter().map(|c| c.judge.as_str()).collect();
    assert_eq!(judges[0], "numerical_match@doc-v1", "{judges:?}");
    // The doc scorers, then financial-agent-2's (they read every turn here too).
    assert_eq!(choices.len(), 9, "{judges:?}");
    assert_eq!(judges[6], "numerical_match@financial-agent-2");
    assert_eq!(choices[0].headline, r.headline());
    for c in &choices {
        let counts = c.headline.counts.expect("counts");
        let v = r.verdicts_in::<ALL_FAMILIES>(Some(&c.judge)).unwrap();
        let right = v.rows.iter().filter(|x| x.correct == Some(true)).count() as u64;
        assert_eq!(
            (right, v.rows.len() as u64),
            (counts.correct, counts.n),
            "{}",
            c.judge
        );
    }
}

/// A judge picked for a many-runs comparison (`compare --scorer`, the dashboard's "Judged by")
/// gives every row its headline: the rows rank by the score their pairs are judged by, and the
/// counts are that score's verdicts.
#[test]
fn a_picked_judge_drives_the_many_runs_headline() {
    use evalboard_engine::compare::many::{compare_many, ManyRun};
    use evalboard_engine::run::CompareSettings;
    let base = load(&fixture("evallog/runs/lm_eval_baseline"), Family::EvalLog);
    let cand = load(&fixture("evallog/runs/lm_eval_candidate"), Family::EvalLog);
    fn one<'a>(r: &'a ScoredRun, p: &str) -> ManyRun<'a> {
        ManyRun {
            path: p.to_string(),
            run: Ok(r.as_ref()),
        }
    }
    let judge = "arith_mc/acc[none]/acc";
    let settings = CompareSettings {
        qa_scorer: Some(judge.to_string()),
        ..CompareSettings::default()
    };
    let cmp = compare_many(&[one(&base, "b")], &[one(&cand, "c")], &settings, 1).unwrap();
    for (row, r) in cmp.runs.iter().zip([&base, &cand]) {
        let want = r
            .as_ref()
            .judge_choices_in::<ALL_FAMILIES>()
            .into_iter()
            .find(|c| c.judge == judge)
            .unwrap();
        assert_eq!(row.headline, want.headline.value, "{}", row.run);
        assert_eq!(row.headline_label, want.headline.label);
        let rate = r.as_ref().verdicts(Some(judge)).unwrap().rate();
        assert_eq!(
            (row.n_items, row.correct),
            (Some(rate.n), Some(rate.correct))
        );
    }
    // Not picked: the suite is compared task by task, each row its task's first score.
    let by_task = compare_many(
        &[one(&base, "b")],
        &[one(&cand, "c")],
        &CompareSettings::default(),
        1,
    )
    .unwrap();
    assert_eq!(by_task.runs.len(), 4, "two tasks, two runs");
}
