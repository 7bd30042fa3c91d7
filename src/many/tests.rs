//! The many-runs view over `tests/fixtures/compare/` (Inspect logs of two tasks by several
//! models, a price table without llama's price): the rows are the engine's, the matrix marks
//! and filters follow the baseline, the charts say what they show.

use std::path::{Path, PathBuf};

use evalboard_engine::family::Family;
use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings, ALL_FAMILIES};
use evalboard_engine::{InputFile, RunInput};

use super::Many;
use crate::protocol::{Block, Cell, ScreenFilter, ScreenQuery};
use crate::screen::testing::flat;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare")
}

/// The fixtures' price table in the settings.
fn settings() -> Settings {
    let bytes = std::fs::read(root().join("prices.json")).expect("prices");
    let mut s = Settings::default();
    s.numeric_qa.prices = evalboard_engine::prices::PriceTable::from_json("p", &bytes)
        .expect("a table")
        .0;
    s
}

/// A fixture folder as the main worker loads it: one run per log, named `folder/file`.
fn load(dir: &str) -> Vec<(String, ScoredRun)> {
    let mut files: Vec<InputFile> = std::fs::read_dir(root().join(dir))
        .expect("folder")
        .flatten()
        .map(|e| {
            InputFile::new(
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("file"),
            )
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let runs = run::load_parts_in::<ALL_FAMILIES>(
        Family::EvalLog,
        RunInput::new(dir, files),
        (None, ReadOptions::default()),
        &settings(),
        1,
    )
    .expect("usable");
    let split = runs.len() > 1;
    runs.into_iter()
        .map(|r| {
            let name = if split {
                r.as_ref().name().to_string()
            } else {
                dir.to_string()
            };
            (name, r)
        })
        .collect()
}

fn overview() -> ScreenQuery {
    ScreenQuery::Overview {
        dark: false,
        choices: Vec::new(),
    }
}

fn items(show: Option<&str>) -> ScreenQuery {
    ScreenQuery::Items {
        filter: ScreenFilter {
            choices: show
                .map(|s| vec![("show".to_string(), s.to_string())])
                .unwrap_or_default(),
            text: None,
        },
        offset: 0,
        limit: 500,
    }
}

/// The arith baseline against gpt-4o, gpt-4o-mini and llama on arith.
fn arith() -> Many {
    let base = load("base");
    let others: Vec<(String, ScoredRun)> = ["gpt4o", "mini", "llama"]
        .iter()
        .flat_map(|d| load(d))
        .filter(|(n, _)| !n.ends_with("words.json"))
        .collect();
    let b: Vec<(&str, _)> = base
        .iter()
        .filter(|(n, _)| n.ends_with("arith.json"))
        .map(|(n, r)| (n.as_str(), r.as_ref()))
        .collect();
    let o: Vec<(&str, _)> = others
        .iter()
        .map(|(n, r)| (n.as_str(), r.as_ref()))
        .collect();
    Many::new::<ALL_FAMILIES>(&b, &o)
}

#[test]
fn the_overview_ranks_reads_and_charts() {
    let m = arith();
    let c = m.cmp.as_ref().expect("compared");
    assert_eq!(c.runs.len(), 4);
    let v = m.view(&overview());
    let blocks = flat(&v.blocks);
    let table = blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(t) if t.key == "many-runs" => Some(t),
            _ => None,
        })
        .expect("ranked table");
    // Baseline first, then best first; a run's name opens Compare by the page's name.
    assert_eq!(table.rows[0].key.as_deref(), Some("base/arith.json"));
    assert!(
        matches!(&table.rows[1].cells[0], Cell::Open(t, o) if t.starts_with("gpt4o") && *o == format!("base/arith.json\u{1f}{t}")),
        "{:?}",
        table.rows[1]
    );
    assert!(blocks.iter().any(|b| matches!(b, Block::Note { key, text, .. } if key == "many-reading" && *text == c.reading)));
    let keys: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Chart(ch) => Some(ch.key.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(keys, ["many-intervals", "many-frontier"]);
    // llama has no price: listed beside the frontier, not on it.
    let unpriced = blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(t) if t.key == "many-unpriced" => Some(t),
            _ => None,
        })
        .expect("unpriced runs");
    assert_eq!(unpriced.rows.len(), 1);
    assert!(matches!(&unpriced.rows[0].cells[0], Cell::Text(t) if t.starts_with("llama")));
    // One task: no grid.
    assert!(!blocks
        .iter()
        .any(|b| matches!(b, Block::Table(t) if t.key == "many-grid")));
}

