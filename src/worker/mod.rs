//! The main Web Worker: owns the engine and every numeric-QA, eval-set and evaluation-tool-log run, answers the page's
//! requests ([`start`], then one dispatch per message), and hands code-generation runs to their
//! own worker (`codegen_host`). Reading and scoring happen here so the page never freezes.

mod big_log;
pub mod browser_files;
pub(crate) mod intake;
pub(crate) mod keep;
mod marks_store;
mod query_read;
pub(crate) mod runtime;
pub(crate) mod store;
pub(crate) mod sub;
mod watch;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::{read, score, views};
use evalboard_engine::run::{self, FamilySet, ReadOptions, ScoredRun};

use crate::charts;
use crate::protocol::{ReqId, Request, Response, RunId, ScreenQuery};
use evalboard_report::html::FileProvenance;
use intake::{all_buffers, provenance, read_buffers, read_files, Taken};
use runtime::{
    decode_or_report, listen, no_run, now, post, post_load_failed, post_progress, QUIET,
};
use store::{Kept, RunStore};

/// The families this worker reads and scores (code generation goes to its own worker).
const FAMILIES: FamilySet = Family::NumericQa.bit() | Family::Evalset.bit() | Family::EvalLog.bit();

type State = RunStore<FAMILIES>;

/// The runs the code-generation worker holds, by name (it answers comparisons of its own runs;
/// here they are one side of a comparison with another family at most).
fn elsewhere(ids: &[RunId]) -> Vec<(RunId, String, Family)> {
    ids.iter()
        .filter_map(|id| Some((*id, crate::codegen_host::run_name(*id)?, Family::Codegen)))
        .collect()
}

/// Entry point of the worker binary.
/// The content ids of the runs loaded, in this worker and in the code-generation worker: an
/// imported marks file's other runs are named as not loaded.
fn loaded_ids(state: &State) -> Vec<String> {
    let mut ids = state.content_ids();
    ids.extend(crate::codegen_host::content_ids());
    ids
}

pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
    let on_message = state.clone();
    let scope = listen(move |scope, e| handle(scope, &on_message, e));
    warm_up(&scope, &state);
    // Human review: this worker keeps the marks (read from the browser's storage).
    crate::review::enable();
    wasm_bindgen_futures::spawn_local(marks_store::load(scope.clone()));
    post(&scope, &Response::Ready);
    // The runs kept from earlier visits (a browser without storage keeps none).
    let s = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let runs = keep::list().await.unwrap_or_default();
        post(&s, &Response::Stored { runs });
        // The folders watched in an earlier visit (the page watches each again).
        watch::list(&s).await;
    });
}

/// Loads the warm-up run (src/warmup.rs) through the Load path, silently, and forgets it.
/// The warm-up run's id.
const WARM_UP_ID: RunId = RunId::MAX;

fn warm_up(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>) {
    let bytes = crate::warmup::warm_up_jsonl(crate::warmup::WARM_UP_TURNS);
    let load = Request::Load {
        run_id: WARM_UP_ID,
        name: "warm-up".into(),
        paths: vec!["warm-up/run.jsonl".into()],
        demo: false,
        stored: None,
    };
    let buffers = Array::of1(&Uint8Array::from(bytes.as_slice()).buffer());
    QUIET.with(|q| q.set(true));
    handle_request(scope, state, load, buffers, &JsValue::UNDEFINED);
    QUIET.with(|q| q.set(false));
    state.borrow_mut().remove(WARM_UP_ID);
}

fn handle(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, e: MessageEvent) {
    let data = e.data();
    let Some((req, buffers)) = decode_or_report(scope, &data) else {
        return;
    };
    handle_request(scope, state, req, buffers, &data);
}

