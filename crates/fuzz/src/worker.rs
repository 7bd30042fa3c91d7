//! The worker: the fuzz loop of one target, in a child process the supervisor restarts when it
//! dies. Before each execution the input is written to `<out>/<target>/current`, so an abort
//! (stack overflow, failed allocation) or a hang leaves the input that caused it behind for the
//! supervisor to save. Panics are caught here and saved directly; a watchdog thread ends the
//! process with [`HANG_EXIT`] when one execution runs past the hang limit.
//!
//! Protocol (stdout, one line each): `seeds N`, `stat RUNS NEW_SEEDS`, `finding KIND HASH KEY`
//! (HASH `-` when the input was not saved: the same key was saved often enough), `slowest MS
//! HASH` (a new slowest execution; from 100 ms on its input is kept as `slowest`), `done`.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::input::Input;
use crate::mutate::{mutate_bytes, mutate_folder, Dictionary};
use crate::rng::Rng;
use crate::target::{CliEnv, Ctx, Verdict};
use crate::targets::Target;

/// Exit code of a worker whose watchdog saw an execution run past the hang limit.
pub const HANG_EXIT: i32 = 77;
/// Inputs saved per distinct crash (or hang) key: enough to compare, not thousands of copies of
/// one shallow bug.
const SAVED_PER_KEY: usize = 3;
/// Inputs kept in memory as seeds at most, and their bytes at most (new ones then replace
/// random earlier finds): the worker stays well inside its address-space limit.
const MAX_CORPUS: usize = 20_000;
const MAX_CORPUS_BYTES: usize = 512 << 20;
/// New seeds written to `<out>/<target>/corpus` at most per worker, and their size limit.
const MAX_SAVED_SEEDS: usize = 500;
const MAX_SAVED_SEED_BYTES: usize = 256 << 10;

#[derive(Debug, Clone)]
pub struct WorkerArgs {
    pub target: &'static Target,
    pub seed: u64,
    pub seconds: Option<f64>,
    pub runs: Option<u64>,
    /// `<out>/<target>`.
    pub dir: PathBuf,
    pub root: PathBuf,
    pub hang_secs: u64,
    pub stack_kib: usize,
    pub memory_mib: u64,
    pub evalboard: Option<PathBuf>,
    /// The slowest execution earlier workers of this target saw (ms): `slowest` is only
    /// replaced by a slower input.
    pub slowest_ms: u64,
}

/// The last panic's (key, message), set by the quiet panic hook. A panic in a thread the
/// engine spawned and joined is caught there, but still lands here: it is a crash too.
static LAST_PANIC: Mutex<Option<(String, String)>> = Mutex::new(None);

/// Replaces the default panic hook (which prints every caught panic) by one that records the
/// panic for the fuzz loop to report.
pub fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_else(|| "unknown location".into());
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        let thread = std::thread::current()
            .name()
            .unwrap_or("<unnamed>")
            .to_string();
        let mut slot = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some((
                format!("panic at {location}"),
                format!("thread '{thread}' panicked at {location}:\n{message}"),
            ));
        }
    }));
}

