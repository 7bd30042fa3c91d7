//! An evaluation-tool log as a registered run ([`crate::run`]): the log as read
//! ([`LoadedLog`]), its items judged by the run's headline score ([`ScoredLog`]) and, under a
//! re-scorer ([`super::rescore`]), judged again from their outputs and targets; the recorded
//! numbers beside the recomputed ones ([`Mismatch`]), the headline table ([`HEADLINE`]) and the
//! run's metadata.
//!
//! As recorded (the default), the tool's own scores are read and the tool's headline aggregates
//! are recomputed from them ([`super::model::Headline`]). An item's verdict is the
//! headline score's 0–1 reading: Inspect — the score named by `results.headline`, else the first
//! scorer of `results.scores`, per (sample id, epoch); lm-eval — the first task's first metric
//! under its first filter, per (task, doc_id, filter); promptfoo — the row's `success`, per
//! (test, column, repeat); OpenAI Evals — the `accuracy` of the final report (the `match` event's
//! `correct`, or the `metrics` events' `accuracy`), per sample id; HELM — the main metric's
//! per-instance mean, per (instance, perturbation, train trial). Correct = the reading is 1; an
//! errored or unscored (NaN) sample has no verdict.
//!
//! Re-scored ([`EvalLogOptions::scorer`]), the same items (every sample when the log names no
//! headline score) are judged by the re-scorer from each sample's output and targets; an errored
//! sample, one without output or without a usable target has no verdict. The verdicts as
//! originally scored are kept beside them ([`ScoredLog::items`], [`ScoredLog::disagreements`]).

use crate::accounting::{FileStatus, InputFileReport, LoadError};
use crate::diag::Diagnostic;
use crate::headline::{Metric, Shown};
use crate::input::RunInput;
use crate::prices::PriceTable;
use crate::run_meta::{plural, RunMeta};

use super::model::{EvalLogRun, Headline, MetricKey, Sample, SampleKey, ScoreEntry, Tool};
use super::rescore::{EvalLogOptions, Rescorer};

/// Recorded and recomputed numbers further apart than this are a mismatch.
pub const TOLERANCE: f64 = 1e-9;

/// A log read as one run: its name, the run, every file's status and the diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedLog {
    pub name: String,
    pub run: EvalLogRun,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the logs of `input` as one run ([`super::read()`]). A folder holding several logs is
/// read as its first one (by path), with a warning naming the others: each is scored on its
/// own. `Err` only when no log could be read.
pub fn read_log(input: &RunInput) -> Result<LoadedLog, LoadError> {
    let read = super::read(&input.files)?;
    let mut diagnostics = read.diagnostics;
    let mut runs = read.runs;
    runs.sort_by(|a, b| a.files.cmp(&b.files));
    let mut runs = runs.into_iter();
    let Some(run) = runs.next() else {
        return Err(LoadError {
            message: "no evaluation-tool log could be read".into(),
            files: read.files,
            diagnostics,
        });
    };
    let mut files = read.files;
    for other in runs {
        let first = other.files.first().cloned().unwrap_or_default();
        diagnostics.push(Diagnostic::warning(
            first.as_str(),
            None,
            format!(
                "a second log in this folder ({} run of {}): only {} is scored here; score each \
                 log on its own",
                other.tool.label(),
                other.task.as_deref().unwrap_or("an unnamed task"),
                run.files
                    .first()
                    .map(String::as_str)
                    .unwrap_or("the first log"),
            ),
        ));
        for f in files.iter_mut().filter(|f| other.files.contains(&f.path)) {
            f.status = FileStatus::Skipped;
            f.reason = Some("another log of the folder is the run scored here".into());
        }
    }
    Ok(LoadedLog {
        name: input.name.clone(),
        run,
        files,
        diagnostics,
    })
}

/// The log of one file, `path` (`bytes` bytes, read as `format`), as [`read_log`] gives a folder
/// of that file alone, named `name`: its run (every recorded number not recomputed given its
/// reason) and the diagnostics its reader gave, the file's status from its own. A watched
/// file's run so far is built with it from what was already parsed ([`crate::run::live`]), and
/// the dashboard's big `.eval` read by slices.
pub fn one_file_log(
    name: &str,
    (path, bytes, format): (&str, u64, &str),
    mut run: EvalLogRun,
    diagnostics: Vec<Diagnostic>,
) -> LoadedLog {
    run.explain_not_recomputed();
    let own: Vec<Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.file == path)
        .cloned()
        .collect();
    let (status, reason) = crate::accounting::status_of(&own);
    LoadedLog {
        name: name.to_string(),
        run,
        files: vec![InputFileReport {
            path: path.to_string(),
            bytes,
            format: Some(format.to_string()),
            status,
            reason,
        }],
        diagnostics,
    }
}

/// The name of the part of folder `name` whose first file is `first` ([`split_logs`]).
pub fn part_name(name: &str, first: &str) -> String {
    format!("{name}/{first}")
}

