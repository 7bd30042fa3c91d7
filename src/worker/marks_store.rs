//! The human review marks kept in the browser's storage (docs/dashboard.md § Human review): the
//! worker's one [`evalboard_engine::marks::MarkSet`] ([`crate::review`]) as its
//! `evalboard-marks/1` JSONL text, read once at start ([`load`]) and written again after every
//! change ([`save`]), in the store kept runs use (`keep`: OPFS, else IndexedDB).
//!
//! Never rewritten in place, so a reload or a crash mid-write loses nothing:
//! - **OPFS**: folder `evalboard-marks`, each save a **new** file `marks-<n>.jsonl` (n one more
//!   than the newest), written whole and closed; only then are the older files deleted. Reading
//!   takes the newest file that reads as a marks file (an empty or cut one is passed over for
//!   the one before it).
//! - **IndexedDB**: the record `evalboard-marks` (`{ marks }`) of the kept runs' store, put in
//!   one transaction: stored whole or not at all.
//!
//! Saves never overlap: a change during a save is written by one more save after it. The
//! user's files are never written.

use std::cell::Cell;

use js_sys::Object;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::DedicatedWorkerGlobalScope;

use evalboard_engine::marks::MarkSet;

use super::keep::{self, call, call_now, get, idb, opfs, set};
use crate::protocol::{Response, RunId};
use crate::review;

const DIR: &str = "evalboard-marks";
const IDB_KEY: &str = "evalboard-marks";

thread_local! {
    /// Set while a `Load` of one `.jsonl` found not a marks file is handed on (not sniffed again).
    pub(super) static SNIFFED: Cell<bool> = const { Cell::new(false) };
    static SAVING: Cell<bool> = const { Cell::new(false) };
    static AGAIN: Cell<bool> = const { Cell::new(false) };
}

type Js<T> = Result<T, JsValue>;

/// Whether a `Load` of `paths` may be a marks sidecar dropped or picked: one `.jsonl` file.
pub(super) fn may_be_marks(paths: &[String]) -> bool {
    matches!(paths, [p] if p.ends_with(".jsonl"))
}

/// Whether `head` (a file's first bytes) starts with the marks header
/// (`{"schema": "evalboard-marks/1"`, spaces allowed).
fn is_marks_head(head: &str) -> bool {
    let compact: String = head
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    compact.starts_with(&format!(
        "{{\"schema\":\"{}\"",
        evalboard_engine::marks::SCHEMA
    ))
}

/// `false` when `source` is an `ArrayBuffer` whose first bytes are not the marks header: known
/// at once, so the `Load` goes on without waiting (a `File`'s bytes are read asynchronously:
/// `true`, [`marks_text`] tells).
pub(super) fn may_hold_marks(source: &JsValue) -> bool {
    let Some(buf) = source.dyn_ref::<js_sys::ArrayBuffer>() else {
        return true;
    };
    let n = buf.byte_length().min(200);
    let head = js_sys::Uint8Array::new_with_byte_offset_and_length(buf, 0, n).to_vec();
    is_marks_head(&String::from_utf8_lossy(&head))
}

/// The text of `source` (a `File` or an `ArrayBuffer`) when it starts with the marks header
/// (`{"schema": "evalboard-marks/1"}`, spaces allowed): only its first bytes are read otherwise.
pub(super) async fn marks_text(source: &JsValue) -> Option<String> {
    let blob = if source.is_instance_of::<js_sys::ArrayBuffer>() {
        let parts = js_sys::Array::of1(source);
        web_sys::Blob::new_with_buffer_source_sequence(&parts).ok()?
    } else {
        source.clone().dyn_into::<web_sys::Blob>().ok()?
    };
    let head = blob.slice_with_i32_and_i32(0, 200).ok()?;
    let head = wasm_bindgen_futures::JsFuture::from(head.text())
        .await
        .ok()?
        .as_string()?;
    if !is_marks_head(&head) {
        return None;
    }
    wasm_bindgen_futures::JsFuture::from(blob.text())
        .await
        .ok()?
        .as_string()
}

/// The generation of a marks file by its name (`marks-<n>.jsonl`).
fn generation(name: &str) -> Option<u64> {
    name.strip_prefix("marks-")?
        .strip_suffix(".jsonl")?
        .parse()
        .ok()
}

async fn opfs_dir() -> Js<JsValue> {
    // The same check as the kept runs' folder: OPFS with files it can write.
    opfs::root().await?;
    let storage = get(&get(&js_sys::global(), "navigator")?, "storage")?;
    let dir = call(&storage, "getDirectory", &[]).await?;
    call(&dir, "getDirectoryHandle", &[DIR.into(), opfs::create()]).await
}

/// The marks file's names, newest first.
async fn generations(dir: &JsValue) -> Js<Vec<(u64, String)>> {
    let mut g: Vec<(u64, String)> = opfs::names(dir)
        .await?
        .into_iter()
        .filter_map(|n| Some((generation(&n)?, n)))
        .collect();
    g.sort_by_key(|x| std::cmp::Reverse(x.0));
    Ok(g)
}

