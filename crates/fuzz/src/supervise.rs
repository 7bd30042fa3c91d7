//! The supervisor: runs each target's worker process for its share of the time (or runs),
//! restarts it when it dies, saves the input that killed it (`crash-<hash>`) or hung it
//! (`hang-<hash>`), and adds up runs, crashes, hangs and new seeds per target.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::rng::fnv1a;
use crate::targets::Target;
use crate::worker::{key_of, HANG_EXIT};

/// How the targets are run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Total seconds, split evenly over the targets.
    pub seconds: Option<f64>,
    /// Executions per target.
    pub runs: Option<u64>,
    pub targets: Vec<&'static Target>,
    pub seed: u64,
    pub out: PathBuf,
    pub root: PathBuf,
    pub hang_secs: u64,
    pub stack_kib: usize,
    pub memory_mib: u64,
    pub evalboard: Option<PathBuf>,
    /// Worker restarts per target before it is given up (a shallow abort would otherwise
    /// restart the worker for the whole budget).
    pub max_restarts: u32,
}

/// What one target's run found.
#[derive(Debug, Clone, Default)]
pub struct TargetReport {
    pub name: String,
    pub seconds: f64,
    pub runs: u64,
    pub seeds: u64,
    pub new_seeds: u64,
    pub crashes: u64,
    pub hangs: u64,
    pub restarts: u32,
    /// The slowest execution, in milliseconds (how far below the hang limit the target stayed).
    pub slowest_ms: u64,
    /// Distinct crash / hang keys (panic location, stack overflow, allocation failure, …).
    pub keys: BTreeSet<String>,
    /// Files saved (`crash-*`, `hang-*`), relative to the output folder.
    pub saved: Vec<String>,
    pub notes: Vec<String>,
    /// The harness could not run the target as asked (its folder or its worker could not be
    /// made): the run exits 2, whatever else it found.
    pub broken: bool,
}

impl TargetReport {
    pub fn execs_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.runs as f64 / self.seconds
        } else {
            0.0
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "target": self.name,
            "seconds": (self.seconds * 10.0).round() / 10.0,
            "runs": self.runs,
            "execs_per_sec": (self.execs_per_sec() * 10.0).round() / 10.0,
            "seeds": self.seeds,
            "new_seeds": self.new_seeds,
            "crashes": self.crashes,
            "hangs": self.hangs,
            "restarts": self.restarts,
            "slowest_ms": self.slowest_ms,
            "distinct": self.keys.iter().collect::<Vec<_>>(),
            "saved": self.saved,
            "notes": self.notes,
            "broken": self.broken,
        })
    }
}

/// Runs every target in turn; prints a line per target as it ends.
pub fn run_all(opts: &Options) -> Vec<TargetReport> {
    let n = opts.targets.len().max(1) as f64;
    let share = opts.seconds.map(|s| s / n);
    let mut reports = Vec::new();
    for target in &opts.targets {
        let r = run_target(opts, target, share);
        println!("{}", row(&r));
        reports.push(r);
    }
    reports
}

pub fn header() -> String {
    format!(
        "{:<16} {:>9} {:>9} {:>8} {:>6} {:>10} {:>8} {:>8}",
        "target", "runs", "execs/s", "crashes", "hangs", "new seeds", "slowest", "seconds"
    )
}

pub fn row(r: &TargetReport) -> String {
    format!(
        "{:<16} {:>9} {:>9.1} {:>8} {:>6} {:>10} {:>6}ms {:>8.1}{}",
        r.name,
        r.runs,
        r.execs_per_sec(),
        r.crashes,
        r.hangs,
        r.new_seeds,
        r.slowest_ms,
        r.seconds,
        if r.keys.is_empty() {
            String::new()
        } else {
            format!(
                "  {}",
                r.keys.iter().cloned().collect::<Vec<_>>().join("; ")
            )
        }
    )
}

/// What a worker said last.
#[derive(Debug, Default)]
struct Heard {
    runs: u64,
    new_seeds: u64,
    done: bool,
}

