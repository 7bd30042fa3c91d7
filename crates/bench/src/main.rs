//! evalboard benchmarks (native edge): generate synthetic runs, time parse + score + aggregate.
//!
//! `evalboard-bench gen traces N DIR`   — N turns as a financial-agent-2 trace folder
//! `evalboard-bench gen jsonl N FILE`   — N turns as evalboard QA JSONL
//! `evalboard-bench gen history RUNS ITEMS DIR` — a history of RUNS runs of the same ITEMS items
//!                                        (paired keys, one model each, `run-0000` the baseline),
//!                                        one QA JSONL file per run (the scale flow's input)
//! `evalboard-bench time PATH [--threads N]` — read PATH into memory, then time load+score+statistics
//!                                        (files parsed on N threads, default 1 as in wasm) and
//!                                        print one JSON line (turns/s, peak memory / input)
//! `evalboard-bench time PATH --stream`  — load PATH as `evalboard score` does (each file read
//!                                        and parsed at once on every core, big JSONL in blocks,
//!                                        so the input is never in memory whole), then score
//!                                        and aggregate; same JSON line, timings from disk
//! `evalboard-bench query [SAMPLES MESSAGES]` — the query language over a big log's
//!                                        conversations against a bare regex scan (query.rs)
//! `evalboard-bench time LOG.eval [--stream]` — an evaluation-tool log (an Inspect `.eval`):
//!                                        read into memory (timed apart), then read + scored
//!                                        through `engine::run` on one thread as the dashboard's
//!                                        worker does; `--stream` loads it as `evalboard score`
//!                                        does (`fsio::load_run`, `split_logs`, every log read and
//!                                        scored), timings from disk. One JSON line (samples/s,
//!                                        peak memory / input, the members' inflate time apart)

/// The CLI's allocator (see crates/cli/src/main.rs), so the bench measures what the CLI does.
mod query;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use evalboard_engine::family::{detect_family, Family};
use evalboard_engine::input::RunInput;
use evalboard_engine::numeric_qa::aggregate::doc;
use evalboard_engine::numeric_qa::model::ReadDetail;
use evalboard_engine::numeric_qa::read;
use evalboard_engine::numeric_qa::score::{self, ScoreConfig};

/// SplitMix64: tiny deterministic PRNG so generated runs are identical everywhere.
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const QUESTIONS: &[&str] = &[
    "what was the net change in revenue from 2016 to 2017?",
    "and what is that as a percentage of the 2016 value?",
    "what was the weighted average exercise price per share in 2007?",
    "what is the sum of the two years?",
    "and what was the difference between them?",
    "what portion of total expenses does this represent?",
];
const PROGRAMS: &[(&str, &[&str])] = &[
    ("60.94", &[]),
    ("subtract(60.94, 25.14)", &["subtract"]),
    (
        "subtract(60.94, 25.14), divide(#0, 25.14)",
        &["subtract", "divide"],
    ),
    ("add(4241, 2441)", &["add"]),
    (
        "divide(1563, 6482), multiply(#0, const_100)",
        &["divide", "multiply"],
    ),
];

struct Turn {
    question: String,
    expected: String,
    predicted: serde_json::Value,
    program: &'static str,
    plan: Vec<&'static str>,
    prompt: u64,
    completion: u64,
}

fn gen_turn(rng: &mut Rng, i: usize) -> Turn {
    let q = QUESTIONS[rng.below(QUESTIONS.len() as u64) as usize];
    let (program, ops) = PROGRAMS[rng.below(PROGRAMS.len() as u64) as usize];
    let value = (rng.unit() * 2000.0 - 500.0 * rng.unit()).round() / 100.0;
    let pct = rng.below(4) == 0;
    let expected = if pct {
        format!("{value:.1}%")
    } else if rng.below(10) == 0 {
        format!("${:.2}", value.abs() * 100.0)
    } else {
        format!("{value}")
    };
    let r = rng.below(100);
    let predicted = if r < 60 {
        serde_json::json!(if pct { value / 100.0 } else { value })
    } else if r < 70 {
        serde_json::json!(value * 1.004)
    } else if r < 78 {
        serde_json::json!(-value)
    } else if r < 85 {
        serde_json::json!(format!("{value}"))
    } else if r < 90 {
        serde_json::Value::Null
    } else {
        serde_json::json!(value * 3.0 + 1.0)
    };
    let plan = if rng.below(5) == 0 {
        ops.iter().rev().copied().collect()
    } else {
        ops.to_vec()
    };
    Turn {
        question: format!("{q} (#{i})"),
        expected,
        predicted,
        program,
        plan,
        prompt: 900 + rng.below(600),
        completion: 100 + rng.below(200),
    }
}

