//! A run read while it is written (`run::live`): the bytes of a file appended in any split —
//! inside a line, inside a UTF-8 character — give the numbers of one read of the final bytes, and
//! those equal the full read's (`run::read` + `run::score`: the headline's counts); a half-written
//! last line is never a diagnostic. A trace folder that grows by whole files (`run::live::LiveFiles`)
//! ends with the numbers of a full read of its files, whatever the order they came in and however
//! often one was written again.

use evalboard_engine::live::LiveNumbers;
use evalboard_engine::run::live::{LiveFiles, LiveRun};
use evalboard_engine::run::{self, ReadOptions, Settings};
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::fixture;
use proptest::prelude::*;

/// A canonical QA JSONL run with text outside ASCII (so cuts fall inside characters), right and
/// wrong answers, a latency and a blank line.
fn qa_text() -> Vec<u8> {
    let mut out = String::new();
    for c in 0..4 {
        for t in 0..3 {
            let expected = 10 * c + t;
            let predicted = if (c + t) % 3 == 0 {
                expected + 1
            } else {
                expected
            };
            out.push_str(&format!(
                "{{\"conversation_id\": \"café-{c}/年\", \"turn_idx\": {t}, \"question\": \
                 \"ü {c}·{t} — ¿cuánto? 🙂\", \"expected\": \"{expected}\", \"predicted\": \
                 {predicted}, \"latency_ms\": {}}}\n",
                100 + 7 * (c * 3 + t)
            ));
        }
        if c == 1 {
            out.push('\n');
        }
    }
    out.into_bytes()
}

fn read_fixture(rel: &str) -> (String, Vec<u8>) {
    let path = fixture(rel);
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    (name, std::fs::read(path).unwrap())
}

/// The files every test watches: a QA JSONL, two OpenAI Evals record files (one with an errored
/// sample whose match event comes later), a promptfoo `.jsonl`.
fn files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("run.jsonl".to_string(), qa_text()),
        read_fixture("evallog/ok/openai_evals_errors/input/arith-match.jsonl"),
        read_fixture(
            "evallog/ok/openai_evals_2023/input/auto-gpt-benchmarks-2023-04-17_test-match.jsonl",
        ),
        read_fixture("evallog/ok/promptfoo_assertions/input/results.jsonl"),
    ]
}

/// `bytes` fed in pieces ending at `cuts`; the numbers after each piece.
fn watch(path: &str, bytes: &[u8], cuts: &[usize]) -> (LiveRun, Vec<LiveNumbers>) {
    let mut live = LiveRun::new(path, &Settings::default());
    let mut at = 0;
    let mut seen = Vec::new();
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c.min(bytes.len())).collect();
    ends.sort_unstable();
    ends.push(bytes.len());
    for end in ends {
        live.append(&bytes[at..end]).unwrap();
        at = end;
        seen.push(live.numbers());
    }
    (live, seen)
}

/// The full read's headline counts (correct, judged) of one file.
fn full_read(path: &str, bytes: &[u8]) -> (u64, u64) {
    full_read_of(&[(path.to_string(), bytes.to_vec())])
}

#[test]
fn the_final_numbers_equal_a_full_read() {
    for (path, bytes) in files() {
        let (live, _) = watch(&path, &bytes, &[]);
        let n = live.numbers();
        assert!(n.judged > 0, "{path}: {n:?}");
        assert_eq!((n.correct, n.judged), full_read(&path, &bytes), "{path}");
        assert_eq!(n.bytes_held, 0, "{path}");
        assert_eq!(n.accuracy, Some(n.correct as f64 / n.judged as f64));
    }
}

