//! The Web Worker: owns the engine and every scored run, answers the page's requests.
//! Reading and scoring happen here so the page never freezes.

pub mod browser_files;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::aggregate::doc;
use evalboard_engine::pipeline;
use evalboard_engine::scorers::{self, ScoreConfig, ScoredQaRun};
use evalboard_engine::views;
use evalboard_engine::{InputFile, RunInput};

use crate::charts;
use crate::families;
use crate::protocol::{self, Request, Response, RunId, RunInfo};
use evalboard_report::html::{
    render_report, FileProvenance, HtmlOptions, Provenance, ReportInput, ReportRun,
};

struct Run {
    id: RunId,
    name: String,
    demo: bool,
    scored: ScoredQaRun,
    load_ms: f64,
    stage_ms: Vec<(String, f64)>,
    /// Input file names, sizes and SHA-256, for the HTML report's provenance.
    provenance: Vec<evalboard_report::html::FileProvenance>,
}

/// A loaded run of a family whose state the worker keeps as its family's reader and scorer
/// made it: eval sets here, code-generation runs in the code-generation worker.
pub(crate) struct Kept<S> {
    pub id: RunId,
    pub name: String,
    pub demo: bool,
    pub state: S,
    pub load_ms: f64,
    /// Input file names, sizes and SHA-256, for the HTML report's provenance.
    pub provenance: Vec<evalboard_report::html::FileProvenance>,
}

/// Keeps the run `(id, name, demo)` with its `state` in `runs` (in place of a run with its id)
/// and tells the page it loaded, with `info`; its load took from `t0` until now.
pub(crate) fn keep_and_announce<S>(
    scope: &DedicatedWorkerGlobalScope,
    runs: &mut Vec<Kept<S>>,
    (id, name, demo): (RunId, String, bool),
    state: S,
    t0: f64,
    provenance: Vec<evalboard_report::html::FileProvenance>,
    info: fn(&Kept<S>) -> RunInfo,
) {
    let e = Kept {
        id,
        name,
        demo,
        state,
        load_ms: now() - t0,
        provenance,
    };
    let i = info(&e);
    runs.retain(|r| r.id != id);
    runs.push(e);
    post(scope, &Response::Loaded { info: i });
}

/// An eval-set run (seed 004).
type EvalsetEntry = Kept<families::EvalsetState>;

#[derive(Default)]
struct State {
    config: ScoreConfig,
    runs: Vec<Run>,
    evalsets: Vec<EvalsetEntry>,
    /// The eval-set family's headline scorer and pass threshold.
    evalset_opts: evalboard_engine::evalset::ScoringOptions,
}

/// Names of the runs among `ids` that the code-generation worker holds (it answers comparisons
/// of its own runs; here they are known by name only).
fn elsewhere(ids: &[RunId]) -> Vec<(RunId, String)> {
    ids.iter()
        .filter_map(|id| Some((*id, crate::codegen_host::run_name(*id)?)))
        .collect()
}

/// Any loaded run, as one side of a comparison; a code-generation run (from [`elsewhere`]) is a
/// side with its name and family only, so mixing it with another family says "different
/// families" rather than "no run".
fn side<'a>(
    st: &'a State,
    elsewhere: &'a [(RunId, String)],
    id: RunId,
) -> Option<families::Side<'a>> {
    if let Some(r) = st.runs.iter().find(|r| r.id == id) {
        return Some(families::Side::Qa(&r.name, &r.scored));
    }
    if let Some(e) = st.evalsets.iter().find(|r| r.id == id) {
        return Some(families::Side::Evalset(&e.name, &e.state));
    }
    elsewhere
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, n)| families::Side::Elsewhere(n, "codegen"))
}

fn evalset_info(e: &EvalsetEntry) -> RunInfo {
    let run = &e.state.run;
    RunInfo {
        run_id: e.id,
        name: e.name.clone(),
        demo: e.demo,
        family: "evalset".into(),
        n_conversations: 0,
        n_turns: e.state.headline().items.len(),
        files: run.files.clone(),
        diagnostics: run.diagnostics.clone(),
        numerical_accuracy: None,
        load_ms: e.load_ms,
        stage_ms: Vec::new(),
        wasm_memory_bytes: None,
        primary_score: families::primary_score(&e.state),
    }
}

pub(crate) fn no_run(scope: &DedicatedWorkerGlobalScope, req: u64, run_id: RunId) {
    post(
        scope,
        &Response::Error {
            req: Some(req),
            message: format!("no run {run_id}"),
        },
    );
}

pub(crate) fn now() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

pub(crate) fn post(scope: &DedicatedWorkerGlobalScope, r: &Response) {
    if QUIET.with(|q| q.get()) {
        return;
    }
    match protocol::encode(r) {
        Ok(bytes) => {
            // Transfer the copy's buffer: the page takes it without a second copy.
            let msg = Uint8Array::from(bytes.as_slice());
            let _ = scope.post_message_with_transfer(&msg, &Array::of1(&msg.buffer()));
        }
        Err(e) => web_sys::console::error_1(&format!("worker: cannot encode response: {e}").into()),
    }
}

