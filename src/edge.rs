//! The browser edge: the only module that touches browser File objects and fetches bytes.
//!
//! Drops are collected synchronously inside the drop handler (DataTransferItems die after the
//! first await), folders are walked with directory readers (`readEntries` returns batches: loop
//! until an empty one). The page hands the `File` objects to the worker, which reads their
//! bytes ([`read_whole`], [`BlobSlices`], [`start_read`]: `Blob.arrayBuffer()`) — never as a
//! JS string.

use js_sys::{Array, ArrayBuffer, Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DataTransfer, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
    HtmlInputElement,
};

use crate::ui::load_plan::normalize;

/// Files above this size are read in slices of this size (progress per slice, bounded memory
/// spikes in the browser's blob reader).
const SLICE_BYTES: u64 = 16 * 1024 * 1024;

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
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, problems)
}

fn js_err(e: JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    Reflect::get(&e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "unknown error".into())
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

/// The bytes of a `Load` source the page already held (an `ArrayBuffer`: the demo's fetched
/// assets, the warm-up), copied out, calling `progress` once. A `File` is read with
/// [`read_whole`] or [`BlobSlices`]. The error is the reason, worded for the user.
pub fn read_source(source: &JsValue, progress: &mut dyn FnMut(u64)) -> Result<Vec<u8>, String> {
    let buf = source
        .dyn_ref::<ArrayBuffer>()
        .ok_or("neither bytes nor a file (an unexpected message)")?;
    let bytes = Uint8Array::new(buf).to_vec();
    progress(bytes.len() as u64);
    Ok(bytes)
}

/// A blob's size as the browser reports it, checked.
fn blob_size(blob: &Blob) -> Result<u64, String> {
    let size = blob.size();
    if size.is_finite() && size >= 0.0 {
        Ok(size as u64)
    } else {
        Err(format!("the browser reports an impossible size ({size})"))
    }
}

/// `size` when the browser can hold a file that big (under 4 GB), or why not.
fn browser_size(size: u64) -> Result<u32, String> {
    u32::try_from(size).map_err(|_| {
        format!("{size} bytes: files above 4 GB cannot be read in the browser (use the CLI)")
    })
}

/// An empty buffer with room for a whole file of `size` bytes, or why there is none.
fn buffer_for(size: u64) -> Result<Vec<u8>, String> {
    browser_size(size)?;
    let mut out = Vec::new();
    out.try_reserve_exact(size as usize).map_err(|_| {
        format!("{size} bytes do not fit in the browser's memory for this page (use the CLI)")
    })?;
    Ok(out)
}

/// Reads a `Blob`/`File` in slices, one slice ahead, in the worker: the browser reads slice
/// k + 1 (in its own process) while the caller works on slice k, so a big file's reading hides
/// behind its hashing and parsing. Each slice lands in one reused buffer: a file streamed this
/// way is never in memory whole.
pub struct BlobSlices {
    blob: Blob,
    size: u64,
    slice: u64,
    /// Where the next slice to request starts.
    next_at: u64,
    /// The slice being read by the browser: its length and its promise.
    pending: Option<(u64, JsFuture)>,
    done: u64,
    buf: Vec<u8>,
}

impl BlobSlices {
    /// `None` when `source` is not a `Blob`. Starts reading the first slice at once.
    pub fn new(source: &JsValue, slice: u64) -> Option<Result<BlobSlices, String>> {
        let blob = source.dyn_ref::<Blob>()?.clone();
        let size = match blob_size(&blob) {
            Ok(n) => n,
            Err(e) => return Some(Err(e)),
        };
        let mut s = BlobSlices {
            blob,
            size,
            slice: slice.max(1),
            next_at: 0,
            pending: None,
            done: 0,
            buf: Vec::new(),
        };
        Some(s.request().map(|()| s))
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The bytes handed out so far.
    pub fn position(&self) -> u64 {
        self.done
    }

    fn request(&mut self) -> Result<(), String> {
        if self.next_at >= self.size {
            return Ok(());
        }
        let end = (self.next_at + self.slice).min(self.size);
        let part = if self.next_at == 0 && end == self.size {
            self.blob.clone()
        } else {
            self.blob
                .slice_with_f64_and_f64(self.next_at as f64, end as f64)
                .map_err(js_err)?
        };
        self.pending = Some((end - self.next_at, JsFuture::from(part.array_buffer())));
        self.next_at = end;
        Ok(())
    }

    /// The next slice, `None` at the end of the file. The one after it is requested before
    /// this one is returned.
    pub async fn next_slice(&mut self) -> Result<Option<&[u8]>, String> {
        let Some(part) = self.next_part().await? else {
            return Ok(None);
        };
        self.buf.resize(part.length() as usize, 0);
        part.copy_to(&mut self.buf);
        Ok(Some(&self.buf))
    }

    /// [`BlobSlices::next_slice`] as the browser gave it (JS memory, not copied).
    pub async fn next_part(&mut self) -> Result<Option<Uint8Array>, String> {
        let Some((len, pending)) = self.pending.take() else {
            return Ok(None);
        };
        let part = pending.await.map_err(js_err)?;
        let part = Uint8Array::new(&part);
        if u64::from(part.length()) != len {
            return Err("the file changed while it was being read".into());
        }
        self.request()?;
        self.done += len;
        Ok(Some(part))
    }
}

/// Reads a `Blob`/`File` whole, in the worker, asynchronously: in [`SLICE_BYTES`] slices (one
/// ahead, [`BlobSlices`]) into one buffer of the final size, calling `progress(bytes_read)`
/// after each slice. An `ArrayBuffer` source is copied out. The error is the reason, worded
/// for the user.
pub async fn read_whole(
    source: &JsValue,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, String> {
    if source.is_instance_of::<ArrayBuffer>() {
        return read_source(source, progress);
    }
    let mut slices = BlobSlices::new(source, SLICE_BYTES)
        .ok_or("neither bytes nor a file (an unexpected message)")??;
    let mut out = buffer_for(slices.size())?;
    while let Some(part) = slices.next_slice().await? {
        out.extend_from_slice(part);
        progress(out.len() as u64);
    }
    Ok(out)
}

/// Reads a `Blob`/`File` whole into one JS `Uint8Array` (outside wasm memory), in
/// [`SLICE_BYTES`] slices one ahead, calling `progress(bytes_read)` after each: a big file the
/// worker then parses a block at a time while the browser hashes it ([`start_sha256`]).
pub async fn read_into_js(
    source: &JsValue,
    progress: &mut dyn FnMut(u64),
) -> Result<Uint8Array, String> {
    let mut slices = BlobSlices::new(source, SLICE_BYTES)
        .ok_or("neither bytes nor a file (an unexpected message)")??;
    let whole = Uint8Array::new_with_length(browser_size(slices.size())?);
    let mut at = 0u32;
    while let Some(part) = slices.next_part().await? {
        whole.set(&part, at);
        at += part.length();
        progress(u64::from(at));
    }
    Ok(whole)
}

/// Starts the browser's SHA-256 of `bytes` (`crypto.subtle.digest`, which copies them and
/// hashes on the browser's own threads while this one goes on). `None` where the browser
/// offers no `crypto.subtle` (a page served over plain HTTP from another host is not a secure
/// context): the worker hashes in wasm then.
pub fn start_sha256(bytes: &Uint8Array) -> Option<JsFuture> {
    let digest = subtle()?
        .digest_with_str_and_buffer_source("SHA-256", bytes)
        .ok()?;
    Some(JsFuture::from(digest))
}

/// Whether [`start_sha256`] can hash here.
pub fn has_sha256() -> bool {
    subtle().is_some()
}

fn subtle() -> Option<web_sys::SubtleCrypto> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().dyn_into().ok()?;
    let crypto = scope.crypto().ok()?;
    let subtle = Reflect::get(&crypto, &JsValue::from_str("subtle")).ok()?;
    subtle.dyn_into().ok()
}

/// The 32 bytes of a digest started by [`start_sha256`].
pub async fn finish_sha256(digest: JsFuture) -> Result<Vec<u8>, String> {
    let buf = digest.await.map_err(js_err)?;
    let bytes = Uint8Array::new(&buf).to_vec();
    if bytes.len() == 32 {
        Ok(bytes)
    } else {
        Err(format!("a SHA-256 of {} bytes", bytes.len()))
    }
}

/// Starts reading a small `Blob`/`File` whole (the browser reads it while the worker goes on):
/// `None` for any other source.
pub fn start_read(source: &JsValue) -> Option<JsFuture> {
    let blob = source.dyn_ref::<Blob>()?;
    Some(JsFuture::from(blob.array_buffer()))
}

/// The bytes of a read started by [`start_read`].
pub async fn finish_read(read: JsFuture) -> Result<Vec<u8>, String> {
    let buf = read.await.map_err(js_err)?;
    buf.dyn_into::<ArrayBuffer>()
        .map(|b| Uint8Array::new(&b).to_vec())
        .map_err(|_| "not an ArrayBuffer".to_string())
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
