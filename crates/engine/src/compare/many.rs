//! Many runs against one baseline: every run of one family compared with the baseline through
//! the engine's one pair comparison ([`run::compare_in`], so each pair's counts, McNemar p and
//! bootstrap CI are `evalboard diff`'s to the bit), then, over the pairs, Holm's step-down
//! adjustment, a ranking by headline with a CI from counts, cost per correct item and the
//! cost–quality frontier, and a model × task grid. `evalboard compare`, the dashboard's Runs
//! view and the report's many-runs section all call [`compare_many_in`]; it holds no family
//! `match` (what a run is comes from the registry: [`RunRef::headline_in`], facts, repeats).
//!
//! Missing is not passing: an item only one side scored counts in `only_in_*`, never as correct
//! or wrong. A run that shares no item with its baseline keeps its row, with every paired
//! number `None` and a note, and is left out of Holm's family. docs/scoring.md, "Many runs".

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::compare::BootstrapCi;
use crate::family::Family;
use crate::run::{self, CompareSettings, FamilySet, RunComparison, RunRef};
use crate::run_table::{MetricValue, TaskJudge, Unit};
use crate::stats::{self, Z95};

/// How a row's 95% interval was computed ([`ci95_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CiMethod {
    /// Wilson's score interval on the headline's counts (`correct` of `n`).
    Wilson,
    /// The headline mean ± 1.96 standard errors.
    Normal,
    /// The same, the standard error clustered by item (items judged more than once).
    NormalItemClustered,
    /// Neither counts nor a standard error are known for this headline.
    None,
}

impl CiMethod {
    /// The method as `ci_method` names it.
    pub fn name(self) -> &'static str {
        match self {
            CiMethod::Wilson => "wilson",
            CiMethod::Normal => "normal",
            CiMethod::NormalItemClustered => "normal, item-clustered",
            CiMethod::None => "none",
        }
    }
}

/// A headline (or a bound of its CI) as the CLI and the report print it: a rate as a
/// percentage with one decimal, another score with four; `n/a` when there is none.
pub fn value_text(x: Option<f64>, unit: Unit) -> String {
    match (x, unit) {
        (None, _) => "n/a".into(),
        (Some(v), Unit::Rate) => format!("{:.1}%", v * 100.0),
        (Some(v), _) => format!("{v:.4}"),
    }
}

/// The 95% interval of a headline from what is known of it: Wilson on its counts when it is a
/// proportion with counts, else the mean ± 1.96 × its standard error (clustered by item when
/// the family clustered it; a rate's kept within 0–1), else none.
pub fn ci95_of(m: &MetricValue) -> (Option<(f64, f64)>, CiMethod) {
    if let Some(c) = m.counts.filter(|c| c.n > 0) {
        return (c.wilson(Z95), CiMethod::Wilson);
    }
    match (m.value, m.stderr) {
        (Some(v), Some(se)) if v.is_finite() && se.value.is_finite() => (
            Some(if m.unit == Unit::Rate {
                // A rate stays within 0–1.
                ((v - Z95 * se.value).max(0.0), (v + Z95 * se.value).min(1.0))
            } else {
                (v - Z95 * se.value, v + Z95 * se.value)
            }),
            if se.clustered_by_item {
                CiMethod::NormalItemClustered
            } else {
                CiMethod::Normal
            },
        ),
        _ => (None, CiMethod::None),
    }
}

/// One run given to the comparison: where it came from and the run, or why it could not be
/// read (it keeps a row with that note).
#[derive(Debug, Clone)]
pub struct ManyRun<'a> {
    /// The path as given (the CLI), or the run's name (the dashboard).
    pub path: String,
    pub run: Result<RunRef<'a>, String>,
}

/// One row of the comparison: a run, its own numbers, and against its baseline the paired
/// ones (`None` on a baseline's own row and where they do not exist, with [`RunRow::note`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// The run's name as `score` prints it in `run_name` (the path when it could not be read).
    pub run: String,
    /// How every consumer names the row: the run's name, or where two rows share it the name and
    /// model, else the name and path ([`label_rows`]).
    pub label: String,
    pub path: String,
    pub model: Option<String>,
    pub task: Option<String>,
    pub dataset: Option<String>,
    pub is_baseline: bool,
    /// The baseline run this row was compared with (runs of several tasks: the baseline run
    /// of the same task).
    pub baseline: Option<String>,
    /// The run's own scored items and, of them, the correct ones (its verdicts).
    pub n_items: Option<u64>,
    pub correct: Option<u64>,
    pub headline: Option<f64>,
    pub headline_label: String,
    pub headline_unit: Unit,
    pub ci95: Option<(f64, f64)>,
    pub ci_method: CiMethod,
    pub n_paired: Option<u64>,
    pub only_in_baseline: Option<u64>,
    pub only_in_run: Option<u64>,
    pub regressed: Option<u64>,
    pub improved: Option<u64>,
    /// Accuracy over the paired items, run − baseline (`diff`'s `accuracy_delta`).
    pub delta: Option<f64>,
    pub bootstrap_ci: Option<BootstrapCi>,
    pub mcnemar_exact_p: Option<f64>,
    /// Holm's adjustment of `mcnemar_exact_p` over the runs compared with the same baseline
    /// run (one task: every run).
    pub holm_p: Option<f64>,
    /// The run's cost under the price table (`None`: unpriced).
    pub cost_usd: Option<f64>,
    /// `cost_usd` ÷ `correct`.
    pub cost_per_correct_usd: Option<f64>,
    pub tokens: Option<u64>,
    /// `tokens` ÷ `correct`: the cost per correct item in tokens, priced or not.
    pub tokens_per_correct: Option<f64>,
    /// Mean latency per item in seconds, where the run records it.
    pub latency_mean_s: Option<f64>,
    /// On the cost–quality frontier of the priced runs; `None` when unpriced.
    pub on_frontier: Option<bool>,
    /// Why a number is absent or needs a second look.
    pub note: Option<String>,
}