fn conv_len(rng: &mut Rng) -> usize {
    1 + rng.below(6) as usize
}

/// A synthetic run of `n` turns; conversations and their lengths always come from seed 42, the
/// turns (questions, answers) from `seed`, so two seeds give runs with the same keys to diff.
fn gen_jsonl(n: usize, out: &Path, seed: u64) -> std::io::Result<()> {
    let mut rng = Rng(42);
    let mut other = Rng(seed);
    let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
    let (mut i, mut c) = (0, 0);
    while i < n {
        let len = conv_len(&mut rng).min(n - i);
        let id = format!("Single_SYN/{}/page_{}.pdf-{}", 2000 + c % 20, c, c % 4);
        for t in 0..len {
            let tr = gen_turn(if seed == 42 { &mut rng } else { &mut other }, i);
            let line = serde_json::json!({
                "conversation_id": id, "turn_idx": t, "question": tr.question,
                "expected": tr.expected, "predicted": tr.predicted, "model": "synthetic-1",
                "plan_operations": tr.plan, "ground_truth_program": tr.program,
                "prompt_tokens": tr.prompt, "completion_tokens": tr.completion,
                "features": {"num_dialogue_turns": len, "has_type2_question": c % 3 == 0,
                             "has_duplicate_columns": false, "has_non_numeric_values": c % 5 == 0}
            });
            writeln!(w, "{line}")?;
            i += 1;
        }
        c += 1;
    }
    w.flush()
}

/// A history of `runs` runs over the same `items` items (conversations of 1 to 6 turns, the same
/// keys, questions and expected values in every run), one QA JSONL file per run,
/// `DIR/run-0000.jsonl` … in order: run K is model `model-K` with its own skill (50% to 90%), and
/// whether it answers an item right depends on the item's difficulty and the run's seed, so
/// pairs of runs agree on most items and differ on some (a paired comparison has both kinds of
/// discordant pairs); a wrong answer is sometimes a sign flip or a near miss, so the scorers
/// differ. About 1% of answers are missing (`predicted: null`). Deterministic: the
/// same arguments give the same bytes.
fn gen_history(runs: usize, items: usize, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    // The items: key, question, expected value and difficulty, shared by every run.
    let mut rng = Rng(27);
    let mut keys = Vec::with_capacity(items);
    let mut c = 0usize;
    while keys.len() < items {
        let len = conv_len(&mut rng).min(items - keys.len());
        for t in 0..len {
            let q = QUESTIONS[rng.below(QUESTIONS.len() as u64) as usize];
            let value = (rng.unit() * 20000.0 - 5000.0).round() / 100.0;
            keys.push((c, t, q, value, rng.unit()));
        }
        c += 1;
    }
    for k in 0..runs {
        let mut r = Rng(1_000 + k as u64);
        let skill = 0.5 + 0.4 * r.unit();
        let path = dir.join(format!("run-{k:04}.jsonl"));
        let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
        for (i, &(c, t, q, value, difficulty)) in keys.iter().enumerate() {
            let u = r.unit();
            let predicted = if u < 0.01 {
                serde_json::Value::Null
            } else if 0.7 * r.unit() + 0.3 * difficulty < skill {
                serde_json::json!(value)
            } else {
                // Wrong, in ways the scorers tell apart: a sign flip (right for
                // `sign_agnostic_match`), a near miss (right for the tolerant ones), or plain
                // wrong.
                match r.below(5) {
                    0 => serde_json::json!(-value),
                    1 => serde_json::json!(value * 1.004),
                    _ => serde_json::json!(value * 3.0 + 1.0),
                }
            };
            let line = serde_json::json!({
                "conversation_id": format!("HIST/{c}"), "turn_idx": t,
                "question": format!("{q} (#{i})"), "expected": format!("{value}"),
                "predicted": predicted, "model": format!("model-{k}"),
                "prompt_tokens": 900 + r.below(600), "completion_tokens": 100 + r.below(200),
            });
            writeln!(w, "{line}")?;
        }
        w.flush()?;
    }
    Ok(())
}

