//! `evalboard compare BASELINE RUN...`: many runs of one family against one baseline
//! ([`evalboard_engine::compare::many`]): a ranked table with each pair's `diff` numbers,
//! Holm-adjusted p-values, a 95% CI per headline, cost per correct item and the cost–quality
//! frontier, and a model × task grid when the runs span several tasks. Every number comes from
//! [`compare_many`]; this module reads the folders and prints.

use anyhow::Result;
use evalboard_cli::term::one_line as esc;
use evalboard_cli::{errln, out};
use evalboard_engine::compare::many::{
    compare_many, compare_series, value_text, Grid, ManyComparison, ManyError, ManyRun, RunRow,
};
use evalboard_engine::compare::{CompareOptions, PairTexts, Pairing};
use evalboard_engine::run::{CompareSettings, ScoredRun};
use evalboard_engine::run_table::Unit;

use crate::cli::CompareArgs;
use crate::score;

/// One command-line folder read: its runs (several for a folder of logs), or why none.
struct Read {
    path: String,
    runs: Result<Vec<ScoredRun>, String>,
}

pub fn run(a: CompareArgs) -> Result<u8> {
    let compare = CompareSettings {
        qa_scorer: a.scorer.clone(),
        opts: CompareOptions {
            resamples: a.resamples,
            seed: a.seed,
            // Only counts are shown: no pair keeps its texts.
            texts: PairTexts::Changed,
        },
        pairing: Pairing::AsJudged,
    };
    let profile = a.profile.as_deref().unwrap_or("doc");
    // The baseline's family decides the settings every run is scored under.
    let base = score::load_path(&a.baseline, profile)?;
    // A lake as the baseline: its baseline runs against its other runs (and any RUN given).
    let (base, lake_rest) = base.split_lake_baseline(!a.runs.is_empty());
    if a.runs.is_empty() && lake_rest.is_none() {
        errln!(
            "evalboard: error: {}: nothing to compare with the baseline: name a RUN (or give a \
             lake holding several runs)",
            a.baseline.display()
        );
        return Ok(2);
    }
    let family = base.family;
    let settings = crate::diff::pair_settings(
        (&a.dataset, a.profile.as_deref(), &a.prices),
        &compare,
        family,
    )?;
    let mut reads: Vec<Read> = Vec::new();
    let base_path = a.baseline.display().to_string();
    reads.push(Read {
        runs: base
            .score_logs(&settings)?
            .ok_or_else(|| "no usable run (see above)".to_string()),
        path: base_path,
    });
    if let Some(rest) = lake_rest {
        reads.push(Read {
            runs: rest
                .score_logs(&settings)?
                .ok_or_else(|| "no usable run (see above)".to_string()),
            path: a.baseline.display().to_string(),
        });
    }
    for dir in &a.runs {
        let path = dir.display().to_string();
        let runs = match score::load_path(dir, profile) {
            Err(e) => {
                errln!("evalboard: error: {path}: {e:#}");
                Err(format!("{e:#}"))
            }
            Ok(l) if l.family != family => {
                let e = ManyError::Families {
                    baseline: a.baseline.display().to_string(),
                    baseline_family: family,
                    run: path,
                    run_family: l.family,
                };
                errln!("evalboard: error: {e}");
                return Ok(2);
            }
            Ok(l) => l
                .score_logs(&settings)?
                .ok_or_else(|| "no usable run (see above)".to_string()),
        };
        reads.push(Read { path, runs });
    }
    fn many(r: &Read) -> Vec<ManyRun<'_>> {
        match &r.runs {
            Ok(runs) => runs
                .iter()
                .map(|s| ManyRun {
                    path: r.path.clone(),
                    run: Ok(s.as_ref()),
                })
                .collect(),
            Err(why) => vec![ManyRun {
                path: r.path.clone(),
                run: Err(why.clone()),
            }],
        }
    }
    let baselines = many(&reads[0]);
    let runs: Vec<ManyRun> = reads[1..].iter().flat_map(many).collect();
    let threads = evalboard_cli::fsio::threads();
    let compared = if a.series {
        let all: Vec<ManyRun> = baselines.into_iter().chain(runs).collect();
        compare_series(&all, &compare, threads)
    } else {
        compare_many(&baselines, &runs, &compare, threads)
    };
    let cmp = match compared {
        Ok(c) => c,
        Err(e) => {
            errln!("evalboard: error: {e}");
            return Ok(2);
        }
    };
    for w in &cmp.warnings {
        errln!("warning: {}", esc(w));
    }
    if a.json {
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&cmp.to_json())?);
    } else {
        out!("{}", human(&cmp));
    }
    let mut code = 0;
    if let Some(n) = a.fail_on_regression {
        for r in cmp
            .runs
            .iter()
            .filter(|r| r.regressed.is_some_and(|k| k > n))
        {
            errln!(
                "FAIL {} regressions > {n} (--fail-on-regression) in {} → {}",
                r.regressed.unwrap_or(0),
                esc(r.baseline.as_deref().unwrap_or("")),
                esc(&r.label)
            );
            code = 1;
        }
    }
    Ok(code)
}

fn ci(x: Option<(f64, f64)>, unit: Unit) -> String {
    x.map_or_else(
        || "n/a".into(),
        |(l, h)| {
            format!(
                "[{}, {}]",
                value_text(Some(l), unit),
                value_text(Some(h), unit)
            )
        },
    )
}