fn handle_request(
    scope: &DedicatedWorkerGlobalScope,
    state: &Rc<RefCell<State>>,
    req: Request,
    buffers: Array,
    data: &JsValue,
) {
    // A removed run's kept copy goes, whichever worker holds the run.
    // A log of a folder of several is kept with the folder: its name is noted as removed in the
    // folder's copy, which goes with the last of its runs.
    if let Request::Remove { run_id } = &req {
        big_log::forget(*run_id);
        let part = state.borrow().part(*run_id);
        // A watched folder's run, or one log of a watched folder of several: the watch stops.
        watch::stop(part.as_ref().map_or(*run_id, |(parent, ..)| *parent), true);
        match part {
            Some((parent, name, others)) if others > 0 => {
                wasm_bindgen_futures::spawn_local(keep::drop_part(parent, name))
            }
            Some((parent, ..)) if keep::is_kept(parent) => {
                wasm_bindgen_futures::spawn_local(keep::forget(parent))
            }
            Some(_) => {}
            None if keep::is_kept(*run_id) => {
                wasm_bindgen_futures::spawn_local(keep::forget(*run_id))
            }
            None => {}
        }
    }
    // New settings: each watch reads what it holds again under them.
    if let Request::Configure { settings } = &req {
        watch::configure::<FAMILIES>(settings);
    }
    // Human review: the marks are kept here, for the runs this worker holds.
    let req = match req {
        Request::Mark {
            run_id,
            key,
            field,
            value,
        } => {
            let run = state
                .borrow()
                .get(run_id)
                .map(|k| (k.content_id(), k.name.clone()))
                .or_else(|| crate::codegen_host::marked_run(run_id));
            return marks_store::mark(scope, run, run_id, &key, (&field, &value));
        }
        Request::ImportMarks { file, text } => {
            let loaded = loaded_ids(&state.borrow());
            let (error, text) =
                crate::review::with_mut(|set| crate::review::import(set, &file, &text, &loaded));
            marks_store::save(scope);
            let message = Some((error, text));
            return post(
                scope,
                &Response::Marked {
                    message,
                    drop: None,
                },
            );
        }
        Request::Export { req, run_id, file } if file == crate::review::FILE => {
            let text = crate::review::with(evalboard_engine::marks::MarkSet::to_jsonl);
            return post(
                scope,
                &Response::Export {
                    req,
                    run_id,
                    file,
                    text,
                },
            );
        }
        req => req,
    };
    // Code-generation runs live in their own worker (it carries the Python parser).
    if crate::codegen_host::route(&req, data) {
        return;
    }
    // Runs read from a results lake live in the lake worker (it carries the Parquet reader).
    if crate::lake_host::route(&req, data) {
        return;
    }
    match req {
        // A kept run: its files come from the browser's storage, then it loads like a drop.
        Request::Load {
            run_id,
            name,
            paths,
            demo,
            stored: Some(key),
        } => {
            let (scope, state) = (scope.clone(), state.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match keep::sources(&key, paths.len()).await {
                    Ok(sources) => {
                        keep::remember(run_id, key);
                        let load = Request::Load {
                            run_id,
                            name,
                            paths,
                            demo,
                            stored: None,
                        };
                        handle_request(&scope, &state, load, sources, &JsValue::UNDEFINED);
                    }
                    Err(e) => post(
                        &scope,
                        &Response::LoadFailed {
                            run_id,
                            name,
                            error: format!(
                                "This run was kept in the browser's storage, but its files could \
                                 not be read there ({e}): drop its folder again."
                            ),
                            files: Vec::new(),
                            diagnostics: Vec::new(),
                            part_of: None,
                        },
                    ),
                }
            });
        }
        // One `.jsonl` dropped or picked: a marks sidecar is imported, not loaded as a run.
        Request::Load {
            run_id,
            name,
            paths,
            demo: false,
            stored: None,
        } if run_id != WARM_UP_ID
            && marks_store::may_be_marks(&paths)
            && marks_store::may_hold_marks(&buffers.get(0))
            && !marks_store::SNIFFED.with(|s| s.get()) =>
        {
            // Not the warm-up run: its load must finish before `warm_up` returns (quiet, then
            // removed); sniffed, it finished later, told the page and stayed in the store.
            let (scope, state) = (scope.clone(), state.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let source = buffers.get(0);
                if let Some(text) = marks_store::marks_text(&source).await {
                    let loaded = loaded_ids(&state.borrow());
                    let file = paths.first().cloned().unwrap_or_default();
                    let file = file.rsplit('/').next().unwrap_or_default().to_string();
                    let (error, text) = crate::review::with_mut(|set| {
                        crate::review::import(set, &file, &text, &loaded)
                    });
                    marks_store::save(&scope);
                    let message = Some((error, text));
                    return post(
                        &scope,
                        &Response::Marked {
                            message,
                            drop: Some(run_id),
                        },
                    );
                }
                let load = Request::Load {
                    run_id,
                    name,
                    paths,
                    demo: false,
                    stored: None,
                };
                marks_store::SNIFFED.with(|s| s.set(true));
                handle_request(&scope, &state, load, buffers, &JsValue::UNDEFINED);
                marks_store::SNIFFED.with(|s| s.set(false));
            });
        }
        Request::Load {
            run_id,
            name,
            paths,
            demo,
            stored: None,
        } => {
            big_log::forget(run_id);
            // A results lake: read by the lake worker, its files unread here.
            if crate::lake_host::wanted(run_id, &paths) {
                return crate::lake_host::load(scope, (run_id, name), data);
            }
            if let Some(big) = big_log::wanted(&paths, &buffers) {
                // A big `.eval`: its table from the summaries, read through `File` slices.
                let (scope, state) = (scope.clone(), state.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let load = (run_id, name.clone(), demo);
                    big_log::load(scope.clone(), state.clone(), load, big).await;
                    let loaded = state.borrow().get(run_id).is_some();
                    if loaded && !demo && !keep::is_kept(run_id) {
                        keep_run(&scope, run_id, &name, &paths, &buffers).await;
                    }
                });
                return;
            }
            if let Some(error) = intake::memory_refusal(intake::sources_size(&buffers)) {
                post(
                    scope,
                    &Response::LoadFailed {
                        run_id,
                        name,
                        error,
                        files: Vec::new(),
                        diagnostics: Vec::new(),
                        part_of: None,
                    },
                );
            } else if all_buffers(&buffers) {
                // Bytes the page held: the demo's assets, or a run of many files it read.
                let kept_paths = paths.clone();
                let hash_later = !demo && run_id != WARM_UP_ID;
                let taken = read_buffers(scope, run_id, paths, &buffers, hash_later);
                let unhashed = load(
                    scope,
                    &mut state.borrow_mut(),
                    (run_id, name.clone(), demo),
                    taken,
                );
                if let Some(input) = unhashed {
                    let (scope, state) = (scope.clone(), state.clone());
                    wasm_bindgen_futures::spawn_local(hash_later_on(scope, state, run_id, input));
                }
                big_log::remember_sources(&state.borrow(), run_id, &kept_paths, &buffers);
                let loaded = state.borrow().get(run_id).is_some()
                    || crate::codegen_host::run_name(run_id).is_some();
                // A watched folder is kept as its handle, not as a copy of its files.
                if loaded
                    && !demo
                    && !keep::is_kept(run_id)
                    && run_id != WARM_UP_ID
                    && !watch::is_watched(run_id)
                {
                    let scope = scope.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        keep_run(&scope, run_id, &name, &kept_paths, &buffers).await;
                    });
                }
            } else {
                // Files are read asynchronously (the browser reads them in its own process while
                // this worker parses): other requests are answered meanwhile, and the state is
                // borrowed only once every file is in.
                let (scope, state) = (scope.clone(), state.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let kept_paths = paths.clone();
                    let taken = read_files(&scope, run_id, &name, paths, &buffers).await;
                    let name_kept = name.clone();
                    load(&scope, &mut state.borrow_mut(), (run_id, name, demo), taken);
                    big_log::remember_sources(&state.borrow(), run_id, &kept_paths, &buffers);
                    // Its numbers are on screen: now the run is copied into the browser's
                    // storage (never a demo run, never one loaded from there).
                    let loaded = state.borrow().get(run_id).is_some()
                        || crate::codegen_host::run_name(run_id).is_some();
                    if loaded && !demo && !keep::is_kept(run_id) {
                        keep_run(&scope, run_id, &name_kept, &kept_paths, &buffers).await;
                    }
                });
            }
        }
        // A log sample's drawer opened from a query: its conversation read first, then where the
        // query matched.
        Request::Screen {
            req,
            run_id,
            query: ScreenQuery::Hits { key, query },
        } if conversation_of(&state.borrow(), run_id, &key).is_some() => {
            query_read::hits_with_conversation(scope, state, (req, run_id), (key, query))
        }
        // A text query over a log: its conversations are read into the query index first, once.
        Request::Screen { req, run_id, query }
            if query_read::wants_reading(&state.borrow(), run_id, &query).is_some() =>
        {
            query_read::read_then_answer(scope, state, (req, run_id), query)
        }
        // A log sample's drawer: its conversation is read again from its file first.
        Request::Screen {
            req,
            run_id,
            query: ScreenQuery::Item { key },
        } => {
            let Some((ids, found)) = conversation_of(&state.borrow(), run_id, &key) else {
                let query = ScreenQuery::Item { key };
                let req = Request::Screen { req, run_id, query };
                return answer(scope, &mut state.borrow_mut(), req);
            };
            let query = ScreenQuery::Item { key };
            let (scope, state) = (scope.clone(), state.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let messages = big_log::conversation(ids, found).await;
                let st = state.borrow();
                match log_screen(&st, run_id, &query, Some(messages)) {
                    Some(mut view) => {
                        if let Some(k) = st.get(run_id) {
                            k.with_review::<FAMILIES>(&mut view);
                        }
                        store::post_view(&scope, (req, run_id), view)
                    }
                    None => no_run(&scope, req, run_id),
                }
            });
        }
        // A Compare row side by side of two logs: both samples' conversations are read first.
        Request::Screen {
            req,
            run_id,
            query: ScreenQuery::Pair { baseline, key },
        } if conversation_of(&state.borrow(), run_id, &key).is_some()
            || conversation_of(&state.borrow(), baseline, &key).is_some() =>
        {
            let (b_at, c_at) = {
                let st = state.borrow();
                (
                    conversation_of(&st, baseline, &key),
                    conversation_of(&st, run_id, &key),
                )
            };
            let (scope, state) = (scope.clone(), state.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let mut read = Vec::with_capacity(2);
                for at in [b_at, c_at] {
                    read.push(match at {
                        Some((ids, found)) => Some(big_log::conversation(ids, found).await),
                        None => None,
                    });
                }
                let mut read = read.into_iter();
                let st = state.borrow();
                let query = ScreenQuery::Item { key: key.clone() };
                let mut side = |id: RunId| {
                    let kept = st.get(id)?;
                    Some(crate::pair::PairSide {
                        name: kept.name.clone(),
                        row: kept.run().item_in::<FAMILIES>(&key),
                        blocks: log_screen(&st, id, &query, read.next().flatten())
                            .and_then(|v| v.item)
                            .map(|i| i.blocks),
                    })
                };
                match (side(baseline), side(run_id)) {
                    (Some(b), Some(c)) => {
                        store::post_view(&scope, (req, run_id), crate::pair::view(&key, b, c))
                    }
                    _ => no_run(&scope, req, run_id),
                }
            });
        }
        // A folder to watch: its handle came beside the message, or is kept from a visit before.
        Request::Watch {
            run_id,
            name,
            stored,
        } => {
            let settings = state.borrow().settings.clone();
            // The folder read so far is loaded as a run through the Load path, as a drop is.
            let materialize: watch::Materialize = {
                let (scope, state) = (scope.clone(), state.clone());
                Rc::new(move |run_id, name, folder: watch::Folder| {
                    let (paths, buffers) = (folder.paths, folder.buffers);
                    let settings = state.borrow().settings.clone();
                    // A folder the watch already parsed (one `.eval`, one JSONL, traces):
                    // scored, not read again.
                    // Only the turns not seen before are scored (numeric QA: the live readers
                    // keep each turn's scores); a folder of several logs is a run a log, as
                    // its Load makes them.
                    let t0 = now();
                    let scored: Option<Vec<ScoredRun>> = match folder.read.is_empty() {
                        true => None,
                        false => folder
                            .read
                            .into_iter()
                            .map(|r| Some(r.score_in::<FAMILIES>(&settings)?.0))
                            .collect(),
                    };
                    match scored {
                        Some(scored) => {
                            let mut st = state.borrow_mut();
                            let (loaded, score_ms) = ((t0, Vec::new(), Vec::new()), now() - t0);
                            let id = (run_id, name, false);
                            keep_parts(&scope, &mut st, id, scored, loaded, score_ms);
                            big_log::remember_sources(&st, run_id, &paths, &buffers);
                        }
                        None => {
                            let load = Request::Load {
                                run_id,
                                name,
                                paths,
                                demo: false,
                                stored: None,
                            };
                            handle_request(&scope, &state, load, buffers, &JsValue::UNDEFINED);
                        }
                    }
                    // What the logs loaded say of themselves (read at once: a Load of bytes is
                    // read and scored before it returns).
                    state
                        .borrow()
                        .runs_of(run_id)
                        .map(|k| watch::LogState {
                            name: k.run().name().to_string(),
                            archive: k.scored.files().iter().any(|f| {
                                f.status != evalboard_engine::accounting::FileStatus::Skipped
                                    && f.path.to_ascii_lowercase().ends_with(".eval")
                            }),
                            status: k.run().lifecycle_status(),
                            items: k.run().counts().1,
                            declared: k.run().declared_items(),
                        })
                        .collect()
                })
            };
            let with = (settings, materialize);
            match stored {
                None => watch::start::<FAMILIES>(scope, (run_id, name), buffers.get(0), None, with),
                Some(key) => {
                    let scope = scope.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        if let Ok(dir) = watch::kept_handle(&key).await {
                            watch::start::<FAMILIES>(&scope, (run_id, name), dir, Some(key), with);
                        }
                    });
                }
            }
        }
        Request::WatchStall { seconds } => watch::set_stall(seconds),
        req => answer(scope, &mut state.borrow_mut(), req),
    }
}

