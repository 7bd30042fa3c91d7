//! lm-evaluation-harness: which samples files belong to which results file, by content.
//!
//! Every lm-eval layout writes one results file and one samples file per task, but names them
//! differently: `results_<date>.json` + `samples_<task>_<date>.jsonl` (v0.4.3 on), the same
//! with `samples_<task>_<date>.json` arrays (the first `EvaluationTracker`, 2024-05),
//! `<stem>_<date>.json` for `--output_path <stem>.json`, and `results.json` +
//! `<model_args with / and = as __>_<task>.jsonl` arrays (v0.4.0–v0.4.2), and users rename them.
//! So a file's kind is told by content ([`super::sniff()`]) and a samples file is paired by what
//! the results file records:
//!
//! 1. the tasks of each results file: the keys of its `configs` and `results`, less its groups;
//! 2. the task of each samples file: from its name where the name holds a task some results file
//!    records (`samples_<task>_<date>`, `…_<task>`: the longest such task); else from its rows
//!    (`RowFacts`): the task whose `task_hashes` entry is their hash (v0.4.3 on: a SHA-256 of
//!    every row's `doc_hash`, `prompt_hash` and `target_hash`), else the one task whose recorded
//!    `<metric>,<filter>` keys hold every metric and filter of the rows and whose document count
//!    (`n-samples` `effective`, or `sample_len`) is theirs;
//! 3. the samples file goes with the results file that records its task. Where several do, the
//!    tie is broken by, in turn: the date id both names carry (the harness names one run's files
//!    with one), `task_hashes` (content), no other date in the name, the same folder, the nearest
//!    folder, the path order, and the load report says which and who else claimed the task. One samples file is read per task of a results file (the others are
//!    skipped, named). A samples file no results file records the task of is paired by file name
//!    only with the results file of the same folder and date id, if there is one (and it says
//!    so), else skipped with the reason.
//!
//! Each decision is written out for the load report ([`PairedSamples::how`], [`PairedRun::note`],
//! the reason of an unmatched file). The cost: the results files are parsed here (they are small
//! beside their samples); a samples file's rows are read here only when its name does not settle
//! it (no task in the name, or a tie), once.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::json;
use super::rows;
use crate::input::InputFile;

/// A samples file matched to a results file.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedSamples<'a> {
    pub file: &'a InputFile,
    /// The task its rows are samples of.
    pub task: String,
    /// How it was matched, for its load report line.
    pub how: String,
}

/// A results file with the samples files matched to it (in input order).
#[derive(Debug, Clone, PartialEq)]
pub struct PairedRun<'a> {
    pub results: &'a InputFile,
    pub samples: Vec<PairedSamples<'a>>,
    /// What the results file records and which of its tasks got samples, for its report line.
    pub note: String,
}

/// A samples file no results file takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched<'a> {
    pub file: &'a InputFile,
    /// Why, for its load report line.
    pub why: String,
    /// The results file it was nearly matched to (its rows fit several of its tasks, or another
    /// samples file of its task is read with it): a folder split into logs keeps the file with
    /// that log, where it is left out for the same reason.
    pub near: Option<&'a InputFile>,
}

/// Every lm-eval results file with its samples files, and the samples files none took.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pairing<'a> {
    /// One per results file, in input order.
    pub runs: Vec<PairedRun<'a>>,
    /// Samples files no results file takes (input order).
    pub unmatched: Vec<Unmatched<'a>>,
}

impl<'a> Pairing<'a> {
    /// The samples files matched to the results file at `path`.
    pub fn samples_of(&self, path: &str) -> Vec<&'a InputFile> {
        self.runs
            .iter()
            .filter(|r| r.results.path == path)
            .flat_map(|r| r.samples.iter().map(|s| s.file))
            .collect()
    }
}

/// The date id lm-eval puts in its file names (`datetime.now().isoformat()` with `:` → `-`:
/// `2026-11-25T20-38-20.566618`): `YYYY-MM-DDTHH-MM-SS`, then optionally `.` and digits.
fn is_date_id(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r)
            .is_some_and(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    digits(0..4)
        && at(4, b'-')
        && digits(5..7)
        && at(7, b'-')
        && digits(8..10)
        && at(10, b'T')
        && digits(11..13)
        && at(13, b'-')
        && digits(14..16)
        && at(16, b'-')
        && digits(17..19)
        && (b.len() == 19 || at(19, b'.') && digits(20..b.len()))
}