/// The many-runs comparison: the rows (baselines first, then by headline), the reading, what
/// differs between the runs, and the grid when they span models and tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManyComparison {
    /// The baseline runs' names (one per task).
    pub baseline: Vec<String>,
    pub family: Family,
    /// How items were judged and joined (the first pair's words).
    pub judged_by: String,
    pub warnings: Vec<String>,
    pub runs: Vec<RunRow>,
    /// The comparison in one sentence.
    pub reading: String,
    pub grid: Option<Grid>,
    /// A series ([`compare_series_in`]): each run against the one before it.
    #[serde(default)]
    pub series: bool,
}

/// Runs laid out as models × tasks: each cell one run's headline, its CI and its change against
/// the baseline model's run on that task; per model the micro and macro means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    pub baseline_model: String,
    pub tasks: Vec<String>,
    pub models: Vec<GridRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridRow {
    pub model: String,
    /// One per task, `None` where the model has no run of that task.
    pub cells: Vec<Option<GridCell>>,
    /// Σ correct ÷ Σ items over the model's tasks (`micro`).
    pub micro: Option<f64>,
    /// The unweighted mean of the task headlines, only when the model has every task.
    pub macro_mean: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridCell {
    /// The run's index in [`ManyComparison::runs`].
    pub row: usize,
    pub headline: Option<f64>,
    pub ci95: Option<(f64, f64)>,
    pub delta: Option<f64>,
    pub holm_p: Option<f64>,
}

/// Why runs cannot be compared at all (the CLI's usage error, exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManyError {
    #[error("compare needs a baseline and at least one other run; {0}")]
    TooFew(String),
    #[error(
        "{run} is {} {} run but the baseline {baseline} is {} {} run: only runs of one family compare",
        crate::run::settings::article(*run_family), run_family.label(), crate::run::settings::article(*baseline_family), baseline_family.label()
    )]
    Families {
        baseline: String,
        baseline_family: Family,
        run: String,
        run_family: Family,
    },
    #[error("the baseline {0} could not be read: {1}")]
    Baseline(String, String),
    #[error("{0}")]
    Judge(String),
}

/// What is known of one readable run (or one task of it) before it is paired.
#[derive(Clone)]
struct Own {
    name: String,
    family: Family,
    profile: String,
    model: Option<String>,
    task: Option<String>,
    dataset: Option<String>,
    headline: MetricValue,
    n_items: u64,
    correct: u64,
    cost_usd: Option<f64>,
    tokens: Option<u64>,
    latency_mean_s: Option<f64>,
    max_repeats: Option<u64>,
}

fn own_of<const FAMILIES: FamilySet>(r: &RunRef) -> Own {
    // One statistics pass: the headline is the metrics' first.
    let metrics = r.metrics_in::<FAMILIES>();
    let facts = r.facts_of(&metrics);
    let metric = |key: &str| metrics.iter().find(|m| m.key == key).and_then(|m| m.value);
    Own {
        name: r.name().to_string(),
        family: r.family(),
        profile: r.profile(),
        model: facts.model,
        task: facts.task,
        dataset: facts.dataset,
        headline: metrics
            .first()
            .cloned()
            .unwrap_or_else(|| MetricValue::new("headline", "Headline", Unit::Rate, None)),
        // Counted when the runs are judged ([`run::compare_jobs_in`]).
        n_items: 0,
        correct: 0,
        // The price table's cost only: a cost a tool recorded is not mixed in.
        cost_usd: metric("total_cost_usd"),
        tokens: facts.tokens,
        latency_mean_s: metric("latency_mean"),
        max_repeats: r
            .family_run_in::<FAMILIES>()
            .and_then(|f| f.repeats())
            .map(|s| s.max_repeats),
    }
}

