//! Tests of the whole report: CSP hashes match the inline blocks, input text is escaped
//! everywhere, headline numbers equal statistics.json, capping, comparison order.

use evalboard_engine::numeric_qa::read;
use evalboard_engine::numeric_qa::score::{score_qa_run, ScoreConfig, ScoredQaRun};
use evalboard_engine::{InputFile, RunInput};

use super::*;

const XSS: &str = "<script>alert(1)</script>";

fn jsonl_run(name: &str, lines: &[String]) -> ScoredQaRun {
    let text = lines.join("\n");
    let input = RunInput::new(
        name.to_string(),
        vec![InputFile::new("run.jsonl", text.into_bytes())],
    );
    let run = read::load_qa_run(&input, None).expect("loads");
    score_qa_run(run, &ScoreConfig::default())
}

fn line(conv: &str, turn: u32, q: &str, expected: &str, predicted: &str) -> String {
    serde_json::json!({
        "conversation_id": conv, "turn_idx": turn, "question": q,
        "expected": expected, "predicted": predicted, "model": "m<b>1</b>",
        "prompt_tokens": 10, "completion_tokens": 5,
    })
    .to_string()
}

fn xss_run() -> ScoredQaRun {
    jsonl_run(
        &format!("run {XSS}"),
        &[
            line("c1</script>", 0, &format!("q {XSS} \u{2028}"), "1", "1"),
            line(
                "c1</script>",
                1,
                "<img src=x onerror=alert(2)>",
                "2",
                "javascript:alert(3)",
            ),
            line("c2", 0, "\" onmouseover=\"alert(4)", "5%", "0.05"),
        ],
    )
}

fn render(runs: Vec<ReportRun>, baseline: Option<ReportRun>, options: HtmlOptions) -> String {
    render_report(&ReportInput {
        runs,
        baseline,
        task_baselines: Vec::new(),
        provenance: Provenance {
            generated_at: "2025-01-01T00:00:00Z".into(),
            generator: "test".into(),
            files: vec![FileProvenance::of(
                &format!("run {XSS}"),
                "x<svg onload=alert(5)>.jsonl",
                b"abc",
            )],
        },
        options,
        human: None,
    })
}

/// The text between the first `open` and the next `close` after it.
fn between<'a>(s: &'a str, open: &str, close: &str) -> &'a str {
    let start = s.find(open).expect("open") + open.len();
    let end = s[start..].find(close).expect("close") + start;
    &s[start..end]
}

#[test]
fn csp_hashes_match_the_inline_blocks() {
    let s = xss_run();
    let html = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    let css = between(&html, "<style>", "</style>");
    let js = between(&html, "<script>", "</script>");
    let csp = between(&html, "Content-Security-Policy\" content=\"", "\"");
    assert!(csp.starts_with("default-src 'none';"));
    assert!(
        csp.contains(&format!("style-src {};", csp_hash(css))),
        "{csp}"
    );
    assert!(
        csp.contains(&format!("script-src {};", csp_hash(js))),
        "{csp}"
    );
    assert!(csp.contains("connect-src 'none'"));
    // Exactly one executable script and one style block.
    assert_eq!(html.matches("<script>").count(), 1);
    assert_eq!(html.matches("<script").count(), 2);
    assert_eq!(html.matches("<style").count(), 1);
    // No inline event handlers or style attributes (CSP would block them anyway).
    assert!(!html.contains(" style=\""));
    assert!(!html.contains(" onclick="));
}

#[test]
fn input_text_is_escaped_everywhere() {
    let s = xss_run();
    let html = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    for raw in [
        "<script>alert",
        "<img src=x",
        "<svg onload",
        "</script><",
        "\" onmouseover=\"",
        "<b>1</b>",
    ] {
        assert!(!html.contains(raw), "raw {raw:?} in the page");
    }
    assert!(html.contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // The data block parses back to the original strings.
    let data = between(
        &html,
        "<script type=\"application/json\" id=\"eb-data\">",
        "</script>",
    );
    assert!(!data.contains('<') && !data.contains('>') && !data.contains('&'));
    assert!(!data.contains('\u{2028}'));
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["runs"][0]["name"], format!("run {XSS}"));
    assert_eq!(v["files"][0]["path"], "x<svg onload=alert(5)>.jsonl");
}

