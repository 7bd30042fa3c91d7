//! Golden and contract tests of `evalboard report` (the real binary): the HTML for the XSS
//! fixture with a baseline is byte-stable (`UPDATE_EXPECT=1` rewrites it), its embedded
//! statistics equal `score --json` for the same input, and bad invocations exit 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    evalboard_test_support::fixture("")
}

fn evalboard(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run evalboard")
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("evalboard-report-{}-{name}", std::process::id()))
}

/// The JSON data block of a report.
fn data_block(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"eb-data\">";
    let start = html.find(open).expect("data block") + open.len();
    let end = html[start..].find("</script>").expect("end") + start;
    serde_json::from_str(&html[start..end]).expect("valid JSON")
}

#[test]
fn xss_fixture_with_baseline_matches_the_golden_report() {
    let dir = fixtures().join("report/xss");
    let out = tmp("golden.html");
    let o = evalboard(
        &[
            "report",
            "input",
            "--baseline",
            "baseline",
            "--generated-at",
            "2025-01-01T00:00:00Z",
            "-o",
            out.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    evalboard_test_support::expect_file(&dir.join("expected/report.html"), &html);
    // Nothing input-derived appears unescaped.
    for raw in [
        "<script>alert",
        "<img src=x",
        "<svg onload",
        "\" onmouseover=\"",
    ] {
        assert!(!html.contains(raw), "raw {raw:?}");
    }
    let data = data_block(&html);
    let cmp = &data["comparisons"][0];
    assert_eq!(cmp["baseline"], "baseline");
    assert!(cmp["flips"]["regressed"].as_u64().unwrap() > 0);
    assert!(cmp["flips"]["improved"].as_u64().unwrap() > 0);
    // Every input file is listed with its SHA-256.
    let files = data["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert!(files
        .iter()
        .all(|f| f["sha256"].as_str().is_some_and(|s| s.len() == 64)));
}

#[test]
fn embedded_statistics_equal_score_json() {
    let root = fixtures();
    for (dir, extra) in [
        ("report/xss/input", vec![]),
        ("ui/ui_xss", vec![]),
        (
            "cli/jsonl_nasty/input",
            vec!["--prices", "cli/jsonl_nasty/prices.json"],
        ),
        (
            "numeric_qa/ok/fa2_simulated/input",
            vec!["--profile", "financial-agent-2"],
        ),
        ("codegen/ok/trace/input", vec![]),
        ("evalset/ok/m45_vs_m46/runs/m46_control", vec![]),
    ] {
        assert!(root.join(dir).is_dir(), "{dir}");
        let mut args = vec!["score", dir, "--json"];
        args.extend(&extra);
        let s = evalboard(&args, &root);
        assert_eq!(
            s.status.code(),
            Some(0),
            "{dir}: {}",
            String::from_utf8_lossy(&s.stderr)
        );
        let stats: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
        let out = tmp(&format!("stats-{}.html", dir.replace('/', "_")));
        let mut args = vec!["report", dir, "-o", out.to_str().unwrap()];
        args.extend(&extra);
        let r = evalboard(&args, &root);
        assert_eq!(
            r.status.code(),
            Some(0),
            "{dir}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let html = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        assert_eq!(data_block(&html)["runs"][0]["statistics"], stats, "{dir}");
        assert!(html.contains("Content-Security-Policy"));
    }
}

#[test]
fn bad_invocations_exit_2() {
    let root = fixtures();
    let out = tmp("bad.html");
    let o = evalboard(&["report", "ui/ui_xss"], &root);
    assert_eq!(o.status.code(), Some(2), "missing -o");
    let o = evalboard(&["report", "-o", out.to_str().unwrap()], &root);
    assert_eq!(o.status.code(), Some(2), "no run");
    let o = evalboard(
        &["report", "no_such_run_dir", "-o", out.to_str().unwrap()],
        &root,
    );
    assert_eq!(o.status.code(), Some(2), "missing run folder");
    assert!(!out.exists());
}

/// Three runs of one family (the baseline first): a Series section whose numbers equal
/// `evalboard diff A B C --json`, with the metrics chart and each step's changed items.
#[test]
fn three_runs_make_a_series_with_the_diff_numbers() {
    let root = fixtures();
    let run = |s: &str| format!("evalset/ok/m45_stages/runs/stage_{s}");
    let out = tmp("series.html");
    let (a, b, c) = (run("a"), run("b"), run("c"));
    let r = evalboard(
        &[
            "report",
            &b,
            &c,
            "--baseline",
            &a,
            "--profile",
            "v1-extract",
            "-o",
            out.to_str().unwrap(),
        ],
        &root,
    );
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    for part in [
        "<section id=\"series\">",
        "id=\"series-steps-table\"",
        "data-chart=\"series_metrics\"",
        "id=\"ser1\"",
        "<a href=\"#series\">Series</a>",
    ] {
        assert!(html.contains(part), "{part}");
    }
    let series = &data_block(&html)["series"];
    let d = evalboard(
        &["diff", &a, &b, &c, "--profile", "v1-extract", "--json"],
        &root,
    );
    let diff: serde_json::Value = serde_json::from_slice(&d.stdout).unwrap();
    // Every command names a run by its folder (the engine's one read).
    assert_eq!(series["runs"], diff["runs"]);
    assert_eq!(
        series["runs"],
        serde_json::json!(["stage_a", "stage_b", "stage_c"])
    );
    assert_eq!(diff["runs"].as_array().unwrap().len(), 3);
    for i in 0..2 {
        let (s, d) = (&series["steps"][i], &diff["steps"][i]);
        assert_eq!(
            s["flips"]["regressed"].as_u64().unwrap() as usize,
            d["regressed"].as_array().unwrap().len()
        );
        assert_eq!(
            s["flips"]["improved"].as_u64().unwrap() as usize,
            d["improved"].as_array().unwrap().len()
        );
        assert_eq!(s["mcnemar_p"], d["mcnemar_exact_p"]);
        assert_eq!(s["bootstrap"]["low"], d["bootstrap_ci"]["low"]);
        assert_eq!(s["bootstrap"]["high"], d["bootstrap_ci"]["high"]);
    }
    // The steps table is `compare --series`: the same rows, Holm's correction over the steps.
    let cs = evalboard(
        &[
            "compare",
            "--series",
            &a,
            &b,
            &c,
            "--profile",
            "v1-extract",
            "--json",
        ],
        &root,
    );
    assert_eq!(cs.status.code(), Some(0));
    let cs: serde_json::Value = serde_json::from_slice(&cs.stdout).unwrap();
    let (table, cli) = (&series["table"], &cs);
    assert_eq!(table["series"], true);
    let strip = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        // The report names a run by its name, the CLI by the path given.
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("path");
                r
            })
            .collect()
    };
    assert_eq!(strip(table), strip(cli));
    assert_eq!(table["reading"], cli["reading"]);
    assert!(table["runs"][2]["holm_p"].is_number());
}

