//! A run read while it is written (`run::live`): the bytes of a file appended in any split —
//! inside a line, inside a UTF-8 character — give the numbers of one read of the final bytes, and
//! those equal the full read's (`run::read` + `run::score`: the headline's counts); a half-written
//! last line is never a diagnostic. A trace folder that grows by whole files (`run::live::LiveFiles`)
//! ends with the numbers of a full read of its files, whatever the order they came in and however
//! often one was written again.

use evalboard_engine::live::LiveNumbers;
use evalboard_engine::run::live::{LiveFiles, LiveRun, SoFar};
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

/// A folder of `files` as the engine's input (run "run").
fn folder_input(files: &[(String, Vec<u8>)]) -> RunInput {
    RunInput::new(
        "run",
        files
            .iter()
            .map(|(p, b)| InputFile::new(p, b.clone()))
            .collect(),
    )
}

/// A folder of `files` read whole and scored with the default settings.
fn scored_whole(files: &[(String, Vec<u8>)]) -> run::ScoredRun {
    let input = folder_input(files);
    let read = run::read(&input, None, ReadOptions::default()).unwrap();
    run::score(read, &Settings::default(), 1)
}

/// The full read's headline counts (correct, judged) of a folder of `files`.
fn full_read_of(files: &[(String, Vec<u8>)]) -> (u64, u64) {
    let counts = scored_whole(files).as_ref().headline().counts.unwrap();
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

// ---- An Inspect `.eval` read while it is written (`run::live::LiveArchive`) ----

use evalboard_engine::evallog::archive::{crc32, Archive, Limits};
use evalboard_engine::run::live::LiveArchive;

/// A zip of `members` (name, bytes), stored, in order: local headers and data, the central
/// directory, the end record — as Python's `zipfile` writes one.
fn zip(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let (mut out, mut cd) = (Vec::new(), Vec::new());
    let u16b = |v: usize| (v as u16).to_le_bytes();
    let u32b = |v: usize| (v as u32).to_le_bytes();
    for (name, data) in members {
        let offset = out.len();
        let crc = crc32(data).to_le_bytes();
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&crc);
        out.extend_from_slice(&u32b(data.len()));
        out.extend_from_slice(&u32b(data.len()));
        out.extend_from_slice(&u16b(name.len()));
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        cd.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        cd.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        cd.extend_from_slice(&crc);
        cd.extend_from_slice(&u32b(data.len()));
        cd.extend_from_slice(&u32b(data.len()));
        cd.extend_from_slice(&u16b(name.len()));
        cd.extend_from_slice(&[0; 12]);
        cd.extend_from_slice(&u32b(offset));
        cd.extend_from_slice(name.as_bytes());
    }
    let at = out.len();
    out.extend_from_slice(&cd);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&u16b(members.len()));
    out.extend_from_slice(&u16b(members.len()));
    out.extend_from_slice(&u32b(cd.len()));
    out.extend_from_slice(&u32b(at));
    out.extend_from_slice(&[0, 0]);
    out
}

/// A finished Inspect fixture's members, decoded: (name, bytes) in archive order.
fn eval_members(rel: &str) -> Vec<(String, Vec<u8>)> {
    let (_, bytes) = read_fixture(rel);
    let archive = Archive::parse(&bytes, Limits::default()).unwrap();
    archive
        .entries
        .iter()
        .map(|e| (e.name.clone(), archive.read(e).unwrap()))
        .collect()
}

const EPOCHS1: &str = "evallog/ok/inspect_epochs1/input/epochs1.eval";

/// The archive as Inspect writes it while it runs, sample by sample in `order`: the journal's
/// start, then each sample with its summary (`_journal/summaries/<k>.json`); after the last,
/// the finished log's summaries, reductions and header. Each step's members (the ones before
/// kept where they were).
fn eval_steps(order: &[usize]) -> Vec<Vec<(String, Vec<u8>)>> {
    let all = eval_members(EPOCHS1);
    let get = |n: &str| all.iter().find(|(m, _)| m == n).unwrap().clone();
    let samples: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|(n, _)| n.starts_with("samples/"))
        .cloned()
        .collect();
    let mut members = vec![get("_journal/start.json")];
    let mut steps = vec![members.clone()];
    for (k, &i) in order.iter().enumerate() {
        let (name, bytes) = samples[i % samples.len()].clone();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let summary: serde_json::Map<String, serde_json::Value> =
            ["id", "epoch", "input", "target", "scores"]
                .iter()
                .filter_map(|f| Some((f.to_string(), v.get(*f)?.clone())))
                .collect();
        members.push((name, bytes));
        members.push((
            format!("_journal/summaries/{}.json", k + 1),
            serde_json::to_vec(&vec![summary]).unwrap(),
        ));
        steps.push(members.clone());
    }
    for n in ["summaries.json", "reductions.json", "header.json"] {
        members.push(get(n));
    }
    steps.push(members);
    steps
}