/// A run as the rows it gives, each with the judge it is paired under: one row judged by
/// `judge`, or with `per_task` and a run holding several tasks ([`TaskJudge`]) one row per
/// task, judged by the task's score, its headline that score (the run's cost, tokens and
/// latency are not split by task: none on these rows).
fn entries<const FAMILIES: FamilySet>(
    r: &RunRef,
    judge: Option<&str>,
    per_task: bool,
) -> Vec<(Own, Option<String>)> {
    let mut own = own_of::<FAMILIES>(r);
    // A judge picked (`--scorer`, the dashboard's "Judged by") that the run offers gives its
    // headline: the rows then rank by what their pairs are judged by.
    if let Some(j) = judge {
        let picked = r.judge_choices_in::<FAMILIES>().into_iter().find(|c| {
            c.judge == j
                || c.label == j
                || c.judge.strip_prefix(j).is_some_and(|v| v.starts_with('@'))
        });
        if let Some(c) = picked {
            own.headline = c.headline;
        }
    }
    let tasks: Vec<TaskJudge> = if per_task {
        r.family_run_in::<FAMILIES>()
            .map(|f| f.task_judges())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    if tasks.is_empty() {
        return vec![(own, judge.map(str::to_string))];
    }
    tasks
        .into_iter()
        .map(|t| {
            let task_own = Own {
                task: Some(t.task),
                headline: t.headline,
                cost_usd: None,
                tokens: None,
                latency_mean_s: None,
                ..own.clone()
            };
            (task_own, Some(t.judge))
        })
        .collect()
}

/// Whether runs like `r` are compared task by task: it holds several tasks (an lm-eval suite,
/// [`TaskJudge`]) and no judge is named.
fn by_task<const FAMILIES: FamilySet>(r: &RunRef, judge: Option<&str>) -> bool {
    judge.is_none()
        && r.family_run_in::<FAMILIES>()
            .is_some_and(|f| !f.task_judges().is_empty())
}

fn per_correct(total: Option<f64>, correct: u64) -> Option<f64> {
    total.filter(|_| correct > 0).map(|t| t / correct as f64)
}

impl RunRow {
    fn unreadable(path: &str, why: &str) -> RunRow {
        RunRow {
            run: path.to_string(),
            label: path.to_string(),
            path: path.to_string(),
            model: None,
            task: None,
            dataset: None,
            is_baseline: false,
            baseline: None,
            n_items: None,
            correct: None,
            headline: None,
            headline_label: String::new(),
            headline_unit: Unit::Rate,
            ci95: None,
            ci_method: CiMethod::None,
            n_paired: None,
            only_in_baseline: None,
            only_in_run: None,
            regressed: None,
            improved: None,
            delta: None,
            bootstrap_ci: None,
            mcnemar_exact_p: None,
            holm_p: None,
            cost_usd: None,
            cost_per_correct_usd: None,
            tokens: None,
            tokens_per_correct: None,
            latency_mean_s: None,
            on_frontier: None,
            note: Some(format!("not read: {why}")),
        }
    }

    fn of(path: &str, own: &Own, is_baseline: bool) -> RunRow {
        let (ci95, ci_method) = ci95_of(&own.headline);
        RunRow {
            run: own.name.clone(),
            label: own.name.clone(),
            path: path.to_string(),
            model: own.model.clone(),
            task: own.task.clone(),
            dataset: own.dataset.clone(),
            is_baseline,
            n_items: Some(own.n_items),
            correct: Some(own.correct),
            headline: own.headline.value,
            headline_label: own.headline.label.clone(),
            headline_unit: own.headline.unit,
            ci95,
            ci_method,
            cost_usd: own.cost_usd,
            cost_per_correct_usd: per_correct(own.cost_usd, own.correct),
            tokens: own.tokens,
            tokens_per_correct: per_correct(own.tokens.map(|t| t as f64), own.correct),
            latency_mean_s: own.latency_mean_s,
            note: None,
            ..RunRow::unreadable(path, "")
        }
    }

    /// Fills the paired numbers from `cmp` (`diff`'s comparison of this run with its baseline).
    fn pair(&mut self, cmp: &RunComparison) {
        let s = &cmp.stats;
        let f = &s.flips;
        self.baseline = Some(cmp.baseline.clone());
        self.n_paired = Some(s.n_paired);
        self.only_in_baseline = Some(f.only_in_baseline);
        self.only_in_run = Some(f.only_in_candidate);
        self.regressed = Some(f.regressed);
        self.improved = Some(f.improved);
        if s.n_paired == 0 {
            self.note = Some(format!(
                "no item in common with {}: no paired numbers (left out of Holm's correction)",
                cmp.baseline
            ));
            return;
        }
        self.delta = s.accuracy_delta;
        self.bootstrap_ci = Some(s.bootstrap.clone());
        self.mcnemar_exact_p = Some(s.mcnemar_p).filter(|p| !p.is_nan());
        if let Some(n) = cmp.notes() {
            self.note = Some(n);
        }
    }
}

/// The index of the baseline a run of `task` is compared with: the only one, else the one of
/// the same task.
/// A baseline entry: the path given, the run, what is known of it (or of one of its tasks),
/// and the judge its pairs are judged by.
type BaseEntry<'p, 'r> = (&'p str, RunRef<'r>, Own, Option<String>);

fn baseline_for(base: &[BaseEntry], task: &Option<String>) -> Option<usize> {
    if base.len() == 1 {
        return Some(0);
    }
    base.iter()
        .position(|(_, _, o, _)| o.task.is_some() && o.task == *task)
}

/// Compares every run of `runs` with its baseline — the one run of `baselines`, or with several
/// (one per task) the baseline of the run's task — under `settings`, for runs of the families
/// in `FAMILIES`, each run's own numbers and its pair on `threads` threads (natively).
/// Unreadable runs keep a row with their note. Errors: no baseline or no other run, runs of two
/// families, an unreadable baseline.
pub fn compare_many_in<const FAMILIES: FamilySet>(
    baselines: &[ManyRun],
    runs: &[ManyRun],
    settings: &CompareSettings,
    threads: usize,
) -> Result<ManyComparison, ManyError> {
    let given = baselines.len() + runs.len();
    if baselines.is_empty() || runs.is_empty() {
        return Err(ManyError::TooFew(format!(
            "{given} run{} given",
            if given == 1 { "" } else { "s" }
        )));
    }
    let judge = settings.qa_scorer.as_deref();
    // Runs that hold several tasks (an lm-eval suite) are compared task by task, unless a
    // scorer is named.
    let per_task = baselines
        .first()
        .is_some_and(|b| b.run.as_ref().is_ok_and(|r| by_task::<FAMILIES>(r, judge)));
    let mut base: Vec<BaseEntry> = Vec::new();
    // Each baseline entry's run, by its index among the runs judged.
    let mut base_run: Vec<usize> = Vec::new();
    let mut all: Vec<RunRef> = Vec::new();
    for b in baselines {
        let r = b
            .run
            .as_ref()
            .map_err(|why| ManyError::Baseline(b.path.clone(), why.clone()))?;
        for (own, j) in entries::<FAMILIES>(r, judge, per_task) {
            base.push((&b.path, *r, own, j));
            base_run.push(all.len());
        }
        all.push(*r);
    }
    let family = base[0].2.family;
    for (path, f) in base.iter().map(|(p, _, o, _)| (*p, o.family)).chain(
        runs.iter()
            .filter_map(|m| m.run.as_ref().ok().map(|r| (m.path.as_str(), r.family()))),
    ) {
        if f != family {
            return Err(ManyError::Families {
                baseline: base[0].0.to_string(),
                baseline_family: family,
                run: path.to_string(),
                run_family: f,
            });
        }
    }
    let mut warnings: Vec<String> = Vec::new();
    let mut judged_by: Option<String> = None;
    let mut scorers: Vec<String> = Vec::new();
    // Each readable run's rows (its own numbers: a statistics pass), then every run judged
    // once and every pair joined, on `threads` threads natively; then the rows in the order
    // given.
    let refs: Vec<RunRef> = runs
        .iter()
        .filter_map(|m| m.run.as_ref().ok().copied())
        .collect();
    let nb = all.len();
    all.extend(refs.iter().copied());
    let mut own_rows: Vec<Vec<(Own, Option<String>)>> =
        crate::par::map_items(&refs, threads, |r| entries::<FAMILIES>(r, judge, per_task));
    // (run, entry, baseline) of every pair.
    let mut jobs: Vec<(usize, usize, usize)> = Vec::new();
    for (ri, ents) in own_rows.iter().enumerate() {
        for (ei, (own, _)) in ents.iter().enumerate() {
            if let Some(bi) = baseline_for(&base, &own.task) {
                jobs.push((ri, ei, bi));
            }
        }
    }
    let pairs: Vec<(usize, usize, Option<String>)> = jobs
        .iter()
        .map(|&(ri, _, bi)| (base_run[bi], nb + ri, base[bi].3.clone()))
        .collect();
    // Each entry's own verdicts: the baselines', then the runs'.
    let own_jobs: Vec<(usize, Option<String>)> = base
        .iter()
        .zip(&base_run)
        .map(|(b, &r)| (r, b.3.clone()))
        .chain(
            own_rows
                .iter()
                .enumerate()
                .flat_map(|(ri, ents)| ents.iter().map(move |(_, j)| (nb + ri, j.clone()))),
        )
        .collect();
    let pair_settings = CompareSettings {
        // A row reads the pair's counts only: no pair keeps its texts.
        opts: crate::compare::CompareOptions {
            texts: crate::compare::PairTexts::None,
            ..settings.opts.clone()
        },
        ..settings.clone()
    };
    let (compared, rates) =
        run::compare_jobs_in::<FAMILIES>(&all, &pairs, &own_jobs, &pair_settings, (threads, false));
    let mut rates = rates.into_iter();
    for own in base
        .iter_mut()
        .map(|b| &mut b.2)
        .chain(own_rows.iter_mut().flatten().map(|e| &mut e.0))
    {
        let rate = rates.next().and_then(Result::ok).unwrap_or_default();
        (own.n_items, own.correct) = (rate.n, rate.correct);
    }
    // (row, group = its baseline's index, in Holm's family)
    let mut rows: Vec<(RunRow, Option<usize>, bool)> = base
        .iter()
        .enumerate()
        .map(|(i, (p, _, o, _))| (RunRow::of(p, o, true), Some(i), false))
        .collect();
    let mut compared = jobs.iter().zip(compared);
    let mut ri = 0;
    for m in runs {
        let Ok(_) = &m.run else {
            let why = m.run.as_ref().err().cloned().unwrap_or_default();
            rows.push((RunRow::unreadable(&m.path, &why), None, false));
            continue;
        };
        let ents = own_rows.get(ri).map(Vec::as_slice).unwrap_or_default();
        ri += 1;
        for (own, _) in ents {
            let mut row = RunRow::of(&m.path, own, false);
            let Some(bi) = baseline_for(&base, &own.task) else {
                row.note = Some(format!(
                    "no baseline run of task {}: not compared",
                    own.task.as_deref().unwrap_or("(none named)")
                ));
                rows.push((row, None, false));
                continue;
            };
            let (_, _, b_own, _) = &base[bi];
            let mut tested = false;
            match compared.next().map(|(_, c)| c) {
                Some(Ok(cmp)) => {
                    judged_by.get_or_insert_with(|| cmp.judged_by.clone());
                    if !scorers.contains(&cmp.scorer) {
                        scorers.push(cmp.scorer.clone());
                    }
                    row.pair(&cmp);
                    // The task and dataset each side names, as the pair comparison reads them.
                    let apart = crate::compare::not_comparable(
                        &(b_own.task.clone(), b_own.dataset.clone()),
                        &(own.task.clone(), own.dataset.clone()),
                    );
                    if let Some(why) = apart {
                        row.note = Some(format!(
                            "not comparable: {why} (left out of Holm's correction)"
                        ));
                        warnings.push(format!("{} and {}: {why}", b_own.name, own.name));
                    } else {
                        tested = cmp.stats.n_paired > 0 && row.mcnemar_exact_p.is_some();
                    }
                }
                Some(Err(e)) => row.note = Some(format!("not compared: {e}")),
                None => row.note = Some("not compared".to_string()),
            }
            if own.profile != b_own.profile {
                warnings.push(format!(
                    "{} was scored under {}, its baseline {} under {}",
                    own.name, own.profile, b_own.name, b_own.profile
                ));
            }
            if own.max_repeats != b_own.max_repeats {
                let epochs = |k: Option<u64>| k.map_or("1".to_string(), |k| k.to_string());
                warnings.push(format!(
                    "{} has up to {} repeats (epochs) of an item, its baseline {} {}",
                    own.name,
                    epochs(own.max_repeats),
                    b_own.name,
                    epochs(b_own.max_repeats)
                ));
            }
            if let (Some(ob), Some(or)) = (row.only_in_baseline, row.only_in_run) {
                if ob + or > 0 && row.n_paired.is_some_and(|n| n > 0) {
                    warnings.push(format!(
                        "{} and its baseline {} score different items: {ob} only in the baseline, \
                         {or} only in {}; a missing item is counted neither correct nor wrong",
                        own.name, b_own.name, own.name
                    ));
                }
            }
            rows.push((row, Some(bi), tested));
        }
    }
    if per_task {
        warnings.push(
            "the runs hold several tasks: each task is compared on its own, judged by its first \
             recorded metric (--scorer names another); cost, tokens and latency are the whole \
             run's, not split by task, and are left out of these rows"
                .to_string(),
        );
    }
    if scorers.len() > 1 && !per_task {
        warnings.push(format!(
            "the pairs were judged by different scorers: {}",
            scorers.join(", ")
        ));
    }
    // Holm's correction within each baseline's runs (one per task).
    for g in 0..base.len() {
        let idx: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].1 == Some(g) && rows[i].2)
            .collect();
        let p: Vec<f64> = idx
            .iter()
            .map(|&i| rows[i].0.mcnemar_exact_p.unwrap_or(f64::NAN))
            .collect();
        for (&i, adj) in idx.iter().zip(stats::holm(&p)) {
            rows[i].0.holm_p = Some(adj).filter(|x| !x.is_nan());
        }
        frontier(&mut rows, g);
    }
    // Baselines first in the order given, each followed by its runs best first, then the rows
    // with no baseline.
    let rank = |r: &RunRow| r.headline.map_or(f64::INFINITY, |h| -h);
    rows.sort_by(|a, b| {
        let ga = a.1.unwrap_or(usize::MAX);
        let gb = b.1.unwrap_or(usize::MAX);
        ga.cmp(&gb)
            .then(b.0.is_baseline.cmp(&a.0.is_baseline))
            .then(rank(&a.0).total_cmp(&rank(&b.0)))
            .then(a.0.run.cmp(&b.0.run))
    });
    let groups: Vec<Option<usize>> = rows.iter().map(|r| r.1).collect();
    let mut rows: Vec<RunRow> = rows.into_iter().map(|(r, _, _)| r).collect();
    label_rows(&mut rows);
    // Each compared row names its baseline by the baseline row's label (one run of several
    // tasks is several baseline rows).
    let base_labels: Vec<Option<String>> = (0..base.len())
        .map(|g| {
            rows.iter()
                .zip(&groups)
                .find(|(r, gr)| r.is_baseline && **gr == Some(g))
                .map(|(r, _)| r.label.clone())
        })
        .collect();
    for (r, g) in rows.iter_mut().zip(&groups) {
        if let (false, Some(Some(l))) = (r.is_baseline, g.and_then(|g| base_labels.get(g))) {
            if r.baseline.is_some() {
                r.baseline = Some(l.clone());
            }
        }
    }
    let grid = grid(&rows, &mut warnings);
    let reading = reading(&rows);
    Ok(ManyComparison {
        baseline: base_labels.into_iter().flatten().collect(),
        family,
        judged_by: judged_by.unwrap_or_default(),
        warnings,
        runs: rows,
        reading,
        grid,
        series: false,
    })
}

