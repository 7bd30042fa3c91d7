//! Scored runs → the lake's tables ([`build`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use super::schema::{self, TableSchema};
use super::{run_id, Cell, CellRef, Table};
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

/// A verdict's item: the run's item `i` (its key text and fields made once), or a key the run's
/// items do not have (its key text).
#[derive(Clone, Copy)]
enum ItemAt {
    Item(u32),
    /// The key's text is `others[i]`.
    Other(u32),
}

/// The run's items with their key texts, and where a judged key is among them: verdicts come in
/// key order as the items do, so a cursor finds most keys, a map the rest.
struct Items<'a> {
    rows: &'a [ItemRow],
    keys: Vec<String>,
    /// Key texts of judged keys that are not items'.
    others: Vec<String>,
    cursor: usize,
    index: Option<HashMap<&'a ItemKey, usize>>,
}

impl<'a> Items<'a> {
    /// `keys`: each row's key text.
    fn new(rows: &'a [ItemRow], keys: Vec<String>) -> Items<'a> {
        Items {
            rows,
            keys,
            others: Vec::new(),
            cursor: 0,
            index: None,
        }
    }

    /// Starts a new pass of keys in order.
    fn rewind(&mut self) {
        self.cursor = 0;
    }

    fn at(&mut self, key: &ItemKey) -> ItemAt {
        let rows = self.rows;
        while let Some(r) = rows.get(self.cursor) {
            if r.key < *key {
                self.cursor += 1;
            } else {
                break;
            }
        }
        let at = |i: usize| ItemAt::Item(u32::try_from(i).unwrap_or(u32::MAX));
        if rows.get(self.cursor).is_some_and(|r| r.key == *key) {
            return at(self.cursor);
        }
        let index = self
            .index
            .get_or_insert_with(|| rows.iter().enumerate().map(|(i, r)| (&r.key, i)).collect());
        match index.get(key) {
            Some(&i) => at(i),
            None => {
                self.others.push(key_json(key));
                ItemAt::Other(u32::try_from(self.others.len() - 1).unwrap_or(u32::MAX))
            }
        }
    }

    fn key_ref(&self, at: ItemAt) -> &str {
        let key = match at {
            ItemAt::Item(i) => self.keys.get(i as usize),
            ItemAt::Other(i) => self.others.get(i as usize),
        };
        key.map_or("", String::as_str)
    }

    fn fields(&self, at: ItemAt) -> &'a [(String, String)] {
        match at {
            ItemAt::Item(i) => self
                .rows
                .get(i as usize)
                .map_or(&[], |r| r.fields.as_slice()),
            ItemAt::Other(_) => &[],
        }
    }
}

