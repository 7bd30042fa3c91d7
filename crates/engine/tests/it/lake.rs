//! The lake's tables (`engine::lake`) from the Inspect logs of `tests/fixtures/compare/`: every
//! table is well formed and sorted by its key, `aggregates` sums equal the verdicts, a
//! `comparisons` row equals `run::compare` (what `diff --json` prints), and runs exported in two
//! shards union to the runs exported at once.

use evalboard_engine::compare::CompareOptions;
use evalboard_engine::lake::{self, Cell, LakeRun, LakeTables};
use evalboard_engine::run::{self, CompareSettings, ScoredRun, Settings};
use evalboard_engine::run_table::{content_id, sha256};
use evalboard_test_support::{fixture, read_folder};

/// A run with its files' `(path, size, SHA-256)`.
type Loaded = (ScoredRun, Vec<(String, u64, [u8; 32])>);

/// The runs of one fixture folder (`many::load`), each with its files' digests.
fn load(folder: &str, s: &Settings) -> Vec<Loaded> {
    let digests: Vec<(String, u64, [u8; 32])> = read_folder(&fixture(&format!("compare/{folder}")))
        .into_iter()
        .map(|(p, b)| (p, b.len() as u64, sha256(&b)))
        .collect();
    super::many::load(folder, s)
        .into_iter()
        .map(|scored| {
            let mine: Vec<_> = digests
                .iter()
                .filter(|(p, _, _)| scored.files().iter().any(|f| f.path == *p))
                .cloned()
                .collect();
            (scored, mine)
        })
        .collect()
}

fn lake_run<'a>(r: &'a Loaded, s: &'a Settings) -> LakeRun<'a> {
    let ids: Vec<(&str, u64, [u8; 32])> =
        r.1.iter().map(|(p, n, d)| (p.as_str(), *n, *d)).collect();
    LakeRun {
        run: r.0.as_ref(),
        content_id: content_id(&ids),
        files: r
            .1
            .iter()
            .map(|(p, n, d)| {
                (
                    p.clone(),
                    *n,
                    d.iter().map(|b| format!("{b:02x}")).collect(),
                )
            })
            .collect(),
        settings: s,
        statistics_json: None,
        marks: None,
    }
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Str(s) => s.clone(),
        Cell::Int(i) => i.to_string(),
        other => format!("{other:?}"),
    }
}

fn build(runs: &[LakeRun<'_>], base: Option<&LakeRun<'_>>) -> LakeTables {
    let base: Vec<LakeRun> = base.into_iter().cloned().collect();
    lake::build(runs, &base, &CompareOptions::default(), "test")
}

#[test]
fn tables_are_well_formed_and_agree_with_compare() {
    let s = Settings::default();
    let base = load("base", &s);
    let cand = load("gpt4o", &s);
    let all: Vec<LakeRun> = base.iter().chain(&cand).map(|r| lake_run(r, &s)).collect();
    let b = lake_run(&base[0], &s);
    let out = build(&all, Some(&b));
    for t in &out.tables {
        assert!(t.check().is_empty(), "{:?}", t.check());
    }
    let runs = out.get("runs").unwrap();
    assert_eq!(runs.rows.len(), all.len());
    let ids: Vec<String> = runs.column("run_id").into_iter().map(text).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);

    // Per run and scorer, the overall aggregate equals the verdict rows.
    let v = out.get("verdicts").unwrap();
    let a = out.get("aggregates").unwrap();
    assert!(!v.rows.is_empty());
    for row in a.rows.iter().filter(|r| r[4] == Cell::Str(String::new())) {
        let of: Vec<&Vec<Cell>> = v
            .rows
            .iter()
            .filter(|r| r[0] == row[0] && r[3] == row[1])
            .collect();
        let correct = of.iter().filter(|r| r[7] == Cell::Bool(true)).count() as i64;
        assert_eq!(row[6], Cell::Int(of.len() as i64));
        assert_eq!(row[8], Cell::Int(correct));
    }

    // A comparison row holds diff's numbers.
    let c = out.get("comparisons").unwrap();
    assert!(!c.rows.is_empty());
    for (i, lr) in all.iter().enumerate().skip(1) {
        let Ok(d) = run::compare(b.run, lr.run, &CompareSettings::default()) else {
            continue;
        };
        let cid = lake::run_id(&lr.content_id);
        let row = c
            .rows
            .iter()
            .find(|r| r[1] == Cell::Str(cid.clone()) && r[4] == Cell::Str(d.scorer.clone()))
            .unwrap_or_else(|| panic!("no comparison row for run {i}"));
        let st = &d.stats.stats;
        assert_eq!(row[5], Cell::count(st.n_paired));
        assert_eq!(row[7], Cell::count(st.flips.regressed));
        assert_eq!(row[8], Cell::count(st.flips.improved));
        assert_eq!(row[12], Cell::opt_f64(st.accuracy_delta));
        assert_eq!(row[13], Cell::opt_f64(Some(st.mcnemar_p)));
        assert_eq!(row[14], Cell::opt_f64(st.bootstrap.low));
    }
}

