//! Watching a folder as a run writes it (issue 30): the page sends a `FileSystemDirectoryHandle`
//! (`showDirectoryPicker`, a dropped folder's `getAsFileSystemHandle`, an OPFS folder), and this
//! worker reads the folder's JSONL files as they grow, the bytes appended since the last round
//! only (`File.slice` from the last offset), through the engine's
//! [`evalboard_engine::run::live::LiveRun`]: only new items are scored, a half-written last line
//! waits for the next round. A new (or rewritten) trace file of a financial-agent-2 trace folder
//! is read on its own, whole ([`evalboard_engine::run::live::LiveFiles`]): only its turns are
//! scored.
//!
//! Changes are learnt from `FileSystemObserver` where the browser has it, and by polling sizes
//! and `lastModified` every second otherwise (backing off to 5 s while nothing changes; with
//! an observer the poll stays at 5 s as a safety net). After each round the page gets
//! `Response::Live` (items, accuracy with its CI, items/s, time since the last item; stalled
//! after [`STALL_S`] with no new item). The handle is kept in IndexedDB (`watch/<time>`) so the
//! watch resumes after a reload while the permission holds; `Remove` stops it and forgets it.
//! The browser APIs are reached by name (`js_sys::Reflect`), as in `keep`.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::DedicatedWorkerGlobalScope;

use evalboard_engine::evallog::eval_file::ByteSource;
use evalboard_engine::live::LiveNumbers;
use evalboard_engine::run::live::{self, LiveArchive, LiveFiles, LiveRun};
use evalboard_engine::run::{FamilySet, Settings};

use super::browser_files::BlobAt;
use super::keep::{call, call_now, get, idb, set};
use super::runtime::{now, post};
use crate::format::{pct, NONE};
use crate::protocol::{Block, LiveStatus, Response, RunId, StoredRun, WatchState};

/// Seconds with no new item before a watched run is marked stalled, unless the page set
/// another time (`Request::WatchStall`, the watch panel's "Stalled after" setting).
pub(crate) const STALL_S: f64 = 300.0;
/// Poll intervals: after a change, and the longest while nothing changes.
const FAST_MS: f64 = 1000.0;
const SLOW_MS: f64 = 5000.0;
/// Most files and folder levels a watch looks at (a folder is a run's output, not a disk).
const MAX_FILES: usize = 2000;
const MAX_DEPTH: usize = 6;
/// The most bytes read from a file at once.
const CHUNK: f64 = 8.0 * 1024.0 * 1024.0;
/// The longest one read of the folder (a listing step, a `getFile`, a slice) may take before
/// the round leaves it to the next one.
const READ_TIMEOUT_MS: f64 = 10_000.0;
/// The IndexedDB keys of kept watches start with this.
const KEY_PREFIX: &str = "watch/";

/// The shortest time between two full reads of a watched folder as a run of the run list
/// ([`Materialize`]); the wait is also ten times what the last one took, so that reading a
/// growing run whole again stays under a tenth of the worker's time.
const LOAD_EVERY_MS: f64 = 1000.0;
/// The largest file read whole as the folder changes (a `.json` log, a `.eval`): a bigger one
/// is named as not read as it grows.
const WHOLE_MAX: f64 = 256.0 * 1024.0 * 1024.0;

/// Loads the folder's files read so far (paths under the folder's name, their bytes as
/// `ArrayBuffer`s) as run `run_id` named `name` through the worker's `Load` path: the watched
/// folder is then a run like any other (run list, Overview, Items, Compare, All runs), its name
/// marked "so far"; a run loaded again is `Rescored` for the page.
/// It answers with what the logs loaded say of themselves ([`LogState`]).
pub(crate) type Materialize = Rc<dyn Fn(RunId, String, Folder) -> Vec<LogState>>;

/// The folder as read so far: its files (paths under the folder's name, their bytes as
/// `ArrayBuffer`s) and, when one live reader holds it whole — one Inspect `.eval`
/// (`LiveArchive::read_run`), one JSONL (`LiveRun::read_run`), trace files only
/// (`LiveFiles::read_run`) — its run read so far, built from what the reader already parsed
/// (loaded with no byte read or parsed again; the bytes then come only for an `.eval`'s sample
/// drawers).
pub(crate) struct Folder {
    pub paths: Vec<String>,
    pub buffers: Array,
    /// The runs read so far, from what the live readers parsed (a folder of several logs: one a
    /// log); empty when the folder is to be read whole from `buffers`.
    pub read: Vec<evalboard_engine::run::live::SoFar>,
}

/// A log of the watched folder as loaded whole: its run's name, the status it records (an
/// Inspect log's `started`, `success`, `error`, `cancelled`; an OpenAI Evals file's `complete`
/// once its final report is written) and its items so far.
pub(crate) struct LogState {
    pub name: String,
    /// It is an Inspect `.eval` of the folder (read as it grows: its numbers are the watch's own).
    pub archive: bool,
    pub status: Option<String>,
    pub items: usize,
    /// The items it says it holds once complete (an Inspect log's samples × epochs).
    pub declared: Option<u64>,
}

thread_local! {
    static WATCHES: RefCell<HashMap<RunId, Rc<RefCell<Watch>>>> = RefCell::new(HashMap::new());
    static STALL: std::cell::Cell<f64> = const { std::cell::Cell::new(STALL_S) };
}

/// Sets the time with no new item after which a watched run is marked stalled (every watch;
/// 0 keeps the default).
pub(crate) fn set_stall(seconds: u32) {
    let s = if seconds == 0 {
        STALL_S
    } else {
        f64::from(seconds)
    };
    STALL.with(|c| c.set(s));
}