#[test]
fn the_matrix_marks_and_filters_against_the_baseline() {
    let m = arith();
    let all = m.view(&items(None));
    assert_eq!(all.layout.columns.len(), 5, "item, baseline, three runs");
    assert_eq!(all.n_items, all.n_match);
    // Every filter keeps what it says, and a cell says it.
    let base = 1;
    let rows = |show: &str| m.view(&items(Some(show))).rows;
    for r in rows("Regressed in any run") {
        assert_eq!(r.cells[base], "✓");
        assert!(r.cells[2..].iter().any(|c| c == "✗ ▼"), "{:?}", r.cells);
        assert!(r.bad);
    }
    for r in rows("Every run wrong") {
        assert!(
            r.cells[1..].iter().all(|c| !c.starts_with('✓')),
            "{:?}",
            r.cells
        );
    }
    for r in rows("Only the baseline right") {
        assert_eq!(r.cells[base], "✓");
        assert!(r.cells[2..].iter().all(|c| !c.starts_with('✓')));
    }
    let gpt = all.layout.columns[2].0.clone();
    let only = rows(&format!("Only {gpt} right"));
    assert!(!only.is_empty());
    for r in only {
        assert_eq!(r.cells[2], "✓ ▲");
        assert!(r
            .cells
            .iter()
            .enumerate()
            .skip(1)
            .all(|(i, c)| i == 2 || !c.starts_with('✓')));
    }
    // mini misses samples 37-40: shown as missing, never wrong.
    let mini = all
        .layout
        .columns
        .iter()
        .position(|(l, _)| l.starts_with("mini"))
        .expect("mini column");
    assert_eq!(all.rows.iter().filter(|r| r.cells[mini] == "—").count(), 4);
}

#[test]
fn no_item_in_common_and_every_interval_including_zero_are_said() {
    let base = load("base");
    let disjoint = load("disjoint");
    let b = [(base[0].0.as_str(), base[0].1.as_ref())];
    let o = [(disjoint[0].0.as_str(), disjoint[0].1.as_ref())];
    let m = Many::new::<ALL_FAMILIES>(&b, &o);
    let v = m.view(&overview());
    let notes: Vec<&str> = flat(&v.blocks)
        .into_iter()
        .filter_map(|b| match b {
            Block::Note { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with("No run has a paired Δ")),
        "{notes:?}"
    );
}

#[test]
fn the_matrix_keys_are_the_union_of_the_columns_in_order() {
    use evalboard_engine::run_table::ItemKey;
    let col = |ks: &[(&str, u64)]| -> Vec<(ItemKey, Option<bool>)> {
        ks.iter()
            .map(|(t, i)| (ItemKey::text_index(t, *i), Some(true)))
            .collect()
    };
    let a = col(&[("a", 0), ("a", 2), ("c", 1)]);
    let b = col(&[("a", 1), ("a", 2), ("b", 0), ("d", 0)]);
    let keys = [&a, &b, &a]
        .into_iter()
        .fold(Vec::new(), |k, c| super::merge_keys(k, c));
    let mut want: Vec<ItemKey> = a.iter().chain(&b).map(|(k, _)| k.clone()).collect();
    want.sort();
    want.dedup();
    assert_eq!(keys, want);
}

/// "Export this view" of the tab: the items a filter shows, each run's mark as a word, in CSV
/// (an item a row), JSONL (the ranked table's rows in the header, as the overview ranks them)
/// and Parquet's long-form rows (an item × run a row); the same count and marks as the page.
#[test]
fn the_view_exports_the_items_its_filter_shows() {
    use super::ManyExport;
    let m = arith();
    let q = items(Some("Regressed in any run"));
    let shown = m.view(&q);
    let ScreenQuery::Items { filter, .. } = &q else {
        unreachable!()
    };
    let n = shown.n_match as usize;
    assert!(n > 0 && n < shown.n_items as usize);
    let text = |format: &str| match m.export(filter, format, ("base", "test")).unwrap() {
        ManyExport::Text { file, text } => (file, text),
        ManyExport::Table { .. } => panic!("{format}: a table"),
    };
    let (file, csv) = text("csv");
    assert_eq!(file, "base.all-runs.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), n + 1, "a header, then an item a line");
    assert!(lines[0].starts_with("item,"), "{}", lines[0]);
    // The first row's marks, as the page's cells say them.
    let words: Vec<&str> = lines[1].split(',').skip(1).collect();
    let cells = &shown.rows[0].cells[1..];
    for (w, c) in words.iter().zip(cells) {
        let want = match c.as_str() {
            "✓" => "right",
            "✗" => "wrong",
            "✗ ▼" => "regressed",
            "✓ ▲" => "improved",
            "·" => "unscored",
            _ => "missing",
        };
        assert_eq!(*w, want, "{lines:?}");
    }
    let (_, jsonl) = text("jsonl");
    let head: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(head["items"], n);
    assert_eq!(head["of_items"], shown.n_items);
    assert_eq!(head["filter"]["show"], "Regressed in any run");
    let ranked = m.cmp.as_ref().unwrap();
    assert_eq!(head["runs"].as_array().unwrap().len(), ranked.runs.len());
    assert_eq!(
        head["runs"][1]["delta"],
        serde_json::json!(ranked.runs[1].delta)
    );
    assert_eq!(jsonl.lines().count(), n + 1);
    match m.export(filter, "parquet", ("base", "test")).unwrap() {
        ManyExport::Table { file, rows } => {
            assert_eq!(file, "base.all-runs.parquet");
            assert_eq!(rows.len(), n * (shown.layout.columns.len() - 1));
            assert!(rows
                .iter()
                .all(|r| r.len() == evalboard_engine::lake::schema::MANY_MARKS.columns.len()));
        }
        ManyExport::Text { .. } => panic!("parquet: a text"),
    }
}
