//! The lake worker's screens of a run read from a results lake ([docs/lake.md](../docs/lake.md)):
//! its run-list entry from its `runs` row, its Overview from `runs` and `aggregates` (statistics
//! through [`evalboard_engine::lake::counts::stats_of_row`], the function `evalboard stats
//! --from-counts` uses), and, once the run is opened, its Items and each item from its `samples`,
//! `verdicts` and `sample_text` rows. Pure (tested natively): `src/lake_worker.rs` reads the
//! files.
//!
//! A lake run holds its numbers as they were exported: it is not re-scored, and it is listed as
//! an evaluation log (the generic screens), its own family named on its Overview.

use evalboard_engine::compare::CompareOptions;
use evalboard_engine::diag::Diagnostic;
use evalboard_engine::family::Family;
use evalboard_engine::lake::counts::{stats_of_row, CountRow};
use evalboard_engine::lake::{Cell, Table};
use evalboard_engine::run_table::{ItemKey, KeyPart, MetricValue};
use evalboard_lake::Manifest;

use crate::format;
use crate::protocol::{
    Block, Choice, ItemsLayout, RunId, RunInfo, ScreenFilter, ScreenItem, ScreenRow, ScreenView,
};
use crate::screen;

/// A column's cell of a row of `t`.
pub fn cell<'a>(t: &Table, row: &'a [Cell], name: &str) -> &'a Cell {
    t.schema
        .index_of(name)
        .and_then(|i| row.get(i))
        .unwrap_or(&Cell::Null)
}

/// A string column's text (`None`: null or another type).
pub fn text<'a>(t: &Table, row: &'a [Cell], name: &str) -> Option<&'a str> {
    match cell(t, row, name) {
        Cell::Str(s) => Some(s),
        _ => None,
    }
}

fn int(t: &Table, row: &[Cell], name: &str) -> u64 {
    match cell(t, row, name) {
        Cell::Int(i) => u64::try_from(*i).unwrap_or(0),
        _ => 0,
    }
}

fn float(t: &Table, row: &[Cell], name: &str) -> Option<f64> {
    match cell(t, row, name) {
        Cell::Float(x) => Some(*x),
        _ => None,
    }
}

/// The rows of `t` whose `run_id` is `run_id` (every table's first column).
pub fn rows_of<'a>(t: &'a Table, run_id: &'a str) -> impl Iterator<Item = &'a Vec<Cell>> + 'a {
    t.rows.iter().filter(move |r| rows_of_one(r, run_id))
}

/// Whether `row` is of run `run_id` (its first cell).
pub fn rows_of_one(row: &[Cell], run_id: &str) -> bool {
    matches!(row.first(), Some(Cell::Str(s)) if s == run_id)
}

/// The runs a lake lists, in the manifest's order (shard by shard), each once: `(run_id, name)`.
pub fn listed(m: &Manifest) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    m.shards
        .iter()
        .flat_map(|s| &s.runs)
        .filter(|r| seen.insert(r.run_id.clone()))
        .map(|r| (r.run_id.clone(), r.name.clone()))
        .collect()
}

/// The run's headline metric, from its `metrics_json` (the one keyed `headline_key`).
fn headline_metric(runs: &Table, row: &[Cell]) -> Option<MetricValue> {
    let key = text(runs, row, "headline_key")?;
    let metrics: Vec<MetricValue> = serde_json::from_str(text(runs, row, "metrics_json")?).ok()?;
    metrics.into_iter().find(|m| m.key == key)
}

