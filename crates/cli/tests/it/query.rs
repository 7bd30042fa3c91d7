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
