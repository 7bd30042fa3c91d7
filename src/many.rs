//! The worker's many-runs view (the dashboard's "All runs" tab): every run of one family against
//! the baseline the user pins, through the engine's one many-runs comparison
//! ([`evalboard_engine::compare::many::compare_many_in`], the function `evalboard compare`
//! calls), laid out as screen blocks: the ranked table and its reading, an interval plot of every
//! run's Δ with its bootstrap CI, the cost–quality frontier with the unpriced runs beside it, the
//! models × tasks grid, and a runs × items matrix (an items layout, paged) marking each item's
//! regressions and improvements against the pinned baseline. Pure (no browser types): the
//! comparison is computed once per (baselines, runs) and kept ([`Many`]) until the runs or the
//! settings change; every query (a filter, a page of the matrix) reads the kept one.

use evalboard_engine::compare::many::{
    compare_many_in, ManyComparison, ManyError, ManyRun, RunRow,
};
use evalboard_engine::compare::{p_value_text, CompareOptions, PairTexts, Pairing};
use evalboard_engine::lake::Cell as LakeCell;
use evalboard_engine::run::{CompareSettings, FamilySet, RunRef};
use evalboard_engine::run_table::{ItemKey, Unit};

use crate::format::{self, NONE};
use crate::protocol::{
    Block, Cell, ChartDto, Choice, ItemsLayout, ScreenFilter, ScreenQuery, ScreenRow, ScreenView,
    Table, TableRow,
};
use crate::screen;
use evalboard_report::charts::Theme;
use evalboard_report::many_charts;

/// How the dashboard compares many runs: `evalboard compare`'s defaults (10,000 resamples, seed
/// 42, items as judged; only counts are shown, so no pair keeps its texts), judged by `scorer`
/// (`compare --scorer`, the tab's "Judged by") when one is picked.
pub fn settings(scorer: Option<&str>) -> CompareSettings {
    CompareSettings {
        qa_scorer: scorer.map(str::to_string),
        opts: CompareOptions {
            texts: PairTexts::Changed,
            ..CompareOptions::default()
        },
        pairing: Pairing::AsJudged,
    }
}