fn p(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), evalboard_engine::compare::p_value_text)
}

fn count(x: Option<u64>) -> String {
    x.map_or_else(|| "-".into(), |v| v.to_string())
}

/// Cuts `s` to `n` characters (escaped first), with `…` when cut.
fn cut(s: &str, n: usize) -> String {
    let s = esc(s);
    if s.chars().count() <= n {
        return s.into_owned();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The ranked table, the reading, the notes and the grid.
fn human(c: &ManyComparison) -> String {
    let unit = c
        .runs
        .first()
        .map(|r| r.headline_unit)
        .unwrap_or(Unit::Rate);
    let label = c
        .runs
        .iter()
        .find(|r| r.is_baseline)
        .map(|r| r.headline_label.as_str())
        .unwrap_or("headline");
    let n = c.runs.iter().filter(|r| !r.is_baseline).count();
    let mut out = if c.series {
        format!(
            "series of {} {} runs, each against the one before it ({}; judged by {}; p adjusted by Holm over the steps)\n",
            c.runs.len(),
            c.family.label(),
            esc(label),
            esc(&c.judged_by),
        )
    } else {
        format!(
            "{n} run{} of {} against {} ({}; judged by {}; p adjusted by Holm)\n",
            if n == 1 { "" } else { "s" },
            c.family.label(),
            esc(&c.baseline.join(", ")),
            esc(label),
            esc(&c.judged_by),
        )
    };
    out.push_str(&format!(
        "  {:<28} {:>6} {:>8} {:<18} {:>8} {:>5} {:>5} {:>7} {:>7} {:>9} {:>12}  {}\n",
        "run",
        "items",
        "headline",
        "95% CI",
        "Δ",
        "regr",
        "impr",
        "p",
        "Holm p",
        "missing",
        "$/correct",
        "frontier"
    ));
    for r in &c.runs {
        out.push_str(&row(r, &r.label, unit));
    }
    out.push_str(&format!("reading: {}\n", esc(&c.reading)));
    let methods: Vec<&str> = {
        let mut m: Vec<&str> = c
            .runs
            .iter()
            .filter(|r| r.n_items.is_some())
            .map(|r| r.ci_method.name())
            .collect();
        m.sort_unstable();
        m.dedup();
        m
    };
    out.push_str(&format!(
        "95% CI: {}; missing = items only in the {} / only in the run, counted neither correct nor wrong\n",
        methods.join(", "),
        if c.series { "run before" } else { "baseline" }
    ));
    let notes: Vec<&RunRow> = c.runs.iter().filter(|r| r.note.is_some()).collect();
    if !notes.is_empty() {
        out.push_str("notes:\n");
        for r in notes {
            out.push_str(&format!(
                "  {}: {}\n",
                esc(&r.label),
                esc(r.note.as_deref().unwrap_or(""))
            ));
        }
    }
    if let Some(g) = &c.grid {
        out.push_str(&grid(g, unit));
    }
    out
}

fn row(r: &RunRow, name: &str, unit: Unit) -> String {
    let delta = r
        .delta
        .map_or_else(|| "-".into(), |d| format!("{:+.1} pp", d * 100.0));
    let missing = match (r.only_in_baseline, r.only_in_run) {
        (Some(b), Some(o)) => format!("{b}/{o}"),
        _ => "-".into(),
    };
    let frontier = match (r.on_frontier, r.cost_usd) {
        (Some(true), _) => "on",
        (Some(false), _) => "dominated",
        (None, _) if r.n_items.is_none() => "",
        (None, _) => "unpriced",
    };
    let per_correct = r
        .cost_per_correct_usd
        .map_or_else(|| "-".into(), |v| format!("${v:.6}"));
    format!(
        "{} {:<28} {:>6} {:>8} {:<18} {:>8} {:>5} {:>5} {:>7} {:>7} {:>9} {:>12}  {}\n",
        if r.is_baseline { "*" } else { " " },
        cut(name, 28),
        count(r.n_items),
        value_text(r.headline, unit),
        ci(r.ci95, unit),
        delta,
        count(r.regressed),
        count(r.improved),
        p(r.mcnemar_exact_p),
        p(r.holm_p),
        missing,
        per_correct,
        frontier,
    )
}

/// The model × task grid: each cell the headline and its change against the baseline model on
/// that task, then the model's micro and macro means.
fn grid(g: &Grid, unit: Unit) -> String {
    let mut out = format!(
        "grid (Δ against {} per task; micro = Σ correct ÷ Σ items, macro = mean of the task headlines, only with every task):\n",
        esc(&g.baseline_model)
    );
    out.push_str(&format!("  {:<24}", "model"));
    for t in &g.tasks {
        out.push_str(&format!(" {:>20}", cut(t, 20)));
    }
    out.push_str(&format!(" {:>8} {:>8}\n", "micro", "macro"));
    for m in &g.models {
        out.push_str(&format!("  {:<24}", cut(&m.model, 24)));
        for c in &m.cells {
            let cell = match c {
                None => "-".to_string(),
                Some(c) => match c.delta {
                    Some(d) => format!("{} ({:+.1})", value_text(c.headline, unit), d * 100.0),
                    None => value_text(c.headline, unit),
                },
            };
            out.push_str(&format!(" {cell:>20}"));
        }
        out.push_str(&format!(
            " {:>8} {:>8}\n",
            value_text(m.micro, Unit::Rate),
            value_text(m.macro_mean, unit)
        ));
    }
    out
}
