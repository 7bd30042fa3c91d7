//! `evalboard-fuzz`: the stable-Rust fuzz harness.
//!
//! ```text
//! evalboard-fuzz [--seconds N] [--runs N] [--targets a,b] [--seed S] [--out DIR]
//! evalboard-fuzz --replay FILE|DIR --target T
//! evalboard-fuzz --list
//! ```
//!
//! Exit codes: 0 nothing found, 1 a crash or hang was found (or a replay failed), 2 bad usage or
//! a target the harness could not run (its output folder or its worker could not be made).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use evalboard_fuzz::input::Input;
use evalboard_fuzz::supervise::{self, Options};
use evalboard_fuzz::target::{CliEnv, Ctx, Verdict};
use evalboard_fuzz::targets::{self, Target};
use evalboard_fuzz::worker::{self, WorkerArgs};

/// evalboard-fuzz — feeds mutated inputs to every reader, run folders and the CLI.
///
/// Seeds are the real files (tests/fixtures, ../shared/data when present, tests/hostile);
/// each target runs in a worker process that is restarted when it dies. Crashes and hangs are
/// saved as <out>/<target>/crash-<hash> / hang-<hash> (with a .txt saying why) and reproduced
/// with --replay.
#[derive(Debug, Parser)]
#[command(name = "evalboard-fuzz", version)]
struct Args {
    /// Total time in seconds, split evenly over the targets [default: 60 unless --runs is given].
    #[arg(long)]
    seconds: Option<f64>,
    /// Executions per target (seeds first, then mutants), instead of or besides --seconds.
    #[arg(long)]
    runs: Option<u64>,
    /// Targets to run, comma-separated [default: every target; --list names them].
    #[arg(long, value_delimiter = ',')]
    targets: Vec<String>,
    /// Seed of the mutation stream (with the same seeds and build, the same inputs).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output folder: per target its findings and kept seeds; summary.json [default:
    /// <root>/fuzz/out].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Project root, where the seeds are [default: this source tree's root].
    #[arg(long)]
    root: Option<PathBuf>,
    /// An input running longer than this many seconds is a hang.
    #[arg(long, default_value_t = 10)]
    hang_seconds: u64,
    /// Stack of the thread the targets run on, in KiB (2 MiB: a native reader thread's).
    #[arg(long, default_value_t = 2048)]
    stack_kib: usize,
    /// Address-space limit of a worker, in MiB: an allocation past it is a crash.
    #[arg(long, default_value_t = 4096)]
    memory_mib: u64,
    /// The `evalboard` binary the `cli` target runs [default: the one next to this binary].
    #[arg(long)]
    evalboard: Option<PathBuf>,
    /// Worker restarts per target before the target is given up.
    #[arg(long, default_value_t = 200)]
    max_restarts: u32,
    /// Reproduce a saved input (a crash-*/hang-* file, any file, or a folder) in-process.
    #[arg(long, requires = "target")]
    replay: Option<PathBuf>,
    /// The target of --replay.
    #[arg(long)]
    target: Option<String>,
    /// List the targets.
    #[arg(long)]
    list: bool,
    /// Internal: run as the worker of --target (started by the supervisor).
    #[arg(long, hide = true)]
    worker: bool,
    /// Internal: the slowest execution an earlier worker of the target saw, in ms.
    #[arg(long, hide = true, default_value_t = 0)]
    slowest_ms: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let root = args.root.clone().unwrap_or_else(default_root);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| root.join("fuzz").join("out"));
    let evalboard = args.evalboard.clone().or_else(sibling_evalboard);

    if args.list {
        for t in targets::all().iter().filter(|t| !t.hidden) {
            println!(
                "{:<16} {}",
                t.name,
                t.about.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
        return ExitCode::SUCCESS;
    }
    let one_target = || -> Option<&'static Target> {
        let name = args.target.as_deref()?;
        let t = targets::find(name);
        if t.is_none() {
            eprintln!("evalboard-fuzz: unknown target {name:?} (see --list)");
        }
        t
    };
    if args.worker {
        let Some(target) = one_target() else {
            return ExitCode::from(2);
        };
        let code = worker::run(WorkerArgs {
            target,
            seed: args.seed,
            seconds: args.seconds,
            runs: args.runs,
            dir: out.join(target.name),
            root,
            hang_secs: args.hang_seconds,
            stack_kib: args.stack_kib,
            memory_mib: args.memory_mib,
            evalboard,
            slowest_ms: args.slowest_ms,
        });
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    if let Some(path) = &args.replay {
        let Some(target) = one_target() else {
            return ExitCode::from(2);
        };
        return replay(path, target, &args, &out, evalboard);
    }

    let mut chosen: Vec<&'static Target> = Vec::new();
    if args.targets.is_empty() {
        chosen.extend(targets::all().iter().filter(|t| !t.hidden));
    } else {
        for name in &args.targets {
            match targets::find(name) {
                Some(t) => chosen.push(t),
                None => {
                    eprintln!("evalboard-fuzz: unknown target {name:?} (see --list)");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let seconds = match (args.seconds, args.runs) {
        (None, None) => Some(60.0),
        (s, _) => s,
    };
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("evalboard-fuzz: cannot create {}: {e}", out.display());
        return ExitCode::from(2);
    }
    for (dir, hostile) in evalboard_fuzz::seeds::roots(&root) {
        let what = if hostile { "hostile corpus" } else { "seeds" };
        let state = if dir.is_dir() {
            ""
        } else {
            " (absent, skipped)"
        };
        println!("{what}: {}{state}", dir.display());
    }
    match &evalboard {
        Some(e) => println!("cli target runs: {}", e.display()),
        None => println!("cli target: no evalboard binary found; only its in-process part runs"),
    }
    let budget = match (seconds, args.runs) {
        (Some(s), Some(n)) => format!("{s}s in all and at most {n} runs per target"),
        (Some(s), None) => format!("{s}s in all"),
        (None, Some(n)) => format!("{n} runs per target"),
        (None, None) => String::new(),
    };
    println!(
        "{} targets, {budget}, seed {}, hang limit {}s, memory limit {} MiB, stack {} KiB; \
         findings in {}",
        chosen.len(),
        args.seed,
        args.hang_seconds,
        args.memory_mib,
        args.stack_kib,
        out.display()
    );
    println!("{}", supervise::header());
    let started = Instant::now();
    let reports = supervise::run_all(&Options {
        seconds,
        runs: args.runs,
        targets: chosen,
        seed: args.seed,
        out: out.clone(),
        root,
        hang_secs: args.hang_seconds,
        stack_kib: args.stack_kib,
        memory_mib: args.memory_mib,
        evalboard,
        max_restarts: args.max_restarts,
    });
    let runs: u64 = reports.iter().map(|r| r.runs).sum();
    let crashes: u64 = reports.iter().map(|r| r.crashes).sum();
    let hangs: u64 = reports.iter().map(|r| r.hangs).sum();
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{:<16} {runs:>9} {:>9.1} {crashes:>8} {hangs:>6} {:>10} {:>6}ms {elapsed:>8.1}",
        "total",
        runs as f64 / elapsed.max(1e-9),
        reports.iter().map(|r| r.new_seeds).sum::<u64>(),
        reports.iter().map(|r| r.slowest_ms).max().unwrap_or(0)
    );
    for r in &reports {
        for note in &r.notes {
            println!("note: {}: {note}", r.name);
        }
        for s in &r.saved {
            println!("saved: {}", out.join(s).display());
        }
    }
    let summary = serde_json::json!({
        "seconds": (elapsed * 10.0).round() / 10.0,
        "seed": args.seed,
        "hang_seconds": args.hang_seconds,
        "memory_mib": args.memory_mib,
        "stack_kib": args.stack_kib,
        "runs": runs,
        "crashes": crashes,
        "hangs": hangs,
        "targets": reports.iter().map(|r| r.to_json()).collect::<Vec<_>>(),
    });
    let path = out.join("summary.json");
    let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, text + "\n") {
        eprintln!("evalboard-fuzz: cannot write {}: {e}", path.display());
    } else {
        println!("summary: {}", path.display());
    }
    let broken: Vec<&str> = reports
        .iter()
        .filter(|r| r.broken)
        .map(|r| r.name.as_str())
        .collect();
    if !broken.is_empty() {
        eprintln!(
            "evalboard-fuzz: the harness could not run {} (see the notes above)",
            broken.join(", ")
        );
        ExitCode::from(2)
    } else if crashes + hangs > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The source tree this binary was built from, when it is still there; else the current folder.
fn default_root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if built.join("Cargo.toml").is_file() {
        built.canonicalize().unwrap_or(built)
    } else {
        PathBuf::from(".")
    }
}

/// `evalboard` built beside this binary (same target folder and profile).
fn sibling_evalboard() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.with_file_name(format!("evalboard{}", std::env::consts::EXE_SUFFIX));
    bin.is_file().then_some(bin)
}

/// Runs `target` on the input saved at `path` in this process (no panic hook: a panic prints
/// its message and backtrace as usual), with the workers' memory and stack limits.
fn replay(
    path: &Path,
    target: &'static Target,
    args: &Args,
    out: &Path,
    evalboard: Option<PathBuf>,
) -> ExitCode {
    let input = if path.is_dir() {
        Input::Folder(evalboard_fuzz::seeds::read_tree(path))
    } else {
        match std::fs::read(path) {
            Ok(bytes) => {
                let name = path
                    .file_name()
                    .map_or("input".into(), |n| n.to_string_lossy().into_owned());
                Input::decode(target.is_folder(), &name, &bytes)
            }
            Err(e) => {
                eprintln!("evalboard-fuzz: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    };
    worker::limit_memory(args.memory_mib);
    let ctx = Ctx {
        cli: CliEnv {
            evalboard,
            scratch: out.join(format!("replay-{}", std::process::id())),
            timeout: Duration::from_secs(args.hang_seconds),
        },
    };
    let scratch = ctx.cli.scratch.clone();
    let run = std::thread::Builder::new()
        .name("replay".into())
        .stack_size(args.stack_kib.saturating_mul(1024))
        .spawn(move || {
            let t0 = Instant::now();
            let v = (target.run)(&input, &ctx);
            (v, t0.elapsed())
        });
    let result = run.map(|h| h.join());
    let _ = std::fs::remove_dir_all(&scratch);
    match result {
        Ok(Ok((verdict, took))) => {
            let secs = took.as_secs_f64();
            match verdict {
                Verdict::Ok(features) => {
                    println!(
                        "{}: ok in {secs:.3}s ({} features)",
                        target.name,
                        features.len()
                    );
                    ExitCode::SUCCESS
                }
                Verdict::Crash(m) => {
                    println!("{}: CRASH in {secs:.3}s\n{m}", target.name);
                    ExitCode::from(1)
                }
                Verdict::Hang(m) => {
                    println!("{}: HANG after {secs:.3}s\n{m}", target.name);
                    ExitCode::from(1)
                }
            }
        }
        Ok(Err(_)) => {
            println!("{}: PANIC (message above)", target.name);
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("evalboard-fuzz: cannot start the replay thread: {e}");
            ExitCode::from(2)
        }
    }
}
