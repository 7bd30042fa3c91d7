//! Scored runs → the lake's tables ([`build`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use super::schema::{self, TableSchema};
use super::{run_id, Cell, CellRef, Table};
use crate::compare::{CompareOptions, PairTexts};
use crate::run::{
    compare_in, CompareSettings, ItemAt, ItemsJudged, JudgedRows, RunRef, Settings, ALL_FAMILIES,
};
use crate::run_table::{ItemKey, ItemRow};
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
    crate::run_table::hex(digest.get(..8).unwrap_or(&digest))
}

/// Where [`build_into`] sends the tables' rows: each table's rows in its key order (the
/// tables interleaved), each row one cell per column of its schema. A Parquet writer buffers a
/// row group at a time, so the tables are never held whole.
pub trait RowSink {
    fn row(&mut self, table: &'static TableSchema, cells: &[CellRef<'_>]);
}

/// Collects every row as [`Table`]s ([`build`]).
struct Collect(BTreeMap<&'static str, Vec<Vec<Cell>>>);

impl RowSink for Collect {
    fn row(&mut self, table: &'static TableSchema, cells: &[CellRef<'_>]) {
        self.0
            .entry(table.name)
            .or_default()
            .push(cells.iter().map(|c| c.to_cell()).collect());
    }
}