/// A folder of several logs as one input per log (an Inspect log, a promptfoo export or an
/// OpenAI Evals record file alone; an lm-eval results file with its samples files, paired as
/// [`super::lm_eval_pair::pair`] pairs them; a HELM run folder), named `folder/file`; a file of
/// no log goes with the log of its own folder (the first log when none shares a folder with
/// it). An lm-eval samples file a results file nearly took goes with the results file it nearly went
/// with, else with the first log that is not an lm-eval one, else on its own, so that its part
/// reads it as unmatched again; those of a task no results file records are a log per folder
/// and date id. One log (or none) gives `input` back whole.
pub fn split_logs(input: RunInput) -> Vec<RunInput> {
    use super::sniff::EvalLogFileKind as K;
    let kinds: Vec<Option<K>> = input.files.iter().map(super::sniff).collect();
    let of_kind = |kind: K| -> Vec<&crate::input::InputFile> {
        input
            .files
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == Some(kind))
            .map(|(f, _)| f)
            .collect()
    };
    let pairing = super::lm_eval_pair::pair(&of_kind(K::LmEvalResults), &of_kind(K::LmEvalSamples));
    let index_of = |paths: &[&crate::input::InputFile]| -> Vec<usize> {
        input
            .files
            .iter()
            .enumerate()
            .filter_map(|(j, x)| paths.iter().any(|m| m.path == x.path).then_some(j))
            .collect()
    };
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // The groups holding an lm-eval results file, by its index.
    let mut lm_groups: Vec<(usize, usize)> = Vec::new();
    for (i, (f, k)) in input.files.iter().zip(&kinds).enumerate() {
        match k {
            Some(K::InspectEval | K::InspectJson)
            | Some(K::PromptfooJson | K::PromptfooJsonl | K::OpenaiEvalsJsonl) => {
                groups.push(vec![i])
            }
            Some(K::LmEvalResults) => {
                let mine = pairing.samples_of(&f.path);
                let mut g = vec![i];
                g.extend(index_of(&mine));
                lm_groups.push((i, groups.len()));
                groups.push(g);
            }
            _ => {}
        }
    }
    for folder in super::read::helm_folders(&input.files, &kinds) {
        groups.push(index_of(&folder));
    }
    // Samples files of a task no results file records: each folder and date id is a log.
    let alone: Vec<&crate::input::InputFile> = pairing
        .unmatched
        .iter()
        .filter(|u| u.near.is_none())
        .map(|u| u.file)
        .collect();
    for run in super::lm_eval_pair::lone_runs(&alone) {
        groups.push(index_of(&run));
    }
    if groups.len() <= 1 {
        return vec![input];
    }
    let mut lone: Vec<usize> = Vec::new();
    for u in pairing.unmatched.iter().filter(|u| u.near.is_some()) {
        let near = u.near.and_then(|r| {
            let ri = index_of(&[r]).first().copied()?;
            lm_groups.iter().find(|(i, _)| *i == ri).map(|(_, g)| *g)
        });
        let other = (0..groups.len()).find(|g| lm_groups.iter().all(|(_, l)| l != g));
        let i = index_of(&[u.file]);
        match near.or(other).and_then(|g| groups.get_mut(g)) {
            Some(g) => g.extend(i),
            None => lone.extend(i),
        }
    }
    if !lone.is_empty() {
        groups.push(lone);
    }
    let mut claimed = vec![false; input.files.len()];
    for g in &groups {
        for &i in g {
            if let Some(c) = claimed.get_mut(i) {
                *c = true;
            }
        }
    }
    // A file of no log goes with the log of its own folder (the nearest; the first on a tie),
    // so each log of a folder of folders lists its own folder's other files.
    let rest: Vec<usize> = (0..input.files.len()).filter(|i| !claimed[*i]).collect();
    for i in rest {
        let path = input.files.get(i).map_or("", |f| f.path.as_str());
        let to = crate::input::nearest_group(
            path,
            groups.iter().map(|g| {
                g.iter()
                    .filter_map(|&j| input.files.get(j).map(|f| f.path.as_str()))
            }),
        );
        if let Some(g) = groups.get_mut(to) {
            g.push(i);
        }
    }
    let name = input.name;
    let mut files: Vec<Option<crate::input::InputFile>> =
        input.files.into_iter().map(Some).collect();
    groups
        .into_iter()
        .map(|g| {
            let taken: Vec<crate::input::InputFile> = g
                .iter()
                .filter_map(|&i| files.get_mut(i).and_then(Option::take))
                .collect();
            let first = taken.first().map_or("", |f| f.path.as_str());
            RunInput::new(part_name(&name, first), taken)
        })
        .filter(|r| !r.files.is_empty())
        .collect()
}

/// One item judged by the headline score.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemVerdict {
    /// The tool's item key as text parts ([`key_parts`]).
    pub key: Vec<String>,
    /// Index into the run's samples.
    pub sample: usize,
    /// The headline score's 0–1 reading (`None`: unscored or errored).
    pub reading: Option<f64>,
    /// `reading == 1`; `None` when there is no reading.
    pub correct: Option<bool>,
}

impl ItemVerdict {
    /// Sample `sample` (its index in the run) with its 0–1 `reading`: correct when it is 1.
    pub(crate) fn of(sample: usize, s: &Sample, reading: Option<f64>) -> ItemVerdict {
        ItemVerdict {
            key: key_parts(&s.key),
            sample,
            reading,
            correct: reading.map(|r| r == 1.0),
        }
    }
}