fn numbers_of(n: &LiveNumbers) -> (u64, u64, u64) {
    (n.items, n.judged, n.correct)
}

/// A full read's items of a folder of `files`: (items, with a verdict, correct).
fn full_items(files: &[(String, Vec<u8>)]) -> (u64, u64, u64) {
    items_of(&scored_whole(files))
}

/// A scored run's (items, with a verdict, correct).
fn items_of(scored: &run::ScoredRun) -> (u64, u64, u64) {
    let items = scored.as_ref().items().unwrap();
    let judged = items.iter().filter(|i| i.verdict.is_some()).count() as u64;
    let correct = items.iter().filter(|i| i.verdict == Some(true)).count() as u64;
    (items.len() as u64, judged, correct)
}

/// The headline of a full read of `files` and of the run `live` read so far.
fn headlines(files: &[(String, Vec<u8>)], live: &LiveArchive) -> (Option<f64>, Option<f64>) {
    let full = scored_whole(files);
    let read = live.read_run("run", 0).unwrap();
    let so_far = run::score(read, &Settings::default(), 1);
    assert_eq!(items_of(&so_far), items_of(&full));
    assert_eq!(so_far.as_ref().meta(), full.as_ref().meta());
    (
        so_far.as_ref().headline().value,
        full.as_ref().headline().value,
    )
}

#[test]
fn an_eval_grown_member_by_member_reads_only_new_members_and_equals_a_full_read() {
    let steps = eval_steps(&[0, 1, 2, 3, 4, 5]);
    let mut live = LiveArchive::new("epochs1.eval");
    let mut before = 0;
    for (k, members) in steps.iter().enumerate() {
        let bytes = zip(members);
        live.update_bytes(&bytes).unwrap();
        let reads = live.last_reads();
        let n = live.numbers();
        if k == 0 {
            // The journal's start alone: no item yet, its status, the total it declares.
            assert_eq!((n.items, live.status()), (0, Some("started")));
            assert_eq!(reads.members, 1);
        } else if k < steps.len() - 1 {
            // One new sample and its summary: only the sample is read (the summaries are a full
            // read's samples only while there is no sample member).
            assert_eq!(reads.members, 1, "step {k}");
            assert_eq!(n.items, k as u64);
            assert_eq!(live.status(), Some("started"));
        } else {
            // The finished log: its header (the samples judged again under its headline).
            assert_eq!(reads.members, 1);
            assert_eq!(live.status(), Some("success"));
        }
        assert!(!reads.whole);
        if n.items > 0 {
            let files = [("epochs1.eval".to_string(), bytes.clone())];
            assert_eq!(numbers_of(&n), full_items(&files), "step {k}");
            // The run so far, from the samples already parsed, is the full read's.
            let (so_far, full) = headlines(&files, &live);
            assert_eq!(so_far, full, "step {k}");
        }
        assert!(n.items >= before);
        before = n.items;
        // The same archive again: nothing read but its end.
        live.update_bytes(&bytes).unwrap();
        assert_eq!(live.last_reads().members, 0);
    }
    assert_eq!(live.numbers().declared_total, Some(6));
}

#[test]
fn the_fixture_logs_read_at_once_equal_a_full_read() {
    for rel in [
        EPOCHS1,
        "evallog/ok/deflate_stored_zip64/input/arith.eval",
        "evallog/ok/zstd_multiframe/input/arith.eval",
        "evallog/ok/inspect_epochs5/input/epochs5.eval",
    ] {
        let (path, bytes) = read_fixture(rel);
        let mut live = LiveArchive::new(&path);
        live.update_bytes(&bytes).unwrap();
        let n = live.numbers();
        assert!(n.judged > 0, "{rel}: {n:?}");
        assert_eq!(
            numbers_of(&n),
            full_items(&[(path.clone(), bytes.clone())]),
            "{rel}"
        );
    }
}