/// The baseline folder's runs and the runs of the three models compared with it.
fn history(s: &Settings) -> (Vec<Loaded>, Vec<Loaded>) {
    let runs = ["gpt4o", "llama", "mini"]
        .iter()
        .flat_map(|f| load(f, s))
        .collect();
    (load("base", s), runs)
}

#[test]
fn shards_union_to_the_whole_and_rebuild_is_identical() {
    let s = Settings::default();
    let (base, runs) = history(&s);
    let all: Vec<LakeRun> = runs.iter().map(|r| lake_run(r, &s)).collect();
    let b = lake_run(&base[0], &s);
    let whole = build(&all, Some(&b));
    assert_eq!(whole, build(&all, Some(&b)));
    let (one, two) = all.split_at(all.len() / 2);
    let parts = [build(one, Some(&b)), build(two, Some(&b))];
    for t in &whole.tables {
        let mut union: Vec<Vec<Cell>> = parts
            .iter()
            .flat_map(|p| p.get(t.schema.name).unwrap().rows.clone())
            .collect();
        let mut rows = t.rows.clone();
        let key = |r: &Vec<Cell>| format!("{r:?}");
        union.sort_by_key(key);
        rows.sort_by_key(key);
        assert_eq!(union, rows, "{}", t.schema.name);
    }
}

/// Runs built apart (the dashboard's workers: code-generation runs in their own) and merged
/// (`lake::merge`) are the lake built at once, row for row and in order, with the comparisons
/// of both parts; a run in both parts is kept once, with a warning.
#[test]
fn parts_merged_are_the_whole_in_key_order() {
    let s = Settings::default();
    let (base, runs) = history(&s);
    let all: Vec<LakeRun> = runs.iter().map(|r| lake_run(r, &s)).collect();
    let b = lake_run(&base[0], &s);
    let whole = build(&all, Some(&b));
    // Every other run in each part: the parts' run ids interleave.
    let pick = |odd: usize| -> Vec<LakeRun> {
        all.iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == odd)
            .map(|(_, r)| r.clone())
            .collect()
    };
    let (one, two) = (pick(0), pick(1));
    let merged = lake::merge(vec![build(&two, Some(&b)), build(&one, Some(&b))]);
    assert_eq!(merged.tables, whole.tables);
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    // A run in both parts: kept once.
    let again = lake::merge(vec![build(&all, Some(&b)), build(&one[..1], Some(&b))]);
    for t in &whole.tables {
        let got = &again.get(t.schema.name).unwrap().rows;
        if t.schema.name == "comparisons" {
            assert!(got.len() > t.rows.len());
        } else {
            assert_eq!(got, &t.rows, "{}", t.schema.name);
        }
    }
    assert_eq!(again.warnings.len(), 1, "{:?}", again.warnings);
}