/// Tells the page request `req` failed, and why.
fn post_error(scope: &DedicatedWorkerGlobalScope, req: ReqId, message: String) {
    post(
        scope,
        &Response::Error {
            req: Some(req),
            message,
        },
    )
}

/// A run read from `input` (its one file) as the lake builder takes it: the content id of that
/// file, its statistics as `score --json` prints them.
fn lake_run_of<'a>(
    run: &'a ScoredRun,
    input: &evalboard_engine::RunInput,
    settings: &'a evalboard_engine::run::Settings,
) -> evalboard_engine::lake::LakeRun<'a> {
    let files: Vec<(String, u64, [u8; 32])> = input
        .files
        .iter()
        .map(|f| {
            let sha = evalboard_engine::run_table::sha256(&f.bytes);
            (f.path.clone(), f.bytes.len() as u64, sha)
        })
        .collect();
    let ids: Vec<(&str, u64, [u8; 32])> =
        files.iter().map(|(p, n, d)| (p.as_str(), *n, *d)).collect();
    let plan = evalboard_report::run_output_plan_in::<FAMILIES>(run.as_ref());
    evalboard_engine::lake::LakeRun {
        run: run.as_ref(),
        content_id: evalboard_engine::run_table::content_id(&ids),
        files: files
            .iter()
            .map(|(p, n, d)| (p.clone(), *n, evalboard_engine::run_table::hex(d)))
            .collect(),
        settings,
        statistics_json: plan.and_then(|p| serde_json::to_string(&p.statistics).ok()),
        marks: None,
    }
}