/// The Settings changed: each watch reads what it holds again under them (a JSONL's bytes so
/// far, its held tail with them; each trace read on its own), so that the panel's numbers are
/// judged as its run, which the store scores again under them, and the run so far is loaded
/// again at the next round. An `.eval`'s samples are judged by the scores the log records, which
/// no setting changes: kept as read.
pub(crate) fn configure<const FAMILIES: FamilySet>(settings: &Settings) {
    let watches: Vec<Rc<RefCell<Watch>>> = WATCHES.with(|m| m.borrow().values().cloned().collect());
    for watch in watches {
        let Ok(mut w) = watch.try_borrow_mut() else {
            continue;
        };
        if w.settings == *settings {
            continue;
        }
        w.settings = settings.clone();
        let mut alone = LiveFiles::new_in::<FAMILIES>(settings);
        let Watch {
            name,
            files,
            alone: before,
            ..
        } = &mut *w;
        for (path, f) in files.iter_mut() {
            if let Some(old) = &f.live {
                let mut live = LiveRun::new_in::<FAMILIES>(old.path(), settings);
                // It read as this format before: it does again.
                let _ = live.append(&f.bytes);
                f.live = Some(live);
            }
            let named = format!("{name}/{path}");
            if before.has(&named) {
                let _ = alone.put(&named, &f.bytes);
            }
        }
        w.alone = alone;
        w.dirty = true;
    }
}

type Js<T> = Result<T, JsValue>;

/// One watched folder.
struct Watch {
    name: String,
    dir: JsValue,
    /// Its IndexedDB key, once kept.
    key: Option<String>,
    files: BTreeMap<String, Watched>,
    /// The files read on their own as they come (a trace folder's traces).
    alone: LiveFiles,
    settings: Settings,
    stopped: Option<String>,
    /// performance.now() of the first round that found items, and its item count.
    first: Option<(f64, u64)>,
    last_item_ms: Option<f64>,
    items: u64,
    /// Wakes the sleeping loop (the observer's callback calls it).
    wake: Option<Function>,
    observer: Option<JsValue>,
    interval_ms: f64,
    /// A file changed since the run was last loaded whole, and when it may be loaded again.
    dirty: bool,
    next_load_ms: f64,
    materialize: Materialize,
    /// The logs as last loaded whole.
    logs: Vec<LogState>,
    /// The most samples the Inspect logs loaded whole held at once: their new samples count as
    /// new items (a round whose load failed, a flush caught half-written, counts none again).
    log_items: u64,
    /// The folder was loaded as a run at least once (else, when the watch ends, its run
    /// entry is told it failed, with why).
    loaded: bool,
    /// Waiting for the permission to read the folder ([`wait_permission`]).
    waiting: bool,
}

/// One file of the folder.
struct Watched {
    /// `None`: the file is not read as it grows (not a JSONL of an appendable format).
    live: Option<LiveRun>,
    /// An Inspect `.eval`, read from its end and its new members on each change; `bytes` then
    /// holds the bytes read so far at their offsets (end records, directory, members' local
    /// headers and data), enough for the run loaded whole, and `readable` says they end in the
    /// directory last read.
    archive: Option<LiveArchive>,
    readable: bool,
    offset: f64,
    modified: f64,
    note: Option<String>,
    /// The file's bytes read so far (of a live file: every byte appended; of another: the
    /// whole file as last read), for the run loaded whole ([`Materialize`]).
    bytes: Vec<u8>,
}

impl Watched {
    /// The bytes the run is loaded with: a live file's complete lines (a held half line is not
    /// read), another file whole.
    fn complete(&self) -> &[u8] {
        match &self.live {
            _ if self.archive.is_some() && !self.readable => &[],
            Some(live) => {
                let n = usize::try_from(live.numbers().bytes_read).unwrap_or(usize::MAX);
                &self.bytes[..n.min(self.bytes.len())]
            }
            None => &self.bytes,
        }
    }
}

/// Starts watching the folder `dir` as run `run_id` (with `key`: a watch kept from an earlier
/// visit, whose handle is in IndexedDB).
pub(crate) fn start<const FAMILIES: FamilySet>(
    scope: &DedicatedWorkerGlobalScope,
    (run_id, name): (RunId, String),
    dir: JsValue,
    key: Option<String>,
    (settings, materialize): (Settings, Materialize),
) {
    stop(run_id, false);
    let watch = Rc::new(RefCell::new(Watch {
        name,
        dir,
        key,
        files: BTreeMap::new(),
        alone: LiveFiles::new_in::<FAMILIES>(&settings),
        settings,
        stopped: None,
        first: None,
        last_item_ms: None,
        items: 0,
        wake: None,
        observer: None,
        interval_ms: FAST_MS,
        dirty: false,
        next_load_ms: 0.0,
        materialize,
        logs: Vec::new(),
        log_items: 0,
        loaded: false,
        waiting: false,
    }));
    WATCHES.with(|w| w.borrow_mut().insert(run_id, watch.clone()));
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        run::<FAMILIES>(&scope, run_id, &watch).await;
    });
}

/// Run `run_id` is a watched folder's.
pub(crate) fn is_watched(run_id: RunId) -> bool {
    WATCHES.with(|w| w.borrow().contains_key(&run_id))
}

/// Stops watch `run_id` (the page removed it); `forget`: its kept handle goes too.
pub(crate) fn stop(run_id: RunId, forget: bool) {
    let Some(w) = WATCHES.with(|w| w.borrow_mut().remove(&run_id)) else {
        return;
    };
    let mut w = w.borrow_mut();
    w.stopped = Some("The watch was removed.".into());
    if let Some(o) = w.observer.take() {
        let _ = call_now(&o, "disconnect", &[]);
    }
    if let Some(wake) = w.wake.take() {
        let _ = wake.call0(&JsValue::UNDEFINED);
    }
    if let (true, Some(key)) = (forget, w.key.take()) {
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(db) = idb::open().await {
                idb::remove(&db, &key).await;
            }
        });
    }
}