fn gen_traces(n: usize, dir: &Path) -> std::io::Result<()> {
    let tdir = dir.join("traces");
    std::fs::create_dir_all(&tdir)?;
    let mut rng = Rng(42);
    let (mut i, mut c) = (0, 0);
    while i < n {
        let len = conv_len(&mut rng).min(n - i);
        let trace_id = format!("{:08x}-0000-4000-8000-{:012x}", c, c);
        let mut turns = Vec::with_capacity(len);
        for t in 0..len {
            let tr = gen_turn(&mut rng, i);
            turns.push(serde_json::json!({
                "turn_idx": t, "question": tr.question, "expected_answer": tr.expected,
                "actual_answer": tr.predicted, "turn_tokens": tr.prompt + tr.completion,
                "prompt_tokens": tr.prompt, "completion_tokens": tr.completion,
                "turn_llm_calls": 1, "turn_tool_calls": 1, "turn_latency_ms": 850.5,
                "plan_type": "workflow", "plan_steps": tr.plan.len() + 1, "plan_complexity": 0.0,
                "validator_retries": 0, "validator_valid": true, "validator_confidence": 0.9,
                "validator_logs": [{"valid": true, "confidence": 0.9, "failed_steps": [], "issues": [], "retry_number": 0}],
                "tools_used": ["workflow_table_tool"],
                "tool_calls": [{"tool_name": "workflow_table_tool", "params": {}, "result": 1.0, "latency_ms": 1.2, "success": true, "error": null}],
                "llm_calls": [{"prompt_tokens": tr.prompt, "completion_tokens": tr.completion, "total_tokens": tr.prompt + tr.completion, "latency_ms": 850.0, "model": "synthetic-1", "purpose": "plan_generation"}],
                "numerical_match": false, "financial_match": false, "soft_match": false,
                "logic_recall": 1.0, "ground_truth_program": tr.program,
                "operations_per_turn": tr.plan.len(), "error_occurred": false, "error_type": null,
                "error_message": null, "error_context": {},
                "timestamp_start": "2026-01-01 00:00:00.000000", "timestamp_end": "2026-01-01 00:00:01.000000"
            }));
            i += 1;
        }
        let trace = serde_json::json!({
            "trace_id": trace_id, "conversation_id": format!("Single_SYN/{}/page_{}.pdf", 2000 + c % 20, c),
            "conversation_type": format!("{}turn_type2{}", len, if c % 3 == 0 { "True" } else { "False" }),
            "num_turns": len, "total_tokens": 0, "total_prompt_tokens": 0, "total_completion_tokens": 0,
            "total_llm_calls": len, "total_tool_calls": len, "total_latency_ms": 1.0, "avg_plan_steps": 1.0,
            "total_validator_retries": 0, "numerical_accuracy": 0.0, "financial_accuracy": 0.0,
            "soft_match_accuracy": 0.0, "avg_logic_recall": 1.0, "avg_operations_per_turn": 1.0,
            "error_occurred": false, "error_type": null, "error_message": null, "failed_turn": null,
            "turns": turns, "timestamp_start": "2026-01-01 00:00:00.000000",
            "timestamp_end": "2026-01-01 00:00:01.000000", "has_type2_question": c % 3 == 0,
            "has_duplicate_columns": false, "has_non_numeric_values": c % 5 == 0
        });
        std::fs::write(
            tdir.join(format!("{trace_id}.json")),
            serde_json::to_string_pretty(&trace)?,
        )?;
        c += 1;
    }
    Ok(())
}