/// The many-runs comparison of `runs` against `baselines` (each `(name the page knows it by,
/// run)`; with several baselines, one per task), for a worker of `FAMILIES`: what the "All runs"
/// tab shows, and what `crates/cli/tests/it/one_answer.rs` checks against `evalboard compare
/// --json`. A row's `path` is the page's name of the run.
pub fn compare_in<'a, const FAMILIES: FamilySet>(
    baselines: &[(&str, RunRef<'a>)],
    runs: &[(&str, RunRef<'a>)],
) -> Result<ManyComparison, ManyError> {
    compare_judged_in::<FAMILIES>(baselines, runs, None)
}

/// [`compare_in`] judged by `scorer` (`compare --scorer S`; `None`: each run's headline, a
/// suite task by task).
pub fn compare_judged_in<'a, const FAMILIES: FamilySet>(
    baselines: &[(&str, RunRef<'a>)],
    runs: &[(&str, RunRef<'a>)],
    scorer: Option<&str>,
) -> Result<ManyComparison, ManyError> {
    fn many<'a>(list: &[(&str, RunRef<'a>)]) -> Vec<ManyRun<'a>> {
        list.iter()
            .map(|(name, r)| ManyRun {
                path: name.to_string(),
                run: Ok(*r),
            })
            .collect()
    }
    // A worker has one thread.
    compare_many_in::<FAMILIES>(&many(baselines), &many(runs), &settings(scorer), 1)
}

/// One run's judging of one item in the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// The run has no such item.
    Missing,
    /// Present, not scored.
    Unscored,
    Right,
    Wrong,
}

impl Mark {
    fn of(v: Option<bool>) -> Mark {
        match v {
            Some(true) => Mark::Right,
            Some(false) => Mark::Wrong,
            None => Mark::Unscored,
        }
    }
}

/// A many-runs comparison as the worker keeps it: the comparison (or why there is none) and the
/// matrix of the pinned baseline (the first one) and the runs compared with it, laid out when a
/// page of it is first asked for ([`Many::lay_matrix`]): the ranked table does not wait for it.
pub struct Many {
    pub cmp: Result<ManyComparison, String>,
    /// Each baseline's run name (as rows name their baseline) and the page's name of it.
    bases: Vec<(String, String)>,
    matrix: Option<Matrix>,
    /// What judges the runs when picked (`compare --scorer`), and the "Judged by" choice of
    /// the pinned baseline's judges.
    judge: Option<String>,
    choice: Option<Block>,
}

/// The runs × items matrix: every item any column scored, and each column's verdict of it.
struct Matrix {
    /// The matrix's columns: the pinned baseline, then its runs in ranked order (page names).
    cols: Vec<String>,
    /// Every item any column scored, in key order, and its key as shown (and searched, lowercased).
    keys: Vec<ItemKey>,
    texts: Vec<(String, String)>,
    /// `marks[col][item]`.
    marks: Vec<Vec<Mark>>,
}

/// What the matrix's `show` choice keeps: items regressed (improved) in any run, wrong in every
/// run, right only in one column.
#[derive(Debug, Clone, Copy)]
enum Show {
    Regressed,
    Improved,
    AllWrong,
    Only(usize),
}

/// The matrix's filters (the `show` choice), as offered and as chosen.
const SHOW: &str = "show";
const REGRESSED: &str = "Regressed in any run";
const IMPROVED: &str = "Improved in any run";
const ALL_WRONG: &str = "Every run wrong";
const ONLY_BASE: &str = "Only the baseline right";

impl Many {
    /// Compares `runs` with `baselines` (the first is the pinned one) and lays out the matrix.
    pub fn new<const FAMILIES: FamilySet>(
        baselines: &[(&str, RunRef)],
        runs: &[(&str, RunRef)],
    ) -> Many {
        Many::judged::<FAMILIES>(baselines, runs, None)
    }

    /// [`Many::new`] judged by `judge` (`compare --scorer`; the tab's "Judged by").
    pub fn judged<const FAMILIES: FamilySet>(
        baselines: &[(&str, RunRef)],
        runs: &[(&str, RunRef)],
        judge: Option<&str>,
    ) -> Many {
        let mut many = Many::compared::<FAMILIES>(baselines, runs, judge);
        many.lay_matrix::<FAMILIES>(baselines, runs);
        many
    }

    /// Compares `runs` with `baselines` judged by `judge`, the matrix not laid out yet.
    pub fn compared<const FAMILIES: FamilySet>(
        baselines: &[(&str, RunRef)],
        runs: &[(&str, RunRef)],
        judge: Option<&str>,
    ) -> Many {
        let cmp = compare_judged_in::<FAMILIES>(baselines, runs, judge).map_err(|e| e.to_string());
        let choices = baselines
            .first()
            .map(|(_, r)| r.judge_choices_in::<FAMILIES>())
            .unwrap_or_default();
        // A suite is compared task by task when nothing is picked.
        let default = if choices.iter().any(|c| c.task.is_some()) {
            "Each task's first score (task by task)".to_string()
        } else {
            choices
                .first()
                .map(|c| format!("{} (the baseline's headline)", c.label))
                .unwrap_or_default()
        };
        Many {
            cmp,
            bases: baselines
                .iter()
                .map(|(n, r)| (r.name().to_string(), n.to_string()))
                .collect(),
            matrix: None,
            judge: judge.map(str::to_string),
            choice: screen::judge_choice(&choices, judge, &default),
        }
    }

    /// Lays out the matrix of the runs compared (the same `baselines` and `runs`), once.
    pub fn lay_matrix<const FAMILIES: FamilySet>(
        &mut self,
        baselines: &[(&str, RunRef)],
        runs: &[(&str, RunRef)],
    ) {
        if self.matrix.is_some() {
            return;
        }
        let (Ok(c), Some((pin, pin_run))) = (&self.cmp, baselines.first()) else {
            return;
        };
        // The pinned baseline, then the runs compared with it, best first.
        let mut cols: Vec<(String, RunRef)> = vec![(pin.to_string(), *pin_run)];
        for row in c
            .runs
            .iter()
            .filter(|r| !r.is_baseline && r.baseline.as_deref() == Some(pin_run.name()))
        {
            if let Some((n, r)) = runs.iter().find(|(n, _)| *n == row.path) {
                cols.push((n.to_string(), *r));
            }
        }
        let judge = self.judge.clone();
        let verdicts: Vec<Vec<(ItemKey, Option<bool>)>> = cols
            .iter()
            .map(|(_, r)| {
                r.verdicts_in::<FAMILIES>(judge.as_deref())
                    .map(|v| v.rows.into_iter().map(|v| (v.key, v.correct)).collect())
                    .unwrap_or_default()
            })
            .collect();
        // Each run's verdicts are sorted by key, each key once: their union merged column by
        // column (runs of one eval mostly share their keys: a walk each, no sort of them all).
        let mut keys: Vec<ItemKey> = Vec::new();
        for v in &verdicts {
            keys = merge_keys(keys, v);
        }
        // One walk per column.
        let marks = verdicts
            .iter()
            .map(|v| {
                let mut out = vec![Mark::Missing; keys.len()];
                let mut i = 0;
                for (k, c) in v {
                    while i < keys.len() && keys[i] < *k {
                        i += 1;
                    }
                    if i < keys.len() && keys[i] == *k {
                        out[i] = Mark::of(*c);
                    }
                }
                out
            })
            .collect();
        let texts = keys
            .iter()
            .map(|k| {
                let t = format::item_key(k);
                let low = t.to_lowercase();
                (t, low)
            })
            .collect();
        self.matrix = Some(Matrix {
            cols: cols.into_iter().map(|(n, _)| n).collect(),
            keys,
            texts,
            marks,
        });
    }

    /// The screen `query` asks for: the overview (table, reading, charts, grid) or a page of
    /// the matrix; an item or a pair is not laid out here (the page opens it in the baseline,
    /// or in the pair Compare).
    pub fn view(&self, query: &ScreenQuery) -> ScreenView {
        let mut v = screen::empty("many");
        // The "Judged by" choice leads the overview, also when the judge picked fails.
        if let (ScreenQuery::Overview { .. }, Some(c)) = (query, &self.choice) {
            v.blocks.push(c.clone());
        }
        match (&self.cmp, query) {
            (Err(e), _) => v
                .blocks
                .push(screen::note("many-error", "error", e.clone())),
            (Ok(c), ScreenQuery::Overview { .. }) => v.blocks.extend(overview(c, &self.bases)),
            (
                Ok(_),
                ScreenQuery::Items {
                    filter,
                    offset,
                    limit,
                },
            ) => {
                if let Some(m) = &self.matrix {
                    m.page(&mut v, filter, *offset, *limit)
                }
            }
            (
                Ok(_),
                ScreenQuery::Item { .. } | ScreenQuery::Pair { .. } | ScreenQuery::Hits { .. },
            ) => {}
        }
        v
    }
}

/// "Export this view" of the All runs tab, as the worker hands it on: a text to download, or
/// the rows of [`MANY_MARKS`](evalboard_engine::lake::schema::MANY_MARKS) for the lake worker to write as Parquet.
#[derive(Debug, Clone, PartialEq)]
pub enum ManyExport {
    Text {
        file: String,
        text: String,
    },
    Table {
        file: String,
        rows: Vec<Vec<LakeCell>>,
    },
}

impl Many {
    /// "Export this view" of the tab's matrix: the items `filter` shows (its Show choice and
    /// search, judged as picked: the rows [`Many::view`] pages) as `format` — `csv` (an item a
    /// row, a run a column, each mark a word), `jsonl` (a header line with the judge, the
    /// filter, the counts and the ranked table's rows as `evalboard compare --json` prints
    /// them, then an item a line with each run's mark) or `parquet` (the rows of
    /// [`MANY_MARKS`](evalboard_engine::lake::schema::MANY_MARKS), long form). The file is named `<stem>.all-runs.<format>`; `version` is
    /// the evalboard version the header names.
    pub fn export(
        &self,
        filter: &ScreenFilter,
        format: &str,
        (stem, version): (&str, &str),
    ) -> Result<ManyExport, String> {
        let (c, m) = match (&self.cmp, &self.matrix) {
            (Ok(c), Some(m)) => (c, m),
            (Err(e), _) => return Err(e.clone()),
            _ => return Err("the runs are not compared yet".into()),
        };
        let hits = m.hits(filter);
        let stem = format!("{stem}.all-runs");
        let words = |i: usize| (0..m.cols.len()).map(move |c| m.word(c, i));
        Ok(match format {
            "csv" => {
                let mut head = vec!["item".to_string()];
                head.extend(m.cols.iter().enumerate().map(|(c, n)| match c {
                    0 => format!("{n} (baseline)"),
                    _ => n.clone(),
                }));
                let body: Vec<Vec<String>> = hits
                    .iter()
                    .map(|&i| {
                        std::iter::once(m.texts[i].0.clone())
                            .chain(words(i).map(str::to_string))
                            .collect()
                    })
                    .collect();
                ManyExport::Text {
                    file: format!("{stem}.csv"),
                    text: evalboard_report::csvs::table_csv(&head, &body),
                }
            }
            "parquet" => {
                let base = m.cols.first().cloned().unwrap_or_default();
                let mut rows = Vec::with_capacity(hits.len() * m.cols.len());
                for &i in &hits {
                    let key = m.keys[i].to_json().to_string();
                    for (col, name) in m.cols.iter().enumerate() {
                        let correct = match m.marks[col][i] {
                            Mark::Right => LakeCell::Bool(true),
                            Mark::Wrong => LakeCell::Bool(false),
                            Mark::Missing | Mark::Unscored => LakeCell::Null,
                        };
                        rows.push(vec![
                            LakeCell::Str(key.clone()),
                            LakeCell::Str(name.clone()),
                            LakeCell::Str(base.clone()),
                            LakeCell::Bool(col == 0),
                            LakeCell::Str(m.word(col, i).to_string()),
                            correct,
                        ]);
                    }
                }
                ManyExport::Table {
                    file: format!("{stem}.parquet"),
                    rows,
                }
            }
            _ => {
                let head = serde_json::json!({
                    "evalboard_many": 1,
                    "evalboard_version": version,
                    "baseline": m.cols.first(),
                    "columns": m.cols,
                    "judge": self.judge,
                    "judged_by": c.judged_by,
                    "filter": {
                        "show": filter.choice(SHOW),
                        "search": filter.text,
                    },
                    "items": hits.len(),
                    "of_items": m.keys.len(),
                    "runs": c.runs,
                    "reading": c.reading,
                    "warnings": c.warnings,
                });
                let mut text = head.to_string();
                text.push('\n');
                for &i in &hits {
                    let marks: serde_json::Map<String, serde_json::Value> = m
                        .cols
                        .iter()
                        .zip(words(i))
                        .map(|(n, w)| (n.clone(), w.into()))
                        .collect();
                    let line = serde_json::json!({"item_key": m.keys[i].to_json(), "marks": marks});
                    text.push_str(&line.to_string());
                    text.push('\n');
                }
                ManyExport::Text {
                    file: format!("{stem}.jsonl"),
                    text,
                }
            }
        })
    }
}

/// The union of `keys` and the keys of `column`, both sorted, each key once.
fn merge_keys(keys: Vec<ItemKey>, column: &[(ItemKey, Option<bool>)]) -> Vec<ItemKey> {
    let mut out = Vec::with_capacity(keys.len().max(column.len()));
    let mut theirs = column.iter().map(|(k, _)| k).peekable();
    for k in keys {
        while let Some(c) = theirs.next_if(|c| **c < k) {
            out.push(c.clone());
        }
        theirs.next_if(|c| **c == k);
        out.push(k);
    }
    out.extend(theirs.cloned());
    out
}

impl Matrix {
    /// What a cell of column `col` shows for item `i`: the baseline's verdict, or a run's with
    /// ▼ (regressed: right in the baseline, wrong here) or ▲ (improved).
    fn cell(&self, col: usize, i: usize) -> &'static str {
        let base = self.marks[0][i];
        match (col, self.marks[col][i]) {
            (_, Mark::Missing) => NONE,
            (_, Mark::Unscored) => "·",
            (0, Mark::Right) => "✓",
            (0, Mark::Wrong) => "✗",
            (_, Mark::Wrong) if base == Mark::Right => "✗ ▼",
            (_, Mark::Right) if base == Mark::Wrong => "✓ ▲",
            (_, Mark::Right) => "✓",
            (_, Mark::Wrong) => "✗",
        }
    }

    /// [`Matrix::cell`] as a word (the exports' `mark`): `right`, `wrong`, `regressed`,
    /// `improved`, `missing` or `unscored`.
    fn word(&self, col: usize, i: usize) -> &'static str {
        let base = self.marks[0][i];
        match (col, self.marks[col][i]) {
            (_, Mark::Missing) => "missing",
            (_, Mark::Unscored) => "unscored",
            (1.., Mark::Wrong) if base == Mark::Right => "regressed",
            (1.., Mark::Right) if base == Mark::Wrong => "improved",
            (_, Mark::Right) => "right",
            (_, Mark::Wrong) => "wrong",
        }
    }

    /// The items `filter` keeps (its `show` choice and its search), in key order: the rows a
    /// page of the matrix shows, and what "Export this view" writes.
    fn hits(&self, filter: &ScreenFilter) -> Vec<usize> {
        let show = self.show_of(filter.choice(SHOW));
        let text = screen::search(filter);
        (0..self.keys.len())
            .filter(|&i| self.shows(i, show))
            .filter(|&i| text.as_deref().is_none_or(|t| self.texts[i].1.contains(t)))
            .collect()
    }

    /// The `show` choice as a filter: `None` for every item (or a choice not offered).
    fn show_of(&self, show: Option<&str>) -> Option<Show> {
        Some(match show? {
            REGRESSED => Show::Regressed,
            IMPROVED => Show::Improved,
            ALL_WRONG => Show::AllWrong,
            ONLY_BASE => Show::Only(0),
            s => Show::Only(1 + self.cols.iter().skip(1).position(|n| s == only_label(n))?),
        })
    }

    /// Whether item `i` passes `show`.
    fn shows(&self, i: usize, show: Option<Show>) -> bool {
        let m = |c: usize| self.marks[c][i];
        let (all, runs) = (0..self.cols.len(), 1..self.cols.len());
        match show {
            None => true,
            Some(Show::Regressed) => {
                m(0) == Mark::Right && runs.clone().any(|c| m(c) == Mark::Wrong)
            }
            Some(Show::Improved) => {
                m(0) == Mark::Wrong && runs.clone().any(|c| m(c) == Mark::Right)
            }
            Some(Show::AllWrong) => {
                all.clone().all(|c| m(c) != Mark::Right) && all.clone().any(|c| m(c) == Mark::Wrong)
            }
            // Right in `keep` only, and another column judged it (wrong).
            Some(Show::Only(keep)) => {
                m(keep) == Mark::Right
                    && all
                        .clone()
                        .filter(|&c| c != keep)
                        .all(|c| m(c) != Mark::Right)
                    && all.clone().any(|c| c != keep && m(c) == Mark::Wrong)
            }
        }
    }

    /// A page of the matrix: one row per item, one column per run.
    fn page(&self, v: &mut ScreenView, filter: &ScreenFilter, offset: u32, limit: u32) {
        let hits = self.hits(filter);
        let mut columns = vec![("Item".to_string(), "eb-mono".to_string())];
        columns.extend(self.cols.iter().enumerate().map(|(c, n)| {
            let label = if c == 0 {
                format!("{n} (baseline)")
            } else {
                n.clone()
            };
            (label, "eb-many__mark".to_string())
        }));
        let mut options = vec![
            REGRESSED.to_string(),
            IMPROVED.to_string(),
            ALL_WRONG.to_string(),
            ONLY_BASE.to_string(),
        ];
        options.extend(self.cols.iter().skip(1).map(|n| only_label(n)));
        v.layout = ItemsLayout {
            kind: "many".into(),
            noun: ("item".into(), "items".into()),
            columns,
            filters: vec![Choice {
                name: SHOW.into(),
                label: "Show".into(),
                options,
            }],
            search: "Search item keys".into(),
            footnote: format!(
                "Items of {} and the runs compared with it. ✓ right · ✗ wrong · ▼ regressed \
                 (right in the baseline, wrong in the run) · ▲ improved (wrong in the baseline, \
                 right in the run) · {NONE} not in the run (counted neither right nor wrong) · \
                 · not scored. A row opens the item in the baseline.",
                self.cols.first().map_or("the baseline", String::as_str)
            ),
        };
        v.n_items = self.keys.len() as u64;
        screen::page(v, hits, offset, limit, |i| ScreenRow {
            key: self.keys[i].clone(),
            bad: self.marks[0][i] == Mark::Right
                && (1..self.cols.len()).any(|c| self.marks[c][i] == Mark::Wrong),
            cells: std::iter::once(self.texts[i].0.clone())
                .chain((0..self.cols.len()).map(|c| self.cell(c, i).to_string()))
                .collect(),
        });
    }
}