fn info(run: &Run) -> RunInfo {
    let stats = doc::statistics(&run.scored);
    RunInfo {
        run_id: run.id,
        name: run.name.clone(),
        demo: run.demo,
        family: "numeric-qa".into(),
        n_conversations: run.scored.run.conversations.len(),
        n_turns: run.scored.turns.len(),
        files: run.scored.run.files.clone(),
        diagnostics: run.scored.run.diagnostics.clone(),
        numerical_accuracy: stats.numerical_accuracy,
        load_ms: run.load_ms,
        stage_ms: run.stage_ms.clone(),
        wasm_memory_bytes: wasm_memory_bytes(),
        primary_score: None,
    }
}

/// Size of this worker's wasm linear memory (its high-water mark).
pub(crate) fn wasm_memory_bytes() -> Option<u64> {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<ArrayBuffer>().ok())
        .map(|b| b.byte_length() as u64)
}

/// Entry point of the worker binary.
pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
    let on_message = state.clone();
    let scope = listen(move |scope, e| handle(scope, &on_message, e));
    warm_up(&scope, &state);
    post(&scope, &Response::Ready);
}

thread_local! {
    /// Set while the warm-up runs: [`post`] sends nothing.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Loads the warm-up run (src/warmup.rs) through the Load path, silently, and forgets it.
fn warm_up(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>) {
    const WARM_UP_ID: RunId = RunId::MAX;
    let bytes = crate::warmup::warm_up_jsonl(crate::warmup::WARM_UP_TURNS);
    let load = Request::Load {
        run_id: WARM_UP_ID,
        name: "warm-up".into(),
        paths: vec!["warm-up/run.jsonl".into()],
        demo: false,
    };
    let buffers = Array::of1(&Uint8Array::from(bytes.as_slice()).buffer());
    QUIET.with(|q| q.set(true));
    handle_request(scope, state, load, buffers, &JsValue::UNDEFINED);
    QUIET.with(|q| q.set(false));
    state.borrow_mut().runs.retain(|r| r.id != WARM_UP_ID);
}

/// Sets up a worker: panics go to the console, every message to `on_message`.
pub(crate) fn listen(
    on_message: impl Fn(&DedicatedWorkerGlobalScope, MessageEvent) + 'static,
) -> DedicatedWorkerGlobalScope {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let s2 = scope.clone();
    let cb = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| on_message(&s2, e));
    scope.set_onmessage(Some(cb.as_ref().unchecked_ref()));
    cb.forget();
    scope
}

/// Tells the page that run `run_id` could not be loaded, with its load report.
pub(crate) fn post_load_failed(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    name: String,
    err: pipeline::LoadError,
) {
    post(
        scope,
        &Response::LoadFailed {
            run_id,
            name,
            error: err.message,
            files: err.files,
            diagnostics: err.diagnostics,
        },
    );
}

/// A page message: a request, and the transferred buffers of a `Load`.
pub(crate) fn decode(data: &JsValue) -> Result<(Request, Array), String> {
    // Messages are either the request's bytes, or [bytes, [ArrayBuffer...]] for Load.
    let (msg, buffers) = if Array::is_array(data) {
        let arr: &Array = data.unchecked_ref();
        (
            arr.get(0),
            arr.get(1)
                .dyn_into::<Array>()
                .unwrap_or_else(|_| Array::new()),
        )
    } else {
        (data.clone(), Array::new())
    };
    let bytes = msg
        .dyn_into::<Uint8Array>()
        .map_err(|_| "unrecognised message (not a Uint8Array)".to_string())?;
    protocol::decode(&bytes.to_vec())
        .map(|r| (r, buffers))
        .map_err(|e| format!("bad request: {e}"))
}

/// [`decode`], telling the page when a message cannot be read.
pub(crate) fn decode_or_report(
    scope: &DedicatedWorkerGlobalScope,
    data: &JsValue,
) -> Option<(Request, Array)> {
    match decode(data) {
        Ok(r) => Some(r),
        Err(message) => {
            post(scope, &Response::Error { req: None, message });
            None
        }
    }
}

/// A JSONL file above this size is streamed through its reader in blocks (never whole in
/// memory), as the CLI does (`evalboard_cli::fsio`).
const STREAM_ABOVE_BYTES: u64 = 16 << 20;
/// The block size a streamed file is read in.
const STREAM_BLOCK_BYTES: u64 = 4 << 20;
/// Up to this size a streamed file is read whole into JS memory for the browser to hash
/// ([`parse_while_browser_hashes`]); above it, it is hashed here block by block.
const BROWSER_HASH_MAX_BYTES: u64 = 512 << 20;
/// Small files are read this many at a time (the browser reads each in its own process: one
/// at a time, a trace folder's tens of thousands of files would wait on every round trip) ...
const READ_AHEAD_FILES: usize = 32;
/// ... when they are at most this big.
const READ_AHEAD_MAX_BYTES: u64 = 1 << 20;