/// The watches kept from earlier visits (the page watches each again with `Watch { stored }`).
pub(crate) async fn list(scope: &DedicatedWorkerGlobalScope) {
    let Ok(watches) = kept().await else { return };
    if !watches.is_empty() {
        post(scope, &Response::Watches { watches });
    }
}

async fn kept() -> Js<Vec<StoredRun>> {
    let db = idb::open().await?;
    let (_, store) = idb::store(&db, "readonly")?;
    let keys = idb::settle(&call_now(&store, "getAllKeys", &[])?, "success", "error");
    let records = idb::settle(&call_now(&store, "getAll", &[])?, "success", "error");
    let (keys, records) = (Array::from(&keys.await?), Array::from(&records.await?));
    Ok(keys
        .iter()
        .zip(records.iter())
        .filter_map(|(k, r)| {
            let key = k.as_string().filter(|k| k.starts_with(KEY_PREFIX))?;
            let name = get(&r, "name").ok()?.as_string()?;
            Some(StoredRun {
                key,
                name,
                paths: Vec::new(),
            })
        })
        .collect())
}

/// The handle kept under `key`.
pub(crate) async fn kept_handle(key: &str) -> Js<JsValue> {
    let db = idb::open().await?;
    let (_, store) = idb::store(&db, "readonly")?;
    let record = idb::settle(&call_now(&store, "get", &[key.into()])?, "success", "error").await?;
    get(&record, "handle")
}

/// Keeps the watch's handle in IndexedDB (a handle is structured-cloneable there).
async fn keep(name: &str, dir: &JsValue) -> Js<String> {
    let db = idb::open().await?;
    let key = format!("{KEY_PREFIX}{:016}", js_sys::Date::now() as u64);
    let (tx, store) = idb::store(&db, "readwrite")?;
    let done = idb::settle(&tx, "complete", "abort");
    let record = Object::new();
    set(&record, "name", &name.into());
    set(&record, "handle", dir);
    call_now(&store, "put", &[record.into(), key.as_str().into()])?;
    done.await?;
    Ok(key)
}

/// The watch loop: a round, its status to the page, then sleep until the observer or the poll
/// interval wakes it.
async fn run<const FAMILIES: FamilySet>(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    watch: &Rc<RefCell<Watch>>,
) {
    let dir = watch.borrow().dir.clone();
    // The permission: an OPFS folder has it; a picked folder has it in this visit; a kept one
    // needs the user's yes again after a reload (asked on the page, which has the gesture).
    if let Some(state) = permission(&dir).await {
        if state != "granted" {
            let name = watch.borrow().name.clone();
            let message = if state == "prompt" {
                format!(
                    "Reading “{name}” needs your permission again (the browser asks after the \
                     page was closed): click Resume and allow it."
                )
            } else {
                format!(
                    "The browser does not let this page read “{name}” (its answer: {state}): \
                     allow it in the site's settings, then click Resume."
                )
            };
            if !wait_permission(scope, run_id, watch, message).await {
                return;
            }
        }
    }
    if watch.borrow().key.is_none() {
        let name = watch.borrow().name.clone();
        if let Ok(key) = keep(&name, &dir).await {
            watch.borrow_mut().key = Some(key);
        }
    }
    observe(watch).await;
    loop {
        if watch.borrow().stopped.is_some() {
            return;
        }
        match round::<FAMILIES>(watch).await {
            Ok(changed) => {
                let mut w = watch.borrow_mut();
                w.interval_ms = if changed {
                    FAST_MS
                } else if w.observer.is_some() {
                    SLOW_MS
                } else {
                    (w.interval_ms * 2.0).min(SLOW_MS)
                };
            }
            // A read that did not finish (or the file changed under it): the next round reads
            // again, soon.
            Err(e) if is_transient(&e) => watch.borrow_mut().interval_ms = FAST_MS,
            Err(e) => {
                let message = stop_message(&e, &watch.borrow().name);
                // A permission revoked while watching: wait for it again (Resume).
                let asked = permission(&dir).await.is_some_and(|s| s != "granted");
                if asked && wait_permission(scope, run_id, watch, message.clone()).await {
                    continue;
                }
                return end(scope, run_id, watch, message);
            }
        }
        if watch.borrow().stopped.is_some() {
            return;
        }
        load_whole(run_id, watch);
        post(
            scope,
            &Response::Live {
                run_id,
                status: status(&watch.borrow()),
            },
        );
        let ms = watch.borrow().interval_ms;
        sleep(watch, ms).await;
    }
}

