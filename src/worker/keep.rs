//! Runs kept in the browser's own storage, so a reload restores the workspace (issue 17.4). A
//! dropped run is kept **after** its numbers are on screen, its files as the browser hands them
//! over (`File`s: no byte goes through wasm memory), and at start the worker lists the kept runs
//! for the page (`Response::Stored`), which loads each one again like a drop (`Request::Load`
//! with `stored`: the files come from here). Removing a run deletes its copy.
//!
//! Two stores behind one interface ([`list`], [`keep`], [`sources`], [`forget`], [`is_kept`],
//! [`remember`]), chosen once per worker: the origin private file system (OPFS) where the browser
//! has it, else IndexedDB (a private mode or an older browser without OPFS).
//! - **OPFS**: `evalboard-runs/<key>/<i>`, one file per source, and `manifest.json` (name,
//!   paths) written last: a folder without one is an interrupted copy and is deleted when the
//!   worker next lists the runs.
//! - **IndexedDB**: database `evalboard`, store `runs`, one record per run (`manifest` text and
//!   `files`, the `File`s themselves) put in one transaction: it is stored whole or not at all.
//!
//! Either way nothing of a run is half-kept: a copy that fails (a full quota) is deleted, and a
//! full quota is told as such ([`NotKept`]). The storage APIs are reached by name
//! (`js_sys::Reflect`), so a browser without them is an error message, not a missing symbol.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::protocol::{RunId, StoredRun};

const ROOT: &str = "evalboard-runs";
const MANIFEST: &str = "manifest.json";
/// IndexedDB: the database and its one object store.
const DB: &str = "evalboard";
const STORE: &str = "runs";

thread_local! {
    /// The key of each kept run, by run id (any family: the code-generation worker's runs too).
    static KEYS: RefCell<HashMap<RunId, String>> = RefCell::new(HashMap::new());
    /// The logs removed from each kept run of several (by key): the names of the runs
    /// ([`crate::protocol::RunInfo::part_of`]) not to list again when it is loaded from here.
    static REMOVED: RefCell<HashMap<String, Vec<String>>> = RefCell::new(HashMap::new());
    /// The store this worker keeps runs in, once chosen.
    static KIND: Cell<Option<Kind>> = const { Cell::new(None) };
}

/// A browser call's outcome: its error is the browser's own value (a `DOMException`), or text.
type Js<T> = Result<T, JsValue>;

/// Why a run was not kept.
pub(crate) enum NotKept {
    /// The browser's storage quota for this page is full.
    Quota,
    /// Anything else, in the browser's words.
    Failed(String),
}

impl NotKept {
    fn of(e: JsValue) -> NotKept {
        if is_quota(&e) {
            NotKept::Quota
        } else {
            NotKept::Failed(crate::js_error::js_err(e))
        }
    }

    /// What the page tells the user about run `name`.
    pub(crate) fn message(&self, name: &str) -> String {
        match self {
            NotKept::Quota => format!(
                "“{name}” is open but was not kept in this browser: the storage this browser \
                 gives the page is full. Nothing of it was stored; after a reload, drop its \
                 folder again (removing kept runs you no longer need makes room)."
            ),
            NotKept::Failed(e) => format!(
                "“{name}” is open but could not be kept in this browser ({e}): after a reload, \
                 drop its folder again."
            ),
        }
    }
}

/// A `QuotaExceededError` (OPFS writes, IndexedDB transactions).
pub(super) fn is_quota(e: &JsValue) -> bool {
    e.is_object()
        && get(e, "name").ok().and_then(|n| n.as_string()).as_deref() == Some("QuotaExceededError")
}

pub(super) fn get(obj: &JsValue, name: &str) -> Js<JsValue> {
    Reflect::get(obj, &name.into())
}

pub(super) fn set(obj: &JsValue, name: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &name.into(), value);
}

/// Calls `obj.name(...args)`.
pub(super) fn call_now(obj: &JsValue, name: &str, args: &[JsValue]) -> Js<JsValue> {
    let f: Function = get(obj, name)?
        .dyn_into()
        .map_err(|_| JsValue::from_str(&format!("this browser has no {name}()")))?;
    let args: Array = args.iter().collect();
    f.apply(obj, &args)
}

/// Calls `obj.name(...args)` and awaits the promise it returns.
pub(super) async fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> Js<JsValue> {
    let p = call_now(obj, name, args)?;
    JsFuture::from(Promise::resolve(&p)).await
}

