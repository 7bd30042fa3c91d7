//! `evalboard score`: load → score → aggregate → write, for one or more run folders.

use std::path::Path;

use anyhow::{bail, Context, Result};
use evalboard_engine::formats::convfinqa;
use evalboard_engine::model::{QaRun, ReadDetail};
use evalboard_engine::pipeline::{self, Family, LoadError};
use evalboard_engine::scorers::{self, PriceTable, Profile, ScoreConfig};
use evalboard_engine::{codegen, evalset, RunInput};

use crate::cli::{ScoreArgs, SettingsArgs};
use crate::fsio;

/// The files of one scored run, in the selected profile.
struct Outputs {
    name: String,
    statistics: serde_json::Value,
    files: Vec<(String, String)>,
    table: Vec<(String, String)>,
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.1}%", x * 100.0))
        .unwrap_or_else(|| "n/a".into())
}

/// The scoring settings shared by `score` and `report`: profile, tolerances, prices, dataset,
/// and the bytes of the files they came from (for the report's provenance).
pub(crate) struct Settings {
    pub profile_arg: String,
    pub cfg: ScoreConfig,
    pub dataset: Option<convfinqa::Dataset>,
    /// (path, bytes) of `--dataset` and `--prices`.
    pub setting_files: Vec<(String, Vec<u8>)>,
}

/// Reads the scoring settings from parsed arguments.
pub(crate) fn settings(a: &SettingsArgs) -> Result<Settings> {
    let profile_arg = a.profile.clone();
    let profile = Profile::parse(&profile_arg).unwrap_or(Profile::Doc);
    let mut cfg = ScoreConfig {
        profile,
        ..Default::default()
    };
    let mut setting_files = Vec::new();
    cfg.tolerances.rel = a.rel_tol;
    cfg.tolerances.abs = a.abs_tol;
    if let Some(path) = &a.prices {
        let p: &str = &path.display().to_string();
        let bytes = std::fs::read(path).with_context(|| format!("cannot read price table {p}"))?;
        cfg.prices = PriceTable::from_json(&bytes).map_err(|e| anyhow::anyhow!("{e} ({p})"))?;
        setting_files.push((p.to_string(), bytes));
    }
    let dataset = match &a.dataset {
        None => None,
        Some(path) => {
            let p: &str = &path.display().to_string();
            let bytes = std::fs::read(path).with_context(|| format!("cannot read dataset {p}"))?;
            let ds = match convfinqa::read_dataset(p, &bytes) {
                Ok(ds) => {
                    for d in &ds.diagnostics {
                        eprintln!("{d}");
                    }
                    ds
                }
                Err(diags) => {
                    for d in &diags {
                        eprintln!("{d}");
                    }
                    bail!("the dataset {p} is unusable");
                }
            };
            setting_files.push((p.to_string(), bytes));
            Some(ds)
        }
    };
    Ok(Settings {
        profile_arg,
        cfg,
        dataset,
        setting_files,
    })
}

/// A scored run of any family.
pub(crate) enum Scored {
    Qa(scorers::ScoredQaRun),
    Codegen(codegen::ScoredRun),
    /// The scored run and the diagnostics of reading it.
    Evalset(Box<evalset::ScoredRun>, Vec<evalboard_engine::Diagnostic>),
}

/// Detects the family of one run folder and scores it, printing diagnostics to stderr.
/// `Ok(None)` when the run is unusable (already reported; exit code 2).
pub(crate) fn load_scored(dir: &str, input: &RunInput, s: &Settings) -> Result<Option<Scored>> {
    match pipeline::detect_family(input) {
        Family::NumericQa => {
            check_qa_profile(s)?;
            let run = pipeline::load_qa_run_parallel(
                input,
                s.dataset.as_ref(),
                crate::fsio::threads(),
                read_detail(s),
            );
            Ok(score_qa(dir, run, s))
        }
        Family::Codegen => score_codegen(input, &s.profile_arg).map(Some),
        Family::Evalset => score_evalset(input, &s.profile_arg).map(Some),
    }
}

/// [`load_scored`] for a run on disk, streamed when it is a numeric QA run ([`fsio::load_run`]).
/// Also returns the run's name.
fn load_scored_path(path: &Path, s: &Settings) -> Result<Option<(Scored, String)>> {
    let dir: &str = &path.display().to_string();
    match fsio::load_run(path, read_detail(s))? {
        fsio::Loaded::Qa { name, reads } => {
            check_qa_profile(s)?;
            let run = pipeline::assemble_qa_run(&name, reads, s.dataset.as_ref());
            Ok(score_qa(dir, run, s).map(|scored| (scored, name)))
        }
        fsio::Loaded::Other(input) => {
            Ok(load_scored(dir, &input, s)?.map(|scored| (scored, input.name)))
        }
    }
}

