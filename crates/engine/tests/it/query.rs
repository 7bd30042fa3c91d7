//! The query language (`engine::query`, docs/query.md): its grammar and bounds, what a
//! comparison means for a field of several values, the fields every family gives, and the 50
//! queries of `tests/fixtures/query/queries.json`, whose expected items a reference filter
//! written apart in Python computed (`make_query_fixture.py`).

use evalboard_engine::family::Family;
use evalboard_engine::query::{self, Doc, Query, Value};
use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings, ALL_FAMILIES};
use evalboard_engine::run_table::ItemKey;
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{fixture, read_folder};

fn input(dir: &std::path::Path) -> RunInput {
    let files: Vec<InputFile> = read_folder(dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    RunInput::new("run", files)
}

fn load(input: &RunInput, family: Family) -> ScoredRun {
    let read = run::read_as(family, input, None, ReadOptions::default()).unwrap();
    run::score(read, &Settings::default(), 1)
}

fn docs_of(dir: &str, family: Family) -> Vec<Doc> {
    let input = input(&fixture(dir));
    let run = load(&input, family);
    let r = run.as_ref();
    let mut docs = r.query_docs_in::<ALL_FAMILIES>(None).unwrap();
    let problems = r.add_conversations_in::<ALL_FAMILIES>(&input, &mut docs);
    assert!(problems.is_empty(), "{problems:?}");
    docs
}

#[test]
fn fifty_queries_select_what_the_reference_filter_selects() {
    let docs = docs_of("query/run", Family::EvalLog);
    assert_eq!(docs.len(), 40);
    assert!(docs.iter().all(|d| d.messages_read));
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("query/queries.json")).unwrap()).unwrap();
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 50);
    for c in cases {
        let q = c["query"].as_str().unwrap();
        let parsed = Query::parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        let got = query::select(&docs, &parsed).to_json();
        assert_eq!(got["items"], c["expected"], "{q}");
        assert_eq!(
            got["n_matched"].as_u64(),
            Some(c["expected"].as_array().unwrap().len() as u64),
            "{q}"
        );
    }
}

fn doc(fields: &[(&str, Value)], texts: &[(&str, &str)]) -> Doc {
    let mut d = Doc::new(ItemKey::text("x"));
    for (k, v) in fields {
        d.push(*k, v.clone());
    }
    for (at, t) in texts {
        d.push_text(*at, t);
    }
    d
}

fn m(q: &str, d: &Doc) -> bool {
    Query::parse(q)
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .matches(d)
}

#[test]
fn not_binds_tighter_than_and_and_and_tighter_than_or() {
    let t = |b: bool| Value::Bool(b);
    let d = doc(&[("a", t(true)), ("b", t(false)), ("c", t(true))], &[]);
    // a or (b and c) = true; (a or b) and c = true; check a case that differs:
    let d2 = doc(&[("a", t(true)), ("b", t(false)), ("c", t(false))], &[]);
    assert!(m("a or b and c", &d2)); // a or (b and c)
    assert!(!m("(a or b) and c", &d2));
    assert!(!m("not a and c", &d)); // (not a) and c
    assert!(m("not (a and b)", &d));
    assert!(m("not b and a", &d));
    assert!(m("NOT b AND a", &d));
    assert!(m("!b && (a || b)", &d));
    assert!(!m("not not b", &d));
}