/// Loads the folder's files read so far as run `run_id` when a file changed and the last load
/// is far enough behind ([`LOAD_EVERY_MS`]).
fn load_whole(run_id: RunId, watch: &Rc<RefCell<Watch>>) {
    let t = now();
    let (name, folder, materialize) = {
        let w = watch.borrow();
        // An `.eval` caught mid-write: loaded once its end reads again.
        let unreadable = w
            .files
            .values()
            .any(|f| f.archive.is_some() && !f.readable && !f.bytes.is_empty());
        if !w.dirty || t < w.next_load_ms || unreadable {
            return;
        }
        let name = crate::protocol::so_far(&w.name);
        let held: Vec<(String, &Watched, &[u8])> = w
            .files
            .iter()
            .map(|(path, f)| (format!("{}/{path}", w.name), f, f.complete()))
            .filter(|(_, _, bytes)| !bytes.is_empty())
            .collect();
        // A folder live readers hold whole — numeric QA JSONL files and traces, or eval logs
        // (Inspect `.eval`, OpenAI Evals and promptfoo JSONL) — its run(s) from what the readers
        // already parsed, as a full read of the same bytes gives them.
        let traces = held.iter().filter(|(p, ..)| w.alone.has(p)).count();
        let lives: Vec<&LiveRun> = held
            .iter()
            .filter_map(|(_, f, _)| f.live.as_ref())
            .collect();
        let logs = || {
            held.iter()
                .map(|(_, f, bytes)| match (&f.archive, &f.live) {
                    (Some(a), _) => Some(live::LiveLog::Archive(a, bytes.len() as u64)),
                    (None, Some(l)) => Some(live::LiveLog::Lines(l)),
                    (None, None) => None,
                })
                .collect::<Option<Vec<_>>>()
                .and_then(|logs| live::log_parts_so_far(&name, &logs))
        };
        let read = (traces == w.alone.len() && traces + lives.len() == held.len())
            .then(|| live::qa_folder_so_far(&name, &lives, &w.alone))
            .flatten()
            .map(|s| vec![s])
            .or_else(logs)
            .unwrap_or_default();
        // The bytes go with the run for a full read, and for an `.eval`'s sample drawers.
        let archive = held.iter().any(|(_, f, _)| f.archive.is_some());
        let buffers = Array::new();
        if read.is_empty() || archive {
            for (_, _, bytes) in &held {
                buffers.push(&Uint8Array::from(*bytes).buffer());
            }
        }
        let paths = held.into_iter().map(|(p, ..)| p).collect();
        let folder = Folder {
            paths,
            buffers,
            read,
        };
        (name, folder, w.materialize.clone())
    };
    watch.borrow_mut().dirty = false;
    if folder.paths.is_empty() {
        return;
    }
    let logs = materialize(run_id, name, folder);
    let done = now();
    let mut w = watch.borrow_mut();
    w.next_load_ms = done + LOAD_EVERY_MS.max(10.0 * (done - t));
    // An Inspect log's samples (status `started` while it runs) are items done, as a JSONL's.
    let samples: u64 = logs
        .iter()
        .filter(|l| {
            !l.archive
                && matches!(
                    l.status.as_deref(),
                    Some("started" | "success" | "error" | "cancelled")
                )
        })
        .map(|l| l.items as u64)
        .sum();
    if samples > w.log_items {
        w.items += samples - w.log_items;
        w.log_items = samples;
        w.last_item_ms = Some(done);
        if w.first.is_none() {
            w.first = Some((done, w.items));
        }
    }
    w.logs = logs;
    w.loaded = true;
}

/// The watch ends with `message`, told to the page.
fn end(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    watch: &Rc<RefCell<Watch>>,
    message: String,
) {
    let mut w = watch.borrow_mut();
    if !w.loaded {
        // Its run (listed by the page as "watching") never loaded: it failed, and why.
        post(
            scope,
            &Response::LoadFailed {
                run_id,
                name: crate::protocol::so_far(&w.name),
                error: message.clone(),
                files: Vec::new(),
                diagnostics: Vec::new(),
                part_of: None,
            },
        );
    }
    w.stopped = Some(message);
    if let Some(o) = w.observer.take() {
        let _ = call_now(&o, "disconnect", &[]);
    }
    post(
        scope,
        &Response::Live {
            run_id,
            status: status(&w),
        },
    );
}

/// Waits until the folder may be read again: a worker cannot ask for the permission (the prompt
/// needs a click), so the watch shows `message` with "Resume", which asks on the page
/// (`ui::watch::resume`), and looks at the permission every second. `false` when the watch was
/// removed first.
async fn wait_permission(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    watch: &Rc<RefCell<Watch>>,
    message: String,
) -> bool {
    let dir = watch.borrow().dir.clone();
    {
        let mut w = watch.borrow_mut();
        w.stopped = Some(message);
        w.waiting = true;
    }
    post(
        scope,
        &Response::Live {
            run_id,
            status: status(&watch.borrow()),
        },
    );
    loop {
        sleep(watch, FAST_MS).await;
        let current = WATCHES.with(|m| {
            m.borrow()
                .get(&run_id)
                .is_some_and(|w| Rc::ptr_eq(w, watch))
        });
        if !current {
            return false;
        }
        if permission(&dir).await.as_deref() == Some("granted") {
            let mut w = watch.borrow_mut();
            w.stopped = None;
            w.waiting = false;
            return true;
        }
    }
}

/// Why a round failed, in words.
fn stop_message(e: &JsValue, name: &str) -> String {
    let kind = get(e, "name")
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    match kind.as_str() {
        "NotAllowedError" | "SecurityError" => {
            format!("The permission to read “{name}” was revoked: click Resume to allow it again.")
        }
        "NotFoundError" => format!("“{name}” is gone (moved or deleted): the watch stopped."),
        _ => format!(
            "Reading “{name}” failed ({}): the watch stopped.",
            crate::js_error::js_err(e.clone())
        ),
    }
}

/// The handle's read permission (`None`: the browser does not say, as for OPFS in some).
async fn permission(dir: &JsValue) -> Option<String> {
    let opts = Object::new();
    set(&opts, "mode", &"read".into());
    call(dir, "queryPermission", &[opts.into()])
        .await
        .ok()?
        .as_string()
}

