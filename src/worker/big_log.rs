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
use evalboard_engine::evallog::eval_file::{ByteSource, EvalFile, InMemory};
use evalboard_engine::evallog::messages::{Message, MessagesAt};
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
    let size = ByteSource::size(&src);
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
    // The file's own diagnostics give its status, as a full read of the one log gives them.
    let kind = evallog::EvalLogFileKind::InspectEval.label();
    let loaded = evallog::score::one_file_log(name, (path, size, kind), run, diagnostics);
    let mut st = state.borrow_mut();
    let t = now();
    let scored = ScoredRun::EvalLog(Box::new(evallog::score_log(
        loaded,
        &st.settings.evallog,
        st.settings.prices(),
    )));
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

thread_local! {
    /// The `.eval` and `.json` sources of each `Load` that gave eval-log runs (by the `Load`'s
    /// id; a log of a several-log `Load` finds its file under its `part_of`): a sample's
    /// conversation is read again from its file when its drawer opens.
    static LOG_SOURCES: RefCell<HashMap<RunId, Vec<(String, JsValue)>>> = RefCell::new(HashMap::new());
}

/// Keeps the log files among a `Load`'s `sources` when it gave eval-log runs.
pub(crate) fn remember_sources(
    st: &State,
    load_id: RunId,
    paths: &[String],
    sources: &js_sys::Array,
) {
    let logs = st
        .get(load_id)
        .is_some_and(|r| matches!(r.scored, ScoredRun::EvalLog(_)));
    if !logs {
        return;
    }
    let keep: Vec<(String, JsValue)> = paths
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            let p = p.to_ascii_lowercase();
            p.ends_with(".eval") || p.ends_with(".json")
        })
        .map(|(i, p)| (p.clone(), sources.get(i as u32)))
        .collect();
    LOG_SOURCES.with(|s| s.borrow_mut().insert(load_id, keep));
}

/// Forgets what run `id` keeps open (removed, or loaded again).
pub(crate) fn forget(id: RunId) {
    close(id);
    LOG_SOURCES.with(|s| s.borrow_mut().remove(&id));
}

fn source_of(ids: (RunId, Option<RunId>), path: &str) -> Option<JsValue> {
    LOG_SOURCES.with(|s| {
        let s = s.borrow();
        [Some(ids.0), ids.1].into_iter().flatten().find_map(|id| {
            s.get(&id)?
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, v)| v.clone())
        })
    })
}

/// Where sample `sample` of run `ids.0` (a log of `Load` `ids.1`, read from `files`) keeps its
/// conversation, and the file: `None` when it has none to read (another tool's log, a log whose
/// samples came from its summaries, a file no longer at hand).
pub(crate) fn conversation_at(
    ids: (RunId, Option<RunId>),
    files: &[String],
    sample: &evallog::Sample,
) -> Option<(String, MessagesAt)> {
    use evalboard_engine::evallog::messages::inspect_messages_at;
    if let Some(found) = files
        .iter()
        .find_map(|f| Some((f.clone(), inspect_messages_at(f, sample)?)))
    {
        let at_hand =
            source_of(ids, &found.0).is_some() || OPEN.with(|o| o.borrow().contains_key(&ids.0));
        return at_hand.then_some(found);
    }
    // A big log's run from its summaries: the sample's member, by Inspect's naming.
    let SampleKey::Inspect { id, epoch } = &sample.key else {
        return None;
    };
    let open = OPEN.with(|o| o.borrow().get(&ids.0).cloned())?;
    let name = evallog::inspect::sample_member(&open.file.index, id, *epoch)?;
    Some((open.file.path.clone(), MessagesAt::of_member(&name)?))
}