/// A series: `runs` in order (successive checkpoints or prompts), each compared with the run
/// before it of the same task — the many-runs comparison with a moving baseline: every step is
/// [`compare_many_in`] of that earlier run (baseline) and the run, so a step's numbers are that
/// call's (and `diff`'s) to the bit. Over the steps: Holm's adjustment of their McNemar p
/// (one family of tests: every step that could be tested) and the frontier of every priced
/// run. Rows in the order given (a run of several tasks: its tasks' rows); the first run of
/// each task is marked `is_baseline`, and each later row's `baseline` names the row it was
/// compared with. An unreadable run keeps its row with its note and is skipped as a baseline.
pub fn compare_series_in<const FAMILIES: FamilySet>(
    runs: &[ManyRun],
    settings: &CompareSettings,
    threads: usize,
) -> Result<ManyComparison, ManyError> {
    if runs.len() < 2 {
        return Err(ManyError::TooFew(format!(
            "{} run{} given",
            runs.len(),
            if runs.len() == 1 { "" } else { "s" }
        )));
    }
    let tasks: Vec<Option<Option<String>>> = runs
        .iter()
        .map(|m| m.run.as_ref().ok().map(|r| r.task_and_dataset().0))
        .collect();
    let mut rows: Vec<RunRow> = Vec::new();
    // Each row's baseline row; each run's rows.
    let mut base_of: Vec<Option<usize>> = Vec::new();
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); runs.len()];
    let mut warnings: Vec<String> = Vec::new();
    let mut judged_by: Option<String> = None;
    let mut family: Option<Family> = None;
    for (i, m) in runs.iter().enumerate() {
        let r = match &m.run {
            Ok(r) => *r,
            Err(why) => {
                rows_of[i].push(rows.len());
                rows.push(RunRow::unreadable(&m.path, why));
                base_of.push(None);
                continue;
            }
        };
        if let Some(f) = family.filter(|f| *f != r.family()) {
            return Err(ManyError::Families {
                baseline: runs[0].path.clone(),
                baseline_family: f,
                run: m.path.clone(),
                run_family: r.family(),
            });
        }
        family = Some(r.family());
        let before = (0..i)
            .rev()
            .find(|&j| tasks[j].is_some() && tasks[j] == tasks[i]);
        let Some(j) = before else {
            // The first run of its task: its own numbers, a baseline of the series.
            let judge = settings.qa_scorer.as_deref();
            for (mut own, j) in entries::<FAMILIES>(&r, judge, by_task::<FAMILIES>(&r, judge)) {
                let rate = r
                    .verdict_rate_in::<FAMILIES>(j.as_deref())
                    .unwrap_or_default();
                (own.n_items, own.correct) = (rate.n, rate.correct);
                rows_of[i].push(rows.len());
                rows.push(RunRow::of(&m.path, &own, true));
                base_of.push(None);
            }
            continue;
        };
        let c = compare_many_in::<FAMILIES>(
            std::slice::from_ref(&runs[j]),
            std::slice::from_ref(m),
            settings,
            threads,
        )?;
        if !c.judged_by.is_empty() {
            judged_by.get_or_insert(c.judged_by);
        }
        for w in c.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        for row in c.runs.into_iter().filter(|r| !r.is_baseline) {
            let base = rows_of[j]
                .iter()
                .copied()
                .find(|&k| rows[k].task == row.task)
                .or_else(|| rows_of[j].first().copied())
                .filter(|_| row.baseline.is_some());
            rows_of[i].push(rows.len());
            rows.push(row);
            base_of.push(base);
        }
    }
    let family = family.ok_or_else(|| ManyError::TooFew("no run could be read".to_string()))?;
    // Holm over every tested step (a step's own adjustment of one test is its p).
    let tested: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].holm_p.is_some())
        .collect();
    let p: Vec<f64> = tested
        .iter()
        .map(|&i| rows[i].mcnemar_exact_p.unwrap_or(f64::NAN))
        .collect();
    for (&i, adj) in tested.iter().zip(stats::holm(&p)) {
        rows[i].holm_p = Some(adj).filter(|x| !x.is_nan());
    }
    let mut grouped: Vec<(RunRow, Option<usize>, bool)> =
        rows.into_iter().map(|r| (r, Some(0), false)).collect();
    frontier(&mut grouped, 0);
    let mut rows: Vec<RunRow> = grouped.into_iter().map(|(r, _, _)| r).collect();
    label_rows(&mut rows);
    for (i, b) in base_of.into_iter().enumerate() {
        if let Some(j) = b {
            rows[i].baseline = Some(rows[j].label.clone());
        }
    }
    let reading = series_reading(&rows);
    Ok(ManyComparison {
        baseline: rows
            .iter()
            .filter(|r| r.is_baseline)
            .map(|r| r.label.clone())
            .collect(),
        family,
        judged_by: judged_by.unwrap_or_default(),
        warnings,
        runs: rows,
        reading,
        grid: None,
        series: true,
    })
}