#[test]
fn headline_numbers_equal_statistics_json() {
    let s = jsonl_run(
        "nums",
        &[
            line("a", 0, "q", "1,234", "1234"),
            line("a", 1, "q", "12.5%", "0.125"),
            line("b", 0, "q", "-3", "3"),
            line("b", 1, "q", "7", "n/a"),
        ],
    );
    let html = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    let stats = crate::outputs::qa_outputs(&s).statistics;
    let data = between(&html, "id=\"eb-data\">", "</script>");
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["runs"][0]["statistics"], stats);
    let mut checked = 0;
    for (k, val) in stats.as_object().unwrap() {
        let Some(x) = val.as_f64() else { continue };
        let needle = format!("data-metric=\"{k}\" data-value=\"");
        if let Some(pos) = html.find(&needle) {
            let rest = &html[pos + needle.len()..];
            let shown: f64 = rest[..rest.find('"').unwrap()].parse().unwrap();
            assert_eq!(shown, x, "{k}");
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} metrics checked");
    assert!(html.contains("data-metric=\"numerical_accuracy\""));
}

#[test]
fn large_tables_are_capped_with_an_embedded_download() {
    let lines: Vec<String> = (0..30)
        .map(|i| line(&format!("c{}", i / 3), i % 3, "q", "1", "2"))
        .collect();
    let s = jsonl_run("big", &lines);
    let html = render(
        vec![ReportRun::NumericQa(&s)],
        None,
        HtmlOptions {
            max_table_rows: 10,
            ..Default::default()
        },
    );
    let items = between(&html, "id=\"run0-items-table\"", "</table>");
    assert_eq!(items.matches("<tr data-verdict=").count(), 10);
    assert!(html.contains("data-capped=\"30\""));
    let href = between(&html, "href=\"data:application/gzip;base64,", "\"");
    assert!(!href.is_empty());
    let full = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    assert!(!full.contains("data-capped"));
}

#[test]
fn comparison_lists_regressions_first() {
    let base = jsonl_run(
        "base",
        &[
            line("a", 0, "q", "1", "1"),
            line("a", 1, "q", "2", "9"),
            line("b", 0, "q", "3", "3"),
        ],
    );
    let cand = jsonl_run(
        "cand",
        &[
            line("a", 0, "q", "1", "1"),
            line("a", 1, "q", "2", "2"),
            line("b", 0, "q", "3", "4"),
        ],
    );
    let c = compare(
        &ReportRun::NumericQa(&base),
        &ReportRun::NumericQa(&cand),
        &CompareOptions::default(),
        Default::default(),
    );
    let st = c.stats.as_ref().unwrap();
    assert_eq!((st.flips.regressed, st.flips.improved), (1, 1));
    assert_eq!(st.n_paired, 3);
    let html = render(
        vec![ReportRun::NumericQa(&cand)],
        Some(ReportRun::NumericQa(&base)),
        HtmlOptions::default(),
    );
    let t = between(&html, "id=\"cmp0-table\"", "</table>");
    let reg = t.find("data-verdict=\"regressed\"").unwrap();
    let imp = t.find("data-verdict=\"improved\"").unwrap();
    assert!(reg < imp);
    assert!(html.contains("<del>3</del><ins>4</ins>"));
    // The comparison comes before the run sections.
    assert!(html.find("id=\"comparison\"").unwrap() < html.find("id=\"run0\"").unwrap());
}

#[test]
fn deterministic_and_empty_run_is_valid() {
    let s = jsonl_run("one", &[line("a", 0, "q", "1", "1")]);
    let a = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    let b = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    assert_eq!(a, b);
    let none = render(vec![], None, HtmlOptions::default());
    assert!(none.starts_with("<!DOCTYPE html>"));
    assert!(none.trim_end().ends_with("</html>"));
}

