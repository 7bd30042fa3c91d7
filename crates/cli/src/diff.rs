//! `evalboard diff <BASELINE> <CANDIDATE>`: per-item comparison of two runs of the same family,
//! with McNemar's exact test and a paired bootstrap CI; gates on the number of regressions.
//!
//! Items: numeric QA turns keyed `[conversation_id, turn_idx]` (judged by
//! `numerical_match@doc-v1` unless `--scorer` picks another), eval-set items keyed `[id]`
//! (`answer_correctness@v1`, or `v1-extract` with `--profile v1-extract`), code-generation
//! messages keyed `[session_id, message_index]` (judged by execution success).

use std::path::Path;

use anyhow::{bail, Context, Result};
use evalboard_engine::compare::{CompareOptions, Flip, PairedComparison, PairedItem};
use evalboard_engine::formats::convfinqa;
use evalboard_engine::pipeline::{self, Family};
use evalboard_engine::qa_compare::{self, FailedItem};
use evalboard_engine::scorers::{self, ScoreConfig};
use evalboard_engine::{codegen, evalset, RunInput};
use serde_json::{json, Value};

use crate::args::Args;
use crate::fsio;

/// A comparison, whatever the family.
struct Diff {
    family: &'static str,
    baseline: String,
    candidate: String,
    scorer: String,
    stats: PairedComparison,
    failed_items: Vec<FailedItem>,
    note: Option<String>,
}

