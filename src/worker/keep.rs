//! Runs kept in the browser's own storage (the origin private file system, OPFS), so a reload
//! restores the workspace (issue 17.4). A dropped run is copied there **after** its numbers are
//! on screen, file by file as the browser hands it over (`File` → a writable file: no byte goes
//! through wasm memory), into `evalboard-runs/<key>/<i>`, and its `manifest.json` (name, paths)
//! is written last: a folder without one is an interrupted copy and is deleted when the worker
//! next lists the runs, so nothing of a run is half-kept. At start the worker lists the kept
//! runs for the page (`Response::Stored`), which loads each one again like a drop
//! (`Request::Load` with `stored`: the files come from here). Removing a run deletes its copy.
//! The browser's storage API is reached by name (`js_sys::Reflect`), so a browser without it is
//! an error message, not a missing symbol.

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::protocol::{RunId, StoredRun};

const ROOT: &str = "evalboard-runs";
const MANIFEST: &str = "manifest.json";

thread_local! {
    /// The key of each kept run, by run id (any family: the code-generation worker's runs too).
    static KEYS: RefCell<HashMap<RunId, String>> = RefCell::new(HashMap::new());
}

fn text(e: JsValue) -> String {
    crate::js_error::js_err(e)
}

fn get(obj: &JsValue, name: &str) -> Result<JsValue, String> {
    Reflect::get(obj, &name.into()).map_err(text)
}

/// Calls `obj.name(...args)` and awaits the promise it returns.
async fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let f: js_sys::Function = get(obj, name)?
        .dyn_into()
        .map_err(|_| format!("this browser has no {name}()"))?;
    let args: Array = args.iter().collect();
    let p = f.apply(obj, &args).map_err(text)?;
    JsFuture::from(Promise::from(p)).await.map_err(text)
}

fn create() -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(&o, &"create".into(), &true.into());
    o.into()
}

/// The folder of kept runs (created when missing).
async fn root() -> Result<JsValue, String> {
    let global = js_sys::global();
    let storage = get(&get(&global, "navigator")?, "storage")?;
    if storage.is_undefined() {
        return Err("this browser gives no storage to pages".into());
    }
    let dir = call(&storage, "getDirectory", &[]).await?;
    call(&dir, "getDirectoryHandle", &[ROOT.into(), create()]).await
}

async fn read_text(dir: &JsValue, name: &str) -> Result<String, String> {
    let handle = call(dir, "getFileHandle", &[name.into()]).await?;
    let file = call(&handle, "getFile", &[]).await?;
    let t = call(&file, "text", &[]).await?;
    t.as_string().ok_or_else(|| "not text".into())
}

async fn write(dir: &JsValue, name: &str, data: &JsValue) -> Result<(), String> {
    let handle = call(dir, "getFileHandle", &[name.into(), create()]).await?;
    let w = call(&handle, "createWritable", &[]).await?;
    if let Err(e) = call(&w, "write", std::slice::from_ref(data)).await {
        let _ = call(&w, "abort", &[]).await;
        return Err(e);
    }
    call(&w, "close", &[]).await.map(|_| ())
}

async fn remove(root: &JsValue, key: &str) {
    let o = Object::new();
    let _ = Reflect::set(&o, &"recursive".into(), &true.into());
    let _ = call(root, "removeEntry", &[key.into(), o.into()]).await;
}

/// The names in a folder (its async iterator of keys, read to the end).
async fn names(dir: &JsValue) -> Result<Vec<String>, String> {
    let keys: js_sys::Function = get(dir, "keys")?
        .dyn_into()
        .map_err(|_| "this browser cannot list a folder".to_string())?;
    let it = keys.call0(dir).map_err(text)?;
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

#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    version: u32,
    name: String,
    paths: Vec<String>,
}

/// The kept runs, oldest first; an interrupted copy (no manifest) is deleted.
pub(crate) async fn list() -> Result<Vec<StoredRun>, String> {
    scan(&root().await?, true).await
}

/// The kept runs in `root`, oldest first; a folder without a manifest is deleted when
/// `drop_incomplete` (at start, when no copy can be under way), else passed over (it may be a
/// copy this worker is writing now).
async fn scan(root: &JsValue, drop_incomplete: bool) -> Result<Vec<StoredRun>, String> {
    let mut keys = names(root).await?;
    keys.sort();
    let mut out = Vec::new();
    for key in keys {
        let Ok(dir) = call(root, "getDirectoryHandle", &[key.as_str().into()]).await else {
            continue;
        };
        match read_text(&dir, MANIFEST)
            .await
            .ok()
            .and_then(|t| serde_json::from_str::<Manifest>(&t).ok())
        {
            Some(m) if m.version == 1 => out.push(StoredRun {
                key,
                name: m.name,
                paths: m.paths,
            }),
            _ if drop_incomplete => remove(root, &key).await,
            _ => {}
        }
    }
    Ok(out)
}

/// The files of kept run `key`, in the order of its paths (`File`s the intake reads like a
/// drop's).
pub(crate) async fn sources(key: &str, n: usize) -> Result<Array, String> {
    let root = root().await?;
    let dir = call(&root, "getDirectoryHandle", &[key.into()]).await?;
    let out = Array::new();
    for i in 0..n {
        let handle = call(&dir, "getFileHandle", &[i.to_string().into()]).await?;
        out.push(&call(&handle, "getFile", &[]).await?);
    }
    Ok(out)
}

/// Keeps run `run_id` (`name`, its `paths` and `sources`: `File`s or `ArrayBuffer`s) under a new
/// key; on any failure (a full quota) nothing of it stays.
pub(crate) async fn keep(
    run_id: RunId,
    name: &str,
    paths: &[String],
    sources: &Array,
) -> Result<(), String> {
    let root = root().await?;
    // A run kept already (the same name and files: loaded again into a restarted worker) is
    // not copied twice. Folders without a manifest are left alone here: one may be another
    // run's copy still being written.
    if let Some(same) = scan(&root, false)
        .await?
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
    let dir = call(
        &root,
        "getDirectoryHandle",
        &[key.as_str().into(), create()],
    )
    .await?;
    let manifest = serde_json::to_string(&Manifest {
        version: 1,
        name: name.to_string(),
        paths: paths.to_vec(),
    })
    .map_err(|e| e.to_string())?;
    let mut done: Result<(), String> = Ok(());
    for (i, src) in sources.iter().enumerate() {
        done = write(&dir, &i.to_string(), &src).await;
        if done.is_err() {
            break;
        }
    }
    if done.is_ok() {
        done = write(&dir, MANIFEST, &manifest.into()).await;
    }
    match done {
        Ok(()) => {
            remember(run_id, key);
            Ok(())
        }
        Err(e) => {
            remove(&root, &key).await;
            Err(e)
        }
    }
}

/// Run `run_id` is kept under `key` (a run loaded from its kept copy).
pub(crate) fn remember(run_id: RunId, key: String) {
    KEYS.with(|k| k.borrow_mut().insert(run_id, key));
}

/// Whether run `run_id` is kept.
pub(crate) fn is_kept(run_id: RunId) -> bool {
    KEYS.with(|k| k.borrow().contains_key(&run_id))
}

/// Deletes the kept copy of run `run_id`, if any.
pub(crate) async fn forget(run_id: RunId) {
    let Some(key) = KEYS.with(|k| k.borrow_mut().remove(&run_id)) else {
        return;
    };
    if let Ok(root) = root().await {
        remove(&root, &key).await;
    }
}