/// The screen `query` of eval-log run `run_id` with a sample's conversation as read from its file
/// (`messages`); `None` for another run.
fn log_screen(
    st: &State,
    run_id: RunId,
    query: &ScreenQuery,
    messages: Option<Result<Vec<evalboard_engine::evallog::messages::Message>, String>>,
) -> Option<crate::protocol::ScreenView> {
    match st.get(run_id).map(|r| &r.scored) {
        Some(ScoredRun::EvalLog(l)) => Some(crate::evallog::view_with(l, query, messages)),
        _ => None,
    }
}

/// Where the conversation of the sample of `key` in eval-log run `run_id` can be read, if
/// anywhere.
#[allow(clippy::type_complexity)]
fn conversation_of(
    st: &State,
    run_id: RunId,
    key: &evalboard_engine::run_table::ItemKey,
) -> Option<(
    (RunId, Option<RunId>),
    (String, evalboard_engine::evallog::messages::MessagesAt),
)> {
    let kept = st.get(run_id)?;
    let ScoredRun::EvalLog(l) = &kept.scored else {
        return None;
    };
    let i = evalboard_engine::evallog::score::sample_of(&l.log.run, key)?;
    conversation_at(kept, run_id, i)
}

/// [`conversation_of`] for many keys of eval-log run `run_id`: its samples indexed by key once
/// (a [`conversation_of`] per key scans every sample: 20,000 keys took 30 s in the worker).
#[allow(clippy::type_complexity)]
fn conversations_of<'a>(
    st: &'a State,
    run_id: RunId,
) -> impl Fn(
    &evalboard_engine::run_table::ItemKey,
) -> Option<(
    (RunId, Option<RunId>),
    (String, evalboard_engine::evallog::messages::MessagesAt),
)> + 'a {
    let kept = st.get(run_id);
    let index = match kept.map(|k| &k.scored) {
        Some(ScoredRun::EvalLog(l)) => evalboard_engine::evallog::score::sample_index(&l.log.run),
        _ => Default::default(),
    };
    move |key| conversation_at(kept?, run_id, *index.get(key)?)
}

