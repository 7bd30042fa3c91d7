//! `evalboard diff <BASELINE> <CANDIDATE>`: per-item comparison of two runs of the same family,
//! with McNemar's exact test and a paired bootstrap CI; gates on the number of regressions.
//!
//! Items: numeric QA turns keyed `[conversation_id, turn_idx]` (judged by
//! `numerical_match@doc-v1` unless `--scorer` picks another), eval-set items keyed `[id]`
//! (`answer_correctness@v1`, or `v1-extract` with `--profile v1-extract`), code-generation
//! messages keyed `[session_id, message_index]` (judged by execution success).

use anyhow::{bail, Context, Result};
use evalboard_engine::compare::{CompareOptions, Flip, PairedComparison, PairedItem};
use evalboard_engine::formats::convfinqa;
use evalboard_engine::model::ReadDetail;
use evalboard_engine::pipeline::{self, Family};
use evalboard_engine::qa_compare::{self, FailedItem};
use evalboard_engine::run_meta::{self, MetaRow, RunMeta};
use evalboard_engine::scorers::{self, ScoreConfig};
use evalboard_engine::{codegen, evalset, RunInput};
use serde_json::{json, Value};

use crate::cli::DiffArgs;
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
    /// Baseline and candidate metadata side by side.
    meta: Vec<MetaRow>,
}

/// Every run of the command line, scored once.
enum Loaded {
    Qa(Vec<scorers::ScoredQaRun>, String),
    Evalset(Vec<evalset::ScoredRun>),
    Codegen(Vec<codegen::ScoredRun>),
}

