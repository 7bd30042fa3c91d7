//! The worker's readers of browser files: the `File`s and `ArrayBuffer`s a `Load` carries are
//! read here, in the worker (a run of many files excepted: the page reads those and transfers
//! the bytes, `ui::picked_files::read_on_page`).
//!
//! A `File` is read with `Blob.arrayBuffer()` ([`read_whole`], [`BlobSlices`], [`start_read`],
//! [`read_into_js`]) — never as a JS string; big files a slice ahead, so the browser reads the
//! next slice while the worker works on this one. The browser's SHA-256 ([`start_sha256`])
//! hashes a big file off the worker's thread.

use js_sys::{ArrayBuffer, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use crate::js_error::js_err;

/// Files above this size are read in slices of this size (progress per slice, bounded memory
/// spikes in the browser's blob reader).
const SLICE_BYTES: u64 = 16 * 1024 * 1024;

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

/// Random access to a `Blob`/`File` in the worker ([`ByteSource`] for the engine's readers of
/// big archives): a read outside the bytes held fetches a window of at least [`BlobAt::WINDOW`]
/// bytes from there on (`Blob.slice().arrayBuffer()`), so an archive's members, read in order,
/// cost one browser read per window, and the file is never in memory whole.
///
/// [`ByteSource`]: evalboard_engine::evallog::eval_file::ByteSource
pub struct BlobAt {
    blob: Blob,
    size: u64,
    /// The bytes held, and where in the file they start.
    at: u64,
    held: Vec<u8>,
    window: u64,
}

impl BlobAt {
    pub const WINDOW: u64 = 8 << 20;

    /// `None` when `source` is not a `Blob`.
    pub fn new(source: &JsValue) -> Option<Result<BlobAt, String>> {
        let blob = source.dyn_ref::<Blob>()?.clone();
        Some(blob_size(&blob).map(|size| BlobAt {
            blob,
            size,
            at: 0,
            held: Vec::new(),
            window: Self::WINDOW,
        }))
    }

    /// Reads at least `window` bytes at a time instead of [`BlobAt::WINDOW`].
    pub fn with_window(mut self, window: u64) -> BlobAt {
        self.window = window.max(1);
        self
    }

    /// Bytes `[at, at + len)` of the file.
    pub async fn read_at(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        use evalboard_engine::evallog::eval_file::{past_end, range};
        let end = at
            .checked_add(len)
            .filter(|&e| e <= self.size)
            .ok_or_else(|| past_end(at, len, self.size))?;
        let held_end = self.at + self.held.len() as u64;
        if at < self.at || end > held_end {
            let to = end.max(at.saturating_add(self.window)).min(self.size);
            browser_size(to - at)?;
            let part = self
                .blob
                .slice_with_f64_and_f64(at as f64, to as f64)
                .map_err(js_err)?;
            let buf = JsFuture::from(part.array_buffer()).await.map_err(js_err)?;
            let buf = Uint8Array::new(&buf);
            if u64::from(buf.length()) != to - at {
                return Err("the file changed while it was being read".into());
            }
            self.held.clear();
            self.held
                .try_reserve_exact(buf.length() as usize)
                .map_err(|_| format!("{} bytes do not fit in the browser's memory", to - at))?;
            self.held.resize(buf.length() as usize, 0);
            buf.copy_to(&mut self.held);
            self.at = at;
        }
        range(&self.held, at - self.at, len).map(<[u8]>::to_vec)
    }
}

impl evalboard_engine::evallog::eval_file::ByteSource for BlobAt {
    fn size(&self) -> u64 {
        self.size
    }
    async fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        self.read_at(at, len).await
    }
}