/// Reads the conversation [`conversation_at`] found, from the run's open big log or its file.
pub(crate) async fn conversation(
    ids: (RunId, Option<RunId>),
    (path, at): (String, MessagesAt),
) -> Result<Vec<Message>, String> {
    use evalboard_engine::evallog::messages::inspect_json_sample_messages;
    let gone = || format!("{path} is no longer at hand: drop it again to read the conversation");
    if let MessagesAt::JsonLog { id, epoch } = &at {
        let source = source_of(ids, &path).ok_or_else(gone)?;
        let bytes = whole(&source).await?;
        return inspect_json_sample_messages(&bytes, id, *epoch);
    }
    if let Some(open) = OPEN.with(|o| o.borrow().get(&ids.0).cloned()) {
        let mut src = BlobAt::new(&open.source)
            .ok_or_else(gone)??
            .with_window(256 << 10);
        return from_eval(&mut src, &open.file, &at).await;
    }
    let source = source_of(ids, &path).ok_or_else(gone)?;
    match BlobAt::new(&source) {
        Some(src) => {
            let mut src = src?.with_window(256 << 10);
            let file = EvalFile::open(&mut src, &path)
                .await
                .map_err(first_message)?;
            from_eval(&mut src, &file, &at).await
        }
        None => {
            let bytes = whole(&source).await?;
            let mut src = InMemory(&bytes);
            let file = EvalFile::open(&mut src, &path)
                .await
                .map_err(first_message)?;
            from_eval(&mut src, &file, &at).await
        }
    }
}

/// Every sample's conversation of the `.json` log at `path`, its file read and parsed once
/// (`inspect_json_log_messages`): what a text query reads of a `.json` log, where
/// [`conversation`] would read the whole file for each sample.
#[allow(clippy::type_complexity)]
pub(crate) async fn json_log_conversations(
    ids: (RunId, Option<RunId>),
    path: &str,
) -> Result<HashMap<(evallog::SampleId, u32), Result<Vec<Message>, String>>, String> {
    let gone = || format!("{path} is no longer at hand: drop it again to read the conversation");
    let source = source_of(ids, path).ok_or_else(gone)?;
    let bytes = whole(&source).await?;
    Ok(evallog::messages::inspect_json_log_messages(&bytes)?
        .into_iter()
        .collect())
}

fn first_message(d: Vec<Diagnostic>) -> String {
    d.into_iter()
        .next()
        .map(|d| d.message)
        .unwrap_or_else(|| "the log could not be opened".into())
}

/// A source's bytes whole (a `File`, or the bytes the page held).
async fn whole(source: &JsValue) -> Result<Vec<u8>, String> {
    match BlobAt::new(source) {
        Some(src) => {
            let mut src = src?;
            let size = ByteSource::size(&src);
            src.read_at(0, size).await
        }
        None => super::browser_files::read_source(source, &mut |_| {}),
    }
}

/// A conversation from an `.eval`: one member, or a chunked sample's shell and message chunks.
async fn from_eval<S: ByteSource>(
    src: &mut S,
    file: &EvalFile,
    at: &MessagesAt,
) -> Result<Vec<Message>, String> {
    use evalboard_engine::evallog::messages::{
        inspect_chunked_sample_messages, inspect_sample_messages,
    };
    let missing = |name: &str| format!("the log has no member {name}");
    match at {
        MessagesAt::Member(name) => {
            let bytes = file
                .member(src, name)
                .await
                .ok_or_else(|| missing(name))??;
            inspect_sample_messages(&bytes)
        }
        MessagesAt::Chunked { shell, chunks } => {
            let shell_bytes = file
                .member(src, shell)
                .await
                .ok_or_else(|| missing(shell))??;
            let names: Vec<String> = file
                .index
                .names()
                .into_iter()
                .filter(|n| n.starts_with(chunks.as_str()))
                .map(String::from)
                .collect();
            let mut parts = Vec::with_capacity(names.len());
            for n in names {
                let bytes = file.member(src, &n).await.ok_or_else(|| missing(&n))??;
                parts.push((n, bytes));
            }
            let refs: Vec<(&str, &[u8])> = parts
                .iter()
                .map(|(n, b)| (n.as_str(), b.as_slice()))
                .collect();
            inspect_chunked_sample_messages(&shell_bytes, &refs)
        }
        MessagesAt::JsonLog { .. } => Err("not an .eval member".into()),
    }
}
