//! Issue 31, hostile and unusual tool logs, in the engine: a first row longer than any sniff
//! prefix is still one row of its file (the file is not dropped, nor read as another format),
//! and a lone surrogate escape (`\ud800`, which Python's `json` writes and reads) is read as
//! U+FFFD with a warning naming the file and line instead of dropping the whole file; a text of
//! an `.eval` member that inflates far past any real answer (a compression bomb inside the
//! archive's caps) is cut as it is inflated, with a warning naming the file, member and text.

use evalboard_engine::evallog::{self, EvalLogFileKind, EvalLogRead};
use evalboard_engine::{InputFile, Severity};
use evalboard_test_support::{fixture, read_folder};

fn folder(rel: &str) -> Vec<InputFile> {
    read_folder(&fixture(rel))
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect()
}

fn samples(read: &EvalLogRead) -> usize {
    read.runs.iter().map(|r| r.samples.len()).sum()
}

/// `text` with the first `from` replaced by `to` (which must be there).
fn edit(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(text.contains(from), "{from:?} not in the fixture");
    text.replacen(from, to, 1).into_bytes()
}

const LONG: usize = 70 * 1024;

#[test]
fn an_lm_eval_samples_file_whose_first_row_is_past_64_kib_is_read_whole() {
    let plain = folder("evallog/runs/lm_eval_baseline");
    let want = samples(&evallog::read(&plain).unwrap());
    let mut files = plain.clone();
    let mut padded = 0;
    for f in files.iter_mut().filter(|f| f.path.contains("samples_")) {
        // The first row's question, before its `resps`, is 70 KB long.
        let text = String::from_utf8(f.bytes.clone()).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        let at = first.find("\"question\": \"").unwrap() + "\"question\": \"".len();
        let long = format!(
            "{}{}{}\n{rest}",
            &first[..at],
            "x".repeat(LONG),
            &first[at..]
        );
        f.bytes = long.into_bytes();
        assert_eq!(
            evallog::sniff(f),
            Some(EvalLogFileKind::LmEvalSamples),
            "{}",
            f.path
        );
        padded += 1;
    }
    assert!(padded >= 2);
    let read = evallog::read(&files).unwrap();
    assert_eq!(samples(&read), want, "every row of every samples file");
    assert!(
        read.diagnostics
            .iter()
            .all(|d| d.severity != Severity::Error),
        "{:?}",
        read.diagnostics
    );
    let run = evalboard_engine::RunInput::new("lm", files);
    assert_eq!(
        evalboard_engine::family::detect_family(&run),
        evalboard_engine::family::Family::EvalLog
    );
}

#[test]
fn a_promptfoo_jsonl_whose_first_output_is_70_kb_is_read_as_promptfoo_jsonl() {
    let export = folder("evallog/runs/promptfoo_baseline");
    let top: serde_json::Value = serde_json::from_slice(&export[0].bytes).unwrap();
    let mut rows = top["results"]["results"].as_array().unwrap().clone();
    let n = rows.len();
    // `response` comes before `testIdx` in promptfoo's rows.
    rows[0]["response"]["output"] = serde_json::Value::String("y".repeat(LONG));
    let text: String = rows
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    let first = text.split('\n').next().unwrap();
    assert!(
        first.find("\"testIdx\"").unwrap() > 64 * 1024,
        "the test's premise"
    );
    let f = InputFile::new("results.jsonl", text.into_bytes());
    assert_eq!(evallog::sniff(&f), Some(EvalLogFileKind::PromptfooJsonl));
    let read = evallog::read(&[f]).unwrap();
    assert_eq!(samples(&read), n);
}