fn take_panic() -> Option<(String, String)> {
    LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Limits the process's address space to `mib` MiB: an allocation bomb then fails inside the
/// allocator (Rust aborts: a crash the supervisor records) instead of swapping the machine.
pub fn limit_memory(mib: u64) {
    #[cfg(unix)]
    {
        use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
        let now = getrlimit(Resource::As);
        let want = mib.saturating_mul(1 << 20);
        let current = Some(now.maximum.map_or(want, |m| m.min(want)));
        let _ = setrlimit(
            Resource::As,
            Rlimit {
                current,
                maximum: now.maximum,
            },
        );
    }
    #[cfg(not(unix))]
    let _ = mib;
}

/// What the watchdog and the loop share.
struct Shared {
    start: Instant,
    /// Milliseconds since `start` (+1) when the running execution began; 0 between executions.
    busy_since: AtomicU64,
    runs: AtomicU64,
    new_seeds: AtomicU64,
    done: AtomicBool,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// A line to the supervisor (stdout is a pipe: flushed at once).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Runs the worker; returns the process exit code.
pub fn run(args: WorkerArgs) -> i32 {
    limit_memory(args.memory_mib);
    install_quiet_panic_hook();
    if std::fs::create_dir_all(&args.dir).is_err() {
        eprintln!("cannot create {}", args.dir.display());
        return 2;
    }
    let shared = Arc::new(Shared {
        start: Instant::now(),
        busy_since: AtomicU64::new(0),
        runs: AtomicU64::new(0),
        new_seeds: AtomicU64::new(0),
        done: AtomicBool::new(false),
    });
    let limit_ms = (args.hang_secs + args.target.slack_secs).saturating_mul(1000);
    let watch = Arc::clone(&shared);
    std::thread::spawn(move || watchdog(&watch, limit_ms));

    let stack = args.stack_kib.saturating_mul(1024);
    let loop_shared = Arc::clone(&shared);
    let fuzz = std::thread::Builder::new()
        .name("fuzz".into())
        .stack_size(stack)
        .spawn(move || fuzz_loop(&args, &loop_shared));
    let ok = match fuzz {
        Ok(h) => h.join().is_ok(),
        Err(e) => {
            eprintln!("cannot start the fuzz thread: {e}");
            false
        }
    };
    shared.done.store(true, Ordering::SeqCst);
    say(&format!(
        "stat {} {}",
        shared.runs.load(Ordering::SeqCst),
        shared.new_seeds.load(Ordering::SeqCst)
    ));
    say("done");
    if ok {
        0
    } else {
        3
    }
}

/// Reports progress four times a second, and ends the process when one execution has run
/// longer than `limit_ms` (the stuck thread cannot be stopped any other way).
fn watchdog(shared: &Shared, limit_ms: u64) {
    let mut last_stat = 0;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        if shared.done.load(Ordering::SeqCst) {
            return;
        }
        let now = shared.now_ms();
        let busy = shared.busy_since.load(Ordering::SeqCst);
        if busy != 0 && now.saturating_sub(busy - 1) > limit_ms {
            say(&format!(
                "stat {} {}",
                shared.runs.load(Ordering::SeqCst),
                shared.new_seeds.load(Ordering::SeqCst)
            ));
            eprintln!("evalboard-fuzz worker: one input ran over {limit_ms} ms");
            std::process::exit(HANG_EXIT);
        }
        if now >= last_stat + 250 {
            last_stat = now;
            say(&format!(
                "stat {} {}",
                shared.runs.load(Ordering::SeqCst),
                shared.new_seeds.load(Ordering::SeqCst)
            ));
        }
    }
}

/// The fuzz loop's state.
struct Loop<'a> {
    args: &'a WorkerArgs,
    shared: &'a Shared,
    ctx: Ctx,
    current: Option<std::fs::File>,
    /// Findings per key (how many were seen).
    keys: HashMap<String, usize>,
    seen: HashSet<u64>,
    saved_seeds: usize,
    deadline: Option<Instant>,
    runs: u64,
    slowest: Duration,
}

