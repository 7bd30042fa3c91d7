//! Files the user hands to the page: drops (folders walked with directory readers), file and
//! folder pickers, and the demo's assets fetched from the page's own origin.
//!
//! Drops are collected synchronously inside the drop handler (DataTransferItems die after the
//! first await), folders are walked with directory readers (`readEntries` returns batches: loop
//! until an empty one). The page hands the `File` objects to the worker, which reads their
//! bytes (`worker::browser_files`) — never as a JS string.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DataTransfer, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
    HtmlInputElement,
};

use crate::js_error::js_err;
use crate::ui::load_plan::normalize;

/// A file the user handed to the page, with its path relative to the drop (`run/traces/a.json`).
#[derive(Clone)]
pub struct PickedFile {
    pub path: String,
    file: File,
}

impl PickedFile {
    pub fn size(&self) -> u64 {
        let s = self.file.size();
        if s.is_finite() && s > 0.0 {
            s as u64
        } else {
            0
        }
    }
}

/// What a drop carried, grabbed before any await.
pub enum DropItem {
    Entry(FileSystemEntry),
    File(File),
}

/// The synchronous half of a drop: the entries (folders and files) or, when the browser gives
/// no entries (a DataTransfer built in script), the plain files.
pub fn drop_items(dt: &DataTransfer) -> Vec<DropItem> {
    let mut out = Vec::new();
    let items = dt.items();
    for i in 0..items.length() {
        let Some(item) = items.get(i) else { continue };
        if item.kind() != "file" {
            continue;
        }
        match item.webkit_get_as_entry() {
            Ok(Some(entry)) => out.push(DropItem::Entry(entry)),
            _ => {
                if let Ok(Some(f)) = item.get_as_file() {
                    out.push(DropItem::File(f));
                }
            }
        }
    }
    if out.is_empty() {
        if let Some(files) = dt.files() {
            for i in 0..files.length() {
                if let Some(f) = files.get(i) {
                    out.push(DropItem::File(f));
                }
            }
        }
    }
    out
}

/// The path a plain File carries: `webkitRelativePath` when set (folder inputs, scripted drops),
/// else its name.
fn file_path(f: &File) -> String {
    let rel = Reflect::get(f, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    if rel.is_empty() {
        f.name()
    } else {
        normalize(&rel)
    }
}

/// Walks the dropped entries (recursively into folders) and returns every file with its path.
/// Unreadable entries are reported in the second list as `path: reason`.
pub async fn collect(items: Vec<DropItem>) -> (Vec<PickedFile>, Vec<String>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut stack: Vec<FileSystemEntry> = Vec::new();
    for item in items {
        match item {
            DropItem::File(f) => files.push(PickedFile {
                path: file_path(&f),
                file: f,
            }),
            DropItem::Entry(e) => stack.push(e),
        }
    }
    // Every file's `File` is asked for at once and awaited after the walk: the browser answers
    // each in its own process, and one at a time a trace folder's thousands of files waited on
    // every round trip.
    let mut opening = Vec::new();
    while let Some(entry) = stack.pop() {
        let path = normalize(&entry.full_path());
        if entry.is_directory() {
            let dir: FileSystemDirectoryEntry = entry.unchecked_into();
            match read_dir(&dir).await {
                Ok(children) => stack.extend(children),
                Err(e) => problems.push(format!("{path}: cannot list folder ({e})")),
            }
        } else if entry.is_file() {
            let fe: FileSystemFileEntry = entry.unchecked_into();
            opening.push((path, entry_file(&fe)));
        }
    }
    for (path, file) in opening {
        match JsFuture::from(file).await {
            Ok(f) => files.push(PickedFile {
                path,
                file: f.unchecked_into(),
            }),
            Err(e) => problems.push(format!("{path}: cannot open ({})", js_err(e))),
        }
    }
    crate::ui::order::sort_by_key(&mut files, |f| f.path.clone());
    (files, problems)
}

/// Every entry of a folder: `readEntries` until it returns an empty batch.
async fn read_dir(dir: &FileSystemDirectoryEntry) -> Result<Vec<FileSystemEntry>, String> {
    let reader = dir.create_reader();
    let mut out = Vec::new();
    loop {
        let p = Promise::new(&mut |resolve: Function, reject: Function| {
            if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
                let _ = reject.call1(&JsValue::NULL, &e);
            }
        });
        let batch: Array = JsFuture::from(p).await.map_err(js_err)?.unchecked_into();
        if batch.length() == 0 {
            break;
        }
        out.extend(batch.iter().map(|e| e.unchecked_into::<FileSystemEntry>()));
    }
    Ok(out)
}

/// Asks for a file entry's `File` (the promise resolves to it).
fn entry_file(fe: &FileSystemFileEntry) -> Promise {
    Promise::new(&mut |resolve: Function, reject: Function| {
        fe.file_with_callback_and_callback(&resolve, &reject);
    })
}