/// Peak resident set size of this process (VmHWM), in bytes.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn rss_now() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// How a bench run gets its input into the engine.
enum Mode {
    /// Read into memory first (timed apart), then parsed on `threads` threads: 1 is what the
    /// wasm worker does, more is the in-memory API on every core.
    InMemory { threads: usize },
    /// Loaded as `evalboard score` loads it ([`evalboard_cli::fsio::load_run`]): each file read
    /// and parsed at once on every core, big JSONL in blocks; the timing includes the reading.
    Stream,
}

/// Times load + score + statistics of PATH and prints one JSON line. Each mode runs in its own
/// process (bench/run.sh), so all pay the same page faults for fresh memory.
fn time(path: &Path, mode: Mode) -> Result<(), String> {
    let base_rss = rss_now().unwrap_or(0);
    let t_read0 = Instant::now();
    let (run, read_s, t0, input_bytes, threads, mode_name) = match mode {
        Mode::InMemory { threads } => {
            // The CLI's reader (every file, on every core).
            let input = evalboard_cli::fsio::read_run(path).map_err(|e| format!("{e:#}"))?;
            let read_s = t_read0.elapsed().as_secs_f64();
            if detect_family(&input) == Family::EvalLog {
                return time_log(path, LogInput::InMemory { input, read_s }, base_rss);
            }
            let input_bytes: u64 = input.files.iter().map(|f| f.bytes.len() as u64).sum();
            let t0 = Instant::now();
            let run =
                // As the dashboard's worker reads (every field kept).
                read::load_qa_run_parallel(&input, None, threads, ReadDetail::Full)
                    .map_err(|e| e.message)?;
            (run, read_s, t0, input_bytes, threads, "in-memory")
        }
        Mode::Stream => {
            let input_bytes = tree_bytes(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let t0 = Instant::now();
            let loaded = evalboard_cli::fsio::load_run(path, ReadDetail::Doc)
                .map_err(|e| format!("{e:#}"))?;
            let (name, reads) = match loaded {
                evalboard_cli::fsio::Loaded::Qa { name, reads } => (name, reads),
                evalboard_cli::fsio::Loaded::Other(input) => {
                    return time_log(path, LogInput::Loaded { input, t0 }, base_rss);
                }
                evalboard_cli::fsio::Loaded::Lake(_) => {
                    return Err(format!("{}: a lake is not a bench input", path.display()));
                }
            };
            let run = read::assemble_qa_run(&name, reads, None).map_err(|e| e.message)?;
            (
                run,
                0.0,
                t0,
                input_bytes,
                evalboard_cli::fsio::threads(),
                "stream",
            )
        }
    };
    let t_parse = t0.elapsed().as_secs_f64();
    // Scored on as many threads as it was parsed (one is what the wasm worker does).
    let scored = score::score_qa_run_parallel(run, &ScoreConfig::default(), threads);
    let t_score = t0.elapsed().as_secs_f64() - t_parse;
    let stats = doc::statistics(&scored);
    let total = t0.elapsed().as_secs_f64();
    let turns = scored.turns.len();
    let peak = peak_rss().unwrap_or(0);
    // Peak memory of the run: peak RSS minus the process before reading (binary, allocator),
    // compared with the input size (in memory mode the input bytes themselves are part of it).
    let engine_peak = peak.saturating_sub(base_rss);
    println!(
        "{}",
        serde_json::json!({
            "path": path.display().to_string(), "mode": mode_name, "turns": turns,
            "input_bytes": input_bytes,
            "read_s": read_s, "parse_s": t_parse, "score_s": t_score,
            "statistics_s": total - t_parse - t_score, "total_s": total,
            "read_plus_total_s": read_s + total, "turns_per_s": turns as f64 / total,
            "threads": threads,
            "peak_rss_bytes": peak, "peak_over_input": engine_peak as f64 / input_bytes.max(1) as f64,
            "numerical_accuracy": stats.numerical_accuracy,
        })
    );
    Ok(())
}

/// How [`time_log`] got the log.
enum LogInput {
    /// Read into memory by the CLI's reader first, in `read_s` (not part of the timing).
    InMemory { input: RunInput, read_s: f64 },
    /// Loaded as `evalboard score` loads a run ([`evalboard_cli::fsio::load_run`]) from `t0`:
    /// the timing includes reading the file.
    Loaded { input: RunInput, t0: Instant },
}

/// Times reading + scoring an evaluation-tool log (an Inspect `.eval`) through `engine::run`
/// and prints one JSON line. In memory, it is read on one thread as the dashboard's worker
/// reads it; loaded, as `evalboard score LOG` does: each log of the input split apart
/// ([`evalboard_engine::evallog::score::split_logs`]), its family detected, read and scored.
/// An eval log is read and scored on one thread either way (its reader has no parallel path).
/// The members' decompression alone is timed afterwards (`inflate_s`, a second pass, outside
/// the peak memory and the total).
fn time_log(path: &Path, how: LogInput, base_rss: u64) -> Result<(), String> {
    use evalboard_engine::run::{self, ReadOptions, Settings};
    let settings = Settings::default();
    let (inputs, read_s, t0, mode, threads) = match how {
        LogInput::InMemory { input, read_s } => {
            (vec![input], read_s, Instant::now(), "in-memory", 1)
        }
        LogInput::Loaded { input, t0 } => (
            evalboard_engine::evallog::score::split_logs(input),
            0.0,
            t0,
            "stream",
            evalboard_cli::fsio::threads(),
        ),
    };
    // The archives' bytes, for the inflate pass below.
    let mut archives: Vec<Vec<u8>> = Vec::new();
    let (mut parse_s, mut score_s) = (0.0, 0.0);
    let (mut samples, mut mismatches, mut diagnostics) = (0usize, 0usize, 0usize);
    let mut headline = None;
    let mut input_bytes = 0u64;
    for input in inputs {
        let t = Instant::now();
        let family = detect_family(&input);
        if family != Family::EvalLog {
            return Err(format!("{}: not an evaluation-tool log", path.display()));
        }
        let read = run::read_as(family, &input, None, ReadOptions::default())
            .map_err(|e| format!("{}: {}", path.display(), e.message))?;
        parse_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let scored = run::score(read, &settings, threads);
        score_s += t.elapsed().as_secs_f64();
        let r = scored.as_ref();
        samples += r.counts().1;
        diagnostics += r.diagnostics().len();
        headline = headline.or(r.headline_value());
        if let run::ScoredRun::EvalLog(l) = &scored {
            mismatches += evalboard_engine::evallog::score::mismatches(&l.log.run).len();
        }
        for f in input.files {
            input_bytes += f.bytes.len() as u64;
            if f.bytes.starts_with(b"PK") {
                archives.push(f.bytes);
            }
        }
    }
    let total = t0.elapsed().as_secs_f64();
    let peak = peak_rss().unwrap_or(0);
    let engine_peak = peak.saturating_sub(base_rss);
    // Decompressing every member alone (ruzstd / miniz_oxide, with the CRC check), as the
    // reader does: what of `parse_s` is inflating rather than JSON.
    let t = Instant::now();
    let (mut members, mut uncompressed) = (0usize, 0u64);
    for bytes in &archives {
        use evalboard_engine::evallog::archive::{Archive, Limits};
        let archive = Archive::parse(bytes, Limits::default())?;
        for name in archive.names() {
            if let Some(e) = archive.get(name) {
                uncompressed += archive.read(e)?.len() as u64;
                members += 1;
            }
        }
    }
    let inflate_s = t.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "path": path.display().to_string(), "family": "eval-log", "mode": mode,
            "samples": samples, "input_bytes": input_bytes,
            "members": members, "uncompressed_bytes": uncompressed,
            "read_s": read_s, "parse_s": parse_s, "score_s": score_s, "total_s": total,
            "read_plus_total_s": read_s + total, "samples_per_s": samples as f64 / total,
            "inflate_s": inflate_s, "threads": threads,
            "peak_rss_bytes": peak, "peak_bytes": engine_peak,
            "peak_over_input": engine_peak as f64 / input_bytes.max(1) as f64,
            "peak_over_uncompressed": engine_peak as f64 / uncompressed.max(1) as f64,
            "headline": headline, "mismatches": mismatches, "diagnostics": diagnostics,
        })
    );
    Ok(())
}