fn fuzz_loop(args: &WorkerArgs, shared: &Shared) {
    let target = args.target;
    let all_seeds = crate::seeds::load(&args.root);
    let mut corpus = target.seeds(&all_seeds);
    let corpus_dir = args.dir.join("corpus");
    for (name, bytes) in crate::seeds::read_tree(&corpus_dir) {
        corpus.push(Input::decode(target.is_folder(), &name, &bytes));
    }
    // Seeds that already crashed or hung a worker are not run again (a restarted worker
    // would die on them at once).
    corpus.retain(|i| {
        let h = i.hash();
        !["crash", "hang"]
            .iter()
            .any(|k| args.dir.join(format!("{k}-{h:016x}")).exists())
    });
    if corpus.is_empty() {
        corpus.push(if target.is_folder() {
            Input::Folder(Vec::new())
        } else {
            Input::Bytes(Vec::new())
        });
    }
    say(&format!("seeds {}", corpus.len()));
    let mut dict = Dictionary::harvest(corpus.iter().flat_map(|i| match i {
        Input::Bytes(b) => vec![b.as_slice()],
        Input::Folder(f) => f.iter().map(|(_, b)| b.as_slice()).collect(),
    }));
    let mut names: Vec<String> = corpus
        .iter()
        .filter_map(|i| match i {
            Input::Folder(f) => Some(f.iter().map(|(p, _)| p.clone())),
            Input::Bytes(_) => None,
        })
        .flatten()
        .collect();
    names.sort_unstable();
    names.dedup();
    dict.names = names;

    let mut lp = Loop {
        args,
        shared,
        ctx: Ctx {
            cli: CliEnv {
                evalboard: args.evalboard.clone(),
                scratch: args.dir.join("scratch"),
                timeout: Duration::from_secs(args.hang_secs),
            },
        },
        current: std::fs::File::create(args.dir.join("current")).ok(),
        keys: HashMap::new(),
        seen: HashSet::new(),
        saved_seeds: 0,
        deadline: args
            .seconds
            .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0))),
        runs: 0,
        slowest: Duration::from_millis(args.slowest_ms),
    };

    // Every seed once, as it is: the real files must pass before their mutants mean anything.
    let n_seeds = corpus.len();
    for input in &corpus {
        if !lp.budget_left() {
            return;
        }
        if let Some(features) = lp.exec(input) {
            lp.seen.extend(features);
        }
    }
    let _ = std::fs::create_dir_all(&corpus_dir);
    let mut rng = Rng::new(args.seed);
    let mut corpus_bytes: usize = corpus.iter().map(Input::len).sum();
    while lp.budget_left() {
        // A third of the time a parent among the inputs found in this run (they reached
        // something new), else any.
        let pick = if corpus.len() > n_seeds && rng.one_in(3) {
            rng.range(n_seeds, corpus.len() - 1)
        } else {
            rng.below(corpus.len())
        };
        let Some(parent) = corpus.get(pick) else {
            continue;
        };
        let child = match parent {
            Input::Bytes(b) => {
                let mut data = b.clone();
                let others: Vec<&[u8]> = (0..2)
                    .filter_map(|_| match corpus.get(rng.below(corpus.len())) {
                        Some(Input::Bytes(o)) => Some(o.as_slice()),
                        _ => None,
                    })
                    .collect();
                mutate_bytes(&mut rng, &mut data, &dict, &others);
                Input::Bytes(data)
            }
            Input::Folder(f) => {
                let mut folder = f.clone();
                let pool: Vec<&[u8]> = (0..4)
                    .filter_map(|_| match corpus.get(rng.below(corpus.len())) {
                        Some(Input::Folder(o)) => {
                            o.get(rng.below(o.len())).map(|(_, b)| b.as_slice())
                        }
                        _ => None,
                    })
                    .collect();
                mutate_folder(&mut rng, &mut folder, &dict, &pool);
                Input::Folder(folder)
            }
        };
        if let Some(features) = lp.exec(&child) {
            // Every feature goes into the set (no short cut): the next input is new only for
            // what this one did not show.
            let new = features.into_iter().filter(|f| lp.seen.insert(*f)).count();
            if new > 0 {
                lp.keep(&child, &corpus_dir);
                corpus_bytes += child.len();
                if corpus.len() < MAX_CORPUS && corpus_bytes <= MAX_CORPUS_BYTES {
                    corpus.push(child);
                } else if corpus.len() > n_seeds {
                    let at = rng.range(n_seeds, corpus.len() - 1);
                    if let Some(slot) = corpus.get_mut(at) {
                        corpus_bytes = corpus_bytes.saturating_sub(slot.len());
                        *slot = child;
                    }
                } else {
                    corpus_bytes = corpus_bytes.saturating_sub(child.len());
                }
            }
        }
    }
}