/// Where the conversation of sample `i` of eval-log `kept` (run `run_id`) can be read.
#[allow(clippy::type_complexity)]
fn conversation_at(
    kept: &Kept,
    run_id: RunId,
    i: usize,
) -> Option<(
    (RunId, Option<RunId>),
    (String, evalboard_engine::evallog::messages::MessagesAt),
)> {
    let ScoredRun::EvalLog(l) = &kept.scored else {
        return None;
    };
    let sample = l.log.run.samples.get(i)?;
    let ids = (run_id, kept.part_of);
    Some((
        ids,
        big_log::conversation_at(ids, &l.log.run.files, sample)?,
    ))
}

/// The SHA-256s of run `run_id`'s files ([`intake::Taken::hash_later`]), computed after its
/// numbers are on screen, a few milliseconds at a time between the page's requests, then put
/// into its provenance (the HTML report's): 0.6 s of hashing a 28,589-file trace folder is off
/// the way to its numbers. The files' bytes are freed then.
async fn hash_later_on(
    scope: DedicatedWorkerGlobalScope,
    state: Rc<RefCell<State>>,
    run_id: RunId,
    input: evalboard_engine::RunInput,
) {
    let mut done = Vec::with_capacity(input.files.len());
    let mut slice_start = now();
    for f in &input.files {
        done.push((
            f.path.as_str(),
            FileProvenance::of(&input.name, &f.path, &f.bytes).sha256,
        ));
        if now() - slice_start > 8.0 {
            runtime::next_task(&scope).await;
            slice_start = now();
        }
    }
    if let Some(run) = state.borrow_mut().get_mut(run_id) {
        for (path, sha) in &done {
            if let Some(p) = run.provenance.iter_mut().find(|p| p.path == *path) {
                p.sha256 = sha.clone();
            }
        }
    }
}

/// Copies a loaded run's files into the browser's storage, or tells the user why not.
async fn keep_run(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    name: &str,
    paths: &[String],
    buffers: &Array,
) {
    if let Err(e) = keep::keep(run_id, name, paths, buffers).await {
        post(
            scope,
            &Response::Error {
                req: None,
                message: e.message(name),
            },
        );
    }
}