/// The `show` choice that keeps the items only run `name` gets right.
fn only_label(name: &str) -> String {
    format!("Only {name} right")
}

/// A headline in its unit: a rate as a percentage, a score with 4 decimals.
fn value(x: Option<f64>, unit: Unit) -> String {
    match unit {
        Unit::Rate => format::pct(x),
        _ => format::dec(x, 4),
    }
}

fn interval(x: Option<(f64, f64)>, unit: Unit) -> String {
    x.map_or_else(
        || NONE.to_string(),
        |(l, h)| format!("[{}, {}]", value(Some(l), unit), value(Some(h), unit)),
    )
}

fn p(x: Option<f64>) -> String {
    x.map_or_else(|| NONE.to_string(), p_value_text)
}

/// A row's Δ bootstrap interval, when it has one.
fn delta_ci(r: &RunRow) -> Option<(f64, f64)> {
    let b = r.bootstrap_ci.as_ref()?;
    Some((b.low?, b.high?))
}

/// The frontier column in words.
fn frontier_text(r: &RunRow) -> &'static str {
    match r.on_frontier {
        Some(true) => "on the frontier",
        Some(false) => "dominated",
        None if r.n_items.is_none() => "",
        None => "unpriced",
    }
}

/// The overview: what is compared, the reading, warnings, the ranked table, the interval plot,
/// the frontier and the grid.
fn overview(c: &ManyComparison, bases: &[(String, String)]) -> Vec<Block> {
    let unit = c.runs.first().map_or(Unit::Rate, |r| r.headline_unit);
    let label = c
        .runs
        .iter()
        .find(|r| r.is_baseline)
        .map_or("Headline", |r| r.headline_label.as_str())
        .to_string();
    let others = c.runs.iter().filter(|r| !r.is_baseline).count() as u64;
    let mut out = vec![
        screen::text(
            "many-what",
            format!(
                "{} of {} against {} ({}; judged by {}; McNemar p adjusted by Holm over the runs \
                 of each baseline; paired bootstrap 95% CI, 10,000 resamples, seed 42).",
                format::plural(others, "run", "runs"),
                c.family.label(),
                c.baseline.join(", "),
                label,
                if c.judged_by.is_empty() {
                    NONE
                } else {
                    &c.judged_by
                },
            ),
            false,
        ),
        screen::note("many-reading", "note", c.reading.clone()),
    ];
    out.extend(
        c.warnings
            .iter()
            .map(|w| screen::note("many-warning", "warn", w.clone())),
    );
    out.push(ranked(c, unit, &label, bases));
    out.push(intervals(c));
    out.push(frontier(c, bases.first().map(|(n, _)| n.as_str())));
    if let Some(g) = &c.grid {
        let mut rows = vec![{
            let mut h = vec!["Model".to_string()];
            h.extend(g.tasks.iter().cloned());
            h.extend(["Micro".to_string(), "Macro".to_string()]);
            h
        }];
        for m in &g.models {
            let mut r = vec![m.model.clone()];
            r.extend(m.cells.iter().map(|cell| match cell {
                None => NONE.to_string(),
                Some(x) => match x.delta {
                    Some(d) => format!("{} ({})", value(x.headline, unit), format::pp(Some(d))),
                    None => value(x.headline, unit),
                },
            }));
            r.push(format::pct(m.micro));
            r.push(value(m.macro_mean, unit));
            rows.push(r);
        }
        out.push(screen::group(
            "many-grid-section",
            "section",
            Some("Models × tasks".into()),
            vec![
                screen::table("many-grid", "", rows),
                screen::text(
                    "many-grid-note",
                    format!(
                        "Each cell: the run's {label} and, in brackets, its change against {} on \
                         that task. Micro = Σ correct ÷ Σ items over the model's tasks; macro = \
                         the unweighted mean of the task headlines, only when the model has every \
                         task.",
                        g.baseline_model
                    ),
                    false,
                ),
            ],
        ));
    }
    out
}