#[test]
fn chunked_provenance_hashes_the_same_and_reports_progress() {
    let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let mut seen = Vec::new();
    let a = FileProvenance::of_chunked("r", "f.jsonl", &bytes, 4096, &mut |d| seen.push(d));
    assert_eq!(a, FileProvenance::of("r", "f.jsonl", &bytes));
    assert_eq!(seen, [4096, 8192, 10_000]);
    let mut calls = 0;
    let e = FileProvenance::of_chunked("r", "empty", b"", 4096, &mut |_| calls += 1);
    assert_eq!(e.sha256, sha256_hex(b""));
    assert_eq!(calls, 0);
}

#[test]
fn a_provenance_hashed_block_by_block_equals_the_whole_files() {
    let bytes: Vec<u8> = (0..100_000u32)
        .map(|i| (i % 253) as u8 ^ (i >> 9) as u8)
        .collect();
    let whole = FileProvenance::of("r", "big.jsonl", &bytes);
    assert_eq!(whole.sha256, sha256_hex(&bytes));
    for block in [1, 7, 4096, 65_536, 100_000] {
        let mut h = ProvenanceHasher::new("r", "big.jsonl");
        for part in bytes.chunks(block) {
            h.update(part);
        }
        assert_eq!(h.finish(), whole, "blocks of {block}");
    }
    let empty = ProvenanceHasher::new("r", "e").finish();
    assert_eq!((empty.bytes, empty.sha256), (0, sha256_hex(b"")));
}

/// `n` characters of one unbroken token, incompressible enough to be a real model's output.
fn unbroken(n: usize, seed: u64) -> String {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[(x % 36) as usize])
        })
        .collect()
}

/// The visible page: the HTML without the data block, the script and embedded downloads.
fn visible(html: &str) -> String {
    let body = between(html, "<body>", "<script type=\"application/json\"");
    let mut out = String::new();
    let mut rest = body;
    while let Some(at) = rest.find("href=\"data:") {
        out.push_str(&rest[..at]);
        rest = &rest[at + 6..];
        rest = &rest[rest.find('"').unwrap_or(rest.len())..];
    }
    out.push_str(rest);
    out
}

