//! The fuzz targets: every reader and parser of the engine, whole run folders through the run
//! registry and the report writers, and the CLI end to end. A target takes one input and
//! returns a [`Verdict`]: `Ok` with the features of what happened (outcomes, diagnostic kinds,
//! counts; a new feature keeps the input as a seed), or a failed check. Panics are caught by
//! the worker around the call.

use evalboard_engine::codegen;
use evalboard_engine::diag::Diagnostic;
use evalboard_engine::evallog;
use evalboard_engine::evalset;
use evalboard_engine::family::{detect_family, Family};
use evalboard_engine::numeric_qa::formats::{convfinqa, fa2_results, fa2_traces, qa_jsonl};
use evalboard_engine::numeric_qa::model::{RawValue, ReadDetail};
use evalboard_engine::numeric_qa::{answer, finqa_program, read as qa_read, score as qa_score};
use evalboard_engine::prices::{ModelPrice, PriceTable};
use evalboard_engine::run::{self, ReadOptions, Reference, Settings};
use evalboard_engine::{InputFile, RunInput};

use crate::cli_target;
use crate::input::{Folder, Input};
use crate::seeds::{SeedFile, SeedFolder, Seeds};
use crate::target::{Ctx, Sig, Verdict};

/// Where a target's seeds come from.
pub enum Wants {
    /// Seed files this predicate accepts (the hostile corpus is always added).
    Files(fn(&SeedFile) -> bool),
    /// Seed folders this predicate accepts (hostile folders are always added).
    Folders(fn(&SeedFolder) -> bool),
    /// Seeds built from the seed files (strings taken out of JSON, for the text targets).
    Derived(fn(&Seeds) -> Vec<Vec<u8>>),
}

pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    pub wants: Wants,
    /// Seeds of its own, so that no target starts from nothing (e.g. without `../shared/data`).
    pub builtin: &'static [&'static [u8]],
    pub run: fn(&Input, &Ctx) -> Verdict,
    /// Not in the default list (`selftest`: proves the harness catches what it claims to).
    pub hidden: bool,
    /// Seconds added to the hang limit for this target (the CLI target waits on a child
    /// process that has the limit itself).
    pub slack_secs: u64,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Target {
    pub fn is_folder(&self) -> bool {
        matches!(self.wants, Wants::Folders(_))
    }

    /// The target's seeds: built-in, then from the seed roots (hostile ones to every target).
    pub fn seeds(&self, seeds: &Seeds) -> Vec<Input> {
        let mut out: Vec<Input> = Vec::new();
        match self.wants {
            Wants::Files(want) => {
                out.extend(self.builtin.iter().map(|b| Input::Bytes(b.to_vec())));
                out.extend(
                    seeds
                        .files
                        .iter()
                        .filter(|f| f.hostile || want(f))
                        .map(|f| Input::Bytes(f.bytes.clone())),
                );
            }
            Wants::Derived(derive) => {
                out.extend(self.builtin.iter().map(|b| Input::Bytes(b.to_vec())));
                out.extend(derive(seeds).into_iter().map(Input::Bytes));
                out.extend(
                    seeds
                        .files
                        .iter()
                        .filter(|f| f.hostile)
                        .map(|f| Input::Bytes(f.bytes.clone())),
                );
            }
            Wants::Folders(want) => {
                out.extend(
                    self.builtin
                        .iter()
                        .map(|b| Input::Folder(vec![("run.jsonl".to_string(), b.to_vec())])),
                );
                out.extend(
                    seeds
                        .folders
                        .iter()
                        .filter(|f| f.hostile || want(f))
                        .map(|f| Input::Folder(f.files.clone())),
                );
            }
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|i| seen.insert(i.hash()));
        out
    }
}

/// Every target, in the order `make fuzz` runs them.
pub fn all() -> &'static [Target] {
    TARGETS
}

pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// What most targets share: listed, no extra hang slack, no seeds of their own.
const PLAIN: Target = Target {
    name: "",
    about: "",
    wants: Wants::Files(|_| false),
    builtin: &[],
    run: |_, _| Verdict::Ok(Vec::new()),
    hidden: false,
    slack_secs: 0,
};