impl Loop<'_> {
    fn budget_left(&self) -> bool {
        self.args.runs.is_none_or(|n| self.runs < n)
            && self.deadline.is_none_or(|d| Instant::now() < d)
    }

    /// Runs the target on `input`; its features when it passed, `None` when it was a finding.
    fn exec(&mut self, input: &Input) -> Option<Vec<u64>> {
        let encoded = input.encode();
        if let Some(f) = &self.current {
            write_current(f, &encoded);
        }
        let target = self.args.target;
        self.shared
            .busy_since
            .store(self.shared.now_ms() + 1, Ordering::SeqCst);
        let t0 = Instant::now();
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| (target.run)(input, &self.ctx)));
        let took = t0.elapsed();
        self.shared.busy_since.store(0, Ordering::SeqCst);
        if took > self.slowest {
            // The slowest input so far, kept: how close a target came to the hang limit, and
            // the input to profile when it came close.
            self.slowest = took;
            say(&format!(
                "slowest {} {:016x}",
                took.as_millis(),
                input.hash()
            ));
            if took >= Duration::from_millis(100) {
                let _ = std::fs::write(self.args.dir.join("slowest"), &encoded);
            }
        }
        self.runs += 1;
        self.shared.runs.store(self.runs, Ordering::SeqCst);
        match (result, take_panic()) {
            (_, Some((key, message))) => self.finding("crash", &key, &message, &encoded, input),
            (Err(_), None) => self.finding("crash", "panic", "a panic", &encoded, input),
            (Ok(Verdict::Crash(message)), None) => {
                self.finding("crash", &key_of(&message), &message, &encoded, input)
            }
            (Ok(Verdict::Hang(message)), None) => {
                self.finding("hang", &key_of(&message), &message, &encoded, input)
            }
            (Ok(Verdict::Ok(features)), None) => return Some(features),
        }
        None
    }

    /// Records a crash or hang: counted always, saved for the first few of each key.
    fn finding(&mut self, kind: &str, key: &str, message: &str, encoded: &[u8], input: &Input) {
        let n = self.keys.entry(key.to_string()).or_insert(0);
        *n += 1;
        if *n > SAVED_PER_KEY {
            say(&format!("finding {kind} - {key}"));
            return;
        }
        let hash = input.hash();
        let name = format!("{kind}-{hash:016x}");
        let _ = std::fs::write(self.args.dir.join(&name), encoded);
        let _ = std::fs::write(
            self.args.dir.join(format!("{name}.txt")),
            format!(
                "target: {}\nkey: {key}\nreplay: evalboard-fuzz --replay {} --target {}\n\n{message}\n",
                self.args.target.name,
                self.args.dir.join(&name).display(),
                self.args.target.name
            ),
        );
        say(&format!("finding {kind} {hash:016x} {key}"));
    }

    /// Keeps an input that reached something new: counted, and saved for later runs when small.
    fn keep(&mut self, input: &Input, dir: &Path) {
        self.shared.new_seeds.fetch_add(1, Ordering::SeqCst);
        if self.saved_seeds < MAX_SAVED_SEEDS && input.len() <= MAX_SAVED_SEED_BYTES {
            self.saved_seeds += 1;
            let _ = std::fs::write(dir.join(format!("{:016x}", input.hash())), input.encode());
        }
    }
}

/// A finding's key: where it panicked (when the message says), else its first line.
pub fn key_of(message: &str) -> String {
    for line in message.lines() {
        if let Some(i) = line.find("panicked at ") {
            let at = line.get(i + 12..).unwrap_or_default();
            return format!("panic at {}", at.trim_end_matches(':'));
        }
        if line.contains("has overflowed its stack") {
            return "stack overflow".into();
        }
        if line.contains("memory allocation of") {
            return "allocation failure".into();
        }
    }
    message
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(120)
        .collect()
}

/// Overwrites `current` with `bytes` (two syscalls: no reopen, no rename; the supervisor only
/// reads it after this process is gone).
fn write_current(f: &std::fs::File, bytes: &[u8]) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let _ = f.set_len(bytes.len() as u64);
        let _ = f.write_all_at(bytes, 0);
    }
    #[cfg(not(unix))]
    let _ = (f, bytes);
}