/// A headline number the log recorded that evalboard's recomputation does not reproduce.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub metric: String,
    pub recorded: Option<f64>,
    pub recomputed: Option<f64>,
    /// The log file it was recorded in.
    pub file: String,
}

/// A log with its items judged by the headline score (as originally scored) and, under a
/// re-scorer, judged again.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredLog {
    pub log: LoadedLog,
    /// The score items are judged by as recorded (`None`: the log names none and has no score).
    pub verdict_by: Option<MetricKey>,
    /// The items as originally scored: judged by `verdict_by`.
    pub items: Vec<ItemVerdict>,
    /// The items judged by a re-scorer, when one is set.
    pub rescored: Option<Rescored>,
    /// The samples' tokens and cost under the price table ([`super::billing`]).
    pub billing: super::billing::Billing,
    /// The `k` of pass@k the repeats' summary shows ([`EvalLogOptions::pass_k`]).
    pub pass_k: Option<u64>,
}

/// A log's items judged by a re-scorer.
#[derive(Debug, Clone, PartialEq)]
pub struct Rescored {
    pub by: Rescorer,
    /// `by`'s id (`match@v1`, `numeric@v1+rel0.02`).
    pub id: String,
    pub items: Vec<ItemVerdict>,
}

/// Judges the log's items by its headline score and, when `opts` names a re-scorer, by it;
/// bills its samples under `prices`.
pub fn score_log(mut log: LoadedLog, opts: &EvalLogOptions, prices: &PriceTable) -> ScoredLog {
    log.run.explain_not_recomputed();
    let verdict_by = log.run.primary.clone();
    let items = match &verdict_by {
        Some(key) => verdicts(&log.run, key),
        None => Vec::new(),
    };
    let billing = super::billing::bill(&log.run, prices);
    let mut scored = ScoredLog {
        log,
        verdict_by,
        items,
        rescored: None,
        billing,
        pass_k: None,
    };
    scored.rescore(opts);
    scored
}

/// The items `by` judges in `run`: the samples `key`'s score is computed over (every sample
/// without a key), each judged from its output and targets; an errored sample has no verdict.
pub fn rescored_verdicts(
    run: &EvalLogRun,
    key: Option<&MetricKey>,
    by: &Rescorer,
) -> Vec<ItemVerdict> {
    run.samples
        .iter()
        .enumerate()
        .filter(|(_, s)| key.is_none_or(|k| in_slice(s, k)))
        .map(|(i, s)| {
            let reading = if s.error.is_some() {
                None
            } else {
                by.score(s.output.as_deref(), &s.target)
                    .filter(|r| r.is_finite())
            };
            ItemVerdict::of(i, s, reading)
        })
        .collect()
}

/// The item key of a sample, typed: what a comparison pairs it on and the dashboard opens it by.
pub fn item_key(key: &SampleKey) -> crate::run_table::ItemKey {
    crate::run_table::ItemKey::from_parts(&key_parts(key))
}

/// The index of the first sample of `run` whose item key is `key` (the one a comparison pairs).
pub fn sample_of(run: &EvalLogRun, key: &crate::run_table::ItemKey) -> Option<usize> {
    run.samples.iter().position(|s| item_key(&s.key) == *key)
}

/// Every sample of `run` by its item key, the first of a key as [`sample_of`] finds it: for many
/// lookups, where [`sample_of`] scans the samples each time.
pub fn sample_index(
    run: &EvalLogRun,
) -> std::collections::HashMap<crate::run_table::ItemKey, usize> {
    let mut index = std::collections::HashMap::with_capacity(run.samples.len());
    for (i, s) in run.samples.iter().enumerate() {
        index.entry(item_key(&s.key)).or_insert(i);
    }
    index
}

/// The item key of a sample as text parts.
pub fn key_parts(key: &SampleKey) -> Vec<String> {
    match key {
        // Inspect's `1` and `"1"` are different samples: a string id that reads as an int is
        // quoted, so the two keys stay apart.
        SampleKey::Inspect { id, epoch } => {
            let id = match id {
                super::SampleId::Str(s) if s.parse::<i64>().is_ok() => format!("{s:?}"),
                other => other.label(),
            };
            vec![id, epoch.to_string()]
        }
        SampleKey::LmEval {
            task,
            doc_id,
            filter,
        } => vec![task.clone(), doc_id.to_string(), filter.clone()],
        SampleKey::Promptfoo {
            test,
            prompt,
            repeat,
        } => vec![test.clone(), prompt.clone(), repeat.to_string()],
        SampleKey::OpenaiEvals { sample_id } => vec![sample_id.clone()],
        SampleKey::Helm {
            instance,
            perturbation,
            trial,
        } => vec![
            instance.clone(),
            perturbation.clone().unwrap_or_default(),
            trial.to_string(),
        ],
        SampleKey::Evalboard { parts } => parts.clone(),
    }
}

