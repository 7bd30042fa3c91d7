//! The shared hostile-input corpus (tests/hostile/cases.json, written by make_corpus.py), through
//! every command: each case ends as a run with its diagnostics or as an unusable run that says so
//! (exit 2), never a crash, and the problem is named on stderr; `score` and `report` stay under
//! [`PEAK_RSS`] of memory on every case (a 0.9 MB `.eval` whose one output inflates to 900 MB took
//! them to 4.5 GB). The browser test (tests/e2e/hostile.test.mjs) drops the same folders.

use std::path::{Path, PathBuf};

use crate::evalboard;

/// The most memory (peak resident set) `score` and `report` may take on a hostile case.
const PEAK_RSS: u64 = 1 << 30;

/// [`evalboard`], checking that the command stays under [`PEAK_RSS`] (Linux).
fn bounded(run: &str, args: &[&Path]) -> (i32, String, String) {
    #[cfg(target_os = "linux")]
    {
        let (code, stdout, stderr, peak) = crate::evalboard_peak(args);
        assert!(
            peak <= PEAK_RSS,
            "{run}: `evalboard {}` peaked at {} MiB, over {} MiB",
            args.first()
                .map(|a| a.display().to_string())
                .unwrap_or_default(),
            peak >> 20,
            PEAK_RSS >> 20
        );
        (code, stdout, stderr)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = run;
        evalboard(args)
    }
}

struct Case {
    run: String,
    loads: bool,
    says: Vec<String>,
    /// Text the human summary on stdout contains (the CLI's own check, e.g. the run's size).
    stdout: Vec<String>,
}