#[test]
fn a_qa_jsonl_whose_first_question_is_long_is_still_qa_jsonl() {
    use evalboard_engine::numeric_qa::formats::qa_jsonl::looks_like_qa_jsonl;
    let line = |q: &str| {
        format!(
            r#"{{"question":"{q}","conversation_id":"c1","turn_idx":0,"expected":"1","predicted":1}}"#
        )
    };
    let long = line(&"q".repeat(LONG)) + "\n" + &line("short") + "\n";
    assert!(looks_like_qa_jsonl(long.as_bytes()));
    assert!(looks_like_qa_jsonl(
        format!("\u{feff}\r\n{long}").as_bytes()
    ));
    // A first block that ends inside the first line does not show it: read whole instead.
    assert!(!looks_like_qa_jsonl(&long.as_bytes()[..8192]));
    let f = InputFile::new("run.jsonl", long.into_bytes());
    assert_eq!(
        evalboard_engine::family::family_vote(&f),
        Some(evalboard_engine::family::Family::NumericQa)
    );
}

/// The warning about lone surrogates in `read`, with its file and line.
fn lone_warning(read: &EvalLogRead) -> (&str, Option<u32>, &str) {
    let d = read
        .diagnostics
        .iter()
        .find(|d| d.message.contains("lone surrogate"))
        .unwrap_or_else(|| panic!("no lone-surrogate warning: {:?}", read.diagnostics));
    assert_eq!(d.severity, Severity::Warning);
    (d.file.as_str(), d.line, d.message.as_str())
}

fn line_of(bytes: &[u8], needle: &str) -> u32 {
    let text = std::str::from_utf8(bytes).unwrap();
    let at = text.find(needle).unwrap();
    text[..at].matches('\n').count() as u32 + 1
}

#[test]
fn a_lone_surrogate_in_an_inspect_json_log_is_read_as_u_fffd_with_a_warning() {
    let plain = folder("evallog/ok/json_nan/input");
    let want = samples(&evallog::read(&plain).unwrap());
    let bytes = edit(
        &plain[0].bytes,
        "\"What is 1?\"",
        "\"What is 1?\\ud800 and \\\\ud800\"",
    );
    let line = line_of(&bytes, "\\ud800");
    let f = InputFile::new(plain[0].path.clone(), bytes);
    let read = evallog::read(&[f]).unwrap();
    assert_eq!(samples(&read), want, "the whole log is read");
    assert_eq!(
        lone_warning(&read),
        (
            "arith.json",
            Some(line),
            "a lone surrogate escape (like \\ud800, which Python's json writes and strict JSON refuses): read it as U+FFFD"
        )
    );
    let s = &read.runs[0].samples;
    let input = s
        .iter()
        .find_map(|s| s.input.as_deref().filter(|i| i.starts_with("What is 1?")))
        .unwrap();
    // The escaped backslash before the second `ud800` is a backslash and text, as written.
    assert_eq!(input, "What is 1?\u{fffd} and \\ud800");
}

#[test]
fn a_lone_surrogate_in_a_promptfoo_export_and_a_helm_scenario_state_is_read() {
    let promptfoo = folder("evallog/ok/promptfoo_export/input");
    let want = samples(&evallog::read(&promptfoo).unwrap());
    let bytes = edit(
        &promptfoo[0].bytes,
        "Solve this riddle: I speak",
        "Solve this riddle:\\udc00 I speak",
    );
    let line = line_of(&bytes, "\\udc00");
    let read = evallog::read(&[InputFile::new(promptfoo[0].path.clone(), bytes)]).unwrap();
    assert_eq!(samples(&read), want);
    assert_eq!(lone_warning(&read).1, Some(line));

    let mut helm = folder("evallog/ok/helm_exact_match/input");
    let want = samples(&evallog::read(&helm).unwrap());
    let state = helm
        .iter_mut()
        .find(|f| f.path.ends_with("scenario_state.json"))
        .unwrap();
    state.bytes = edit(&state.bytes, "12 18 1 15 7\"", "12 18 1 15 7\\ud83d\"");
    let line = line_of(&state.bytes, "\\ud83d");
    let read = evallog::read(&helm).unwrap();
    assert_eq!(samples(&read), want);
    let (file, at, _) = lone_warning(&read);
    assert!(file.ends_with("scenario_state.json"), "{file}");
    assert_eq!(at, Some(line));
}