/// Whether `sample` belongs to the slice `key` is computed over (lm-eval: its task and filter).
pub(crate) fn in_slice(sample: &Sample, key: &MetricKey) -> bool {
    match &sample.key {
        SampleKey::LmEval { task, filter, .. } => {
            *task == key.group && key.variant.as_deref().is_none_or(|v| v == filter)
        }
        // promptfoo: a column's headline is computed over that column's rows.
        SampleKey::Promptfoo { .. } if !key.group.is_empty() => sample
            .metadata
            .get("column")
            .is_some_and(|c| *c == super::json::compact(&key.group.clone().into())),
        // HELM: a split's headline over that split's instances.
        SampleKey::Helm { .. } => sample
            .metadata
            .get("split")
            .is_none_or(|s| *s == super::json::compact(&key.group.clone().into())),
        _ => true,
    }
}

/// Whether an errored sample keeps the verdict the tool recorded for it: OpenAI Evals records a
/// `match` event beside an `error` event and counts it in its accuracy (issue 16's contract);
/// the other tools' errored samples have no verdict.
fn errored_keeps_verdict(sample: &Sample) -> bool {
    // evalboard's rows: the exported verdict stands (a failed numeric QA conversation's turns
    // were judged wrong by the family that exported them).
    matches!(
        sample.key,
        SampleKey::OpenaiEvals { .. } | SampleKey::Evalboard { .. }
    )
}

/// Whether the tool's headline counts an errored sample as a wrong one: promptfoo's pass rate is
/// `successes / (successes + failures + errors)`; evalboard's accuracy counts only the samples
/// with a verdict.
fn tool_counts_errored_as_wrong(tool: Tool) -> bool {
    tool == Tool::Promptfoo
}

/// The reading of `key`'s score in `sample`: Inspect names a score `scorer` or `scorer:key`.
pub(crate) fn reading_of(sample: &Sample, key: &MetricKey) -> Option<f64> {
    if sample.error.is_some() && !errored_keeps_verdict(sample) {
        return None;
    }
    entry_of(sample, key)
        .and_then(|e| e.reading)
        .filter(|r| r.is_finite())
}

/// The score entry of `sample` that `key` names. evalboard's run rows name each score by the
/// label of the tool's own key (`match[mean]/accuracy`): a key of the tool that wrote the log
/// names that entry too, so a run read from a lake pairs with its original log.
fn entry_of<'a>(sample: &'a Sample, key: &MetricKey) -> Option<&'a ScoreEntry> {
    let label = (!key.metric.is_empty() && matches!(sample.key, SampleKey::Evalboard { .. }))
        .then(|| key.label());
    sample.scores.iter().find(|e| {
        let name = e.score_name();
        key.scorer == name
            || key.scorer == e.scorer
            || key
                .scorer
                .split_once(':')
                .is_some_and(|(s, n)| s == e.scorer && n == name)
            || label.as_deref() == Some(name)
    })
}

/// Why `sample` was judged as it was, in the tool's words: the explanation of the score `key`
/// names (the headline: Inspect's scorer `explanation`, promptfoo's grading `reason`), else the
/// first explanation any of its scores records; `None` when it records none (lm-eval, HELM,
/// OpenAI Evals record none).
pub fn reason_of<'a>(sample: &'a Sample, key: Option<&MetricKey>) -> Option<&'a str> {
    let nonempty = |e: &'a ScoreEntry| e.explanation.as_deref().filter(|x| !x.trim().is_empty());
    key.and_then(|k| entry_of(sample, k))
        .and_then(nonempty)
        .or_else(|| sample.scores.iter().find_map(nonempty))
}

/// Every sample of `key`'s slice, judged by its score.
pub fn verdicts(run: &EvalLogRun, key: &MetricKey) -> Vec<ItemVerdict> {
    run.samples
        .iter()
        .enumerate()
        .filter(|(_, s)| in_slice(s, key))
        .map(|(i, s)| ItemVerdict::of(i, s, reading_of(s, key)))
        .collect()
}

/// The headline numbers whose recorded value the recomputation does not reproduce: both present
/// and more than [`TOLERANCE`] apart. A number the log did not record, or one that was not
/// recomputed ([`not_recomputed`]), is no mismatch.
pub fn mismatches(run: &EvalLogRun) -> Vec<Mismatch> {
    let file = run.files.first().cloned().unwrap_or_default();
    run.headlines
        .iter()
        .filter(|h| h.disagrees(TOLERANCE))
        .map(|h| Mismatch {
            metric: h.key.label(),
            recorded: h.recorded,
            recomputed: h.recomputed,
            file: file.clone(),
        })
        .collect()
}

/// A recorded number that was not recomputed, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct NotRecomputed {
    pub metric: String,
    pub recorded: Option<f64>,
    pub reason: String,
}

/// The recorded headline numbers that were not recomputed (no samples for them, an unsupported
/// reducer or aggregation, a corpus-level metric), each with its reason: a state of its own,
/// never a [`Mismatch`].
pub fn not_recomputed(run: &EvalLogRun) -> Vec<NotRecomputed> {
    run.headlines
        .iter()
        .filter(|h| h.recorded.is_some())
        .filter_map(|h| {
            Some(NotRecomputed {
                metric: h.key.label(),
                recorded: h.recorded,
                reason: h.not_recomputed_reason()?.to_string(),
            })
        })
        .collect()
}