/// The store this worker keeps runs in.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Opfs,
    Idb,
}

/// An open store: OPFS's folder of kept runs, or the IndexedDB database.
enum Store {
    Opfs(JsValue),
    Idb(JsValue),
}

/// The store, chosen on first use: OPFS when the browser gives the page a folder it can write
/// files into, else IndexedDB.
async fn store() -> Js<Store> {
    match KIND.with(Cell::get) {
        Some(Kind::Opfs) => return opfs::root().await.map(Store::Opfs),
        Some(Kind::Idb) => return idb::open().await.map(Store::Idb),
        None => {}
    }
    let opfs_error = match opfs::root().await {
        Ok(root) => {
            KIND.with(|k| k.set(Some(Kind::Opfs)));
            return Ok(Store::Opfs(root));
        }
        Err(e) => e,
    };
    match idb::open().await {
        Ok(db) => {
            KIND.with(|k| k.set(Some(Kind::Idb)));
            Ok(Store::Idb(db))
        }
        Err(e) => Err(JsValue::from_str(&format!(
            "{}; {}",
            crate::js_error::js_err(opfs_error),
            crate::js_error::js_err(e)
        ))),
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    version: u32,
    name: String,
    paths: Vec<String>,
    /// The logs of a folder of several the user removed, by run name (`folder/file`): the
    /// kept copy stays for the others, and these are not loaded from it again. (Absent from
    /// manifests written before it: none removed.)
    #[serde(default)]
    removed: Vec<String>,
}

/// The run a manifest's text describes, under `key` (`None`: not a manifest this version wrote).
fn stored_run(key: String, text: &str) -> Option<StoredRun> {
    serde_json::from_str::<Manifest>(text)
        .ok()
        .filter(|m| m.version == 1)
        .map(|m| {
            // The logs removed from it are left out when it is loaded again.
            REMOVED.with(|r| r.borrow_mut().insert(key.clone(), m.removed));
            StoredRun {
                key,
                name: m.name,
                paths: m.paths,
            }
        })
}

/// The kept runs, oldest first; an interrupted OPFS copy (no manifest) is deleted.
pub(crate) async fn list() -> Result<Vec<StoredRun>, String> {
    let out = match store().await.map_err(crate::js_error::js_err)? {
        Store::Opfs(root) => opfs::scan(&root, true).await,
        Store::Idb(db) => idb::scan(&db).await,
    };
    out.map_err(crate::js_error::js_err)
}

/// The files of kept run `key`, in the order of its paths (`File`s the intake reads like a
/// drop's).
pub(crate) async fn sources(key: &str, n: usize) -> Result<Array, String> {
    let out = match store().await.map_err(crate::js_error::js_err)? {
        Store::Opfs(root) => opfs::sources(&root, key, n).await,
        Store::Idb(db) => idb::sources(&db, key, n).await,
    };
    out.map_err(crate::js_error::js_err)
}

/// Keeps run `run_id` (`name`, its `paths` and `sources`: `File`s or `ArrayBuffer`s) under a new
/// key; on any failure (a full quota) nothing of it stays.
pub(crate) async fn keep(
    run_id: RunId,
    name: &str,
    paths: &[String],
    sources: &Array,
) -> Result<(), NotKept> {
    let store = store().await.map_err(NotKept::of)?;
    // A run kept already (the same name and files: loaded again into a restarted worker) is
    // not copied twice. OPFS folders without a manifest are left alone here: one may be another
    // run's copy still being written.
    let kept = match &store {
        Store::Opfs(root) => opfs::scan(root, false).await,
        Store::Idb(db) => idb::scan(db).await,
    }
    .map_err(NotKept::of)?;
    if let Some(same) = kept
        .into_iter()
        .find(|r| r.name == name && r.paths == paths)
    {
        remember(run_id, same.key);
        return Ok(());
    }
    let key = format!(
        "{:013}-{:06}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 1e6) as u32
    );
    let manifest = serde_json::to_string(&Manifest {
        version: 1,
        name: name.to_string(),
        paths: paths.to_vec(),
        removed: Vec::new(),
    })
    .map_err(|e| NotKept::Failed(e.to_string()))?;
    match &store {
        Store::Opfs(root) => opfs::keep(root, &key, &manifest, sources).await,
        Store::Idb(db) => idb::keep(db, &key, &manifest, sources).await,
    }
    .map_err(NotKept::of)?;
    remember(run_id, key);
    Ok(())
}

/// Run `run_id` is kept under `key` (a run loaded from its kept copy).
pub(crate) fn remember(run_id: RunId, key: String) {
    KEYS.with(|k| k.borrow_mut().insert(run_id, key));
}

/// Whether run `run_id` is kept.
pub(crate) fn is_kept(run_id: RunId) -> bool {
    KEYS.with(|k| k.borrow().contains_key(&run_id))
}

/// The runs of kept run `run_id` (a folder of several logs) the user removed, by name: loaded
/// from its copy, these are left out.
pub(crate) fn removed_of(run_id: RunId) -> Vec<String> {
    let Some(key) = KEYS.with(|k| k.borrow().get(&run_id).cloned()) else {
        return Vec::new();
    };
    REMOVED.with(|r| r.borrow().get(&key).cloned().unwrap_or_default())
}

/// Notes in the kept copy of run `parent` (a `Load` of several logs) that its log run `name`
/// was removed, so a reload does not bring it back while the folder's other runs stay kept.
/// (The last of them removed deletes the copy: [`forget`].)
pub(crate) async fn drop_part(parent: RunId, name: String) {
    let Some(key) = KEYS.with(|k| k.borrow().get(&parent).cloned()) else {
        return;
    };
    let Ok(store) = store().await else { return };
    let text = match &store {
        Store::Opfs(root) => opfs::manifest(root, &key).await,
        Store::Idb(db) => idb::manifest(db, &key).await,
    };
    let Some(mut m) = text
        .ok()
        .and_then(|t| serde_json::from_str::<Manifest>(&t).ok())
    else {
        return;
    };
    if !m.removed.contains(&name) {
        m.removed.push(name);
    }
    REMOVED.with(|r| r.borrow_mut().insert(key.clone(), m.removed.clone()));
    let Ok(text) = serde_json::to_string(&m) else {
        return;
    };
    let _ = match &store {
        Store::Opfs(root) => opfs::set_manifest(root, &key, &text).await,
        Store::Idb(db) => idb::set_manifest(db, &key, &text).await,
    };
}

/// Deletes the kept copy of run `run_id`, if any.
pub(crate) async fn forget(run_id: RunId) {
    let Some(key) = KEYS.with(|k| k.borrow_mut().remove(&run_id)) else {
        return;
    };
    match store().await {
        Ok(Store::Opfs(root)) => opfs::remove(&root, &key).await,
        Ok(Store::Idb(db)) => idb::remove(&db, &key).await,
        Err(_) => {}
    }
}

/// The origin private file system: a folder per run, manifest last.
pub(super) mod opfs {
    use super::*;

    pub(in crate::worker) fn create() -> JsValue {
        let o = Object::new();
        set(&o, "create", &true.into());
        o.into()
    }

    /// The folder of kept runs (created when missing). An error when the browser has no OPFS
    /// or cannot write files into it (no `createWritable`).
    pub(in crate::worker) async fn root() -> Js<JsValue> {
        let global = js_sys::global();
        let storage = get(&get(&global, "navigator")?, "storage")?;
        if storage.is_undefined() {
            return Err("this browser gives no storage to pages".into());
        }
        let writable = get(&global, "FileSystemFileHandle")
            .and_then(|h| get(&h, "prototype"))
            .and_then(|p| get(&p, "createWritable"))
            .is_ok_and(|f| f.is_function());
        if !writable {
            return Err("this browser cannot write files into its storage".into());
        }
        let dir = call(&storage, "getDirectory", &[]).await?;
        call(&dir, "getDirectoryHandle", &[ROOT.into(), create()]).await
    }

    pub(in crate::worker) async fn read_text(dir: &JsValue, name: &str) -> Js<String> {
        let handle = call(dir, "getFileHandle", &[name.into()]).await?;
        let file = call(&handle, "getFile", &[]).await?;
        let t = call(&file, "text", &[]).await?;
        t.as_string().ok_or_else(|| "not text".into())
    }

    pub(in crate::worker) async fn write(dir: &JsValue, name: &str, data: &JsValue) -> Js<()> {
        let handle = call(dir, "getFileHandle", &[name.into(), create()]).await?;
        let w = call(&handle, "createWritable", &[]).await?;
        if let Err(e) = call(&w, "write", std::slice::from_ref(data)).await {
            let _ = call(&w, "abort", &[]).await;
            return Err(e);
        }
        call(&w, "close", &[]).await.map(|_| ())
    }

    pub(super) async fn remove(root: &JsValue, key: &str) {
        let o = Object::new();
        set(&o, "recursive", &true.into());
        let _ = call(root, "removeEntry", &[key.into(), o.into()]).await;
    }

    /// The names in a folder (its async iterator of keys, read to the end).
    pub(in crate::worker) async fn names(dir: &JsValue) -> Js<Vec<String>> {
        let it = call_now(dir, "keys", &[])?;
        let mut out = Vec::new();
        loop {
            let step = call(&it, "next", &[]).await?;
            if get(&step, "done")?.is_truthy() {
                return Ok(out);
            }
            if let Some(n) = get(&step, "value")?.as_string() {
                out.push(n);
            }
        }
    }

    /// The kept runs in `root`, oldest first; a folder without a manifest is deleted when
    /// `drop_incomplete` (at start, when no copy can be under way), else passed over (it may be
    /// a copy this worker is writing now).
    pub(super) async fn scan(root: &JsValue, drop_incomplete: bool) -> Js<Vec<StoredRun>> {
        let mut keys = names(root).await?;
        keys.sort();
        let mut out = Vec::new();
        for key in keys {
            let Ok(dir) = call(root, "getDirectoryHandle", &[key.as_str().into()]).await else {
                continue;
            };
            let text = read_text(&dir, MANIFEST).await.unwrap_or_default();
            match stored_run(key.clone(), &text) {
                Some(run) => out.push(run),
                None if drop_incomplete => remove(root, &key).await,
                None => {}
            }
        }
        Ok(out)
    }

    /// The manifest of kept run `key` (never creating its folder: a run deleted meanwhile stays
    /// deleted).
    pub(super) async fn manifest(root: &JsValue, key: &str) -> Js<String> {
        let dir = call(root, "getDirectoryHandle", &[key.into()]).await?;
        read_text(&dir, MANIFEST).await
    }

    /// Writes the manifest of kept run `key` anew (its folder is not created).
    pub(super) async fn set_manifest(root: &JsValue, key: &str, text: &str) -> Js<()> {
        let dir = call(root, "getDirectoryHandle", &[key.into()]).await?;
        write(&dir, MANIFEST, &text.into()).await
    }

    pub(super) async fn sources(root: &JsValue, key: &str, n: usize) -> Js<Array> {
        let dir = call(root, "getDirectoryHandle", &[key.into()]).await?;
        let out = Array::new();
        for i in 0..n {
            let handle = call(&dir, "getFileHandle", &[i.to_string().into()]).await?;
            out.push(&call(&handle, "getFile", &[]).await?);
        }
        Ok(out)
    }

    /// Each source to a file of its own, then the manifest; on a failure the folder goes.
    pub(super) async fn keep(root: &JsValue, key: &str, manifest: &str, sources: &Array) -> Js<()> {
        let dir = call(root, "getDirectoryHandle", &[key.into(), create()]).await?;
        let mut done = Ok(());
        for (i, src) in sources.iter().enumerate() {
            done = write(&dir, &i.to_string(), &src).await;
            if done.is_err() {
                break;
            }
        }
        if done.is_ok() {
            done = write(&dir, MANIFEST, &manifest.into()).await;
        }
        if done.is_err() {
            remove(root, key).await;
        }
        done
    }
}

/// IndexedDB: one record per run, `{ manifest, files }`, written in one transaction.
pub(super) mod idb {
    use super::*;

    /// A promise of an IndexedDB request's or transaction's outcome: resolved with its
    /// `result` on the `ok` event, rejected with its `error` on the `fail` event.
    pub(in crate::worker) fn settle(target: &JsValue, ok: &str, fail: &str) -> JsFuture {
        let promise = Promise::new(&mut |resolve: Function, reject: Function| {
            let t = target.clone();
            let on_ok = Closure::once_into_js(move || {
                let result = get(&t, "result").unwrap_or(JsValue::UNDEFINED);
                let _ = resolve.call1(&JsValue::UNDEFINED, &result);
            });
            let t = target.clone();
            let on_fail = Closure::once_into_js(move || {
                let e = get(&t, "error")
                    .ok()
                    .filter(|e| e.is_object())
                    .unwrap_or_else(|| "the browser's database refused it".into());
                let _ = reject.call1(&JsValue::UNDEFINED, &e);
            });
            set(target, &format!("on{ok}"), &on_ok);
            set(target, &format!("on{fail}"), &on_fail);
        });
        JsFuture::from(promise)
    }

    /// The database (created at version 1 with its store when missing).
    pub(in crate::worker) async fn open() -> Js<JsValue> {
        let factory = get(&js_sys::global(), "indexedDB")?;
        if !factory.is_object() {
            return Err("this browser has no IndexedDB".into());
        }
        let req = call_now(&factory, "open", &[DB.into(), 1.into()])?;
        let r = req.clone();
        let upgrade = Closure::once_into_js(move || {
            if let Ok(db) = get(&r, "result") {
                let _ = call_now(&db, "createObjectStore", &[STORE.into()]);
            }
        });
        set(&req, "onupgradeneeded", &upgrade);
        settle(&req, "success", "error").await
    }

    /// A transaction on the store and the store in it.
    pub(in crate::worker) fn store(db: &JsValue, mode: &str) -> Js<(JsValue, JsValue)> {
        let tx = call_now(db, "transaction", &[STORE.into(), mode.into()])?;
        let store = call_now(&tx, "objectStore", &[STORE.into()])?;
        Ok((tx, store))
    }

    /// The kept runs, oldest first (keys start with the time they were kept).
    pub(super) async fn scan(db: &JsValue) -> Js<Vec<StoredRun>> {
        let (_, store) = store(db, "readonly")?;
        let keys = settle(&call_now(&store, "getAllKeys", &[])?, "success", "error");
        let records = settle(&call_now(&store, "getAll", &[])?, "success", "error");
        let (keys, records) = (Array::from(&keys.await?), Array::from(&records.await?));
        Ok(keys
            .iter()
            .zip(records.iter())
            .filter_map(|(k, r)| {
                let text = get(&r, "manifest").ok()?.as_string()?;
                stored_run(k.as_string()?, &text)
            })
            .collect())
    }

    /// The manifest of kept run `key`.
    pub(super) async fn manifest(db: &JsValue, key: &str) -> Js<String> {
        let (_, store) = store(db, "readonly")?;
        let record = settle(&call_now(&store, "get", &[key.into()])?, "success", "error").await?;
        get(&record, "manifest")?
            .as_string()
            .ok_or_else(|| JsValue::from_str("no manifest"))
    }

    /// Writes the manifest of kept run `key` anew, its files kept, in one transaction (a run
    /// deleted meanwhile is not put back).
    pub(super) async fn set_manifest(db: &JsValue, key: &str, text: &str) -> Js<()> {
        let (tx, store) = store(db, "readwrite")?;
        let done = settle(&tx, "complete", "abort");
        let record = settle(&call_now(&store, "get", &[key.into()])?, "success", "error").await?;
        if !record.is_object() {
            return Ok(());
        }
        set(&record, "manifest", &text.into());
        call_now(&store, "put", &[record, key.into()])?;
        done.await.map(|_| ())
    }

    pub(super) async fn sources(db: &JsValue, key: &str, n: usize) -> Js<Array> {
        let (_, store) = store(db, "readonly")?;
        let record = settle(&call_now(&store, "get", &[key.into()])?, "success", "error").await?;
        let files = get(&record, "files")
            .ok()
            .filter(Array::is_array)
            .map(|f| Array::from(&f))
            .filter(|f| f.length() as usize == n)
            .ok_or_else(|| JsValue::from_str("the kept copy is incomplete"))?;
        Ok(files)
    }

    /// The run's record, manifest and files together: the transaction stores it whole or not
    /// at all (a full quota aborts it with a `QuotaExceededError`).
    pub(super) async fn keep(db: &JsValue, key: &str, manifest: &str, sources: &Array) -> Js<()> {
        let (tx, store) = store(db, "readwrite")?;
        let done = settle(&tx, "complete", "abort");
        let record = Object::new();
        set(&record, "manifest", &manifest.into());
        set(&record, "files", sources);
        if let Err(e) = call_now(&store, "put", &[record.into(), key.into()]) {
            let _ = call_now(&tx, "abort", &[]);
            let _ = done.await;
            return Err(e);
        }
        done.await.map(|_| ())
    }

    pub(in crate::worker) async fn remove(db: &JsValue, key: &str) {
        let Ok((tx, store)) = store(db, "readwrite") else {
            return;
        };
        let done = settle(&tx, "complete", "abort");
        if call_now(&store, "delete", &[key.into()]).is_ok() {
            let _ = done.await;
        }
    }
}