#[test]
fn a_lone_surrogate_in_an_lm_eval_samples_line_keeps_the_line() {
    let mut files = folder("evallog/runs/lm_eval_baseline");
    let want = samples(&evallog::read(&files).unwrap());
    let f = files
        .iter_mut()
        .find(|f| f.path.contains("samples_"))
        .unwrap();
    // On the second line; a pair (an emoji) elsewhere is left alone.
    let text = String::from_utf8(f.bytes.clone()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[1] = lines[1].replacen(
        "\"question\": \"",
        "\"question\": \"\\ud800\\ud83d\\ude00",
        1,
    );
    f.bytes = (lines.join("\n") + "\n").into_bytes();
    let path = f.path.clone();
    let read = evallog::read(&files).unwrap();
    assert_eq!(samples(&read), want);
    let (file, line, _) = lone_warning(&read);
    assert_eq!((file, line), (path.as_str(), Some(2)));
    assert_eq!(
        read.diagnostics
            .iter()
            .filter(|d| d.message.contains("lone surrogate"))
            .count(),
        1
    );
}

#[test]
fn a_text_that_inflates_far_past_any_answer_is_cut_as_it_is_read() {
    use evalboard_engine::evallog::archive::{Archive, Limits};
    use evalboard_engine::evallog::eval_file::{now, EvalFile, InMemory};
    use evalboard_engine::evallog::long_text::MAX_TEXT_CHARS;
    use evalboard_engine::evallog::messages::inspect_sample_messages;
    let plain = std::fs::read(fixture("evallog/ok/deflate_stored_zip64/input/arith.eval")).unwrap();
    let archive = Archive::parse(&plain, Limits::default()).unwrap();
    // Sample 1's output and its assistant message are 20,000,000 characters each, 40 MB that
    // deflate to ~40 KB: inside the archive's caps (its size × 1100), so the member is read.
    let n = 20_000_000;
    let long = "a".repeat(n);
    let members: Vec<(String, Vec<u8>)> = archive
        .entries
        .iter()
        .map(|e| {
            let data = archive.read(e).unwrap();
            if e.name != "samples/1_epoch_1.json" {
                return (e.name.clone(), data);
            }
            let with_messages = edit(
                &data,
                "\"output\": {",
                &format!(
                    r#""messages": [{{"role": "assistant", "content": "{long}"}}], "output": {{"#
                ),
            );
            let bomb = edit(
                &with_messages,
                "\"completion\": \"4\"",
                &format!("\"completion\": \"{long}\""),
            );
            (e.name.clone(), bomb)
        })
        .collect();
    let zip = crate::duplicate_keys::zip_of(&members, true);
    assert!((zip.len() as u64) * 1100 > 2 * n as u64, "inside the cap");
    let input = [InputFile::new("bomb.eval", zip.clone())];
    let before = crate::doc_scorers::alloc_count::reset_peak();
    let read = evallog::read(&input).unwrap();
    let peak = crate::doc_scorers::alloc_count::peak() - before;
    let want = evallog::read(&[InputFile::new("bomb.eval", plain)]).unwrap();
    let run = &read.runs[0];
    assert_eq!(run.samples.len(), want.runs[0].samples.len());
    assert_eq!(run.headlines, want.runs[0].headlines);
    let output = run.samples[0].output.as_deref().unwrap();
    assert_eq!(
        output.len(),
        MAX_TEXT_CHARS as usize + "… (cut at 1,000,000 of 20,000,000 characters)".len()
    );
    assert!(output.ends_with("a… (cut at 1,000,000 of 20,000,000 characters)"));
    // One warning names the file, the member and the text.
    let cut: Vec<_> = read
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("cut at"))
        .collect();
    assert_eq!(cut.len(), 1, "{:?}", read.diagnostics);
    assert_eq!(
        (
            cut[0].file.as_str(),
            cut[0].record.as_deref(),
            cut[0].severity
        ),
        (
            "bomb.eval",
            Some("samples/1_epoch_1.json"),
            Severity::Warning
        )
    );
    assert_eq!(
        cut[0].message,
        "2 texts cut at 1,000,000 characters: messages[0].content (cut at 1,000,000 of \
         20,000,000 characters), output.completion (cut at 1,000,000 of 20,000,000 characters) \
         (each text of a log is kept up to 1,000,000 characters; the rest was not read into memory)"
    );
    // The member as the drawer reads it holds the cut texts, not 40 MB; its message is cut
    // again to the drawer's bound, with the length the text had.
    let mut src = InMemory(&zip);
    let file = now(async { Ok(EvalFile::open(&mut src, "bomb.eval").await) })
        .unwrap()
        .unwrap();
    let member = now(async { Ok(file.member(&mut src, "samples/1_epoch_1.json").await) })
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        member.len() < 2 * MAX_TEXT_CHARS as usize + 10_000,
        "{}",
        member.len()
    );
    // Reading the log held at most twice the text it kept (the member as cut, parsed), beside
    // the compressed bytes and a fixed megabyte (the inflate ring, the decoder): never the 40 MB
    // the member inflates to (3.5 MB measured; 101 MB with its texts kept whole).
    let bound = 2 * member.len() + zip.len() + (1 << 20);
    assert!(
        peak <= bound,
        "peak heap {peak} B reading the log, over {bound} B"
    );
    let messages = inspect_sample_messages(&member).unwrap();
    assert!(messages[0]
        .text()
        .ends_with("a… (cut at 200,000 of 20,000,000 characters)"));
}