/// The files of a file input (folder inputs give `webkitRelativePath`).
pub fn input_files(input: &HtmlInputElement) -> Vec<PickedFile> {
    let mut out = Vec::new();
    if let Some(list) = input.files() {
        for i in 0..list.length() {
            if let Some(f) = list.get(i) {
                out.push(PickedFile {
                    path: file_path(&f),
                    file: f,
                });
            }
        }
    }
    out
}

/// What a `Load` carries for one file: the `File` itself for a drop or a picker (the worker
/// reads it), or an `ArrayBuffer` the page already holds (the demo's fetched assets).
pub fn file_source(pf: &PickedFile) -> JsValue {
    pf.file.clone().into()
}

/// Fetches one of the page's own assets (relative URL) as bytes.
pub async fn fetch_bytes(url: &str) -> Result<ArrayBuffer, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(js_err)?
        .dyn_into()
        .map_err(|_| "not a Response".to_string())?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {}", resp.status()));
    }
    let buf = JsFuture::from(resp.array_buffer().map_err(js_err)?)
        .await
        .map_err(js_err)?;
    buf.dyn_into::<ArrayBuffer>()
        .map_err(|_| "not an ArrayBuffer".to_string())
}

/// A run of this many files or more is read on the page ([`read_on_page`]); fewer go to the
/// worker as `File`s.
const READ_ON_PAGE_FROM: usize = 64;

/// Whether a run of `n_files` files is read on the page ([`read_on_page`]).
pub fn reads_on_page(n_files: usize) -> bool {
    n_files >= READ_ON_PAGE_FROM
}
/// `arrayBuffer()` calls in flight on the page (the floor's own figure: 64 was within noise).
const READS_IN_FLIGHT: usize = 32;
/// Bytes read on the page at most per run; the files after stay `File`s for the worker (which
/// streams a big file and checks the run against its memory before reading it).
const PAGE_READ_MAX_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

/// Whether a file is left to the worker as a `File` whatever the run's size: a JSONL run or an
/// Inspect `.eval` may be big, and the worker streams those or reads them a slice at a time; a
/// lake's Parquet files are read a run's row groups at a time (the lake worker).
fn left_to_worker(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    p.ends_with(".jsonl") || p.ends_with(".eval") || p.ends_with(".parquet")
}

/// The sources of a run of many files: each file's bytes as an `ArrayBuffer`, read here with
/// [`READS_IN_FLIGHT`] `arrayBuffer()` in flight — or its `File` where it is
/// [`left_to_worker`], could not be read (the worker reports why), or comes after
/// [`PAGE_READ_MAX_BYTES`]. `progress(files_done, bytes_done)` after each file.
///
/// Why on the page (issue 17.9, docs/performance.md): a `File` from a folder input has no size
/// snapshot yet, and the first `size` or `postMessage` of it is a synchronous round trip to the
/// browser process — 28,589 of them took 2.7–3.9 s of the page's thread before the worker could
/// start. `arrayBuffer()` asks none; the buffers are transferred, not copied.
pub async fn read_on_page(files: &[PickedFile], progress: Rc<dyn Fn(usize, u64)>) -> Vec<JsValue> {
    let out: Rc<RefCell<Vec<JsValue>>> = Rc::new(RefCell::new(
        files.iter().map(|f| f.file.clone().into()).collect(),
    ));
    let wanted: Rc<Vec<bool>> = Rc::new(files.iter().map(|f| !left_to_worker(&f.path)).collect());
    let files: Rc<Vec<File>> = Rc::new(files.iter().map(|f| f.file.clone()).collect());
    let next = Rc::new(Cell::new(0usize));
    let (done, bytes) = (Rc::new(Cell::new(0usize)), Rc::new(Cell::new(0f64)));
    let lanes = READS_IN_FLIGHT.min(files.len());
    let left = Rc::new(Cell::new(lanes));
    let mut finish: Option<Function> = None;
    let all_done = Promise::new(&mut |resolve: Function, _| finish = Some(resolve));
    let finish = Rc::new(finish);
    if lanes == 0 {
        return out.take();
    }
    for _ in 0..lanes {
        let (out, files, wanted, next, done, bytes, left, finish, progress) = (
            out.clone(),
            files.clone(),
            wanted.clone(),
            next.clone(),
            done.clone(),
            bytes.clone(),
            left.clone(),
            finish.clone(),
            progress.clone(),
        );
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                let i = next.get();
                let Some(file) = files.get(i) else { break };
                next.set(i + 1);
                if wanted.get(i).copied().unwrap_or(false) && bytes.get() < PAGE_READ_MAX_BYTES {
                    if let Ok(buf) = JsFuture::from(file.array_buffer()).await {
                        let buf: ArrayBuffer = buf.unchecked_into();
                        bytes.set(bytes.get() + f64::from(buf.byte_length()));
                        if let Some(slot) = out.borrow_mut().get_mut(i) {
                            *slot = buf.into();
                        }
                    }
                }
                done.set(done.get() + 1);
                progress(done.get(), bytes.get() as u64);
            }
            left.set(left.get() - 1);
            if left.get() == 0 {
                if let Some(f) = finish.as_ref() {
                    let _ = f.call0(&JsValue::NULL);
                }
            }
        });
    }
    let _ = JsFuture::from(all_done).await;
    out.take()
}