#[test]
fn an_eval_with_no_readable_end_keeps_the_last_readable_state() {
    let steps = eval_steps(&[0, 1, 2]);
    let (a, b) = (zip(&steps[1]), zip(&steps[2]));
    let mut live = LiveArchive::new("x.eval");
    live.update_bytes(&a).unwrap();
    let was = live.numbers();
    // The next flush caught half-written: no readable directory, the numbers stay.
    assert!(live.update_bytes(&b[..b.len() - 30]).is_err());
    assert!(live.last_reads().whole);
    assert_eq!(numbers_of(&live.numbers()), numbers_of(&was));
    // Written in place over the old directory, the old end record left behind it: the last
    // readable directory is found again (none here names members that are gone).
    let mut overlay = b[..a.len() - 10].to_vec();
    overlay.extend_from_slice(&a[a.len() - 10..]);
    let _ = live.update_bytes(&overlay);
    assert_eq!(numbers_of(&live.numbers()), numbers_of(&was));
    live.update_bytes(&b).unwrap();
    assert_eq!(live.numbers().items, 2);
    // Not a zip at all, or nothing: an error, never a panic.
    assert!(live.update_bytes(b"PK\x05\x06 not a zip").is_err());
    assert!(live.update_bytes(b"").is_err());
    assert_eq!(live.numbers().items, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Samples flushed in any order, some samples written twice (a re-run under the same name),
    /// some flushes caught half-written (a prefix of the file, or the new bytes over the old
    /// file): after the last change the numbers equal a full read, and never an item is lost
    /// or counted twice on the way.
    #[test]
    fn an_eval_in_any_order_and_half_written_ends_as_a_full_read(
        order in proptest::collection::vec(0usize..6, 1..9),
        cuts in proptest::collection::vec(proptest::option::of(any::<prop::sample::Index>()), 12),
    ) {
        let steps = eval_steps(&order);
        let mut live = LiveArchive::new("log.eval");
        let mut old: Vec<u8> = Vec::new();
        for (k, members) in steps.iter().enumerate() {
            let bytes = zip(members);
            if let Some(Some(cut)) = cuts.get(k) {
                let at = cut.index(bytes.len());
                let _ = live.update_bytes(&bytes[..at]);
                if at < old.len() {
                    let mut overlay = bytes[..at].to_vec();
                    overlay.extend_from_slice(&old[at..]);
                    let _ = live.update_bytes(&overlay);
                }
            }
            live.update_bytes(&bytes).unwrap();
            let n = live.numbers();
            if n.items > 0 {
                prop_assert_eq!(
                    numbers_of(&n),
                    full_items(&[("log.eval".to_string(), bytes.clone())])
                );
            }
            old = bytes;
        }
    }
}

// ---- The run so far (`read_run`): the watched folder as a run of the run list ----

/// `so_far`, the run read so far, is the full read of a folder of `files` (`run::read` of
/// their bytes): the read itself, and scored (from the scores its readers kept), its headline
/// (counts and value), items, metrics, metadata, diagnostics and every turn's scores. `None`
/// exactly when the full read fails. How many turns scoring it scored (`None`: every item).
fn assert_so_far_is_the_full_read(
    so_far: Option<SoFar>,
    files: &[(String, Vec<u8>)],
    what: &str,
) -> Option<usize> {
    assert_so_far_is_the_full_read_under(so_far, files, &Settings::default(), what)
}

/// [`assert_so_far_is_the_full_read`] scored under `settings`.
fn assert_so_far_is_the_full_read_under(
    so_far: Option<SoFar>,
    files: &[(String, Vec<u8>)],
    settings: &Settings,
    what: &str,
) -> Option<usize> {
    let input = folder_input(files);
    let full = run::read(&input, None, ReadOptions::default());
    let (so_far, full) = match (so_far, full) {
        (None, Err(_)) => return None,
        (Some(s), Ok(f)) => (s, f),
        (s, f) => panic!("{what}: so far {:?}, full {:?}", s.is_some(), f.is_ok()),
    };
    assert_eq!(
        format!("{:?}", so_far.read()),
        format!("{full:?}"),
        "{what}"
    );
    let (sa, scored) = so_far
        .score_in::<{ run::ALL_FAMILIES }>(settings)
        .expect("every family is scored");
    let sb = run::score(full, settings, 1);
    assert_eq!(sa.files(), sb.files(), "{what}");
    if let (run::ScoredRun::NumericQa(a), run::ScoredRun::NumericQa(b)) = (&sa, &sb) {
        assert_eq!(a.turns, b.turns, "{what}");
    }
    let (a, b) = (sa.as_ref(), sb.as_ref());
    assert_eq!(a.headline().counts, b.headline().counts, "{what}");
    assert_eq!(a.headline().value, b.headline().value, "{what}");
    assert_eq!(a.items().ok(), b.items().ok(), "{what}");
    assert_eq!(a.metrics(), b.metrics(), "{what}");
    assert_eq!(a.meta(), b.meta(), "{what}");
    assert_eq!(a.diagnostics(), b.diagnostics(), "{what}");
    scored
}

/// After every piece appended (cut anywhere, a half line held), the run so far of each
/// appendable JSONL (QA, OpenAI Evals, promptfoo) is the full read of its complete lines.
#[test]
fn the_run_so_far_of_a_growing_jsonl_is_a_full_read_of_its_complete_lines() {
    for (path, bytes) in files() {
        let mut live = LiveRun::new(&path, &Settings::default());
        let step = (bytes.len() / 23).max(1);
        let mut at = 0;
        let mut checked = 0;
        while at < bytes.len() {
            let end = (at + step).min(bytes.len());
            live.append(&bytes[at..end]).unwrap();
            at = end;
            let complete = live.numbers().bytes_read as usize;
            let so_far = live.so_far("run");
            let files = [(path.clone(), bytes[..complete].to_vec())];
            if complete > 0 {
                let what = format!("{path} at {end}");
                let scored = assert_so_far_is_the_full_read(so_far, &files, &what);
                // A QA file's turns were each scored once, as their line came: none again.
                if path.ends_with("run.jsonl") {
                    assert_eq!(scored, Some(0), "{what}");
                }
                checked += 1;
            }
        }
        assert!(checked > 5, "{path}");
        assert!(live.read_run("run").is_some(), "{path}");
    }
}

/// A QA JSONL with bad lines, bytes that are not UTF-8 and a turn out of order: the run so far
/// says what a full read says, problem for problem.
#[test]
fn the_run_so_far_of_a_jsonl_with_problems_is_a_full_read() {
    let mut bytes = qa_text();
    bytes.extend_from_slice(b"{\"conversation_id\": \"x\", \"turn_idx\": 1, \"expected\": 3}\n");
    bytes.extend_from_slice(b"not json at all\n");
    bytes.extend_from_slice(b"{\"conversation_id\": \"x\", \"turn_idx\": 0, \"expected\": \xff}\n");
    bytes.extend_from_slice(
        b"{\"conversation_id\": \"x\", \"turn_idx\": 0, \"expected\": 2, \"predicted\": 2}\n",
    );
    let mut live = LiveRun::new("run.jsonl", &Settings::default());
    for (k, piece) in bytes.chunks(97).enumerate() {
        live.append(piece).unwrap();
        let complete = live.numbers().bytes_read as usize;
        if complete > 0 {
            let files = [("run.jsonl".to_string(), bytes[..complete].to_vec())];
            let what = format!("piece {k}");
            let scored = assert_so_far_is_the_full_read(live.so_far("run"), &files, &what);
            assert_eq!(scored, Some(0), "{what}");
        }
    }
    assert!(live.diagnostics().len() >= 2, "{:?}", live.diagnostics());
}

/// Scored under tolerances other than those the watch scored its turns with, the run so far
/// takes none of the kept scores: every turn is scored again, as a full read scores it under
/// them (some verdicts change).
#[test]
fn the_run_so_far_under_other_tolerances_is_scored_again() {
    let bytes = qa_text();
    let mut live = LiveRun::new("run.jsonl", &Settings::default());
    live.append(&bytes).unwrap();
    let mut loose = Settings::default();
    loose.numeric_qa.tolerances.rel = 0.05;
    let files = [("run.jsonl".to_string(), bytes)];
    let what = "rel 0.05";
    let scored = assert_so_far_is_the_full_read_under(live.so_far("run"), &files, &loose, what);
    assert_eq!(scored, Some(12));
    let counts = |s: &Settings| {
        let so_far = live.so_far("run").unwrap();
        let (scored, _) = so_far.score_in::<{ run::ALL_FAMILIES }>(s).unwrap();
        scored.as_ref().headline().counts.unwrap().correct
    };
    assert!(counts(&loose) > counts(&Settings::default()));
}

/// A trace folder growing by whole files, some written again: after each, the run so far is
/// the full read of the files as they are.
#[test]
fn the_run_so_far_of_a_trace_folder_is_a_full_read_of_its_files() {
    let mut live = LiveFiles::new(&Settings::default());
    let mut folder: Vec<(String, Vec<u8>)> = Vec::new();
    assert!(live.read_run("run").is_none());
    for k in [3usize, 0, 5, 1, 4, 2, 7, 6] {
        let (path, bytes) = trace(k, k);
        live.put(&path, &bytes).unwrap();
        folder.push((path, bytes));
        folder.sort();
        let what = format!("trace {k}");
        let scored = assert_so_far_is_the_full_read(live.so_far("run"), &folder, &what);
        // Each trace's turns were scored once, as it came: none again.
        assert_eq!(scored, Some(0), "{what}");
    }
    // One written again as another conversation's trace.
    let (path, bytes) = trace(2, 5);
    let (path5, _) = trace(5, 5);
    assert_eq!(path, path5);
    live.put(&path, &bytes).unwrap();
    folder.iter_mut().find(|(p, _)| *p == path).unwrap().1 = bytes;
    let scored = assert_so_far_is_the_full_read(live.so_far("run"), &folder, "rewritten");
    assert_eq!(scored, Some(0));
    // One written again as no trace: read with the folder, no more on its own.
    assert!(live.put(&path, b"{\"hello\": 1}").is_err());
    assert!(!live.has(&path));
    folder.retain(|(p, _)| *p != path);
    assert_eq!(live.len(), folder.len());
    let scored = assert_so_far_is_the_full_read(live.so_far("run"), &folder, "forgotten");
    assert_eq!(scored, Some(0));
    assert_eq!(
        (live.numbers().correct, live.numbers().judged),
        full_read_of(&folder)
    );
}

/// The status a log records of its lifecycle is a log's only: a numeric QA run's recorded
/// status (its metadata's) is none, an Inspect log's and an OpenAI Evals file's are theirs.
#[test]
fn only_a_log_records_a_lifecycle_status() {
    let qa = scored_whole(&[("run.jsonl".to_string(), qa_text())]);
    assert!(qa.as_ref().meta().get("status").is_some());
    assert_eq!(qa.as_ref().lifecycle_status(), None);
    let (path, bytes) = read_fixture(EPOCHS1);
    let inspect = scored_whole(&[(path, bytes)]);
    assert_eq!(
        inspect.as_ref().lifecycle_status().as_deref(),
        Some("success")
    );
    let (path, bytes) = files().swap_remove(1);
    let oai = scored_whole(&[(path, bytes)]);
    assert_eq!(oai.as_ref().lifecycle_status().as_deref(), Some("complete"));
    let (path, bytes) = files().swap_remove(3);
    let promptfoo = scored_whole(&[(path, bytes)]);
    assert_eq!(promptfoo.as_ref().lifecycle_status(), None);
}

/// The cost of one rebuild of the run so far of a big watched QA JSONL (20,000 turns): read and
/// scored from the bytes (the full read) against `read_run` and scored. Printed, not timed as
/// a test (`cargo test --release -p evalboard-engine --test it so_far_cost -- --ignored
/// --nocapture`).
#[test]
#[ignore]
fn so_far_cost_of_a_big_jsonl() {
    use std::time::Instant;
    let mut text = String::new();
    for c in 0..4000 {
        for t in 0..5 {
            text.push_str(&format!(
                "{{\"conversation_id\": \"conv-{c}\", \"turn_idx\": {t}, \"question\": \"What \
                 was the change in revenue from {t} to {c}?\", \"expected\": \"{}\", \
                 \"predicted\": {}, \"latency_ms\": {}}}\n",
                c * 10 + t,
                if c % 3 == 0 {
                    c * 10 + t + 1
                } else {
                    c * 10 + t
                },
                100 + c % 50
            ));
        }
    }
    let bytes = text.into_bytes();
    let mut live = LiveRun::new("run.jsonl", &Settings::default());
    live.append(&bytes).unwrap();
    let files = [("run.jsonl".to_string(), bytes.clone())];
    let input = folder_input(&files[..]);
    let best = |f: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .fold(f64::MAX, f64::min)
    };
    let full = best(&mut || {
        let read = run::read(&input, None, ReadOptions::default()).unwrap();
        std::hint::black_box(run::score(read, &Settings::default(), 1));
    });
    let full_read = best(&mut || {
        std::hint::black_box(run::read(&input, None, ReadOptions::default()).unwrap());
    });
    let so_far = best(&mut || {
        let read = live.read_run("run").unwrap();
        std::hint::black_box(run::score(read, &Settings::default(), 1));
    });
    let kept = best(&mut || {
        let so_far = live.so_far("run").unwrap();
        let settings = Settings::default();
        std::hint::black_box(so_far.score_in::<{ run::ALL_FAMILIES }>(&settings).unwrap());
    });
    let so_far_read = best(&mut || {
        std::hint::black_box(live.read_run("run").unwrap());
    });
    println!(
        "20,000 turns ({} KB): read + score {full:.1} ms (read {full_read:.1} ms); read_run + \
         score {so_far:.1} ms (read_run {so_far_read:.1} ms); so_far scored from the kept \
         scores {kept:.1} ms",
        bytes.len() / 1024
    );
}