/// The headline of `key` (the same metric's recorded and recomputed value).
pub fn headline_of<'a>(run: &'a EvalLogRun, key: &MetricKey) -> Option<&'a Headline> {
    run.headlines.iter().find(|h| h.key == *key)
}

/// What a CI of `value` is computed from when it is the mean of `readings` (independent
/// items): their counts when every reading is 0 or 1 (a proportion), else their `sd / √n`;
/// neither when `value` is not their mean (to 1e-9) or there is none.
fn spread(
    readings: &[f64],
    value: Option<f64>,
) -> (Option<crate::stats::Rate>, Option<crate::run_table::Stderr>) {
    let m = crate::stats::Moments::of(readings);
    let same = match (value, m.mean()) {
        (Some(v), Some(m)) => (m - v).abs() <= 1e-9,
        _ => false,
    };
    if !same {
        return (None, None);
    }
    if readings.iter().all(|r| *r == 0.0 || *r == 1.0) {
        let ones = readings.iter().filter(|r| **r == 1.0).count() as u64;
        return (
            Some(crate::stats::Rate::new(ones, readings.len() as u64)),
            None,
        );
    }
    (
        None,
        m.stderr().map(|value| crate::run_table::Stderr {
            value,
            clustered_by_item: false,
        }),
    )
}

/// The mean reading and the share of readings that are 1 over `items` with a verdict; `None`
/// for no verdict.
/// Items with a verdict, and of them the correct ones: the one accuracy rule of the statistics,
/// the comparison and the dashboard.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub judged: usize,
    pub correct: usize,
}

impl Tally {
    pub fn of(items: &[ItemVerdict]) -> Tally {
        let mut t = Tally::default();
        for c in items.iter().filter_map(|i| i.correct) {
            t.judged += 1;
            t.correct += usize::from(c);
        }
        t
    }

    /// correct / judged; `None` when nothing was judged.
    pub fn accuracy(&self) -> Option<f64> {
        (self.judged > 0).then(|| self.correct as f64 / self.judged as f64)
    }
}

pub fn mean_and_accuracy(items: &[ItemVerdict]) -> (Option<f64>, Option<f64>) {
    let readings: Vec<f64> = items.iter().filter_map(|i| i.reading).collect();
    if readings.is_empty() {
        return (None, None);
    }
    let n = readings.len() as f64;
    let correct = readings.iter().filter(|r| **r == 1.0).count() as f64;
    (Some(readings.iter().sum::<f64>() / n), Some(correct / n))
}

impl ScoredLog {
    /// Why sample `index` was judged as it was, in its tool's words ([`reason_of`] under the
    /// headline score the log is judged by as recorded).
    pub fn reason(&self, index: usize) -> Option<&str> {
        reason_of(self.log.run.samples.get(index)?, self.verdict_by.as_ref())
    }

    /// Bills the samples again under `prices` (the dashboard's Settings).
    pub fn reprice(&mut self, prices: &PriceTable) {
        self.billing = super::billing::bill(&self.log.run, prices);
    }

    /// The run's cost over the items judged correct (re-scored under a re-scorer, else as
    /// recorded); `None` without a cost in dollars or without a correct item.
    pub fn cost_per_correct(&self) -> Option<f64> {
        self.billing
            .cost_per_correct(Tally::of(self.judged()).correct)
    }

    /// Judges the items again under `opts` (the verdicts as originally scored stay as they are).
    pub fn rescore(&mut self, opts: &EvalLogOptions) {
        self.pass_k = opts.pass_k;
        self.rescored = opts.rescorer().map(|by| Rescored {
            id: by.id(),
            items: rescored_verdicts(&self.log.run, self.verdict_by.as_ref(), &by),
            by,
        });
    }

    /// The verdicts items are judged by: re-scored under a re-scorer, else as recorded.
    pub fn judged(&self) -> &[ItemVerdict] {
        match &self.rescored {
            Some(r) => &r.items,
            None => &self.items,
        }
    }

    /// What judges the items, by name: the re-scorer's id, else the headline score's label.
    pub fn judged_by(&self) -> Option<String> {
        match &self.rescored {
            Some(r) => Some(r.id.clone()),
            None => self.verdict_by.as_ref().map(MetricKey::label),
        }
    }

    /// The samples (indices into the run's samples) whose verdict the re-scorer flips: judged
    /// both as recorded and re-scored, correct in one and not in the other. Empty when nothing is
    /// re-scored.
    pub fn disagreements(&self) -> Vec<usize> {
        let Some(r) = &self.rescored else {
            return Vec::new();
        };
        let recorded: std::collections::HashMap<usize, bool> = self
            .items
            .iter()
            .filter_map(|i| i.correct.map(|c| (i.sample, c)))
            .collect();
        r.items
            .iter()
            .filter_map(|i| {
                let was = recorded.get(&i.sample)?;
                (i.correct? != *was).then_some(i.sample)
            })
            .collect()
    }