/// The ranked table: baselines first, each followed by its runs best first; a run's name opens
/// the pair Compare with its baseline (`Cell::Open`'s value: the baseline's and the run's page
/// names, joined by U+001F).
fn ranked(c: &ManyComparison, unit: Unit, label: &str, bases: &[(String, String)]) -> Block {
    let head: Vec<String> = [
        "Run",
        "Model",
        "Task",
        "Items",
        label,
        "95% CI",
        "Δ vs baseline",
        "Δ 95% CI",
        "Regressed",
        "Improved",
        "McNemar p",
        "Holm p",
        "Only in baseline / run",
        "$ per correct",
        "Frontier",
        "Note",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let numeric = head
        .iter()
        .enumerate()
        .map(|(i, _)| matches!(i, 3..=4 | 6 | 8..=11 | 13))
        .collect();
    let rows = c
        .runs
        .iter()
        .map(|r| {
            let name = if r.is_baseline {
                Cell::Text(format!("{} (baseline)", r.path))
            } else if let Some((_, b)) = bases.iter().find(|(n, _)| Some(n) == r.baseline.as_ref())
            {
                Cell::Open(r.path.clone(), format!("{b}\u{1f}{}", r.path))
            } else {
                Cell::Text(r.path.clone())
            };
            let t = |s: String| Cell::Text(s);
            let missing = match (r.only_in_baseline, r.only_in_run) {
                (Some(b), Some(o)) => format!("{} / {}", format::int(b), format::int(o)),
                _ => NONE.to_string(),
            };
            TableRow {
                key: Some(r.path.clone()),
                flag: r.is_baseline,
                cells: vec![
                    name,
                    t(r.model.clone().unwrap_or_else(|| NONE.into())),
                    t(r.task.clone().unwrap_or_else(|| NONE.into())),
                    t(format::opt_int(r.n_items)),
                    t(value(r.headline, unit)),
                    t(interval(r.ci95, unit)),
                    t(format::pp(r.delta)),
                    t(delta_ci(r).map_or_else(
                        || NONE.to_string(),
                        |(l, h)| format!("[{}, {}]", format::pp(Some(l)), format::pp(Some(h))),
                    )),
                    t(format::opt_int(r.regressed)),
                    t(format::opt_int(r.improved)),
                    t(p(r.mcnemar_exact_p)),
                    t(p(r.holm_p)),
                    t(missing),
                    t(format::usd(r.cost_per_correct_usd)),
                    t(frontier_text(r).to_string()),
                    t(r.note.clone().unwrap_or_default()),
                ],
            }
        })
        .collect();
    Block::Table(Table {
        key: "many-runs".into(),
        title: Some(format!("Runs ranked by {label}")),
        head,
        numeric,
        rows,
    })
}

/// Every run's Δ against its baseline with its paired bootstrap 95% CI, on one axis in points,
/// zero marked; a note says so when every interval includes zero.
fn intervals(c: &ManyComparison) -> Block {
    let rows: Vec<(&RunRow, f64, (f64, f64))> = c
        .runs
        .iter()
        .filter_map(|r| Some((r, r.delta?, delta_ci(r)?)))
        .collect();
    let all_zero = many_charts::every_ci_holds_zero(c);
    let says = if rows.is_empty() {
        "No run has a paired Δ with the baseline (no items in common, or not comparable)."
            .to_string()
    } else if all_zero {
        "Every run's 95% interval includes zero: no run differs from its baseline beyond noise."
            .to_string()
    } else {
        let out: Vec<&str> = rows
            .iter()
            .filter(|(_, _, (l, h))| *l > 0.0 || *h < 0.0)
            .map(|(r, _, _)| r.label.as_str())
            .collect();
        format!(
            "{} of {} intervals exclude zero: {}.",
            out.len(),
            rows.len(),
            out.join(", ")
        )
    };
    // The report's chart (`many_charts`): one drawing of it for both.
    let mut blocks = vec![screen::note(
        if all_zero {
            "many-all-zero"
        } else {
            "many-intervals-says"
        },
        "note",
        says,
    )];
    if let Some(mut chart) = many_charts::delta_chart(c, Theme::Light) {
        chart.key = "many-intervals".into();
        blocks.push(Block::Chart(ChartDto::from(chart)));
    }
    screen::group(
        "many-intervals-section",
        "section",
        Some("Every run's change".into()),
        blocks,
    )
}

/// The cost–quality frontier of the pinned baseline (run name `pin`) and its runs (the engine
/// marks a frontier per baseline): each priced run's headline against its cost per correct
/// item, the frontier's runs joined and the dominated ones faded; the unpriced runs listed
/// beside it.
fn frontier(c: &ManyComparison, pin: Option<&str>) -> Block {
    // The pinned baseline's row (the first baseline's without a pin), by the label its runs
    // name it by.
    let base = c
        .runs
        .iter()
        .find(|r| r.is_baseline && pin.is_none_or(|p| r.run == p))
        .map(|r| r.label.clone())
        .unwrap_or_default();
    let mine = |r: &&RunRow| {
        (r.is_baseline && r.label == base) || r.baseline.as_deref() == Some(base.as_str())
    };
    let unpriced: Vec<&RunRow> = c
        .runs
        .iter()
        .filter(mine)
        .filter(|r| r.n_items.is_some() && r.cost_per_correct_usd.is_none())
        .collect();
    let mut blocks = Vec::new();
    // The report's chart of this baseline's runs (`many_charts`, one per baseline).
    match many_charts::frontier_chart(c, &base, Theme::Light) {
        Some(mut chart) => {
            chart.key = "many-frontier".into();
            blocks.push(Block::Chart(ChartDto::from(chart)));
        }
        None => blocks.push(screen::note(
            "many-no-frontier",
            "note",
            "No run is priced: the price table (Settings) has no price for the models these runs \
             record, so there is no cost–quality frontier.",
        )),
    }
    let mut rows = vec![vec![
        "Run".to_string(),
        "Model".to_string(),
        "Tokens".to_string(),
    ]];
    rows.extend(unpriced.iter().map(|r| {
        vec![
            r.path.clone(),
            r.model.clone().unwrap_or_else(|| NONE.into()),
            format::opt_int(r.tokens),
        ]
    }));
    blocks.push(if unpriced.is_empty() {
        screen::text("many-unpriced", "Every run is priced.", false)
    } else {
        screen::group(
            "many-unpriced-list",
            "section",
            Some("Unpriced: not on the chart".into()),
            vec![
                screen::table("many-unpriced", "", rows),
                screen::text(
                    "many-unpriced-why",
                    "The price table has no price for these runs' models; add one in Settings \
                     (“Add unpriced models”) to place them.",
                    false,
                ),
            ],
        )
    });
    screen::group(
        "many-frontier-section",
        "section",
        Some("Cost and quality".into()),
        vec![screen::group("many-frontier-pair", "pair", None, blocks)],
    )
}

// ---- The comparison as a worker keeps it: computed once per (baselines, runs), reused by
// every query until the run store drops it (a run loaded, replaced or removed, new settings).

/// A many-runs comparison and the runs it compared.
#[cfg(target_arch = "wasm32")]
pub(crate) struct Kept {
    ids: (Vec<crate::protocol::RunId>, Vec<crate::protocol::RunId>),
    judge: Option<String>,
    many: Many,
}

#[cfg(target_arch = "wasm32")]
impl Kept {
    pub fn view(&self, query: &ScreenQuery) -> ScreenView {
        self.many.view(query)
    }

    /// [`Many::export`] of the kept comparison (its matrix laid out by [`answer`] for a query
    /// of items).
    pub fn export(
        &self,
        filter: &ScreenFilter,
        format: &str,
        names: (&str, &str),
    ) -> Result<ManyExport, String> {
        self.many.export(filter, format, names)
    }
}

/// The comparison of `runs` against `baselines`: `kept` when it compared the same runs, else
/// computed from the runs `get` finds (a run this worker does not hold is left out; none of
/// the baselines held is an error shown in the view).
#[cfg(target_arch = "wasm32")]
pub(crate) fn answer<'a, const FAMILIES: FamilySet>(
    kept: Option<Kept>,
    (baselines, runs): (&[crate::protocol::RunId], &[crate::protocol::RunId]),
    query: &ScreenQuery,
    get: impl Fn(crate::protocol::RunId) -> Option<(&'a str, RunRef<'a>)>,
) -> Kept {
    let judge = judge_of(query);
    let base: Vec<(&str, RunRef)> = baselines.iter().filter_map(|id| get(*id)).collect();
    let others: Vec<(&str, RunRef)> = runs.iter().filter_map(|id| get(*id)).collect();
    let mut k = match kept.filter(|k| k.ids.0 == baselines && k.ids.1 == runs && k.judge == judge) {
        Some(k) => k,
        None => Kept {
            ids: (baselines.to_vec(), runs.to_vec()),
            many: Many::compared::<FAMILIES>(&base, &others, judge.as_deref()),
            judge,
        },
    };
    // The matrix only for a page of it: the ranked table is answered without it.
    if matches!(query, ScreenQuery::Items { .. }) {
        k.many.lay_matrix::<FAMILIES>(&base, &others);
    }
    k
}

/// The judge a query of the tab picked ("Judged by", `f.judge=`: the overview's choices or the
/// matrix's filter, both from the link).
pub fn judge_of(query: &ScreenQuery) -> Option<String> {
    let choices = match query {
        ScreenQuery::Overview { choices, .. } => choices,
        ScreenQuery::Items { filter, .. } => &filter.choices,
        _ => return None,
    };
    choices
        .iter()
        .find(|(n, v)| n == screen::JUDGE && !v.is_empty())
        .map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests;