/// The bench's writer (`bench/watch_lag.mjs`: one turn every 100 ms, five a conversation), the
/// run so far rebuilt every ten turns: never a panic, and the last equals the full read.
#[test]
fn the_bench_writer_pattern_rebuilds_the_run_so_far_without_fail() {
    let mut live = LiveRun::new("w/run.jsonl", &Settings::default());
    let mut all = Vec::new();
    for i in 0..3000u64 {
        let expected = 10 + (i % 50);
        let predicted = if i % 4 == 0 { expected + 1 } else { expected };
        let line = format!(
            "{{\"conversation_id\":\"c{}\",\"turn_idx\":{},\"question\":\"q {i}\",\"expected\":\"{expected}\",\"predicted\":{predicted},\"latency_ms\":{}}}\n",
            i / 5,
            i % 5,
            100 + (i % 17)
        );
        all.extend_from_slice(line.as_bytes());
        live.append(line.as_bytes()).unwrap();
        if i % 10 == 9 {
            let so_far = live.so_far("w · so far").unwrap();
            let (scored, n) = so_far
                .score_in::<{ run::ALL_FAMILIES }>(&Settings::default())
                .unwrap();
            assert_eq!(scored.as_ref().counts().1 as u64, i + 1);
            assert_eq!(n, Some(0));
        }
    }
    let scored = assert_so_far_is_the_full_read(
        live.so_far("run"),
        &[("w/run.jsonl".to_string(), all)],
        "bench",
    );
    assert_eq!(scored, Some(0));
}