pub fn run(argv: &[String]) -> Result<u8> {
    let a = Args::parse(
        argv,
        &[
            "profile",
            "scorer",
            "dataset",
            "fail-on-regression",
            "resamples",
            "seed",
        ],
        &["json"],
    )?;
    let [base_dir, cand_dir] = a.positional.as_slice() else {
        bail!("diff needs exactly two run folders: <BASELINE> <CANDIDATE>");
    };
    let max_regressions: Option<u64> = match a.value("fail-on-regression") {
        None => None,
        Some(n) => Some(
            n.parse()
                .with_context(|| format!("--fail-on-regression wants a count, got {n:?}"))?,
        ),
    };
    let mut opts = CompareOptions::default();
    if let Some(r) = a.value("resamples") {
        opts.resamples = r.parse().with_context(|| format!("--resamples {r:?}"))?;
    }
    if let Some(s) = a.value("seed") {
        opts.seed = s.parse().with_context(|| format!("--seed {s:?}"))?;
    }
    let base = fsio::read_run(Path::new(base_dir))?;
    let cand = fsio::read_run(Path::new(cand_dir))?;
    let (fb, fc) = (
        pipeline::detect_family(&base),
        pipeline::detect_family(&cand),
    );
    if fb != fc {
        bail!(
            "{base_dir} is a {} run but {cand_dir} is a {} run: only runs of one family compare",
            family_name(fb),
            family_name(fc)
        );
    }
    let diff = match fb {
        Family::NumericQa => {
            let dataset = match a.value("dataset") {
                None => None,
                Some(p) => {
                    let bytes =
                        std::fs::read(p).with_context(|| format!("cannot read dataset {p}"))?;
                    match convfinqa::read_dataset(p, &bytes) {
                        Ok(ds) => Some(ds),
                        Err(diags) => {
                            for d in &diags {
                                eprintln!("{d}");
                            }
                            bail!("the dataset {p} is unusable");
                        }
                    }
                }
            };
            let scorer = a.value("scorer").unwrap_or(match a.value("profile") {
                Some("financial-agent-2" | "fa2") => "numerical_match@financial-agent-2",
                _ => "numerical_match@doc-v1",
            });
            let load = |input: &RunInput| -> Result<scorers::ScoredQaRun> {
                match pipeline::load_qa_run(input, dataset.as_ref()) {
                    Ok(run) => {
                        for d in &run.diagnostics {
                            eprintln!("{}/{d}", input.name);
                        }
                        Ok(scorers::score_qa_run(run, &ScoreConfig::default()))
                    }
                    Err(e) => {
                        for d in &e.diagnostics {
                            eprintln!("{}/{d}", input.name);
                        }
                        bail!("{}: {}", input.name, e.message)
                    }
                }
            };
            let (b, c) = match (load(&base), load(&cand)) {
                (Ok(b), Ok(c)) => (b, c),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("evalboard: error: {e:#}");
                    return Ok(2);
                }
            };
            let cmp = qa_compare::compare_qa_runs(&b, &c, scorer, &opts)?;
            Diff {
                family: "numeric_qa",
                baseline: cmp.baseline,
                candidate: cmp.candidate,
                scorer: cmp.scorer,
                stats: cmp.stats,
                failed_items: cmp.failed_items,
                note: None,
            }
        }
        Family::Evalset => {
            let scorer = crate::score::evalset_scorer(
                a.value("profile").or(a.value("scorer")).unwrap_or("v1"),
            )?;
            let attached = match a.value("dataset") {
                None => None,
                Some(p) => {
                    let bytes =
                        std::fs::read(p).with_context(|| format!("cannot read eval set {p}"))?;
                    let read = evalset::read_eval_items(p, &bytes);
                    for d in &read.diagnostics {
                        eprintln!("{d}");
                    }
                    if read.items.is_empty() {
                        bail!("the eval set {p} has no usable items");
                    }
                    Some(read.items)
                }
            };
            let score = |input: &RunInput| {
                let run = evalset::read_evalset_run(&input.files, attached.as_deref());
                for d in &run.diagnostics {
                    eprintln!("{}/{d}", input.name);
                }
                let mut s = evalset::score_run(
                    &run,
                    &evalset::ScoringOptions {
                        scorer,
                        ..Default::default()
                    },
                );
                s.name = input.name.clone();
                s
            };
            let (b, c) = (score(&base), score(&cand));
            let cmp = evalset::compare_runs(&b, &c, &opts);
            let failed_items = [("baseline", &b), ("candidate", &c)]
                .into_iter()
                .flat_map(|(side, run)| {
                    run.items.iter().filter_map(move |it| {
                        it.reason.as_ref().map(|why| FailedItem {
                            key: vec![it.item_id.clone()],
                            run: side.into(),
                            reason: why.to_string(),
                        })
                    })
                })
                .collect();
            Diff {
                family: "evalset",
                baseline: cmp.baseline,
                candidate: cmp.candidate,
                scorer: cmp.scorer,
                stats: cmp.stats,
                failed_items,
                note: cmp.per_item_unavailable,
            }
        }
        Family::Codegen => {
            let cfg = codegen::CodegenConfig::default();
            let b = codegen::read_codegen_run(&base.name, &base.files).score(&cfg);
            let c = codegen::read_codegen_run(&cand.name, &cand.files).score(&cfg);
            for run in [&b, &c] {
                for d in &run.diagnostics {
                    eprintln!("{}/{d}", run.name);
                }
            }
            let cmp = codegen::compare_runs(&b, &c, &opts);
            Diff {
                family: "codegen",
                baseline: cmp.baseline,
                candidate: cmp.candidate,
                scorer: codegen::pairing::JUDGED_BY.into(),
                note: cmp.per_item_unavailable,
                stats: cmp.stats,
                failed_items: Vec::new(),
            }
        }
    };

    let out = to_json(&diff);
    if a.flag("json") {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", human(&diff));
    }
    if let Some(note) = &diff.note {
        eprintln!("{note}");
    }
    Ok(match max_regressions {
        Some(n) if diff.stats.flips.regressed > n => {
            eprintln!(
                "FAIL {} regressions > {n} (--fail-on-regression)",
                diff.stats.flips.regressed
            );
            1
        }
        _ => 0,
    })
}

fn family_name(f: Family) -> &'static str {
    match f {
        Family::NumericQa => "numeric QA",
        Family::Codegen => "code-generation",
        Family::Evalset => "eval-set",
    }
}

/// Numeric key parts (turn and message indices) print as JSON numbers.
fn key_json(key: &[String], numeric_tail: bool) -> Value {
    Value::Array(
        key.iter()
            .enumerate()
            .map(|(i, k)| match (numeric_tail && i > 0, k.parse::<u64>()) {
                (true, Ok(n)) => json!(n),
                _ => json!(k),
            })
            .collect(),
    )
}