/// Registers a `FileSystemObserver` on the folder where the browser has one: its callback wakes
/// the loop at once. Where `observe` fails the poll alone watches.
async fn observe(watch: &Rc<RefCell<Watch>>) {
    let Ok(ctor) = get(&js_sys::global(), "FileSystemObserver") else {
        return;
    };
    let Ok(ctor) = ctor.dyn_into::<Function>() else {
        return;
    };
    let w = Rc::downgrade(watch);
    let callback = Closure::<dyn FnMut()>::new(move || {
        if let Some(w) = w.upgrade() {
            let wake = w.borrow_mut().wake.take();
            if let Some(wake) = wake {
                let _ = wake.call0(&JsValue::UNDEFINED);
            }
        }
    });
    let Ok(observer) = js_sys::Reflect::construct(&ctor, &Array::of1(callback.as_ref())) else {
        return;
    };
    callback.forget();
    let opts = Object::new();
    set(&opts, "recursive", &true.into());
    let dir = watch.borrow().dir.clone();
    if call(&observer, "observe", &[dir, opts.into()])
        .await
        .is_ok()
    {
        watch.borrow_mut().observer = Some(observer);
    }
}

/// Sleeps `ms`, or less when the observer (or a stop) wakes the loop.
async fn sleep(watch: &Rc<RefCell<Watch>>, ms: f64) {
    let promise = Promise::new(&mut |resolve: Function, _| {
        let global = js_sys::global();
        let _ = call_now(&global, "setTimeout", &[resolve.clone().into(), ms.into()]);
        watch.borrow_mut().wake = Some(resolve);
    });
    let _ = JsFuture::from(promise).await;
    watch.borrow_mut().wake = None;
}

/// One round: every file of the folder looked at, the bytes appended to each read. `true` when
/// a file changed.
async fn round<const FAMILIES: FamilySet>(watch: &Rc<RefCell<Watch>>) -> Js<bool> {
    let dir = watch.borrow().dir.clone();
    let mut handles = Vec::new();
    list_files(&dir, "", 0, &mut handles).await?;
    let mut changed = false;
    for (path, handle) in handles {
        // A file deleted since the listing is looked at no more (the folder's listing said it).
        let Ok(file) = call_timed(&handle, "getFile", &[]).await else {
            continue;
        };
        let size = get(&file, "size")?.as_f64().unwrap_or(0.0);
        let modified = get(&file, "lastModified")?.as_f64().unwrap_or(0.0);
        let (offset, known_modified, is_new) = {
            let w = watch.borrow();
            match w.files.get(&path) {
                Some(f) => (f.offset, f.modified, false),
                None => (0.0, -1.0, true),
            }
        };
        if !is_new && size == offset && modified == known_modified {
            continue;
        }
        changed = true;
        // A file that shrank was written anew: read from its start.
        let from = if size < offset { 0.0 } else { offset };
        // An `.eval` is never read anew: a member is read again only when it changed.
        let archive = is_archive(&path);
        if is_new || (from == 0.0 && !archive) {
            let mut w = watch.borrow_mut();
            let watched = new_file::<FAMILIES>(&path, &w.name, &w.settings);
            w.files.insert(path.clone(), watched);
        }
        if archive {
            let n = read_archive(watch, &path, &file, (size, modified)).await;
            counted(&mut watch.borrow_mut(), n, now());
            continue;
        }
        let live = watch
            .borrow()
            .files
            .get(&path)
            .is_some_and(|f| f.live.is_some());
        // A file not read as it grows is read whole again when it changes (a `.json` log
        // rewritten, a `.eval` whose central directory moved on), up to WHOLE_MAX.
        if !live && size > WHOLE_MAX {
            let mut w = watch.borrow_mut();
            if let Some(f) = w.files.get_mut(&path) {
                (f.offset, f.modified, f.bytes) = (size, modified, Vec::new());
                f.note = Some(format!(
                    "{path} is over {} MB: it is not read as it changes (drop the folder for a \
                     full read)",
                    WHOLE_MAX / 1048576.0
                ));
            }
            continue;
        }
        let from = if live { from } else { 0.0 };
        // The appended bytes (or the whole file), a slice of at most CHUNK at a time (a big
        // file met for the first time is never read in one piece). A slice the browser cannot
        // read (the file changed since `getFile`: NotReadableError) is read again next round,
        // from where it stopped.
        let mut new_items = 0u64;
        let mut at = from;
        let mut done = true;
        let mut whole = Vec::new();
        let mut reread = false;
        while at < size {
            let end = size.min(at + CHUNK);
            let bytes = match read_slice(&file, at, end).await {
                Ok(b) => b,
                Err(e) if is_transient(&e) => {
                    done = false;
                    break;
                }
                Err(e) => return Err(e),
            };
            at = end;
            if !live {
                whole.extend_from_slice(&bytes);
                continue;
            }
            let mut w = watch.borrow_mut();
            let Some(f) = w.files.get_mut(&path) else {
                break;
            };
            f.offset = at;
            f.bytes.extend_from_slice(&bytes);
            let Some(live) = f.live.as_mut() else { break };
            match live.append(&bytes) {
                Ok(n) => new_items += n as u64,
                Err(_) => {
                    // Read whole from the next round on, as any file.
                    reread = true;
                    f.live = None;
                    f.note = Some(format!(
                        "{path} is not a QA JSONL, OpenAI Evals or promptfoo .jsonl file: its \
                         numbers are not counted as it grows"
                    ));
                }
            }
        }
        let t = now();
        let mut w = watch.borrow_mut();
        w.dirty = true;
        if done && !live && path.to_ascii_lowercase().ends_with(".json") {
            // A trace of a trace folder, new or written again: read alone, its turns scored.
            let named = format!("{}/{path}", w.name);
            if let Ok(n) = w.alone.put(&named, &whole) {
                new_items += n as u64;
            }
        }
        if let (true, Some(f)) = (done, w.files.get_mut(&path)) {
            f.offset = size;
            f.modified = if reread { -1.0 } else { modified };
            if !live {
                f.bytes = whole;
            }
        }
        counted(&mut w, new_items, t);
    }
    Ok(changed)
}