/// The rows tested against their baseline, and how many of them changed up and down beyond
/// noise (Holm-adjusted p < 0.05).
fn beyond_noise(rows: &[RunRow]) -> (Vec<&RunRow>, usize, usize) {
    let tested: Vec<&RunRow> = rows.iter().filter(|r| r.holm_p.is_some()).collect();
    let sig = |r: &&RunRow, up: bool| {
        r.holm_p.is_some_and(|p| p < 0.05)
            && r.delta.is_some_and(|d| if up { d > 0.0 } else { d < 0.0 })
    };
    let up = tested.iter().filter(|r| sig(r, true)).count();
    let down = tested.iter().filter(|r| sig(r, false)).count();
    (tested, up, down)
}

/// The steps of a series — run `i` against run `i + 1` — as whole pair comparisons (metrics,
/// the pairs' texts as `settings` keeps them), `None` for a step with a run not held: the
/// moving baseline's pairs through the one pairing of this layer (`run::compare_jobs_in`),
/// each equal to [`run::compare_in`] of that pair. [`crate::series::series_in`] lays them out.
pub fn series_steps_in<const FAMILIES: FamilySet>(
    runs: &[Option<RunRef>],
    settings: &CompareSettings,
) -> Vec<Option<Result<RunComparison, run::CompareError>>> {
    let held: Vec<(usize, RunRef)> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.map(|r| (i, r)))
        .collect();
    let pos = |i: usize| held.iter().position(|(k, _)| *k == i);
    let refs: Vec<RunRef> = held.iter().map(|(_, r)| *r).collect();
    let steps = runs.len().saturating_sub(1);
    let mut jobs: Vec<(usize, usize, Option<String>)> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    for i in 0..steps {
        if let (Some(b), Some(c)) = (pos(i), pos(i + 1)) {
            jobs.push((b, c, settings.qa_scorer.clone()));
            at.push(i);
        }
    }
    let (compared, _) = run::compare_jobs_in::<FAMILIES>(&refs, &jobs, &[], settings, (1, true));
    let mut out: Vec<Option<Result<RunComparison, run::CompareError>>> =
        (0..steps).map(|_| None).collect();
    for (i, c) in at.into_iter().zip(compared) {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(c);
        }
    }
    out
}

