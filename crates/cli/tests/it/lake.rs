//! `evalboard export --lake` and `evalboard stats --from-counts` on the Inspect logs of
//! `tests/fixtures/compare/`: shards written apart union to the lake written at once, row for
//! row; the same export gives the same bytes; a retried shard replaces its own files; an
//! existing lake needs --force; comparison counts give back the comparison's statistics.

use std::path::{Path, PathBuf};

use evalboard_engine::lake::{Cell, TABLES};
use evalboard_test_support::fixture;

use super::evalboard;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("evalboard-cli-lake-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(folder: &str) -> String {
    fixture(&format!("compare/{folder}")).display().to_string()
}

fn export(lake: &Path, extra: &[&str], runs: &[&str]) -> (i32, String, String) {
    let mut args: Vec<String> = vec!["export".into(), "--lake".into(), lake.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--baseline".to_string(), run("base")]);
    args.extend(runs.iter().map(|r| run(r)));
    evalboard(&args)
}

/// Every file of the lake, by relative path.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for t in TABLES.iter().map(|t| t.name).chain(["."]) {
        let Ok(rd) = std::fs::read_dir(dir.join(t)) else {
            continue;
        };
        for e in rd.flatten().filter(|e| e.path().is_file()) {
            let p = e.path();
            out.push((
                p.strip_prefix(dir).unwrap().display().to_string(),
                std::fs::read(&p).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

fn rows(dir: &Path, table: &str) -> Vec<String> {
    let lake = evalboard_lake::open(dir).unwrap();
    let mut r: Vec<String> = lake
        .table(table)
        .unwrap()
        .rows
        .iter()
        .map(|r| format!("{r:?}"))
        .collect();
    r.sort();
    r
}

#[test]
fn shards_add_up_and_exports_are_reproducible() {
    let (whole, again, sharded) = (temp("whole"), temp("again"), temp("sharded"));
    let all = ["base", "gpt4o", "llama", "mini"];
    let (code, _, err) = export(&whole, &[], &all);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 8 files"), "{err}");
    assert_eq!(export(&again, &[], &all).0, 0);
    assert_eq!(files(&whole), files(&again), "the same export, other bytes");

    // An existing lake is kept without --force.
    let (code, _, err) = export(&whole, &[], &all);
    assert_eq!(code, 2);
    assert!(err.contains("is a lake already"), "{err}");
    assert_eq!(export(&whole, &["--force"], &all).0, 0);
    assert_eq!(files(&whole), files(&again));

    // The lake scores as the folders did: the same statistics, byte for byte, in the same order.
    let folders: Vec<String> = all.iter().map(|r| run(r)).collect();
    let mut args = vec!["score".to_string(), "--json".into()];
    args.extend(folders);
    let (code, from_runs, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let (code, from_lake, err) = evalboard(&["score", "--json", whole.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_lake, from_runs);

    for (k, runs) in [("s1", &all[..2]), ("s2", &all[2..])] {
        let (code, _, err) = export(&sharded, &["--shard-id", k], runs);
        assert_eq!(code, 0, "{err}");
    }
    let before = files(&sharded);
    assert_eq!(before.len(), 1 + 2 * TABLES.len());
    // A retried shard overwrites its own files: nothing new, the same bytes.
    assert_eq!(export(&sharded, &["--shard-id", "s1"], &all[..2]).0, 0);
    assert_eq!(files(&sharded), before);
    for t in TABLES {
        assert_eq!(rows(&whole, t.name), rows(&sharded, t.name), "{}", t.name);
    }
    let lake = evalboard_lake::open(&sharded).unwrap();
    assert_eq!(lake.manifest.shards.len(), 2);
    assert!(lake.manifest.shards[0]
        .runs
        .iter()
        .all(|r| !r.input_files.is_empty()));

    // The comparisons' counts as a CSV (a SQL reduce's output) give their statistics back.
    let cmp = lake.table("comparisons").unwrap();
    assert!(!cmp.rows.is_empty());
    let col = |name: &str| cmp.schema.index_of(name).unwrap();
    let mut csv = String::from("baseline,candidate,scorer,n11,n10,n01,n00\n");
    for r in &cmp.rows {
        let t = |c: &Cell| match c {
            Cell::Str(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            other => panic!("{other:?}"),
        };
        csv.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            t(&r[col("baseline")]),
            t(&r[col("candidate")]),
            t(&r[col("scorer")]),
            t(&r[col("n11")]),
            t(&r[col("n10")]),
            t(&r[col("n01")]),
            t(&r[col("n00")])
        ));
    }
    let counts = sharded.join("counts.csv");
    std::fs::write(&counts, csv).unwrap();
    let (code, out, err) =
        evalboard(&["stats", "--from-counts", counts.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for (r, s) in cmp.rows.iter().zip(v.as_array().unwrap()) {
        let f = |c: &Cell| match c {
            Cell::Float(x) => serde_json::json!(x),
            _ => serde_json::Value::Null,
        };
        assert_eq!(s["delta"], f(&r[col("delta")]));
        assert_eq!(s["mcnemar_exact_p"], f(&r[col("mcnemar_p")]));
        assert_eq!(s["bootstrap_ci"]["low"], f(&r[col("ci_low")]));
        assert_eq!(s["bootstrap_ci"]["high"], f(&r[col("ci_high")]));
    }
    // The same from the Parquet file of the comparisons table itself.
    let pq = lake
        .manifest
        .files
        .iter()
        .find(|f| f.table == "comparisons")
        .unwrap();
    let (code, out2, err) = evalboard(&[
        "stats",
        "--from-counts",
        sharded.join(&pq.path).to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v2: serde_json::Value = serde_json::from_str(&out2).unwrap();
    assert_eq!(v2.as_array().unwrap().len(), pq.rows as usize);
    for d in [whole, again, sharded] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// `export --marks`: a run's human review marks (by its content id) are its `verdicts` of scorer
/// `human` (value the override, else 1 or 0; correct the mark) and an `aggregates` row; a
/// run without marks gets none.
#[test]
fn marks_are_exported_as_the_human_scorer() {
    use evalboard_engine::marks::{At, Mark, MarkSet};
    use evalboard_engine::run_table::ItemKey;
    let (plain, marked) = (temp("plain-marks"), temp("with-marks"));
    let (code, _, err) = export(&plain, &[], &["gpt4o"]);
    assert_eq!(code, 0, "{err}");
    let lake = evalboard_lake::open(&plain).unwrap();
    let runs = lake.table("runs").unwrap();
    let col = |t: &evalboard_engine::lake::Table, name: &str| t.schema.index_of(name).unwrap();
    let (cid, rid) = (col(runs, "content_id"), col(runs, "run_id"));
    let run = &runs.rows[0];
    let (Cell::Str(content_id), Cell::Str(run_id)) = (&run[cid], &run[rid]) else {
        panic!("{run:?}")
    };
    let verdicts = lake.table("verdicts").unwrap();
    let keys: Vec<ItemKey> = verdicts
        .rows
        .iter()
        .filter(|r| r[col(verdicts, "run_id")] == Cell::Str(run_id.clone()))
        .filter_map(|r| match &r[col(verdicts, "item_key")] {
            Cell::Str(k) => {
                evalboard_engine::run_table::ItemKey::from_json(&serde_json::from_str(k).ok()?)
            }
            _ => None,
        })
        .collect();
    assert!(keys.len() >= 3, "{keys:?}");
    let mut set = MarkSet::default();
    let at = || At::Iso("2026-12-07T00:00:00Z".into());
    set.set_mark(content_id, &keys[0], Some(Mark::Correct), at());
    set.set_mark(content_id, &keys[1], Some(Mark::Wrong), at());
    set.set_override(content_id, &keys[2], Some(0.25), at())
        .unwrap();
    let sidecar = marked.with_extension("jsonl");
    std::fs::write(&sidecar, set.to_jsonl()).unwrap();
    let (code, _, err) = export(
        &marked,
        &["--marks", &sidecar.display().to_string()],
        &["gpt4o"],
    );
    assert_eq!(code, 0, "{err}");
    let lake = evalboard_lake::open(&marked).unwrap();
    let verdicts = lake.table("verdicts").unwrap();
    let human: Vec<&Vec<Cell>> = verdicts
        .rows
        .iter()
        .filter(|r| r[col(verdicts, "scorer")] == Cell::Str("human".into()))
        .collect();
    let got: Vec<(Cell, Cell, Cell)> = human
        .iter()
        .map(|r| {
            (
                r[col(verdicts, "value")].clone(),
                r[col(verdicts, "correct")].clone(),
                r[col(verdicts, "label")].clone(),
            )
        })
        .collect();
    let mut want = vec![
        (
            Cell::Float(1.0),
            Cell::Bool(true),
            Cell::Str("correct".into()),
        ),
        (
            Cell::Float(0.0),
            Cell::Bool(false),
            Cell::Str("wrong".into()),
        ),
        (Cell::Float(0.25), Cell::Null, Cell::Str("score".into())),
    ];
    // In the run's item-key order, as its other scorers' rows.
    let order: Vec<&Cell> = human
        .iter()
        .map(|r| &r[col(verdicts, "item_key")])
        .collect();
    let pos = |c: &Cell| {
        keys.iter()
            .position(|k| Cell::Str(k.to_json().to_string()) == *c)
            .unwrap()
    };
    assert!(order.windows(2).all(|w| pos(w[0]) < pos(w[1])), "{order:?}");
    let mut got_sorted = got.clone();
    let key = |c: &(Cell, Cell, Cell)| format!("{c:?}");
    got_sorted.sort_by_key(key);
    want.sort_by_key(key);
    assert_eq!(got_sorted, want);
    assert!(human
        .iter()
        .all(|r| r[col(verdicts, "scorer_version")] == Cell::Str("evalboard-marks/1".into())));
    // The aggregate: 2 marked correct or wrong (1 correct) of 3.
    let agg = lake.table("aggregates").unwrap();
    let whole: Vec<&Vec<Cell>> = agg
        .rows
        .iter()
        .filter(|r| r[col(agg, "scorer")] == Cell::Str("human".into()))
        .filter(|r| r[col(agg, "slice_field")] == Cell::Str(String::new()))
        .collect();
    assert_eq!(whole.len(), 1, "{whole:?}");
    assert_eq!(whole[0][col(agg, "n_correct")], Cell::Int(1));
    // Without --marks: no human rows.
    let lake = evalboard_lake::open(&plain).unwrap();
    let v = lake.table("verdicts").unwrap();
    assert!(!v
        .rows
        .iter()
        .any(|r| r[col(v, "scorer")] == Cell::Str("human".into())));
    for d in [&plain, &marked] {
        let _ = std::fs::remove_dir_all(d);
    }
    let _ = std::fs::remove_file(&sidecar);
}

/// Round trip (issue 27, Must hold): run folder → lake → `score LAKE --out DIR` writes each run's
/// statistics.json with the bytes `score RUN --out DIR` writes, for the families whose `--out`
/// writes one (numeric QA, eval logs: code generation writes metrics.json and eval sets
/// scorecard.json, not written from a lake yet); a folder of several runs writes one folder per
/// run, named as `score RUN... --out` names them.
#[test]
fn score_of_a_lake_writes_the_same_statistics_json() {
    let runs = [
        "compare/gpt4o",
        "numeric_qa/ok/fa2_simulated",
        "evallog/ok/inspect_epochs2_json",
        "evallog/ok/openai_evals_2023",
        "evallog/ok/lm_eval_v0_4_0_layout",
        "evallog/ok/promptfoo_export",
    ];
    for (i, r) in runs.iter().enumerate() {
        let path = fixture(r);
        if !path.exists() {
            continue;
        }
        let path = path.display().to_string();
        let (lake, direct, via) = (
            temp(&format!("rt-lake-{i}")),
            temp(&format!("rt-direct-{i}")),
            temp(&format!("rt-via-{i}")),
        );
        let (code, _, err) = evalboard(&["export", "--lake", lake.to_str().unwrap(), &path]);
        assert_eq!(code, 0, "{r}: {err}");
        let (code, _, err) = evalboard(&["score", &path, "--out", direct.to_str().unwrap()]);
        assert!(code == 0 || code == 1, "{r}: {err}");
        let (code, _, err) = evalboard(&[
            "score",
            lake.to_str().unwrap(),
            "--out",
            via.to_str().unwrap(),
        ]);
        assert!(code == 0 || code == 1, "{r}: {err}");
        // One run: DIR/statistics.json; a folder of several runs: DIR/<run>/statistics.json.
        let mut want: Vec<(String, Vec<u8>)> = walk(&direct)
            .into_iter()
            .filter(|(p, _)| p.ends_with("statistics.json"))
            .collect();
        want.sort();
        let mut got: Vec<(String, Vec<u8>)> = walk(&via)
            .into_iter()
            .filter(|(p, _)| p.ends_with("statistics.json"))
            .collect();
        got.sort();
        assert!(!want.is_empty(), "{r}: no statistics.json written");
        assert_eq!(
            got.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            want.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            "{r}"
        );
        for ((p, g), (_, w)) in got.iter().zip(&want) {
            assert!(
                g == w,
                "{r}: {p} differs:\n{}\n---\n{}",
                String::from_utf8_lossy(g),
                String::from_utf8_lossy(w)
            );
        }
        for d in [lake, direct, via] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Every file under `dir`, by path relative to it.
fn walk(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out
}

/// `compare --json` rows with what a lake does not carry left out: the path (the lake's), the
/// headline's label (a lake run's headline is named by its scorer), per-sample tokens and
/// latency (null in v1 exports).
fn compare_rows(json: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut rows = v["runs"].as_array().unwrap().clone();
    for r in &mut rows {
        let o = r.as_object_mut().unwrap();
        for k in [
            "path",
            "headline_label",
            "tokens",
            "tokens_per_correct",
            "latency_mean_s",
        ] {
            o.remove(k);
        }
    }
    rows
}

/// `compare LAKE` (the lake's baseline runs, as `export --baseline` named them, against its
/// other runs) and `report LAKE` take the runs a lake holds: every row's numbers (items,
/// headline, CI, pairs, flips, delta, p, Holm p, bootstrap CI) equal `compare` on the original
/// folders, for eval logs and for numeric QA (whose failed conversations' turns stay wrong).
#[test]
fn compare_and_report_take_a_lake() {
    let root = evalboard_test_support::workspace_root();
    let demo = |r: &str| root.join("demo").join(r).display().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            ["base", "gpt4o", "mini", "llama"]
                .iter()
                .map(|r| run(r))
                .collect(),
            "eval logs",
        ),
        (vec![demo("gpt-4o"), demo("o3")], "numeric QA"),
    ];
    for (i, (runs, what)) in cases.iter().enumerate() {
        let lake = temp(&format!("cmp-{i}"));
        let l = lake.to_str().unwrap();
        let mut args = vec!["export", "--lake", l, "--baseline", &runs[0]];
        args.extend(runs.iter().map(String::as_str));
        let (code, _, err) = evalboard(&args);
        assert_eq!(code, 0, "{what}: {err}");

        let mut direct = vec!["compare", "--json"];
        direct.extend(runs.iter().map(String::as_str));
        let (code_d, want, err) = evalboard(&direct);
        assert!(code_d == 0 || code_d == 1, "{what}: {err}");
        let (code_l, got, err) = evalboard(&["compare", "--json", l]);
        assert_eq!(code_l, code_d, "{what}: {err}");
        assert_eq!(compare_rows(&got), compare_rows(&want), "{what}");

        let html = temp(&format!("cmp-{i}-report.html"));
        let (code, _, err) = evalboard(&["report", l, "--out", html.to_str().unwrap()]);
        assert_eq!(code, 0, "{what}: {err}");
        let page = std::fs::read_to_string(&html).unwrap();
        let names: Vec<String> = compare_rows(&want)
            .iter()
            .map(|r| r["run"].as_str().unwrap().to_string())
            .collect();
        for n in &names {
            assert!(page.contains(n.as_str()), "{what}: the report lacks {n}");
        }
        let _ = std::fs::remove_dir_all(&lake);
        let _ = std::fs::remove_file(&html);
    }

    // A run folder alone is nothing to compare.
    let (code, _, err) = evalboard(&["compare", &run("base")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("nothing to compare with the baseline"),
        "{err}"
    );
}

/// A run read from a lake pairs with the log it was exported from (what a team ships, kept in a
/// lake, against a log dropped today): every item is paired on the tool's item key and judged by
/// the tool's headline, which names the rows' score by its label; nothing flips. Either side may
/// be the baseline, for Inspect logs and for lm-eval's (grouped by task) alike.
#[test]
fn a_lake_run_pairs_with_its_original_log() {
    for (i, folder) in ["gpt4o", "base"].iter().enumerate() {
        let original = run(folder);
        let lake = temp(&format!("pair-{i}"));
        let l = lake.to_str().unwrap();
        let (code, _, err) = evalboard(&["export", "--lake", l, &original]);
        assert_eq!(code, 0, "{folder}: {err}");
        for args in [[original.as_str(), l], [l, original.as_str()]] {
            let (code, json, err) = evalboard(&["compare", "--json", args[0], args[1]]);
            assert!(code == 0 || code == 1, "{folder}: {err}");
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let rows: Vec<&serde_json::Value> = v["runs"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["is_baseline"] == false)
                .collect();
            assert!(!rows.is_empty(), "{folder} {args:?}: {json}");
            for r in rows {
                let items = r["n_items"].as_u64().unwrap_or(0);
                assert!(items > 0, "{folder} {args:?}: {r}");
                assert_eq!(
                    r["n_paired"].as_u64(),
                    Some(items),
                    "{folder} {args:?}: {r}"
                );
                assert_eq!(r["regressed"].as_u64(), Some(0), "{folder} {args:?}: {r}");
                assert_eq!(r["improved"].as_u64(), Some(0), "{folder} {args:?}: {r}");
            }
        }
        let _ = std::fs::remove_dir_all(&lake);
    }
}