/// A `Load`: reads, hashes and scores the run's files and keeps the run.
///
/// Kept out of line, as is [`answer`] (`#[inline(never)]` for LLVM; for wasm-opt, which inlines
/// every function that has one caller, index.html caps that at 1 000 instructions). V8 optimises
/// a WebAssembly function as a whole, in the background, once it has run for a while. Merged
/// with every other request's code into one dispatcher, the Load path was a 141 KB function
/// whose optimising compile (0.36–0.57 s) was set off by the first big drop and ran beside it
/// on a 2-core machine (docs/performance.md, session 5).
#[inline(never)]
fn load(
    scope: &DedicatedWorkerGlobalScope,
    st: &mut State,
    (run_id, name, demo): (RunId, String, bool),
    taken: Taken,
) -> Option<evalboard_engine::RunInput> {
    let t0 = taken.started;
    let mut stage_ms = vec![("read".to_string(), taken.read_ms)];
    let (hash_streamed_ms, parse_streamed_ms) = (taken.hash_ms, taken.parse_ms);
    let family = taken.family();
    // Eval logs are split into runs by log (the input is taken apart): hashed now.
    let hash_later = taken.hash_later && family != Family::EvalLog;
    let (input, indexes, streamed) = taken.into_input(name.clone());
    if family == Family::Codegen {
        // That worker hashes the files itself.
        crate::codegen_host::load(scope, (run_id, name, demo), &input.files);
        return None;
    }
    let streamed_bytes: u64 = streamed.iter().map(|s| s.provenance.bytes).sum();
    let total_bytes = input
        .files
        .iter()
        .map(|f| f.bytes.len() as u64)
        .sum::<u64>()
        + streamed_bytes;
    let n_files = input.files.len() as u64;
    let t_hash = now();
    let hashed = provenance(scope, run_id, &input, hash_later);
    let mut provenance: Vec<(usize, FileProvenance)> = indexes.into_iter().zip(hashed).collect();
    stage_ms.push(("hash".into(), now() - t_hash + hash_streamed_ms));
    // Streamed files were read apart: their provenance goes back to its place in the drop.
    let mut streamed_reads = Vec::with_capacity(streamed.len());
    for s in streamed {
        provenance.push((s.index, s.provenance));
        streamed_reads.push(s.read.read);
    }
    provenance.sort_by_key(|(i, _)| *i);
    let provenance: Vec<FileProvenance> = provenance.into_iter().map(|(_, p)| p).collect();
    post_progress(
        scope,
        run_id,
        "parsing",
        (streamed_bytes, total_bytes.max(1)),
    );
    let t_parse = now();
    if family == Family::EvalLog {
        let loaded = (t0, stage_ms, provenance);
        load_parts(scope, st, (run_id, name, demo), family, input, loaded);
        return None;
    }
    let scored = if family == Family::NumericQa {
        let sizes = (n_files, streamed_bytes, total_bytes);
        let stages = (&mut stage_ms, parse_streamed_ms);
        read_and_score_qa(scope, st, run_id, (&input, streamed_reads), sizes, stages)
    } else {
        let scored = run::load_in::<FAMILIES>(
            family,
            &input,
            (None, ReadOptions::default()),
            &st.settings,
            1,
        );
        stage_ms.push(("parse + score".into(), now() - t_parse));
        scored
    };
    match scored {
        Ok(scored) => st.keep(
            scope,
            Kept {
                id: run_id,
                name,
                demo,
                scored,
                load_ms: now() - t0,
                stage_ms,
                provenance,
                part_of: None,
            },
        ),
        Err(err) => post_load_failed(scope, run_id, name, err),
    }
    hash_later.then_some(input)
}

/// A `Load` that may hold several runs (evaluation-tool logs): they are scored one by one, as
/// `evalboard score` scores a folder of them ([`run::split`]); the first keeps the `Load`'s id,
/// the others get [`crate::protocol::part_id`]s, each named `folder/file`, its files'
/// provenance its own.
fn load_parts(
    scope: &DedicatedWorkerGlobalScope,
    st: &mut State,
    (run_id, name, demo): (RunId, String, bool),
    family: Family,
    input: evalboard_engine::RunInput,
    (t0, stage_ms, provenance): (f64, Vec<(String, f64)>, Vec<FileProvenance>),
) {
    // A log nothing of which is usable joins the first readable one's files as skipped
    // (`run::read_parts`): one broken log never sinks the rest of the folder.
    let t = now();
    let scored = match run::load_parts_in::<FAMILIES>(
        family,
        input,
        (None, ReadOptions::default()),
        &st.settings,
        1,
    ) {
        Ok(s) => s,
        Err(err) => return post_load_failed(scope, run_id, name, err),
    };
    let parse_ms = now() - t;
    keep_parts(
        scope,
        st,
        (run_id, name, demo),
        scored,
        (t0, stage_ms, provenance),
        parse_ms,
    );
}