/// The run-list entry of a lake run: its `runs` row as the run list shows a run (listed as an
/// evaluation log: its screens are the generic ones), with `problems` (the lake files that did
/// not open, each naming its file) as its diagnostics.
pub fn run_info(
    (id, part_of): (RunId, Option<RunId>),
    runs: &Table,
    row: &[Cell],
    problems: &[String],
) -> RunInfo {
    let t = |n: &str| text(runs, row, n).map(str::to_string);
    let name = t("name").unwrap_or_default();
    let headline = float(runs, row, "headline_value");
    let model = t("model").filter(|s| !s.trim().is_empty());
    let task = t("task").filter(|s| !s.trim().is_empty());
    let none = || format::NONE.to_string();
    let n_items = int(runs, row, "n_items");
    let n_groups = int(runs, row, "n_groups");
    RunInfo {
        run_id: id,
        name,
        demo: false,
        family: Family::EvalLog,
        n_conversations: n_groups as usize,
        n_turns: n_items as usize,
        size: format!("{} items (from a lake)", format::int(n_items)),
        profile: t("profile").unwrap_or_default(),
        files: Vec::new(),
        diagnostics: problems
            .iter()
            .map(|p| Diagnostic::warning(p.split(": ").next().unwrap_or_default(), None, p))
            .collect(),
        headline,
        load_ms: 0.0,
        wasm_memory_bytes: None,
        stage_ms: Vec::new(),
        custom_settings: Vec::new(),
        part_of,
        unpriced_models: Vec::new(),
        label: crate::run_label::model_task(model.as_deref(), task.as_deref()),
        facets: [
            t("source_format").unwrap_or_else(none),
            task.unwrap_or_else(none),
            model.unwrap_or_else(none),
        ],
    }
}

/// The scorer the run's headline is the accuracy (or mean) of: the first of its whole-run
/// `aggregates` rows whose `n_correct / n_scored` (or `sum / n_scored`) is `headline_value`.
pub fn headline_scorer(runs: &Table, row: &[Cell], aggregates: Option<&Table>) -> Option<String> {
    let want = float(runs, row, "headline_value")?;
    let agg = aggregates?;
    let run_id = text(runs, row, "run_id")?;
    let near = |x: f64| (x - want).abs() <= 1e-9 * want.abs().max(1.0);
    let whole = || rows_of(agg, run_id).filter(|r| text(agg, r, "slice_field") == Some(""));
    let of = |f: &dyn Fn(&[Cell]) -> Option<f64>| {
        whole()
            .find(|r| f(r).is_some_and(near))
            .and_then(|r| text(agg, r, "scorer"))
            .map(str::to_string)
    };
    let scored = |r: &[Cell]| Some(int(agg, r, "n_scored") as f64).filter(|n| *n > 0.0);
    of(&|r| Some(int(agg, r, "n_correct") as f64 / scored(r)?))
        .or_else(|| of(&|r| Some(float(agg, r, "sum")? / scored(r)?)))
}

/// An aggregate row as `stats --from-counts` reads one.
fn count_row(t: &Table, row: &[Cell]) -> CountRow {
    t.schema
        .columns
        .iter()
        .zip(row)
        .map(|(c, v)| (c.name.to_string(), v.clone()))
        .collect()
}

/// The statistics of an aggregate row: (accuracy, its Wilson 95% CI, the mean ± its standard
/// error), as shown.
fn stats_cells(t: &Table, row: &[Cell]) -> [String; 3] {
    let Ok(v) = stats_of_row(&count_row(t, row), &CompareOptions::default()) else {
        return [
            format::NONE.into(),
            format::NONE.into(),
            format::NONE.into(),
        ];
    };
    let f = |p: &[&str]| {
        p.iter()
            .try_fold(&v, |v, k| v.get(*k))
            .and_then(|x| x.as_f64())
    };
    let ci = match (f(&["ci95", "low"]), f(&["ci95", "high"])) {
        (Some(lo), Some(hi)) => format!("{} – {}", format::pct(Some(lo)), format::pct(Some(hi))),
        _ => format::NONE.into(),
    };
    let mean = match (f(&["mean"]), f(&["mean_stderr"])) {
        (Some(m), Some(se)) => {
            format!("{} ± {}", format::dec(Some(m), 3), format::dec(Some(se), 3))
        }
        (Some(m), None) => format::dec(Some(m), 3),
        _ => format::NONE.into(),
    };
    [format::pct(f(&["accuracy"])), ci, mean]
}

