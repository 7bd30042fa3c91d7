//! One engine, one answer: the same two runs compared by `evalboard diff --json`, by the
//! dashboard worker's Compare view (its native code) and in the HTML report's embedded data
//! give the same paired counts, accuracies, McNemar p, bootstrap CI and regressions, in the same
//! order — for nasty numeric QA pairs (failed conversations on one side, duplicate keys, turn
//! indices ≥ 10, items in one run only, a non-default profile) and for the other two families.

use super::evalboard;
use std::path::{Path, PathBuf};

use evalboard_app::families::{self, Side};
use evalboard_app::protocol::CompareQuery;
use evalboard_engine::compare::Flip;
use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::score::Profile;
use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
use evalboard_engine::{InputFile, RunInput};
use serde_json::{json, Value};

/// A run folder read and scored as the dashboard's workers do (one thread).
fn worker_run(family: Family, dir: &Path, settings: &Settings) -> ScoredRun {
    let read = run::read_as(family, &read_dir(dir), None, ReadOptions::default()).unwrap();
    run::score(read, settings, 1)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read_dir(dir: &Path) -> RunInput {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<InputFile>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(InputFile::new(rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    RunInput::new(name, files)
}

/// One QA JSONL turn.
fn turn(conv: &str, idx: u32, expected: &str, predicted: &str) -> String {
    json!({"conversation_id": conv, "turn_idx": idx, "question": format!("q{idx}"),
           "expected": expected, "predicted": predicted, "model": "m"})
    .to_string()
}

/// Writes two numeric QA runs with every nasty case into `root/{base,cand}`.
fn nasty_qa_pair(root: &Path) -> (PathBuf, PathBuf) {
    let mut base = Vec::new();
    let mut cand = Vec::new();
    // Twelve turns: indices 10 and 11 must sort after 2. Some flip each way.
    for i in 0..12u32 {
        let e = format!("{}", 100 + i);
        base.push(turn("c1", i, &e, if i % 3 == 0 { "0" } else { &e }));
        cand.push(turn(
            "c1",
            i,
            &e,
            if i % 4 == 0 || i == 10 { "0" } else { &e },
        ));
    }
    // A duplicate (conversation, turn) key in the baseline.
    base.push(turn("c1", 5, "105", "1"));
    // c2 failed as a whole in the baseline (one marker line); the candidate has three turns.
    base.push(
        json!({"conversation_id": "c2", "turn_idx": 0, "conversation_error": "Evaluation timeout (300s)"})
            .to_string(),
    );
    for i in 0..3u32 {
        cand.push(turn("c2", i, "7", if i == 1 { "8" } else { "7" }));
    }
    // c3 only in the candidate; c4 only in the baseline.
    cand.push(turn("c3", 0, "1", "1"));
    base.push(turn("c4", 0, "2", "3"));
    // A value right at the doc profile's tolerance but not the compat one's.
    base.push(turn("c5", 0, "1.0", "1.005"));
    cand.push(turn("c5", 0, "1.0", "1.0"));
    let write = |name: &str, lines: &[String]| {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("run.jsonl"), lines.join("\n") + "\n").unwrap();
        d
    };
    (write("base", &base), write("cand", &cand))
}

/// The numbers every consumer must agree on, from a `diff --json` shaped object.
fn numbers(v: &Value) -> Value {
    json!({
        "n_items": v["n_items"],
        "baseline_accuracy": v["baseline_accuracy"],
        "candidate_accuracy": v["candidate_accuracy"],
        "mcnemar_exact_p": v["mcnemar_exact_p"],
        "bootstrap_ci": [v["bootstrap_ci"]["low"], v["bootstrap_ci"]["high"]],
        "regressed": v["regressed"],
        "improved": v["improved"],
        "both_correct": v["both_correct"],
        "both_wrong": v["both_wrong"],
        "scorer": v["scorer"],
    })
}

/// The same numbers from the worker's Compare view (rows come regressions first, and keys are
/// joined with " · " there).
fn view_numbers(base: &Side, cand: &Side, scorer: &Value) -> Value {
    view_numbers_paired(base, cand, scorer, false).0
}

/// [`view_numbers`], items paired by item when `by_item` (the Compare toggle); with the view's
/// pairing text.
fn view_numbers_paired(
    base: &Side,
    cand: &Side,
    scorer: &Value,
    by_item: bool,
) -> (Value, Option<String>) {
    let all = CompareQuery {
        limit: usize::MAX,
        by_item,
        ..Default::default()
    };
    let v = families::compare_view(base, cand, &all);
    assert!(v.error.is_none(), "{:?}", v.error);
    let keys = |f: Flip| -> Vec<Value> {
        v.rows
            .iter()
            .filter(|r| r.flip == f)
            .map(|r| r.key.to_json())
            .collect()
    };
    let numbers = json!({
        "n_items": v.n_paired,
        "baseline_accuracy": v.baseline_accuracy,
        "candidate_accuracy": v.candidate_accuracy,
        "mcnemar_exact_p": v.mcnemar_p,
        "bootstrap_ci": [v.ci_low, v.ci_high],
        "regressed": keys(Flip::Regressed),
        "improved": keys(Flip::Improved),
        "both_correct": v.flips.unchanged_correct,
        "both_wrong": v.flips.unchanged_wrong,
        "scorer": scorer,
    });
    (numbers, v.pairing)
}

/// `diff --json` and the report's embedded comparison of `base` → `cand` (extra CLI args
/// for both), checked equal; the diff object comes back.
fn cli_and_report(base: &Path, cand: &Path, extra: &[&str], tmp: &Path) -> Value {
    let (b, c) = (base.to_str().unwrap(), cand.to_str().unwrap());
    let mut args = vec!["diff", b, c, "--json"];
    args.extend(extra);
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let diff: Value = serde_json::from_str(&out).unwrap();

    let html = tmp.join(format!(
        "{}-{}.html",
        base.file_name().unwrap().to_string_lossy(),
        extra.join("")
    ));
    let h = html.to_str().unwrap();
    let mut args = vec!["report", c, "--baseline", b, "-o", h];
    args.extend(extra);
    let (code, _, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    let start = page.find("id=\"eb-data\">").unwrap() + "id=\"eb-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let embedded = &data["comparisons"][0];
    // Every key of diff --json is in the report's data, with the same value.
    for (k, v) in diff.as_object().unwrap() {
        assert_eq!(
            &embedded[k], v,
            "report eb-data {k} differs from diff --json"
        );
    }
    diff
}

#[test]
fn numeric_qa_nasty_pairs_agree_across_diff_worker_and_report() {
    let tmp = std::env::temp_dir().join(format!("eb-one-answer-{}", std::process::id()));
    let (base, cand) = nasty_qa_pair(&tmp);
    for (profile, extra) in [
        (Profile::Doc, &[][..]),
        (Profile::Fa2, &["--profile", "financial-agent-2"][..]),
    ] {
        let diff = cli_and_report(&base, &cand, extra, &tmp);
        // The worker scores with its settings, then compares (natively, the same code).
        let mut settings = Settings::default();
        settings.numeric_qa.profile = profile;
        let (b, c) = (
            worker_run(Family::NumericQa, &base, &settings),
            worker_run(Family::NumericQa, &cand, &settings),
        );
        let (sb, sc) = (Side::Run("base", b.as_ref()), Side::Run("cand", c.as_ref()));
        assert_eq!(
            view_numbers(&sb, &sc, &diff["scorer"]),
            numbers(&diff),
            "{profile:?}"
        );
        // The rules, pinned: turn 10 after turn 2; the failed conversation's three turns are
        // wrong in the baseline and listed; c3 and c4 in one run only.
        let regressed: Vec<&Value> = diff["regressed"].as_array().unwrap().iter().collect();
        assert!(regressed.windows(2).all(|w| {
            (w[0][0].as_str(), w[0][1].as_u64()) <= (w[1][0].as_str(), w[1][1].as_u64())
        }));
        let failed = diff["failed_items"].as_array().unwrap();
        assert_eq!(failed.len(), 3, "{failed:?}");
        assert!(failed
            .iter()
            .all(|f| f["run"] == "baseline" && f["key"][0] == "c2"));
        assert_eq!(
            diff["only_in_one"],
            json!([["c3", 0], ["c4", 0]]),
            "{profile:?}"
        );
        let expect_scorer = match profile {
            Profile::Doc => "numerical_match@doc-v1",
            Profile::Fa2 => "numerical_match@financial-agent-2",
        };
        assert_eq!(diff["scorer"], expect_scorer);
    }
    let (code, _, err) = evalboard(&["diff", base.to_str().unwrap(), cand.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        err.contains("conversation \"c1\" turn 5 appears 2 times; the first is compared"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn eval_sets_and_code_generation_agree_across_diff_worker_and_report() {
    let tmp = std::env::temp_dir().join(format!("eb-one-answer-fam-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();

    let runs = fixtures().join("evalset/ok/m45_vs_m46/runs");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    let (b, c) = (&names[0], &names[1]);
    let diff = cli_and_report(b, c, &[], &tmp);
    let settings = Settings::default();
    let (eb, ec) = (
        worker_run(Family::Evalset, b, &settings),
        worker_run(Family::Evalset, c, &settings),
    );
    assert_eq!(
        view_numbers(
            &Side::Run("b", eb.as_ref()),
            &Side::Run("c", ec.as_ref()),
            &diff["scorer"]
        ),
        numbers(&diff)
    );

    let cg = fixtures().join("codegen/diff");
    let (b, c) = (cg.join("baseline"), cg.join("candidate"));
    let diff = cli_and_report(&b, &c, &[], &tmp);
    let (gb, gc) = (
        worker_run(Family::Codegen, &b, &settings),
        worker_run(Family::Codegen, &c, &settings),
    );
    assert!(diff["n_items"].as_u64().unwrap() > 0);
    assert_eq!(
        view_numbers(
            &Side::Run("b", gb.as_ref()),
            &Side::Run("c", gc.as_ref()),
            &diff["scorer"]
        ),
        numbers(&diff)
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Two lm-eval logs of one task: `diff --json`, the report's embedded comparison and the
/// worker's Compare view (natively) give the same numbers.
#[test]
fn eval_logs_agree_across_diff_worker_and_report() {
    let tmp = std::env::temp_dir().join(format!("eb-one-answer-log-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let runs = fixtures().join("evallog/runs");
    let (b, c) = (
        runs.join("lm_eval_baseline"),
        runs.join("lm_eval_candidate"),
    );
    // As recorded, and re-scored (the worker's settings name the same re-scorer).
    for (profile, extra) in [("as-recorded", &[][..]), ("f1", &["--profile", "f1"][..])] {
        let diff = cli_and_report(&b, &c, extra, &tmp);
        let mut settings = Settings::default();
        settings.set_profile(Family::EvalLog, profile).unwrap();
        let (lb, lc) = (
            worker_run(Family::EvalLog, &b, &settings),
            worker_run(Family::EvalLog, &c, &settings),
        );
        assert_eq!(diff["n_items"], 5, "{profile}");
        if profile == "f1" {
            assert_eq!(diff["scorer"], "f1@v1");
        }
        assert_eq!(
            view_numbers(
                &Side::Run("b", lb.as_ref()),
                &Side::Run("c", lc.as_ref()),
                &diff["scorer"]
            ),
            numbers(&diff),
            "{profile}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Paired by item (`--by-item`, the Compare toggle): two Inspect logs of 3 epochs give the same
/// paired counts, means, McNemar (none: pass@2 is not 0/1) and item-clustered CI in `diff
/// --json`, the report's data and the worker's Compare view; as judged, the same per repeat.
#[test]
fn eval_logs_paired_by_item_agree_across_diff_worker_and_report() {
    let tmp = std::env::temp_dir().join(format!("eb-one-answer-items-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let runs = fixtures().join("evallog/runs");
    let (b, c) = (
        runs.join("inspect_repeats_a"),
        runs.join("inspect_repeats_b"),
    );
    let (lb, lc) = (
        worker_run(Family::EvalLog, &b, &Settings::default()),
        worker_run(Family::EvalLog, &c, &Settings::default()),
    );
    for (by_item, extra) in [(true, &["--by-item"][..]), (false, &[][..])] {
        let diff = cli_and_report(&b, &c, extra, &tmp);
        let (numbers_of_view, pairing) = view_numbers_paired(
            &Side::Run("b", lb.as_ref()),
            &Side::Run("c", lc.as_ref()),
            &diff["scorer"],
            by_item,
        );
        assert_eq!(numbers_of_view, numbers(&diff), "by item: {by_item}");
        assert_eq!(diff["n_items"], if by_item { 6 } else { 15 });
        // The pairing the worker words is diff's, with (by item) the same mean difference.
        let pairing = pairing.unwrap();
        assert!(pairing.starts_with(diff["pairing"]["text"].as_str().unwrap()));
        if by_item {
            let m = &diff["by_item"];
            let shown = format!(
                "mean pass_at_2 {:.4} → {:.4} over 6 items, Δ {:+.4} (95% CI [{:+.4}, {:+.4}] clustered by item)",
                m["baseline_mean"].as_f64().unwrap(),
                m["candidate_mean"].as_f64().unwrap(),
                m["mean_delta"].as_f64().unwrap(),
                m["ci95"]["low"].as_f64().unwrap(),
                m["ci95"]["high"].as_f64().unwrap()
            );
            assert!(pairing.contains(&shown), "{pairing}");
        } else {
            assert!(diff.get("by_item").is_none());
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Every headline metric of every family's table is a key of the statistics `score --json`
/// prints for a run of that family (the CLI's table, the report's cards and docs/scoring.md
/// read the same table); for code generation, a run of one session and a run of several.
#[test]
fn headline_metrics_are_statistics_keys() {
    use evalboard_engine::family::Family;
    use evalboard_engine::{codegen, evalset, numeric_qa};
    let cases: [(Family, PathBuf, &str, &[evalboard_engine::headline::Metric]); 9] = [
        (
            Family::NumericQa,
            fixtures().join("cli/jsonl_nasty/input"),
            "doc",
            numeric_qa::aggregate::headline(Profile::Doc),
        ),
        (
            Family::NumericQa,
            fixtures().join("cli/jsonl_nasty/input"),
            "financial-agent-2",
            numeric_qa::aggregate::headline(Profile::Fa2),
        ),
        (
            Family::Codegen,
            fixtures().join("codegen/ok/chat_history/input"),
            "doc-v1",
            &codegen::aggregate::HEADLINE,
        ),
        (
            Family::Codegen,
            fixtures().join("codegen/ok/trace/input"),
            "doc-v1",
            &codegen::aggregate::HEADLINE,
        ),
        (
            Family::Codegen,
            fixtures().join("codegen/ok/trace/input"),
            "ise547",
            &codegen::aggregate::HEADLINE,
        ),
        (
            Family::Evalset,
            fixtures().join("evalset/ok/m45_vs_m46/runs/m46_control"),
            "v1",
            &evalset::score::HEADLINE,
        ),
        (
            Family::EvalLog,
            fixtures().join("evallog/runs/inspect_arith/arith.eval"),
            "doc",
            &evalboard_engine::evallog::score::HEADLINE,
        ),
        (
            Family::EvalLog,
            fixtures().join("evallog/runs/lm_eval_baseline"),
            "as-recorded",
            &evalboard_engine::evallog::score::HEADLINE,
        ),
        (
            Family::EvalLog,
            fixtures().join("evallog/runs/lm_eval_baseline"),
            "match",
            &evalboard_engine::evallog::score::HEADLINE,
        ),
    ];
    for (family, dir, profile, table) in cases {
        let (code, out, err) = evalboard(&[
            "score",
            dir.to_str().unwrap(),
            "--profile",
            profile,
            "--json",
        ]);
        assert_eq!(code, 0, "{family}: {err}");
        let stats: Value = serde_json::from_str(&out).unwrap();
        for m in table {
            assert!(
                stats.get(m.key).is_some(),
                "{family} {profile}: no {} in {stats}",
                m.key
            );
            assert!(!m.definition.is_empty() && !m.label.is_empty());
        }
    }
}

/// `score --json` on a code-generation run carries the dashboard's run-level summary (the
/// overview's numbers) at its top level, for a run of one session and a run of several, and
/// its statistics list every session.
#[test]
fn codegen_score_json_carries_the_dashboards_run_summary() {
    use evalboard_engine::codegen::Profile as CgProfile;
    for (dir, sessions) in [
        ("codegen/ok/chat_history/input", 1),
        ("codegen/ok/trace/input", 2),
    ] {
        let dir = fixtures().join(dir);
        for profile in [CgProfile::DocV1, CgProfile::Ise547] {
            let (code, out, err) = evalboard(&[
                "score",
                dir.to_str().unwrap(),
                "--profile",
                profile.name(),
                "--json",
            ]);
            assert_eq!(code, 0, "{err}");
            let stats: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(stats["sessions"].as_array().unwrap().len(), sessions);
            let mut settings = Settings::default();
            settings.codegen.profile = profile;
            let ScoredRun::Codegen(run) = worker_run(Family::Codegen, &dir, &settings) else {
                panic!("a code-generation run");
            };
            let dashboard = run.summary();
            let Value::Object(summary) = serde_json::to_value(&dashboard.summary).unwrap() else {
                panic!("a summary object");
            };
            assert!(summary.contains_key("average_overall_score"));
            for (k, v) in summary {
                assert_eq!(stats[&k], v, "{} {}: {k}", dir.display(), profile.name());
            }
        }
    }
}

/// The rows of the report's table `id`, each cell's text (tags dropped, entities read).
fn report_table(html: &str, id: &str) -> Vec<Vec<String>> {
    let open = format!("<table id=\"{id}\"");
    let Some(start) = html.find(&open) else {
        return Vec::new();
    };
    let body = &html[start..];
    let body = &body[..body.find("</table>").unwrap_or(body.len())];
    let body = &body[body.find("<tbody>").unwrap_or(0)..];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let text = &cell[cell.find('>').map_or(0, |i| i + 1)..];
                    let text = &text[..text.find("</td>").unwrap_or(text.len())];
                    text.replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&quot;", "\"")
                        .replace("&#39;", "'")
                        .replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

/// The HTML report's eval-log breakdown tables give the dashboard overview's: the same fields in
/// the same order, the same groups with the same counts and accuracies, as recorded and under a
/// re-scorer.
#[test]
fn evallog_report_breakdowns_equal_the_dashboards() {
    use evalboard_app::protocol::{Block, Cell, ScreenQuery};
    let mut checked = 0;
    for (dir, profile) in [
        ("evallog/runs/inspect_arith", None),
        ("evallog/runs/lm_eval_baseline", None),
        ("evallog/runs/lm_eval_baseline", Some("match")),
        ("evallog/runs/promptfoo_baseline", None),
    ] {
        let dir = fixtures().join(dir);
        let out = std::env::temp_dir().join(format!(
            "evalboard-one-answer-{}-{checked}.html",
            std::process::id()
        ));
        let mut args = vec![
            "report".to_string(),
            dir.to_string_lossy().into_owned(),
            "-o".into(),
            out.to_string_lossy().into_owned(),
        ];
        let mut settings = Settings::default();
        if let Some(p) = profile {
            args.extend(["--profile".to_string(), p.to_string()]);
            settings.set_profile(Family::EvalLog, p).unwrap();
        }
        let (code, _, err) = evalboard(&args);
        assert_eq!(code, 0, "{err}");
        let html = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        let ScoredRun::EvalLog(log) = worker_run(Family::EvalLog, &dir, &settings) else {
            panic!("an eval log");
        };
        let view = evalboard_app::evallog::view(
            &log,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        fn tables(blocks: &[Block], out: &mut Vec<(String, Vec<Vec<String>>)>) {
            for b in blocks {
                match b {
                    Block::Table(t) if t.key.starts_with("by-") => out.push((
                        t.key.clone(),
                        t.rows
                            .iter()
                            .map(|r| {
                                r.cells
                                    .iter()
                                    .map(|c| match c {
                                        Cell::Text(t) => t.clone(),
                                        other => format!("{other:?}"),
                                    })
                                    .collect()
                            })
                            .collect(),
                    )),
                    Block::Group { blocks, .. } => tables(blocks, out),
                    _ => {}
                }
            }
        }
        let mut dashboard = Vec::new();
        tables(&view.blocks, &mut dashboard);
        assert!(!dashboard.is_empty(), "{}: no breakdown", dir.display());
        for (i, (key, rows)) in dashboard.iter().enumerate() {
            let report = report_table(&html, &format!("run0-breakdowns-{i}-table"));
            // The report writes a missing accuracy as "n/a", the dashboard as "—".
            let rows: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|c| if c == "—" { "n/a".into() } else { c.clone() })
                        .collect()
                })
                .collect();
            assert_eq!(report, rows, "{} {profile:?}: {key}", dir.display());
            let field = key.trim_start_matches("by-");
            assert!(
                html.contains(&format!(">By {field}</h4>")),
                "{}: {field}",
                dir.display()
            );
            checked += 1;
        }
        assert!(
            report_table(&html, &format!("run0-breakdowns-{}-table", dashboard.len())).is_empty()
        );
    }
    assert!(checked >= 6, "{checked}");
}

/// The number a run is listed by is one number: `evalboard score`'s numerical accuracy, the
/// dashboard's run list (`RunRef::headline_value`, as the worker sends it) and the report's Runs
/// table agree under either numeric QA profile (under financial-agent-2 the report used to show
/// the doc profile's 33.3% for the demo o3 run where `score` gives 31.2%).
#[test]
fn the_headline_is_one_number_in_score_the_run_list_and_the_reports_runs_table() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo");
    let tmp = std::env::temp_dir().join(format!("eb-headline-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for profile in ["doc", "financial-agent-2"] {
        let html = tmp.join(format!("{profile}.html"));
        let (b, c) = (demo.join("gpt-4o"), demo.join("o3"));
        let (code, _, err) = evalboard(&[
            "report",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
            "--profile",
            profile,
            "-o",
            html.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let page = std::fs::read_to_string(&html).unwrap();
        let start = page.find("<section id=\"runs\">").expect("a Runs table");
        let section = &page[start..start + page[start..].find("</section>").unwrap()];
        let rows = report_table(
            &section.replacen("<table", "<table id=\"runs-t\"", 1),
            "runs-t",
        );
        assert_eq!(rows.len(), 2, "{section}");
        for (dir, row) in [(&b, &rows[0]), (&c, &rows[1])] {
            let (code, out, err) = evalboard(&[
                "score",
                dir.to_str().unwrap(),
                "--json",
                "--profile",
                profile,
            ]);
            assert_eq!(code, 0, "{err}");
            let stats: Value = serde_json::from_str(&out).unwrap();
            let acc = stats["numerical_accuracy"].as_f64().unwrap();
            let mut settings = Settings::default();
            settings.set_profile(Family::NumericQa, profile).unwrap();
            let listed = worker_run(Family::NumericQa, dir, &settings)
                .as_ref()
                .headline_value()
                .unwrap();
            assert_eq!(listed, acc, "{profile} {}", dir.display());
            assert!(
                row[3].contains(&format!("{:.1}%", acc * 100.0)),
                "{profile} {}: the Runs table shows {row:?}, score gives {acc}",
                dir.display()
            );
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// Named runs as the report takes them (`exports::report_in`), without file provenance.
fn side<'a>(
    l: &[(&str, evalboard_engine::run::RunRef<'a>)],
) -> Vec<(
    evalboard_engine::run::RunRef<'a>,
    &'static [evalboard_report::html::FileProvenance],
)> {
    l.iter().map(|(_, r)| (*r, &[][..])).collect()
}

/// Many runs against one baseline: `evalboard compare --json` and the report's embedded `many`
/// (`report RUN... --baseline B` with three or more runs) give the same rows — missing items, a
/// run with no item in common, an unpriced run, a log with epochs — all but the `path` each was
/// given by (the CLI's as typed, the report's the run's name).
#[test]
fn many_runs_agree_across_compare_and_report() {
    let tmp = std::env::temp_dir().join(format!("eb-one-many-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let src = fixtures().join("compare");
    let names = ["base", "gpt4o", "mini", "llama", "disjoint", "epochs"];
    for n in names {
        std::fs::create_dir_all(tmp.join(n)).unwrap();
        std::fs::copy(
            src.join(n).join("arith.json"),
            tmp.join(n).join("arith.json"),
        )
        .unwrap();
    }
    let dirs: Vec<String> = names
        .iter()
        .map(|n| tmp.join(n).to_string_lossy().into_owned())
        .collect();
    let prices = src.join("prices.json").to_string_lossy().into_owned();
    let mut args: Vec<&str> = vec!["compare"];
    args.extend(dirs.iter().map(String::as_str));
    args.extend(["--prices", &prices, "--json"]);
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let cli: Value = serde_json::from_str(&out).unwrap();

    let html = tmp.join("many.html");
    let h = html.to_str().unwrap();
    let mut args: Vec<&str> = vec!["report"];
    args.extend(dirs[1..].iter().map(String::as_str));
    args.extend(["--baseline", &dirs[0], "--prices", &prices, "-o", h]);
    let (code, _, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    let start = page.find("id=\"eb-data\">").unwrap() + "id=\"eb-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let mut report = data["many"].clone();
    let _ = std::fs::remove_dir_all(&tmp);

    let strip = |v: &mut Value| {
        for r in v["runs"].as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("path");
        }
    };
    let mut cli = cli;
    strip(&mut cli);
    strip(&mut report);
    assert_eq!(cli, report);
    // What the rows hold: a row per run, the unpriced one null, the disjoint one unpaired.
    let rows = cli["runs"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    let row = |n: &str| rows.iter().find(|r| r["run"] == n).unwrap();
    assert!(row("llama")["cost_usd"].is_null() && row("llama")["on_frontier"].is_null());
    assert_eq!(row("disjoint")["n_paired"], 0);
    assert!(row("disjoint")["holm_p"].is_null());
    assert_eq!(row("mini")["only_in_baseline"], 4);
    assert_eq!(row("epochs")["ci_method"], "normal, item-clustered");
    assert!(page.contains("id=\"many\""), "the section is shown");
}

/// Many runs against one baseline (`tests/fixtures/compare/`: a baseline of two tasks, missing
/// items, no item in common, an unpriced model, epochs, a run of the other task only): the
/// dashboard worker's comparison (`evalboard_app::many::compare_in`, what the All runs tab
/// shows, each folder loaded as the worker loads it: one run per log) equals `evalboard compare
/// --json`, every field of every row but `path` (the folder given on the command line; the
/// run's name in the dashboard), the reading, the warnings and the grid; and so does the
/// dashboard's report of the tab (`exports::report_in`, the Export tab's "report.html of all
/// runs"), its data block's `many`.
#[test]
fn many_runs_agree_between_compare_and_the_worker() {
    let root = fixtures().join("compare");
    let dirs = super::compare::RUNS;
    let prices = root.join("prices.json");
    let paths: Vec<String> = dirs
        .iter()
        .map(|d| root.join(d).to_string_lossy().into_owned())
        .collect();
    let mut args: Vec<&str> = vec!["compare"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["--prices", prices.to_str().unwrap(), "--json"]);
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let mut cli: Value = serde_json::from_str(&out).unwrap();

    let mut settings = Settings::default();
    settings.numeric_qa.prices =
        evalboard_engine::prices::PriceTable::from_json("p", &std::fs::read(&prices).unwrap())
            .unwrap()
            .0;
    // Each folder as the main worker loads it: one run per log, named `folder/file` when the
    // folder holds several.
    let loaded: Vec<Vec<(String, ScoredRun)>> = dirs
        .iter()
        .map(|d| {
            let parts = run::load_parts_in::<{ run::ALL_FAMILIES }>(
                Family::EvalLog,
                read_dir(&root.join(d)),
                (None, ReadOptions::default()),
                &settings,
                1,
            )
            .unwrap();
            let split = parts.len() > 1;
            parts
                .into_iter()
                .map(|r| {
                    let name = if split {
                        r.as_ref().name().to_string()
                    } else {
                        d.to_string()
                    };
                    (name, r)
                })
                .collect()
        })
        .collect();
    let named: Vec<Vec<(&str, evalboard_engine::run::RunRef)>> = loaded
        .iter()
        .map(|l| l.iter().map(|(n, r)| (n.as_str(), r.as_ref())).collect())
        .collect();
    let (b, o) = (&named[0], named[1..].concat());
    let mut worker = evalboard_app::many::compare_in::<{ run::ALL_FAMILIES }>(b, &o)
        .unwrap()
        .to_json();
    // The Export tab's report of the All runs tab (`Request::Report { many }`): the worker's
    // report function over the same runs and baselines; its data block's `many`.
    let page = evalboard_app::exports::report_in::<{ run::ALL_FAMILIES }>(
        side(&o),
        side(b),
        ("2025-01-01T00:00:00Z".into(), None),
        None,
    );
    let start = page.find("id=\"eb-data\">").unwrap() + "id=\"eb-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let mut report = data["many"].clone();
    assert!(page.contains("id=\"many\""), "the section is shown");
    for v in [&mut cli, &mut worker, &mut report] {
        for r in v["runs"].as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("path");
        }
    }
    // The cases are all there: missing items, no item in common, unpriced, epochs, a grid.
    let runs = cli["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10, "{cli:#}");
    assert!(runs.iter().any(|r| r["only_in_baseline"] == 4));
    assert!(runs.iter().any(|r| r["n_paired"] == 0));
    assert!(runs
        .iter()
        .any(|r| r["on_frontier"].is_null() && !r["n_items"].is_null()));
    assert!(cli["grid"].is_object());
    assert_eq!(worker, cli);
    assert_eq!(report, cli, "the dashboard's report of all runs");
}

/// An lm-eval suite of two tasks judged by the second task's metric (the dashboard's "Judged
/// by", `compare --scorer`): the worker's comparison (`many::compare_judged_in`, the All runs
/// tab) and its report (`exports::report_in` with the judge, the Export tab's "all runs
/// report") equal `evalboard compare --scorer --json`, every field but `path`; the judge is one
/// of the baseline's choices (`RunRef::judge_choices_in`), and with none picked the suite is
/// compared task by task, as the CLI does.
#[test]
fn a_picked_judge_agrees_between_compare_the_worker_and_its_report() {
    let root = fixtures().join("evallog/runs");
    let dirs = ["lm_eval_baseline", "lm_eval_candidate", "lm_eval_mismatch"];
    let judge = "arith_mc/acc[none]/acc";
    let paths: Vec<String> = dirs
        .iter()
        .map(|d| root.join(d).to_string_lossy().into_owned())
        .collect();
    let cli = |extra: &[&str]| -> Value {
        let mut args: Vec<&str> = vec!["compare"];
        args.extend(paths.iter().map(String::as_str));
        args.extend(extra);
        args.push("--json");
        let (code, out, err) = evalboard(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let settings = Settings::default();
    let loaded: Vec<ScoredRun> = dirs
        .iter()
        .map(|d| worker_run(Family::EvalLog, &root.join(d), &settings))
        .collect();
    let named: Vec<(&str, evalboard_engine::run::RunRef)> = dirs
        .iter()
        .zip(&loaded)
        .map(|(d, r)| (*d, r.as_ref()))
        .collect();
    let choices = named[0].1.judge_choices_in::<{ run::ALL_FAMILIES }>();
    assert!(choices.iter().any(|c| c.judge == judge), "{choices:?}");
    let strip = |mut v: Value| {
        for r in v["runs"].as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("path");
        }
        v
    };
    for picked in [Some(judge), None] {
        let want = strip(cli(&picked.map_or(vec![], |j| vec!["--scorer", j])));
        let worker = evalboard_app::many::compare_judged_in::<{ run::ALL_FAMILIES }>(
            &named[..1],
            &named[1..],
            picked,
        )
        .unwrap()
        .to_json();
        assert_eq!(strip(worker), want, "{picked:?}");
        let page = evalboard_app::exports::report_in::<{ run::ALL_FAMILIES }>(
            side(&named[1..]),
            side(&named[..1]),
            ("2025-01-01T00:00:00Z".into(), picked.map(str::to_string)),
            None,
        );
        let start = page.find("id=\"eb-data\">").unwrap() + "id=\"eb-data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let data: Value = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(strip(data["many"].clone()), want, "report, {picked:?}");
        let rows = want["runs"].as_array().unwrap().len();
        assert_eq!(rows, if picked.is_some() { 3 } else { 6 }, "{picked:?}");
    }
}