fn run_target(opts: &Options, target: &'static Target, share: Option<f64>) -> TargetReport {
    let dir = opts.out.join(target.name);
    let mut report = TargetReport {
        name: target.name.to_string(),
        ..Default::default()
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        report
            .notes
            .push(format!("cannot create {}: {e}", dir.display()));
        report.broken = true;
        return report;
    }
    if target.name == "cli" && opts.evalboard.is_none() {
        report.notes.push(
            "no evalboard binary next to the harness (build evalboard-cli too): only the \
             in-process loader ran"
                .into(),
        );
    }
    let start = Instant::now();
    let deadline = share.map(|s| start + Duration::from_secs_f64(s.max(0.0)));
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("evalboard-fuzz"));
    loop {
        let seconds_left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let runs_left = opts.runs.map(|n| n.saturating_sub(report.runs));
        if seconds_left.is_some_and(|s| s < Duration::from_millis(50)) || runs_left == Some(0) {
            break;
        }
        if report.restarts > opts.max_restarts {
            report.notes.push(format!(
                "given up after {} worker restarts",
                opts.max_restarts
            ));
            break;
        }
        let seed = opts.seed ^ fnv1a(target.name.as_bytes()) ^ u64::from(report.restarts);
        let mut cmd = Command::new(&exe);
        cmd.arg("--worker")
            .arg("--target")
            .arg(target.name)
            .arg("--seed")
            .arg(seed.to_string())
            .arg("--out")
            .arg(&opts.out)
            .arg("--root")
            .arg(&opts.root)
            .arg("--hang-seconds")
            .arg(opts.hang_secs.to_string())
            .arg("--stack-kib")
            .arg(opts.stack_kib.to_string())
            .arg("--memory-mib")
            .arg(opts.memory_mib.to_string())
            .arg("--slowest-ms")
            .arg(report.slowest_ms.to_string());
        if let Some(s) = seconds_left {
            cmd.arg("--seconds").arg(format!("{:.3}", s.as_secs_f64()));
        }
        if let Some(n) = runs_left {
            cmd.arg("--runs").arg(n.to_string());
        }
        if let Some(e) = &opts.evalboard {
            cmd.arg("--evalboard").arg(e);
        }
        let stderr_path = dir.join("worker.stderr");
        let stderr = match std::fs::File::create(&stderr_path) {
            Ok(f) => Stdio::from(f),
            Err(_) => Stdio::null(),
        };
        let mut child = match cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                report.notes.push(format!("cannot start a worker: {e}"));
                report.broken = true;
                break;
            }
        };
        let (tx, rx) = mpsc::channel::<String>();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        // A worker that says nothing for this long is stuck beyond its own watchdog.
        let silence = Duration::from_secs(opts.hang_secs + target.slack_secs + 20);
        let mut heard = Heard::default();
        let mut last_heard = Instant::now();
        let mut silent = false;
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(line) => {
                    last_heard = Instant::now();
                    hear(&line, &mut heard, &mut report, target.name);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if last_heard.elapsed() > silence {
                        let _ = child.kill();
                        silent = true;
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait();
        report.runs += heard.runs;
        report.new_seeds += heard.new_seeds;
        let stderr_text = std::fs::read(&stderr_path).unwrap_or_default();
        let stderr_text = String::from_utf8_lossy(&stderr_text).into_owned();
        match status {
            Ok(st) if !silent && st.code() == Some(0) && heard.done => break,
            Ok(st) if !silent && st.code() == Some(HANG_EXIT) => {
                report.runs += 1;
                let msg =
                    format!("the worker's watchdog: one input ran over the limit\n{stderr_text}");
                record(
                    &dir,
                    target.is_folder(),
                    &mut report,
                    "hang",
                    &format!("hang over {}s", opts.hang_secs),
                    &msg,
                );
            }
            Ok(st) if !silent => {
                report.runs += 1;
                let key = match key_of(&stderr_text) {
                    k if k.is_empty() => format!("worker {st}"),
                    k => format!("{k} ({st})"),
                };
                record(
                    &dir,
                    target.is_folder(),
                    &mut report,
                    "crash",
                    &key,
                    &format!("worker {st}\n{stderr_text}"),
                );
            }
            _ => {
                record(
                    &dir,
                    target.is_folder(),
                    &mut report,
                    "hang",
                    "worker silent",
                    &stderr_text,
                );
            }
        }
        report.restarts += 1;
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// Takes in one line of a worker.
fn hear(line: &str, heard: &mut Heard, report: &mut TargetReport, target: &str) {
    let mut parts = line.splitn(4, ' ');
    match parts.next() {
        Some("stat") => {
            let mut num = || parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
            heard.runs = num();
            heard.new_seeds = num();
        }
        Some("seeds") => {
            report.seeds = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
        }
        Some("finding") => {
            let kind = parts.next().unwrap_or_default();
            let hash = parts.next().unwrap_or("-");
            let key = parts.next().unwrap_or_default();
            if kind == "hang" {
                report.hangs += 1;
            } else {
                report.crashes += 1;
            }
            report.keys.insert(key.to_string());
            if hash != "-" {
                report.saved.push(format!("{target}/{kind}-{hash}"));
            }
        }
        Some("slowest") => {
            let ms = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
            report.slowest_ms = report.slowest_ms.max(ms);
        }
        Some("done") => heard.done = true,
        _ => {}
    }
}

/// Saves the worker's `current` input as `<kind>-<hash>` (with what killed it beside it).
fn record(
    dir: &Path,
    folder: bool,
    report: &mut TargetReport,
    kind: &str,
    key: &str,
    message: &str,
) {
    if kind == "hang" {
        report.hangs += 1;
    } else {
        report.crashes += 1;
    }
    report.keys.insert(key.to_string());
    let Ok(bytes) = std::fs::read(dir.join("current")) else {
        report
            .notes
            .push(format!("{kind} ({key}): the input was not found"));
        return;
    };
    // Named by the same hash the worker uses for inputs, so a restarted worker skips it.
    let hash = crate::input::Input::decode(folder, "input", &bytes).hash();
    let name = format!("{kind}-{hash:016x}");
    let _ = std::fs::write(dir.join(&name), &bytes);
    let tail_from = message.len().saturating_sub(8192);
    let tail = message.get(tail_from..).unwrap_or(message);
    let _ = std::fs::write(
        dir.join(format!("{name}.txt")),
        format!(
            "target: {}\nkey: {key}\nreplay: evalboard-fuzz --replay {} --target {}\n\n{tail}\n",
            report.name,
            dir.join(&name).display(),
            report.name
        ),
    );
    report.saved.push(format!("{}/{name}", report.name));
}