/// The files of a `Load` as the worker took them in.
pub(crate) struct Taken {
    /// Read whole, with their position among the `Load`'s sources ([`Taken::push`]).
    files: Vec<(usize, InputFile)>,
    /// The family each of `files` votes for, taken once as it came in.
    votes: Vec<Option<pipeline::Family>>,
    /// Big JSONL files read as they streamed in.
    pub streamed: Vec<Streamed>,
    /// When the reading started (`now()`), and the milliseconds spent reading bytes, hashing
    /// streamed files, and in their reader.
    pub started: f64,
    pub read_ms: f64,
    pub hash_ms: f64,
    pub parse_ms: f64,
}

/// A big JSONL file of a `Load`, about to be streamed: its run, path and source, and its place
/// among the `Load`'s files (for progress).
struct BigFile<'a> {
    run_name: &'a str,
    path: &'a str,
    source: &'a JsValue,
    index: usize,
    bytes_before: u64,
}

/// A big QA JSONL file read block by block: its read, and its provenance hashed on the way.
pub(crate) struct Streamed {
    pub index: usize,
    pub path: String,
    pub read: pipeline::OwnedRead,
    pub provenance: FileProvenance,
}

/// Progress of the reading of a `Load`'s files: `Reading` messages at most every 50 ms, and a
/// last one with the files that could not be read ("path: reason"), which are left out.
struct ReadProgress<'a> {
    scope: &'a DedicatedWorkerGlobalScope,
    run_id: RunId,
    files_total: u64,
    bytes_total: u64,
    last: f64,
    problems: Vec<String>,
}

impl ReadProgress<'_> {
    fn at(&mut self, files_done: usize, bytes_done: u64) {
        let t = now();
        if t - self.last > 50.0 {
            self.last = t;
            post(
                self.scope,
                &Response::Reading {
                    run_id: self.run_id,
                    files_done: files_done as u64,
                    files_total: self.files_total,
                    bytes_done,
                    bytes_total: self.bytes_total,
                    problems: Vec::new(),
                },
            );
        }
    }

    /// A streamed file's `parsing` progress, `done` bytes of the whole `Load`.
    fn parsing(&self, done: u64) {
        post(
            self.scope,
            &Response::Progress {
                run_id: self.run_id,
                stage: "parsing".into(),
                done,
                total: self.bytes_total.max(1),
            },
        )
    }

    fn finish(self) {
        post(
            self.scope,
            &Response::Reading {
                run_id: self.run_id,
                files_done: self.files_total,
                files_total: self.files_total,
                bytes_done: self.bytes_total,
                bytes_total: self.bytes_total,
                problems: self.problems,
            },
        );
    }
}

fn new_taken(n: usize) -> Taken {
    Taken {
        files: Vec::with_capacity(n),
        votes: Vec::with_capacity(n),
        streamed: Vec::new(),
        started: now(),
        read_ms: 0.0,
        hash_ms: 0.0,
        parse_ms: 0.0,
    }
}

/// Tells the page which files of a `Load` could not be read ("path: reason"), if any.
fn report_unreadable(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    sources: &Array,
    problems: Vec<String>,
) {
    if problems.is_empty() {
        return;
    }
    let n = u64::from(sources.length());
    post(
        scope,
        &Response::Reading {
            run_id,
            files_done: n,
            files_total: n,
            bytes_done: 1,
            bytes_total: 1,
            problems,
        },
    );
}

/// Whether a `Load`'s sources are all bytes already (the warm-up's and the demo's), which
/// [`read_buffers`] takes at once; dropped and picked `File`s go through [`read_files`].
pub(crate) fn all_buffers(sources: &Array) -> bool {
    sources.iter().all(|s| s.is_instance_of::<ArrayBuffer>())
}

/// The files of a `Load` whose sources are bytes: `paths[i]` with a copy of the i-th buffer.
pub(crate) fn read_buffers(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    paths: Vec<String>,
    sources: &Array,
) -> Taken {
    let t0 = now();
    let mut taken = new_taken(paths.len());
    let mut problems = Vec::new();
    for (i, path) in paths.into_iter().enumerate() {
        match browser_files::read_source(&sources.get(i as u32), &mut |_| {}) {
            Ok(bytes) => taken.push(i, InputFile::new(path, bytes)),
            Err(reason) => problems.push(format!("{path}: {reason}")),
        }
    }
    report_unreadable(scope, run_id, sources, problems);
    taken.read_ms = now() - t0;
    taken
}