    /// The re-scored value: the mean of the re-scorer's readings over the items it judged (its
    /// accuracy; for `f1@v1` the mean F1, as Inspect's `f1()` reports it). `None` as recorded.
    pub fn rescored_value(&self) -> Option<f64> {
        mean_and_accuracy(&self.rescored.as_ref()?.items).0
    }

    /// The run's number: the re-scored value under a re-scorer, else the headline score
    /// recomputed from the samples (`None` when it was not recomputed: the recorded number is
    /// never put in its place).
    pub fn headline_value(&self) -> Option<f64> {
        if self.rescored.is_some() {
            return self.rescored_value();
        }
        self.recorded_headline_value()
    }

    /// The headline score as originally scored, recomputed from the samples; `None` when it was
    /// not recomputed ([`ScoredLog::headline_not_recomputed`] says why) or the log names none.
    pub fn recorded_headline_value(&self) -> Option<f64> {
        let key = self.verdict_by.as_ref()?;
        headline_of(&self.log.run, key)?.recomputed
    }

    /// An lm-eval suite's tasks, each with the score it is compared by: the task's first
    /// recorded metric (results order), as the run's own headline is its first task's. Only the
    /// tasks with samples (a group's aggregate is not a task of its own); empty for a log of one
    /// task and for every other tool.
    pub fn task_judges(&self) -> Vec<(String, MetricKey)> {
        let run = &self.log.run;
        if run.tool != Tool::LmEvaluationHarness {
            return Vec::new();
        }
        let with_samples: std::collections::BTreeSet<&str> = run
            .samples
            .iter()
            .filter_map(|s| match &s.key {
                SampleKey::LmEval { task, .. } => Some(task.as_str()),
                _ => None,
            })
            .collect();
        let mut out: Vec<(String, MetricKey)> = Vec::new();
        for r in &run.recorded {
            let task = r.key.group.as_str();
            if with_samples.contains(task) && !out.iter().any(|(t, _)| t == task) {
                out.push((task.to_string(), r.key.clone()));
            }
        }
        if out.len() < 2 {
            out.clear();
        }
        out
    }

    /// The value of score `key` recomputed (`None`: not recomputed) with what its CI is computed
    /// from, as [`ScoredLog::headline_spread`] gives the headline's (no repeats: lm-eval).
    pub fn score_with_spread(
        &self,
        key: &MetricKey,
    ) -> (
        Option<f64>,
        Option<crate::stats::Rate>,
        Option<crate::run_table::Stderr>,
    ) {
        let value = headline_of(&self.log.run, key).and_then(|h| h.recomputed);
        let readings: Vec<f64> = verdicts(&self.log.run, key)
            .iter()
            .filter_map(|i| i.reading)
            .collect();
        let (counts, se) = spread(&readings, value);
        (value, counts, se)
    }

    /// Score `key` as a headline (`Headline score (<label>)`): its value recomputed, with what
    /// its CI is computed from ([`ScoredLog::score_with_spread`]). A suite's task headlines and
    /// the judge choices are both this.
    pub fn score_headline(&self, key: &MetricKey) -> crate::run_table::MetricValue {
        use crate::run_table::{MetricValue, Unit};
        let (value, counts, stderr) = self.score_with_spread(key);
        let mut m = MetricValue::new(
            "headline_score",
            &format!("Headline score ({})", key.label()),
            Unit::Score,
            value,
        );
        (m.counts, m.stderr) = (counts, stderr);
        m
    }