/// The members of the deflate fixture `.eval` (a header and four samples), uncompressed.
fn fixture_members() -> Vec<(String, Vec<u8>)> {
    use evalboard_engine::evallog::archive::{Archive, Limits};
    let plain = std::fs::read(fixture("evallog/ok/deflate_stored_zip64/input/arith.eval")).unwrap();
    let archive = Archive::parse(&plain, Limits::default()).unwrap();
    archive
        .entries
        .iter()
        .map(|e| (e.name.clone(), archive.read(e).unwrap()))
        .collect()
}

/// A fixture sample's JSON before and after its output's text (`"completion": "4"`).
fn around_completion(json: &[u8]) -> (String, String) {
    let text = String::from_utf8(json.to_vec()).unwrap();
    let (head, tail) = text.split_once("\"completion\": \"4\"").unwrap();
    (format!("{head}\"completion\": \""), format!("\"{tail}"))
}

/// One zstd frame that declares a window of 2^(10 + `log`) bytes (no content size, no checksum)
/// and holds `parts`: bytes as they are (raw blocks), or a byte repeated (RLE blocks, 4 bytes
/// for 128 KiB of output).
fn zstd_frame(parts: &[(&[u8], usize)], log: u8) -> Vec<u8> {
    let mut f = 0xFD2F_B528u32.to_le_bytes().to_vec();
    f.push(0x00); // frame header descriptor: no content size, not single-segment, no checksum
    f.push(log << 3); // window descriptor: exponent only
    let mut blocks: Vec<(u32, usize, &[u8])> = Vec::new(); // (type, size, content)
    for (bytes, repeat) in parts {
        if *repeat == 0 {
            blocks.extend(bytes.chunks(1 << 16).map(|c| (0, c.len(), c)));
        } else {
            let mut left = *repeat;
            while left > 0 {
                let n = left.min(1 << 17);
                blocks.push((1, n, &bytes[..1]));
                left -= n;
            }
        }
    }
    let n = blocks.len();
    for (i, (kind, size, content)) in blocks.into_iter().enumerate() {
        let header = u32::from(i + 1 == n) | (kind << 1) | ((size as u32) << 3);
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.extend_from_slice(content);
    }
    f
}

