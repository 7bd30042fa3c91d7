//! `evalboard diff <BASELINE> <CANDIDATE>`: per-item comparison of two runs of the same family,
//! with McNemar's exact test and a paired bootstrap CI; gates on the number of regressions.
//!
//! Items: numeric QA turns keyed `[conversation_id, turn_idx]` (judged by the profile's primary
//! scorer unless `--scorer` picks one of `numeric_qa::compare::QA_COMPARE_SCORERS`), eval-set
//! items keyed `[id]` (judged by the eval-set scorer `--profile` names, `v1` by default),
//! code-generation messages keyed `[session_id, message_index]` (judged by execution success),
//! eval-log samples keyed as the tool keys them (Inspect `[id, epoch]`, lm-eval `[task, doc_id,
//! filter]`; judged by the log's headline score unless `--scorer` names another). `--by-item`
//! pairs an eval log's items with their epochs (repeats) reduced instead
//! ([`evalboard_engine::compare::Pairing::ByItem`]), and prints the pairing used.

use std::path::PathBuf;

use anyhow::{bail, Result};
use evalboard_cli::term::one_line as esc;
use evalboard_cli::{errln, out};
use evalboard_engine::compare::{
    CompareOptions, Flip, MetricDelta, PairTexts, PairedItem, Pairing,
};
use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::score::doc::DocTolerances;
use evalboard_engine::run::{CompareError, CompareSettings, RunComparison, RunRef, ScoredRun};
use evalboard_engine::run_meta::MetaRow;
use evalboard_engine::run_table::Unit;
use evalboard_engine::series;
use serde_json::{json, Value};

use crate::cli::{DiffArgs, SettingsArgs};
use crate::score;

/// The settings `diff` scores runs of `family` with: the profile `--profile` names, or the
/// one `--scorer` implies ([`CompareSettings::profile`]), once `--scorer` is known to suit the
/// family ([`CompareSettings::check`]).
fn diff_settings(
    a: &DiffArgs,
    compare: &CompareSettings,
    family: Family,
) -> Result<score::Settings> {
    pair_settings(
        (&a.dataset, a.profile.as_deref(), &a.prices),
        compare,
        family,
    )
}

/// The settings runs of `family` are scored with to be compared (`diff`, `compare`): `--dataset`,
/// the profile `--profile` names or `--scorer` implies, `--prices`; default tolerances.
pub(crate) fn pair_settings(
    (dataset, profile, prices): (&Option<PathBuf>, Option<&str>, &Option<PathBuf>),
    compare: &CompareSettings,
    family: Family,
) -> Result<score::Settings> {
    compare.check(family)?;
    score::settings(&SettingsArgs {
        dataset: dataset.clone(),
        profile: compare.profile(family, profile),
        prices: prices.clone(),
        rel_tol: DocTolerances::default().rel,
        abs_tol: DocTolerances::default().abs,
        pass_k: None,
    })
}

/// A comparison of two consecutive runs, with their metadata side by side.
struct Diff {
    cmp: RunComparison,
    meta: Vec<MetaRow>,
    /// `--prices` was given: both runs' dollar metrics are shown ([`costs`]).
    priced: bool,
}

/// The comparison's dollar metrics (cost under the price table, per correct item, as the tool
/// recorded it), both runs' values; empty without `--prices`.
fn costs(d: &Diff) -> Vec<&MetricDelta> {
    d.metrics
        .iter()
        .filter(|m| d.priced && m.unit == Unit::Usd)
        .collect()
}

/// `d`'s JSON: the comparison, and with `--prices` its `costs` (`key`, `label`, `baseline`,
/// `candidate`; null: unpriced).
fn diff_json(d: &Diff) -> Value {
    let mut v = d.to_json();
    if d.priced {
        let costs: Vec<Value> = costs(d)
            .into_iter()
            .map(|m| json!({"key": m.key, "label": m.label, "baseline": m.baseline, "candidate": m.candidate}))
            .collect();
        if let Some(o) = v.as_object_mut() {
            o.insert("costs".into(), Value::Array(costs));
        }
    }
    v
}

/// Dollars with 6 decimals, `unpriced` when there is no price.
fn usd(x: Option<f64>) -> String {
    x.map_or_else(|| "unpriced".into(), |v| format!("${v:.6}"))
}

impl std::ops::Deref for Diff {
    type Target = RunComparison;
    fn deref(&self) -> &RunComparison {
        &self.cmp
    }
}