/// What a numeric QA run is read with: the doc profile does not write the compat-only trace
/// fields, and not keeping them halves a trace folder's model.
fn read_detail(s: &Settings) -> ReadDetail {
    match s.cfg.profile {
        Profile::Doc => ReadDetail::Doc,
        Profile::Fa2 => ReadDetail::Full,
    }
}

fn check_qa_profile(s: &Settings) -> Result<()> {
    if Profile::parse(&s.profile_arg).is_none() {
        bail!(
            "unknown profile {:?} for a numeric QA run (doc, financial-agent-2)",
            s.profile_arg
        );
    }
    Ok(())
}

/// Scores a loaded numeric QA run, printing its diagnostics and skipped files to stderr.
fn score_qa(dir: &str, run: Result<QaRun, LoadError>, s: &Settings) -> Option<Scored> {
    let run = match run {
        Ok(r) => r,
        Err(e) => {
            for f in &e.files {
                if let Some(r) = &f.reason {
                    eprintln!("{dir}/{}: skipped: {r}", f.path);
                }
            }
            for d in &e.diagnostics {
                eprintln!("{dir}/{d}");
            }
            eprintln!("evalboard: error: {dir}: {}", e.message);
            return None;
        }
    };
    for d in &run.diagnostics {
        eprintln!("{dir}/{d}");
    }
    print_skipped(dir, &run.files);
    Some(Scored::Qa(scorers::score_qa_run_parallel(
        run,
        &s.cfg,
        crate::fsio::threads(),
    )))
}