#[test]
fn a_zstd_frame_declaring_a_window_past_zstds_own_limit_is_refused_before_it_is_decoded() {
    let mut members = fixture_members();
    let as_zstd = |data: &[u8]| (93u16, zstd_frame(&[(data, 0)], 6));
    let read = evallog::read(&[InputFile::new(
        "ok.eval",
        crate::duplicate_keys::zip_with(&members, &as_zstd),
    )]);
    assert_eq!(
        read.unwrap().runs[0].samples.len(),
        4,
        "zstd frames of a 64 KiB window read"
    );
    // Sample 1's output: 160,000,000 characters in RLE blocks of a frame declaring a 256 MiB
    // window (a decoder keeps that much of its output), 250 KB of padding (a stored member no
    // reader reads) putting it inside the archive's cap. Zstd itself refuses past 128 MiB.
    let n = 160_000_000;
    let (sample, bomb) = members
        .iter_mut()
        .find(|(name, _)| name == "samples/1_epoch_1.json")
        .map(|m| {
            let (head, tail) = around_completion(&m.1);
            let frame = zstd_frame(&[(head.as_bytes(), 0), (b"a", n), (tail.as_bytes(), 0)], 18);
            m.1 = [head.as_bytes(), "a".repeat(n).as_bytes(), tail.as_bytes()].concat();
            (m.0.clone(), frame)
        })
        .unwrap();
    members.push(("padding.bin".into(), vec![b' '; 250_000]));
    let zip = crate::duplicate_keys::zip_with(&members, &|data: &[u8]| match data.first() {
        Some(b' ') => (0, data.to_vec()),
        _ if data.len() > n => (93, bomb.clone()),
        _ => as_zstd(data),
    });
    drop(members);
    assert!(zip.len() as u64 * 1100 > 256 << 20, "inside the cap");
    let input = [InputFile::new("w.eval", zip)];
    let before = crate::doc_scorers::alloc_count::reset_peak();
    let read = evallog::read(&input).unwrap();
    let peak = crate::doc_scorers::alloc_count::peak() - before;
    assert!(peak < 16 << 20, "peak heap {peak} B");
    assert_eq!(read.runs[0].samples.len(), 3, "the other samples read");
    let refused = read
        .diagnostics
        .iter()
        .find(|d| d.record.as_deref() == Some(sample.as_str()))
        .unwrap_or_else(|| panic!("{:?}", read.diagnostics));
    assert!(
        refused
            .message
            .contains("declares a 268435456-byte window, over the 134217728 bytes"),
        "{}",
        refused.message
    );
}

#[test]
fn a_zstd_text_bomb_within_zstds_window_limit_is_cut_as_it_is_read() {
    let mut members = fixture_members();
    // Sample 1's output: 40,000,000 characters in RLE blocks of a frame with an 8 MiB window
    // (zstd -19's), 40 KB of padding putting it inside the cap.
    let n = 40_000_000;
    let sample = members
        .iter_mut()
        .find(|(name, _)| name == "samples/1_epoch_1.json")
        .unwrap();
    let (head, tail) = around_completion(&sample.1);
    let bomb = zstd_frame(&[(head.as_bytes(), 0), (b"a", n), (tail.as_bytes(), 0)], 13);
    sample.1 = [head.as_bytes(), "a".repeat(n).as_bytes(), tail.as_bytes()].concat();
    members.push(("padding.bin".into(), vec![b' '; 40_000]));
    let zip = crate::duplicate_keys::zip_with(&members, &|data: &[u8]| match data.first() {
        Some(b' ') => (0, data.to_vec()),
        _ if data.len() > n => (93, bomb.clone()),
        _ => (93, zstd_frame(&[(data, 0)], 6)),
    });
    drop(members);
    assert!(
        zip.len() as u64 * 1100 > n as u64 + 10_000,
        "inside the cap"
    );
    let input = [InputFile::new("z.eval", zip)];
    let before = crate::doc_scorers::alloc_count::reset_peak();
    let read = evallog::read(&input).unwrap();
    let peak = crate::doc_scorers::alloc_count::peak() - before;
    let output = read.runs[0].samples[0].output.as_deref().unwrap();
    assert!(output.ends_with("a… (cut at 1,000,000 of 40,000,000 characters)"));
    assert!(read.diagnostics.iter().any(|d| d
        .message
        .starts_with("output.completion: text cut at 1,000,000 of 40,000,000")));
    // The kept text (1 MB, held twice at most) and the decoder's 8 MiB window, whose ring grows
    // by doubling (the old block counted beside the new: 28 MB measured): never the 40 MB the
    // member inflates to.
    assert!(peak < 32 << 20, "peak heap {peak} B");
}