/// A series in one sentence: how many steps improved on (and fell behind) the run before
/// them after Holm's correction over the steps at 5%.
fn series_reading(rows: &[RunRow]) -> String {
    let steps = rows.iter().filter(|r| !r.is_baseline).count();
    let (tested, up, down) = beyond_noise(rows);
    let mut text = format!(
        "{up} of {} step{} improved on the run before and {down} fell behind, after Holm's \
         correction over the steps",
        tested.len(),
        if tested.len() == 1 { "" } else { "s" }
    );
    if up == 0 && down == 0 && !tested.is_empty() {
        text.push_str(" (no step's change is beyond noise at 5%)");
    }
    if tested.len() < steps {
        text.push_str(&format!("; {} not tested", steps - tested.len()));
    }
    text.push('.');
    text
}

/// Names every row apart: its run's name when no other row has it, else `name · task`, else
/// `name · model` when that is unique, else `name · path`, else `name · path · #i` (the row's
/// place).
pub fn label_rows(rows: &mut [RunRow]) {
    let count = |rows: &[RunRow], f: &dyn Fn(&RunRow) -> String, r: &RunRow| {
        let me = f(r);
        rows.iter().filter(|o| f(o) == me).count()
    };
    let by_name = |r: &RunRow| r.run.clone();
    let by_task = |r: &RunRow| format!("{} · {}", r.run, r.task.as_deref().unwrap_or("?"));
    let by_model = |r: &RunRow| format!("{} · {}", r.run, r.model.as_deref().unwrap_or("?"));
    let by_path = |r: &RunRow| format!("{} · {}", r.run, r.path);
    let labels: Vec<String> = (0..rows.len())
        .map(|i| {
            let r = &rows[i];
            if count(rows, &by_name, r) == 1 {
                by_name(r)
            } else if r.task.is_some() && count(rows, &by_task, r) == 1 {
                by_task(r)
            } else if r.model.is_some() && count(rows, &by_model, r) == 1 {
                by_model(r)
            } else if count(rows, &by_path, r) == 1 {
                by_path(r)
            } else {
                format!("{} · #{}", by_path(r), i + 1)
            }
        })
        .collect();
    for (r, l) in rows.iter_mut().zip(labels) {
        r.label = l;
    }
}