pub fn run(a: ScoreArgs) -> Result<u8> {
    let gates = a.fail_under;
    let settings = settings(&a.settings)?;

    let mut outputs = Vec::new();
    for dir in &a.runs {
        let Some((scored, name)) = load_scored_path(dir, &settings)? else {
            return Ok(2);
        };
        outputs.push(match scored {
            Scored::Qa(s) => score_one(s),
            Scored::Codegen(s) => codegen_outputs(s, &name),
            Scored::Evalset(s, _) => evalset_outputs(*s, &name),
        });
    }

    if a.json {
        let v = if outputs.len() == 1 {
            outputs[0].statistics.clone()
        } else {
            serde_json::Value::Array(outputs.iter().map(|o| o.statistics.clone()).collect())
        };
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    if let Some(out) = &a.out {
        let several = outputs.len() > 1;
        for (i, o) in outputs.iter().enumerate() {
            let dir = if several {
                out.join(unique_name(&outputs, i))
            } else {
                out.clone()
            };
            for (name, text) in &o.files {
                fsio::write(&dir, name, text)?;
            }
            eprintln!("wrote {} files to {}", o.files.len(), dir.display());
        }
    }
    if !a.json && a.out.is_none() {
        for o in &outputs {
            println!("{}", o.name);
            let w = o.table.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (k, v) in &o.table {
                println!("  {k:<w$}  {v}");
            }
        }
    }

    let mut failed = false;
    for o in &outputs {
        for (metric, min) in &gates {
            match o.statistics.get(metric) {
                None => bail!("--fail-under: unknown metric {metric:?} (a statistics.json key)"),
                Some(serde_json::Value::Null) => {
                    eprintln!("FAIL {}: {metric} is null (< {min})", o.name);
                    failed = true;
                }
                Some(v) => match v.as_f64() {
                    None => bail!("--fail-under: metric {metric:?} is not a number"),
                    Some(x) if x < *min => {
                        eprintln!("FAIL {}: {metric} = {x} < {min}", o.name);
                        failed = true;
                    }
                    Some(x) => eprintln!("ok   {}: {metric} = {x} >= {min}", o.name),
                },
            }
        }
    }
    Ok(if failed { 1 } else { 0 })
}

/// Subfolder name for run `i`: its folder name, de-duplicated with a numeric suffix.
fn unique_name(outputs: &[Outputs], i: usize) -> String {
    let name = &outputs[i].name;
    let same_before = outputs[..i].iter().filter(|o| &o.name == name).count();
    if same_before == 0 {
        name.clone()
    } else {
        format!("{name}-{}", same_before + 1)
    }
}

fn score_one(scored: scorers::ScoredQaRun) -> Outputs {
    let name = scored.run.name.clone();
    let cfg = &scored.config;
    let out = evalboard_report::outputs::qa_outputs(&scored);
    let get = |k: &str| out.statistics.get(k).and_then(|v| v.as_f64());
    let keys: &[&str] = match cfg.profile {
        Profile::Doc => &[
            "numerical_accuracy",
            "exact_match_accuracy",
            "soft_match_accuracy",
            "unit_agnostic_accuracy",
            "sign_agnostic_accuracy",
            "general_match_accuracy",
            "conversation_level_accuracy",
            "avg_logic_recall",
            "error_rate",
        ],
        Profile::Fa2 => &[
            "numerical_accuracy",
            "financial_accuracy",
            "soft_match_accuracy",
            "conversation_level_accuracy",
            "avg_logic_recall",
            "error_rate",
        ],
    };
    let mut table: Vec<(String, String)> = vec![
        ("profile".into(), cfg.profile.name().into()),
        (
            "conversations".into(),
            out.statistics
                .get("total_conversations")
                .map(|v| v.to_string())
                .unwrap_or_default(),
        ),
        (
            "turns".into(),
            out.statistics
                .get("total_turns")
                .map(|v| v.to_string())
                .unwrap_or_default(),
        ),
    ];
    for k in keys {
        table.push(((*k).into(), pct(get(k))));
    }
    table.push((
        "cost_per_correct_answer".into(),
        get("cost_per_correct_answer")
            .map(|x| format!("{x:.0} tokens"))
            .unwrap_or_else(|| "n/a".into()),
    ));
    Outputs {
        name,
        statistics: out.statistics,
        files: out
            .files
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect(),
        table,
    }
}

fn print_diagnostics(run: &str, diags: &[evalboard_engine::Diagnostic]) {
    for d in diags {
        eprintln!("{run}/{d}");
    }
}

/// Every file the run's reader skipped, with the reason, so that nothing is left out silently.
fn print_skipped(run: &str, files: &[evalboard_engine::model::InputFileReport]) {
    for f in files {
        if let (evalboard_engine::model::FileStatus::Skipped, Some(r)) = (f.status, &f.reason) {
            eprintln!("{run}/{}: skipped: {r}", f.path);
        }
    }
}

/// A code-generation run (seed 001): re-scores trace messages, recomputes summaries.
fn score_codegen(input: &RunInput, profile: &str) -> Result<Scored> {
    let profile = match profile {
        "doc" | "doc-v1" => codegen::Profile::DocV1,
        "ise547" => codegen::Profile::Ise547,
        p => bail!("unknown profile {p:?} for a code-generation run (doc-v1, ise547)"),
    };
    let cfg = codegen::CodegenConfig {
        profile,
        ..Default::default()
    };
    let scored = codegen::read_codegen_run(&input.name, &input.files).score(&cfg);
    print_diagnostics(&input.name, &scored.diagnostics);
    print_skipped(
        &input.name,
        &codegen::file_reports(&input.files, &scored.diagnostics),
    );
    Ok(Scored::Codegen(scored))
}

/// The outputs of a scored code-generation run.
fn codegen_outputs(scored: codegen::ScoredRun, name: &str) -> Outputs {
    let profile = scored.profile;
    let statistics = evalboard_report::codegen_statistics(&scored);
    let mut table = vec![
        ("family".to_string(), "codegen".to_string()),
        ("profile".to_string(), profile.name().to_string()),
        ("sessions".to_string(), scored.sessions.len().to_string()),
    ];
    for k in [
        "average_overall_score",
        "average_understanding_score",
        "average_coverage_score",
        "average_recovery_score",
        "recovery_success_rate",
    ] {
        if let Some(v) = statistics.get(k).and_then(|v| v.as_f64()) {
            table.push((k.to_string(), format!("{v:.3}")));
        }
    }
    Outputs {
        name: name.to_string(),
        files: evalboard_report::codegen_files(&scored),
        statistics,
        table,
    }
}

/// The eval-set scorer a `--profile` names: `doc` (the default) is `answer_correctness@v1`.
pub(crate) fn evalset_scorer(profile: &str) -> Result<evalset::AnswerScorer> {
    match profile {
        "doc" => Ok(evalset::AnswerScorer::V1),
        p => evalset::AnswerScorer::from_id(p)
            .with_context(|| format!("unknown profile {p:?} for an eval-set run (v1, v1-extract)")),
    }
}

/// An answer-correctness run (seed 004): scorecard and per-item predictions.
fn score_evalset(input: &RunInput, profile: &str) -> Result<Scored> {
    let scorer = evalset_scorer(profile)?;
    let run = evalset::read_evalset_run(&input.files, None);
    print_diagnostics(&input.name, &run.diagnostics);
    print_skipped(&input.name, &run.files);
    let scored = evalset::score_run(
        &run,
        &evalset::ScoringOptions {
            scorer,
            ..Default::default()
        },
    );
    if let Some(why) = &scored.per_item_unavailable {
        eprintln!("{}: {why}", input.name);
    }
    Ok(Scored::Evalset(Box::new(scored), run.diagnostics))
}

/// The outputs of a scored eval-set run.
fn evalset_outputs(scored: evalset::ScoredRun, name: &str) -> Outputs {
    let scorer = scored.scorer;
    let statistics = evalboard_report::evalset_statistics(&scored);
    let mut table = vec![
        ("family".to_string(), "evalset".to_string()),
        ("scorer".to_string(), scorer.id().to_string()),
    ];
    for k in [
        "n_items",
        "n_scored",
        "n_skipped",
        "primary_score",
        "verdict",
    ] {
        if let Some(v) = statistics.get(k) {
            table.push((k.to_string(), v.to_string()));
        }
    }
    Outputs {
        name: name.to_string(),
        files: evalboard_report::evalset_files(&scored),
        statistics,
        table,
    }
}