/// The files of a `Load`, read here from their `File`s: `paths[i]` with the bytes of the i-th
/// source. Small files are read [`READ_AHEAD_FILES`] at a time, big ones a slice ahead
/// ([`browser_files::read_whole`]), and a JSONL file over [`STREAM_ABOVE_BYTES`] that reads as
/// QA JSONL is streamed ([`stream_jsonl`]).
pub(crate) async fn read_files(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    run_name: &str,
    paths: Vec<String>,
    sources: &Array,
) -> Taken {
    let t0 = now();
    let sizes: Vec<u64> = (0..paths.len() as u32)
        .map(|i| source_size(&sources.get(i)))
        .collect();
    let mut progress = ReadProgress {
        scope,
        run_id,
        files_total: paths.len() as u64,
        bytes_total: sizes.iter().sum(),
        last: now(),
        problems: Vec::new(),
    };
    let mut taken = new_taken(paths.len());
    let small = |i: usize| sizes.get(i).is_some_and(|&n| n <= READ_AHEAD_MAX_BYTES);
    // Reads started ahead, by source index; the window is the next READ_AHEAD_FILES sources.
    let mut ahead: std::collections::VecDeque<(usize, wasm_bindgen_futures::JsFuture)> =
        std::collections::VecDeque::new();
    let mut next_ahead = 0usize;
    let mut bytes_before = 0u64;
    for (i, path) in paths.into_iter().enumerate() {
        while next_ahead < i + READ_AHEAD_FILES && next_ahead < sizes.len() {
            if small(next_ahead) {
                if let Some(read) = browser_files::start_read(&sources.get(next_ahead as u32)) {
                    ahead.push_back((next_ahead, read));
                }
            }
            next_ahead += 1;
        }
        let source = sources.get(i as u32);
        let size = sizes.get(i).copied().unwrap_or(0);
        let started = match ahead.front() {
            Some((j, _)) if *j == i => ahead.pop_front().map(|(_, r)| r),
            _ => None,
        };
        let read = if let Some(read) = started {
            browser_files::finish_read(read).await
        } else {
            if pipeline::is_jsonl_name(&path) && size > STREAM_ABOVE_BYTES {
                let big = BigFile {
                    run_name,
                    path: &path,
                    source: &source,
                    index: i,
                    bytes_before,
                };
                let stream = if browser_files::has_sha256() && size <= BROWSER_HASH_MAX_BYTES {
                    parse_while_browser_hashes(&mut progress, &big, &mut taken).await
                } else {
                    stream_jsonl(&progress, &big, &mut taken).await
                };
                match stream {
                    Ok(Some(s)) => {
                        taken.streamed.push(s);
                        bytes_before += size;
                        continue;
                    }
                    Ok(None) => {} // not QA JSONL: read whole below
                    Err(reason) => {
                        progress.problems.push(format!("{path}: {reason}"));
                        bytes_before += size;
                        continue;
                    }
                }
            }
            let mut on_slice = |read: u64| progress.at(i, bytes_before + read);
            browser_files::read_whole(&source, &mut on_slice).await
        };
        match read {
            Ok(bytes) => taken.push(i, InputFile::new(path, bytes)),
            Err(reason) => progress.problems.push(format!("{path}: {reason}")),
        }
        bytes_before += size;
        progress.at(i + 1, bytes_before);
    }
    if !taken.streamed.is_empty() && taken.family() != pipeline::Family::NumericQa {
        // Another family's reader needs every file whole: the streamed ones are read again,
        // whole (as the CLI does).
        for s in std::mem::take(&mut taken.streamed) {
            match browser_files::read_whole(&sources.get(s.index as u32), &mut |_| {}).await {
                Ok(bytes) => taken.push(s.index, InputFile::new(s.path, bytes)),
                Err(reason) => progress.problems.push(format!("{}: {reason}", s.path)),
            }
        }
        taken.files.sort_by_key(|(i, _)| *i);
    }
    progress.finish();
    // Streaming time is split between its stages by [`stream_jsonl`]; the rest was reading.
    taken.read_ms = (now() - t0 - taken.hash_ms - taken.parse_ms).max(0.0);
    taken
}