/// The marks text kept, if any.
async fn read() -> Js<Option<String>> {
    if let Ok(dir) = opfs_dir().await {
        for (_, name) in generations(&dir).await? {
            let text = opfs::read_text(&dir, &name).await.unwrap_or_default();
            if text.starts_with('{') && text.ends_with('\n') {
                return Ok(Some(text));
            }
        }
        return Ok(None);
    }
    let db = idb::open().await?;
    let (_, store) = idb::store(&db, "readonly")?;
    let record = idb::settle(
        &call_now(&store, "get", &[IDB_KEY.into()])?,
        "success",
        "error",
    )
    .await?;
    if !record.is_object() {
        return Ok(None);
    }
    Ok(get(&record, "marks")?.as_string())
}

async fn write(text: &str) -> Js<()> {
    if let Ok(dir) = opfs_dir().await {
        let old = generations(&dir).await?;
        let next = old.first().map_or(1, |(n, _)| n + 1);
        opfs::write(&dir, &format!("marks-{next}.jsonl"), &text.into()).await?;
        for (_, name) in old {
            let _ = call(&dir, "removeEntry", &[name.into()]).await;
        }
        return Ok(());
    }
    let db = idb::open().await?;
    let (tx, store) = idb::store(&db, "readwrite")?;
    let done = idb::settle(&tx, "complete", "abort");
    let record = Object::new();
    set(&record, "marks", &text.into());
    call_now(&store, "put", &[record.into(), IDB_KEY.into()])?;
    done.await.map(|_| ())
}

/// Reads the marks kept into the worker's set (a change made meanwhile stays on top) and tells
/// the page, which asks its screens again.
pub(super) async fn load(scope: DedicatedWorkerGlobalScope) {
    let message = match read().await {
        Ok(Some(text)) => {
            let (mut kept, diags) =
                MarkSet::from_jsonl("the marks kept in this browser", text.as_bytes());
            review::with_mut(|set| {
                kept.merge(std::mem::take(set));
                *set = kept;
            });
            crate::codegen_host::sync_marks();
            diags
                .iter()
                .find(|d| d.severity == evalboard_engine::diag::Severity::Error)
                .map(|d| {
                    (
                        true,
                        format!("The marks kept in this browser: {}", d.message),
                    )
                })
        }
        Ok(None) => return,
        Err(e) => Some((
            true,
            format!(
                "The human review marks kept in this browser could not be read ({}).",
                crate::js_error::js_err(e)
            ),
        )),
    };
    super::runtime::post(
        &scope,
        &Response::Marked {
            message,
            drop: None,
        },
    );
}

/// Writes the marks kept, after the save under way if any (one more save then writes every
/// change made meanwhile); a failure is told.
pub(super) fn save(scope: &DedicatedWorkerGlobalScope) {
    crate::codegen_host::sync_marks();
    if SAVING.with(Cell::get) {
        AGAIN.with(|a| a.set(true));
        return;
    }
    SAVING.with(|s| s.set(true));
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            AGAIN.with(|a| a.set(false));
            let text = review::with(MarkSet::to_jsonl);
            if let Err(e) = write(&text).await {
                let why = if keep::is_quota(&e) {
                    "the storage this browser gives the page is full".to_string()
                } else {
                    crate::js_error::js_err(e)
                };
                let message = format!(
                    "Your marks could not be kept in this browser ({why}): they stay until you \
                     close the page. Export them (Export tab) to keep them."
                );
                super::runtime::post(
                    &scope,
                    &Response::Marked {
                        message: Some((true, message)),
                        drop: None,
                    },
                );
            }
            if !AGAIN.with(Cell::get) {
                break;
            }
        }
        SAVING.with(|s| s.set(false));
    });
}

/// `Request::Mark`: the change made to run `run_id`'s item (kept by the run's content id), saved,
/// and the page told (why not, when it was refused). `run`: the run's content id (`None`: its
/// files have no digest) and name, from whichever worker holds it; `None` when none does.
pub(super) fn mark(
    scope: &DedicatedWorkerGlobalScope,
    run: Option<(Option<String>, String)>,
    run_id: RunId,
    key: &evalboard_engine::run_table::ItemKey,
    (field, value): (&str, &str),
) {
    let Some((id, name)) = run else {
        let message = format!("Run {run_id} is not loaded: no mark can be kept for it.");
        return super::runtime::post(
            scope,
            &Response::Marked {
                message: Some((true, message)),
                drop: None,
            },
        );
    };
    let Some(id) = id else {
        let message =
            "This run's files have no SHA-256 digest yet: no mark can be kept for it.".to_string();
        return super::runtime::post(
            scope,
            &Response::Marked {
                message: Some((true, message)),
                drop: None,
            },
        );
    };
    let at = js_sys::Date::now() as i64;
    let done = review::with_mut(|set| review::edit(set, (&id, &name), key, (field, value), at));
    match done {
        Ok(changed) => {
            if changed {
                save(scope);
            }
            let done = Response::Marked {
                message: None,
                drop: None,
            };
            super::runtime::post(scope, &done);
        }
        Err(why) => super::runtime::post(
            scope,
            &Response::Marked {
                message: Some((true, why)),
                drop: None,
            },
        ),
    }
}
