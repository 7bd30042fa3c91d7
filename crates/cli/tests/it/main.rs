//! The CLI's integration tests, one binary: each runs the real `evalboard` binary on the fixtures.

// Test code: a helper that unwraps fails its test, which is what it is for (#[test] functions
// may unwrap through clippy.toml's allow-unwrap-in-tests; their helpers need this).
#![allow(clippy::unwrap_used)]

mod diff;
mod golden;
mod hostile;
mod hostile_corpus;
mod one_answer;
mod report;

/// Runs the real binary with `args`: (exit code, stdout, stderr).
fn evalboard<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(args)
        .output()
        .expect("run evalboard");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
