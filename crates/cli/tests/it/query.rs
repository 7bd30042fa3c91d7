//! `evalboard query RUN 'EXPR'`: the 50 queries of `tests/fixtures/query/queries.json` return
//! exactly the items a reference filter written apart in Python selected
//! (`make_query_fixture.py`); the human listing with where each item matched (golden in
//! `tests/fixtures/cli/query/expected/`, `UPDATE_EXPECT=1` rewrites); a bad query exits 2 with
//! where it went wrong.

use serde_json::Value;

fn evalboard(args: &[&str]) -> (i32, String, String) {
    crate::evalboard_in(&evalboard_test_support::workspace_root(), args)
}

fn golden(name: &str, actual: &str) {
    let path = evalboard_test_support::fixture("cli/query/expected").join(name);
    evalboard_test_support::expect_file(&path, actual);
}

const RUN: &str = "tests/fixtures/query/run";

#[test]
fn fifty_queries_return_the_reference_items() {
    let cases: Value = serde_json::from_slice(
        &std::fs::read(evalboard_test_support::fixture("query/queries.json")).unwrap(),
    )
    .unwrap();
    for c in cases.as_array().unwrap() {
        let q = c["query"].as_str().unwrap();
        let (code, out, err) = evalboard(&["query", RUN, q, "--json"]);
        assert_eq!(code, 0, "{q}: {err}");
        let got: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(got["items"], c["expected"], "{q}");
        assert_eq!(
            got["n_matched"].as_u64(),
            Some(c["expected"].as_array().unwrap().len() as u64)
        );
    }
}

#[test]
fn the_listing_says_where_each_item_matched() {
    let (code, out, err) = evalboard(&["query", RUN, r#"tool == "bash" and text ~ /timed out/"#]);
    assert_eq!(code, 0, "{err}");
    golden("bash_timeout.txt", &out);
    // A numeric QA run: keys of a conversation and a turn, the scorer's verdict.
    let (code, out, err) = evalboard(&[
        "query",
        "tests/fixtures/cli/jsonl_nasty/input",
        "verdict == wrong or predicted ~ /%/",
    ]);
    assert_eq!(code, 0, "{err}");
    golden("numeric_qa.txt", &out);
}

#[test]
fn a_bad_query_exits_2_and_points_at_the_place() {
    let (code, out, err) = evalboard(&["query", RUN, "verdict == wrong and (tool =="]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    golden("bad_query.txt", &err);
    let (code, _, err) = evalboard(&["query", "tests/fixtures/query/nowhere", "verdict"]);
    assert_eq!(code, 2);
    assert!(err.contains("nowhere"), "{err}");
}

#[test]
fn cohorts_hold_every_failing_item_once_and_their_queries_select_them() {
    let (code, out, err) = evalboard(&["cohorts", RUN, "--json"]);
    assert_eq!(code, 0, "{err}");
    let c: Value = serde_json::from_str(&out).unwrap();
    let cohorts = c["cohorts"].as_array().unwrap();
    let n_failed = c["n_failed"].as_u64().unwrap();
    assert_eq!(n_failed, 19);
    let mut seen = std::collections::BTreeSet::new();
    for x in cohorts {
        assert_eq!(
            x["items"].as_array().unwrap().len() as u64,
            x["n"].as_u64().unwrap()
        );
        for k in x["items"].as_array().unwrap() {
            assert!(seen.insert(k.to_string()), "{k} twice");
        }
        // The cohort's query lists exactly its items.
        let (code, out, err) = evalboard(&["query", RUN, x["query"].as_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{err}");
        let q: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(q["items"], x["items"], "{}", x["label"]);
    }
    assert_eq!(seen.len() as u64, n_failed);
    // The failing items are those `query` finds not correct.
    let (_, out, _) = evalboard(&["query", RUN, "verdict != correct", "--json"]);
    let q: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(q["n_matched"].as_u64(), Some(n_failed));
    golden("cohorts.json", &out_of(&["cohorts", RUN, "--json"]));
    golden("cohorts.txt", &out_of(&["cohorts", RUN]));
}

#[test]
fn cohorts_against_a_baseline_and_of_another_family() {
    let promptfoo = "tests/fixtures/evallog/runs/promptfoo_candidate";
    let base = "tests/fixtures/evallog/runs/promptfoo_baseline";
    golden(
        "cohorts_vs_baseline.txt",
        &out_of(&["cohorts", promptfoo, "--baseline", base]),
    );
    let (code, out, err) = evalboard(&[
        "cohorts",
        RUN,
        "--baseline",
        "tests/fixtures/cli/jsonl_nasty/input",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("only runs of one family compare"), "{err}");
}

fn out_of(args: &[&str]) -> String {
    let (code, out, err) = evalboard(args);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn the_report_shows_the_same_cohorts() {
    let promptfoo = "tests/fixtures/evallog/runs/promptfoo_candidate";
    let base = "tests/fixtures/evallog/runs/promptfoo_baseline";
    let mut cli: Value = serde_json::from_str(&out_of(&[
        "cohorts",
        promptfoo,
        "--baseline",
        base,
        "--json",
    ]))
    .unwrap();
    let tmp = std::env::temp_dir().join(format!("eb-cohorts-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let html = tmp.join("r.html");
    let h = html.to_str().unwrap();
    out_of(&["report", promptfoo, "--baseline", base, "-o", h]);
    let page = std::fs::read_to_string(&html).unwrap();
    let start = page.find("id=\"eb-data\">").unwrap() + "id=\"eb-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    // The data block leaves each cohort's items out (its query finds them).
    for c in cli["cohorts"].as_array_mut().unwrap() {
        c["items"] = Value::Null;
    }
    assert_eq!(data["runs"][0]["cohorts"], cli);
    assert!(page.contains("Failure cohorts"));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `evalboard query RUN X | head -1`: a reader that goes away ends the listing quietly with
/// status 0 (a `println!` panicked on the broken pipe and exited 101).
#[test]
fn a_closed_reader_ends_the_listing_quietly() {
    use std::io::Read;
    for json in [false, true] {
        let mut args = vec!["query", RUN, r#"model == "mockllm/model""#];
        if json {
            args.push("--json");
        }
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_evalboard"))
            .args(&args)
            .current_dir(evalboard_test_support::workspace_root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run evalboard");
        // Close the pipe at once: the run takes milliseconds to load, so the first write
        // finds no reader.
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "json={json}: {err}");
        assert!(!err.contains("panicked"), "json={json}: {err}");
    }
}