/// A file name without its `.jsonl` / `.json` ending.
fn stem(name: &str) -> &str {
    name.strip_suffix(".jsonl")
        .or_else(|| name.strip_suffix(".parquet"))
        .or_else(|| name.strip_suffix(".json"))
        .unwrap_or(name)
}

/// `<rest>_<date id>` → (`rest`, date id); `None` without a date id at the end.
fn split_date(stem: &str) -> Option<(&str, &str)> {
    let (rest, date) = stem.rsplit_once('_')?;
    is_date_id(date).then_some((rest, date))
}

/// The date id at the end of a file's name (`results_<date>.json`, `x_<date>.json`,
/// `samples_<task>_<date>.jsonl`).
pub fn date_id(f: &InputFile) -> Option<&str> {
    split_date(stem(f.file_name())).map(|(_, d)| d)
}

/// A samples file laid out as the Hugging Face Hub's Parquet conversion of an lm-eval details
/// dataset: `…/<config>/<split>/<shard>.parquet`, the config `<org>__<model>__<task>` (Open LLM
/// Leaderboard v2) or `<model>__<task>`, the split the run's time (`2024_06_26T13_23_40.451238`)
/// or `latest`. Gives (the folder holding the config, the config, the split).
fn hub_layout(path: &str) -> Option<(&str, &str, &str)> {
    if !path.ends_with(".parquet") {
        return None;
    }
    let mut parts = path.rsplitn(4, '/');
    let (_file, split, config) = (parts.next()?, parts.next()?, parts.next()?);
    let root = parts.next().unwrap_or("");
    config.contains("__").then_some((root, config, split))
}

/// The task a samples file read without a results file is of, by its path alone:
/// `samples_<task>_<date>` and `samples_<task>` give `task`; a Hub details Parquet
/// (`…/<org>__<model>__<task>/<split>/0000.parquet`) its config's last part; any other name its
/// stem (less a date id).
pub fn own_task(f: &InputFile) -> String {
    if let Some((_, config, _)) = hub_layout(&f.path) {
        return config
            .rsplit_once("__")
            .map_or(config, |(_, t)| t)
            .to_string();
    }
    let stem = stem(f.file_name());
    let body = split_date(stem).map_or(stem, |(body, _)| body);
    match body.strip_prefix("samples_") {
        Some(task) if !task.is_empty() => task.to_string(),
        _ => body.to_string(),
    }
}

/// The model a Hub details Parquet's path names (`<org>__<model>__<task>` → `org/model`).
pub fn hub_model(f: &InputFile) -> Option<String> {
    let (_, config, _) = hub_layout(&f.path)?;
    let (model, _) = config.rsplit_once("__")?;
    Some(model.replace("__", "/"))
}

/// (folder, date id) of a samples file read without a results file.
type LoneRunKey = (String, Option<String>);

/// What makes samples files read without a results file one run: their folder and date id, or
/// for Hub details Parquet the model's folder, the model and the split (one lm-eval run's tasks
/// share its time). `None`'s date: a run alone.
fn lone_run_key(f: &InputFile) -> LoneRunKey {
    if let Some((root, config, split)) = hub_layout(&f.path) {
        let model = config.rsplit_once("__").map_or(config, |(m, _)| m);
        return (format!("{root}/{model}"), Some(split.to_string()));
    }
    (dir_of(&f.path).to_string(), date_id(f).map(str::to_string))
}

/// Samples files read without a results file, as runs (by folder and date id; for Hub details
/// Parquet by model and split): in input order of
/// each run's first file.
pub fn lone_runs<'a>(samples: &[&'a InputFile]) -> Vec<Vec<&'a InputFile>> {
    let mut runs: Vec<(LoneRunKey, Vec<&'a InputFile>)> = Vec::new();
    for f in samples {
        let key = lone_run_key(f);
        match runs.iter_mut().find(|(k, _)| key.1.is_some() && *k == key) {
            Some((_, g)) => g.push(f),
            None => runs.push((key, vec![f])),
        }
    }
    runs.into_iter().map(|(_, g)| g).collect()
}

