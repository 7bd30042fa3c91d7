//! The `cli` target: the CLI end to end. The folder is written to disk, loaded in-process by the
//! CLI's own loader (`evalboard_cli::fsio`, the streamed numeric QA path), and the built
//! `evalboard` binary is run on it (`score`, `validate`, `report`, `diff`). A child that dies of
//! a signal or exits 101 (panic) / 134 (abort) / 137 (killed) is a crash; one that runs past
//! the time limit is a hang; any other exit code is an answer (0, 1 gate, 2 unusable input).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use evalboard_cli::fsio;
use evalboard_engine::numeric_qa::model::ReadDetail;

use crate::input::{Folder, Input};
use crate::target::{Ctx, Sig, Verdict};

/// Profiles `score` is given: each family's, so most runs meet one that is not theirs too.
const PROFILES: &[&str] = &[
    "doc",
    "financial-agent-2",
    "doc-v1",
    "ise547",
    "v1",
    "v1-extract",
];

pub fn run(input: &Input, ctx: &Ctx) -> Verdict {
    let env = &ctx.cli;
    let files: Folder = match input {
        Input::Folder(f) => f.clone(),
        Input::Bytes(b) => vec![("input".to_string(), b.clone())],
    };
    let run_dir = env.scratch.join("run");
    let _ = std::fs::remove_dir_all(&env.scratch);
    if std::fs::create_dir_all(&run_dir).is_err() {
        return Verdict::Ok(Vec::new());
    }
    let written = write_folder(&run_dir, &files);
    let mut s = Sig::default();
    s.count(written.len());

    // In-process: the CLI's loader, as `evalboard score` calls it.
    match fsio::load_run(&run_dir, ReadDetail::Doc) {
        Ok(fsio::Loaded::Qa { name, reads }) => {
            s.tag(1);
            let r = evalboard_engine::numeric_qa::read::assemble_qa_run(&name, reads, None);
            s.result(&r);
        }
        Ok(fsio::Loaded::Other(input)) => {
            s.tag(2);
            s.count(input.files.len());
        }
        Ok(fsio::Loaded::Lake(lake)) => {
            s.tag(4);
            s.count(lake.runs.len());
        }
        Err(_) => s.tag(3),
    }

    let Some(bin) = &env.evalboard else {
        return s.done();
    };
    let choice = input.hash();
    let file = |k: u64| {
        written
            .get((k as usize) % written.len().max(1))
            .cloned()
            .unwrap_or_else(|| run_dir.clone())
    };
    let out = env.scratch.join("out");
    let mut args: Vec<OsString> = Vec::new();
    let mut arg = |a: &dyn AsRef<std::ffi::OsStr>| args.push(a.as_ref().to_os_string());
    match choice % 8 {
        0..=3 => {
            arg(&"score");
            arg(&run_dir);
            arg(&"--out");
            arg(&out);
            arg(&"--json");
            arg(&"--force");
            if (choice >> 8).is_multiple_of(3) {
                arg(&"--profile");
                arg(&PROFILES[(choice >> 12) as usize % PROFILES.len()]);
            }
        }
        4 => {
            arg(&"validate");
            arg(&file(choice >> 8));
            if (choice >> 16).is_multiple_of(2) {
                arg(&"--json");
            }
        }
        5 => {
            arg(&"report");
            arg(&run_dir);
            arg(&"--out");
            arg(&env.scratch.join("report.html"));
            arg(&"--force");
            arg(&"--generated-at");
            arg(&"2025-01-01T00:00:00Z");
        }
        6 => {
            arg(&"diff");
            arg(&run_dir);
            arg(&run_dir);
            arg(&"--json");
            arg(&"--resamples");
            arg(&"50");
        }
        _ => {
            arg(&"score");
            arg(&run_dir);
            arg(&"--dataset");
            arg(&file(choice >> 8));
            arg(&"--json");
        }
    }
    let shown = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let stderr_path = env.scratch.join("stderr");
    let (Ok(stdout), Ok(stderr)) = (
        std::fs::File::create(env.scratch.join("stdout")),
        std::fs::File::create(&stderr_path),
    ) else {
        return s.done();
    };
    let child = Command::new(bin)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .env("RUST_BACKTRACE", "0")
        .spawn();
    let Ok(mut child) = child else {
        return s.done();
    };
    let status = wait_for(&mut child, env.timeout);
    let tail = || {
        let text = std::fs::read(&stderr_path).unwrap_or_default();
        let from = text.len().saturating_sub(4096);
        String::from_utf8_lossy(text.get(from..).unwrap_or_default()).into_owned()
    };
    match status {
        None => Verdict::Hang(format!(
            "evalboard {shown}: still running after {:?}, killed\n{}",
            env.timeout,
            tail()
        )),
        Some(st) if is_crash(&st) => Verdict::Crash(format!("evalboard {shown}: {st}\n{}", tail())),
        Some(st) => {
            s.tag(choice % 8);
            s.tag(st.code().unwrap_or(-1) as u64);
            s.done()
        }
    }
}

/// Died of a signal, or exited as a panic (101) or as a shell reports an abort (134) or a kill
/// (137).
fn is_crash(st: &ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if st.signal().is_some() {
            return true;
        }
    }
    matches!(st.code(), Some(101 | 134 | 137))
}

/// The child's exit status, or `None` (after killing it) when it runs past `timeout`.
fn wait_for(child: &mut std::process::Child, timeout: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    let mut nap = Duration::from_micros(500);
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Some(st),
            Ok(None) => {}
            Err(_) => return None,
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(5));
    }
}

/// Writes the folder's files under `dir`, each path made safe (no `..`, no absolute path, no NUL,
/// components cut to 200 bytes); a file that cannot be written (its name is taken by a folder)
/// is left out. Returns the files written.
fn write_folder(dir: &Path, files: &Folder) -> Vec<PathBuf> {
    let mut written = Vec::new();
    for (rel, bytes) in files {
        let Some(rel) = safe_rel(rel) else { continue };
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        if std::fs::write(&path, bytes).is_ok() {
            written.push(path);
        }
    }
    written
}

fn safe_rel(path: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.split('/') {
        if c.is_empty() || c == "." || c == ".." {
            continue;
        }
        let mut comp = String::new();
        for ch in c.chars().filter(|&ch| ch != '\0') {
            if comp.len() + ch.len_utf8() > 200 {
                break;
            }
            comp.push(ch);
        }
        if !comp.is_empty() {
            out.push(comp);
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_folder() {
        assert_eq!(
            safe_rel("../../etc/passwd"),
            Some(PathBuf::from("etc/passwd"))
        );
        assert_eq!(safe_rel("/abs/x.json"), Some(PathBuf::from("abs/x.json")));
        assert_eq!(safe_rel("a\0b"), Some(PathBuf::from("ab")));
        assert_eq!(safe_rel("./.."), None);
        let long = "é".repeat(300);
        let p = safe_rel(&long).unwrap_or_default();
        assert!(p.as_os_str().len() <= 200);
    }
}