/// docs/lake.md's Tables section is the schema rendered (`UPDATE_EXPECT=1` rewrites it).
#[test]
fn lake_md_tables_are_the_schema() {
    let path = evalboard_test_support::workspace_root().join("docs/lake.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let begin = "<!-- begin lake::schema::markdown: generated from the engine's schema -->\n";
    let end = "<!-- end lake::schema::markdown -->";
    let (b, e) = (doc.find(begin).unwrap(), doc.find(end).unwrap());
    let mut want = doc.clone();
    want.replace_range(b + begin.len()..e, &lake::schema::markdown());
    evalboard_test_support::expect_file(&path, &want);
}

/// A lake's runs read again as evalboard's run rows (`lake::rows::run_rows`, read as logs):
/// each run keeps its name, its items and, under its judge, every verdict; two runs read back
/// compare as the originals did (`run::compare`: the same pairs, flips, delta and p).
#[test]
fn run_rows_read_back_judge_and_compare_as_the_originals() {
    use evalboard_engine::family::Family;
    use evalboard_engine::run::ReadOptions;
    use evalboard_engine::{InputFile, RunInput};
    let s = Settings::default();
    let base = load("base", &s);
    let cand = load("mini", &s);
    let all: Vec<LakeRun> = base.iter().chain(&cand).map(|r| lake_run(r, &s)).collect();
    let out = build(&all, None);
    let rows = lake::rows::run_rows(
        out.get("runs").unwrap(),
        out.get("samples"),
        out.get("verdicts"),
        out.get("sample_text"),
    );
    assert_eq!(rows.len(), all.len());
    let back: Vec<ScoredRun> = rows
        .iter()
        .map(|r| {
            let input = RunInput::new(
                r.name.clone(),
                vec![InputFile::new(
                    format!("{}.evalboard-rows.jsonl", r.run_id),
                    r.bytes.clone(),
                )],
            );
            let read = run::read_as(Family::EvalLog, &input, None, ReadOptions::default());
            let read = read.unwrap_or_else(|e| panic!("{}: {}", r.name, e.message));
            run::score(read, &s, 1)
        })
        .collect();
    let by_name = |name: &str| back.iter().find(|b| b.as_ref().name() == name).unwrap();
    for lr in &all {
        let again = by_name(lr.run.name()).as_ref();
        assert!(again.diagnostics().is_empty(), "{:?}", again.diagnostics());
        let (was, now) = (
            lr.run.verdicts(None).unwrap(),
            again.verdicts(None).unwrap(),
        );
        assert_eq!(now.judge, was.judge, "{}", lr.run.name());
        // The headline as exported is what the log records (the Overview's "the log records",
        // `headline_recorded`): the number the run was listed by, not "—".
        let exported = lr.run.metrics().first().and_then(|m| m.value);
        let recorded = again
            .metrics()
            .into_iter()
            .find(|m| m.key == "headline_recorded")
            .and_then(|m| m.value);
        assert!(exported.is_some(), "{}", lr.run.name());
        assert_eq!(recorded, exported, "{}", lr.run.name());
        let pairs = |v: &evalboard_engine::run_table::Verdicts| -> Vec<_> {
            v.rows.iter().map(|r| (r.key.clone(), r.correct)).collect()
        };
        assert_eq!(pairs(&now), pairs(&was), "{}", lr.run.name());
    }
    for (b, c) in [
        ("base/arith.json", "mini/arith.json"),
        ("base/words.json", "mini/words.json"),
    ] {
        let find = |n: &str| all.iter().find(|r| r.run.name() == n).unwrap().run;
        let was = run::compare(find(b), find(c), &CompareSettings::default()).unwrap();
        let now = run::compare(
            by_name(b).as_ref(),
            by_name(c).as_ref(),
            &CompareSettings::default(),
        )
        .unwrap();
        let (w, n) = (&was.stats.stats, &now.stats.stats);
        assert_eq!(n.n_paired, w.n_paired, "{b} vs {c}");
        assert_eq!(n.flips.regressed, w.flips.regressed);
        assert_eq!(n.flips.improved, w.flips.improved);
        assert_eq!(n.accuracy_delta, w.accuracy_delta);
        assert_eq!(n.mcnemar_p, w.mcnemar_p);
        assert_eq!(n.bootstrap.low, w.bootstrap.low);
    }
}

/// "Export this view" (`lake::view::view_rows`): the items a filter shows, with every scorer's
/// verdict as scored now, the slice fields and the run's metadata; read back as a run, it has
/// those items, their verdicts and a headline equal to the kept items' accuracy (the header
/// says so too); the columns left out are absent; flips are slice fields. Unfiltered, the
/// headline read back is the run's own. The CSV of the same rows neutralises formulas.
#[test]
fn a_view_export_reads_back_with_its_items_and_numbers() {
    use evalboard_engine::family::Family;
    use evalboard_engine::lake::view::{csv_table, view_rows, ViewSpec};
    use evalboard_engine::run::ReadOptions;
    use evalboard_engine::{InputFile, RunInput};
    use std::collections::{BTreeMap, BTreeSet};
    let s = Settings::default();
    let base = load("base", &s);
    let r = &base[0];
    let lr = lake_run(r, &s);
    let read_back = |bytes: &[u8]| {
        let input = RunInput::new(
            "view",
            vec![InputFile::new("view.evalboard-rows.jsonl", bytes.to_vec())],
        );
        let read = run::read_as(Family::EvalLog, &input, None, ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.message));
        run::score(read, &s, 1)
    };
    // Unfiltered: every item, the run's own headline.
    let all = view_rows(&lr, &ViewSpec::default(), "test");
    let back = read_back(&all.bytes);
    let was = r.0.as_ref().verdicts(None).unwrap();
    let now = back.as_ref().verdicts(None).unwrap();
    assert_eq!(now.rows.len(), was.rows.len());
    assert_eq!(
        back.as_ref().headline_value(),
        r.0.as_ref().headline_value(),
        "{}",
        lr.run.name()
    );
    // Filtered to the wrong items, without the texts, with flips.
    let wrong: BTreeSet<_> = was
        .rows
        .iter()
        .filter(|v| v.correct == Some(false))
        .map(|v| v.key.clone())
        .collect();
    assert!(!wrong.is_empty() && wrong.len() < was.rows.len());
    let first = wrong.iter().next().unwrap().clone();
    let spec = ViewSpec {
        keys: Some(wrong.clone()),
        flips: BTreeMap::from([(first.clone(), "regressed".to_string())]),
        columns: vec!["answer".into()],
        filter: "verdict: wrong".into(),
    };
    let view = view_rows(&lr, &spec, "test");
    let text = String::from_utf8(view.bytes.clone()).unwrap();
    let head: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(head["view"]["items"], wrong.len());
    assert_eq!(head["view"]["of_items"], was.rows.len());
    assert_eq!(head["view"]["filter"], "verdict: wrong");
    assert_eq!(head["run"]["n_items"], wrong.len());
    assert_eq!(head["run"]["headline_value"], 0.0);
    assert_eq!(head["run"]["name"], lr.run.name());
    assert!(!text.contains("\"input\""), "texts left out");
    let back = read_back(&view.bytes);
    let now = back.as_ref().verdicts(None).unwrap();
    let keys: BTreeSet<_> = now.rows.iter().map(|v| v.key.clone()).collect();
    assert_eq!(keys, wrong);
    assert!(now.rows.iter().all(|v| v.correct == Some(false)));
    assert_eq!(back.as_ref().headline_value(), Some(0.0));
    let line = text
        .lines()
        .find(|l| l.contains(&first.to_json().to_string()))
        .unwrap();
    assert!(line.contains("\"flip\":\"regressed\""), "{line}");
    // The CSV: a header, a row per item, every scorer a column.
    let (head, body) = csv_table(&view.bytes);
    assert_eq!(body.len(), wrong.len());
    assert_eq!(&head[..3], ["key", "status", "error"]);
    assert!(head.iter().any(|h| h == "flip"));
    assert!(head.iter().any(|h| h.as_str() == now.judge));
}