/// [`stream_jsonl`] where the browser can hash (`crypto.subtle`): the file is read whole into
/// JS memory (not wasm memory, which never shrinks), the browser's SHA-256 of it starts on the
/// browser's own threads, and the worker parses it a block at a time meanwhile, so the wasm
/// SHA-256 (110–125 ms of a 45 MB file here) is off the worker's path. Progress is `Reading`
/// while the bytes come in, then `parsing`.
async fn parse_while_browser_hashes(
    rp: &mut ReadProgress<'_>,
    big: &BigFile<'_>,
    taken: &mut Taken,
) -> Result<Option<Streamed>, String> {
    if !big.source.is_instance_of::<web_sys::Blob>() {
        return Ok(None);
    }
    let whole = browser_files::read_into_js(big.source, &mut |read| {
        rp.at(big.index, big.bytes_before + read)
    })
    .await?;
    let t_hash = now();
    let digest = browser_files::start_sha256(&whole);
    taken.hash_ms += now() - t_hash;
    let progress = |done: u64| rp.parsing(big.bytes_before + done);
    progress(0);
    let n = whole.length();
    let block = STREAM_BLOCK_BYTES as u32;
    let mut buf = Vec::new();
    let copy = |at: u32, buf: &mut Vec<u8>| {
        let part = whole.subarray(at, at.saturating_add(block).min(n));
        buf.resize(part.length() as usize, 0);
        part.copy_to(buf);
    };
    let t_parse = now();
    copy(0, &mut buf);
    let Some(mut stream) = pipeline::QaJsonlStream::start(big.path, &buf) else {
        return Ok(None);
    };
    let mut at = buf.len() as u32;
    let mut last = now();
    while at < n {
        copy(at, &mut buf);
        stream.feed(&buf);
        at += buf.len() as u32;
        let t = now();
        if t - last > 50.0 {
            last = t;
            progress(u64::from(at));
        }
    }
    let read = stream.finish();
    taken.parse_ms += now() - t_parse;
    let t_hash = now();
    let provenance = match digest {
        Some(d) => browser_files::finish_sha256(d).await.ok(),
        None => None,
    }
    .map(|sha| FileProvenance::from_digest(big.run_name, big.path, u64::from(n), &sha))
    // The browser would not hash after all: hash here.
    .unwrap_or_else(|| FileProvenance::of(big.run_name, big.path, &whole.to_vec()));
    taken.hash_ms += now() - t_hash;
    Ok(Some(Streamed {
        index: big.index,
        path: big.path.to_string(),
        read,
        provenance,
    }))
}

/// Streams a big JSONL `File` through [`pipeline::QaJsonlStream`] and the provenance hasher,
/// [`STREAM_BLOCK_BYTES`] at a time, the next block read by the browser meanwhile: the worker
/// never holds the file whole. `Ok(None)` when the source is not a `File` or its first block
/// does not read as QA JSONL (the caller reads it whole).
async fn stream_jsonl(
    rp: &ReadProgress<'_>,
    big: &BigFile<'_>,
    taken: &mut Taken,
) -> Result<Option<Streamed>, String> {
    let Some(slices) = browser_files::BlobSlices::new(big.source, STREAM_BLOCK_BYTES) else {
        return Ok(None);
    };
    let mut slices = slices?;
    let progress = |done: u64| rp.parsing(big.bytes_before + done);
    progress(0);
    let mut hasher = evalboard_report::html::ProvenanceHasher::new(big.run_name, big.path);
    let Some(head) = slices.next_slice().await? else {
        return Ok(None);
    };
    let t_parse = now();
    let Some(mut stream) = pipeline::QaJsonlStream::start(big.path, head) else {
        return Ok(None);
    };
    let t_hash = now();
    hasher.update(head);
    taken.hash_ms += now() - t_hash;
    taken.parse_ms += t_hash - t_parse;
    let mut last = now();
    while let Some(block) = slices.next_slice().await? {
        let t_hash = now();
        hasher.update(block);
        let t_parse = now();
        stream.feed(block);
        let t = now();
        taken.hash_ms += t_parse - t_hash;
        taken.parse_ms += t - t_parse;
        if t - last > 50.0 {
            last = t;
            progress(slices.position());
        }
    }
    let t_parse = now();
    let read = stream.finish();
    taken.parse_ms += now() - t_parse;
    Ok(Some(Streamed {
        index: big.index,
        path: big.path.to_string(),
        read,
        provenance: hasher.finish(),
    }))
}

impl Taken {
    /// The family the files vote for ([`pipeline::family_of_votes`]; a streamed file votes as
    /// it read).
    fn family(&self) -> pipeline::Family {
        pipeline::family_of_votes(
            self.votes
                .iter()
                .copied()
                .chain(self.streamed.iter().map(|s| s.read.vote)),
        )
    }

    /// Takes in the file at `index` of the `Load`'s sources, with its family vote.
    fn push(&mut self, index: usize, file: InputFile) {
        self.votes.push(pipeline::family_vote(&file));
        self.files.push((index, file));
    }

    /// The run's whole files as its input, their places among the `Load`'s sources, and its
    /// streamed files.
    fn into_input(self, name: String) -> (RunInput, Vec<usize>, Vec<Streamed>) {
        let (indexes, files): (Vec<usize>, Vec<InputFile>) = self.files.into_iter().unzip();
        (RunInput::new(name, files), indexes, self.streamed)
    }
}

/// A source's size in bytes before it is read (0 when the browser gives none).
fn source_size(source: &JsValue) -> u64 {
    let n = if let Some(b) = source.dyn_ref::<ArrayBuffer>() {
        f64::from(b.byte_length())
    } else if let Some(b) = source.dyn_ref::<web_sys::Blob>() {
        b.size()
    } else {
        0.0
    };
    if n.is_finite() && n > 0.0 {
        n as u64
    } else {
        0
    }
}