/// `n` new items seen at `t`.
fn counted(w: &mut Watch, n: u64, t: f64) {
    if n > 0 {
        w.items += n;
        w.last_item_ms = Some(t);
        if w.first.is_none() {
            w.first = Some((t, w.items));
        }
    }
}

/// An Inspect `.eval` (its name says so).
fn is_archive(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".eval")
}

/// A file read through [`BlobAt`] whose reads are kept (at their offsets) when `keep`.
struct Recording {
    file: BlobAt,
    pieces: Vec<(u64, Vec<u8>)>,
    keep: bool,
}

impl ByteSource for Recording {
    fn size(&self) -> u64 {
        self.file.size()
    }
    async fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        let bytes = self.file.read_at(at, len).await?;
        if self.keep {
            self.pieces.push((at, bytes.clone()));
        }
        Ok(bytes)
    }
}

/// An Inspect `.eval` changed: its end records and directory read, then only its new members
/// (`LiveArchive`), the bytes read kept at their offsets for the run loaded whole. How many
/// items it gained (none when its end does not read yet: a flush caught mid-write is read again
/// at its next change, and never reported).
async fn read_archive(
    watch: &Rc<RefCell<Watch>>,
    path: &str,
    file: &JsValue,
    (size, modified): (f64, f64),
) -> u64 {
    let Some(Ok(blob)) = BlobAt::new(file) else {
        return 0;
    };
    let taken = watch
        .borrow_mut()
        .files
        .get_mut(path)
        .and_then(|f| f.archive.take());
    let Some(mut archive) = taken else { return 0 };
    let keep = size <= WHOLE_MAX;
    let mut src = Recording {
        file: blob.with_window(64 << 10),
        pieces: Vec::new(),
        keep,
    };
    let result = archive.update(&mut src, WHOLE_MAX as u64).await;
    let whole = archive.last_reads().whole;
    let mut w = watch.borrow_mut();
    let Some(f) = w.files.get_mut(path) else {
        return 0;
    };
    f.archive = Some(archive);
    (f.offset, f.modified) = (size, modified);
    let Ok(n) = result else { return 0 };
    if keep {
        f.bytes.resize(size as usize, 0);
        for (at, b) in src.pieces {
            let at = usize::try_from(at).unwrap_or(usize::MAX);
            if let Some(slot) = at
                .checked_add(b.len())
                .and_then(|end| f.bytes.get_mut(at..end))
            {
                slot.copy_from_slice(&b);
            }
        }
        f.readable = !whole;
    } else {
        (f.bytes, f.readable) = (Vec::new(), false);
        f.note = Some(format!(
            "{path} is over {} MB: its numbers are read as it grows, but it is not in the run \
             loaded whole (drop the folder for a full read)",
            WHOLE_MAX / 1048576.0
        ));
    }
    w.dirty = true;
    n as u64
}

/// Bytes `from..to` of `file`.
async fn read_slice(file: &JsValue, from: f64, to: f64) -> Js<Vec<u8>> {
    let part = call_now(file, "slice", &[from.into(), to.into()])?;
    let buf = call_timed(&part, "arrayBuffer", &[]).await?;
    Ok(Uint8Array::new(&buf).to_vec())
}

/// A read that fails because the file is being written (tried again next round).
fn is_transient(e: &JsValue) -> bool {
    let kind = get(e, "name").ok().and_then(|n| n.as_string());
    matches!(
        kind.as_deref(),
        Some("NotReadableError" | "InvalidStateError" | "TimeoutError")
    )
}

/// `obj.name(...args)` awaited, given up after [`READ_TIMEOUT_MS`] with a `TimeoutError`
/// (transient: read again next round), so that a browser read of the folder that never settles
/// cannot stall the watch.
async fn call_timed(obj: &JsValue, name: &str, args: &[JsValue]) -> Js<JsValue> {
    let p = Promise::resolve(&call_now(obj, name, args)?);
    let timeout = Promise::new(&mut |_, reject: Function| {
        let err = js_sys::Error::new("a read of the watched folder did not finish in time");
        err.set_name("TimeoutError");
        // setTimeout(reject, ms, err): the rejection of a race already settled is ignored.
        let _ = call_now(
            &js_sys::global(),
            "setTimeout",
            &[reject.into(), READ_TIMEOUT_MS.into(), err.into()],
        );
    });
    JsFuture::from(Promise::race(&Array::of2(&p, &timeout))).await
}

/// A file seen for the first time (or written anew) of folder `folder` (an `.eval`'s run reads
/// it as `folder/path`, as a drop of the folder does).
fn new_file<const FAMILIES: FamilySet>(path: &str, folder: &str, settings: &Settings) -> Watched {
    let lower = path.to_ascii_lowercase();
    let appendable = lower.ends_with(".jsonl") || lower.ends_with(".ndjson");
    Watched {
        // Named as in the run loaded whole (`folder/path`), which their reads are part of.
        live: appendable
            .then(|| LiveRun::new_in::<FAMILIES>(&format!("{folder}/{path}"), settings)),
        archive: is_archive(path)
            .then(|| LiveArchive::new_in::<FAMILIES>(&format!("{folder}/{path}"))),
        readable: false,
        offset: 0.0,
        modified: -1.0,
        note: None,
        bytes: Vec::new(),
    }
}