/// The tables of `runs` (each row keyed by its run's `run_id`; a run given twice is exported
/// once), with a `comparisons` row per run against its baseline — the one of `baselines` of its
/// task, else the first; a baseline need not be exported — for every scorer of the baseline,
/// under `opts`' bootstrap. `version` is the
/// evalboard version the rows say wrote them. [`build_into`] with the rows collected.
pub fn build(
    runs: &[LakeRun<'_>],
    baselines: &[LakeRun<'_>],
    opts: &CompareOptions,
    version: &str,
) -> LakeTables {
    let mut sink = Collect(BTreeMap::new());
    let warnings = build_into(runs, baselines, opts, version, &mut sink);
    let tables = schema::TABLES
        .iter()
        .map(|s| Table {
            schema: s,
            rows: sink.0.remove(s.name).unwrap_or_default(),
        })
        .collect();
    LakeTables { tables, warnings }
}

/// The tables of runs built apart ([`build`] of each part: runs held by different workers) as
/// one lake's: each table's rows in key order (the parts' rows ordered by their run ids, each
/// run's rows as its part made them), with every part's warnings. A run in two parts (the
/// same `run_id`) is kept from the first, with a warning.
pub fn merge(parts: Vec<LakeTables>) -> LakeTables {
    let mut warnings = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut out: Vec<Table> = schema::TABLES.iter().map(|s| Table::new(s)).collect();
    for part in parts {
        let ids: BTreeSet<String> = part
            .get(schema::RUNS.name)
            .map(|t| {
                t.rows
                    .iter()
                    .map(|r| id_of(r.first()).to_string())
                    .collect()
            })
            .unwrap_or_default();
        let again: BTreeSet<String> = ids.intersection(&seen).cloned().collect();
        for id in &again {
            warnings.push(format!(
                "run_id {id}: a run already exported from another worker; exported once"
            ));
        }
        seen.extend(ids);
        warnings.extend(part.warnings);
        for t in part.tables {
            let Some(into) = out.iter_mut().find(|o| o.schema.name == t.schema.name) else {
                continue;
            };
            // The run-id columns of the table's key: its first (`run_id`), or a comparison's two.
            let cols: Vec<usize> = run_id_columns(t.schema);
            // A run's own rows (one run id in the key) of a run kept from an earlier part go.
            let of_one_run = cols.len() == 1;
            into.rows.extend(t.rows.into_iter().filter(|r| {
                !(of_one_run && cols.iter().any(|&i| again.contains(id_of(r.get(i)))))
            }));
        }
    }
    for t in &mut out {
        let cols = run_id_columns(t.schema);
        // Stable: a run's rows keep their order.
        t.rows.sort_by(|a, b| {
            cols.iter()
                .map(|&i| id_of(a.get(i)).cmp(id_of(b.get(i))))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    LakeTables {
        tables: out,
        warnings,
    }
}

/// A run id cell's text ("" for any other cell).
fn id_of(c: Option<&Cell>) -> &str {
    match c {
        Some(Cell::Str(s)) => s,
        _ => "",
    }
}

/// The positions of the run ids that lead table `t`'s key (`run_id`; a comparison's baseline's
/// and candidate's).
fn run_id_columns(t: &TableSchema) -> Vec<usize> {
    t.key
        .iter()
        .take_while(|k| k.ends_with("run_id"))
        .filter_map(|k| t.index_of(k))
        .collect()
}

/// [`build`]'s rows sent to `sink` as they are made, each table's in key order: the runs in
/// `run_id` order, a run's rows one scorer at a time. Returns the warnings.
pub fn build_into(
    runs: &[LakeRun<'_>],
    baselines: &[LakeRun<'_>],
    opts: &CompareOptions,
    version: &str,
    sink: &mut dyn RowSink,
) -> Vec<String> {
    let tasks: Vec<Option<String>> = baselines
        .iter()
        .map(|b| b.run.task_and_dataset().0)
        .collect();
    let mut warnings = Vec::new();
    let mut seen = BTreeSet::new();
    let mut kept = Vec::new();
    for lr in runs {
        let id = run_id(&lr.content_id);
        if !seen.insert(id.clone()) {
            warnings.push(format!(
                "{}: the same files as a run already exported (run_id {id}); exported once",
                lr.run.name()
            ));
            continue;
        }
        kept.push((id, lr));
    }
    // Each table in key order: runs by run_id, so a run's rows come as one block.
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    // Comparisons are keyed by the baseline first: few rows, kept and sent last.
    let mut comparisons: BTreeMap<Block, Vec<Vec<Cell>>> = BTreeMap::new();
    for (id, lr) in kept {
        export_run(lr, &id, version, sink, &mut warnings);
        let task = lr.run.task_and_dataset().0;
        let of_task = tasks.iter().position(|t| *t == task && task.is_some());
        if let Some(b) = of_task
            .or((!baselines.is_empty()).then_some(0))
            .and_then(|i| baselines.get(i))
        {
            let bid = run_id(&b.content_id);
            if bid != id {
                compare_rows(b, lr, opts, &mut comparisons, &mut warnings);
            }
        }
    }
    for row in comparisons.into_values().flatten() {
        let cells: Vec<CellRef<'_>> = row.iter().map(Cell::as_ref).collect();
        sink.row(&schema::COMPARISONS, &cells);
    }
    warnings
}

/// A comparison's key: its baseline's and candidate's run ids and its scorer.
type Block = (String, String, String);

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

/// The item's text `name` (`question`, `expected`, `answer`).
fn text_of<'r>(row: &'r ItemRow, name: &str) -> Option<&'r str> {
    row.texts
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, t)| t.as_str())
}

/// The item's slice fields as a JSON object in `out`: in their order, a field named twice at
/// its first place with its last value (as a `serde_json::Map` of them prints).
fn fields_json(fields: &[(String, String)], out: &mut Vec<u8>) {
    out.clear();
    out.push(b'{');
    for (i, (f, _)) in fields.iter().enumerate() {
        if fields
            .get(..i)
            .is_some_and(|b| b.iter().any(|(g, _)| g == f))
        {
            continue;
        }
        let last = fields
            .iter()
            .rev()
            .find(|(g, _)| g == f)
            .map_or("", |(_, v)| v);
        if out.len() > 1 {
            out.push(b',');
        }
        // Writing a string into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, f);
        out.push(b':');
        let _ = serde_json::to_writer(&mut *out, last);
    }
    out.push(b'}');
}

/// What the verdicts and aggregates need of a run's items once their rows are sent: each
/// item's key text (end to end in one buffer) and its slice fields (each `(field, value)`
/// stored once, items holding their ids).
#[derive(Default)]
struct ItemStore {
    keys: String,
    key_ends: Vec<usize>,
    /// The key texts of keys no item has ([`ItemAt::Other`]).
    others: Vec<String>,
    /// Each item's field ids, end to end; `field_ends[i]` ends item `i`'s.
    field_ids: Vec<u32>,
    field_ends: Vec<usize>,
    fields: Vec<(String, String)>,
    field_index: HashMap<(String, String), u32>,
}

impl ItemStore {
    fn push(&mut self, key: &str, fields: Vec<(String, String)>) {
        self.keys.push_str(key);
        self.key_ends.push(self.keys.len());
        for f in fields {
            let next = u32::try_from(self.fields.len()).unwrap_or(u32::MAX);
            let id = *self.field_index.entry(f).or_insert_with_key(|f| {
                self.fields.push(f.clone());
                next
            });
            self.field_ids.push(id);
        }
        self.field_ends.push(self.field_ids.len());
    }

    fn key(&self, at: ItemAt) -> &str {
        match at {
            ItemAt::Item(i) => {
                let i = i as usize;
                let start = match i.checked_sub(1) {
                    Some(p) => self.key_ends.get(p).copied().unwrap_or(0),
                    None => 0,
                };
                let end = self.key_ends.get(i).copied().unwrap_or(start);
                self.keys.get(start..end).unwrap_or("")
            }
            ItemAt::Other(i) => self.others.get(i as usize).map_or("", String::as_str),
        }
    }

    /// The field ids of the item.
    fn field_ids(&self, at: ItemAt) -> &[u32] {
        let ItemAt::Item(i) = at else { return &[] };
        let i = i as usize;
        let start = match i.checked_sub(1) {
            Some(p) => self.field_ends.get(p).copied().unwrap_or(0),
            None => 0,
        };
        let end = self.field_ends.get(i).copied().unwrap_or(start);
        self.field_ids.get(start..end).unwrap_or_default()
    }
}

/// One scorer's verdicts of a run, compact (no item key kept): sent in scorer-name order once
/// every scorer of the run is judged.
struct Judged {
    scorer: String,
    version: String,
    rows: JudgedRows,
    /// Each verdict's `value` when it is not `correct` as 1 or 0 (human review's scores).
    values: Option<Vec<Option<f64>>>,
    /// The label of a verdict with no `correct`.
    label_none: &'static str,
    aggregates: Vec<Vec<Cell>>,
}

fn export_run(
    lr: &LakeRun<'_>,
    id: &str,
    version: &str,
    sink: &mut dyn RowSink,
    warnings: &mut Vec<String>,
) {
    let run = &lr.run;
    let family = run.family();
    let profile = run.profile();
    let settings_line = lr.settings.in_one_line(family);
    let shash = settings_hash(&profile, &settings_line);

    // Items under the run's own judge (samples, their texts: sent as they are made), and the
    // verdicts under every judge the run offers, in one pass (the keys built once).
    let judge_names = judges(run);
    let asked: Vec<Option<&str>> = judge_names.iter().map(Option::as_deref).collect();
    let mut store = ItemStore::default();
    let mut key = String::new();
    let mut fields_buf = Vec::new();
    let judged = run.items_judged_in::<ALL_FAMILIES>(&asked, |row, error| {
        key.clear();
        key.push_str(&key_json(&row.key));
        let status = match (row.verdict, &error) {
            (_, Some(_)) => "failed",
            (Some(_), None) => "scored",
            (None, None) => "unscored",
        };
        fields_json(&row.fields, &mut fields_buf);
        let fields = std::str::from_utf8(&fields_buf).unwrap_or("{}");
        let u = &row.usage;
        sink.row(
            &schema::SAMPLES,
            &[
                CellRef::Str(id),
                CellRef::Str(&key),
                CellRef::Null,
                CellRef::Str(status),
                CellRef::opt_str(error),
                CellRef::opt_str(text_of(&row, "answer")),
                u.input_tokens().map_or(CellRef::Null, CellRef::count),
                u.tokens.map_or(CellRef::Null, |t| CellRef::count(t.output)),
                u.tokens
                    .filter(|t| t.reasoning > 0)
                    .map_or(CellRef::Null, |t| CellRef::count(t.reasoning)),
                CellRef::opt_f64(u.latency_ms),
                CellRef::opt_f64(u.cost_usd),
                CellRef::opt_str(u.source_scores.as_deref()),
                CellRef::Str(fields),
            ],
        );
        sink.row(
            &schema::SAMPLE_TEXT,
            &[
                CellRef::Str(id),
                CellRef::Str(&key),
                CellRef::Null,
                CellRef::opt_str(text_of(&row, "question")),
                CellRef::opt_str(text_of(&row, "expected")),
                CellRef::opt_str(text_of(&row, "answer")),
                CellRef::Null,
            ],
        );
        store.push(&key, row.fields);
    });
    let judged = match judged {
        Ok(j) => Some(j),
        Err(e) => {
            warnings.push(format!("{}: no item rows: {e}", run.name()));
            None
        }
    };
    runs_row(lr, id, version, &shash, &settings_line, &judged, sink);
    let Some(judged) = judged else { return };
    store.others = judged.others.iter().map(key_json).collect();

    // Verdicts and their sums, under every judge the run offers, sent in scorer order.
    let mut out: Vec<Judged> = Vec::new();
    let mut done = BTreeSet::new();
    for (judge, v) in judge_names.iter().zip(judged.judges) {
        let v = match v {
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
        let mut j = Judged {
            scorer: v.judge.clone(),
            version: scorer_version(&v.judge),
            rows: v,
            values: None,
            label_none: "unscored",
            aggregates: Vec::new(),
        };
        j.aggregates = aggregate_rows(id, &shash, &j, &store);
        out.push(j);
    }
    if let Some(marks) = lr.marks {
        let mut j = human_verdicts(marks, &store, judged.items);
        j.aggregates = aggregate_rows(id, &shash, &j, &store);
        out.push(j);
    }
    out.sort_by(|a, b| a.scorer.cmp(&b.scorer));
    for j in &out {
        for (i, &correct) in j.rows.correct.iter().enumerate() {
            let value = match &j.values {
                Some(v) => v.get(i).copied().flatten(),
                None => correct.map(|c| f64::from(u8::from(c))),
            };
            let label = match correct {
                Some(true) => "correct",
                Some(false) => "wrong",
                None => j.label_none,
            };
            sink.row(
                &schema::VERDICTS,
                &[
                    CellRef::Str(id),
                    CellRef::Str(store.key(j.rows.item(i))),
                    CellRef::Null,
                    CellRef::Str(&j.scorer),
                    CellRef::Str(&j.version),
                    CellRef::Str(&shash),
                    value.map_or(CellRef::Null, CellRef::Float),
                    correct.map_or(CellRef::Null, CellRef::Bool),
                    CellRef::Str(label),
                ],
            );
        }
    }
    for j in &out {
        for row in &j.aggregates {
            let cells: Vec<CellRef<'_>> = row.iter().map(Cell::as_ref).collect();
            sink.row(&schema::AGGREGATES, &cells);
        }
    }
}

/// The run's `runs` row; `judged`: its items judged ([`RunRef::items_judged_in`]), which name
/// its own judge.
fn runs_row(
    lr: &LakeRun<'_>,
    id: &str,
    version: &str,
    shash: &str,
    settings_line: &str,
    judged: &Option<ItemsJudged>,
    sink: &mut dyn RowSink,
) {
    let run = &lr.run;
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
    let family = family_name(run.family());
    let profile = run.profile();
    let metadata = Value::Object(metadata).to_string();
    let metrics_json = serde_json::to_string(&metrics).unwrap_or_else(|_| "[]".into());
    let files = Value::Array(files).to_string();
    sink.row(
        &schema::RUNS,
        &[
            CellRef::Str(id),
            CellRef::Str(&lr.content_id),
            CellRef::Str(run.name()),
            CellRef::Str(run.tool()),
            CellRef::Str(&family),
            CellRef::Str(&profile),
            CellRef::opt_str(facts.task.as_deref()),
            CellRef::opt_str(facts.dataset.as_deref()),
            CellRef::opt_str(facts.model.as_deref()),
            CellRef::opt_str(meta.get("tool_version")),
            CellRef::Null,
            CellRef::Null,
            CellRef::Str("scored"),
            CellRef::count(groups as u64),
            CellRef::count(items_n as u64),
            CellRef::count(run.diagnostics().len() as u64),
            CellRef::Str(headline.map_or("", |m| m.key.as_str())),
            CellRef::opt_f64(headline.and_then(|m| m.value)),
            CellRef::opt_f64(facts.cost_usd),
            facts.tokens.map_or(CellRef::Null, CellRef::count),
            CellRef::Str(shash),
            CellRef::Str(settings_line),
            CellRef::Str(&metadata),
            CellRef::Str(&metrics_json),
            CellRef::opt_str(lr.statistics_json.as_deref()),
            CellRef::Str(&files),
            CellRef::Str(version),
            CellRef::opt_str(judged.as_ref().map(|j| j.own.judge.as_str())),
        ],
    );
}

/// The human marks of the run's items (`items` of them, their keys in `store`) that set a mark
/// or a score: correct or wrong by the mark, `None` with a score alone. As verdicts of scorer
/// [`HUMAN`]: `value` the score override, else 1 or 0 by the mark; `label` `correct`, `wrong`
/// or `score` (an override alone); `scorer_version` the sidecar's schema. In key order.
fn human_verdicts(marks: &crate::marks::RunMarks, store: &ItemStore, items: usize) -> Judged {
    let at = |i: usize| ItemAt::Item(u32::try_from(i).unwrap_or(u32::MAX));
    let index: HashMap<&str, usize> = (0..items).map(|i| (store.key(at(i)), i)).collect();
    let mut marked: Vec<(usize, Option<bool>, Option<f64>)> = marks
        .items
        .iter()
        .filter(|m| m.mark.is_some() || m.score.is_some())
        .filter_map(|m| {
            let i = *index.get(key_json(&m.key).as_str())?;
            let correct = m.mark.map(crate::marks::Mark::is_correct);
            Some((i, correct, m.score))
        })
        .collect();
    // Items are in key order: by position is by key. A key marked twice counts once.
    marked.sort_by_key(|m| m.0);
    marked.dedup_by_key(|m| m.0);
    Judged {
        scorer: HUMAN.into(),
        version: crate::marks::SCHEMA.into(),
        rows: JudgedRows {
            judge: HUMAN.into(),
            at: Some(marked.iter().map(|m| at(m.0)).collect()),
            correct: marked.iter().map(|m| m.1).collect(),
            failed: Vec::new(),
            warnings: Vec::new(),
        },
        values: Some(
            marked
                .iter()
                .map(|&(_, c, score)| score.or(c.map(|c| f64::from(u8::from(c)))))
                .collect(),
        ),
        label_none: "score",
        aggregates: Vec::new(),
    }
}

fn family_name(f: crate::family::Family) -> String {
    match serde_json::to_value(f) {
        Ok(Value::String(s)) => s,
        _ => f.label().to_string(),
    }
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

/// The `aggregates` rows of one scorer's verdicts: overall, and per value of each slice field
/// with at most [`MAX_SLICE_VALUES`] values, in (field, value) order.
fn aggregate_rows(id: &str, shash: &str, j: &Judged, items: &ItemStore) -> Vec<Vec<Cell>> {
    // By field id: one (field, value) of the store each.
    let mut by_id: Vec<Option<Sums>> = Vec::new();
    by_id.resize_with(items.fields.len(), || None);
    let mut overall = Sums::default();
    for (i, &correct) in j.rows.correct.iter().enumerate() {
        overall.push(correct);
        for &f in items.field_ids(j.rows.item(i)) {
            if let Some(s) = by_id.get_mut(f as usize) {
                s.get_or_insert_with(Sums::default).push(correct);
            }
        }
    }
    let mut slices: BTreeMap<(&str, &str), Sums> = BTreeMap::new();
    let mut values_of: BTreeMap<&str, usize> = BTreeMap::new();
    for ((f, v), s) in items.fields.iter().zip(by_id) {
        if let Some(s) = s {
            *values_of.entry(f).or_default() += 1;
            slices.insert((f, v), s);
        }
    }
    slices.insert(("", ""), overall);
    let mut out = Vec::new();
    for ((field, value), s) in slices {
        if !field.is_empty() && values_of.get(field).is_none_or(|&n| n > MAX_SLICE_VALUES) {
            continue;
        }
        let c = s.clusters;
        out.push(vec![
            Cell::Str(id.to_string()),
            Cell::Str(j.scorer.clone()),
            Cell::Str(j.version.clone()),
            Cell::Str(shash.to_string()),
            Cell::Str(field.to_string()),
            Cell::Str(value.to_string()),
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
        ]);
    }
    out
}

fn compare_rows(
    base: &LakeRun<'_>,
    cand: &LakeRun<'_>,
    opts: &CompareOptions,
    t: &mut BTreeMap<Block, Vec<Vec<Cell>>>,
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
        t.entry((bid.clone(), cid.clone(), c.scorer.clone()))
            .or_default()
            .push(vec![
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
            ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_json_prints_what_a_map_of_the_fields_prints() {
        let cases: &[&[(&str, &str)]] = &[
            &[],
            &[("category", "a"), ("turn", "1")],
            &[("b", "1"), ("a", "2\"\n\u{1}é")],
            &[("x", "1"), ("y", "2"), ("x", "3")],
        ];
        let mut buf = Vec::new();
        for fields in cases {
            let owned: Vec<(String, String)> = fields
                .iter()
                .map(|(f, v)| (f.to_string(), v.to_string()))
                .collect();
            let map: Map<String, Value> = owned
                .iter()
                .map(|(f, v)| (f.clone(), Value::from(v.clone())))
                .collect();
            fields_json(&owned, &mut buf);
            assert_eq!(
                std::str::from_utf8(&buf).unwrap(),
                Value::Object(map).to_string()
            );
        }
    }
}
