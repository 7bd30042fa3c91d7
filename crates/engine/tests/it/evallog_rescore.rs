//! Re-scoring eval logs (`engine::evallog::rescore`) through the registry: as recorded by
//! default, re-scored under a profile with the verdicts as originally scored kept beside, the
//! items whose verdict flips, the comparison on re-scored verdicts; and, on Inspect's own logs,
//! `match@v1` and `includes@v1` give every sample the reading Inspect's `match()` and `includes()`
//! recorded.

use std::path::Path;

use evalboard_engine::evallog::rescore::{NumericTolerance, RescoreKind, Rescorer};
use evalboard_engine::evallog::{self, EvalLogOptions, ScoredLog};
use evalboard_engine::family::Family;
use evalboard_engine::run::{self, CompareSettings, ReadOptions, ScoredRun, Settings};
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{fixture, read_folder, shared_data};

fn input_at(path: &Path, name: &str) -> RunInput {
    let files = if path.is_file() {
        vec![InputFile::new(name, std::fs::read(path).expect("reads"))]
    } else {
        read_folder(path)
            .into_iter()
            .map(|(p, b)| InputFile::new(p, b))
            .collect()
    };
    RunInput::new(name, files)
}

fn load(path: &Path, settings: &Settings) -> ScoredRun {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let read = run::read(&input_at(path, &name), None, ReadOptions::default()).expect("reads");
    run::score(read, settings, 1)
}

fn log(run: &ScoredRun) -> &ScoredLog {
    match run {
        ScoredRun::EvalLog(l) => l,
        _ => panic!("an eval log"),
    }
}

fn settings(profile: &str) -> Settings {
    let mut s = Settings::default();
    s.set_profile(Family::EvalLog, profile).expect("a profile");
    s
}

/// Each sample's reading by `kind` equals the one Inspect recorded for the scorer `name`; returns
/// how many samples were compared.
fn agrees_with_recorded(l: &ScoredLog, name: &str, kind: RescoreKind) -> usize {
    let by = Rescorer {
        kind,
        tolerance: NumericTolerance::default(),
    };
    let mut n = 0;
    for s in &l.log.run.samples {
        let Some(e) = s
            .scores
            .iter()
            .find(|e| e.scorer == name && e.key.is_none())
        else {
            continue;
        };
        if s.error.is_some() || s.output.is_none() {
            continue;
        }
        assert_eq!(
            by.score(s.output.as_deref(), &s.target),
            e.reading,
            "{}: {:?} against {:?} by {name}",
            l.log.name,
            s.output,
            s.target
        );
        n += 1;
    }
    n
}

#[test]
fn rescorers_give_the_readings_inspect_recorded() {
    let mut logs = vec![fixture("evallog/runs/inspect_arith/arith.eval")];
    for rel in [
        "inspect_ai/log_streaming.eval",
        "inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
        "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json",
        "inspect_ai/log_formats.json",
        "inspect_ai/generated-0.3.285/2026-11-25T20-36-12-00-00_arith_VVWPBMGtpotgvVsouiGCU7.json",
    ] {
        match shared_data(&format!("eval-formats/{rel}")) {
            Some(p) => logs.push(p),
            None => return,
        }
    }
    let mut compared = 0;
    for path in &logs {
        let run = load(path, &settings("match"));
        let l = log(&run);
        compared += agrees_with_recorded(l, "match", RescoreKind::Match);
        compared += agrees_with_recorded(l, "includes", RescoreKind::Includes);
        // The headline is Inspect's match(): re-scoring by match@v1 flips nothing.
        if l.verdict_by.as_ref().is_some_and(|k| k.scorer == "match") {
            assert_eq!(l.disagreements(), Vec::<usize>::new(), "{}", l.log.name);
        }
    }
    assert!(compared >= 30, "{compared} samples compared");
}

