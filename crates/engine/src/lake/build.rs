//! Scored runs → the lake's tables ([`build`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use super::schema::{self, TableSchema};
use super::{run_id, Cell, Table};
use crate::compare::{CompareOptions, PairTexts};
use crate::run::{compare_in, CompareSettings, RunRef, Settings, ALL_FAMILIES};
use crate::run_table::{ItemKey, ItemRow, Verdicts};
use crate::stats::BOOTSTRAP_METHOD;

/// A slice field with more distinct values than this (an id, a free text) is not summed per
/// value in `aggregates`: it would be a row per item.
const MAX_SLICE_VALUES: usize = 50;

/// One scored run to export, with what the engine cannot know by itself: its content id and
/// its files (the consumer hashed them), and the settings it was scored under.
#[derive(Clone)]
pub struct LakeRun<'a> {
    pub run: RunRef<'a>,
    /// [`crate::run_table::content_id`] of its files.
    pub content_id: String,
    /// `(path relative to the run, size, SHA-256 hex)` of every input file, in path order.
    pub files: Vec<(String, u64, String)>,
    pub settings: &'a Settings,
    /// The run's statistics as the consumer prints them (`score --json`'s, compact), kept in
    /// `runs.statistics_json` for a lake read back.
    pub statistics_json: Option<String>,
    /// The human review marks of this run's content id (`evalboard export --marks`), exported as
    /// the verdicts (and aggregates) of scorer [`HUMAN`].
    pub marks: Option<&'a crate::marks::RunMarks>,
}

/// The scorer human review marks are exported under (`verdicts.scorer`).
pub const HUMAN: &str = "human";

/// Every table of the schema, in [`schema::TABLES`] order, with what building them found (a
/// run given twice, a run that could not be judged).
#[derive(Debug, Clone, PartialEq)]
pub struct LakeTables {
    pub tables: Vec<Table>,
    pub warnings: Vec<String>,
}

impl LakeTables {
    /// The table named `name`.
    pub fn get(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.schema.name == name)
    }
}