/// A run built from `files` and scored under `s`, with its files' digests.
fn loaded(name: &str, files: Vec<(String, Vec<u8>)>, s: &Settings) -> Loaded {
    use evalboard_engine::{InputFile, RunInput};
    let digests = files
        .iter()
        .map(|(p, b)| (p.clone(), b.len() as u64, sha256(b)))
        .collect();
    let input = RunInput::new(
        name,
        files
            .into_iter()
            .map(|(p, b)| InputFile::new(p, b))
            .collect(),
    );
    let read = run::read(&input, None, run::ReadOptions::default()).unwrap();
    (run::score(read, s, 1), digests)
}

/// The `samples` cells of column `col`, by item key.
fn sample_column(t: &LakeTables, col: &str) -> Vec<(String, Cell)> {
    let samples = t.get("samples").unwrap();
    let (k, c) = (
        samples.schema.index_of("item_key").unwrap(),
        samples.schema.index_of(col).unwrap(),
    );
    samples
        .rows
        .iter()
        .map(|r| (text(&r[k]), r[c].clone()))
        .collect()
}

/// `samples` carries what each item spent and what its tool recorded of it: tokens by class
/// (input with the cache counts, output with the reasoning), latency, cost (under the price
/// table, else the tool's own) and the tool's own scores, for an eval log (Inspect, with the
/// price table of `tests/fixtures/evallog/prices`) and a numeric QA JSONL; null where the run
/// records nothing. A lake read back as run rows gives the same cost per item.
#[test]
fn samples_carry_tokens_latency_cost_and_the_tools_scores() {
    let bytes = std::fs::read(fixture("evallog/prices/prices.json")).unwrap();
    let (table, _) =
        evalboard_engine::prices::PriceTable::from_json("prices.json", &bytes).unwrap();
    let mut s = Settings::default();
    s.numeric_qa.prices = table;
    let inspect = loaded(
        "inspect",
        read_folder(&fixture("evallog/prices/inspect")),
        &s,
    );
    let qa = loaded(
        "qa",
        vec![(
            "run.jsonl".into(),
            concat!(
                r#"{"conversation_id":"c1","turn_idx":0,"question":"q0","expected":"1","predicted":1,"model":"gpt-4o","prompt_tokens":1200,"completion_tokens":300,"latency_ms":850.5,"numerical_match":true}"#, "\n",
                r#"{"conversation_id":"c1","turn_idx":1,"question":"q1","expected":"2","predicted":3,"model":"gpt-4o"}"#, "\n",
                r#"{"conversation_id":"c2","turn_idx":0,"question":"q2","expected":"2","predicted":2,"model":"nobody","total_tokens":50}"#, "\n",
            )
            .as_bytes()
            .to_vec(),
        )],
        &s,
    );
    let t = build(&[lake_run(&inspect, &s), lake_run(&qa, &s)], None);
    let col = |name: &str| -> Vec<String> {
        sample_column(&t, name)
            .into_iter()
            .map(|(k, c)| format!("{k} {c:?}"))
            .collect()
    };
    let cols = [
        "input_tokens",
        "output_tokens",
        "reasoning_tokens",
        "latency_ms",
        "cost_usd",
        "source_scores_json",
    ];
    let got: Vec<String> = cols.iter().map(|c| format!("{c}: {:#?}", col(c))).collect();
    evalboard_test_support::expect_file(
        &fixture("evallog/prices/expected/lake_samples.txt"),
        &(got.join("\n") + "\n"),
    );
    // Read back from the lake, each sample costs what it was exported with.
    let rows = lake::rows::run_rows(
        t.get("runs").unwrap(),
        t.get("samples"),
        t.get("verdicts"),
        t.get("sample_text"),
    );
    for r in &rows {
        let back = loaded(
            &r.name,
            vec![(
                format!("{}.evalboard-rows.jsonl", r.run_id),
                r.bytes.clone(),
            )],
            &s,
        );
        let rows_back = back.0.as_ref().items().unwrap();
        let exported: Vec<(String, Cell)> = sample_column(&t, "cost_usd");
        for row in rows_back {
            let key = row.key.to_json().to_string();
            if let Some((_, c)) = exported.iter().find(|(k, _)| *k == key) {
                assert_eq!(Cell::opt_f64(row.usage.cost_usd), *c, "{} {key}", r.name);
            }
        }
    }
}