/// The longest run of characters between tags that are neither spaces nor markup.
fn longest_token(html: &str) -> usize {
    html.split(|c: char| c.is_whitespace() || c == '<' || c == '>')
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_one_megabyte_unbroken_output_is_cut_in_the_tables_and_kept_as_a_download() {
    let out = unbroken(1_000_000, 7);
    let s = jsonl_run(
        "long",
        &[
            line("c1", 0, "q", "10", &out),
            line("c1", 1, &unbroken(2_000_000, 9), "5", "5"),
        ],
    );
    let html = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    let page = visible(&html);
    // Every visible text is a bounded prefix with the full length said.
    assert!(
        longest_token(&page) < evalboard_engine::text::MAX_TEXT + 100,
        "a cell holds {} characters unbroken",
        longest_token(&page)
    );
    assert!(page.contains(&format!(
        "{}… (cut at 4,000 of 1,000,000 characters)",
        &out[..4000]
    )));
    assert!(page.contains("(cut at 4,000 of 2,000,000 characters)"));
    assert!(page.len() < 100_000, "visible page {} B", page.len());
    // The full texts travel as the compressed items download: it fits the budget.
    let note = between(&html, "<p class=\"eb-note\" data-capped=\"2\">", "</p>");
    assert!(
        note.starts_with("Texts longer than 4,000 characters are cut"),
        "{note}"
    );
    let b64 = between(note, "base64,", "\"");
    let gz = (0..b64.len())
        .step_by(4)
        .flat_map(|i| {
            let v: Vec<u32> = b64[i..i + 4]
                .bytes()
                .map(|c| match c {
                    b'A'..=b'Z' => u32::from(c - b'A'),
                    b'a'..=b'z' => u32::from(c - b'a') + 26,
                    b'0'..=b'9' => u32::from(c - b'0') + 52,
                    b'+' => 62,
                    b'/' => 63,
                    _ => 0,
                })
                .collect();
            let n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
            let pad = b64[i..i + 4].matches('=').count();
            [(n >> 16) as u8, (n >> 8) as u8, n as u8]
                .into_iter()
                .take(3 - pad)
        })
        .collect::<Vec<u8>>();
    let csv = miniz_oxide::inflate::decompress_to_vec(&gz[10..gz.len() - 8]).expect("gzip");
    let csv = String::from_utf8(csv).expect("UTF-8");
    assert!(csv.contains(&out), "the download holds the whole output");
    assert!(
        html.len() < page.len() + super::build::MAX_EMBEDDED_GZIP * 4 / 3 + 10_000,
        "report {} B",
        html.len()
    );
}

#[test]
fn eight_one_megabyte_outputs_keep_the_report_small_past_the_embedding_budget() {
    let lines: Vec<String> = (0..8)
        .map(|i| line("c1", i, "q", "10", &unbroken(1_000_000, 100 + u64::from(i))))
        .collect();
    let s = jsonl_run("long", &lines);
    let html = render(vec![ReportRun::NumericQa(&s)], None, HtmlOptions::default());
    assert!(html.len() < 300_000, "report {} B", html.len());
    assert!(longest_token(&visible(&html)) < evalboard_engine::text::MAX_TEXT + 100);
    assert!(html.contains("is too large to embed in this file"));
    assert_eq!(
        html.matches("(cut at 4,000 of 1,000,000 characters)")
            .count(),
        16
    );
}

#[test]
fn bidi_controls_in_log_text_are_shown_as_escapes_everywhere() {
    // A Inspect log whose scorer name ends in U+202E and whose texts carry every bidi control.
    let controls = "\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}";
    let log = std::fs::read_to_string(
        evalboard_test_support_root().join("tests/fixtures/evallog/ok/json_nan/input/arith.json"),
    )
    .expect("fixture")
    .replace("\"match\"", "\"match\\u202e\"")
    .replace("mockllm/model", &format!("mockllm/model{controls}"));
    let input = RunInput::new(
        format!("run{controls}"),
        vec![InputFile::new("arith.json", log.into_bytes())],
    );
    let read = evalboard_engine::run::read(&input, None, Default::default()).expect("reads");
    let scored = evalboard_engine::run::score(read, &evalboard_engine::run::Settings::default(), 1);
    let html = render(vec![scored.as_ref()], None, HtmlOptions::default());
    let bidi = evalboard_engine::text::is_bidi_control;
    assert!(
        html.contains("match\\u{202e}"),
        "the scorer's name says what it holds"
    );
    assert!(html.contains("run\\u{202a}\\u{202b}"), "the run's name too");
    assert!(
        !html.chars().any(bidi),
        "a bidi control is left in the file: {:?}",
        html.char_indices()
            .find(|(_, c)| bidi(*c))
            .map(|(i, _)| &html[i.saturating_sub(80)..i])
    );
}

fn evalboard_test_support_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn an_eval_logs_samples_give_their_reason_as_text() {
    let path = "tests/fixtures/evallog/ok/promptfoo_assertions/input/results.jsonl";
    let bytes = std::fs::read(evalboard_test_support_root().join(path)).expect("fixture");
    let input = RunInput::new("assertions", vec![InputFile::new("results.jsonl", bytes)]);
    let read = evalboard_engine::run::read(&input, None, Default::default()).expect("reads");
    let scored = evalboard_engine::run::score(read, &evalboard_engine::run::Settings::default(), 1);
    let html = render(vec![scored.as_ref()], None, HtmlOptions::default());
    assert!(html.contains(">Reason<"), "a Reason column");
    assert!(html.contains("Expected output to contain &quot;Paris&quot;"));
    assert!(html.contains(
        "=The answer apologises instead of answering &lt;script&gt;alert(1)&lt;/script&gt;"
    ));
    assert!(!html.contains("<script>alert(1)"));
    // items.csv: the reason last, a formula-like one neutralised.
    let evalboard_engine::run::ScoredRun::EvalLog(log) = &scored else {
        panic!("an eval log")
    };
    let csv = crate::evallog_files::items_csv(log);
    assert!(csv.lines().next().unwrap_or_default().ends_with(",reason"));
    assert!(
        csv.contains(",'=The answer apologises instead of answering <script>alert(1)</script>\n")
    );
}