/// [`compare_many_in`] for runs of every family.
pub fn compare_many(
    baselines: &[ManyRun],
    runs: &[ManyRun],
    settings: &CompareSettings,
    threads: usize,
) -> Result<ManyComparison, ManyError> {
    compare_many_in::<{ run::ALL_FAMILIES }>(baselines, runs, settings, threads)
}

/// [`compare_series_in`] for runs of every family.
pub fn compare_series(
    runs: &[ManyRun],
    settings: &CompareSettings,
    threads: usize,
) -> Result<ManyComparison, ManyError> {
    compare_series_in::<{ run::ALL_FAMILIES }>(runs, settings, threads)
}

/// `a` dominates `b`: at least as good a headline and at most as costly per correct item, and
/// strictly better on one of the two.
pub fn dominates(a: (f64, f64), b: (f64, f64)) -> bool {
    let ((ha, ca), (hb, cb)) = (a, b);
    ha >= hb && ca <= cb && (ha > hb || ca < cb)
}

/// Marks the priced runs of group `g` (baseline included) that no other priced run of the group
/// dominates; unpriced runs keep `on_frontier: None`.
fn frontier(rows: &mut [(RunRow, Option<usize>, bool)], g: usize) {
    let point = |r: &RunRow| r.headline.zip(r.cost_per_correct_usd);
    let priced: Vec<(usize, (f64, f64))> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.1 == Some(g))
        .filter_map(|(i, r)| point(&r.0).map(|p| (i, p)))
        .collect();
    for &(i, p) in &priced {
        rows[i].0.on_frontier = Some(!priced.iter().any(|&(j, q)| j != i && dominates(q, p)));
    }
}

/// The grid of the rows' models × tasks, when the readable runs name both and span at least two
/// tasks and two models; a second run of one model on one task is left out with a warning.
fn grid(rows: &[RunRow], warnings: &mut Vec<String>) -> Option<Grid> {
    let named: Vec<(usize, &str, &str)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.n_items.is_some())
        .filter_map(|(i, r)| Some((i, r.model.as_deref()?, r.task.as_deref()?)))
        .collect();
    let mut tasks: Vec<&str> = Vec::new();
    let mut models: Vec<&str> = Vec::new();
    for (_, m, t) in &named {
        if !tasks.contains(t) {
            tasks.push(t);
        }
        if !models.contains(m) {
            models.push(m);
        }
    }
    if tasks.len() < 2 || models.len() < 2 {
        return None;
    }
    let baseline_model = rows.iter().find(|r| r.is_baseline)?.model.clone()?;
    let mut out: Vec<GridRow> = Vec::new();
    for model in &models {
        let mut cells: Vec<Option<GridCell>> = vec![None; tasks.len()];
        let (mut correct, mut n) = (0u64, 0u64);
        for &(i, m, t) in named.iter().filter(|(_, m, _)| m == model) {
            let Some(ti) = tasks.iter().position(|x| *x == t) else {
                continue;
            };
            if cells[ti].is_some() {
                warnings.push(format!(
                    "two runs of {m} on {t}: the grid shows the first, {} is left out of it",
                    rows[i].run
                ));
                continue;
            }
            let r = &rows[i];
            correct += r.correct.unwrap_or(0);
            n += r.n_items.unwrap_or(0);
            cells[ti] = Some(GridCell {
                row: i,
                headline: r.headline,
                ci95: r.ci95,
                delta: r.delta,
                holm_p: r.holm_p,
            });
        }
        let headlines: Vec<f64> = cells
            .iter()
            .filter_map(|c| c.as_ref().and_then(|c| c.headline))
            .collect();
        out.push(GridRow {
            model: model.to_string(),
            micro: (n > 0).then(|| correct as f64 / n as f64),
            macro_mean: (headlines.len() == tasks.len())
                .then(|| headlines.iter().sum::<f64>() / headlines.len() as f64),
            cells,
        });
    }
    Some(Grid {
        baseline_model,
        tasks: tasks.iter().map(|t| t.to_string()).collect(),
        models: out,
    })
}