/// One scorer's verdicts of a run, compact (no item key kept): sent in scorer-name order once
/// every scorer of the run is judged.
struct Judged {
    scorer: String,
    version: String,
    /// Each verdict's item and `correct`.
    rows: Vec<(ItemAt, Option<bool>)>,
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
    let family = family_name(family);
    let metadata = Value::Object(metadata).to_string();
    let metrics_json = serde_json::to_string(&metrics).unwrap_or_else(|_| "[]".into());
    let files = Value::Array(files).to_string();
    let own = run.verdicts(None).ok();
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
            CellRef::Str(&shash),
            CellRef::Str(&settings_line),
            CellRef::Str(&metadata),
            CellRef::Str(&metrics_json),
            CellRef::opt_str(lr.statistics_json.as_deref()),
            CellRef::Str(&files),
            CellRef::Str(version),
            CellRef::opt_str(own.as_ref().map(|v| v.judge.as_str())),
        ],
    );

    // Items under the run's own judge: samples, their texts, their slice fields.
    let mut items: Vec<ItemRow> = match run.items() {
        Ok(i) => i,
        Err(e) => {
            warnings.push(format!("{}: no item rows: {e}", run.name()));
            Vec::new()
        }
    };
    // A group that failed whole is a prefix of its items' keys: look each prefix up.
    let failed_by_key: HashMap<&ItemKey, &String> = own
        .as_ref()
        .map(|v| v.failed.iter().map(|(g, why)| (g, why)).collect())
        .unwrap_or_default();
    let failure_of = |key: &ItemKey| {
        if failed_by_key.is_empty() {
            return None;
        }
        (1..=key.0.len()).find_map(|n| {
            let prefix = ItemKey(key.0[..n].to_vec());
            failed_by_key.get(&prefix).map(|why| why.as_str())
        })
    };
    let keys: Vec<String> = items.iter().map(|r| key_json(&r.key)).collect();
    for (row, k) in items.iter().zip(&keys) {
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
        let fields = Value::Object(fields).to_string();
        sink.row(
            &schema::SAMPLES,
            &[
                CellRef::Str(id),
                CellRef::Str(k),
                CellRef::Null,
                CellRef::Str(status),
                CellRef::opt_str(error),
                CellRef::opt_str(text_of(row, "answer")),
                CellRef::Null,
                CellRef::Null,
                CellRef::Null,
                CellRef::Null,
                CellRef::Null,
                CellRef::Null,
                CellRef::Str(&fields),
            ],
        );
        sink.row(
            &schema::SAMPLE_TEXT,
            &[
                CellRef::Str(id),
                CellRef::Str(k),
                CellRef::Null,
                CellRef::opt_str(text_of(row, "question")),
                CellRef::opt_str(text_of(row, "expected")),
                CellRef::opt_str(text_of(row, "answer")),
                CellRef::Null,
            ],
        );
    }

    // The texts are sent: only keys and slice fields are needed from here.
    for row in &mut items {
        row.texts = Vec::new();
    }
    let mut at = Items::new(&items, keys);

    // Verdicts and their sums, under every judge the run offers, sent in scorer order.
    let mut judged: Vec<Judged> = Vec::new();
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
        at.rewind();
        let rows = v.rows.iter().map(|r| (at.at(&r.key), r.correct)).collect();
        let version = scorer_version(&v.judge);
        let mut j = Judged {
            scorer: v.judge,
            version,
            rows,
            values: None,
            label_none: "unscored",
            aggregates: Vec::new(),
        };
        j.aggregates = aggregate_rows(id, &shash, &j, &at);
        judged.push(j);
    }
    if let (Some(marks), Some(own)) = (lr.marks, &own) {
        at.rewind();
        let human = human_verdicts(marks, own);
        let values = human
            .iter()
            .map(|v| {
                let score = marks.get(&v.key).and_then(|m| m.score);
                score.or(v.correct.map(|c| f64::from(u8::from(c))))
            })
            .collect();
        let rows = human.iter().map(|v| (at.at(&v.key), v.correct)).collect();
        let mut j = Judged {
            scorer: HUMAN.into(),
            version: crate::marks::SCHEMA.into(),
            rows,
            values: Some(values),
            label_none: "score",
            aggregates: Vec::new(),
        };
        j.aggregates = aggregate_rows(id, &shash, &j, &at);
        judged.push(j);
    }
    judged.sort_by(|a, b| a.scorer.cmp(&b.scorer));
    for j in &judged {
        for (i, &(item, correct)) in j.rows.iter().enumerate() {
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
                    CellRef::Str(at.key_ref(item)),
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
    for j in &judged {
        for row in &j.aggregates {
            let cells: Vec<CellRef<'_>> = row.iter().map(Cell::as_ref).collect();
            sink.row(&schema::AGGREGATES, &cells);
        }
    }
}

/// The human marks of the run's items (`own`: its verdicts under its own judge, for its keys)
/// that set a mark or a score: correct or wrong by the mark, `None` with a score alone. As
/// verdicts of scorer [`HUMAN`]: `value` the score override, else 1 or 0 by the mark; `label`
/// `correct`, `wrong` or `score` (an override alone); `scorer_version` the sidecar's schema.
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
fn aggregate_rows(id: &str, shash: &str, j: &Judged, items: &Items<'_>) -> Vec<Vec<Cell>> {
    let mut slices: BTreeMap<(&str, &str), Sums> = BTreeMap::new();
    let mut values_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut overall = Sums::default();
    for &(item, correct) in &j.rows {
        overall.push(correct);
        for (f, val) in items.fields(item) {
            let seen = values_of.entry(f).or_default();
            if seen.len() <= MAX_SLICE_VALUES {
                seen.insert(val);
            }
            slices.entry((f, val)).or_default().push(correct);
        }
    }
    slices.insert(("", ""), overall);
    let mut out = Vec::new();
    for ((field, value), s) in slices {
        if !field.is_empty()
            && values_of
                .get(field)
                .is_none_or(|vals| vals.len() > MAX_SLICE_VALUES)
        {
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