/// The run time a Hub details Parquet's split names, as a date id (`latest` names none).
pub fn hub_split(f: &InputFile) -> Option<&str> {
    hub_layout(&f.path)
        .map(|(_, _, split)| split)
        .filter(|s| *s != "latest")
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// What the name of a samples file says of its task.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NamedTask {
    /// A task some results file records.
    Known(String),
    /// `samples_<task>_<date>`, of a task no results file records.
    Unknown(String),
    /// Nothing.
    None,
}

/// The task named by a samples file's name, among `known`: `samples_<task>_<date>` and
/// `samples_<task>` give `task`; any other name (`<model_args>_<task>`) the longest known task
/// it ends with (after `_`), or the whole name when that is a known task.
fn named_task(f: &InputFile, known: &BTreeSet<&str>) -> NamedTask {
    let stem = stem(f.file_name());
    let (body, dated) = match split_date(stem) {
        Some((body, _)) => (body, true),
        None => (stem, false),
    };
    if let Some(task) = body.strip_prefix("samples_") {
        if known.contains(task) {
            return NamedTask::Known(task.to_string());
        }
        if dated && !task.is_empty() {
            return NamedTask::Unknown(task.to_string());
        }
    }
    if known.contains(body) {
        return NamedTask::Known(body.to_string());
    }
    // The leftmost `_` whose tail is a known task gives the longest one.
    body.match_indices('_')
        .filter_map(|(i, _)| body.get(i + 1..))
        .find(|t| known.contains(t))
        .map_or(NamedTask::None, |t| NamedTask::Known(t.to_string()))
}

/// What a results file records of one task.
#[derive(Debug, Clone, Default, PartialEq)]
struct TaskRecord {
    /// `(metric, filter)` of its `"<metric>,<filter>"` keys.
    keys: BTreeSet<(String, String)>,
    /// Documents evaluated: `n-samples[task].effective`, else `results[task].sample_len`.
    docs: Option<u64>,
    /// `task_hashes[task]` (lower-case hex).
    hash: Option<String>,
}

/// What pairing needs of one results file.
#[derive(Debug, Clone)]
struct ResultsInfo<'a> {
    file: &'a InputFile,
    date: Option<&'a str>,
    tasks: BTreeMap<String, TaskRecord>,
}

