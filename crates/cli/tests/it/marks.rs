//! `--marks FILE.jsonl` of `score` and `report` through the real binary, on the sidecars of
//! `tests/fixtures/cli/marks/` (an eval log, a numeric QA run, other bytes, a hostile note): the
//! human text and `--json`'s `human` object (goldens in `tests/fixtures/cli/marks/expected/`,
//! `UPDATE_EXPECT=1` rewrites), the JSON without `--marks` unchanged, the report's Human review
//! section with notes as text, and marks never applied to other bytes.

use serde_json::Value;

const LOG: &str = "tests/fixtures/evallog/runs/inspect_arith/arith.eval";
const QA: &str = "tests/fixtures/cli/results_o3_with_dataset/input";
const M: &str = "tests/fixtures/cli/marks";

fn evalboard(args: &[&str]) -> (i32, String, String) {
    crate::evalboard_in(&evalboard_test_support::workspace_root(), args)
}

fn golden(name: &str, actual: &str) {
    let path = evalboard_test_support::fixture("cli/marks/expected").join(name);
    evalboard_test_support::expect_file(&path, actual);
}

#[test]
fn score_marks_prints_overrides_beside_the_original_and_agreement() {
    let (code, out, err) = evalboard(&["score", LOG, "--marks", &format!("{M}/evallog.jsonl")]);
    assert_eq!(code, 0, "{err}");
    golden("score_evallog.txt", &out);
    // The mark of the other copy is said, never applied.
    assert!(err.contains("1 mark(s) of 1 run(s) not applied"), "{err}");
    let (code, out, err) = evalboard(&["score", QA, "--marks", &format!("{M}/qa.jsonl")]);
    assert_eq!(code, 0, "{err}");
    golden("score_numeric_qa.txt", &out);
    // The original headline stays in the table, and the overrides are beside it.
    assert!(
        out.lines()
            .any(|l| l.starts_with("  numerical_accuracy ") && l.ends_with(" 33.3%")),
        "{out}"
    );
    assert!(out.contains("with human overrides"), "{out}");
}