/// A lake run's Overview: its headline and counts, what it is, every scorer's statistics from
/// its `aggregates` rows and the slices of each field (`None`: the table did not open).
pub fn overview(
    (id, runs, row): (RunId, &Table, &[Cell]),
    aggregates: Option<&Table>,
    (lake, problems, chosen): (&str, &[String], Option<&str>),
) -> ScreenView {
    let t = |n: &str| text(runs, row, n).unwrap_or(format::NONE).to_string();
    let mut v = screen::empty("overview");
    // The card shows the value; its metric's name is under it.
    let metric = headline_metric(runs, row);
    let headline = match &metric {
        Some(m) => {
            let text = crate::run_label::headline_text(m);
            text.strip_prefix(&format!("{} ", m.label))
                .map_or(text.clone(), str::to_string)
        }
        None => format::dec(float(runs, row, "headline_value"), 3),
    };
    let headline_label = metric.map_or_else(|| t("headline_key"), |m| m.label);
    v.blocks.push(Block::Cards {
        primary: "headline".into(),
        cards: vec![
            screen::card("headline", "Headline", headline, headline_label),
            screen::card(
                "items",
                "Items",
                format::int(int(runs, row, "n_items")),
                format!("in {} groups", format::int(int(runs, row, "n_groups"))),
            ),
            screen::card(
                "diagnostics",
                "Diagnostics",
                format::int(int(runs, row, "n_diagnostics")),
                "when it was exported".into(),
            ),
        ],
    });
    v.blocks.push(screen::note(
        "lake-run",
        "note",
        format!(
            "Read from the lake {lake}: the numbers as they were exported (a lake run is not \
             re-scored by Settings). Items and each item are read from the lake's samples, \
             verdicts and sample_text when you open them."
        ),
    ));
    v.blocks.push(Block::Switch {
        key: "lake-load".into(),
        text: "Compare, Report and Export load this run into the workspace first: its rows are \
               read from the lake (its row groups only) and it becomes a run like a dropped \
               evaluation log, judged by its verdicts as exported, as evalboard compare LAKE \
               reads it. It keeps its name; its screens become a workspace run's."
            .into(),
        label: "Load into the workspace".into(),
        setting: ("lake.load".into(), id.to_string()),
    });
    for p in problems {
        v.blocks
            .push(screen::note("lake-problem", "warn", p.clone()));
    }
    v.blocks.push(Block::Facts(
        [
            ("Family", "family"),
            ("Written by", "source_format"),
            ("Tool version", "tool_version"),
            ("Profile", "profile"),
            ("Model", "model"),
            ("Task", "task"),
            ("Dataset", "dataset"),
            ("Settings", "settings"),
            ("Run id", "run_id"),
            ("Exported by", "evalboard_version"),
        ]
        .iter()
        .map(|(label, col)| (label.to_string(), t(col)))
        .collect(),
    ));
    let Some(agg) = aggregates else {
        return v;
    };
    let run_id = t("run_id");
    let mut whole = vec![vec![
        "Scorer".to_string(),
        "Items".into(),
        "Scored".into(),
        "Correct".into(),
        "Accuracy".into(),
        "95% CI (Wilson)".into(),
        "Mean ± SE".into(),
    ]];
    let mut slices = vec![vec![
        "Scorer".to_string(),
        "Field".into(),
        "Value".into(),
        "Scored".into(),
        "Accuracy".into(),
        "95% CI (Wilson)".into(),
    ]];
    let scorers = screen::distinct(rows_of(agg, &run_id).filter_map(|r| text(agg, r, "scorer")));
    let chosen = chosen
        .filter(|c| scorers.iter().any(|s| s == c))
        .map(str::to_string)
        .or_else(|| headline_scorer(runs, row, Some(agg)))
        .or_else(|| scorers.first().cloned())
        .unwrap_or_default();
    for r in rows_of(agg, &run_id) {
        let [acc, ci, mean] = stats_cells(agg, r);
        let scorer = text(agg, r, "scorer").unwrap_or_default().to_string();
        let field = text(agg, r, "slice_field").unwrap_or_default();
        if !field.is_empty() && scorer != chosen {
            continue;
        }
        if field.is_empty() {
            whole.push(vec![
                scorer,
                format::int(int(agg, r, "n")),
                format::int(int(agg, r, "n_scored")),
                format::int(int(agg, r, "n_correct")),
                acc,
                ci,
                mean,
            ]);
        } else {
            slices.push(vec![
                scorer,
                field.to_string(),
                text(agg, r, "slice_value").unwrap_or_default().to_string(),
                format::int(int(agg, r, "n_scored")),
                acc,
                ci,
            ]);
        }
    }
    v.blocks.push(screen::table(
        "lake-scorers",
        "Every scorer (aggregates)",
        whole,
    ));
    if slices.len() > 1 {
        v.blocks.push(Block::Choice {
            key: "scorer".into(),
            label: "Item fields under".into(),
            options: scorers.iter().map(|s| (s.clone(), s.clone())).collect(),
            chosen: chosen.clone(),
        });
        v.blocks.push(screen::table(
            "lake-slices",
            "By item field (aggregates)",
            slices,
        ));
    }
    v
}

