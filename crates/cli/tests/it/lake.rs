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