#[test]
fn score_json_gets_a_human_object_only_with_marks() {
    let (code, plain, _) = evalboard(&["score", LOG, "--json"]);
    assert_eq!(code, 0);
    let (code, marked, err) = evalboard(&[
        "score",
        LOG,
        "--json",
        "--marks",
        &format!("{M}/evallog.jsonl"),
    ]);
    assert_eq!(code, 0, "{err}");
    let plain: Value = serde_json::from_str(&plain).unwrap();
    let mut marked: Value = serde_json::from_str(&marked).unwrap();
    assert!(plain.get("human").is_none());
    let human = marked.as_object_mut().unwrap().remove("human").unwrap();
    // Every other field as without --marks.
    assert_eq!(marked, plain);
    golden(
        "score_evallog.json",
        &(serde_json::to_string_pretty(&human).unwrap() + "\n"),
    );
    let r = &human["review"];
    assert_eq!(
        human["not_applied"],
        serde_json::json!({"runs": 1, "marks": 1})
    );
    assert_eq!(r["headline"]["correct"], 2);
    // One verdict turned each way (add/2 ✗ → ✓, mul/1 ✓ → ✗): 2 of 6 either way.
    assert_eq!(r["headline_with_human_overrides"]["correct"], 2);
    assert_eq!(r["verdicts_changed"], 2);
    assert_eq!(r["marks_not_in_run"], serde_json::json!([["zzz", 1]]));
    // κ of the headline's judge against a hand computation: scorer × human over the 5 items
    // having both (2/1 ✗✗, add/1 ✓✓, add/2 ✗✓, mul/1 ✓✗, mul/2 ✗✗): p_o = 3/5,
    // p_e = 2/5 · 2/5 + 3/5 · 3/5 = 13/25, κ = (3/5 − 13/25) / (1 − 13/25) = 1/6.
    let a = &r["agreement"][0];
    assert_eq!(a["n"], 5);
    assert!(
        (a["kappa"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-12,
        "{a}"
    );
    assert_eq!(
        a["scorer_differs_from_human"],
        serde_json::json!([["add", 2], ["mul", 1]])
    );
}

#[test]
fn marks_of_other_bytes_are_not_applied() {
    let (code, out, err) = evalboard(&["score", LOG, "--marks", &format!("{M}/other_bytes.jsonl")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("human marks"), "{out}");
    assert!(out.contains("no mark applied"), "{out}");
    assert!(!out.contains("with human overrides"), "{out}");
    assert!(err.contains("2 mark(s) of 1 run(s) not applied"), "{err}");
    // The same run with one byte changed has another content id: the marks made for the
    // original are not applied to it.
    let dir = std::env::temp_dir().join(format!("eb-marks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = evalboard_test_support::workspace_root();
    let copy = dir.join("arith.eval");
    std::fs::copy(root.join(LOG), &copy).unwrap();
    let marks = root.join(M).join("evallog.jsonl");
    let (_, same, _) = evalboard(&[
        "score",
        copy.to_str().unwrap(),
        "--marks",
        marks.to_str().unwrap(),
    ]);
    assert!(
        same.contains("with human overrides"),
        "a byte-identical copy keeps its marks"
    );
    let mut bytes = std::fs::read(&copy).unwrap();
    // A zip's trailing comment length is in its last two bytes: a comment byte appended keeps
    // the archive readable.
    let n = bytes.len();
    bytes[n - 2] = 1;
    bytes.push(b' ');
    std::fs::write(&copy, &bytes).unwrap();
    let (code, changed, err) = evalboard(&[
        "score",
        copy.to_str().unwrap(),
        "--marks",
        marks.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(changed.contains("no mark applied"), "{changed}");
    assert!(err.contains("not applied"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn report_marks_adds_a_human_review_section_with_notes_as_text() {
    let dir = std::env::temp_dir().join(format!("eb-marks-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The hostile sidecar with a 1 MB note added.
    let root = evalboard_test_support::workspace_root();
    let mut sidecar = std::fs::read_to_string(root.join(M).join("hostile.jsonl")).unwrap();
    let big = "<b>x</b>\u{1b}".repeat(1 << 17);
    let id = "2d068df7ec539e2e074215f9703420e361137a4906153e21c6abfff9b6a0674d";
    sidecar.push_str(
        &serde_json::json!({"run": id, "key": ["mul", 2], "mark": "wrong", "note": big})
            .to_string(),
    );
    sidecar.push('\n');
    let marks = dir.join("marks.jsonl");
    std::fs::write(&marks, sidecar).unwrap();
    let html = dir.join("r.html");
    let (code, _, err) = evalboard(&[
        "report",
        LOG,
        "--marks",
        marks.to_str().unwrap(),
        "--generated-at",
        "2026-01-01T00:00:00Z",
        "-o",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    let section = &page[page.find("<section id=\"human\">").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("Human review"));
    assert!(section.contains("With human overrides"));
    assert!(section.contains("Cohen"));
    // The hostile note and run name are text: escaped, no tag or control character of theirs.
    assert!(
        section.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{section}"
    );
    assert!(!section.contains("<script"));
    assert!(!section.contains("<img"));
    assert!(!section.contains('\u{1b}'));
    assert!(!page.contains("<script>alert"));
    // The 1 MB note is shown as text (cut with its length said) and kept whole in the data.
    assert!(section.contains("&lt;b&gt;x&lt;/b&gt;"));
    assert!(!section.contains("<b>x</b>"));
    // Without --marks: no section.
    let (code, _, err) = evalboard(&[
        "report",
        LOG,
        "--generated-at",
        "2026-01-01T00:00:00Z",
        "-o",
        dir.join("plain.html").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let plain = std::fs::read_to_string(dir.join("plain.html")).unwrap();
    assert!(!plain.contains("id=\"human\""));
    let _ = std::fs::remove_dir_all(&dir);
}