/// Keeps the runs `scored` of one `Load` (a folder's logs, [`load_parts`]; a watched folder's
/// logs so far): one run keeps the `Load`'s id and name; of several, the first keeps the id and
/// the others get [`crate::protocol::part_id`]s, each named as read (`folder/file`), its files'
/// provenance its own.
fn keep_parts(
    scope: &DedicatedWorkerGlobalScope,
    st: &mut State,
    (run_id, name, demo): (RunId, String, bool),
    scored: Vec<ScoredRun>,
    (t0, stage_ms, provenance): (f64, Vec<(String, f64)>, Vec<FileProvenance>),
    parse_ms: f64,
) {
    let split = scored.len() > 1;
    // Loaded from its kept copy: the logs the user removed stay removed (the first left keeps
    // the `Load`'s id).
    let removed = keep::removed_of(run_id);
    let left = |s: &ScoredRun| !removed.iter().any(|n| n == s.as_ref().name());
    let scored: Vec<(usize, ScoredRun)> = if scored.iter().any(left) {
        scored
            .into_iter()
            .enumerate()
            .filter(|(_, s)| left(s))
            .collect()
    } else {
        scored.into_iter().enumerate().collect()
    };
    let first = scored.first().map_or(0, |(k, _)| *k);
    for (k, scored) in scored {
        let id = if k == first {
            run_id
        } else {
            crate::protocol::part_id(run_id, k)
        };
        let part_of = split.then_some(run_id);
        let part_name = if split {
            scored.as_ref().name().to_string()
        } else {
            name.clone()
        };
        let mut stages = stage_ms.clone();
        stages.push(("parse + score".into(), parse_ms));
        let mine = provenance
            .iter()
            .filter(|p| scored.files().iter().any(|f| f.path == p.path))
            .cloned()
            .collect();
        st.keep(
            scope,
            Kept {
                id,
                name: part_name,
                demo,
                scored,
                load_ms: now() - t0,
                stage_ms: stages,
                provenance: mine,
                part_of,
            },
        );
    }
}

