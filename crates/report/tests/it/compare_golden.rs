//! Golden tests of the comparison views' data on `tests/fixtures/evalset/ok/loss_curve` (two eval-set runs
//! with 300-step training metrics, and one whose metrics hold a single line, as the real tunix-rt
//! files do): the loss-curve chart's alt text and data table, the run metadata side by side, and
//! the series (metrics across runs, flips per consecutive pair). Expected outputs are in
//! `tests/fixtures/evalset/ok/loss_curve/expected/`; `UPDATE_EXPECT=1` rewrites them.

use std::path::{Path, PathBuf};

use evalboard_engine::compare::CompareOptions;
use evalboard_engine::evalset::{self, ScoredRun, ScoringOptions};
use evalboard_engine::run_meta::side_by_side;
use evalboard_engine::InputFile;
use evalboard_report::charts::Theme;
use evalboard_report::compare_charts::{loss_curve_chart, series_metrics_chart};
use evalboard_report::html::{series, ReportRun};

const RUNS: [&str; 3] = ["sft_lr1e-5", "sft_lr3e-5", "m44_final"];

fn fixture() -> PathBuf {
    evalboard_test_support::fixture("evalset/ok/loss_curve")
}

fn load(name: &str) -> ScoredRun {
    evalset::score_run(&read(name), &ScoringOptions::default())
}

fn read(name: &str) -> evalset::EvalRun {
    let files: Vec<InputFile> =
        evalboard_test_support::read_folder(&fixture().join("runs").join(name))
            .into_iter()
            .map(|(rel, bytes)| InputFile::new(format!("{name}/{rel}"), bytes))
            .collect();
    let mut run = evalset::read_evalset_run(&files, None);
    assert!(run.diagnostics.is_empty(), "{name}: {:?}", run.diagnostics);
    run.name = name.to_string();
    run
}

fn golden(file: &str, actual: &str) {
    evalboard_test_support::expect_file(&fixture().join("expected").join(file), actual);
}

fn table_text(t: &[Vec<String>]) -> String {
    t.iter().map(|r| r.join("\t") + "\n").collect()
}

#[test]
fn loss_curve_of_two_300_step_runs_and_a_single_point() {
    let runs: Vec<ScoredRun> = RUNS.iter().map(|n| load(n)).collect();
    assert_eq!(runs[0].meta.loss_curve.len(), 300);
    assert_eq!(runs[1].meta.loss_curve.len(), 300);
    assert_eq!(runs[2].meta.loss_curve, [(414, 0.8573377161210286)]);
    let curves: Vec<(&str, &[(u64, f64)])> = runs
        .iter()
        .map(|r| (r.name.as_str(), r.meta.loss_curve.as_slice()))
        .collect();
    let light = loss_curve_chart(&curves, Theme::Light).unwrap();
    let dark = loss_curve_chart(&curves, Theme::Dark).unwrap();
    assert_eq!(light.alt, dark.alt);
    assert_eq!(light.table, dark.table);
    assert!(light.svg.contains("ebc-light") && dark.svg.contains("ebc-dark"));
    // Labelled axes, a legend entry per run, lines for the long runs, a marker for the point.
    for label in [
        ">Step<",
        ">Loss<",
        ">sft_lr1e-5<",
        ">sft_lr3e-5<",
        ">m44_final (1 point)<",
    ] {
        assert!(light.svg.contains(label), "{label} missing");
    }
    assert!(light.svg.matches("<polyline").count() >= 2);
    assert!(light.svg.contains("<circle"));
    golden(
        "loss_curve.txt",
        &format!("{}\n\n{}", light.alt, table_text(&light.table)),
    );
    if let Ok(dir) = std::env::var("EVALBOARD_CHARTS_DIR") {
        std::fs::write(Path::new(&dir).join("loss_curve.svg"), &light.svg).unwrap();
        std::fs::write(Path::new(&dir).join("loss_curve_dark.svg"), &dark.svg).unwrap();
    }
}

#[test]
fn metadata_side_by_side_and_series() {
    let runs: Vec<ScoredRun> = RUNS.iter().map(|n| load(n)).collect();
    let metas: Vec<_> = runs.iter().map(|r| &r.meta).collect();
    let mut meta = String::new();
    for r in side_by_side(&metas) {
        meta.push_str(&format!(
            "{}{}\t{}\n",
            if r.differs { "≠ " } else { "  " },
            r.label,
            r.values
                .iter()
                .map(|v| v.as_deref().unwrap_or("—"))
                .collect::<Vec<_>>()
                .join("\t")
        ));
    }
    golden("meta.txt", &meta);

    let read: Vec<evalset::EvalRun> = RUNS.iter().map(|n| read(n)).collect();
    let report_runs: Vec<ReportRun> = read
        .iter()
        .zip(&runs)
        .map(|(r, s)| ReportRun::Evalset(r, s))
        .collect();
    let s = series(&report_runs, &CompareOptions::default()).unwrap();
    let mut out = format!("runs\t{}\n", s.runs.join("\t"));
    for (label, values) in &s.metrics {
        out.push_str(&format!(
            "{label}\t{}\n",
            values
                .iter()
                .map(|v| v.map_or("n/a".into(), |x| x.to_string()))
                .collect::<Vec<_>>()
                .join("\t")
        ));
    }
    for c in &s.steps {
        let st = c.stats.as_ref().unwrap();
        let keys = |f: evalboard_engine::compare::Flip| -> Vec<String> {
            st.pairs
                .iter()
                .filter(|p| p.flip() == f)
                .map(|p| p.key.parts().join("/"))
                .collect()
        };
        out.push_str(&format!(
            "{} -> {}: paired {} regressed {} {:?} improved {} {:?} delta {:?} mcnemar_p {} ci [{:?}, {:?}]\n",
            c.baseline,
            c.candidate,
            st.n_paired,
            st.flips.regressed,
            keys(evalboard_engine::compare::Flip::Regressed),
            st.flips.improved,
            keys(evalboard_engine::compare::Flip::Improved),
            st.accuracy_delta,
            st.mcnemar_p,
            st.bootstrap.low,
            st.bootstrap.high
        ));
    }
    let chart = series_metrics_chart(&s.runs, &s.metrics, Theme::Light);
    out.push_str(&format!("\n{}\n\n{}", chart.alt, table_text(&chart.table)));
    golden("series.txt", &out);
}