/// The files of a `Load` the main worker forwards ([`to_buffers`]): `paths[i]` with the bytes of
/// the i-th buffer.
pub(crate) fn input_files(paths: Vec<String>, buffers: &Array) -> Vec<InputFile> {
    paths
        .into_iter()
        .enumerate()
        .map(|(i, path)| {
            let bytes = buffers
                .get(i as u32)
                .dyn_into::<ArrayBuffer>()
                .map(|b| Uint8Array::new(&b).to_vec())
                .unwrap_or_default();
            InputFile::new(path, bytes)
        })
        .collect()
}

/// The files as transferable buffers, to hand a run on to the code-generation worker.
pub(crate) fn to_buffers(files: &[InputFile]) -> Array {
    files
        .iter()
        .map(|f| JsValue::from(Uint8Array::from(f.bytes.as_slice()).buffer()))
        .collect()
}

/// SHA-256 of every input file (the HTML report's provenance), 4 MB at a time with progress
/// between chunks so a big file never leaves the progress bar silent.
pub(crate) fn provenance(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    input: &RunInput,
) -> Vec<evalboard_report::html::FileProvenance> {
    const HASH_CHUNK: usize = 4 << 20;
    let total_bytes: u64 = input.files.iter().map(|f| f.bytes.len() as u64).sum();
    let mut hashed = 0u64;
    input
        .files
        .iter()
        .map(|f| {
            let before = hashed;
            let p = evalboard_report::html::FileProvenance::of_chunked(
                &input.name,
                &f.path,
                &f.bytes,
                HASH_CHUNK,
                &mut |d| {
                    hashed = before + d as u64;
                    post(
                        scope,
                        &Response::Progress {
                            run_id,
                            stage: "hashing".into(),
                            done: hashed,
                            total: total_bytes.max(1),
                        },
                    );
                },
            );
            hashed = before + f.bytes.len() as u64;
            p
        })
        .collect()
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
    // Code-generation runs live in their own worker (it carries the Python parser).
    if crate::codegen_host::route(&req, data) {
        return;
    }
    match req {
        Request::Load {
            run_id,
            name,
            paths,
            demo,
        } => {
            if all_buffers(&buffers) {
                let taken = read_buffers(scope, run_id, paths, &buffers);
                load(scope, &mut state.borrow_mut(), (run_id, name, demo), taken);
            } else {
                // Files are read asynchronously (the browser reads them in its own process while
                // this worker parses): other requests are answered meanwhile, and the state is
                // borrowed only once every file is in.
                let (scope, state) = (scope.clone(), state.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let taken = read_files(&scope, run_id, &name, paths, &buffers).await;
                    load(&scope, &mut state.borrow_mut(), (run_id, name, demo), taken);
                });
            }
        }
        req => answer(scope, &mut state.borrow_mut(), req),
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
) {
    let t0 = taken.started;
    let mut stage_ms = vec![("read".to_string(), taken.read_ms)];
    let (hash_streamed_ms, parse_streamed_ms) = (taken.hash_ms, taken.parse_ms);
    let family = taken.family();
    let (input, indexes, streamed) = taken.into_input(name.clone());
    if family == pipeline::Family::Codegen {
        crate::codegen_host::load(scope, (run_id, name, demo), &input.files);
        return;
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
    let mut provenance: Vec<(usize, FileProvenance)> = indexes
        .into_iter()
        .zip(provenance(scope, run_id, &input))
        .collect();
    stage_ms.push(("hash".into(), now() - t_hash + hash_streamed_ms));
    // Streamed files were read apart: their provenance goes back to its place in the drop.
    let mut streamed_reads = Vec::with_capacity(streamed.len());
    for s in streamed {
        provenance.push((s.index, s.provenance));
        streamed_reads.push(s.read.read);
    }
    provenance.sort_by_key(|(i, _)| *i);
    let provenance: Vec<FileProvenance> = provenance.into_iter().map(|(_, p)| p).collect();
    post(
        scope,
        &Response::Progress {
            run_id,
            stage: "parsing".into(),
            done: streamed_bytes,
            total: total_bytes.max(1),
        },
    );
    let t_parse = now();
    if family == pipeline::Family::Evalset {
        match families::load_evalset_with(&input, &st.evalset_opts) {
            Ok(state) => keep_and_announce(
                scope,
                &mut st.evalsets,
                (run_id, name, demo),
                state,
                t0,
                provenance,
                evalset_info,
            ),
            Err(error) => {
                let run = evalboard_engine::evalset::read_evalset_run(&input.files, None);
                let err = pipeline::LoadError {
                    message: error,
                    files: run.files,
                    diagnostics: run.diagnostics,
                };
                post_load_failed(scope, run_id, name, err)
            }
        }
        return;
    }
    let mut last = now();
    let mut progress = |done_files: u64, done_bytes: u64| {
        let t = now();
        if t - last > 100.0 || done_files == n_files {
            last = t;
            post(
                scope,
                &Response::Progress {
                    run_id,
                    stage: "parsing".into(),
                    done: streamed_bytes + done_bytes,
                    total: total_bytes.max(1),
                },
            );
        }
    };
    match pipeline::load_qa_run_with_reads(&input, streamed_reads, None, &mut progress) {
        Ok(run) => {
            stage_ms.push(("parse".into(), now() - t_parse + parse_streamed_ms));
            let t_score = now();
            post(
                scope,
                &Response::Progress {
                    run_id,
                    stage: "scoring".into(),
                    done: 0,
                    total: 1,
                },
            );
            let mut last = now();
            let scored =
                scorers::score_qa_run_with_progress(run, &st.config, 2048, &mut |done, total| {
                    let t = now();
                    if t - last > 100.0 {
                        last = t;
                        post(
                            scope,
                            &Response::Progress {
                                run_id,
                                stage: "scoring".into(),
                                done,
                                total: total.max(1),
                            },
                        );
                    }
                });
            stage_ms.push(("score".into(), now() - t_score));
            let run = Run {
                id: run_id,
                name,
                demo,
                scored,
                load_ms: now() - t0,
                stage_ms,
                provenance,
            };
            let i = info(&run);
            st.runs.retain(|r| r.id != run_id);
            st.runs.push(run);
            post(scope, &Response::Loaded { info: i });
        }
        Err(err) => post_load_failed(scope, run_id, name, err),
    }
}

/// Every request but `Load`.
#[inline(never)]
fn answer(scope: &DedicatedWorkerGlobalScope, st: &mut State, req: Request) {
    match req {
        // Answered by [`load`].
        Request::Load { .. } => {}
        Request::Configure { config } => {
            st.config = config.clone();
            let mut infos = Vec::new();
            for r in st.runs.iter_mut() {
                let run = std::mem::take(&mut r.scored.run);
                r.scored = scorers::score_qa_run(run, &config);
                infos.push(info(r));
            }
            post(scope, &Response::Rescored { runs: infos });
        }
        Request::Remove { run_id } => {
            st.runs.retain(|r| r.id != run_id);
            st.evalsets.retain(|r| r.id != run_id);
        }
        Request::Evalset { req, run_id } => match st.evalsets.iter().find(|r| r.id == run_id) {
            Some(e) => post(
                scope,
                &Response::Evalset {
                    req,
                    run_id,
                    view: Box::new(families::evalset_view(&e.state)),
                },
            ),
            None => no_run(scope, req, run_id),
        },
        Request::Compare {
            req,
            baseline,
            candidate,
            query,
        } => {
            let other = elsewhere(&[baseline, candidate]);
            post_compare(
                scope,
                req,
                (baseline, candidate),
                (side(st, &other, baseline), side(st, &other, candidate)),
                &query,
            );
        }
        Request::Series {
            req,
            runs,
            step,
            query,
            dark,
        } => {
            let other = elsewhere(&runs);
            let sides: Result<Vec<_>, RunId> = runs
                .iter()
                .map(|id| side(st, &other, *id).ok_or(*id))
                .collect();
            post_series(scope, req, sides, step, &query, dark);
        }
        Request::ConfigureEvalset {
            scorer,
            pass_threshold,
        } => {
            st.evalset_opts = evalboard_engine::evalset::ScoringOptions {
                scorer,
                pass_threshold,
            };
            let opts = st.evalset_opts.clone();
            let mut infos = Vec::new();
            for e in st.evalsets.iter_mut() {
                e.state.rescore(&opts);
                infos.push(evalset_info(e));
            }
            post(scope, &Response::Rescored { runs: infos });
        }
        Request::Overview { req, run_id, dark } => match st.runs.iter().find(|r| r.id == run_id) {
            Some(r) => {
                let overview = views::overview(&r.scored, 10);
                let charts = charts::qa_charts(&overview.stats, dark);
                post(
                    scope,
                    &Response::Overview {
                        req,
                        run_id,
                        overview: Box::new(overview),
                        charts,
                    },
                );
            }
            None => post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message: format!("no run {run_id}"),
                },
            ),
        },
        Request::Items { req, run_id, query } => match st.runs.iter().find(|r| r.id == run_id) {
            Some(r) => post(
                scope,
                &Response::Items {
                    req,
                    run_id,
                    page: views::items(&r.scored, &query),
                },
            ),
            None => post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message: format!("no run {run_id}"),
                },
            ),
        },
        Request::Conversation { req, run_id, conv } => {
            match st.runs.iter().find(|r| r.id == run_id) {
                Some(r) => post(
                    scope,
                    &Response::Conversation {
                        req,
                        run_id,
                        view: views::conversation(&r.scored, conv),
                    },
                ),
                None => post(
                    scope,
                    &Response::Error {
                        req: Some(req),
                        message: format!("no run {run_id}"),
                    },
                ),
            }
        }
        Request::Report {
            req,
            run_id,
            baseline,
            generated_at,
        } => post(scope, &report(st, req, run_id, baseline, generated_at)),
        // Answered by the code-generation worker when it holds the run.
        Request::Codegen { req, run_id, .. } => no_run(scope, req, run_id),
        Request::Export { req, run_id, file } => match crate::exports::export_run(
            st.runs.iter().find(|r| r.id == run_id).map(|r| &r.scored),
            st.evalsets
                .iter()
                .find(|e| e.id == run_id)
                .map(|e| e.state.headline()),
            &file,
        ) {
            Some(made) => post_export(scope, req, run_id, made.map(|text| (file, text))),
            None => no_run(scope, req, run_id),
        },
    }
}