/// Reads a numeric QA run (its big JSONL files already streamed) and scores it, posting
/// progress as it goes; the parse and score times go to `stage_ms`.
fn read_and_score_qa(
    scope: &DedicatedWorkerGlobalScope,
    st: &State,
    run_id: RunId,
    (input, streamed_reads): (&evalboard_engine::RunInput, Vec<read::FileRead<'static>>),
    (n_files, streamed_bytes, total_bytes): (u64, u64, u64),
    (stage_ms, parse_streamed_ms): (&mut Vec<(String, f64)>, f64),
) -> Result<ScoredRun, evalboard_engine::accounting::LoadError> {
    let t_parse = now();
    let mut last = now();
    let mut progress = |done_files: u64, done_bytes: u64| {
        let t = now();
        if t - last > 100.0 || done_files == n_files {
            last = t;
            post_progress(
                scope,
                run_id,
                "parsing",
                (streamed_bytes + done_bytes, total_bytes.max(1)),
            );
        }
    };
    let run = read::load_qa_run_with_reads(input, streamed_reads, None, &mut progress)?;
    stage_ms.push(("parse".into(), now() - t_parse + parse_streamed_ms));
    let t_score = now();
    post_progress(scope, run_id, "scoring", (0, 1));
    let mut last = now();
    let scored = score::score_qa_run_with_progress(
        run,
        &st.settings.numeric_qa,
        2048,
        &mut |done, total| {
            let t = now();
            if t - last > 100.0 {
                last = t;
                post_progress(scope, run_id, "scoring", (done, total.max(1)));
            }
        },
    );
    stage_ms.push(("score".into(), now() - t_score));
    Ok(ScoredRun::NumericQa(scored))
}

/// A numeric QA run's scoring, or why there is none.
fn qa(st: &State, run_id: RunId) -> Option<&score::ScoredQaRun> {
    match st.get(run_id).map(|r| &r.scored) {
        Some(ScoredRun::NumericQa(s)) => Some(s),
        _ => None,
    }
}

/// Every request but `Load`.
#[inline(never)]
fn answer(scope: &DedicatedWorkerGlobalScope, st: &mut State, req: Request) {
    let ids: Vec<RunId> = match &req {
        Request::Compare {
            baseline,
            candidate,
            ..
        } => vec![*baseline, *candidate],
        Request::Series { runs, .. } => runs.clone(),
        _ => Vec::new(),
    };
    let Some(req) = st.answer(scope, req, &elsewhere(&ids)) else {
        return;
    };
    let missing = |req: ReqId, run_id: RunId| no_run(scope, req, run_id);
    match req {
        Request::Overview { req, run_id, dark } => match qa(st, run_id) {
            Some(s) => {
                let (overview, sizes) = views::overview_with_sizes(s, 10);
                let charts = charts::qa_charts(&overview.stats, &sizes, dark);
                let breakdowns = crate::qa_screens::breakdowns(&overview.stats, &charts);
                let complexity = crate::qa_screens::complexity(&overview.stats, &charts);
                let mut errors = crate::qa_screens::errors(&overview.stats, &charts);
                let mut rest = crate::qa_screens::overview_rest(&overview, &charts);
                if let Some(k) = st.get(run_id) {
                    let id = k.content_id();
                    rest.insert(
                        0,
                        crate::review::overview_section::<FAMILIES>(k.run(), id.as_deref(), false),
                    );
                }
                // The failure cohorts: where a user looks for why turns fail, each opening its
                // turns on Items (the worker's grid, which takes the query).
                if let Some(k) = st.get(run_id) {
                    errors.push(crate::query_view::cohorts_or_note::<FAMILIES>(
                        run_id,
                        k.run(),
                        true,
                    ));
                }
                post(
                    scope,
                    &Response::Overview {
                        req,
                        run_id,
                        overview: Box::new(overview),
                        rest,
                        breakdowns,
                        complexity,
                        errors,
                    },
                );
            }
            None => missing(req, run_id),
        },
        Request::Items { req, run_id, query } => match qa(st, run_id) {
            Some(s) => post(
                scope,
                &Response::Items {
                    req,
                    run_id,
                    page: views::items(s, &query),
                },
            ),
            None => missing(req, run_id),
        },
        Request::Conversation {
            req,
            run_id,
            key,
            query,
        } => match (qa(st, run_id), st.get(run_id)) {
            (Some(s), Some(k)) => {
                // Where the query matched the turn, then its review section.
                let mut blocks = match query {
                    Some(src) => {
                        crate::query_view::with_index::<FAMILIES, _>(run_id, k.run(), |ix| {
                            crate::query_view::hits(ix, &src, &key, None)
                        })
                    }
                    None => Vec::new(),
                };
                let id = k.content_id();
                blocks.extend(crate::review::item_review::<FAMILIES>(
                    k.run(),
                    id.as_deref(),
                    &key,
                ));
                post(
                    scope,
                    &Response::Conversation {
                        req,
                        run_id,
                        view: views::conversation_of(s, &key),
                        blocks,
                    },
                )
            }
            _ => missing(req, run_id),
        },
        // Eval sets and evaluation-tool logs are laid out here; code-generation runs by their own worker
        // (the request reaches this worker only when that one does not hold the run).
        Request::Screen { req, run_id, query } => {
            let shown =
                store::post_screen::<FAMILIES>(scope, st.get(run_id), (req, run_id), &query);
            if !shown {
                missing(req, run_id)
            }
        }
        // "Export this view" as Parquet: the JSONL's run (read back as a drop of it reads it)
        // written by the lake worker as a one-run lake zip.
        Request::ExportView {
            req,
            run_id,
            filter,
            columns,
            baseline,
            ..
        } => match st.view_rows(run_id, (&filter, &columns, baseline)) {
            Ok((stem, rows)) => {
                let input = evalboard_engine::RunInput::new(
                    rows.name.clone(),
                    vec![evalboard_engine::InputFile::new(
                        format!("{stem}.evalboard-rows.jsonl"),
                        rows.bytes,
                    )],
                );
                // Run rows vote for the family that reads them (its first line).
                let back = run::load_in::<FAMILIES>(
                    evalboard_engine::family::detect_family(&input),
                    &input,
                    (None, ReadOptions::default()),
                    &st.settings,
                    1,
                );
                match back {
                    Ok(back) => {
                        let file = format!("{stem}.view.evalboard-lake.zip");
                        let runs = [lake_run_of(&back, &input, &st.settings)];
                        crate::lake_host::write(
                            scope,
                            &crate::lake_job::job(req, file, &runs, store::VERSION),
                        );
                    }
                    Err(e) => post_error(scope, req, e.message),
                }
            }
            Err(message) => post_error(scope, req, message),
        },
        // "Export the workspace as a lake": every run held here, as scored now, and the
        // code-generation worker's runs (their rows built there, `codegen_host::lake_part`).
        Request::ExportLake { req } => {
            let file = crate::lake_job::WORKSPACE_FILE.to_string();
            let mut job = st.lake_job(req, file);
            if let Some(part) = crate::codegen_host::lake_part(req) {
                job = job.merge(part);
            }
            crate::lake_host::write(scope, &job);
        }
        // "Export this view" of All runs as Parquet: the matrix's rows written by the lake
        // worker as one file.
        many @ Request::ExportMany { .. } => match st.many_export(&many) {
            Some((req, _, Ok(crate::many::ManyExport::Table { file, rows }))) => {
                let job = crate::lake_job::LakeJob {
                    req,
                    file,
                    tables: vec![(
                        evalboard_engine::lake::schema::MANY_MARKS.name.to_string(),
                        rows,
                    )],
                    runs: Vec::new(),
                    version: store::VERSION.to_string(),
                };
                crate::lake_host::write(scope, &job);
            }
            Some((req, _, Err(message))) => post_error(scope, req, message),
            Some((_, _, Ok(crate::many::ManyExport::Text { .. }))) | None => {}
        },
        // Answered by [`load`] and the run store.
        Request::Load { .. }
        | Request::Configure { .. }
        | Request::Remove { .. }
        | Request::Compare { .. }
        | Request::Series { .. }
        | Request::Many { .. }
        | Request::Export { .. }
        | Request::Report { .. }
        | Request::Mark { .. }
        | Request::ImportMarks { .. }
        | Request::MarksKept { .. }
        | Request::Watch { .. }
        | Request::WatchStall { .. }
        // Held here already (a lake run's is loaded by the lake worker first).
        | Request::Workspace { .. } => {}
    }
}
