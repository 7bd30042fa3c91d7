//! How the main worker takes in a `Load`'s files: bytes the page already held, or dropped and
//! picked `File`s read a few at a time ahead, a big QA JSONL file streamed through its reader in
//! blocks, and every file's SHA-256 for the HTML report's provenance.

use js_sys::{Array, ArrayBuffer};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use evalboard_engine::numeric_qa::read;
use evalboard_engine::{InputFile, RunInput};
use evalboard_report::html::FileProvenance;

use crate::protocol::{Response, RunId};
use crate::worker::browser_files;
use crate::worker::runtime::{now, post};

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
/// 64 read the 100k-turn trace folder no faster here (issue 17.9, docs/performance.md).
const READ_AHEAD_FILES: usize = 32;
/// ... when they are at most this big.
const READ_AHEAD_MAX_BYTES: u64 = 1 << 20;

/// The most memory a WebAssembly module (32-bit) can have: 65,536 pages of 64 KiB. Browsers
/// give it no more, whatever the machine has.
const WASM_MEMORY_MAX: u64 = 4 << 30;
/// The worker's memory per byte of a run's files, at most: the run's model and scores take
/// 1.05× (100k turns) to 1.28× (1M turns) a QA JSONL's size in the worker, measured as the
/// growth of its memory (docs/performance.md, session 11); the rest is room for the file's
/// slices being read and the views built from the run.
const MEMORY_PER_INPUT_BYTE: f64 = 1.5;

/// Why a run of `total` bytes is refused before a byte of it is read: scoring it would need
/// more memory than WebAssembly can have beside what this worker holds already. `None` when it
/// fits. A run that does not fit would otherwise fail late, when an allocation fails and the
/// worker stops; the CLI streams the same files on native memory.
pub(crate) fn memory_refusal(total: u64) -> Option<String> {
    let in_use = memory_in_use();
    let need = (total as f64 * MEMORY_PER_INPUT_BYTE) as u64;
    let free = WASM_MEMORY_MAX.saturating_sub(in_use);
    if need <= free {
        return None;
    }
    let held = if in_use >= 256 << 20 {
        format!(
            ", and the runs loaded so far hold {} of it (reloading the page frees it)",
            crate::format::bytes(in_use)
        )
    } else {
        String::new()
    };
    Some(format!(
        "This run is {size}: too big to score in the browser. The dashboard's engine runs in \
         WebAssembly, which a browser gives at most 4 GB of memory{held}; scoring a run takes \
         up to {MEMORY_PER_INPUT_BYTE}× its size ({need}). Nothing of it was read. Score it with \
         the command-line tool, which streams it: `evalboard score <folder or file>`.",
        size = crate::format::bytes(total),
        need = crate::format::bytes(need),
    ))
}

/// The worker's memory now (WebAssembly memory only grows).
fn memory_in_use() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0) as u64 * 65536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// The total size of a `Load`'s sources.
pub(crate) fn sources_size(sources: &Array) -> u64 {
    sources.iter().map(|s| source_size(&s)).sum()
}

/// The files of a `Load` as the worker took them in.
pub(crate) struct Taken {
    /// Read whole, with their position among the `Load`'s sources ([`Taken::push`]).
    files: Vec<(usize, InputFile)>,
    /// The family each of `files` votes for, taken once as it came in.
    votes: Vec<Option<evalboard_engine::family::Family>>,
    /// Big JSONL files read as they streamed in.
    pub streamed: Vec<Streamed>,
    /// When the reading started (`now()`), and the milliseconds spent reading bytes, hashing
    /// streamed files, and in their reader.
    pub started: f64,
    pub read_ms: f64,
    pub hash_ms: f64,
    pub parse_ms: f64,
    /// Whether the files' SHA-256s are computed after the run's numbers are on screen
    /// ([`read_buffers`]).
    pub hash_later: bool,
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
    pub read: read::OwnedRead,
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
        hash_later: false,
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
    hash_later: bool,
) -> Taken {
    let t0 = now();
    let mut taken = new_taken(paths.len());
    taken.hash_later = hash_later;
    let mut problems = Vec::new();
    for (i, path) in paths.into_iter().enumerate() {
        let source = sources.get(i as u32);
        match browser_files::read_source(&source, &mut |_| {}) {
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
            if evalboard_engine::numeric_qa::sniff::is_jsonl_name(&path)
                && size > STREAM_ABOVE_BYTES
            {
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
    if !taken.streamed.is_empty() && taken.family() != evalboard_engine::family::Family::NumericQa {
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
    let Some(mut stream) = read::QaJsonlStream::start(big.path, &buf) else {
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

/// Streams a big JSONL `File` through [`read::QaJsonlStream`] and the provenance hasher,
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
    let Some(mut stream) = read::QaJsonlStream::start(big.path, head) else {
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
    /// The family the files vote for ([`evalboard_engine::family::family_of_votes`]; a streamed file votes as
    /// it read).
    pub(crate) fn family(&self) -> evalboard_engine::family::Family {
        evalboard_engine::family::family_of_votes(
            self.votes
                .iter()
                .copied()
                .chain(self.streamed.iter().map(|s| s.read.vote)),
        )
    }

    /// Takes in the file at `index` of the `Load`'s sources, with its family vote.
    fn push(&mut self, index: usize, file: InputFile) {
        self.votes
            .push(evalboard_engine::family::family_vote(&file));
        self.files.push((index, file));
    }

    /// The run's whole files as its input, their places among the `Load`'s sources, and its
    /// streamed files.
    pub(crate) fn into_input(self, name: String) -> (RunInput, Vec<usize>, Vec<Streamed>) {
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

/// SHA-256 of every input file (the HTML report's provenance), 4 MB at a time with progress
/// between chunks so a big file never leaves the progress bar silent, at most every 50 ms: with
/// one message per file, the page took 2–6 s to work through a trace folder's 28,589 after the
/// worker's 0.7–1 s of hashing, the run's numbers waiting behind them (issue 17.9,
/// docs/performance.md).
pub(crate) fn provenance(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    input: &RunInput,
    later: bool,
) -> Vec<evalboard_report::html::FileProvenance> {
    const HASH_CHUNK: usize = 4 << 20;
    let total_bytes: u64 = input.files.iter().map(|f| f.bytes.len() as u64).sum();
    let mut hashed = 0u64;
    let mut last = f64::NEG_INFINITY;
    input
        .files
        .iter()
        .map(|f| {
            if later {
                // Its SHA-256 comes after the numbers (`Taken::hash_later`).
                return evalboard_report::html::FileProvenance {
                    run: input.name.clone(),
                    path: f.path.clone(),
                    bytes: f.bytes.len() as u64,
                    sha256: "being computed: export the report again in a moment".into(),
                };
            }
            let before = hashed;
            let p = evalboard_report::html::FileProvenance::of_chunked(
                &input.name,
                &f.path,
                &f.bytes,
                HASH_CHUNK,
                &mut |d| {
                    hashed = before + d as u64;
                    let t = now();
                    if t - last < 50.0 {
                        return;
                    }
                    last = t;
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