/// The HTML report of run `run_id` (vs `baseline`), as an `Export` response.
fn report(
    st: &State,
    req: crate::protocol::ReqId,
    run_id: RunId,
    baseline: Option<RunId>,
    generated_at: String,
) -> Response {
    // Any loaded run as (report run, its name, its files' provenance).
    let find = |id: RunId| -> Option<(ReportRun<'_>, &str, &[FileProvenance])> {
        if let Some(r) = st.runs.iter().find(|r| r.id == id) {
            return Some((ReportRun::Qa(&r.scored), &r.name, &r.provenance));
        }
        st.evalsets.iter().find(|e| e.id == id).map(|e| {
            (
                ReportRun::Evalset(e.state.headline(), &e.state.run.diagnostics),
                e.name.as_str(),
                e.provenance.as_slice(),
            )
        })
    };
    let Some((run, name, prov)) = find(run_id) else {
        return Response::Error {
            req: Some(req),
            message: format!("no run {run_id}"),
        };
    };
    let base = baseline.filter(|b| *b != run_id).and_then(find);
    report_response(
        req,
        run_id,
        name,
        (run, prov),
        base.map(|(r, _, p)| (r, p)),
        generated_at,
    )
}

/// The single-file HTML report of `run` (compared with `baseline`), with the input files'
/// provenance, as the `Export` response that downloads it.
pub(crate) fn report_response(
    req: crate::protocol::ReqId,
    run_id: RunId,
    name: &str,
    run: (ReportRun, &[FileProvenance]),
    baseline: Option<(ReportRun, &[FileProvenance])>,
    generated_at: String,
) -> Response {
    let mut files = run.1.to_vec();
    if let Some((_, b)) = &baseline {
        files.extend(b.iter().cloned());
    }
    let text = render_report(&ReportInput {
        runs: vec![run.0],
        baseline: baseline.map(|b| b.0),
        provenance: Provenance {
            generated_at,
            generator: "evalboard dashboard".into(),
            files,
        },
        options: HtmlOptions::default(),
    });
    Response::Export {
        req,
        run_id,
        file: report_file_name(name),
        text,
    }
}