#[test]
fn a_field_of_several_values_holds_when_any_value_does() {
    let d = doc(
        &[
            ("tool", Value::Str("bash".into())),
            ("tool", Value::Str("python".into())),
            ("score.match", Value::Str("I".into())),
            ("score.match", Value::Num(0.0)),
            ("n", Value::Str("1,000".into())),
            ("x", Value::Str("42".into())),
            ("nil", Value::Null),
        ],
        &[("output", "Request timed out"), ("error", "")],
    );
    assert!(m(r#"tool == "bash""#, &d));
    assert!(m("tool == python", &d));
    // != is the negation of ==: no value equals.
    assert!(!m(r#"tool != "bash""#, &d));
    assert!(m(r#"tool != "curl""#, &d));
    assert!(m("score.match == 0", &d));
    assert!(m(r#"score.match == "I""#, &d));
    assert!(!m("score.match == 1", &d));
    // A text that is a plain number compares with a number as one; with a quoted text as text;
    // thousands separators are text.
    assert!(m("x > 41.5", &d));
    assert!(m("x == 42.0", &d));
    assert!(!m(r#"x == "42.0""#, &d));
    assert!(!m("n > 5", &d));
    assert!(m(r#"n == "1,000""#, &d));
    // A missing field equals only null; null equals null.
    assert!(m("missing == null", &d));
    assert!(!m("missing == 0", &d));
    assert!(m("missing != 0", &d));
    assert!(m("nil == null", &d));
    assert!(!m("tool == null", &d));
    // A text is a field of its name; an empty one is not kept.
    assert!(m("output ~ /timed/", &d));
    assert!(m("not error", &d));
    assert!(m("text ~ /TIMED/i", &d));
    assert!(!m("text ~ /TIMED/", &d));
    assert!(m("text !~ /nothing here/", &d));
}

#[test]
fn numbers_negative_nan_and_letters_compare_as_written() {
    let d = doc(
        &[
            ("delta", Value::Num(-3.5)),
            ("pct", Value::Str("12.5%".into())),
            ("letter", Value::Str("C".into())),
            ("flag", Value::Bool(true)),
        ],
        &[],
    );
    assert!(m("delta < -3", &d));
    assert!(m("delta >= -3.5", &d));
    assert!(m("delta == -3.5e0", &d));
    // A percent is text, not a number: it equals its text only.
    assert!(!m("pct > 12", &d));
    assert!(m(r#"pct == "12.5%""#, &d));
    assert!(m("letter > B", &d));
    assert!(m("flag == true", &d));
    assert!(m("flag == 1", &d));
    assert!(!m("flag == false", &d));
    let mut nan = Doc::new(ItemKey::text("n"));
    nan.push_num("v", Some(f64::NAN));
    assert!(
        m("v == null", &nan),
        "NaN is not kept: the field is missing"
    );
}

#[test]
fn json_metadata_becomes_paths_values_and_lists() {
    let mut d = Doc::new(ItemKey::text("m"));
    d.push_json(
        "metadata.info",
        r#"{"subject": "law", "n": 3, "tags": ["a", "b"], "deep": {"x": {"y": null}}}"#,
    );
    d.push_json("metadata.raw", "not json");
    assert!(m(r#"metadata.info.subject == "law""#, &d));
    assert!(m("metadata.info.n >= 3", &d));
    assert!(m("metadata.info.tags == b", &d));
    assert!(m("metadata.info.deep.x.y == null", &d));
    assert!(m(r#"metadata.raw == "not json""#, &d));
    // A huge list gives at most MAX_JSON_VALUES values.
    let big = format!("[{}]", vec!["1"; 5000].join(","));
    let mut d = Doc::new(ItemKey::text("b"));
    d.push_json("v", &big);
    assert_eq!(d.fields.len(), query::MAX_JSON_VALUES);
}

#[test]
fn bad_queries_say_what_and_where() {
    let e = |q: &str| Query::parse(q).unwrap_err();
    assert_eq!(e("").message, "the query is empty");
    assert_eq!(e("a ==").at, 4);
    assert!(e("a ==").message.contains("needs a value"));
    assert_eq!(e("(a == 1").at, 0);
    assert!(e("(a == 1").message.contains("never closed"));
    assert!(e("a == 1)").message.contains("closes nothing"));
    assert!(e(r#"a == "open"#).message.contains("no closing quote"));
    assert!(e("a ~ /open").message.contains("no closing '/'"));
    assert!(e("a ~ /(/").message.contains("does not parse"));
    assert!(e("a ~ /x/q").message.contains("unknown regex flag"));
    assert!(e("a == /x/").message.contains("goes with ~"));
    assert!(e("a b").message.contains("expected 'and', 'or'"));
    assert!(e("== 3").message.contains("needs a field"));
    assert!(e("a and").message.contains("ends where a condition"));
    // Bounds: depth, length, pattern size.
    let deep = format!("{}a{}", "(".repeat(100), ")".repeat(100));
    assert!(e(&deep).message.contains("nests deeper"));
    let nots = format!("{}a", "not ".repeat(100));
    assert!(e(&nots).message.contains("nests deeper"));
    assert!(e(&"a or ".repeat(3000)).message.contains("longer than"));
    assert!(e(&format!("a ~ /{}/", "x".repeat(2000)))
        .message
        .contains("longer than 1000"));
    assert!(e("a ~ /\\w{500}{500}/").message.contains("too big"));
    // Not a panic on hostile text: control characters, bidi, lone quotes, NUL.
    for q in [
        "\u{0}",
        "a == \u{202e}x",
        "'",
        "a ~ /\\/",
        "a == \"\\",
        "(((((",
        ")",
    ] {
        let _ = Query::parse(q);
    }
}

#[test]
fn hits_say_where_a_regex_matched() {
    let d = doc(
        &[("model", Value::Str("gpt-4o".into()))],
        &[
            ("input", "no"),
            (
                "message 3 (tool result: bash)",
                "rate limit hit; rate limit again",
            ),
        ],
    );
    let q = Query::parse("text ~ /rate limit/ and model ~ /gpt/").unwrap();
    let hits = q.hits(&d);
    let at: Vec<(&str, usize, usize)> = hits
        .iter()
        .map(|h| (h.at.as_str(), h.start, h.end))
        .collect();
    assert_eq!(
        at,
        // Fields first: an `and` tests its cheap conditions before it reads texts.
        [
            ("model", 0, 3),
            ("message 3 (tool result: bash)", 0, 10),
            ("message 3 (tool result: bash)", 16, 26),
        ]
    );
    // A condition under `not` is no hit.
    assert!(Query::parse("not text ~ /rate/")
        .unwrap()
        .hits(&d)
        .is_empty());
}

#[test]
fn a_catastrophic_pattern_is_linear() {
    // `(a+)+$` over 100k `a`s then `b`: a backtracking engine takes 2^100000 steps; the regex
    // crate's is linear. The test finishing is the check (no timing asserted).
    let text = format!("{}b", "a".repeat(100_000));
    let d = doc(&[], &[("output", &text)]);
    assert!(!m("text ~ /(a+)+$/", &d) || text.ends_with('a'));
    assert!(m("text ~ /(a+)+b$/", &d));
}

#[test]
fn every_family_gives_its_normalised_and_own_fields() {
    let names =
        |docs: &[Doc]| -> Vec<String> { query::fields(docs).into_iter().map(|f| f.name).collect() };
    let qa = docs_of("cli/jsonl_nasty/input", Family::NumericQa);
    let n = names(&qa);
    for f in [
        "verdict",
        "key",
        "conversation_id",
        "turn_idx",
        "question",
        "expected",
        "predicted",
        "model",
        "score.numerical_match",
        "score.numerical_match@doc-v1",
        "text",
    ] {
        assert!(n.iter().any(|x| x == f), "numeric QA lacks {f}: {n:?}");
    }
    let log = docs_of("query/run", Family::EvalLog);
    let n = names(&log);
    for f in [
        "latency_s",
        "tokens.input",
        "tokens.output",
        "cost_usd",
        "model",
        "error",
        "input",
        "target",
        "output",
        "metadata.subject",
        "score.match",
        "tool",
        "id",
        "epoch",
    ] {
        assert!(n.iter().any(|x| x == f), "eval log lacks {f}: {n:?}");
    }
    let subject = query::fields(&log)
        .into_iter()
        .find(|f| f.name == "metadata.subject")
        .unwrap();
    assert_eq!(subject.values, ["biology", "history", "law", "math"]);
    assert!(
        query::fields(&log)
            .iter()
            .find(|f| f.name == "latency_s")
            .unwrap()
            .numeric
    );
}

#[test]
fn a_json_log_read_once_gives_each_sample_the_conversation_read_alone() {
    use evalboard_engine::evallog::messages::{
        inspect_json_log_messages, inspect_json_sample_messages,
    };
    let bytes = std::fs::read(fixture("query/run/query_fixture.json")).unwrap();
    let all = inspect_json_log_messages(&bytes).unwrap();
    assert_eq!(all.len(), 40);
    for ((id, epoch), messages) in all {
        assert_eq!(
            messages.unwrap(),
            inspect_json_sample_messages(&bytes, &id, epoch).unwrap(),
            "{}",
            id.label()
        );
    }
    assert!(inspect_json_log_messages(b"{\"samples\": 3}").is_err());
    assert!(inspect_json_log_messages(b"{").is_err());
}