    /// The scores that may judge the log's samples, as `--scorer` names them (a score's label,
    /// [`crate::evallog::compare::score_named`]): every recorded headline that is neither a
    /// count nor a standard error and judges a sample, in the log's order, the run's own
    /// headline score first; in words `task: scorer (variant) · metric`. Empty under a
    /// re-scorer (a recorded score cannot be asked for then) and for a log of one such score.
    pub fn judge_choices(&self) -> Vec<crate::run_table::JudgeChoice> {
        if self.rescored.is_some() {
            return Vec::new();
        }
        let run = &self.log.run;
        let mut keys: Vec<&MetricKey> = run
            .headlines
            .iter()
            .map(|h| &h.key)
            .filter(|k| !k.is_count() && !k.metric.ends_with("stderr"))
            .filter(|k| verdicts(run, k).iter().any(|i| i.reading.is_some()))
            .collect();
        if let Some(own) = &self.verdict_by {
            if let Some(i) = keys.iter().position(|k| *k == own) {
                let k = keys.remove(i);
                keys.insert(0, k);
            }
        }
        if keys.len() < 2 {
            return Vec::new();
        }
        keys.into_iter()
            .map(|k| {
                // In words: `task: scorer (variant) · metric`, the parts the log has.
                let task = if k.group.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", k.group)
                };
                let variant = k
                    .variant
                    .as_ref()
                    .map(|v| format!(" ({v})"))
                    .unwrap_or_default();
                let metric = if k.metric == k.scorer {
                    String::new()
                } else {
                    format!(" · {}", k.metric)
                };
                let label = format!("{task}{}{variant}{metric}", k.scorer);
                crate::run_table::JudgeChoice {
                    judge: k.label(),
                    label,
                    task: (!k.group.is_empty()).then(|| k.group.clone()),
                    // The run's own headline as the run gives it (its CI clustered by item
                    // when the samples have epochs).
                    headline: if self.verdict_by.as_ref() == Some(k) {
                        crate::family_run::FamilyRun::headline(self)
                    } else {
                        self.score_headline(k)
                    },
                }
            })
            .collect()
    }

    /// What a CI of `value`, the run's headline, is computed from, when it is the mean of the
    /// judged items' readings: with items judged more than once (`repeats`, Inspect's epochs:
    /// the run's repeat summary) its standard error clustered by item; else, when every
    /// reading is 0 or 1, the counts (`correct` of `n`: a proportion); else `sd / √n`. Neither
    /// when the headline is not that mean (a `pass_at_k` reducer, a recorded number, a metric
    /// of another kind): a spread of another number would put a wrong interval beside it.
    pub fn headline_spread(
        &self,
        value: Option<f64>,
        repeats: Option<&crate::repeats::RepeatSummary>,
    ) -> (Option<crate::stats::Rate>, Option<crate::run_table::Stderr>) {
        use crate::run_table::Stderr;
        let Some(v) = value else {
            return (None, None);
        };
        let same = |m: Option<f64>| m.is_some_and(|m| (m - v).abs() <= 1e-9);
        if let Some(r) = repeats {
            let se = r.clustered_stderr.filter(|_| same(r.mean));
            return (
                None,
                se.map(|value| Stderr {
                    value,
                    clustered_by_item: true,
                }),
            );
        }
        let readings: Vec<f64> = self.judged().iter().filter_map(|i| i.reading).collect();
        spread(&readings, Some(v))
    }

    /// Why the headline score was not recomputed (`None` when it was, or the log names none).
    pub fn headline_not_recomputed(&self) -> Option<String> {
        let key = self.verdict_by.as_ref()?;
        let h = headline_of(&self.log.run, key)?;
        h.not_recomputed_reason().map(str::to_string)
    }

    /// How big the run is: samples (and, for Inspect, epochs are part of the count).
    pub fn size(&self) -> String {
        let n = self.log.run.samples.len();
        format!("{n} sample{}", if n == 1 { "" } else { "s" })
    }

    /// The errored items as originally scored: (those that keep the verdict the tool recorded,
    /// those with none).
    pub fn errored_items(&self) -> (usize, usize) {
        let run = &self.log.run;
        self.items
            .iter()
            .filter(|i| run.samples.get(i.sample).is_some_and(|s| s.error.is_some()))
            .fold((0, 0), |(kept, none), i| match i.correct {
                Some(_) => (kept + 1, none),
                None => (kept, none + 1),
            })
    }

    /// How evalboard's accuracy and the tool's own headline count the samples, in words, when
    /// they count them differently: the tool counts errored samples as wrong (promptfoo's pass
    /// rate) while they have no verdict here. `None` when both count the same samples (or under
    /// a re-scorer, [`ScoredLog::rescored_words`]).
    pub fn accuracy_words(&self) -> Option<String> {
        if self.rescored.is_some() || !tool_counts_errored_as_wrong(self.log.run.tool) {
            return None;
        }
        let key = self.verdict_by.as_ref()?;
        let (_, errored) = self.errored_items();
        if errored == 0 {
            return None;
        }
        let t = Tally::of(&self.items);
        let all = t.judged + errored;
        Some(format!(
            "Accuracy counts the {} with a verdict: {} correct of {} ({}); the {} errored {} \
             no verdict. {}'s {} counts errored samples as wrong: {} of {} ({}).",
            plural(t.judged, "sample", "samples"),
            t.correct,
            t.judged,
            percent(t.correct, t.judged),
            errored,
            if errored == 1 {
                "sample has"
            } else {
                "samples have"
            },
            self.log.run.tool.label(),
            key.label(),
            t.correct,
            all,
            percent(t.correct, all),
        ))
    }

    /// Under a re-scorer that could not judge some of its items (no output, no usable target,
    /// an error), how many, in words: its accuracy is over the others. `None` as recorded, or
    /// when it judged every item.
    pub fn rescored_words(&self) -> Option<String> {
        let r = self.rescored.as_ref()?;
        let t = Tally::of(&r.items);
        let not = r.items.len() - t.judged;
        (not > 0).then(|| {
            format!(
                "{} re-scored {} of {} samples: {} could not be (no output, no usable target or \
                 an error) and {} out of its accuracy ({} correct of {}).",
                r.id,
                t.judged,
                r.items.len(),
                not,
                if not == 1 { "is" } else { "are" },
                t.correct,
                t.judged
            )
        })
    }

    /// Samples that errored.
    pub fn n_errors(&self) -> usize {
        self.log
            .run
            .samples
            .iter()
            .filter(|s| s.error.is_some())
            .count()
    }
}

/// `num / den` as a percentage with one decimal (`—` for nothing).
fn percent(num: usize, den: usize) -> String {
    if den == 0 {
        "—".into()
    } else {
        format!("{:.1}%", 100.0 * num as f64 / den as f64)
    }
}