pub fn run(a: DiffArgs) -> Result<u8> {
    let max_regressions = a.fail_on_regression;
    let compare = CompareSettings {
        qa_scorer: a.scorer.clone(),
        opts: CompareOptions {
            resamples: a.resamples,
            seed: a.seed,
            // diff prints the changed items only.
            texts: PairTexts::Changed,
        },
        pairing: match a.by_item {
            Some(b) => Pairing::ByItem(b.0),
            None => Pairing::AsJudged,
        },
    };
    let runs = a.runs();
    // One run is read at a time and scored before the next is read, so `diff` holds the
    // scored runs and at most one run's bytes, never every input whole (issue 18: within 2×
    // the inputs' size). The family of the first run decides the settings; a run of another
    // family is refused when it is read.
    let mut scored: Vec<ScoredRun> = Vec::new();
    let mut settings = None;
    let mut fb = None;
    for dir in &runs {
        let loaded = score::load_path(dir, a.profile.as_deref().unwrap_or("doc"))?;
        let s = match settings.take() {
            Some(s) => s,
            None => {
                fb = Some(loaded.family);
                diff_settings(&a, &compare, loaded.family)?
            }
        };
        let fb = fb.unwrap_or(loaded.family);
        if loaded.family != fb {
            bail!(
                "{}",
                CompareError::FamilyMismatch {
                    baseline: a.baseline.display().to_string(),
                    baseline_family: fb,
                    candidate: dir.display().to_string(),
                    candidate_family: loaded.family,
                }
            );
        }
        match loaded.score(&s)? {
            Some(run) => scored.push(run),
            None => return Ok(2),
        }
        settings = Some(s);
    }
    let names: Vec<&str> = scored.iter().map(|s| s.as_ref().name()).collect();
    let refs: Vec<RunRef> = scored.iter().map(ScoredRun::as_ref).collect();
    let series = series::series(&refs, &compare);
    let mut diffs = Vec::new();
    for step in series.steps {
        // Every run is held here, so every step has a comparison.
        let Some(cmp) = step.comparison.transpose()? else {
            bail!("a run of the series is missing");
        };
        for w in &cmp.warnings {
            errln!("warning: {w}");
        }
        diffs.push(Diff {
            cmp,
            meta: step.meta,
            priced: a.prices.is_some(),
        });
    }

    if let [diff] = diffs.as_slice() {
        if a.json {
            evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&diff_json(diff))?);
        } else {
            out!("{}", human(diff, true));
        }
    } else if a.json {
        let out = json!({
            "runs": diffs.iter().map(|d| &d.baseline).chain(diffs.last().map(|d| &d.candidate)).collect::<Vec<_>>(),
            "steps": diffs.iter().map(diff_json).collect::<Vec<Value>>(),
        });
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&out)?);
    } else {
        out!("{}", human_series(&diffs, &names, &series.meta));
    }
    for d in &diffs {
        if let Some(note) = &d.note {
            errln!("{note}");
        }
    }
    let mut code = 0;
    if let Some(n) = max_regressions {
        for d in diffs.iter().filter(|d| d.stats.flips.regressed > n) {
            errln!(
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
         only in one run   {}\n",
        esc(&d.baseline),
        esc(&d.candidate),
        d.family,
        esc(&d.scorer),
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
    );
    if s.by_item.as_ref().is_some_and(|m| !m.binary) {
        out.push_str(
            "  McNemar exact p   n/a (reduced values other than 0 and 1)\n  \
             bootstrap 95% CI  n/a (the item-clustered CI below applies)\n",
        );
    } else {
        out.push_str(&format!(
            "  McNemar exact p   {}\n  bootstrap 95% CI  [{}, {}] ({} resamples, seed {})\n",
            evalboard_engine::compare::p_value_text(s.mcnemar_p),
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
        ));
    }
    for m in costs(d) {
        let label = match m.key.as_str() {
            "total_cost_usd" => "cost".to_string(),
            "cost" => "cost, recorded".to_string(),
            _ => m.label.to_lowercase(),
        };
        out.push_str(&format!(
            "  {:<17} {} → {}\n",
            esc(&label),
            usd(m.baseline),
            usd(m.candidate)
        ));
    }
    if let Some(m) = &s.by_item {
        let num = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.4}"));
        let signed = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:+.4}"));
        out.push_str(&format!(
            "  mean {:<12} {} → {} (Δ {}, item-clustered se {}, 95% CI [{}, {}]) over {} items{}\n",
            esc(&m.reducer),
            num(m.baseline_mean),
            num(m.candidate_mean),
            signed(m.delta),
            num(m.stderr),
            signed(m.ci_low),
            signed(m.ci_high),
            m.n_items,
            if m.binary {
                ""
            } else {
                " (the accuracy line above is this mean)"
            },
        ));
    }
    if let Some(p) = &d.pairing {
        out.push_str(&format!("pairing: {}\n", esc(p)));
    }
    out.push_str(&format!("reading: {}\n", esc(&d.reading().text)));
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
                esc(&p.key.parts().join(" #")),
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
            esc(&d.failed_items[0].key.parts().join(" #")),
            esc(&d.failed_items[0].run),
            esc(&d.failed_items[0].reason)
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
            esc(&r.label)
        ));
    }
    out
}

/// Three or more runs: one line per consecutive step, the metadata of every run, then each
/// step's regressions.
fn human_series(diffs: &[Diff], names: &[&str], meta: &[MetaRow]) -> String {
    let first = diffs.first();
    let mut out = format!(
        "series of {} runs: {} ({}, judged by {})\n",
        names.len(),
        esc(&names.join(" → ")),
        first.map_or("", |d| d.family.name()),
        esc(first.map_or("", |d| d.scorer.as_str())),
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
            "  {:<4} {:<40} {:>6} {:>9} {:>8} {:>10} {:>10}  [{}, {}]\n",
            i + 1,
            one_line(Some(&format!("{} → {}", d.baseline, d.candidate))),
            s.n_paired,
            s.flips.regressed,
            s.flips.improved,
            s.accuracy_delta
                .map_or("n/a".into(), |x| format!("{:+.1} pp", x * 100.0)),
            evalboard_engine::compare::p_value_text(s.mcnemar_p),
            ci(s.bootstrap.low),
            ci(s.bootstrap.high),
        ));
    }
    out.push_str(&meta_lines(meta));
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