/// An item key from the lake's `item_key` text (`["conv-1",3]`): strings are text parts,
/// numbers index parts; `None` for anything else.
pub fn key_of(json: &str) -> Option<ItemKey> {
    let v: Vec<serde_json::Value> = serde_json::from_str(json).ok()?;
    v.into_iter()
        .map(|p| match p {
            serde_json::Value::String(s) => Some(KeyPart::Text(s)),
            serde_json::Value::Number(n) => n.as_u64().map(KeyPart::Index),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .map(ItemKey)
}

/// One run's rows of the item tables, read when it was opened.
#[derive(Debug, Clone)]
pub struct RunItems {
    pub samples: Table,
    pub verdicts: Table,
    /// `sample_text`, once an item was opened (`Err`: why it could not be read).
    pub texts: Option<Result<Table, String>>,
}

/// The scorers of a run's verdicts, in their order.
pub fn scorers(items: &RunItems) -> Vec<String> {
    screen::distinct(
        items
            .verdicts
            .rows
            .iter()
            .filter_map(|r| text(&items.verdicts, r, "scorer")),
    )
}

/// The verdict label of each item under `scorer`, by item key text.
fn labels_under<'a>(items: &'a RunItems, scorer: &str) -> Vec<(&'a str, &'a str)> {
    let v = &items.verdicts;
    v.rows
        .iter()
        .filter(|r| text(v, r, "scorer") == Some(scorer))
        .filter_map(|r| Some((text(v, r, "item_key")?, text(v, r, "label")?)))
        .collect()
}

/// A page of a lake run's items: every `samples` row with its verdict under the chosen scorer
/// (`f.scorer`; by default `default`, the headline's scorer, else the first), filtered by
/// verdict, status and text.
pub fn items_page(
    items: &RunItems,
    f: &ScreenFilter,
    (offset, limit): (u32, u32),
    default: Option<&str>,
) -> ScreenView {
    let mut v = screen::empty("items");
    let scorers = scorers(items);
    let known = |c: &&str| scorers.iter().any(|s| s == c);
    let scorer = f
        .choice("scorer")
        .filter(known)
        .or(default.filter(known))
        .or(scorers.first().map(String::as_str))
        .unwrap_or_default()
        .to_string();
    let labels = labels_under(items, &scorer);
    let s = &items.samples;
    let labels: std::collections::HashMap<&str, &str> = labels.into_iter().collect();
    let verdict_of = |key: &str| labels.get(key).copied().unwrap_or("unscored");
    v.layout = ItemsLayout {
        kind: "lake".into(),
        noun: ("item".into(), "items".into()),
        columns: screen::columns(&[
            ("#", "eb-num"),
            ("Item", "eb-mono"),
            ("Status", ""),
            ("Verdict", ""),
            ("Answer", "eb-mono"),
            ("Fields", "eb-muted"),
        ]),
        filters: vec![
            Choice {
                name: "scorer".into(),
                label: "Scorer".into(),
                options: scorers.clone(),
            },
            Choice {
                name: "verdict".into(),
                label: "Verdict".into(),
                options: vec!["correct".into(), "wrong".into(), "unscored".into()],
            },
            Choice {
                name: "status".into(),
                label: "Status".into(),
                options: screen::distinct(s.rows.iter().filter_map(|r| text(s, r, "status"))),
            },
        ],
        search: "Search items, answers and fields".into(),
        footnote: format!("Verdicts under {scorer}, as exported."),
    };
    v.n_items = s.rows.len() as u64;
    let needle = screen::search(f);
    let hits: Vec<(usize, &Vec<Cell>, &str)> = s
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i, r, verdict_of(text(s, r, "item_key").unwrap_or_default())))
        .filter(|(_, r, label)| {
            f.choice("verdict")
                .is_none_or(|c| c.is_empty() || c == *label)
                && f.choice("status")
                    .is_none_or(|c| c.is_empty() || Some(c) == text(s, r, "status"))
                && needle.as_deref().is_none_or(|n| {
                    ["item_key", "extracted_answer", "metadata_json", "error"]
                        .iter()
                        .filter_map(|c| text(s, r, c))
                        .any(|t| t.to_lowercase().contains(n))
                })
        })
        .collect();
    screen::page(&mut v, hits, offset, limit, |(i, r, label)| {
        let key_text = text(s, r, "item_key").unwrap_or_default();
        ScreenRow {
            key: key_of(key_text).unwrap_or_default(),
            bad: label == "wrong" || text(s, r, "status") == Some("failed"),
            cells: vec![
                (i + 1).to_string(),
                key_text.to_string(),
                text(s, r, "status").unwrap_or_default().to_string(),
                label.to_string(),
                screen::clip(text(s, r, "extracted_answer").unwrap_or(format::NONE)),
                screen::clip(text(s, r, "metadata_json").unwrap_or_default()),
            ],
        }
    });
    v
}

