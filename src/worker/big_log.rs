//! A big Inspect `.eval` dropped on its own, read a slice at a time (issue 16.8): the worker reads
//! the archive's end records, central directory, header and `summaries.json` through `File`
//! slices ([`BlobAt`]), scores that run and posts it — the sample table is on screen after a few
//! MB of a log of any size — then reads every sample member in the background, a window at a
//! time, and replaces the run with the full one (outputs, re-scoring), which is the run
//! `evalboard score` gives. The `File` and its directory stay open for the run's life, so a
//! sample's member is read again when its drawer opens ([`member_of`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::JsValue;
use web_sys::DedicatedWorkerGlobalScope;

use evalboard_engine::accounting::{FileStatus, InputFileReport, LoadError};
use evalboard_engine::diag::Diagnostic;
use evalboard_engine::evallog::eval_file::EvalFile;
use evalboard_engine::evallog::{self, EvalLogRun, SampleKey};
use evalboard_engine::run::ScoredRun;
use evalboard_report::html::FileProvenance;

use super::browser_files::BlobAt;
use super::runtime::{now, post_load_failed};
use super::store::Kept;
use super::State;
use crate::protocol::RunId;

/// `.eval` files from this size on are opened from their summaries first; smaller ones are read
/// whole, as before (their table is on screen as fast either way).
pub(crate) const SUMMARIES_FIRST_FROM: u64 = 32 << 20;

/// An open `.eval`: its `File` and its directory.
#[allow(dead_code)] // `source`: read by the sample drawer (wired with its conversation view)
pub(crate) struct Open {
    source: JsValue,
    file: EvalFile,
}

thread_local! {
    static OPEN: RefCell<HashMap<RunId, Rc<Open>>> = RefCell::new(HashMap::new());
}

/// The `.eval` `File` a `Load` of `paths` from `sources` is, when it is one big enough to open
/// from its summaries.
pub(crate) fn wanted(paths: &[String], sources: &js_sys::Array) -> Option<(String, JsValue)> {
    let [path] = paths else {
        return None;
    };
    if !path.to_ascii_lowercase().ends_with(".eval") || sources.length() != 1 {
        return None;
    }
    let source = sources.get(0);
    let blob = wasm_bindgen::JsCast::dyn_ref::<web_sys::Blob>(&source)?;
    (blob.size() >= SUMMARIES_FIRST_FROM as f64).then(|| (path.clone(), source))
}

/// Forgets run `id`'s open file (removed, or loaded again).
pub(crate) fn close(id: RunId) {
    OPEN.with(|o| o.borrow_mut().remove(&id));
}

/// The decompressed bytes of the member holding `key`'s sample in run `id`'s open `.eval`:
/// `None` when the run is not an open `.eval` or has no member for the sample.
#[allow(dead_code)] // the sample drawer's conversation (wired with its view)
pub(crate) async fn member_of(id: RunId, key: &SampleKey) -> Option<Result<Vec<u8>, String>> {
    let SampleKey::Inspect { id: sample, epoch } = key else {
        return None;
    };
    let open = OPEN.with(|o| o.borrow().get(&id).cloned())?;
    let name = evallog::inspect::sample_member(&open.file.index, sample, *epoch)?;
    // A reader of its own (the background read of every sample may hold the other), with a
    // small window: one member, not 8 MB of its neighbours.
    let mut src = match BlobAt::new(&open.source)? {
        Ok(s) => s.with_window(256 << 10),
        Err(e) => return Some(Err(e)),
    };
    open.file.member(&mut src, &name).await
}