/// The eval-log headline table: keys of the statistics (`evalboard score --json`).
pub const HEADLINE: [Metric; 15] = [
    Metric {
        key: "headline_score",
        label: "Headline score",
        shown: Shown::Decimals(4),
        definition: "The log's headline metric (Inspect `results.headline`, else the first \
                     scorer's first metric; lm-eval the first task's first metric under its first \
                     filter; promptfoo the pass rate; OpenAI Evals the final report's accuracy; \
                     HELM the main metric on the test split), recomputed from the samples the way \
                     the tool computes it; null when it is not recomputed (never the recorded \
                     number in its place).",
    },
    Metric {
        key: "headline_recorded",
        label: "Headline score (recorded)",
        shown: Shown::Decimals(4),
        definition: "The same metric as the log itself recorded it.",
    },
    Metric {
        key: "accuracy",
        label: "Accuracy",
        shown: Shown::Percent,
        definition: "Share of the items with a verdict whose headline score reads 1 (the verdict \
                     `diff` pairs when nothing is re-scored).",
    },
    Metric {
        key: "rescored_score",
        label: "Re-scored score",
        shown: Shown::Decimals(4),
        definition: "Under a re-scorer (`--profile match`, …): the mean of its readings over the \
                     items it judged — its accuracy; for `f1@v1` the mean F1. The run's number \
                     then.",
    },
    Metric {
        key: "rescored_accuracy",
        label: "Re-scored accuracy",
        shown: Shown::Percent,
        definition: "Under a re-scorer: share of the items it judged whose reading is 1 (the \
                     verdict `diff` pairs then).",
    },
    Metric {
        key: "n_samples",
        label: "Samples",
        shown: Shown::AsRecorded,
        definition: "Samples read (Inspect: one per sample and epoch; lm-eval: one per task, \
                     document and filter; promptfoo: one per test, column and repeat; OpenAI \
                     Evals: one per sample id; HELM: one per instance, perturbation and train \
                     trial).",
    },
    Metric {
        key: "n_errors",
        label: "Errored samples",
        shown: Shown::AsRecorded,
        definition: "Samples the tool recorded an error for (no verdict).",
    },
    Metric {
        key: "n_mismatches",
        label: "Recorded ≠ recomputed",
        shown: Shown::AsRecorded,
        definition: "Headline numbers the log recorded that the recomputation from its samples \
                     does not reproduce: both present, more than 1e-9 apart (each one is a \
                     warning). A number not recomputed is no mismatch.",
    },
    Metric {
        key: "n_disagreements",
        label: "Re-scorer disagreements",
        shown: Shown::AsRecorded,
        definition: "Under a re-scorer: items judged both ways whose re-scored verdict differs \
                     from the one as originally scored (by the headline score).",
    },
    Metric {
        key: "total_cost_usd",
        label: "Cost (price table)",
        shown: Shown::Decimals(6),
        definition: "Dollars: each sample's tokens by class (uncached input, cache read, cache \
                     write, output) × its model's price per 1M tokens (`--prices`), summed; null \
                     when no sample records tokens or a sample's model has no price. The cost \
                     the tool recorded is `recorded_cost_usd`, beside it.",
    },
    Metric {
        key: "cost_per_correct_usd",
        label: "Cost per correct",
        shown: Shown::Decimals(6),
        definition: "`total_cost_usd` ÷ the items judged correct (by the re-scorer under one).",
    },
    Metric {
        key: "cache_hit_ratio",
        label: "Cache-hit ratio",
        shown: Shown::Decimals(4),
        definition: "Cache-read input tokens ÷ (cache-read + uncached input tokens) over the \
                     samples; null when the log records no cache count.",
    },
    Metric {
        key: "latency_p50",
        label: "Latency p50 (s)",
        shown: Shown::Decimals(2),
        definition: "Median of the samples' latency in seconds (nearest rank).",
    },
    Metric {
        key: "latency_p95",
        label: "Latency p95 (s)",
        shown: Shown::Decimals(2),
        definition: "95th percentile of the samples' latency in seconds (nearest rank).",
    },
    Metric {
        key: "latency_max",
        label: "Latency max (s)",
        shown: Shown::Decimals(2),
        definition: "The slowest sample's latency in seconds.",
    },
];

/// What the log is, for side-by-side tables.
pub fn meta(log: &LoadedLog) -> RunMeta {
    let r = &log.run;
    let mut m = RunMeta::default();
    m.put("model", r.model.clone());
    m.put("dataset", r.dataset.clone().or_else(|| r.task.clone()));
    m.put("items", Some(r.samples.len().to_string()));
    m.put("status", r.status.clone());
    m.put("started", r.created.clone());
    m.put(
        "command",
        Some(match &r.tool_version {
            Some(v) => format!("{} {v}", r.tool.label()),
            None => r.tool.label().to_string(),
        }),
    );
    m.put(
        "scorer",
        r.primary.as_ref().map(MetricKey::label).or_else(|| {
            matches!(r.tool, Tool::LmEvaluationHarness | Tool::Helm)
                .then(|| "no metric recorded".into())
        }),
    );
    m
}