/// The first 16 hex digits of the SHA-256 of `profile` and the settings in one line: equal
/// settings give equal hashes.
pub fn settings_hash(profile: &str, settings_line: &str) -> String {
    let digest = crate::run_table::sha256(format!("{profile}\n{settings_line}").as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The tables of `runs` (each row keyed by its run's `run_id`; a run given twice is exported
/// once), with a `comparisons` row per run against its baseline — the one of `baselines` of its
/// task, else the first; a baseline need not be exported — for every scorer of the baseline,
/// under `opts`' bootstrap. `version` is the
/// evalboard version the rows say wrote them.
pub fn build(
    runs: &[LakeRun<'_>],
    baselines: &[LakeRun<'_>],
    opts: &CompareOptions,
    version: &str,
) -> LakeTables {
    let tasks: Vec<Option<String>> = baselines
        .iter()
        .map(|b| b.run.task_and_dataset().0)
        .collect();
    let mut t = Acc::new();
    let mut warnings = Vec::new();
    let mut seen = BTreeSet::new();
    for lr in runs {
        let id = run_id(&lr.content_id);
        if !seen.insert(id.clone()) {
            warnings.push(format!(
                "{}: the same files as a run already exported (run_id {id}); exported once",
                lr.run.name()
            ));
            continue;
        }
        export_run(lr, &id, version, &mut t, &mut warnings);
        let task = lr.run.task_and_dataset().0;
        let of_task = tasks.iter().position(|t| *t == task && task.is_some());
        if let Some(b) = of_task
            .or((!baselines.is_empty()).then_some(0))
            .and_then(|i| baselines.get(i))
        {
            let bid = run_id(&b.content_id);
            if bid != id {
                compare_rows(b, lr, opts, &mut t, &mut warnings);
            }
        }
    }
    let tables = schema::TABLES
        .iter()
        .map(|s| {
            // Blocks in key order, each block's rows in item-key order already.
            let blocks = t.remove(s.name).unwrap_or_default();
            Table {
                schema: s,
                rows: blocks.into_values().flatten().collect(),
            }
        })
        .collect();
    LakeTables { tables, warnings }
}

/// A block of rows' key: its run id(s) and scorer. Rows are pushed block by block, each block in
/// item-key order, so a table is its blocks in key order with no sort of its rows.
type Block = (String, String, String);

/// The tables being built: each table's blocks of rows.
type Acc = BTreeMap<&'static str, BTreeMap<Block, Vec<Vec<Cell>>>>;

fn push_rows(t: &mut Acc, s: &'static TableSchema, key: Block, rows: Vec<Vec<Cell>>) {
    t.entry(s.name)
        .or_default()
        .entry(key)
        .or_default()
        .extend(rows);
}

fn push(t: &mut Acc, s: &'static TableSchema, key: Block, row: Vec<Cell>) {
    push_rows(t, s, key, vec![row]);
}

fn key_json(key: &ItemKey) -> String {
    key.to_json().to_string()
}

/// The judges the run's verdicts are exported under: every judge the run offers, else its own.
fn judges(run: &RunRef<'_>) -> Vec<Option<String>> {
    let choices = run.judge_choices_in::<ALL_FAMILIES>();
    if choices.is_empty() {
        vec![None]
    } else {
        choices.into_iter().map(|c| Some(c.judge)).collect()
    }
}

fn scorer_version(scorer: &str) -> String {
    scorer
        .split_once('@')
        .map(|(_, v)| v.to_string())
        .unwrap_or_default()
}

fn export_run(lr: &LakeRun<'_>, id: &str, version: &str, t: &mut Acc, warnings: &mut Vec<String>) {
    let run = &lr.run;
    let family = run.family();
    let profile = run.profile();
    let settings_line = lr.settings.in_one_line(family);
    let shash = settings_hash(&profile, &settings_line);
    let metrics = run.metrics();
    let facts = run.facts_of(&metrics);
    let meta = run.meta();
    let (groups, items_n) = run.counts();
    let headline = metrics.first();
    let metadata: Map<String, Value> = meta
        .fields
        .iter()
        .map(|f| (f.key.clone(), Value::from(f.value.clone())))
        .collect();
    let files: Vec<Value> = lr
        .files
        .iter()
        .map(|(p, size, sha)| json!({"path": p, "size": size, "sha256": sha}))
        .collect();
    let nk = || (id.to_string(), String::new(), String::new());
    push(
        t,
        &schema::RUNS,
        nk(),
        vec![
            Cell::Str(id.to_string()),
            Cell::Str(lr.content_id.clone()),
            Cell::Str(run.name().to_string()),
            Cell::Str(run.tool().to_string()),
            Cell::Str(family_name(family)),
            Cell::Str(profile.clone()),
            Cell::opt_str(facts.task.clone()),
            Cell::opt_str(facts.dataset.clone()),
            Cell::opt_str(facts.model.clone()),
            Cell::opt_str(meta.get("tool_version").map(str::to_string)),
            Cell::Null,
            Cell::Null,
            Cell::Str("scored".into()),
            Cell::count(groups as u64),
            Cell::count(items_n as u64),
            Cell::count(run.diagnostics().len() as u64),
            Cell::Str(headline.map(|m| m.key.clone()).unwrap_or_default()),
            Cell::opt_f64(headline.and_then(|m| m.value)),
            Cell::opt_f64(facts.cost_usd),
            facts.tokens.map_or(Cell::Null, Cell::count),
            Cell::Str(shash.clone()),
            Cell::Str(settings_line),
            Cell::Str(Value::Object(metadata).to_string()),
            Cell::Str(serde_json::to_string(&metrics).unwrap_or_else(|_| "[]".into())),
            Cell::opt_str(lr.statistics_json.clone()),
            Cell::Str(Value::Array(files).to_string()),
            Cell::Str(version.to_string()),
        ],
    );

    // Items under the run's own judge: samples, their texts, their slice fields.
    let items: Vec<ItemRow> = match run.items() {
        Ok(i) => i,
        Err(e) => {
            warnings.push(format!("{}: no item rows: {e}", run.name()));
            Vec::new()
        }
    };
    let own = run.verdicts(None).ok();
    let failed: Vec<&(ItemKey, String)> = own
        .as_ref()
        .map(|v| v.failed.iter().collect())
        .unwrap_or_default();
    // A group that failed whole is a prefix of its items' keys: look each prefix up.
    let failed_by_key: HashMap<&ItemKey, &String> =
        failed.iter().map(|(g, why)| (g, why)).collect();
    let failure_of = |key: &ItemKey| {
        if failed_by_key.is_empty() {
            return None;
        }
        (1..=key.0.len()).find_map(|n| {
            let prefix = ItemKey(key.0[..n].to_vec());
            failed_by_key.get(&prefix).map(|why| (*why).clone())
        })
    };
    let text_of = |row: &ItemRow, name: &str| {
        row.texts
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t.clone())
    };
    let mut samples = Vec::with_capacity(items.len());
    let mut texts = Vec::with_capacity(items.len());
    for row in &items {
        let k = key_json(&row.key);
        let error = failure_of(&row.key);
        let status = match (row.verdict, &error) {
            (_, Some(_)) => "failed",
            (Some(_), None) => "scored",
            (None, None) => "unscored",
        };
        let fields: Map<String, Value> = row
            .fields
            .iter()
            .map(|(f, v)| (f.clone(), Value::from(v.clone())))
            .collect();
        samples.push(vec![
            Cell::Str(id.to_string()),
            Cell::Str(k.clone()),
            Cell::Null,
            Cell::Str(status.into()),
            Cell::opt_str(error),
            Cell::opt_str(text_of(row, "answer")),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Str(Value::Object(fields).to_string()),
        ]);
        texts.push(vec![
            Cell::Str(id.to_string()),
            Cell::Str(k),
            Cell::Null,
            Cell::opt_str(text_of(row, "question")),
            Cell::opt_str(text_of(row, "expected")),
            Cell::opt_str(text_of(row, "answer")),
            Cell::Null,
        ]);
    }
    push_rows(t, &schema::SAMPLES, nk(), samples);
    push_rows(t, &schema::SAMPLE_TEXT, nk(), texts);
    let fields_of: HashMap<&ItemKey, &[(String, String)]> = items
        .iter()
        .map(|r| (&r.key, r.fields.as_slice()))
        .collect();

    // Verdicts and their sums, under every judge the run offers.
    let mut done = BTreeSet::new();
    for judge in judges(run) {
        let v = match run.verdicts(judge.as_deref()) {
            Ok(v) => v,
            Err(e) => {
                warnings.push(format!(
                    "{}: not judged by {}: {e}",
                    run.name(),
                    judge.as_deref().unwrap_or("its own scorer")
                ));
                continue;
            }
        };
        if !done.insert(v.judge.clone()) {
            continue;
        }
        verdict_rows(id, &shash, &v, t);
        aggregate_rows(id, &shash, &v, &fields_of, t);
    }
    if let (Some(marks), Some(own)) = (lr.marks, &own) {
        let judged = Verdicts {
            judge: HUMAN.into(),
            rows: human_verdicts(marks, own),
            ..Verdicts::default()
        };
        human_rows(id, &shash, marks, &judged, t);
        aggregate_rows(id, &shash, &judged, &fields_of, t);
    }
}

/// The human marks of the run's items (`own`: its verdicts under its own judge, for its keys)
/// that set a mark or a score: correct or wrong by the mark, `None` with a score alone.
fn human_verdicts(
    marks: &crate::marks::RunMarks,
    own: &Verdicts,
) -> Vec<crate::run_table::Verdict> {
    marks
        .items
        .iter()
        .filter(|m| m.mark.is_some() || m.score.is_some())
        .filter(|m| own.rows.binary_search_by(|v| v.key.cmp(&m.key)).is_ok())
        .map(|m| crate::run_table::Verdict {
            key: m.key.clone(),
            correct: m.mark.map(crate::marks::Mark::is_correct),
        })
        .collect()
}

/// The `verdicts` rows of scorer [`HUMAN`]: `value` the score override, else 1 or 0 by the
/// mark; `correct` the mark; `label` `correct`, `wrong` or `score` (an override alone);
/// `scorer_version` the sidecar's schema. `judged`: the marks as verdicts ([`human_verdicts`]:
/// marks of keys the run does not have are left out).
fn human_rows(
    id: &str,
    shash: &str,
    marks: &crate::marks::RunMarks,
    judged: &Verdicts,
    t: &mut Acc,
) {
    let mut rows = Vec::new();
    for v in &judged.rows {
        let score = marks.get(&v.key).and_then(|m| m.score);
        let value = score.or(v.correct.map(|c| f64::from(u8::from(c))));
        let label = match v.correct {
            Some(true) => "correct",
            Some(false) => "wrong",
            None => "score",
        };
        rows.push(vec![
            Cell::Str(id.to_string()),
            Cell::Str(key_json(&v.key)),
            Cell::Null,
            Cell::Str(HUMAN.into()),
            Cell::Str(crate::marks::SCHEMA.into()),
            Cell::Str(shash.to_string()),
            value.map_or(Cell::Null, Cell::Float),
            v.correct.map_or(Cell::Null, Cell::Bool),
            Cell::Str(label.into()),
        ]);
    }
    push_rows(
        t,
        &schema::VERDICTS,
        (id.to_string(), String::new(), HUMAN.into()),
        rows,
    );
}

fn family_name(f: crate::family::Family) -> String {
    match serde_json::to_value(f) {
        Ok(Value::String(s)) => s,
        _ => f.label().to_string(),
    }
}

fn verdict_rows(id: &str, shash: &str, v: &Verdicts, t: &mut Acc) {
    let version = scorer_version(&v.judge);
    let mut rows = Vec::with_capacity(v.rows.len());
    for r in &v.rows {
        let (value, label) = match r.correct {
            Some(true) => (Cell::Float(1.0), "correct"),
            Some(false) => (Cell::Float(0.0), "wrong"),
            None => (Cell::Null, "unscored"),
        };
        rows.push(vec![
            Cell::Str(id.to_string()),
            Cell::Str(key_json(&r.key)),
            Cell::Null,
            Cell::Str(v.judge.clone()),
            Cell::Str(version.clone()),
            Cell::Str(shash.to_string()),
            value,
            r.correct.map_or(Cell::Null, Cell::Bool),
            Cell::Str(label.into()),
        ]);
    }
    push_rows(
        t,
        &schema::VERDICTS,
        (id.to_string(), String::new(), v.judge.clone()),
        rows,
    );
}

/// The mergeable sums of one slice's verdict values.
#[derive(Default)]
struct Sums {
    n: u64,
    n_scored: u64,
    n_correct: u64,
    sum: f64,
    sum_sq: f64,
    min: Option<f64>,
    max: Option<f64>,
    clusters: crate::stats::ClusterSums,
}

impl Sums {
    fn push(&mut self, correct: Option<bool>) {
        self.n += 1;
        let Some(c) = correct else { return };
        let x = if c { 1.0 } else { 0.0 };
        self.n_scored += 1;
        self.n_correct += u64::from(c);
        self.sum += x;
        self.sum_sq += x * x;
        self.min = Some(self.min.map_or(x, |m| m.min(x)));
        self.max = Some(self.max.map_or(x, |m| m.max(x)));
        // Each item its own cluster: the run table gives no epoch part generically yet.
        self.clusters.push_cluster(&[x]);
    }
}

fn aggregate_rows(
    id: &str,
    shash: &str,
    v: &Verdicts,
    fields_of: &HashMap<&ItemKey, &[(String, String)]>,
    t: &mut Acc,
) {
    let mut slices: BTreeMap<(String, String), Sums> = BTreeMap::new();
    let mut values_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in &v.rows {
        slices
            .entry((String::new(), String::new()))
            .or_default()
            .push(r.correct);
        for (f, val) in fields_of.get(&r.key).copied().unwrap_or_default() {
            let seen = values_of.entry(f).or_default();
            if seen.len() <= MAX_SLICE_VALUES {
                seen.insert(val);
            }
            slices
                .entry((f.clone(), val.clone()))
                .or_default()
                .push(r.correct);
        }
    }
    if v.rows.is_empty() {
        slices.insert((String::new(), String::new()), Sums::default());
    }
    let version = scorer_version(&v.judge);
    for ((field, value), s) in slices {
        if !field.is_empty()
            && values_of
                .get(field.as_str())
                .is_none_or(|vals| vals.len() > MAX_SLICE_VALUES)
        {
            continue;
        }
        let c = s.clusters;
        push(
            t,
            &schema::AGGREGATES,
            (id.to_string(), String::new(), v.judge.clone()),
            vec![
                Cell::Str(id.to_string()),
                Cell::Str(v.judge.clone()),
                Cell::Str(version.clone()),
                Cell::Str(shash.to_string()),
                Cell::Str(field),
                Cell::Str(value),
                Cell::count(s.n),
                Cell::count(s.n_scored),
                Cell::count(s.n_correct),
                Cell::Float(s.sum),
                Cell::Float(s.sum_sq),
                Cell::opt_f64(s.min),
                Cell::opt_f64(s.max),
                Cell::count(c.clusters),
                Cell::Float(c.sum_sq_cluster),
                Cell::Float(c.sum_cross),
                Cell::Float(c.sum_sq_size),
            ],
        );
    }
}

fn compare_rows(
    base: &LakeRun<'_>,
    cand: &LakeRun<'_>,
    opts: &CompareOptions,
    t: &mut Acc,
    warnings: &mut Vec<String>,
) {
    if base.run.family() != cand.run.family() {
        warnings.push(format!(
            "{}: not compared with {} (another family)",
            cand.run.name(),
            base.run.name()
        ));
        return;
    }
    let (bid, cid) = (run_id(&base.content_id), run_id(&cand.content_id));
    let mut done = BTreeSet::new();
    for judge in judges(&base.run) {
        let settings = CompareSettings {
            qa_scorer: judge.clone(),
            opts: CompareOptions {
                texts: PairTexts::None,
                ..opts.clone()
            },
            pairing: Default::default(),
        };
        let c = match compare_in::<ALL_FAMILIES>(base.run, cand.run, &settings) {
            Ok(c) => c,
            Err(e) => {
                warnings.push(format!(
                    "{} against {}: {e}",
                    cand.run.name(),
                    base.run.name()
                ));
                continue;
            }
        };
        if !done.insert(c.scorer.clone()) {
            continue;
        }
        let s = &c.stats.stats;
        let f = &s.flips;
        push(
            t,
            &schema::COMPARISONS,
            (bid.clone(), cid.clone(), c.scorer.clone()),
            vec![
                Cell::Str(bid.clone()),
                Cell::Str(cid.clone()),
                Cell::Str(c.baseline.clone()),
                Cell::Str(c.candidate.clone()),
                Cell::Str(c.scorer.clone()),
                Cell::count(s.n_paired),
                Cell::count(f.unchanged_correct),
                Cell::count(f.regressed),
                Cell::count(f.improved),
                Cell::count(f.unchanged_wrong),
                Cell::count(f.only_in_baseline),
                Cell::count(f.only_in_candidate),
                Cell::opt_f64(s.accuracy_delta),
                Cell::opt_f64(Some(s.mcnemar_p)),
                Cell::opt_f64(s.bootstrap.low),
                Cell::opt_f64(s.bootstrap.high),
                Cell::Str(BOOTSTRAP_METHOD.into()),
                Cell::Int(i64::from(s.bootstrap.resamples)),
                Cell::Int(s.bootstrap.seed as i64),
                Cell::opt_str(c.not_comparable.clone()),
            ],
        );
    }
}