/// Loads run `run_id` from the big `.eval` `source` (named `path`): the table from the summaries,
/// then every sample. Other requests are answered between the reads.
pub(crate) async fn load(
    scope: DedicatedWorkerGlobalScope,
    state: Rc<RefCell<State>>,
    (run_id, name, demo): (RunId, String, bool),
    (path, source): (String, JsValue),
) {
    let t0 = now();
    let fail = |diagnostics: Vec<Diagnostic>, size: u64| {
        let reason = diagnostics.first().map(|d| d.message.clone());
        LoadError {
            message: "no evaluation-tool log could be read".into(),
            files: vec![report(&path, size, FileStatus::Skipped, reason)],
            diagnostics,
        }
    };
    let mut src = match BlobAt::new(&source) {
        Some(Ok(s)) => s,
        other => {
            let e = match other {
                Some(Err(e)) => e,
                _ => "not a file (an unexpected message)".to_string(),
            };
            let d = vec![Diagnostic::error(&path, None, e)];
            return post_load_failed(&scope, run_id, name, fail(d, 0));
        }
    };
    let size = evalboard_engine::evallog::eval_file::ByteSource::size(&src);
    let file = match EvalFile::open(&mut src, &path).await {
        Ok(f) => f,
        Err(d) => return post_load_failed(&scope, run_id, name, fail(d, size)),
    };
    let open_ms = now() - t0;
    let open = Rc::new(Open { source, file });
    OPEN.with(|o| o.borrow_mut().insert(run_id, open.clone()));
    let file = &open.file;
    // The table first, from the summaries.
    let mut shown = false;
    if let Some(first) = file.summaries_run(&mut src).await {
        let stages = vec![("directory + summaries".to_string(), now() - t0)];
        match first {
            Ok(run) => {
                keep(
                    &scope,
                    &state,
                    (run_id, &name, demo),
                    (&path, size),
                    run,
                    (t0, stages),
                );
                shown = true;
            }
            Err(d) => {
                close(run_id);
                return post_load_failed(&scope, run_id, name, fail(d, size));
            }
        }
    }
    // Then every sample, a window of the file at a time; stopped when the run is removed.
    let t1 = now();
    let removed = || shown && state.try_borrow().is_ok_and(|s| s.get(run_id).is_none());
    let full = file
        .full_run(&mut src, &mut |_, _| {
            if removed() {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        })
        .await;
    if removed() {
        close(run_id);
        return;
    }
    let stages = vec![
        ("directory".to_string(), open_ms),
        ("sample members".to_string(), now() - t1),
    ];
    match full {
        Ok(run) => keep(
            &scope,
            &state,
            (run_id, &name, demo),
            (&path, size),
            run,
            (t0, stages),
        ),
        Err(d) => {
            close(run_id);
            post_load_failed(&scope, run_id, name, fail(d, size))
        }
    }
}

fn report(path: &str, size: u64, status: FileStatus, reason: Option<String>) -> InputFileReport {
    InputFileReport {
        path: path.to_string(),
        bytes: size,
        format: Some(evallog::EvalLogFileKind::InspectEval.label().to_string()),
        status,
        reason,
    }
}

/// Scores `run` as run `run_id` and posts it: `Loaded` the first time, `Rescored` when it
/// replaces the summaries' run (the page then asks its screens again).
fn keep(
    scope: &DedicatedWorkerGlobalScope,
    state: &Rc<RefCell<State>>,
    (run_id, name, demo): (RunId, &str, bool),
    (path, size): (&str, u64),
    (run, diagnostics): (EvalLogRun, Vec<Diagnostic>),
    (t0, stage_ms): (f64, Vec<(String, f64)>),
) {
    let own: Vec<Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.file == path)
        .cloned()
        .collect();
    let (status, reason) = evalboard_engine::accounting::status_of(&own);
    let loaded = evallog::LoadedLog {
        name: name.to_string(),
        run,
        files: vec![report(path, size, status, reason)],
        diagnostics,
    };
    let mut st = state.borrow_mut();
    let t = now();
    let scored = ScoredRun::EvalLog(Box::new(evallog::score_log(loaded, &st.settings.evallog)));
    let mut stage_ms = stage_ms;
    stage_ms.push(("score".into(), now() - t));
    let kept = Kept {
        id: run_id,
        name: name.to_string(),
        demo,
        scored,
        load_ms: now() - t0,
        stage_ms,
        // Not hashed: a big log is read a slice at a time, never whole.
        provenance: vec![FileProvenance {
            run: name.to_string(),
            path: path.to_string(),
            bytes: size,
            sha256: "not computed: a big log is read a slice at a time, never whole".into(),
        }],
        part_of: None,
    };
    if st.get(run_id).is_some() {
        st.replace(scope, kept);
    } else {
        st.keep(scope, kept);
    }
}