const TARGETS: &[Target] = &[
    Target {
        name: "fa2_trace",
        about: "financial-agent-2 trace JSON (numeric_qa::formats::fa2_traces::read_trace)",
        wants: Wants::Files(|f| {
            fa2_traces::looks_like_trace(&f.bytes) || f.origin.contains("/traces/")
        }),
        builtin: &[b"{\"trace_id\": \"t\", \"turns\": []}"],
        run: fa2_trace,
        ..PLAIN
    },
    Target {
        name: "fa2_results",
        about: "financial-agent-2 results.json (fa2_results::read_results)",
        wants: Wants::Files(|f| fa2_results::looks_like_results(&f.bytes)),
        builtin: &[b"[{\"example_id\": \"e\", \"turns\": []}]"],
        run: fa2_results_target,
        ..PLAIN
    },
    Target {
        name: "turns_csv",
        about: "turns.csv (fa2_traces::read_turns_csv, trace_order_from_csv)",
        wants: Wants::Files(|f| {
            fa2_traces::looks_like_turns_csv(&f.bytes) || f.name.ends_with(".csv")
        }),
        builtin: &[b"trace_id,turn_idx\nt,0\n"],
        run: turns_csv,
        ..PLAIN
    },
    Target {
        name: "qa_jsonl",
        about: "QA JSONL, whole (read_qa_jsonl) and streamed in random pieces (QaJsonlReader): \
                both must agree",
        wants: Wants::Files(|f| {
            qa_jsonl::looks_like_qa_jsonl(&f.bytes) || f.name.ends_with(".jsonl")
        }),
        builtin: &[b"{\"conversation_id\": \"c\", \"turn_index\": 0, \"expected\": 1, \"predicted\": 1}\n"],
        run: qa_jsonl_target,
        ..PLAIN
    },
    Target {
        name: "convfinqa",
        about: "ConvFinQA dataset (convfinqa::read_dataset, validate_dataset)",
        wants: Wants::Files(|f| {
            convfinqa::looks_like_dataset(&f.bytes) || f.name.contains("dataset")
        }),
        builtin: &[b"{\"dev\": []}"],
        run: convfinqa_target,
        ..PLAIN
    },
    Target {
        name: "answer",
        about: "answer parsing and every answer scorer (doc, financial-agent-2, eval-set \
                extraction), Python number parsing; input = expected \\n actual",
        wants: Wants::Derived(answer_seeds),
        builtin: &[
            b"1,234.5\n1234.5",
            b"(12%)\n-0.12",
            b"NaN\nnan",
            b"$1.2 million\n1200000",
            b"yes\nYes.",
        ],
        run: answer_target,
        ..PLAIN
    },
    Target {
        name: "query",
        about: "the query language and failure cohorts: parse, evaluate, hits, mask, cohorts; \
                input = query \n text (the text is an item's field, text and error)",
        wants: Wants::Derived(answer_seeds),
        builtin: &[
            b"text ~ /time(d)? ?out/i and not (verdict == correct or error)\nRequest timed out after 600s",
            b"score.match == 0 or metadata.a.b >= -3.5e2\n{\"a\": {\"b\": [1, \"x\", null]}}",
            b"tool == \"bash\" && !(x != 'y') || key ~ /s1\\d/\nKeyError: 'rev' at /tmp/x.csv org-4f3a9c",
            b"((((a))))\n(a+)+$ aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
        ],
        run: query_target,
        ..PLAIN
    },
    Target {
        name: "finqa_program",
        about: "FinQA program language: parse, execute (both dialects), equal_program; input = \
                gold \\n predicted \\n table rows (cells split by |)",
        wants: Wants::Derived(program_seeds),
        builtin: &[
            b"subtract(5829, 5735), divide(#0, 5735)\ndivide(subtract(5829, 5735), 5735)\nrow|1|2",
            b"table_sum(revenue, none)\ntable_average(revenue, none)\nyear|2019|2020\nrevenue|1|2",
            b"greater(const_100, 5)\nexp(2, 3)\n",
        ],
        run: finqa_target,
        ..PLAIN
    },
    Target {
        name: "codegen_files",
        about: "code-generation readers: trace JSONL, chat-history metrics.json and \
                metrics_summary.json, data CSV headers",
        wants: Wants::Files(|f| {
            codegen::sniff(&f.name, &f.bytes).is_some()
                || (f.origin.contains("codegen") || f.origin.contains("ise547"))
        }),
        builtin: &[b"{\"question\": \"q\", \"code\": \"x = 1\", \"execution_result\": {\"type\": \"number\", \"data\": 1}}\n"],
        run: codegen_files,
        ..PLAIN
    },
    Target {
        name: "python_syntax",
        about: "Python syntax check (codegen::syntax, nesting) and the code scorers on code text",
        wants: Wants::Derived(code_seeds),
        builtin: &[
            b"import pandas as pd\ndf = pd.read_csv('data.csv')\nprint(df.groupby('a')['b'].mean())\n",
            b"def f(x):\n    for i in range(x):\n        for j in range(i):\n            yield i * j\n",
            b"x = [[(lambda y: y if y else -y)(z) for z in w] for w in v]",
        ],
        run: python_syntax,
        ..PLAIN
    },
    Target {
        name: "evalset_files",
        about: "eval-set readers: eval set JSONL, predictions (every schema), summaries, \
                manifests, training metrics; validate_evalset",
        wants: Wants::Files(|f| {
            evalset::sniff::sniff(&f.name, &f.bytes).is_some() || f.origin.contains("tunix")
        }),
        builtin: &[b"{\"id\": \"a\", \"prompt\": \"p\", \"expected_answer\": \"x\"}\n"],
        run: evalset_files,
        ..PLAIN
    },
    Target {
        name: "inspect_eval",
        about: "Inspect AI .eval zip archives (evallog::eval_file::read_eval: zip, deflate, zstd; \
                the first samples' conversations, evallog::messages)",
        wants: Wants::Files(|f| f.name.ends_with(".eval") || f.bytes.starts_with(b"PK\x03\x04")),
        builtin: &[b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"],
        run: inspect_eval,
        ..PLAIN
    },
    Target {
        name: "inspect_json",
        about: "Inspect AI .json logs (evallog::inspect::read_json; the first samples' \
                conversations, evallog::messages)",
        wants: Wants::Files(|f| {
            evallog::sniff(&InputFile::new(f.name.clone(), f.bytes.clone()))
                == Some(evallog::EvalLogFileKind::InspectJson)
        }),
        builtin: &[b"{\"version\": 2, \"status\": \"success\", \"eval\": {}, \"samples\": []}"],
        run: inspect_json,
        ..PLAIN
    },
    Target {
        name: "lm_eval_samples",
        about: "lm-eval samples files, JSON lines or one JSON array (evallog::rows, \
                json_array::element_spans), read beside a results file by content \
                (evallog::lm_eval_pair: a task from the rows, task_hashes)",
        wants: Wants::Files(|f| {
            evallog::sniff(&InputFile::new(f.name.clone(), f.bytes.clone()))
                == Some(evallog::EvalLogFileKind::LmEvalSamples)
        }),
        builtin: &[
            b"[\n  {\n    \"doc_id\": 0,\n    \"doc\": {},\n    \"resps\": [[[-0.7, true]]],\n    \"acc\": 1.0\n  }\n]",
            b"{\"doc_id\": 0, \"doc\": {}, \"filter\": \"none\", \"metrics\": [\"acc\"], \"acc\": 1}\n",
        ],
        run: lm_eval_samples,
        ..PLAIN
    },
    Target {
        name: "evallog_folder",
        about: "folders of eval-tool logs (evallog::read: lm-eval results + samples, Inspect, \
                promptfoo, OpenAI Evals, HELM run folders; their samples billed, \
                evallog::billing)",
        wants: Wants::Folders(|f| {
            f.files.iter().any(|(p, b)| {
                evallog::sniff(&InputFile::new(p.clone(), b.clone())).is_some()
            })
        }),
        run: evallog_folder,
        ..PLAIN
    },
    Target {
        name: "run_numeric_qa",
        about: "numeric QA run folders: run::read + score (both profiles), the CLI's streamed \
                reads against the whole-folder read, report outputs, HTML, compare",
        wants: Wants::Folders(|f| family_of(&f.files) == Family::NumericQa),
        run: run_folder,
        ..PLAIN
    },
    Target {
        name: "run_codegen",
        about: "code-generation run folders: run::read + score, report outputs, HTML, compare",
        wants: Wants::Folders(|f| family_of(&f.files) == Family::Codegen),
        run: run_folder,
        ..PLAIN
    },
    Target {
        name: "run_evalset",
        about: "eval-set run folders: run::read + score, report outputs, HTML, compare",
        wants: Wants::Folders(|f| family_of(&f.files) == Family::Evalset),
        run: run_folder,
        ..PLAIN
    },
    Target {
        name: "run_evallog",
        about: "eval-log run folders: run::read + score (as recorded or re-scored), the repeats' \
                summary, report outputs, HTML, compare (as judged or by item)",
        wants: Wants::Folders(|f| family_of(&f.files) == Family::EvalLog),
        run: run_folder,
        ..PLAIN
    },
    Target {
        name: "cli",
        about: "the CLI end to end: the folder written to disk, loaded in-process by \
                evalboard_cli::fsio, and `evalboard score|validate|report|diff` run on it",
        wants: Wants::Folders(|_| true),
        run: cli_target::run,
        slack_secs: 5,
        ..PLAIN
    },
    Target {
        name: "selftest",
        about: "the harness's own check: first byte P panics, A aborts, S overflows the stack, \
                O allocates 64 GiB, H hangs",
        builtin: &[b"P", b"A", b"S", b"O", b"H", b"ok"],
        run: selftest,
        hidden: true,
        ..PLAIN
    },
];

/// A number's class (the value itself would make every input new).
fn number_class(x: Option<f64>) -> u64 {
    match x {
        None => 0,
        Some(v) if v.is_nan() => 1,
        Some(v) if v.is_infinite() => 2,
        Some(0.0) => 3,
        Some(v) if v < 0.0 => 4,
        Some(v) if v.fract() == 0.0 => 5,
        Some(_) => 6,
    }
}

fn bytes_of(input: &Input) -> &[u8] {
    match input {
        Input::Bytes(b) => b,
        // A folder given to a file target (a replay of the wrong kind): its first file.
        Input::Folder(f) => f.first().map_or(&[], |(_, b)| b.as_slice()),
    }
}

fn folder_of(input: &Input) -> Folder {
    match input {
        Input::Folder(f) => f.clone(),
        Input::Bytes(b) => vec![("input".to_string(), b.clone())],
    }
}

fn family_of(files: &Folder) -> Family {
    detect_family(&run_input(files))
}

fn run_input(files: &Folder) -> RunInput {
    RunInput::new(
        "fuzz",
        files
            .iter()
            .map(|(p, b)| InputFile::new(p.clone(), b.clone()))
            .collect(),
    )
}

// ---------------------------------------------------------------------------------------------
// Numeric QA readers

fn fa2_trace(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    s.flag(fa2_traces::looks_like_trace(b));
    match fa2_traces::read_trace("traces/x.json", b) {
        Ok((c, d)) => {
            s.tag(1);
            s.count(c.turns.len());
            s.diags(&d);
        }
        Err(d) => s.diags(&d),
    }
    if let Ok(text) = std::str::from_utf8(b) {
        let r = fa2_traces::read_trace_text("traces/x.json", text, ReadDetail::Doc);
        s.result(&r);
    }
    s.done()
}

fn fa2_results_target(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    s.flag(fa2_results::looks_like_results(b));
    match fa2_results::read_results("results.json", b) {
        Ok((c, d)) => {
            s.tag(1);
            s.count(c.len());
            s.diags(&d);
        }
        Err(d) => s.diags(&d),
    }
    s.done()
}

fn turns_csv(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    s.flag(fa2_traces::looks_like_turns_csv(b));
    let (convs, diags) = fa2_traces::read_turns_csv("turns.csv", b);
    s.count(convs.len());
    s.diags(&diags);
    let (order, order_diags) = fa2_traces::trace_order_from_csv("summary.csv", b);
    s.count(order.len());
    s.diags(&order_diags);
    s.done()
}

fn qa_jsonl_target(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    s.flag(qa_jsonl::looks_like_qa_jsonl(b));
    let whole = qa_jsonl::read_qa_jsonl("run.jsonl", b);
    match &whole {
        Ok((c, d)) => {
            s.tag(1);
            s.count(c.len());
            s.diags(d);
        }
        Err(d) => s.diags(d),
    }
    // The same bytes fed in pieces, as the CLI and the dashboard's worker stream big files.
    let pieces = cut(b, input.hash());
    let mut reader = qa_jsonl::QaJsonlReader::new("run.jsonl");
    for piece in &pieces {
        reader.feed(piece);
    }
    let streamed = reader.finish();
    if !same_read(&streamed, &whole) {
        return Verdict::Crash(format!(
            "qa_jsonl: the streamed read differs from the whole read\n whole: {}\n streamed: {}",
            summary(&whole),
            summary(&streamed)
        ));
    }
    // The CLI's path for a big file (`numeric_qa::read::QaJsonlStream`, fed its first piece as
    // the head) against the whole file's read, both assembled into a run.
    let (head, rest) = pieces.split_first().unwrap_or((&b, &[]));
    if let Some(mut stream) = qa_read::QaJsonlStream::start("run.jsonl", head) {
        for piece in rest {
            stream.feed(piece);
        }
        let streamed = qa_read::assemble_qa_run("fuzz", vec![stream.finish().read], None);
        let file = InputFile::new("run.jsonl", b.to_vec());
        let read = qa_read::read_file(&file, &mut |_| {});
        let whole = qa_read::assemble_qa_run("fuzz", vec![read], None);
        if !same_read(&streamed, &whole) {
            return Verdict::Crash(format!(
                "qa_jsonl: QaJsonlStream's run differs from read_file's\n whole: {}\n streamed: {}",
                run_summary(&whole),
                run_summary(&streamed)
            ));
        }
    }
    s.done()
}

/// `bytes` cut into pieces at places chosen by `seed` (the input's hash, so a replay cuts them
/// the same way), as the CLI and the dashboard's worker stream big files.
fn cut(bytes: &[u8], seed: u64) -> Vec<&[u8]> {
    let mut rng = crate::rng::Rng::new(seed);
    let mut pieces = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = rng.small_len(rest.len()).min(rest.len());
        let (piece, tail) = rest.split_at(n);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

type ConvRead = Result<
    (
        Vec<evalboard_engine::numeric_qa::model::QaConversation>,
        Vec<Diagnostic>,
    ),
    Vec<Diagnostic>,
>;

/// A read in a line (for a failed check's message).
fn summary(r: &ConvRead) -> String {
    match r {
        Ok((c, d)) => format!(
            "Ok: {} conversations, {} turns, diagnostics {:?}",
            c.len(),
            c.iter().map(|c| c.turns.len()).sum::<usize>(),
            d.iter().map(ToString::to_string).collect::<Vec<_>>()
        ),
        Err(d) => format!(
            "Err: {:?}",
            d.iter().map(ToString::to_string).collect::<Vec<_>>()
        ),
    }
}

fn convfinqa_target(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    s.flag(convfinqa::looks_like_dataset(b));
    match convfinqa::read_dataset("dataset.json", b) {
        Ok(ds) => {
            s.tag(1);
            s.count(ds.conversations.len());
            s.diags(&ds.diagnostics);
            s.count(convfinqa::dataset_index(&ds).len());
        }
        Err(d) => s.diags(&d),
    }
    let report = evalboard_engine::numeric_qa::validate::validate_dataset("dataset.json", b);
    s.tag(report.exit_code() as u64);
    s.done()
}

// ---------------------------------------------------------------------------------------------
// Answers and programs

/// `text` as the value a reader would have made of it: JSON when it parses (so numbers, null
/// and booleans reach the scorers as such), else the string.
fn raw(text: &str) -> RawValue {
    match evalboard_engine::pyrepr::parse_py_json(text.as_bytes()) {
        Ok(v) if !v.is_object() && !v.is_array() => evalboard_engine::pyrepr::raw_from_py_json(&v),
        _ => RawValue::Str(text.to_string()),
    }
}

fn answer_target(input: &Input, _: &Ctx) -> Verdict {
    let text = String::from_utf8_lossy(bytes_of(input));
    let (a, b) = text.split_once('\n').unwrap_or((&text, ""));
    let mut s = Sig::default();
    for (ea, eb) in [
        (raw(a), raw(b)),
        (RawValue::Str(a.into()), RawValue::Str(b.into())),
    ] {
        s.tag(number_class(answer::parse_answer(&ea).value()));
        let v = qa_score::doc::score_answer(&ea, Some(&eb), &Default::default());
        for f in v.flags() {
            s.flag(f);
        }
        for f in qa_score::fa2::calculate_accuracy(&ea, Some(&eb)).flags() {
            s.flag(f);
        }
        s.flag(qa_score::fa2::normalize_value(&ea).is_some());
    }
    s.flag(answer::text_eq(a, b));
    s.flag(evalboard_engine::pyrepr::py_float_parse(a).is_some());
    s.flag(evalboard_engine::evalset::score::answers_match(a, b));
    let _ = evalboard_engine::evalset::score::extract_answer(b);
    let _ = evalboard_engine::evalset::score::normalize_answer(b);
    let gt = qa_score::fa2::parse_ground_truth_operations(a);
    let plan: Vec<&str> = b.split(',').collect();
    s.flag(qa_score::fa2::logic_recall(Some(a), Some(&plan)).is_some());
    s.count(gt.len());
    s.done()
}

fn query_target(input: &Input, _: &Ctx) -> Verdict {
    use evalboard_engine::query::{Doc, Query, Value};
    let text = String::from_utf8_lossy(bytes_of(input));
    let (q, body) = text.split_once('\n').unwrap_or((&text, ""));
    let mut d = Doc::new(evalboard_engine::run_table::ItemKey::text("k"));
    d.push("verdict", Value::Str("wrong".into()));
    d.push("x", Value::Str(body.into()));
    d.push_json("metadata", body);
    d.push_text("error", body);
    d.push_text("output", q);
    let mut s = Sig::default();
    match Query::parse(q) {
        Ok(parsed) => {
            s.flag(parsed.matches(&d));
            s.count(parsed.hits(&d).len());
            s.flag(parsed.needs_messages());
        }
        Err(e) => {
            s.tag(fnv_str(&e.message) & 0xFF);
            if e.at
                > q.chars()
                    .count()
                    .max(evalboard_engine::query::parse::MAX_QUERY_CHARS)
            {
                return Verdict::Crash(format!("error position {} past the query", e.at));
            }
        }
    }
    let masked = evalboard_engine::cohorts::mask(body);
    s.count(masked.len());
    if masked.chars().count() > evalboard_engine::cohorts::MAX_KEY_CHARS + 1 {
        return Verdict::Crash(format!("mask kept {} characters", masked.chars().count()));
    }
    let c = evalboard_engine::cohorts::cohorts(std::slice::from_ref(&d), None);
    s.count(c.cohorts.len());
    s.done()
}

fn finqa_target(input: &Input, _: &Ctx) -> Verdict {
    use finqa_program::Dialect;
    let text = String::from_utf8_lossy(bytes_of(input));
    let mut lines = text.split('\n');
    let gold = lines.next().unwrap_or_default();
    let pred = lines.next().unwrap_or_default();
    let table: Vec<Vec<String>> = lines
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect();
    let mut s = Sig::default();
    s.result(&finqa_program::parse(gold));
    s.count(finqa_program::operations(gold).len());
    for d in [Dialect::ConvFinQa, Dialect::FinQa] {
        s.tag(fnv_str(&finqa_program::execute(gold, &table, d).to_string()) & 0xF);
        s.flag(finqa_program::equal_program(gold, pred, d));
        let tokens: Vec<&str> = gold.split(' ').collect();
        let _ = finqa_program::execute_tokens(&tokens, &table, d);
    }
    s.done()
}

fn fnv_str(s: &str) -> u64 {
    crate::rng::fnv1a(s.as_bytes())
}

/// String leaves of the seed JSON files that are answers or questions: pairs of neighbouring
/// leaves, `expected \n actual`.
fn answer_seeds(seeds: &Seeds) -> Vec<Vec<u8>> {
    let mut leaves = Vec::new();
    for f in seeds.files.iter().filter(|f| is_json_name(&f.name)) {
        json_leaves(&f.bytes, &mut |_, v| {
            if v.len() <= 80 {
                leaves.push(v.to_string());
            }
        });
    }
    leaves
        .chunks(2)
        .take(3000)
        .map(|p| p.join("\n").into_bytes())
        .collect()
}

/// Programs found in the seed JSON (ConvFinQA `turn_program`, FinQA `predicted` token lists),
/// each paired with the next one.
fn program_seeds(seeds: &Seeds) -> Vec<Vec<u8>> {
    let mut programs = Vec::new();
    for f in seeds.files.iter().filter(|f| is_json_name(&f.name)) {
        json_leaves(&f.bytes, &mut |_, v| {
            if v.contains('(') && !finqa_program::operations(v).is_empty() {
                programs.push(v.to_string());
            }
        });
    }
    programs
        .chunks(2)
        .take(3000)
        .map(|p| format!("{}\nrow|1|2\nyear|2019|2020", p.join("\n")).into_bytes())
        .collect()
}

/// Code strings of the seed files (the `code` fields of code-generation traces and vectors).
fn code_seeds(seeds: &Seeds) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for f in &seeds.files {
        json_leaves(&f.bytes, &mut |key, v| {
            if key.contains("code") && !v.is_empty() {
                out.push(v.as_bytes().to_vec());
            }
        });
        if f.name.ends_with(".py") {
            out.push(f.bytes.clone());
        }
    }
    out.truncate(3000);
    out
}

fn is_json_name(name: &str) -> bool {
    name.ends_with(".json") || name.ends_with(".jsonl")
}

/// Calls `each(key, string)` for every string leaf of a JSON document or of each line of a
/// JSONL file; files that are not JSON give nothing.
fn json_leaves(bytes: &[u8], each: &mut dyn FnMut(&str, &str)) {
    fn walk(key: &str, v: &serde_json::Value, each: &mut dyn FnMut(&str, &str), depth: usize) {
        if depth > 64 {
            return;
        }
        match v {
            serde_json::Value::String(s) => each(key, s),
            serde_json::Value::Number(n) => each(key, &n.to_string()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(key, x, each, depth + 1)),
            serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| walk(k, x, each, depth + 1)),
            _ => {}
        }
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) {
        walk("", &v, each, 0);
        return;
    }
    for line in bytes.split(|&b| b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) {
            walk("", &v, each, 0);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Code generation

fn codegen_files(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    for name in ["trace.jsonl", "metrics.json", "metrics_summary.json"] {
        s.tag(codegen::sniff(name, b).map_or(9, |k| k as u64));
    }
    let (msgs, d) = codegen::read::read_trace("trace.jsonl", b, "session");
    s.count(msgs.len());
    s.diags(&d);
    let (m, d) = codegen::read::read_metrics_json("metrics.json", b);
    s.flag(m.is_some());
    s.diags(&d);
    let (m, d) = codegen::read::read_metrics_summary("metrics_summary.json", b);
    s.flag(m.is_some());
    s.diags(&d);
    let (data, d) = codegen::read::read_data_file(&InputFile::new("data.csv", b.to_vec()));
    s.flag(data.columns.is_some());
    s.diags(&d);
    // As a one-file run under the name its content suggests.
    let name = match codegen::sniff("x", b) {
        Some(codegen::CodegenFileKind::MetricsJson) => "s/metrics.json",
        Some(codegen::CodegenFileKind::MetricsSummaryJson) => "s/metrics_summary.json",
        _ => "trace.jsonl",
    };
    let run = codegen::read_codegen_run("fuzz", &[InputFile::new(name, b.to_vec())]);
    s.flag(run.is_usable());
    s.done()
}

/// The code through the syntax check and the whole metric set, once, as a trace message with
/// this code gets it (the check runs inside; the profile is chosen by the input's hash). Once,
/// not per profile: a real message is scored once, and a few MB of code already takes seconds
/// (every pattern of the metric set scans the whole text).
fn python_syntax(input: &Input, _: &Ctx) -> Verdict {
    let code = String::from_utf8_lossy(bytes_of(input)).into_owned();
    let mut s = Sig::default();
    s.flag(codegen::nesting::too_deep(&code).is_some());
    let error = codegen::ExecutionResult {
        kind: "error".into(),
        data: Some(serde_json::Value::String(code.chars().take(2000).collect())),
        execution_time: None,
    };
    let cfg = if input.hash().is_multiple_of(2) {
        codegen::CodegenConfig::default()
    } else {
        codegen::CodegenConfig::ise547()
    };
    let inputs = codegen::EvalInputs {
        timestamp: None,
        model: "m".into(),
        question: code.chars().take(200).collect(),
        csv_file: Some("data.csv".into()),
        columns: vec!["a".into(), "b".into()],
        csv_size_bytes: Some(100),
        code,
        execution_result: error.clone(),
        execution_time: Some(0.5),
        recovery_attempts: Vec::new(),
        first_execution: error,
    };
    let e = codegen::score::calculate_evaluation_metrics(&inputs, &cfg);
    s.tag(fnv_str(&codegen::compare::outcome_text(&e)) & 0xFF);
    s.tag(e.code_correctness.syntax_valid as u64);
    s.count(e.code_correctness.syntax_errors.len());
    s.done()
}

// ---------------------------------------------------------------------------------------------
// Eval sets and eval-tool logs

fn evalset_files(input: &Input, _: &Ctx) -> Verdict {
    let b = bytes_of(input);
    let mut s = Sig::default();
    let items = evalset::read::read_eval_items("eval.jsonl", b);
    s.count(items.items.len());
    s.diags(&items.diagnostics);
    let rep = evalset::validate::validate_evalset("eval.jsonl", b, 1);
    s.tag(rep.exit_code() as u64);
    let kind = evalset::sniff::sniff("x", b);
    s.tag(kind.map_or(99, |k| k as u64));
    let name = match kind {
        Some(evalset::sniff::EvalsetFileKind::EvalSet) => "eval_v1.jsonl",
        Some(evalset::sniff::EvalsetFileKind::EvalSummary) => "eval_summary.json",
        Some(evalset::sniff::EvalsetFileKind::RunManifest) => "run_manifest.json",
        Some(evalset::sniff::EvalsetFileKind::TrainingMetrics) => "training_output/metrics.jsonl",
        _ => "predictions.jsonl",
    };
    let attached = (!items.items.is_empty()).then_some(items.items.as_slice());
    let run = evalset::read::read_evalset_run(&[InputFile::new(name, b.to_vec())], attached);
    s.diags(&run.diagnostics);
    for scorer in [evalset::AnswerScorer::V1, evalset::AnswerScorer::V1Extract] {
        let opts = evalset::ScoringOptions {
            scorer,
            ..Default::default()
        };
        let scored = evalset::score::score_run(&run, &opts);
        s.flag(
            scored
                .scorecard
                .as_ref()
                .is_some_and(|c| c.primary_score.is_some()),
        );
    }
    s.done()
}

fn inspect_eval(input: &Input, _: &Ctx) -> Verdict {
    inspect_log("log.eval", input, evallog::eval_file::read_eval)
}

fn inspect_json(input: &Input, _: &Ctx) -> Verdict {
    inspect_log("log.json", input, evallog::inspect::read_json)
}

type LogRead = Result<(evallog::EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>>;

/// One Inspect log named `name` through `read` (the `.eval` or the `.json` reader).
fn inspect_log(name: &str, input: &Input, read: fn(&InputFile) -> LogRead) -> Verdict {
    let f = InputFile::new(name, bytes_of(input).to_vec());
    let mut s = Sig::default();
    s.tag(evallog::sniff(&f).map_or(99, |k| k as u64));
    match read(&f) {
        Ok((run, d)) => {
            s.tag(1);
            s.count(run.samples.len());
            s.diags(&d);
            conversations(&f, &run, &mut s);
        }
        Err(d) => s.diags(&d),
    }
    s.done()
}

/// The conversations of a read log's first samples, read as the dashboard's worker reads them
/// when a sample is opened (`evallog::messages`: an `.eval` member, a chunked sample's message
/// chunks, a `.json` log's inline sample).
fn conversations(f: &InputFile, run: &evallog::EvalLogRun, s: &mut Sig) {
    use evallog::messages::{self as m, MessagesAt};
    let archive = evallog::archive::Archive::parse(&f.bytes, Default::default()).ok();
    let member = |name: &str| -> Option<Vec<u8>> {
        let a = archive.as_ref()?;
        a.read(a.get(name)?).ok()
    };
    for sample in run.samples.iter().take(4) {
        let got = match m::inspect_messages_at(&f.path, sample) {
            Some(MessagesAt::Member(name)) => member(&name).map(|b| m::inspect_sample_messages(&b)),
            Some(MessagesAt::Chunked { shell, chunks }) => member(&shell).map(|shell| {
                let parts: Vec<(String, Vec<u8>)> = archive
                    .as_ref()
                    .map(|a| a.names())
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|n| n.starts_with(&chunks))
                    .filter_map(|n| Some((n.to_string(), member(n)?)))
                    .collect();
                let refs: Vec<(&str, &[u8])> = parts
                    .iter()
                    .map(|(n, b)| (n.as_str(), b.as_slice()))
                    .collect();
                m::inspect_chunked_sample_messages(&shell, &refs)
            }),
            Some(MessagesAt::JsonLog { id, epoch }) => {
                Some(m::inspect_json_sample_messages(&f.bytes, &id, epoch))
            }
            None => None,
        };
        match got {
            Some(Ok(list)) => {
                s.tag(2);
                s.count(list.len());
            }
            Some(Err(_)) => s.tag(3),
            None => s.tag(4),
        }
    }
}

/// A price for each of `models` (cache reads and reasoning priced apart), as Settings' "Add
/// unpriced models" then a price gives.
fn priced_all(models: Vec<String>) -> PriceTable {
    let price = ModelPrice {
        cache_read_per_mtok: Some(0.5),
        reasoning_per_mtok: Some(9.0),
        ..ModelPrice::new(2.0, 8.0)
    };
    PriceTable {
        models: models.into_iter().map(|m| (m, price.clone())).collect(),
    }
}

fn evallog_folder(input: &Input, _: &Ctx) -> Verdict {
    let input = run_input(&folder_of(input));
    let mut s = Sig::default();
    if let Err(v) = evallog_read(&input.files, &mut s) {
        return v;
    }
    // As the CLI and the dashboard read a folder of several logs: one part per log, each read
    // on its own (lm-eval samples go with the results file they were paired with).
    let lm_eval = |files: &[InputFile]| {
        files.iter().any(|f| {
            matches!(
                evallog::sniff(f),
                Some(
                    evallog::EvalLogFileKind::LmEvalResults
                        | evallog::EvalLogFileKind::LmEvalSamples
                )
            )
        })
    };
    let parts = evallog::score::split_logs(input);
    s.count(parts.len());
    // Only the parts where lm-eval files are paired: the other logs read as they did whole.
    if parts.len() > 1 {
        for part in parts.iter().filter(|p| lm_eval(&p.files)) {
            if let Err(v) = evallog_read(&part.files, &mut s) {
                return v;
            }
        }
    }
    s.done()
}

/// `evallog::read` of `files`: runs, samples, headlines, diagnostics, and every file's status
/// and how it was paired ([`pairing_class`]); `Err` with the crash verdict when billing breaks
/// its contract.
fn evallog_read(files: &[InputFile], s: &mut Sig) -> Result<(), Verdict> {
    match evallog::read(files) {
        Ok(r) => {
            s.tag(1);
            s.count(r.runs.len());
            for run in &r.runs {
                s.count(run.samples.len());
                s.count(run.headlines.len());
                // Billed with no price, then with a price for every model it names: none may
                // stay unpriced, and no cost may be negative or NaN.
                let unpriced = evallog::billing::bill(run, &PriceTable::default()).unpriced_models;
                let b = evallog::billing::bill(run, &priced_all(unpriced));
                let bad = |c: &f64| c.is_nan() || *c < 0.0;
                if b.n_unpriced > 0 || b.samples.iter().any(|x| x.cost.as_ref().is_some_and(bad)) {
                    return Err(Verdict::Crash(format!(
                        "billing: {} samples unpriced, cost {:?}",
                        b.n_unpriced, b.cost
                    )));
                }
                s.flag(b.cost.is_some());
                s.flag(b.cache_hit_ratio().is_some());
            }
            s.diags(&r.diagnostics);
            for f in &r.files {
                s.tag(f.status as u64 * 16 + pairing_class(f.reason.as_deref()));
            }
        }
        Err(e) => s.diags(&e.diagnostics),
    }
    Ok(())
}

/// How an lm-eval file was paired, as a number: its report line's words, without the names.
fn pairing_class(reason: Option<&str>) -> u64 {
    let Some(r) = reason else { return 0 };
    [
        "by its file name",
        "by its rows",
        "by file name only",
        "also record",
        "read instead of",
        "another samples file",
        "fit tasks",
        "no results file records",
        "no samples file matched",
    ]
    .iter()
    .enumerate()
    .filter(|(_, w)| r.contains(*w))
    .fold(1, |acc, (i, _)| acc | 2 << i)
}

/// A samples file read on its own (its rows) and beside a results file of two tasks, under a
/// name that does not say its task: paired by its rows, or said why not.
fn lm_eval_samples(input: &Input, _: &Ctx) -> Verdict {
    const RESULTS: &str = r#"{"results": {"t_gen": {"exact_match,strict-match": 0.5},
        "t_mc": {"acc,none": 1.0, "acc_norm,none": 1.0}}, "configs": {"t_gen": {}, "t_mc": {}},
        "versions": {}, "n-samples": {"t_mc": {"effective": 1}},
        "task_hashes": {"t_gen": "", "t_mc": "4d1e8f4b3bd1d4bf06bd4f8b3e3b2f1a5c4e6f7a8b9c0d1e2f3a4b5c6d7e8f90"}}"#;
    let f = InputFile::new("rows.jsonl", bytes_of(input).to_vec());
    let mut s = Sig::default();
    s.flag(evallog::rows::is_array(&f.bytes));
    let mut diags = Vec::new();
    let mut n = 0usize;
    evallog::rows::each_row(&f, &mut diags, |_, _, _| n += 1);
    s.count(n);
    s.diags(&diags);
    // Beside the results file only as what it is (a hostile seed may be another tool's log).
    if evallog::sniff(&f) == Some(evallog::EvalLogFileKind::LmEvalSamples) {
        if let Err(v) = evallog_read(&[InputFile::new("results.json", RESULTS), f], &mut s) {
            return v;
        }
    }
    s.done()
}