impl<'a> ResultsInfo<'a> {
    fn of(file: &'a InputFile) -> ResultsInfo<'a> {
        let mut scratch = Vec::new();
        let top: Value =
            json::parse_file(file, "an lm-eval results file", &mut scratch).unwrap_or_default();
        let obj = |k: &str| top.get(k).and_then(Value::as_object);
        let mut groups: BTreeSet<&str> = obj("groups")
            .map(|g| g.keys().map(String::as_str).collect())
            .unwrap_or_default();
        // Older versions list every task in `group_subtasks`, with no subtasks.
        if let Some(g) = obj("group_subtasks") {
            groups.extend(
                g.iter()
                    .filter(|(_, v)| v.as_array().is_some_and(|l| !l.is_empty()))
                    .map(|(k, _)| k.as_str()),
            );
        }
        let names: BTreeSet<&str> = ["configs", "results"]
            .iter()
            .filter_map(|k| obj(k))
            .flat_map(|o| o.keys().map(String::as_str))
            .filter(|t| !groups.contains(t))
            .collect();
        let mut tasks = BTreeMap::new();
        for name in names {
            let entry = obj("results").and_then(|r| r.get(name));
            let keys = entry
                .and_then(Value::as_object)
                .map(|o| {
                    o.keys()
                        .filter_map(|k| k.split_once(','))
                        .filter(|(m, _)| !m.ends_with("_stderr"))
                        .map(|(m, f)| (m.to_string(), f.to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let docs = top
                .get("n-samples")
                .and_then(|n| n.get(name))
                .and_then(|n| n.get("effective"))
                .or_else(|| entry.and_then(|e| e.get("sample_len")))
                .and_then(json::uint);
            let hash = top
                .get("task_hashes")
                .and_then(|h| h.get(name))
                .and_then(Value::as_str)
                .filter(|h| !h.is_empty())
                .map(str::to_ascii_lowercase);
            tasks.insert(name.to_string(), TaskRecord { keys, docs, hash });
        }
        ResultsInfo {
            file,
            date: date_id(file),
            tasks,
        }
    }
}

/// The SHA-256 lm-eval records per task in `task_hashes`: of every row's `doc_hash`,
/// `prompt_hash` and `target_hash`, concatenated in file order (`None` once a row lacks one).
#[derive(Clone, Default)]
pub struct RowsHash {
    state: Option<Sha256>,
    rows: usize,
    broken: bool,
}

impl RowsHash {
    pub fn add(&mut self, row: &Value) {
        let parts: Option<Vec<&str>> = ["doc_hash", "prompt_hash", "target_hash"]
            .iter()
            .map(|k| row.get(*k).and_then(Value::as_str))
            .collect();
        match parts {
            Some(parts) if !self.broken => {
                let h = self.state.get_or_insert_with(Sha256::new);
                for p in parts {
                    h.update(p.as_bytes());
                }
                self.rows += 1;
            }
            _ => self.broken = true,
        }
    }

    /// The hash (lower-case hex) when every row carried the three hashes.
    pub fn hex(self) -> Option<String> {
        if self.broken || self.rows == 0 {
            return None;
        }
        let digest = self.state?.finalize();
        Some(crate::run_table::hex(&digest))
    }
}

/// Row keys that are not metrics (the row's own fields in every version).
const ROW_FIELDS: &[&str] = &[
    "doc_id",
    "doc",
    "target",
    "arguments",
    "resps",
    "filtered_resps",
    "filter",
    "metrics",
    "doc_hash",
    "prompt_hash",
    "target_hash",
];

/// The most metric and filter names kept of one file's rows (a hostile file could name many).
const MAX_NAMES: usize = 256;

/// What a samples file's rows say of their task: metrics, filters, documents, hash.
#[derive(Debug, Clone, Default, PartialEq)]
struct RowFacts {
    docs: usize,
    /// The rows' metric names (`metrics`, v0.4.7 on; else their keys that are not row fields).
    metrics: BTreeSet<String>,
    /// The rows' `filter` values (v0.4.7 on).
    filters: BTreeSet<String>,
    hash: Option<String>,
}

impl RowFacts {
    fn of(f: &InputFile) -> RowFacts {
        let mut facts = RowFacts::default();
        let mut docs = BTreeSet::new();
        let mut hash = RowsHash::default();
        let mut scratch = Vec::new();
        rows::each_row(f, &mut scratch, |_, row, scratch| {
            scratch.clear();
            hash.add(&row);
            if let Some(d) = row.get("doc_id").and_then(Value::as_i64) {
                docs.insert(d);
            }
            let metrics: Vec<&str> = match row.get("metrics").and_then(Value::as_array) {
                Some(l) => l.iter().filter_map(Value::as_str).collect(),
                None => row
                    .as_object()
                    .map(|o| {
                        o.keys()
                            .map(String::as_str)
                            .filter(|k| !ROW_FIELDS.contains(k))
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            for m in metrics {
                if facts.metrics.len() < MAX_NAMES {
                    facts.metrics.insert(m.to_string());
                }
            }
            if let Some(filter) = row.get("filter").and_then(Value::as_str) {
                if facts.filters.len() < MAX_NAMES {
                    facts.filters.insert(filter.to_string());
                }
            }
        });
        facts.docs = docs.len();
        facts.hash = hash.hex();
        facts
    }

    /// Whether a task recorded as `t` could have these rows: every metric of the rows recorded
    /// under one of their filters, every filter recorded, the same number of documents.
    fn fit(&self, t: &TaskRecord) -> bool {
        let filters_fit = |f: &String| self.filters.is_empty() || self.filters.contains(f);
        !self.metrics.is_empty()
            && self
                .metrics
                .iter()
                .all(|m| t.keys.iter().any(|(km, kf)| km == m && filters_fit(kf)))
            && self
                .filters
                .iter()
                .all(|f| t.keys.iter().any(|(_, kf)| kf == f))
            && t.docs.is_none_or(|n| n == self.docs as u64)
    }

    fn hashes_to(&self, t: &TaskRecord) -> bool {
        self.hash.is_some() && self.hash == t.hash
    }

    /// The rows in words: "metrics acc, acc_norm; 5 docs".
    fn words(&self) -> String {
        let mut out = format!(
            "metric{} {}",
            if self.metrics.len() == 1 { "" } else { "s" },
            list(self.metrics.iter().map(String::as_str))
        );
        if !self.filters.is_empty() {
            out += &format!(
                ", filter{} {}",
                if self.filters.len() == 1 { "" } else { "s" },
                list(self.filters.iter().map(String::as_str))
            );
        }
        out + &format!(
            ", {} doc{}",
            self.docs,
            if self.docs == 1 { "" } else { "s" }
        )
    }
}

/// Up to six names joined by commas, then "and N more".
fn list<'s>(names: impl Iterator<Item = &'s str>) -> String {
    let names: Vec<&str> = names.collect();
    let shown: Vec<&str> = names.iter().take(6).copied().collect();
    match names.len().saturating_sub(shown.len()) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// A samples file's facts, read from its rows once, when first asked for.
struct Lazy<'a> {
    file: &'a InputFile,
    facts: Option<RowFacts>,
}

impl Lazy<'_> {
    fn get(&mut self) -> &RowFacts {
        let file = self.file;
        self.facts.get_or_insert_with(|| RowFacts::of(file))
    }
}

/// How a task was found for a samples file.
enum TaskBy {
    Name,
    /// By its rows, with the evidence in words; and the task its name gave, if any.
    Rows(String, Option<String>),
}

/// A samples file's candidate: results file (index) and task.
type Candidate = (usize, String);

/// The samples files of each results file, and the ones none takes ([`Pairing`]).
pub fn pair<'a>(results: &[&'a InputFile], samples: &[&'a InputFile]) -> Pairing<'a> {
    let infos: Vec<ResultsInfo<'a>> = results.iter().map(|f| ResultsInfo::of(f)).collect();
    let known: BTreeSet<&str> = infos
        .iter()
        .flat_map(|r| r.tasks.keys().map(String::as_str))
        .collect();
    // Per samples file: its choice (results index, task, how) or why none.
    let mut chosen: Vec<Option<(usize, String, String)>> = Vec::new();
    let mut unmatched: Vec<(usize, String, Option<usize>)> = Vec::new();
    let mut facts: Vec<Lazy<'a>> = samples
        .iter()
        .map(|f| Lazy {
            file: f,
            facts: None,
        })
        .collect();
    for (si, s) in samples.iter().enumerate() {
        let Some(lazy) = facts.get_mut(si) else {
            continue;
        };
        match choose(s, &infos, &known, lazy) {
            Ok(c) => chosen.push(Some(c)),
            Err((why, near)) => {
                chosen.push(None);
                unmatched.push((si, why, near));
            }
        }
    }
    // One samples file per task of a results file: the others are skipped, named.
    let mut by_slot: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    for (si, c) in chosen.iter().enumerate() {
        if let Some((ri, task, _)) = c {
            by_slot.entry((*ri, task.clone())).or_default().push(si);
        }
    }
    for ((ri, task), mut claimants) in by_slot {
        if claimants.len() < 2 {
            continue;
        }
        let Some(info) = infos.get(ri) else { continue };
        let record = info.tasks.get(&task).cloned().unwrap_or_default();
        claimants.sort_unstable();
        let (kept, by) = best_samples(&claimants, info, &record, samples, &mut facts);
        let Some(kept_file) = samples.get(kept) else {
            continue;
        };
        for si in claimants.iter().copied().filter(|&si| si != kept) {
            if let Some(c) = chosen.get_mut(si) {
                *c = None;
            }
            unmatched.push((
                si,
                format!(
                    "lm-eval samples of task {task}: another samples file of this task is read \
                     with {} ({}, chosen by {by})",
                    info.file.path, kept_file.path
                ),
                Some(ri),
            ));
        }
        if let Some(Some((_, _, how))) = chosen.get_mut(kept) {
            let others: Vec<&str> = claimants
                .iter()
                .filter(|&&si| si != kept)
                .filter_map(|&si| samples.get(si).map(|f| f.path.as_str()))
                .collect();
            *how += &format!(
                "; read instead of {} (same task), chosen by {by}",
                list(others.into_iter())
            );
        }
    }
    unmatched.sort_by_key(|(si, _, _)| *si);
    let runs = infos
        .iter()
        .enumerate()
        .map(|(ri, info)| {
            let mine: Vec<PairedSamples<'a>> = chosen
                .iter()
                .enumerate()
                .filter_map(|(si, c)| match c {
                    Some((r, task, how)) if *r == ri => Some(PairedSamples {
                        file: samples.get(si)?,
                        task: task.clone(),
                        how: how.clone(),
                    }),
                    _ => None,
                })
                .collect();
            let note = results_note(info, &mine);
            PairedRun {
                results: info.file,
                samples: mine,
                note,
            }
        })
        .collect();
    Pairing {
        runs,
        unmatched: unmatched
            .into_iter()
            .filter_map(|(si, why, near)| {
                Some(Unmatched {
                    file: samples.get(si)?,
                    why,
                    near: near.and_then(|ri| infos.get(ri)).map(|i| i.file),
                })
            })
            .collect(),
    }
}

/// The results file's report line: its tasks, and which got a samples file.
fn results_note(info: &ResultsInfo, mine: &[PairedSamples]) -> String {
    let tasks: Vec<&str> = info.tasks.keys().map(String::as_str).collect();
    let with: BTreeSet<&str> = mine.iter().map(|s| s.task.as_str()).collect();
    let without: Vec<&str> = tasks
        .iter()
        .copied()
        .filter(|t| !with.contains(t))
        .collect();
    let mut out = format!(
        "lm-eval results of task{} {}",
        if tasks.len() == 1 { "" } else { "s" },
        list(tasks.iter().copied())
    );
    if with.is_empty() {
        out += "; no samples file matched (0 samples read)";
        return out;
    }
    out += &format!("; samples matched for {}", list(with.iter().copied()));
    if !without.is_empty() {
        out += &format!("; none for {}", list(without.into_iter()));
    }
    out
}

/// The results file and task of one samples file, with how they were found; `Err` the reason
/// when there is none (and the results file it nearly went with).
fn choose(
    s: &InputFile,
    infos: &[ResultsInfo],
    known: &BTreeSet<&str>,
    lazy: &mut Lazy,
) -> Result<(usize, String, String), (String, Option<usize>)> {
    let named = named_task(s, known);
    let (candidates, by) = match &named {
        NamedTask::Known(task) => (claimants(infos, task), TaskBy::Name),
        NamedTask::Unknown(_) | NamedTask::None => {
            let name = match &named {
                NamedTask::Unknown(t) => Some(t.clone()),
                _ => None,
            };
            let facts = lazy.get();
            let hashed: Vec<Candidate> = fitting(infos, |t| facts.hashes_to(t));
            if !hashed.is_empty() {
                (
                    hashed,
                    TaskBy::Rows("they hash to its task_hashes entry".into(), name),
                )
            } else {
                let fit = fitting(infos, |t| facts.fit(t));
                let words = format!("their {} fit it", facts.words());
                (fit, TaskBy::Rows(words, name))
            }
        }
    };
    if candidates.is_empty() {
        return by_date_only(s, infos, &named).ok_or_else(|| (no_match(&named, lazy), None));
    }
    // The results file: one, or the tie broken.
    let mut results: Vec<usize> = candidates.iter().map(|(ri, _)| *ri).collect();
    results.dedup();
    let (ri, tie) = if results.len() == 1 {
        (results.first().copied().unwrap_or(0), None)
    } else {
        let task_of = |ri: usize| {
            candidates
                .iter()
                .find(|(r, _)| *r == ri)
                .map(|(_, t)| t.clone())
                .unwrap_or_default()
        };
        let (ri, step) = break_tie(s, infos, &results, &task_of, lazy);
        let others: Vec<&str> = results
            .iter()
            .filter(|&&r| r != ri)
            .filter_map(|&r| infos.get(r).map(|i| i.file.path.as_str()))
            .collect();
        (ri, Some((others, step)))
    };
    let tasks: Vec<&str> = candidates
        .iter()
        .filter(|(r, _)| *r == ri)
        .map(|(_, t)| t.as_str())
        .collect();
    let Some(info) = infos.get(ri) else {
        return Err((no_match(&named, lazy), None));
    };
    let [task] = tasks[..] else {
        return Err((
            format!(
                "lm-eval samples: its rows fit tasks {} of {} alike ({}); named \
                 samples_<task>_<date>.jsonl, it would be read",
                list(tasks.into_iter()),
                info.file.path,
                lazy.get().words()
            ),
            Some(ri),
        ));
    };
    let mut how = match by {
        TaskBy::Name => format!("samples of task {task} (by its file name)"),
        TaskBy::Rows(words, None) => format!("samples of task {task} (by its rows: {words})"),
        TaskBy::Rows(words, Some(named)) => format!(
            "samples of task {task} (by its rows: {words}; its file name says {named}, which \
             no results file records)"
        ),
    };
    how += &format!(
        ", matched by content to {}, which records {task}",
        info.file.path
    );
    if let Some((others, step)) = tie {
        how += &format!(
            "; {} also record{} it: chosen by {step}",
            list(others.iter().copied()),
            if others.len() == 1 { "s" } else { "" }
        );
    }
    Ok((ri, task.to_string(), how))
}

/// The results files (and task) recording `task`.
fn claimants(infos: &[ResultsInfo], task: &str) -> Vec<Candidate> {
    infos
        .iter()
        .enumerate()
        .filter(|(_, r)| r.tasks.contains_key(task))
        .map(|(ri, _)| (ri, task.to_string()))
        .collect()
}

/// Every (results file, task) whose record passes `keep`.
fn fitting(infos: &[ResultsInfo], keep: impl Fn(&TaskRecord) -> bool) -> Vec<Candidate> {
    infos
        .iter()
        .enumerate()
        .flat_map(|(ri, r)| {
            r.tasks
                .iter()
                .filter(|(_, t)| keep(t))
                .map(move |(name, _)| (ri, name.clone()))
        })
        .collect()
}

/// A samples file no results file records the task of, paired by name only: with the results
/// file of its folder whose name has its date id.
fn by_date_only(
    s: &InputFile,
    infos: &[ResultsInfo],
    named: &NamedTask,
) -> Option<(usize, String, String)> {
    let NamedTask::Unknown(task) = named else {
        return None;
    };
    let date = date_id(s)?;
    let ri = infos
        .iter()
        .position(|r| r.date == Some(date) && dir_of(&r.file.path) == dir_of(&s.path))?;
    let info = infos.get(ri)?;
    Some((
        ri,
        task.clone(),
        format!(
            "samples of task {task} (by its file name), matched by file name only to {} (the \
             same date, {date}); it records no task {task}",
            info.file.path
        ),
    ))
}

/// Why no results file takes a samples file.
fn no_match(named: &NamedTask, lazy: &mut Lazy) -> String {
    match named {
        NamedTask::Known(task) => {
            format!("lm-eval samples of task {task}: no results file records {task}")
        }
        NamedTask::Unknown(task) => format!(
            "lm-eval samples of task {task} (by its file name): no results file records \
             {task}, and none records a task its rows fit ({})",
            lazy.get().words()
        ),
        NamedTask::None => format!(
            "lm-eval samples: its file name names no task of a results file, and no results \
             file records a task its rows fit ({})",
            lazy.get().words()
        ),
    }
}

/// A step of a tie-break: its words for the load report, and which of the candidates left
/// pass it.
type Step<'s> = (String, Box<dyn Fn(&[usize]) -> Vec<usize> + 's>);

/// A [`Step`] keeping the candidates `keep` accepts.
fn keep<'s>(words: impl Into<String>, keep: impl Fn(usize) -> bool + 's) -> Step<'s> {
    let step = move |left: &[usize]| left.iter().copied().filter(|&i| keep(i)).collect();
    (words.into(), Box::new(step))
}

/// The candidate the steps leave, taken in turn (a step keeping none is passed over, one
/// keeping several narrows the field), with the words of the step that decided; else the first
/// of those left (candidates are indices in input order, so: path order).
fn decide(candidates: &[usize], steps: &[Step]) -> (usize, String) {
    let mut left = candidates.to_vec();
    left.sort_unstable();
    for (words, step) in steps {
        let kept = step(&left);
        if let [one] = kept[..] {
            return (one, words.clone());
        }
        if !kept.is_empty() {
            left = kept;
        }
    }
    (
        left.first().copied().unwrap_or(0),
        "path order (nothing else tells them apart)".into(),
    )
}

/// Of several results files recording a samples file's task, the one it goes with, and the
/// step that told them apart: the date id both names carry (the harness names a run's files with
/// one), `task_hashes` (the rows' hash: read only if it comes to that), not a date other than
/// its own, the same folder, the nearest folder, else path order.
fn break_tie(
    s: &InputFile,
    infos: &[ResultsInfo],
    results: &[usize],
    task_of: &dyn Fn(usize) -> String,
    lazy: &mut Lazy,
) -> (usize, String) {
    let info = |ri: usize| infos.get(ri);
    let lazy = std::cell::RefCell::new(lazy);
    let rows_hash = || lazy.borrow_mut().get().hash.clone();
    let date = date_id(s);
    let dir = dir_of(&s.path);
    // Leading folders shared with the samples file.
    let shared = |ri: usize| {
        info(ri).map_or(0, |i| {
            dir_of(&i.file.path)
                .split('/')
                .zip(dir.split('/'))
                .take_while(|(a, b)| a == b)
                .count()
        })
    };
    let steps = [
        keep(
            format!("the date in both names ({})", date.unwrap_or_default()),
            |ri| date.is_some() && info(ri).is_some_and(|i| i.date == date),
        ),
        keep("its task_hashes (these rows' hash)", |ri| {
            info(ri)
                .and_then(|i| i.tasks.get(&task_of(ri)))
                .and_then(|t| t.hash.as_ref())
                .is_some_and(|h| rows_hash().as_ref() == Some(h))
        }),
        keep(
            "the dates in the names (the others' are not its own)",
            |ri| date.is_some() && info(ri).is_some_and(|i| i.date.is_none()),
        ),
        keep("its folder", |ri| {
            info(ri).is_some_and(|i| dir_of(&i.file.path) == dir)
        }),
        (
            "the nearest folder".into(),
            Box::new(|left: &[usize]| {
                let best = left.iter().map(|&ri| shared(ri)).max().unwrap_or(0);
                left.iter()
                    .copied()
                    .filter(|&ri| shared(ri) == best)
                    .collect()
            }),
        ),
    ];
    decide(results, &steps)
}

/// Of several samples files matched to one task of a results file, the one read, and why: the
/// results file's date id in its name, `task_hashes` (the rows read only if it comes to that),
/// its folder, else path order.
fn best_samples(
    claimants: &[usize],
    info: &ResultsInfo,
    record: &TaskRecord,
    samples: &[&InputFile],
    facts: &mut [Lazy],
) -> (usize, String) {
    let facts = std::cell::RefCell::new(facts);
    let rows_hash = |si: usize| {
        facts
            .borrow_mut()
            .get_mut(si)
            .and_then(|l| l.get().hash.clone())
    };
    let sample = |si: usize| samples.get(si);
    let steps = [
        keep(
            format!("the date in both names ({})", info.date.unwrap_or_default()),
            |si| info.date.is_some() && sample(si).is_some_and(|f| date_id(f) == info.date),
        ),
        keep("its task_hashes (these rows' hash)", |si| {
            record.hash.is_some() && rows_hash(si) == record.hash
        }),
        keep("its folder", |si| {
            sample(si).is_some_and(|f| dir_of(&f.path) == dir_of(&info.file.path))
        }),
    ];
    decide(claimants, &steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_ids() {
        assert!(is_date_id("2026-11-25T20-38-20.566618"));
        assert!(is_date_id("2026-11-25T20-38-20"));
        assert!(!is_date_id("2026-11-25T20-38-20."));
        assert!(!is_date_id("2026-11-25 20-38-20"));
        assert!(!is_date_id("arith"));
        let f = InputFile::new("m/samples_arith_gen_2026-11-25T20-38-20.5.jsonl", "");
        assert_eq!(date_id(&f), Some("2026-11-25T20-38-20.5"));
        assert_eq!(date_id(&InputFile::new("results.json", "")), None);
    }

    #[test]
    fn tasks_in_names() {
        let known: BTreeSet<&str> = ["arith_gen", "gen", "arith_mc"].into_iter().collect();
        let task = |name: &str| named_task(&InputFile::new(name, ""), &known);
        let k = |t: &str| NamedTask::Known(t.into());
        assert_eq!(
            task("samples_arith_gen_2026-11-25T20-38-20.5.jsonl"),
            k("arith_gen")
        );
        assert_eq!(
            task("samples_arith_gen_2026-11-25T20-38-20.5.json"),
            k("arith_gen")
        );
        assert_eq!(
            task("pretrained__org__model_arith_gen.jsonl"),
            k("arith_gen")
        );
        assert_eq!(task("arith_mc.json"), k("arith_mc"));
        assert_eq!(
            task("samples_other_2026-11-25T20-38-20.jsonl"),
            NamedTask::Unknown("other".into())
        );
        assert_eq!(task("part1.jsonl"), NamedTask::None);
    }
}