fn to_json(d: &Diff) -> Value {
    let numeric_tail = d.family != "evalset";
    let keys = |f: Flip| -> Vec<Value> {
        d.stats
            .pairs
            .iter()
            .filter(|p| p.flip() == f)
            .map(|p| key_json(&p.key, numeric_tail))
            .collect()
    };
    let only: Vec<Value> = d
        .stats
        .pairs
        .iter()
        .filter(|p| matches!(p.flip(), Flip::OnlyInBaseline | Flip::OnlyInCandidate))
        .map(|p| key_json(&p.key, numeric_tail))
        .collect();
    let failed: Vec<Value> = d
        .failed_items
        .iter()
        .map(|f| json!({"key": key_json(&f.key, numeric_tail), "run": f.run, "reason": f.reason}))
        .collect();
    let f = &d.stats.flips;
    json!({
        "baseline": d.baseline,
        "candidate": d.candidate,
        "family": d.family,
        "scorer": d.scorer,
        "n_items": d.stats.n_paired,
        "baseline_accuracy": d.stats.baseline_accuracy,
        "candidate_accuracy": d.stats.candidate_accuracy,
        "accuracy_delta": d.stats.accuracy_delta,
        "mcnemar_exact_p": d.stats.mcnemar_p,
        "bootstrap_ci": {
            "low": d.stats.bootstrap.low,
            "high": d.stats.bootstrap.high,
            "resamples": d.stats.bootstrap.resamples,
            "seed": d.stats.bootstrap.seed,
        },
        "regressed": keys(Flip::Regressed),
        "improved": keys(Flip::Improved),
        "both_correct": f.unchanged_correct,
        "both_wrong": f.unchanged_wrong,
        "only_in_one": only,
        "failed_items": failed,
        "per_item_unavailable": d.note,
    })
}

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{:.1}%", v * 100.0))
        .unwrap_or_else(|| "n/a".into())
}

fn human(d: &Diff) -> String {
    let s = &d.stats;
    let f = &s.flips;
    let mut out = format!(
        "{} → {} ({}, judged by {})\n  paired items      {}\n  accuracy          {} → {} (Δ {})\n  \
         regressed         {}\n  improved          {}\n  both correct      {}\n  both wrong        {}\n  \
         only in one run   {}\n  McNemar exact p   {:.4}\n  bootstrap 95% CI  [{}, {}] ({} resamples, seed {})\n",
        d.baseline,
        d.candidate,
        d.family,
        d.scorer,
        s.n_paired,
        pct(s.baseline_accuracy),
        pct(s.candidate_accuracy),
        s.accuracy_delta
            .map(|x| format!("{:+.1} pp", x * 100.0))
            .unwrap_or_else(|| "n/a".into()),
        f.regressed,
        f.improved,
        f.unchanged_correct,
        f.unchanged_wrong,
        f.only_in_baseline + f.only_in_candidate,
        s.mcnemar_p,
        s.bootstrap
            .low
            .map(|x| format!("{:+.3}", x))
            .unwrap_or_else(|| "n/a".into()),
        s.bootstrap
            .high
            .map(|x| format!("{:+.3}", x))
            .unwrap_or_else(|| "n/a".into()),
        s.bootstrap.resamples,
        s.bootstrap.seed,
    );
    let regressions: Vec<&PairedItem> = s
        .pairs
        .iter()
        .filter(|p| p.flip() == Flip::Regressed)
        .collect();
    if !regressions.is_empty() {
        out.push_str("regressions (expected | baseline → candidate):\n");
        for p in regressions.iter().take(50) {
            out.push_str(&format!(
                "  {}: {} | {} → {}\n",
                p.key.join(" #"),
                one_line(p.expected.as_deref()),
                one_line(p.baseline_answer.as_deref()),
                one_line(p.candidate_answer.as_deref()),
            ));
        }
        if regressions.len() > 50 {
            out.push_str(&format!(
                "  … and {} more (--json lists all)\n",
                regressions.len() - 50
            ));
        }
    }
    if !d.failed_items.is_empty() {
        out.push_str(&format!(
            "{} items failed as a whole (counted wrong): e.g. {} in {}: {}\n",
            d.failed_items.len(),
            d.failed_items[0].key.join(" #"),
            d.failed_items[0].run,
            d.failed_items[0].reason
        ));
    }
    out
}

fn one_line(s: Option<&str>) -> String {
    let s = s.filter(|s| !s.trim().is_empty()).unwrap_or("—");
    let mut t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() > 60 {
        t = t.chars().take(59).collect::<String>() + "…";
    }
    t
}