/// The folder's files (path relative to the folder, handle), folders first-level down to
/// [`MAX_DEPTH`], at most [`MAX_FILES`]; hidden files and `.crswap` swap files skipped.
async fn list_files(
    dir: &JsValue,
    prefix: &str,
    depth: usize,
    out: &mut Vec<(String, JsValue)>,
) -> Js<()> {
    let iter = call_now(dir, "values", &[])?;
    let mut subdirs = Vec::new();
    while out.len() < MAX_FILES {
        let step = call_timed(&iter, "next", &[]).await?;
        if get(&step, "done")?.is_truthy() {
            break;
        }
        let handle = get(&step, "value")?;
        let name = get(&handle, "name")?.as_string().unwrap_or_default();
        if name.starts_with('.') || name.ends_with(".crswap") {
            continue;
        }
        let path = format!("{prefix}{name}");
        match get(&handle, "kind")?.as_string().as_deref() {
            Some("file") => out.push((path, handle)),
            Some("directory") if depth + 1 < MAX_DEPTH => subdirs.push((path, handle)),
            _ => {}
        }
    }
    for (path, handle) in subdirs {
        Box::pin(list_files(&handle, &format!("{path}/"), depth + 1, out)).await?;
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(())
}

/// What the page shows of `w`: its state, and the blocks wording its numbers.
fn status(w: &Watch) -> LiveStatus {
    let t = now();
    let since_last_item_s = w.last_item_ms.map(|l| (t - l) / 1000.0);
    let items_per_s = match (w.first, w.last_item_ms) {
        (Some((t0, n0)), Some(last)) if last > t0 && w.items > n0 => {
            Some((w.items - n0) as f64 / ((last - t0) / 1000.0))
        }
        _ => None,
    };
    let stall_s = STALL.with(|c| c.get());
    // A log that says how it ended: an error or a cancellation first, then finished when
    // every log that records a status says it finished.
    let ended = |st: &str| matches!(st, "error" | "cancelled");
    let finished = |st: &str| matches!(st, "success" | "complete");
    // (log, status) of the logs read whole and the `.eval` logs read as they grow.
    let reports: Vec<(&str, &str)> = w
        .logs
        .iter()
        .filter(|l| !l.archive)
        .filter_map(|l| Some((l.name.as_str(), l.status.as_deref()?)))
        .chain(
            w.files
                .iter()
                .filter_map(|(p, f)| Some((p.as_str(), f.archive.as_ref()?.status()?))),
        )
        .collect();
    let failed = reports.iter().find(|(_, st)| ended(st));
    let statuses: Vec<&str> = reports.iter().map(|(_, st)| *st).collect();
    let state = if w.stopped.is_some() {
        WatchState::Stopped
    } else if failed.is_some() {
        WatchState::Failed
    } else if !statuses.is_empty() && statuses.iter().all(|s| finished(s)) {
        WatchState::Finished
    } else if since_last_item_s.is_some_and(|s| s >= stall_s) {
        WatchState::Stalled
    } else {
        WatchState::Running
    };
    let how = if w.stopped.is_some() {
        "not watched".into()
    } else if w.observer.is_some() {
        "FileSystemObserver".into()
    } else {
        format!("polling every {} s", (w.interval_ms / 1000.0).round())
    };
    let failed_word = failed.map(|(_, st)| st.to_ascii_uppercase());
    let (word, tone) = match state {
        WatchState::Running => ("RUNNING", "note"),
        WatchState::Stalled => ("STALLED", "warn"),
        WatchState::Stopped => ("STOPPED", "error"),
        WatchState::Finished => ("FINISHED", "note"),
        WatchState::Failed => (failed_word.as_deref().unwrap_or("ERROR"), "error"),
    };
    let mut blocks = vec![Block::Note {
        key: "watch-state".into(),
        tone: tone.into(),
        text: format!("{word} · {}", pace(items_per_s, since_last_item_s, &how)),
    }];
    // A file per line, in path order: the appendable ones with their numbers so far.
    blocks.extend(w.files.iter().filter_map(|(path, f)| {
        Some(Block::Text {
            key: "watch-file".into(),
            text: file_line(path, &f.live.as_ref()?.numbers()),
            mono: false,
        })
    }));
    // The files read on their own (a trace folder's traces), as one line.
    let alone = (!w.alone.is_empty()).then(|| w.alone.numbers());
    if let Some(n) = &alone {
        let files = match w.alone.len() {
            1 => "1 trace file".to_string(),
            k => format!("{k} trace files"),
        };
        blocks.push(Block::Text {
            key: "watch-file".into(),
            text: file_line(&files, n),
            mono: false,
        });
    }
    // The `.eval` logs read as they grow, and what the last change read of each.
    for (path, f) in &w.files {
        let Some(a) = &f.archive else { continue };
        blocks.push(Block::Text {
            key: "watch-log".into(),
            text: archive_line(path, a),
            mono: false,
        });
        blocks.push(Block::Text {
            key: "watch-reads".into(),
            text: reads_line(path, a, f.offset),
            mono: false,
        });
    }
    // The logs read whole, with the status each records.
    blocks.extend(
        w.logs
            .iter()
            .filter(|l| l.status.is_some() && !l.archive)
            .map(|l| Block::Text {
                key: "watch-log".into(),
                text: format!(
                    "{}: {} items{} · status {}",
                    l.name,
                    l.items,
                    l.declared.map(|t| format!(" (of {t})")).unwrap_or_default(),
                    l.status.as_deref().unwrap_or(NONE)
                ),
                mono: false,
            }),
    );
    // The first failures as they arrive, each file's in item order.
    let failures = w
        .files
        .iter()
        .filter_map(|(path, f)| {
            let n = f.live.as_ref()?.numbers();
            Some((path.as_str(), n.first_failures))
        })
        .chain(w.files.iter().filter_map(|(path, f)| {
            Some((path.as_str(), f.archive.as_ref()?.numbers().first_failures))
        }))
        .chain(alone.map(|n| ("trace", n.first_failures)));
    let lines: Vec<String> = failures
        .flat_map(|(path, fs)| fs.into_iter().map(move |f| failure_line(path, &f)))
        .take(evalboard_engine::live::FIRST_FAILURES)
        .collect();
    if !lines.is_empty() {
        blocks.push(Block::Text {
            key: "watch-failures-head".into(),
            text: "First failures:".into(),
            mono: false,
        });
        blocks.extend(lines.into_iter().map(|text| Block::Text {
            key: "watch-failure".into(),
            text,
            mono: false,
        }));
    }
    // The files read whole on each change, by name.
    let whole: Vec<&str> = w
        .files
        .iter()
        .filter(|(p, f)| {
            f.live.is_none()
                && f.archive.is_none()
                && !f.bytes.is_empty()
                && !w.alone.has(&format!("{}/{p}", w.name))
        })
        .map(|(p, _)| p.as_str())
        .collect();
    if !whole.is_empty() {
        blocks.push(Block::Text {
            key: "watch-whole".into(),
            text: format!("Read whole on each change: {}", whole.join(", ")),
            mono: false,
        });
    }
    let notes: Vec<&str> = w.files.values().filter_map(|f| f.note.as_deref()).collect();
    let reported =
        failed.map(|(name, st)| format!("{name} reports status {st}: the run ended early."));
    let message = w
        .stopped
        .clone()
        .or(reported)
        .or_else(|| match notes.len() {
            0 => None,
            1 => Some(notes.join("")),
            n => Some(format!(
                "{} (and {} more files not read as they grow)",
                notes[0],
                n - 1
            )),
        });
    match (message, w.waiting.then_some(w.key.as_ref()).flatten()) {
        // Waiting for the permission: "Resume" asks the browser again, on the page.
        (Some(m), Some(key)) => blocks.push(Block::Switch {
            key: "watch-message".into(),
            text: m,
            label: "Resume".into(),
            setting: ("watch.resume".into(), key.clone()),
        }),
        (Some(m), None) => blocks.push(Block::Note {
            key: "watch-message".into(),
            tone: "warn".into(),
            text: m,
        }),
        (None, _) => {}
    }
    LiveStatus {
        name: w.name.clone(),
        state,
        blocks,
    }
}

/// `log.eval: 12 items (of 20) · accuracy 66.7% (95% CI 39.1%–86.2%) · status started`.
fn archive_line(path: &str, a: &LiveArchive) -> String {
    let n = a.numbers();
    let (of, ci) = of_and_ci(&n);
    format!(
        "{path}: {} items{of} · accuracy {}{ci} · status {}",
        n.items,
        pct(n.accuracy),
        a.status().unwrap_or(NONE)
    )
}

/// `log.eval: the last change read 1 member (14.2 KB read; the file is 96.0 KB) · 9 members read in all`
/// (the bytes asked for: the end records, the directory and the new members, which on a small
/// file may overlap and add up to more than the file).
fn reads_line(path: &str, a: &LiveArchive, size: f64) -> String {
    let r = a.last_reads();
    let kb = |b: f64| format!("{:.1} KB", b / 1024.0);
    let members = match r.members {
        1 => "1 member".to_string(),
        k => format!("{k} members"),
    };
    let whole = if r.whole {
        ", the whole file: its end did not read"
    } else {
        ""
    };
    format!(
        "{path}: the last change read {members} ({} read; the file is {}{whole}) · {} members read in all",
        kb(r.bytes as f64),
        kb(size),
        a.read_so_far().0
    )
}

/// `2.5 items/s · last item 3 s ago · polling every 1 s`.
fn pace(items_per_s: Option<f64>, since_last_item_s: Option<f64>, how: &str) -> String {
    let rate = items_per_s.map_or(NONE.to_string(), |r| format!("{r:.1} items/s"));
    let last = since_last_item_s.map_or("no item yet".to_string(), |t| {
        format!("last item {t:.0} s ago")
    });
    format!("{rate} · {last} · {how}")
}

/// `run.jsonl: 12 items (of 50) · accuracy 66.7% (95% CI 39.1%–86.2%) · 2 problems`.
fn file_line(path: &str, n: &LiveNumbers) -> String {
    let (of, ci) = of_and_ci(n);
    let errored = match n.errored {
        0 => String::new(),
        k => format!(" · {k} errored"),
    };
    let problems = match n.diagnostics {
        0 => String::new(),
        1 => " · 1 problem".into(),
        k => format!(" · {k} problems"),
    };
    format!(
        "{path}: {} items{of} · accuracy {}{ci}{errored}{problems}",
        n.items,
        pct(n.accuracy)
    )
}

/// ` (of 50)` when the log declares a total, and ` (95% CI 39.1%–86.2%)` of the accuracy.
fn of_and_ci(n: &LiveNumbers) -> (String, String) {
    let of = n
        .declared_total
        .map(|t| format!(" (of {t})"))
        .unwrap_or_default();
    let ci = n
        .accuracy_ci95
        .map(|(lo, hi)| format!(" (95% CI {}–{})", pct(Some(lo)), pct(Some(hi))))
        .unwrap_or_default();
    (of, ci)
}

/// `run.jsonl · c1 · 2: “12” (expected “10”)` — model output as text, cut by the engine.
fn failure_line(path: &str, f: &evalboard_engine::live::LiveFailure) -> String {
    let got = f
        .got
        .as_deref()
        .map_or("no answer".to_string(), |g| format!("“{g}”"));
    let expected = f
        .expected
        .as_deref()
        .map_or(String::new(), |e| format!(" (expected “{e}”)"));
    format!(
        "{path} · {}: {got}{expected}",
        crate::format::item_key(&f.key)
    )
}