#[test]
fn known_numbers_of_the_fixtures() {
    let got: Vec<(u64, u64, u64, u64)> = files()
        .iter()
        .map(|(p, b)| {
            let n = watch(p, b, &[]).0.numbers();
            (n.items, n.judged, n.correct, n.errored)
        })
        .collect();
    // QA: 12 turns, 4 wrong ((c + t) % 3 == 0). OpenAI Evals: dev.4 errored with no match
    // (done, no verdict); dev.1 errored and then matched (its error does not keep a verdict).
    assert_eq!(got[0], (12, 12, 8, 0));
    assert_eq!(got[1].0, 5);
    let qa = watch(&files()[0].0, &files()[0].1, &[]).0.numbers();
    // Nearest rank: the 6th of 12 latencies, 100 + 7k.
    assert_eq!(qa.latency_p50_ms, Some(100.0 + 7.0 * 5.0));
    assert_eq!(qa.latency_p95_ms, Some(100.0 + 7.0 * 11.0));
}

#[test]
fn the_first_failures_are_the_wrong_items_in_order_with_their_answers() {
    use evalboard_engine::run_table::ItemKey;
    let (path, bytes) = &files()[0];
    let n = watch(path, bytes, &[]).0.numbers();
    // Wrong where (c + t) % 3 == 0: c0 t0, c1 t2, c2 t1, c3 t0 — all four kept (of at most 5).
    let got: Vec<(ItemKey, Option<String>, Option<String>)> = n
        .first_failures
        .iter()
        .map(|f| (f.key.clone(), f.got.clone(), f.expected.clone()))
        .collect();
    let want = |c: u64, t: u64| {
        let e = 10 * c + t;
        (
            ItemKey::text_index(&format!("café-{c}/年"), t),
            Some((e + 1).to_string()),
            Some(e.to_string()),
        )
    };
    assert_eq!(got, vec![want(0, 0), want(1, 2), want(2, 1), want(3, 0)]);
    // An eval log's: its sample key, its output against its target.
    let (path, bytes) = &files()[1];
    let n = watch(path, bytes, &[]).0.numbers();
    assert!(!n.first_failures.is_empty(), "{n:?}");
    assert!(n.first_failures.len() <= evalboard_engine::live::FIRST_FAILURES);
}