/// One item of a lake run in full: its sample row, every scorer's verdict and its texts.
pub fn item(items: &RunItems, key: &ItemKey) -> ScreenView {
    let mut v = screen::empty("item");
    let s = &items.samples;
    let Some(row) = s
        .rows
        .iter()
        .find(|r| text(s, r, "item_key").and_then(key_of).as_ref() == Some(key))
    else {
        return v;
    };
    let key_text = text(s, row, "item_key").unwrap_or_default();
    let mut blocks = vec![Block::Facts(
        ["status", "error", "extracted_answer", "metadata_json"]
            .iter()
            .map(|c| {
                (
                    c.replace('_', " "),
                    text(s, row, c).unwrap_or(format::NONE).to_string(),
                )
            })
            .collect(),
    )];
    let vt = &items.verdicts;
    let mut verdicts = vec![vec!["Scorer".to_string(), "Verdict".into(), "Value".into()]];
    verdicts.extend(
        vt.rows
            .iter()
            .filter(|r| text(vt, r, "item_key") == Some(key_text))
            .map(|r| {
                vec![
                    text(vt, r, "scorer").unwrap_or_default().to_string(),
                    text(vt, r, "label").unwrap_or_default().to_string(),
                    format::dec(float(vt, r, "value"), 3),
                ]
            }),
    );
    blocks.push(screen::table("lake-verdicts", "Verdicts", verdicts));
    match &items.texts {
        Some(Ok(tt)) => {
            if let Some(tr) = tt
                .rows
                .iter()
                .find(|r| text(tt, r, "item_key") == Some(key_text))
            {
                for (col, label) in [
                    ("input_text", "Question"),
                    ("expected_text", "Expected"),
                    ("output_text", "Output"),
                ] {
                    if let Some(body) = text(tt, tr, col) {
                        blocks.push(screen::group(
                            col,
                            "section",
                            Some(label.into()),
                            vec![screen::text(col, body, true)],
                        ));
                    }
                }
            }
        }
        Some(Err(e)) => blocks.push(screen::note("lake-problem", "warn", e.clone())),
        None => {}
    }
    v.item = Some(ScreenItem {
        key: key.clone(),
        title: key_text.to_string(),
        blocks,
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::lake::schema::{AGGREGATES, RUNS, SAMPLES, VERDICTS};

    fn row(t: &evalboard_engine::lake::TableSchema, cells: &[(&str, Cell)]) -> Vec<Cell> {
        t.columns
            .iter()
            .map(|c| {
                cells
                    .iter()
                    .find(|(n, _)| *n == c.name)
                    .map_or(Cell::Null, |(_, v)| v.clone())
            })
            .collect()
    }

    fn s(x: &str) -> Cell {
        Cell::Str(x.into())
    }

    #[test]
    fn a_lake_run_is_listed_and_shown_from_its_rows() {
        let runs = Table {
            schema: &RUNS,
            rows: vec![row(
                &RUNS,
                &[
                    ("run_id", s("r1")),
                    ("name", s("gpt4o")),
                    ("model", s("gpt-4o")),
                    ("n_items", Cell::Int(3)),
                    ("headline_key", s("accuracy")),
                    ("headline_value", Cell::Float(2.0 / 3.0)),
                    ("source_format", s("numeric QA")),
                    (
                        "metrics_json",
                        s(
                            r#"[{"key":"accuracy","label":"Accuracy","unit":"rate","value":0.6666666666666666,"counts":null}]"#,
                        ),
                    ),
                ],
            )],
        };
        let info = run_info((7, Some(7)), &runs, &runs.rows[0], &[]);
        assert_eq!(info.headline, Some(2.0 / 3.0));
        assert_eq!(info.name, "gpt4o");
        // Model · task of what the row records (no task here); the headline is not in it.
        assert_eq!(info.label, "gpt-4o");
        let agg = Table {
            schema: &AGGREGATES,
            rows: vec![row(
                &AGGREGATES,
                &[
                    ("run_id", s("r1")),
                    ("scorer", s("match@v1")),
                    ("slice_field", s("")),
                    ("n", Cell::Int(3)),
                    ("n_scored", Cell::Int(3)),
                    ("n_correct", Cell::Int(2)),
                    ("sum", Cell::Float(2.0)),
                    ("sum_sq", Cell::Float(2.0)),
                ],
            )],
        };
        let v = overview((1, &runs, &runs.rows[0]), Some(&agg), ("lake", &[], None));
        // "Load into the workspace": the page sends `Request::Workspace` for run 1.
        assert!(v.blocks.iter().any(|b| matches!(
            b,
            Block::Switch { setting, .. } if setting == &("lake.load".to_string(), "1".to_string())
        )));
        let tables: Vec<_> = v
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(tables.len(), 1);
        assert_eq!(
            tables[0].rows[0].cells[4],
            crate::protocol::Cell::Text(format::pct(Some(2.0 / 3.0)))
        );
        let items = RunItems {
            samples: Table {
                schema: &SAMPLES,
                rows: ["[\"a\",1]", "[\"a\",2]", "[\"b\",1]"]
                    .iter()
                    .map(|k| {
                        row(
                            &SAMPLES,
                            &[
                                ("run_id", s("r1")),
                                ("item_key", s(k)),
                                ("status", s("scored")),
                            ],
                        )
                    })
                    .collect(),
            },
            verdicts: Table {
                schema: &VERDICTS,
                rows: [
                    ("[\"a\",1]", "correct"),
                    ("[\"a\",2]", "wrong"),
                    ("[\"b\",1]", "correct"),
                ]
                .iter()
                .map(|(k, l)| {
                    row(
                        &VERDICTS,
                        &[
                            ("run_id", s("r1")),
                            ("item_key", s(k)),
                            ("scorer", s("match@v1")),
                            ("label", s(l)),
                        ],
                    )
                })
                .collect(),
            },
            texts: None,
        };
        let f = ScreenFilter {
            choices: vec![("verdict".into(), "wrong".into())],
            text: None,
        };
        let page = items_page(&items, &f, (0, 0), None);
        assert_eq!((page.n_items, page.n_match), (3, 1));
        assert_eq!(page.rows[0].key, ItemKey::text_index("a", 2));
        let one = item(&items, &ItemKey::text_index("b", 1));
        assert_eq!(one.item.map(|i| i.title), Some("[\"b\",1]".into()));
    }

    /// A real run exported through the engine and Parquet, read back as the lake worker reads
    /// it: the list entry's headline is the run's own, and its items come from its row groups.
    #[test]
    fn an_exported_run_reads_back_by_its_row_groups() {
        use evalboard_engine::lake::{self, LakeRun};
        use evalboard_engine::run::{self, ReadOptions, Settings};
        use evalboard_engine::{InputFile, RunInput};
        use evalboard_lake::{decode, encode, slices, Codec};

        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/evallog/runs/inspect_arith"
        );
        let mut files = Vec::new();
        for e in std::fs::read_dir(dir).expect("the fixture").flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let bytes = std::fs::read(e.path()).expect("readable");
            files.push(InputFile::new(format!("inspect_arith/{name}"), bytes));
        }
        let input = RunInput::new("inspect_arith".to_string(), files);
        let read =
            run::read_as(Family::EvalLog, &input, None, ReadOptions::default()).expect("readable");
        let settings = Settings::default();
        let scored = run::score(read, &settings, 1);
        let lr = LakeRun {
            run: scored.as_ref(),
            content_id: "ab".repeat(32),
            files: Vec::new(),
            settings: &settings,
            statistics_json: None,
            marks: None,
        };
        let opts = CompareOptions::default();
        let built = lake::build(&[lr], &[], &opts, "test");
        let back = |name: &str| {
            let t = built.get(name).expect("the table");
            let bytes = encode(t, Codec::Zstd, "t", name).expect("encoded");
            (
                bytes.clone(),
                decode(bytes, t.schema, name).expect("decoded"),
            )
        };
        let (_, runs) = back("runs");
        let (_, agg) = back("aggregates");
        let info = run_info((1, Some(1)), &runs, &runs.rows[0], &[]);
        assert_eq!(info.headline, scored.as_ref().headline_value());
        let rid = lake::run_id(&"ab".repeat(32));
        // The headline is the accuracy of one scorer's aggregates.
        assert!(headline_scorer(&runs, &runs.rows[0], Some(&agg)).is_some());
        let v = overview((1, &runs, &runs.rows[0]), Some(&agg), ("lake", &[], None));
        assert!(v.blocks.iter().any(
            |b| matches!(b, Block::Table(t) if t.key == "lake-scorers" && !t.rows.is_empty())
        ));
        // Samples and verdicts by their row groups, as File.slice reads them.
        let by_groups = |name: &str| {
            let (bytes, whole) = back(name);
            let len = bytes.len() as u64;
            let meta =
                slices::metadata_range(&bytes[bytes.len() - 8..], len, name).expect("footer");
            let plan = slices::plan(
                &bytes[meta.start as usize..meta.end as usize],
                &[&rid],
                len,
                name,
            )
            .expect("plan");
            let mut parts: Vec<(u64, Vec<u8>)> = plan
                .ranges
                .iter()
                .map(|r| (r.start, bytes[r.start as usize..r.end as usize].to_vec()))
                .collect();
            parts.push((meta.start, bytes[meta.start as usize..].to_vec()));
            let t =
                slices::decode_groups(parts, len, &plan.groups, whole.schema, name).expect("rows");
            assert_eq!(t, whole);
            t
        };
        let items = RunItems {
            samples: by_groups("samples"),
            verdicts: by_groups("verdicts"),
            texts: Some(Ok(by_groups("sample_text"))),
        };
        let page = items_page(&items, &ScreenFilter::default(), (0, 0), None);
        assert_eq!(
            page.n_items as usize,
            scored.as_ref().items().expect("items").len()
        );
        let first = page.rows[0].key.clone();
        let one = item(&items, &first);
        assert!(one.item.is_some_and(|i| i.blocks.len() > 2));
    }
}