/// The comparison in one sentence: how many runs beat (and fall behind) their baseline after
/// Holm's correction at 5%, and the cheapest priced run within 1 point of the best headline.
pub fn reading(rows: &[RunRow]) -> String {
    let (tested, beat, behind) = beyond_noise(rows);
    let others = rows.iter().filter(|r| !r.is_baseline).count();
    let mut text = if tested.is_empty() {
        format!(
            "None of the {others} run{} could be tested against its baseline (no items in common, or not comparable)",
            if others == 1 { "" } else { "s" }
        )
    } else {
        let mut t = format!(
            "{beat} of {} run{} beat the baseline after Holm's correction",
            tested.len(),
            if tested.len() == 1 { "" } else { "s" }
        );
        if behind > 0 {
            t.push_str(&format!(
                " and {behind} fall{} behind it",
                if behind == 1 { "s" } else { "" }
            ));
        }
        if beat == 0 && behind == 0 {
            t.push_str(" (no difference is beyond noise at 5%)");
        }
        if tested.len() < others {
            t.push_str(&format!("; {} not tested", others - tested.len()));
        }
        t
    };
    // Within one point of the best among the priced runs of one task.
    let tasks: Vec<&Option<String>> = rows.iter().map(|r| &r.task).collect();
    let one_task = tasks.windows(2).all(|w| w[0] == w[1]);
    let priced: Vec<&RunRow> = rows
        .iter()
        .filter(|r| r.headline.is_some() && r.cost_per_correct_usd.is_some())
        .collect();
    if one_task {
        let best = priced
            .iter()
            .filter_map(|r| r.headline)
            .fold(f64::NEG_INFINITY, f64::max);
        let cheapest = priced
            .iter()
            .filter(|r| r.headline.is_some_and(|h| h >= best - 0.01))
            .min_by(|a, b| {
                a.cost_per_correct_usd
                    .unwrap_or(f64::INFINITY)
                    .total_cmp(&b.cost_per_correct_usd.unwrap_or(f64::INFINITY))
            });
        if let Some(c) = cheapest {
            text.push_str(&format!(
                "; the cheapest run within 1 point of the best is {} (${:.6} per correct item)",
                c.run,
                c.cost_per_correct_usd.unwrap_or_default()
            ));
        }
    }
    text.push('.');
    text
}

impl ManyComparison {
    /// The comparison as `evalboard compare --json` prints it and the report embeds it.
    pub fn to_json(&self) -> Value {
        let pair = |x: Option<(f64, f64)>| x.map(|(low, high)| json!({"low": low, "high": high}));
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|r| {
                json!({
                    "run": r.run,
                    "label": r.label,
                    "path": r.path,
                    "model": r.model,
                    "task": r.task,
                    "dataset": r.dataset,
                    "is_baseline": r.is_baseline,
                    "baseline": r.baseline,
                    "n_items": r.n_items,
                    "correct": r.correct,
                    "headline": r.headline,
                    "headline_label": r.headline_label,
                    "ci95": pair(r.ci95),
                    "ci_method": r.ci_method.name(),
                    "n_paired": r.n_paired,
                    "only_in_baseline": r.only_in_baseline,
                    "only_in_run": r.only_in_run,
                    "regressed": r.regressed,
                    "improved": r.improved,
                    "delta": r.delta,
                    "bootstrap_ci": r.bootstrap_ci.as_ref().map(|b| json!({
                        "low": b.low,
                        "high": b.high,
                        "resamples": b.resamples,
                        "seed": b.seed,
                        "method": stats::BOOTSTRAP_METHOD,
                    })),
                    "mcnemar_exact_p": r.mcnemar_exact_p,
                    "holm_p": r.holm_p,
                    "cost_usd": r.cost_usd,
                    "cost_per_correct_usd": r.cost_per_correct_usd,
                    "tokens": r.tokens,
                    "tokens_per_correct": r.tokens_per_correct,
                    "latency_mean_s": r.latency_mean_s,
                    "on_frontier": r.on_frontier,
                    "note": r.note,
                })
            })
            .collect();
        let grid = self.grid.as_ref().map(|g| {
            json!({
                "baseline_model": g.baseline_model,
                "tasks": g.tasks,
                "micro_method": "Σ correct ÷ Σ items over the model's tasks",
                "macro_method": "unweighted mean of the task headlines; only when the model has every task",
                "models": g.models.iter().map(|m| json!({
                    "model": m.model,
                    "micro": m.micro,
                    "macro": m.macro_mean,
                    "cells": m.cells.iter().map(|c| c.as_ref().map(|c| json!({
                        "run": self.runs.get(c.row).map(|r| r.label.clone()),
                        "headline": c.headline,
                        "ci95": pair(c.ci95),
                        "delta": c.delta,
                        "holm_p": c.holm_p,
                    }))).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        });
        let mut out = json!({
            "baseline": if self.baseline.len() == 1 { json!(self.baseline[0]) } else { json!(self.baseline) },
            "family": self.family,
            "judged_by": self.judged_by,
            "multiple_testing": "holm",
            "reading": self.reading,
            "warnings": self.warnings,
            "runs": runs,
            "grid": grid,
        });
        // A series says so (a comparison against one baseline prints as before).
        if let (true, Some(obj)) = (self.series, out.as_object_mut()) {
            obj.insert("series".into(), json!(true));
        }
        out
    }
}