#[test]
fn as_recorded_by_default_and_rescored_under_a_profile() {
    let path = fixture("evallog/runs/inspect_arith/arith.eval");
    let mut run = load(&path, &Settings::default());
    let before = log(&run).clone();
    assert!(before.rescored.is_none());
    assert_eq!(run.as_ref().profile(), "as-recorded");
    assert_eq!(before.disagreements(), Vec::<usize>::new());
    assert_eq!(before.judged(), before.items.as_slice());

    // No sample of the log writes `ANSWER:`: every judged sample reads 0.
    let s = settings("answer_pattern");
    assert_eq!(
        s.non_default(Family::EvalLog),
        ["re-scored by answer_pattern@v1"]
    );
    run.rescore(&s);
    let l = log(&run);
    assert_eq!(run.as_ref().profile(), "answer_pattern@v1");
    assert_eq!(
        l.items, before.items,
        "the verdicts as originally scored are kept"
    );
    let r = l.rescored.as_ref().expect("re-scored");
    assert_eq!(r.id, "answer_pattern@v1");
    assert_eq!(r.items.len(), before.items.len(), "the same items");
    assert_eq!(l.judged(), r.items.as_slice());
    assert_eq!(run.as_ref().headline_value(), Some(0.0));
    assert_eq!(l.recorded_headline_value(), before.headline_value());
    // The errored samples have no verdict either way.
    let errored: Vec<usize> = r
        .items
        .iter()
        .filter(|i| l.log.run.samples[i.sample].error.is_some())
        .map(|i| i.sample)
        .collect();
    assert_eq!(errored.len(), 2);
    assert!(r
        .items
        .iter()
        .all(|i| i.reading.is_none() == errored.contains(&i.sample)));
    // add/1 and mul/1 were correct as recorded.
    let flipped: Vec<Vec<String>> = l
        .disagreements()
        .into_iter()
        .map(|i| evallog::score::key_parts(&l.log.run.samples[i].key))
        .collect();
    assert_eq!(flipped, [["add", "1"], ["mul", "1"]]);

    // Back to as recorded.
    run.rescore(&Settings::default());
    assert_eq!(log(&run), &before);
}

#[test]
fn comparison_pairs_on_rescored_verdicts() {
    let b = fixture("evallog/runs/lm_eval_baseline");
    let c = fixture("evallog/runs/lm_eval_candidate");
    let recorded = run::compare(
        load(&b, &Settings::default()).as_ref(),
        load(&c, &Settings::default()).as_ref(),
        &CompareSettings::default(),
    )
    .expect("compares");
    let s = settings("last_number");
    let (bl, cl) = (load(&b, &s), load(&c, &s));
    let cmp =
        run::compare(bl.as_ref(), cl.as_ref(), &CompareSettings::default()).expect("compares");
    assert_eq!(cmp.scorer, "last_number@v1");
    assert!(
        cmp.judged_by.contains("re-scored by last_number@v1"),
        "{}",
        cmp.judged_by
    );
    assert!(cmp.warnings.is_empty(), "{:?}", cmp.warnings);
    // The strict-match rows: the outputs are the numbers, so last_number@v1 agrees with
    // exact_match and the pairs are those of the recorded comparison.
    assert_eq!(cmp.stats.n_paired, recorded.stats.n_paired);
    assert_eq!(cmp.stats.flips, recorded.stats.flips);
    let keys: Vec<&str> = cmp.metrics.iter().map(|m| m.key.as_str()).collect();
    // The headline (recomputed, recorded, re-scored), then the samples' accuracy and error rate
    // (lm-eval records no tokens, cost or latency).
    assert_eq!(
        keys,
        [
            "headline_score",
            "headline_recorded",
            "rescored_score",
            "accuracy",
            "error_rate"
        ]
    );
    assert_eq!(
        cmp.metrics[0], recorded.metrics[0],
        "the recorded headline stays"
    );

    // A --scorer names a recorded score: refused under a re-scorer.
    let named = CompareSettings {
        qa_scorer: Some("exact_match".into()),
        ..Default::default()
    };
    let err = run::compare(bl.as_ref(), cl.as_ref(), &named).unwrap_err();
    assert!(
        err.to_string().contains("re-scored by last_number@v1"),
        "{err}"
    );

    // A candidate scored as recorded is re-scored by the baseline's re-scorer, with a warning.
    let cr = load(&c, &Settings::default());
    let mixed =
        run::compare(bl.as_ref(), cr.as_ref(), &CompareSettings::default()).expect("compares");
    assert_eq!(mixed.stats, cmp.stats);
    assert_eq!(
        mixed.warnings,
        ["the candidate is as recorded: both are re-scored by last_number@v1"]
    );
}

#[test]
fn options_round_trip_and_default_when_absent() {
    let s = Settings {
        evallog: EvalLogOptions {
            scorer: Some(RescoreKind::Numeric),
            numeric: NumericTolerance {
                rel: 0.05,
                abs: 0.0,
            },
            pass_k: Some(3),
        },
        ..Settings::default()
    };
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["evallog"]["scorer"], "numeric@v1");
    assert_eq!(serde_json::from_value::<Settings>(json.clone()).unwrap(), s);
    let mut old = json;
    old.as_object_mut().unwrap().remove("evallog");
    assert_eq!(
        serde_json::from_value::<Settings>(old).unwrap().evallog,
        EvalLogOptions::default(),
        "settings saved before re-scoring existed read as recorded"
    );
    // Settings saved before pass@k was chosen read with the default (every k).
    let mut before = serde_json::to_value(&s).unwrap();
    before["evallog"].as_object_mut().unwrap().remove("pass_k");
    let read: Settings = serde_json::from_value(before).unwrap();
    assert_eq!(read.evallog.pass_k, None);
    assert_eq!(read.evallog.scorer, s.evallog.scorer);
}
