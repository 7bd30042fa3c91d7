//! `evalboard score`: load → score → aggregate → write, for one or more run folders.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use evalboard_engine::formats::convfinqa;
use evalboard_engine::pipeline;
use evalboard_engine::scorers::{self, PriceTable, Profile, ScoreConfig};

use crate::args::Args;
use crate::fsio;

/// The files of one scored run, in the selected profile.
struct Outputs {
    name: String,
    statistics: serde_json::Value,
    files: Vec<(&'static str, String)>,
    table: Vec<(String, String)>,
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.1}%", x * 100.0))
        .unwrap_or_else(|| "n/a".into())
}

fn parse_gate(s: &str) -> Result<(String, f64)> {
    let (k, v) = s
        .split_once('=')
        .with_context(|| format!("--fail-under wants METRIC=VALUE, got {s:?}"))?;
    let v: f64 = v
        .trim()
        .parse()
        .with_context(|| format!("--fail-under {k}: {v:?} is not a number"))?;
    Ok((k.trim().to_string(), v))
}

pub fn run(argv: &[String]) -> Result<u8> {
    let a = Args::parse(
        argv,
        &[
            "dataset",
            "profile",
            "prices",
            "out",
            "fail-under",
            "rel-tol",
            "abs-tol",
        ],
        &["json"],
    )?;
    if a.positional.is_empty() {
        bail!("score needs at least one RUN_DIR");
    }
    let profile = match a.value("profile") {
        None => Profile::Doc,
        Some(p) => Profile::parse(p)
            .with_context(|| format!("unknown profile {p:?} (doc, financial-agent-2)"))?,
    };
    let mut cfg = ScoreConfig {
        profile,
        ..Default::default()
    };
    if let Some(x) = a.value("rel-tol") {
        cfg.tolerances.rel = x.parse().with_context(|| format!("--rel-tol {x:?}"))?;
    }
    if let Some(x) = a.value("abs-tol") {
        cfg.tolerances.abs = x.parse().with_context(|| format!("--abs-tol {x:?}"))?;
    }
    if let Some(p) = a.value("prices") {
        let bytes = std::fs::read(p).with_context(|| format!("cannot read price table {p}"))?;
        cfg.prices = PriceTable::from_json(&bytes).map_err(|e| anyhow::anyhow!("{e} ({p})"))?;
    }
    let gates: Vec<(String, f64)> = a
        .values("fail-under")
        .into_iter()
        .map(parse_gate)
        .collect::<Result<_>>()?;
    let dataset = match a.value("dataset") {
        None => None,
        Some(p) => {
            let bytes = std::fs::read(p).with_context(|| format!("cannot read dataset {p}"))?;
            match convfinqa::read_dataset(p, &bytes) {
                Ok(ds) => {
                    for d in &ds.diagnostics {
                        eprintln!("{d}");
                    }
                    Some(ds)
                }
                Err(diags) => {
                    for d in &diags {
                        eprintln!("{d}");
                    }
                    bail!("the dataset {p} is unusable");
                }
            }
        }
    };

    let mut outputs = Vec::new();
    for dir in &a.positional {
        let input = fsio::read_run(Path::new(dir))?;
        let run = match pipeline::load_qa_run(&input, dataset.as_ref()) {
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
                return Ok(2);
            }
        };
        for d in &run.diagnostics {
            eprintln!("{dir}/{d}");
        }
        for f in &run.files {
            if let (evalboard_engine::model::FileStatus::Skipped, Some(r)) = (f.status, &f.reason) {
                eprintln!("{dir}/{}: skipped: {r}", f.path);
            }
        }
        outputs.push(score_one(run, &cfg)?);
    }

    if a.flag("json") {
        let v = if outputs.len() == 1 {
            outputs[0].statistics.clone()
        } else {
            serde_json::Value::Array(outputs.iter().map(|o| o.statistics.clone()).collect())
        };
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    if let Some(out) = a.value("out") {
        let out = PathBuf::from(out);
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
    if !a.flag("json") && a.value("out").is_none() {
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

fn score_one(run: evalboard_engine::model::QaRun, cfg: &ScoreConfig) -> Result<Outputs> {
    let name = run.name.clone();
    let scored = scorers::score_qa_run(run, cfg);
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
    Ok(Outputs {
        name,
        statistics: out.statistics,
        files: out.files,
        table,
    })
}