fn corpus() -> (PathBuf, Vec<Case>) {
    let root = evalboard_test_support::workspace_root().join("tests/hostile");
    let text = std::fs::read_to_string(root.join("cases.json")).expect("tests/hostile/cases.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("cases.json is JSON");
    let cases = v["cases"]
        .as_array()
        .expect("a case list")
        .iter()
        .map(|c| Case {
            run: c["run"].as_str().expect("run").to_string(),
            loads: c["outcome"] == "run",
            says: c["says"]
                .as_array()
                .expect("says")
                .iter()
                .map(|s| s.as_str().expect("text").to_string())
                .collect(),
            stdout: c["cli_stdout"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    (root.join("runs"), cases)
}

/// What a crash looks like from outside: a panic (101), an abort (134), a signal (no code).
fn crashed(code: i32) -> bool {
    !matches!(code, 0..=2)
}

/// Human output never carries a raw control character (an escape sequence would drive the
/// terminal) or bidi control (it would reorder what is read), whatever the run holds.
fn no_raw_controls(text: &str) -> bool {
    !text.chars().any(|c| {
        c.is_control() && c != '\n' && c != '\t'
            || matches!(
                c,
                '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
            )
    })
}

/// What makes a report slow to open or lie about its text: an unbroken token longer than a cut
/// cell (layout of a 1 MB token takes a browser minutes), a file past its size budget, a bidi
/// control (it would reorder the report's own sentences).
fn report_opens_fast(run: &str, html: &str) {
    let longest = html
        .split(|c: char| c.is_whitespace() || c == '<' || c == '>')
        .filter(|t| !t.starts_with("href=\"data:") && !t.starts_with('{'))
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0);
    assert!(
        longest <= evalboard_engine::text::MAX_TEXT + 100,
        "{run}: the report holds a {longest}-character unbroken token"
    );
    assert!(html.len() < 8 << 20, "{run}: report of {} B", html.len());
    assert!(
        !html.chars().any(evalboard_engine::text::is_bidi_control),
        "{run}: a bidi control in the report"
    );
}

#[test]
fn every_hostile_case_is_a_run_with_diagnostics_or_an_explained_failure() {
    let (runs, cases) = corpus();
    assert!(cases.len() >= 10, "the corpus has its cases");
    let out = std::env::temp_dir().join(format!("eb-hostile-corpus-{}", std::process::id()));
    for c in &cases {
        let dir = runs.join(&c.run);
        assert!(
            dir.is_dir(),
            "{}: run python3 tests/hostile/make_corpus.py",
            c.run
        );
        let (code, stdout, stderr) =
            bounded(&c.run, &[Path::new("score"), &dir, Path::new("--json")]);
        assert!(
            !crashed(code),
            "{}: score crashed ({code}): {stderr}",
            c.run
        );
        assert_eq!(code, if c.loads { 0 } else { 2 }, "{}: {stderr}", c.run);
        for s in &c.says {
            assert!(
                stderr.contains(s.as_str()),
                "{}: stderr lacks {s:?}:\n{stderr}",
                c.run
            );
        }
        assert!(
            no_raw_controls(&stderr),
            "{}: raw control characters on stderr",
            c.run
        );
        if c.loads {
            let stats: serde_json::Value = serde_json::from_str(&stdout).expect("statistics");
            // An object, or an array of them for a folder of several logs.
            assert!(
                stats.is_object()
                    || stats
                        .as_array()
                        .is_some_and(|a| a.iter().all(|s| s.is_object())),
                "{}",
                c.run
            );
        }
        // The human summary, the output files, the report and a comparison with itself.
        let (code, stdout, stderr) = evalboard(&[Path::new("score"), &dir]);
        assert!(
            !crashed(code) && no_raw_controls(&stdout),
            "{}: {stderr}",
            c.run
        );
        for s in &c.stdout {
            assert!(
                stdout.contains(s.as_str()),
                "{}: stdout lacks {s:?}:\n{stdout}",
                c.run
            );
        }
        let o = out.join(&c.run);
        let (code, _, stderr) = evalboard(&[Path::new("score"), &dir, Path::new("--out"), &o]);
        assert!(!crashed(code), "{}: score --out: {stderr}", c.run);
        if c.loads {
            assert_eq!(code, 0, "{}: score --out: {stderr}", c.run);
        }
        let html = out.join(format!("{}.html", c.run));
        let (code, _, stderr) =
            bounded(&c.run, &[Path::new("report"), &dir, Path::new("-o"), &html]);
        assert!(!crashed(code), "{}: report: {stderr}", c.run);
        if c.loads {
            assert!(html.is_file(), "{}: report wrote nothing: {stderr}", c.run);
            report_opens_fast(&c.run, &std::fs::read_to_string(&html).expect("UTF-8"));
        }
        let (code, stdout, stderr) = evalboard(&[Path::new("diff"), &dir, &dir]);
        assert!(!crashed(code), "{}: diff: {stderr}", c.run);
        assert!(
            no_raw_controls(&stdout) && no_raw_controls(&stderr),
            "{}: diff",
            c.run
        );
        // A run's text cannot start a line of its own (a scorer name with a line feed would
        // print a second, fake, accuracy line).
        assert!(
            stdout
                .lines()
                .filter(|l| l.starts_with("  accuracy"))
                .count()
                <= 1,
            "{}: diff prints a line from the run:\n{stdout}",
            c.run
        );
        // A text query over every item (conversations read), and the failure cohorts: no crash,
        // no raw control character in what they print (messages and ids come from the run).
        for args in [
            vec![
                Path::new("query"),
                &dir,
                Path::new("text ~ /./ or not verdict == correct"),
            ],
            vec![Path::new("cohorts"), &dir],
        ] {
            let (code, stdout, stderr) = bounded(&c.run, &args);
            assert!(!crashed(code), "{}: {:?}: {stderr}", c.run, args[0]);
            assert_eq!(
                code,
                if c.loads { 0 } else { 2 },
                "{}: {:?}: {stderr}",
                c.run,
                args[0]
            );
            assert!(
                no_raw_controls(&stdout) && no_raw_controls(&stderr),
                "{}: {:?} prints a raw control character",
                c.run,
                args[0]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