#[test]
fn a_half_written_line_is_held_not_an_error() {
    for (path, bytes) in files() {
        // Every cut inside the last line: nothing but what the complete lines say.
        let last_start = bytes[..bytes.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let (whole_lines, _) = watch(&path, &bytes[..last_start], &[]);
        for cut in last_start + 1..bytes.len() {
            let (live, _) = watch(&path, &bytes[..cut], &[]);
            assert_eq!(
                live.diagnostics(),
                whole_lines.diagnostics(),
                "{path} cut at {cut}"
            );
            let (a, b) = (live.numbers(), whole_lines.numbers());
            assert_eq!(
                (a.items, a.judged, a.correct),
                (b.items, b.judged, b.correct)
            );
            assert_eq!(a.bytes_held, (cut - last_start) as u64);
        }
    }
}

#[test]
fn a_file_of_another_format_is_not_watched() {
    let mut live = LiveRun::new("x.jsonl", &Settings::default());
    assert_eq!(live.append(b"\n  \n").unwrap(), 0);
    assert!(live.append(b"{\"hello\": 1}\n").is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any split of the same bytes gives the same numbers, bit for bit, as one read of them.
    #[test]
    fn any_split_gives_the_numbers_of_one_read(
        which in 0usize..4,
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let (path, bytes) = files().swap_remove(which);
        let cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        let (split, seen) = watch(&path, &bytes, &cuts);
        let (whole, _) = watch(&path, &bytes, &[]);
        prop_assert_eq!(split.numbers(), whole.numbers());
        prop_assert_eq!(split.diagnostics(), whole.diagnostics());
        // Items only grow, and never past the final count.
        for w in seen.windows(2) {
            prop_assert!(w[0].items <= w[1].items);
        }
    }
}

/// The financial-agent-2 trace fixtures (a crashed conversation with no turn among them).
const TRACES: [&str; 6] = [
    "numeric_qa/ok/fa2_simulated/input/traces/1499cdf3-e676-4158-ada8-1039d2c4e711.json",
    "numeric_qa/ok/fa2_simulated/input/traces/53cd9e79-cf3d-43a1-b2cb-095336fe8273.json",
    "numeric_qa/err/fa2_nasty/input/traces/21636369-8b52-4b4a-97b7-50923ceb3ffd.json",
    "numeric_qa/err/fa2_nasty/input/traces/781f9c58-d664-4fa9-a8a8-529f035efa25.json",
    "numeric_qa/err/fa2_nasty/input/traces/795b929e-9a9a-40fd-aa7b-5bf55eb561a4.json",
    "numeric_qa/err/fa2_nasty/input/traces/9b08923d-10c6-4fd9-94b2-b8fda02f34a6.json",
];

/// Trace `which` of [`TRACES`] as the trace of conversation `k` (its ids made `t<k>`/`conv-<k>`):
/// `traces/t<k>.json` and its bytes.
fn trace(which: usize, k: usize) -> (String, Vec<u8>) {
    let (_, bytes) = read_fixture(TRACES[which % TRACES.len()]);
    let text = String::from_utf8(bytes).unwrap();
    let id = |key: &str| {
        let at = text.find(&format!("\"{key}\"")).unwrap();
        let start = at + text[at..].find(": \"").unwrap() + 3;
        let end = start + text[start..].find('"').unwrap();
        text[start..end].to_string()
    };
    let text = text
        .replacen(&id("trace_id"), &format!("t{k}"), 1)
        .replacen(&id("conversation_id"), &format!("conv-{k}"), 1);
    (format!("traces/t{k}.json"), text.into_bytes())
}

/// The full read's headline counts (correct, judged) of a folder of `files`.
fn full_read_of(files: &[(String, Vec<u8>)]) -> (u64, u64) {
    let input = RunInput::new(
        "run",
        files
            .iter()
            .map(|(p, b)| InputFile::new(p, b.clone()))
            .collect(),
    );
    let read = run::read(&input, None, ReadOptions::default()).unwrap();
    let scored = run::score(read, &Settings::default(), 1);
    let counts = scored.as_ref().headline().counts.unwrap();
    (counts.correct, counts.n)
}

#[test]
fn trace_files_added_one_at_a_time_end_with_the_numbers_of_a_full_read() {
    let folder: Vec<(String, Vec<u8>)> = (0..8).map(|k| trace(k, k)).collect();
    let mut live = LiveFiles::new(&Settings::default());
    let mut items = Vec::new();
    for (path, bytes) in &folder {
        live.put(path, bytes).unwrap();
        items.push(live.numbers().items);
    }
    let n = live.numbers();
    assert_eq!(live.len(), 8);
    assert!(
        n.judged > 0 && n.correct > 0 && n.correct < n.judged,
        "{n:?}"
    );
    assert_eq!((n.correct, n.judged), full_read_of(&folder));
    assert!(items.windows(2).all(|w| w[0] <= w[1]), "{items:?}");
    assert_eq!(n.items, n.judged);
    // Not a trace: read whole with the folder, not on its own.
    assert!(live.put("traces/x.json", b"{\"hello\": 1}").is_err());
    assert!(live.put("results.jsonl", &qa_text()).is_err());
    assert!(!live.has("traces/x.json"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Trace files come in any order, some first written as another conversation's trace and
    /// written again later: the numbers after the last one equal a full read of the folder.
    #[test]
    fn trace_files_in_any_order_and_rewritten_give_a_full_read(
        order in Just((0..8usize).collect::<Vec<_>>()).prop_shuffle(),
        drafts in proptest::collection::vec(proptest::option::of(0usize..6), 8),
    ) {
        let folder: Vec<(String, Vec<u8>)> = (0..8).map(|k| trace(k, k)).collect();
        let mut live = LiveFiles::new(&Settings::default());
        for &k in &order {
            if let Some(draft) = drafts[k] {
                let (path, bytes) = trace(draft, k);
                live.put(&path, &bytes).unwrap();
            }
        }
        for &k in &order {
            let (path, bytes) = &folder[k];
            live.put(path, bytes).unwrap();
        }
        let n = live.numbers();
        prop_assert_eq!((n.correct, n.judged), full_read_of(&folder));
        prop_assert_eq!(live.len(), 8);
    }
}