// ---------------------------------------------------------------------------------------------
// Whole run folders

/// A run folder through the registry as every consumer reads it: read (with one of its own
/// files as `--dataset` a quarter of the time), score under a profile, the output files, the
/// HTML report (a third of the time: it is the slow part), and a comparison with itself.
/// Numeric QA runs are also read the CLI's way (each file on its own, then assembled), which
/// must give the same run as the whole-folder read.
fn run_folder(input: &Input, _: &Ctx) -> Verdict {
    let files = folder_of(input);
    let run_in = run_input(&files);
    let choice = input.hash();
    let family = detect_family(&run_in);
    let mut s = Sig::default();
    s.tag(family as u64);

    let reference = match files.get((choice >> 8) as usize % files.len().max(1)) {
        Some((path, bytes)) if choice.is_multiple_of(4) => {
            match Reference::read(family, path, bytes) {
                Ok(r) => r.map(|(r, _)| r),
                Err(e) => {
                    s.diags(&e.diagnostics);
                    None
                }
            }
        }
        _ => None,
    };
    let profiles: &[&str] = match family {
        Family::NumericQa => &["doc", "financial-agent-2"],
        Family::Codegen => &["doc-v1", "ise547"],
        Family::Evalset => &["v1", "v1-extract"],
        Family::EvalLog => &["as-recorded", "match"],
    };
    let profile = profiles[(choice >> 16) as usize % profiles.len()];
    let mut settings = Settings::default();
    if settings.set_profile(family, profile).is_err() {
        return Verdict::Crash(format!("{profile} is not a profile of {family}"));
    }
    let opts = ReadOptions {
        detail: ReadDetail::Full,
        threads: 1,
    };

    if family == Family::NumericQa {
        if let Some(mismatch) = qa_streamed_vs_whole(&run_in, &reference) {
            return Verdict::Crash(mismatch);
        }
    }

    let read = match run::read(&run_in, reference.as_ref(), opts) {
        Ok(r) => r,
        Err(e) => {
            s.tag(2);
            s.diags(&e.diagnostics);
            return s.done();
        }
    };
    let mut scored = run::score(read, &settings, 1 + (choice >> 24) as usize % 2);
    let r = scored.as_ref();
    s.diags(r.diagnostics());
    let (n, m) = r.counts();
    s.count(n);
    s.count(m);
    s.flag(r.headline_value().is_some());
    let _ = (r.meta(), r.profile(), r.size(), r.note());
    let out = evalboard_report::run_outputs(r);
    s.count(out.files.len());
    s.diags(&out.diagnostics);
    // The repeats of the run's items summed up, and the comparison with itself paired as
    // judged or by item (an eval log's epochs reduced by one of Inspect's reducers).
    if let Some(rep) = r.repeats() {
        s.count(rep.n_items as usize);
        s.count(rep.rows().len());
    }
    let pairing = {
        use evalboard_engine::compare::Pairing;
        use evalboard_engine::repeats::Reduction as R;
        match (choice >> 32) % 6 {
            0 | 1 => Pairing::AsJudged,
            2 => Pairing::ByItem(None),
            3 => Pairing::ByItem(Some(R::PassAt(2))),
            4 => Pairing::ByItem(Some(R::AtLeast(1))),
            _ => Pairing::ByItem(Some(R::PassHat(3))),
        }
    };
    let compared = run::CompareSettings {
        pairing,
        ..Default::default()
    };
    match run::compare(r, r, &compared) {
        Ok(c) => {
            s.count(c.stats.n_paired as usize);
            let _ = (c.to_json(), c.reading());
        }
        Err(e) => s.tag(fnv_str(&e.to_string()) & 0xF),
    }
    if choice.is_multiple_of(3) {
        let html = evalboard_report::html::render_report(&evalboard_report::html::ReportInput {
            runs: vec![r],
            baseline: Some(r),
            task_baselines: Vec::new(),
            provenance: Default::default(),
            options: Default::default(),
            human: None,
        });
        s.flag(html.is_empty());
    }
    if choice.is_multiple_of(5) {
        // Re-scored under the family's other profile, as the dashboard's profile switch does.
        let other = profiles[((choice >> 16) as usize + 1) % profiles.len()];
        let mut again = Settings::default();
        if again.set_profile(family, other).is_ok() {
            scored.rescore(&again);
            let _ = evalboard_report::run_outputs(scored.as_ref());
        }
    }
    if choice.is_multiple_of(7) {
        // One of the folder's files read as a price table (`--prices`), then a price for every
        // model still unpriced, as Settings' "Add unpriced models" gives: billed again, no model
        // may stay unpriced.
        let mut priced = settings.clone();
        if let Some((path, bytes)) = files.get((choice >> 12) as usize % files.len().max(1)) {
            match PriceTable::from_json(path, bytes) {
                Ok((table, diags)) => {
                    s.diags(&diags);
                    priced.numeric_qa.prices = table;
                }
                Err(e) => s.tag(fnv_str(&e) & 0xF),
            }
        }
        let unpriced = scored
            .as_ref()
            .unpriced_models_in::<{ run::ALL_FAMILIES }>();
        priced
            .numeric_qa
            .prices
            .models
            .extend(priced_all(unpriced).models);
        scored.rescore(&priced);
        let left = scored
            .as_ref()
            .unpriced_models_in::<{ run::ALL_FAMILIES }>();
        if !left.is_empty() {
            return Verdict::Crash(format!("priced every model, still unpriced: {left:?}"));
        }
        let _ = evalboard_report::run_outputs(scored.as_ref());
    }
    s.done()
}