/// A folder of two QA JSONL files and trace files, each read as it grows: after every step, the
/// run so far is the full read of the folder's complete bytes, and no turn is scored again.
#[test]
fn the_run_so_far_of_a_folder_of_qa_files_and_traces_is_a_full_read() {
    use evalboard_engine::run::live::qa_folder_so_far;
    let a = qa_text();
    let b = String::from_utf8(qa_text())
        .unwrap()
        .replace("café", "tea")
        .into_bytes();
    let mut lives = [
        LiveRun::new("jsonl/a.jsonl", &Settings::default()),
        LiveRun::new("jsonl/b.jsonl", &Settings::default()),
    ];
    let mut traces = LiveFiles::new(&Settings::default());
    let mut held: Vec<(String, Vec<u8>)> = Vec::new();
    let mut checked = 0;
    for step in 0..12 {
        for (live, bytes) in lives.iter_mut().zip([&a, &b]) {
            let at = live.numbers().bytes_read as usize + live.numbers().bytes_held as usize;
            let end = (at + bytes.len() / 7 + 1).min(bytes.len());
            live.append(&bytes[at..end]).unwrap();
        }
        if step % 3 == 0 {
            let (path, bytes) = trace(step / 3, step / 3);
            traces.put(&path, &bytes).unwrap();
            held.retain(|(p, _)| *p != path);
            held.push((path, bytes));
        }
        let mut folder = held.clone();
        for (live, bytes) in lives.iter().zip([&a, &b]) {
            let complete = live.numbers().bytes_read as usize;
            if complete > 0 {
                folder.push((live.path().to_string(), bytes[..complete].to_vec()));
            }
        }
        folder.sort();
        if folder.iter().any(|(p, _)| p.ends_with(".jsonl")) {
            let files: Vec<&LiveRun> = lives
                .iter()
                .filter(|l| l.numbers().bytes_read > 0)
                .collect();
            let so_far = qa_folder_so_far("run", &files, &traces);
            let what = format!("step {step}");
            let scored = assert_so_far_is_the_full_read(so_far, &folder, &what);
            assert_eq!(scored, Some(0), "{what}");
            checked += 1;
        }
    }
    assert!(checked > 8);
    // An eval log among them: no run so far of a QA folder.
    let mut log = LiveRun::new("x.jsonl", &Settings::default());
    log.append(&files()[1].1).unwrap();
    assert!(qa_folder_so_far("run", &[&lives[0], &log], &traces).is_none());
}