pub fn run(a: DiffArgs) -> Result<u8> {
    let max_regressions = a.fail_on_regression;
    let opts = CompareOptions {
        resamples: a.resamples,
        seed: a.seed,
    };
    let runs = a.runs();
    let inputs: Vec<RunInput> = runs
        .iter()
        .map(|d| fsio::read_run(d))
        .collect::<Result<_>>()?;
    let families: Vec<Family> = inputs.iter().map(pipeline::detect_family).collect();
    let fb = families.first().copied().unwrap_or(Family::NumericQa);
    if let Some(i) = families.iter().position(|f| *f != fb) {
        bail!(
            "{} is a {} run but {} is a {} run: only runs of one family compare",
            a.baseline.display(),
            family_name(fb),
            runs[i].display(),
            family_name(families.get(i).copied().unwrap_or(fb))
        );
    }
    let loaded = match load_all(fb, &inputs, &a)? {
        Some(l) => l,
        None => return Ok(2),
    };
    let mut diffs = Vec::new();
    for i in 1..inputs.len() {
        diffs.push(pair_diff(&loaded, i - 1, i, &opts)?);
    }

    if let [diff] = diffs.as_slice() {
        if a.json {
            println!("{}", serde_json::to_string_pretty(&to_json(diff))?);
        } else {
            print!("{}", human(diff, true));
        }
    } else if a.json {
        let out = json!({
            "runs": diffs.iter().map(|d| &d.baseline).chain(diffs.last().map(|d| &d.candidate)).collect::<Vec<_>>(),
            "steps": diffs.iter().map(to_json).collect::<Vec<Value>>(),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", human_series(&diffs, &run_metas(&loaded)));
    }
    for d in &diffs {
        if let Some(note) = &d.note {
            eprintln!("{note}");
        }
    }
    let mut code = 0;
    if let Some(n) = max_regressions {
        for d in diffs.iter().filter(|d| d.stats.flips.regressed > n) {
            eprintln!(
                "FAIL {} regressions > {n} (--fail-on-regression){}",
                d.stats.flips.regressed,
                if diffs.len() > 1 {
                    format!(" in {} → {}", d.baseline, d.candidate)
                } else {
                    String::new()
                }
            );
            code = 1;
        }
    }
    Ok(code)
}

/// Reads and scores every run; `None` (exit 2) when a numeric QA run cannot be read.
fn load_all(family: Family, inputs: &[RunInput], a: &DiffArgs) -> Result<Option<Loaded>> {
    Ok(Some(match family {
        Family::NumericQa => {
            let dataset = match &a.dataset {
                None => None,
                Some(path) => {
                    let p: &str = &path.display().to_string();
                    let bytes =
                        std::fs::read(path).with_context(|| format!("cannot read dataset {p}"))?;
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
            let scorer = a.scorer.as_deref().unwrap_or(match a.profile.as_deref() {
                Some("financial-agent-2" | "fa2") => "numerical_match@financial-agent-2",
                _ => "numerical_match@doc-v1",
            });
            let mut runs = Vec::new();
            for input in inputs {
                // Scores and turns are compared, never the compat-only trace fields.
                match pipeline::load_qa_run_parallel(
                    input,
                    dataset.as_ref(),
                    crate::fsio::threads(),
                    ReadDetail::Doc,
                ) {
                    Ok(run) => {
                        for d in &run.diagnostics {
                            eprintln!("{}/{d}", input.name);
                        }
                        runs.push(scorers::score_qa_run_parallel(
                            run,
                            &ScoreConfig::default(),
                            crate::fsio::threads(),
                        ));
                    }
                    Err(e) => {
                        for d in &e.diagnostics {
                            eprintln!("{}/{d}", input.name);
                        }
                        eprintln!("evalboard: error: {}: {}", input.name, e.message);
                        return Ok(None);
                    }
                }
            }
            Loaded::Qa(runs, scorer.to_string())
        }
        Family::Evalset => {
            let scorer = crate::score::evalset_scorer(
                a.profile.as_deref().or(a.scorer.as_deref()).unwrap_or("v1"),
            )?;
            let attached = match &a.dataset {
                None => None,
                Some(path) => {
                    let p: &str = &path.display().to_string();
                    let bytes =
                        std::fs::read(path).with_context(|| format!("cannot read eval set {p}"))?;
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
            Loaded::Evalset(inputs.iter().map(score).collect())
        }
        Family::Codegen => {
            let cfg = codegen::CodegenConfig::default();
            Loaded::Codegen(
                inputs
                    .iter()
                    .map(|i| {
                        let s = codegen::read_codegen_run(&i.name, &i.files).score(&cfg);
                        for d in &s.diagnostics {
                            eprintln!("{}/{d}", s.name);
                        }
                        s
                    })
                    .collect(),
            )
        }
    }))
}

/// Metadata of every loaded run (code-generation runs have none).
fn run_metas(l: &Loaded) -> Vec<(String, RunMeta)> {
    match l {
        Loaded::Qa(runs, _) => runs
            .iter()
            .map(|r| (r.run.name.clone(), run_meta::qa_meta(r)))
            .collect(),
        Loaded::Evalset(runs) => runs
            .iter()
            .map(|r| (r.name.clone(), r.meta.clone()))
            .collect(),
        Loaded::Codegen(runs) => runs
            .iter()
            .map(|r| (r.name.clone(), RunMeta::default()))
            .collect(),
    }
}

/// Run `i` (baseline) against run `j` (candidate).
fn pair_diff(l: &Loaded, i: usize, j: usize, opts: &CompareOptions) -> Result<Diff> {
    let metas = run_metas(l);
    let meta = match (metas.get(i), metas.get(j)) {
        (Some(b), Some(c)) => run_meta::side_by_side(&[&b.1, &c.1]),
        _ => Vec::new(),
    };
    let missing = || anyhow::anyhow!("no run {i} or {j}");
    Ok(match l {
        Loaded::Qa(runs, scorer) => {
            let (b, c) = runs.get(i).zip(runs.get(j)).ok_or_else(missing)?;
            let cmp = qa_compare::compare_qa_runs(b, c, scorer, opts)?;
            Diff {
                family: "numeric_qa",
                baseline: cmp.baseline,
                candidate: cmp.candidate,
                scorer: cmp.scorer,
                stats: cmp.stats,
                failed_items: cmp.failed_items,
                note: None,
                meta,
            }
        }
        Loaded::Evalset(runs) => {
            let (b, c) = runs.get(i).zip(runs.get(j)).ok_or_else(missing)?;
            let cmp = evalset::compare_runs(b, c, opts);
            let failed_items = [("baseline", b), ("candidate", c)]
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
                meta,
            }
        }
        Loaded::Codegen(runs) => {
            let (b, c) = runs.get(i).zip(runs.get(j)).ok_or_else(missing)?;
            let cmp = codegen::compare_runs(b, c, opts);
            Diff {
                family: "codegen",
                baseline: cmp.baseline,
                candidate: cmp.candidate,
                scorer: codegen::pairing::JUDGED_BY.into(),
                note: cmp.per_item_unavailable,
                stats: cmp.stats,
                failed_items: Vec::new(),
                meta,
            }
        }
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

/// The two-run summary; `with_meta` adds the metadata rows (a series prints them once).
fn human(d: &Diff, with_meta: bool) -> String {
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
    if with_meta {
        out.push_str(&meta_lines(&d.meta));
    }
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

/// Run metadata rows: `≠` marks a field that differs (its values are listed in run order,
/// `|`-separated); a field every run shares is printed once.
fn meta_lines(rows: &[MetaRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("run metadata (≠ marks a field that differs):\n");
    for r in rows {
        let shown = if r.differs {
            r.values
                .iter()
                .map(|v| clip_middle(v.as_deref()))
                .collect::<Vec<_>>()
                .join(" | ")
        } else {
            clip_middle(r.values.first().and_then(|v| v.as_deref()))
        };
        out.push_str(&format!(
            "  {} {:<22} {shown}\n",
            if r.differs { "≠" } else { " " },
            r.label
        ));
    }
    out
}

/// Three or more runs: one line per consecutive step, the metadata of every run, then each
/// step's regressions.
fn human_series(diffs: &[Diff], metas: &[(String, RunMeta)]) -> String {
    let names: Vec<&str> = metas.iter().map(|(n, _)| n.as_str()).collect();
    let first = diffs.first();
    let mut out = format!(
        "series of {} runs: {} ({}, judged by {})\n",
        names.len(),
        names.join(" → "),
        first.map_or("", |d| d.family),
        first.map_or("", |d| d.scorer.as_str()),
    );
    let acc: Vec<String> = diffs
        .iter()
        .map(|d| pct(d.stats.baseline_accuracy))
        .chain(diffs.last().map(|d| pct(d.stats.candidate_accuracy)))
        .collect();
    out.push_str(&format!(
        "  accuracy on paired items: {}\n",
        acc.join(" → ")
    ));
    out.push_str(&format!(
        "  {:<4} {:<40} {:>6} {:>9} {:>8} {:>10} {:>10}  {}\n",
        "step",
        "runs",
        "paired",
        "regressed",
        "improved",
        "Δ accuracy",
        "McNemar p",
        "bootstrap 95% CI"
    ));
    for (i, d) in diffs.iter().enumerate() {
        let s = &d.stats;
        let ci = |x: Option<f64>| x.map_or("n/a".into(), |v| format!("{v:+.3}"));
        out.push_str(&format!(
            "  {:<4} {:<40} {:>6} {:>9} {:>8} {:>10} {:>10.4}  [{}, {}]\n",
            i + 1,
            one_line(Some(&format!("{} → {}", d.baseline, d.candidate))),
            s.n_paired,
            s.flips.regressed,
            s.flips.improved,
            s.accuracy_delta
                .map_or("n/a".into(), |x| format!("{:+.1} pp", x * 100.0)),
            s.mcnemar_p,
            ci(s.bootstrap.low),
            ci(s.bootstrap.high),
        ));
    }
    let refs: Vec<&RunMeta> = metas.iter().map(|(_, m)| m).collect();
    out.push_str(&meta_lines(&run_meta::side_by_side(&refs)));
    for (i, d) in diffs.iter().enumerate() {
        out.push_str(&format!("\nstep {}: ", i + 1));
        out.push_str(&human(d, false));
    }
    out
}

/// One line of at most 60 characters, cut in the middle (paths differ at their ends).
fn clip_middle(s: Option<&str>) -> String {
    let s = s.filter(|s| !s.trim().is_empty()).unwrap_or("—");
    let t: Vec<char> = s
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    if t.len() <= 60 {
        return t.into_iter().collect();
    }
    let head: String = t.iter().take(20).collect();
    let tail: String = t.iter().skip(t.len() - 39).collect();
    format!("{head}…{tail}")
}

fn one_line(s: Option<&str>) -> String {
    let s = s.filter(|s| !s.trim().is_empty()).unwrap_or("—");
    let mut t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() > 60 {
        t = t.chars().take(59).collect::<String>() + "…";
    }
    t
}