/// The numeric QA run read file by file the CLI's way (`read_file_owned`, then
/// `assemble_qa_run`) against the whole-folder read (`load_qa_run`, the dashboard's): `Some`
/// with the difference when they disagree.
fn qa_streamed_vs_whole(input: &RunInput, reference: &Option<Reference>) -> Option<String> {
    let dataset = match reference {
        Some(Reference::ConvFinQa(ds)) => Some(ds),
        _ => None,
    };
    let whole = qa_read::load_qa_run(input, dataset);
    let mut sorted = input.files.clone();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let reads = sorted
        .into_iter()
        .map(|f| qa_read::read_file_owned(f, ReadDetail::Full).read)
        .collect();
    let owned = qa_read::assemble_qa_run(&input.name, reads, dataset);
    (!same_read(&whole, &owned)).then(|| {
        format!(
            "numeric QA: the file-by-file read (CLI) differs from the whole-folder read\n \
             whole: {}\n file by file: {}",
            run_summary(&whole),
            run_summary(&owned)
        )
    })
}

/// Two reads of the same bytes are the same: equal, or (for `Ok`) equal as debug text, because
/// a NaN answer (Python's bare `NaN`) is the same read on both paths though `NaN != NaN`.
fn same_read<T: PartialEq + std::fmt::Debug, E: PartialEq>(
    a: &Result<T, E>,
    b: &Result<T, E>,
) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a == b || format!("{a:?}") == format!("{b:?}"),
        (Err(a), Err(b)) => a == b,
        _ => false,
    }
}

