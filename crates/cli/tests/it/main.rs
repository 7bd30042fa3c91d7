//! The CLI's integration tests, one binary: each runs the real `evalboard` binary on the fixtures.

// Test code: a helper that unwraps fails its test, which is what it is for (#[test] functions
// may unwrap through clippy.toml's allow-unwrap-in-tests; their helpers need this).
#![allow(clippy::unwrap_used)]

mod compare;
mod details;
mod diff;
mod golden;
mod hostile;
mod hostile_corpus;
mod lake;
mod marks;
mod one_answer;
mod query;
mod report;

/// Runs the real binary with `args`: (exit code, stdout, stderr).
fn evalboard<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    evalboard_in(&std::env::current_dir().unwrap(), args)
}

/// [`evalboard`] run in `cwd` (the workspace root, for paths as a user types them).
fn evalboard_in<S: AsRef<std::ffi::OsStr>>(
    cwd: &std::path::Path,
    args: &[S],
) -> (i32, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run evalboard");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs the real binary with `args` as [`evalboard`] does, and gives its peak resident set in
/// bytes too: the kernel's count for that one child (`wait4`), whatever else the tests run.
#[cfg(target_os = "linux")]
fn evalboard_peak<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String, u64) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let stem = std::env::temp_dir().join(format!(
        "eb-peak-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let (out, err) = (stem.with_extension("out"), stem.with_extension("err"));
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("run evalboard");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain integers, all-zero is a valid value; `pid` is this process's own
    // child, reaped here once (the `Child` is dropped without waiting), and both pointers are to
    // locals that outlive the call.
    let (reaped, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::wait4(pid, &mut status, 0, &mut usage), usage)
    };
    drop(child);
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let text = |p: &std::path::Path| {
        let t = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let _ = std::fs::remove_file(p);
        t
    };
    // ru_maxrss is in kilobytes on Linux.
    let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    (code, text(&out), text(&err), peak)
}