/// Posts an output file (download name, text), or why it cannot be made.
pub(crate) fn post_export(
    scope: &DedicatedWorkerGlobalScope,
    req: crate::protocol::ReqId,
    run_id: RunId,
    file: Result<(String, String), String>,
) {
    post(
        scope,
        &match file {
            Ok((file, text)) => Response::Export {
                req,
                run_id,
                file,
                text,
            },
            Err(message) => Response::Error {
                req: Some(req),
                message,
            },
        },
    );
}

/// Posts the comparison of two runs, or which of them is missing.
pub(crate) fn post_compare(
    scope: &DedicatedWorkerGlobalScope,
    req: crate::protocol::ReqId,
    (baseline, candidate): (RunId, RunId),
    sides: (Option<families::Side>, Option<families::Side>),
    query: &crate::protocol::CompareQuery,
) {
    match sides {
        (Some(b), Some(c)) => post(
            scope,
            &Response::Compare {
                req,
                view: Box::new(families::compare_view(&b, &c, query)),
            },
        ),
        (None, _) => no_run(scope, req, baseline),
        (_, None) => no_run(scope, req, candidate),
    }
}

/// Posts a series of runs (two or more: consecutive comparisons, metadata, charts), or which
/// run is missing.
pub(crate) fn post_series(
    scope: &DedicatedWorkerGlobalScope,
    req: crate::protocol::ReqId,
    sides: Result<Vec<families::Side>, RunId>,
    step: u32,
    query: &crate::protocol::CompareQuery,
    dark: bool,
) {
    match sides {
        Ok(sides) if sides.len() >= 2 => post(
            scope,
            &Response::Series {
                req,
                view: Box::new(families::series_view(&sides, step as usize, query, dark)),
            },
        ),
        Ok(_) => post(
            scope,
            &Response::Error {
                req: Some(req),
                message: "a comparison needs two runs or more".into(),
            },
        ),
        Err(id) => no_run(scope, req, id),
    }
}

/// `evalboard-report-<run>.html`, with the run name made safe for a file name.
fn report_file_name(run: &str) -> String {
    let safe: String = run
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    format!("evalboard-report-{safe}.html")
}