/// A folder of eval logs each read as it grows (two OpenAI Evals record files, a promptfoo
/// JSONL, an Inspect `.eval`): after every step, its runs so far are the parts a full read of
/// the folder's complete bytes gives (`run::read_parts`), name for name.
#[test]
fn the_runs_so_far_of_a_folder_of_logs_are_the_parts_of_a_full_read() {
    use evalboard_engine::family::Family;
    use evalboard_engine::run::live::{log_parts_so_far, LiveArchive, LiveLog};
    let logs: Vec<(String, Vec<u8>)> = files()[1..]
        .iter()
        .map(|(p, b)| (format!("w/{p}"), b.clone()))
        .collect();
    let mut lives: Vec<LiveRun> = logs
        .iter()
        .map(|(p, _)| LiveRun::new(p, &Settings::default()))
        .collect();
    let (eval_path, eval_bytes) = read_fixture(EPOCHS1);
    let eval_path = format!("w/{eval_path}");
    let mut archive = LiveArchive::new(&eval_path);
    archive.update_bytes(&eval_bytes).unwrap();
    let mut checked = 0;
    for step in 1..=9 {
        for (live, (_, bytes)) in lives.iter_mut().zip(&logs) {
            let at = live.numbers().bytes_read as usize + live.numbers().bytes_held as usize;
            let end = (bytes.len() * step / 9).max(at);
            live.append(&bytes[at..end]).unwrap();
        }
        let mut folder = vec![(eval_path.clone(), eval_bytes.clone())];
        let mut parts: Vec<(String, LiveLog)> = vec![(
            eval_path.clone(),
            LiveLog::Archive(&archive, eval_bytes.len() as u64),
        )];
        for (live, (path, bytes)) in lives.iter().zip(&logs) {
            let complete = live.numbers().bytes_read as usize;
            if complete > 0 {
                folder.push((path.clone(), bytes[..complete].to_vec()));
                parts.push((path.clone(), LiveLog::Lines(live)));
            }
        }
        folder.sort_by(|a, b| a.0.cmp(&b.0));
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        let parts: Vec<LiveLog> = parts.into_iter().map(|(_, l)| l).collect();
        let full = run::read_parts(
            Family::EvalLog,
            folder_input(&folder),
            None,
            ReadOptions::default(),
        );
        let Some(so_far) = log_parts_so_far("run", &parts) else {
            // Only before a log's first complete line says what it is.
            assert!(step < 3, "step {step}");
            continue;
        };
        let full = full.unwrap();
        assert_eq!(so_far.len(), full.len(), "step {step}");
        for (s, f) in so_far.iter().zip(&full) {
            assert_eq!(format!("{:?}", s.read()), format!("{f:?}"), "step {step}");
        }
        checked += 1;
    }
    assert!(checked >= 6);
}