/// `score` streams a JSONL file bigger than 16 MB in 4 MB blocks (fsio::load_run); `report`
/// reads it whole. Both must see the same run: same statistics, same diagnostics.
#[test]
fn a_big_jsonl_streamed_in_blocks_scores_as_read_whole() {
    let dir = tmp("big-jsonl");
    std::fs::create_dir_all(&dir).unwrap();
    let answers = [
        ("\"1,234\"", "1234"),
        ("\"12.5%\"", "0.125"),
        ("\"(3.2)\"", "\"-3.2\""),
        ("\"\u{2212}4\"", "null"),
        ("\"yes\"", "\"Yes\""),
        ("7", "\"NaN\""),
    ];
    let mut text = String::from("\u{feff}");
    let mut i = 0usize;
    while text.len() < 17 << 20 {
        let (e, p) = answers[i % answers.len()];
        text.push_str(&format!(
            "{{\"conversation_id\":\"c{}\",\"turn_idx\":{},\"question\":\"q {i} – é\",\"expected\":{e},\"predicted\":{p},\"plan_operations\":[\"divide\"],\"total_tokens\":{}}}",
            i / 3,
            i % 3,
            i % 97
        ));
        text.push_str(if i.is_multiple_of(5003) { "\r\n" } else { "\n" });
        if i.is_multiple_of(10007) {
            text.push_str("{broken\n\n");
        }
        i += 1;
    }
    std::fs::write(dir.join("run.jsonl"), &text).unwrap();
    let d = dir.to_str().unwrap();
    let s = evalboard(&["score", d, "--json"], &dir);
    assert_eq!(
        s.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&s.stderr)
    );
    let stats: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    // Beside the run, not in it: a report is never written into a run folder it reads.
    let out = dir.with_extension("html");
    let _ = std::fs::remove_file(&out);
    let r = evalboard(&["report", d, "-o", out.to_str().unwrap()], &dir);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(data_block(&html)["runs"][0]["statistics"], stats);
    let bad_lines = |stderr: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(stderr)
            .lines()
            .filter(|l| l.contains("line skipped"))
            .map(str::to_string)
            .collect()
    };
    let streamed = bad_lines(&s.stderr);
    assert!(streamed.len() >= 9, "{streamed:?}");
    assert!(streamed[0].contains("run.jsonl:2:"), "{streamed:?}");
    assert_eq!(streamed, bad_lines(&r.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_eval_log_report_draws_the_dashboards_charts() {
    let out = tmp("evallog-charts.html");
    let o = evalboard(
        &[
            "report",
            "evallog/runs/inspect_arith",
            "-o",
            out.to_str().expect("utf-8 path"),
        ],
        &fixtures(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).expect("report written");
    // Each score's mean (five scores) and the accuracy by epoch, as inline SVG with a table.
    for key in ["scores", "by_field"] {
        assert!(
            html.contains(&format!("data-chart=\"{key}\"")),
            "no {key} chart"
        );
    }
    assert!(html.contains("Accuracy by epoch"));
    let _ = std::fs::remove_file(&out);
}

/// The eval-log section's breakdown tables (by epoch; by task and filter; by prompt and
/// repeat), byte for byte (`UPDATE_EXPECT=1` rewrites `tests/fixtures/report/evallog/expected/`).
/// That they carry the dashboard's numbers is `one_answer::evallog_report_breakdowns_equal_the_dashboards`.
#[test]
fn an_eval_log_report_has_the_breakdown_tables() {
    let expected = fixtures().join("report/evallog/expected");
    for run in ["inspect_arith", "lm_eval_baseline", "promptfoo_baseline"] {
        let out = tmp(&format!("breakdowns-{run}.html"));
        let o = evalboard(
            &[
                "report",
                &format!("evallog/runs/{run}"),
                "--generated-at",
                "2025-01-01T00:00:00Z",
                "-o",
                out.to_str().expect("utf-8 path"),
            ],
            &fixtures(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let html = std::fs::read_to_string(&out).expect("report written");
        let _ = std::fs::remove_file(&out);
        let start = html
            .find("<h3 id=\"run0-breakdowns\">")
            .unwrap_or_else(|| panic!("{run}: no breakdowns"));
        let end = html[start..]
            .find("<h3 id=\"run0-diagnostics\">")
            .expect("diagnostics follow")
            + start;
        evalboard_test_support::expect_file(
            &expected.join(format!("{run}.breakdowns.html")),
            &html[start..end],
        );
    }
}