type RunRead =
    Result<evalboard_engine::numeric_qa::model::QaRun, evalboard_engine::accounting::LoadError>;

/// A numeric QA run as read, in a line (for a failed check's message).
fn run_summary(r: &RunRead) -> String {
    let lines = |d: &[Diagnostic]| d.iter().map(ToString::to_string).collect::<Vec<_>>();
    match r {
        Ok(run) => format!(
            "Ok: {} conversations, diagnostics {:?}",
            run.conversations.len(),
            lines(&run.diagnostics)
        ),
        Err(e) => format!("Err: {e}: {:?}", lines(&e.diagnostics)),
    }
}

// ---------------------------------------------------------------------------------------------
// The harness's self-test

fn selftest(input: &Input, _: &Ctx) -> Verdict {
    #[allow(unconditional_recursion)]
    fn recurse(n: u64) -> u64 {
        // black_box: the recursion is real (no tail call, no constant folding).
        std::hint::black_box(recurse(std::hint::black_box(n) + 1)) + 1
    }
    match bytes_of(input).first() {
        Some(b'P') => panic!("selftest: a panic"),
        Some(b'A') => std::process::abort(),
        Some(b'S') => Verdict::Ok(vec![recurse(0)]),
        Some(b'O') => {
            // Past the worker's address-space limit: the allocator fails, Rust aborts.
            let v: Vec<u8> = Vec::with_capacity(std::hint::black_box(64usize << 30));
            Verdict::Ok(vec![std::hint::black_box(v).capacity() as u64])
        }
        Some(b'H') => loop {
            std::thread::sleep(std::time::Duration::from_millis(50));
        },
        _ => Verdict::Ok(Vec::new()),
    }
}
