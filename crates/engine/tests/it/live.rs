//! A run read while it is written (`run::live`): the bytes of a file appended in any split —
//! inside a line, inside a UTF-8 character — give the numbers of one read of the final bytes, and
//! those equal the full read's (`run::read` + `run::score`: the headline's counts); a half-written
//! last line is never a diagnostic.

use evalboard_engine::live::LiveNumbers;
use evalboard_engine::run::live::LiveRun;
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
    let input = RunInput::new("run", vec![InputFile::new(path, bytes.to_vec())]);
    let read = run::read(&input, None, ReadOptions::default()).unwrap();
    let scored = run::score(read, &Settings::default(), 1);
    let counts = scored.as_ref().headline().counts.unwrap();
    (counts.correct, counts.n)
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