/// Total size of the files under `path` (or of the file).
fn tree_bytes(path: &Path) -> std::io::Result<u64> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(meta.len());
    }
    let mut total = 0;
    for e in std::fs::read_dir(path)? {
        total += tree_bytes(&e?.path())?;
    }
    Ok(total)
}

fn main() {
    // As the CLI does (see there).
    evalboard_cli::memory::small_pages();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", "history", runs, items, out] => match (runs.parse(), items.parse()) {
            (Ok(runs), Ok(items)) => {
                gen_history(runs, items, Path::new(out)).map_err(|e| e.to_string())
            }
            _ => Err("gen history takes RUNS ITEMS DIR (two numbers)".into()),
        },
        ["gen", kind, n, out] => {
            let n: usize = n.parse().unwrap_or(0);
            let out = PathBuf::from(out);
            let r = match *kind {
                "jsonl" => gen_jsonl(n, &out, 42),
                // The same conversations and turns with other answers: a candidate to diff.
                "jsonl-candidate" => gen_jsonl(n, &out, 7),
                "traces" => gen_traces(n, &out),
                // `jsonl-seed-K`: one of many runs with the same keys (`compare`'s bench).
                k if k.starts_with("jsonl-seed-") => match k["jsonl-seed-".len()..].parse() {
                    Ok(seed) => gen_jsonl(n, &out, seed),
                    Err(_) => Err(std::io::Error::other("jsonl-seed-K takes a number K")),
                },
                _ => Err(std::io::Error::other(
                    "kind is jsonl, jsonl-candidate, jsonl-seed-K or traces",
                )),
            };
            r.map_err(|e| e.to_string())
        }
        ["time", path] => time(Path::new(path), Mode::InMemory { threads: 1 }),
        ["time", path, "--stream"] => time(Path::new(path), Mode::Stream),
        ["time", path, "--threads", n] => time(
            Path::new(path),
            Mode::InMemory {
                threads: n.parse().unwrap_or_else(|_| evalboard_cli::fsio::threads()),
            },
        ),
        ["query"] => query::run(20_000, 20),
        ["query", n, m] => query::run(n.parse().unwrap_or(20_000), m.parse().unwrap_or(20)),
        ["query-log", n, m, out] => query::write_log(
            n.parse().unwrap_or(20_000),
            m.parse().unwrap_or(20),
            Path::new(out),
        ),
        ["sizes"] => {
            use evalboard_engine::numeric_qa::model::*;
            println!(
                "QaTurn {} QaConversation {} TurnScore {} RawValue {} Fa2TurnExtra {}",
                std::mem::size_of::<QaTurn>(),
                std::mem::size_of::<QaConversation>(),
                std::mem::size_of::<score::TurnScore>(),
                std::mem::size_of::<RawValue>(),
                std::mem::size_of::<Fa2TurnExtra>()
            );
            Ok(())
        }
        _ => Err(
            "usage: evalboard-bench gen jsonl|traces N OUT | gen history RUNS ITEMS DIR | time PATH [--threads N | --stream] \
             (PATH a run folder, a QA JSONL file or an evaluation-tool log such as an Inspect .eval)"
                .into(),
        ),
    };
    if let Err(e) = r {
        eprintln!("evalboard-bench: {e}");
        std::process::exit(2);
    }
}
