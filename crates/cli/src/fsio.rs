//! The only place the CLI touches the file system: a run folder (or a single file) becomes the
//! engine's (relative path, bytes) pairs, and output files are written as a set
//! ([`OutputSet`]) that never writes over an input, never escapes its folder, and is complete
//! or absent.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::model::ReadDetail;
use evalboard_engine::numeric_qa::read::{self, FileRead, OwnedRead};
use evalboard_engine::{InputFile, RunInput};

/// A run's display name: its folder (or file) name.
fn run_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Reads `path` recursively. A single file becomes a one-file run named after the file.
pub fn read_run(path: &Path) -> Result<RunInput> {
    let name = run_name(path);
    let listing = list_files(path)?;
    let files = read_all(path, &listing)?;
    none_read(path, listing.files.len(), files.len())?;
    Ok(RunInput::new(name, files))
}

/// An error when a folder lists files but none could be read (each is named above with its
/// reason): not "the folder is empty".
fn none_read(path: &Path, listed: usize, read: usize) -> Result<()> {
    if listed > 0 && read == 0 {
        anyhow::bail!(
            "{}: none of its {listed} file{} could be read (see the reasons above)",
            path.display(),
            if listed == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// The files of a run, listed once: each file's folder is an index into `dirs`, so opening it
/// needs no path parsing (a trace folder is tens of thousands of files).
struct Listing {
    dirs: Vec<PathBuf>,
    /// Sorted by relative path.
    files: Vec<Listed>,
}

pub use evalboard_engine::input::OUTPUTS_MARKER;

/// Why an entry of a run folder is not read, printed as `run/path: skipped: reason` (nothing is
/// left out silently).
fn report_skipped(run: &Path, rel: &str, reason: &str) {
    crate::errln!("{}/{rel}: skipped: {reason}", run.display());
}

struct Listed {
    /// The path relative to the run, with `/`; a single-file run's is the file name.
    rel: String,
    dir: usize,
    name: std::ffi::OsString,
}

impl Listing {
    fn path(&self, f: &Listed) -> PathBuf {
        self.dirs
            .get(f.dir)
            .map_or_else(|| PathBuf::from(&f.name), |d| d.join(&f.name))
    }
}

/// Every file under `path`, sorted by relative path; a single file is itself, named after its
/// file name.
fn list_files(path: &Path) -> Result<Listing> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_file() {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        return Ok(Listing {
            dirs: vec![dir.to_path_buf()],
            files: vec![Listed {
                rel: run_name(path),
                dir: 0,
                name,
            }],
        });
    }
    let mut dirs = vec![path.to_path_buf()];
    // Each folder's path relative to the run, ending in `/` ("" for the run's own folder).
    let mut prefixes = vec![String::new()];
    let mut stack = vec![0usize];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        let dir = dirs.get(d).cloned().unwrap_or_default();
        let prefix = prefixes.get(d).cloned().unwrap_or_default();
        // evalboard's own outputs, written inside a run folder, are not the run's input.
        if d != 0 && dir.join(OUTPUTS_MARKER).is_file() {
            report_skipped(
                path,
                &prefix,
                "evalboard's own outputs (an earlier --out), not read as input",
            );
            continue;
        }
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
        for e in entries {
            let e = e.with_context(|| format!("cannot list {}", dir.display()))?;
            let ft = e.file_type()?;
            let name = e.file_name();
            // A trace folder lists tens of thousands of names: no formatting machinery, and
            // the lossy conversion only for a name that is not UTF-8.
            let text = match name.to_str() {
                Some(t) => std::borrow::Cow::Borrowed(t),
                None => name.to_string_lossy(),
            };
            let mut rel = String::with_capacity(prefix.len() + text.len() + 1);
            rel.push_str(&prefix);
            rel.push_str(&text);
            if ft.is_dir() {
                rel.push('/');
                prefixes.push(rel);
                dirs.push(e.path());
                stack.push(dirs.len() - 1);
            } else if ft.is_file() {
                files.push(Listed { rel, dir: d, name });
            } else if ft.is_symlink() {
                // Not followed: a link can lead out of the folder the user named, or in a loop
                // (git-annex and DVC caches are links).
                report_skipped(path, &rel, "a symbolic link (not followed)");
            } else {
                // A FIFO is never opened (reading one blocks), nor a socket or a device.
                report_skipped(path, &rel, "not a regular file (a FIFO, socket or device)");
            }
        }
    }
    files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Listing { dirs, files })
}

/// A run as `evalboard score` loads it.
pub enum Loaded {
    /// A numeric QA run, streamed: every file was read into a reused buffer and read by the
    /// engine at once, so the folder is never in memory whole (a 100k-turn trace folder is
    /// ~200 MB of pretty-printed JSON; its model is a fraction of that).
    Qa {
        name: String,
        reads: Vec<FileRead<'static>>,
    },
    /// A run of another family, in memory whole for its reader.
    Other(RunInput),
    /// A lake's runs ([`lake_runs`]), each its own input: evalboard's run rows, read as a log.
    Lake(LakeRuns),
}

/// Bigger buffers than this are not kept for the next file, and JSONL files bigger than this
/// are read in blocks of [`BLOCK_BYTES`].
const KEEP_BUFFER_BYTES: usize = 16 << 20;
const BLOCK_BYTES: u64 = 4 << 20;

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Loads `path` for scoring: streamed as numeric QA, on every core, when its files vote so
/// ([`evalboard_engine::family::family_of_votes`], the rule [`evalboard_engine::family::detect_family`] applies); else read
/// again whole for the other family's reader. `detail`: what the numeric QA readers keep
/// ([`ReadDetail::Doc`] when only the doc profile will score it).
pub fn load_run(path: &Path, detail: ReadDetail) -> Result<Loaded> {
    if path.join(evalboard_lake::MANIFEST_FILE).is_file() {
        return Ok(Loaded::Lake(lake_runs(path)?));
    }
    let listing = list_files(path)?;
    let folders = Folders::open(&listing);
    let streamed = evalboard_engine::parallel::map_on_threads(&listing.files, threads(), |f| {
        read_one(f, &folders, detail)
    })
    .ok_or_else(|| anyhow::anyhow!("a file-reading thread panicked"))?;
    // One pass into the two vectors the caller needs (a big folder's reads are megabytes). A
    // file that cannot be read is skipped with its reason; the others are the run.
    let mut reads = Vec::with_capacity(streamed.len());
    let mut votes = Vec::with_capacity(streamed.len());
    for (r, f) in streamed.into_iter().zip(&listing.files) {
        match r {
            Ok((read, vote)) => {
                reads.push(read);
                votes.push(vote);
            }
            Err(e) => report_skipped(path, &f.rel, &format!("cannot be read ({e})")),
        }
    }
    none_read(path, listing.files.len(), reads.len())?;
    if evalboard_engine::family::family_of_votes(votes) != Family::NumericQa {
        return Ok(Loaded::Other(read_run(path)?));
    }
    Ok(Loaded::Qa {
        name: run_name(path),
        reads,
    })
}

/// A lake's runs, and which of them its `comparisons` name as a baseline.
pub struct LakeRuns {
    pub runs: Vec<RunInput>,
    pub baseline: Vec<bool>,
}

/// The runs of the lake at `dir` ([`evalboard_lake::open`]), in the order the manifest lists
/// them (shard by shard, each in its command-line order), each as one input named after the
/// run as `score` printed it, holding its run rows
/// ([`evalboard_engine::lake::rows::run_rows`]: its items, texts and every scorer's verdicts
/// as exported) under the path `<run_id>.evalboard-rows.jsonl`. A table that did not open is
/// named on stderr; without `runs` nothing is usable.
pub fn lake_runs(dir: &Path) -> Result<LakeRuns> {
    let lake = evalboard_lake::open(dir)?;
    for (schema, t) in &lake.tables {
        if let Err(e) = t {
            crate::errln!(
                "evalboard: warning: {}: table {} not read: {e}",
                dir.display(),
                schema.name
            );
        }
    }
    let Some(runs) = lake.table("runs") else {
        anyhow::bail!(
            "{}: the lake's runs table could not be read (see above)",
            dir.display()
        );
    };
    let mut rows = evalboard_engine::lake::rows::run_rows(
        runs,
        lake.table("samples"),
        lake.table("verdicts"),
        lake.table("sample_text"),
    );
    let rank: std::collections::HashMap<&str, usize> = lake
        .manifest
        .runs()
        .into_iter()
        .enumerate()
        .map(|(i, r)| (r.run_id.as_str(), i))
        .collect();
    rows.sort_by_key(|r| rank.get(r.run_id.as_str()).copied().unwrap_or(usize::MAX));
    let baselines: std::collections::HashSet<&str> = lake
        .table("comparisons")
        .map(|t| t.column("baseline_run_id"))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|c| match c {
            evalboard_engine::lake::Cell::Str(id) => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let baseline = rows
        .iter()
        .map(|r| baselines.contains(r.run_id.as_str()))
        .collect();
    let runs = rows
        .into_iter()
        .map(|r| {
            let path = format!("{}.evalboard-rows.jsonl", r.run_id);
            RunInput::new(r.name, vec![InputFile::new(path, r.bytes)])
        })
        .collect();
    Ok(LakeRuns { runs, baseline })
}

/// How many threads the CLI reads and parses with: the machine's cores.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Reads one file of a run folder through this thread's reused buffer: a big QA JSONL file in
/// blocks ([`read::QaJsonlStream`]), any other file whole ([`read::read_file_owned`]).
fn read_one(
    f: &Listed,
    folders: &Folders,
    detail: ReadDetail,
) -> std::io::Result<(FileRead<'static>, Option<Family>)> {
    let rel = f.rel.as_str();
    let mut buf = BUFFER.with(|b| b.take());
    buf.clear();
    let mut file = folders.open_file(f)?;
    if evalboard_engine::numeric_qa::sniff::is_jsonl_name(rel)
        && file.metadata()?.len() > KEEP_BUFFER_BYTES as u64
    {
        (&mut file).take(BLOCK_BYTES).read_to_end(&mut buf)?;
        if let Some(mut stream) = read::QaJsonlStream::start(rel, &buf) {
            loop {
                buf.clear();
                if (&mut file).take(BLOCK_BYTES).read_to_end(&mut buf)? == 0 {
                    break;
                }
                stream.feed(&buf);
            }
            BUFFER.with(|c| c.replace(buf));
            let OwnedRead { read, vote, .. } = stream.finish();
            return Ok((read, vote));
        }
    }
    read_to_end(&mut file, &mut buf)?;
    // A details Parquet file votes as the lm-eval samples it holds.
    let input = details_as_samples(InputFile::new(rel, buf)).map_err(|e| {
        let evalboard_lake::LakeError::File { message, .. } = e;
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a Parquet file: {message}"),
        )
    })?;
    let OwnedRead {
        read,
        vote,
        bytes_back,
    } = read::read_file_owned(input, detail);
    if let Some(b) = bytes_back.filter(|b| b.capacity() <= KEEP_BUFFER_BYTES) {
        BUFFER.with(|c| c.replace(b));
    }
    Ok((read, vote))
}

/// The folders of a run's files, opened once: each file is then opened relative to its folder.
struct Folders<'l> {
    listing: &'l Listing,
    /// By folder index; `None` for a folder that could not be opened (its files are then
    /// opened by full path, and fail there with the usual error if they must).
    #[cfg(unix)]
    fds: Vec<Option<std::os::fd::OwnedFd>>,
}

impl<'l> Folders<'l> {
    fn open(listing: &'l Listing) -> Folders<'l> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let fds = listing
                .dirs
                .iter()
                .map(|d| rustix::fs::open(d, flags, Mode::empty()).ok())
                .collect();
            Folders { listing, fds }
        }
        #[cfg(not(unix))]
        Folders { listing }
    }

    fn open_file(&self, f: &Listed) -> std::io::Result<std::fs::File> {
        #[cfg(unix)]
        if let Some(Some(dir)) = self.fds.get(f.dir) {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(dir, &f.name, flags, Mode::empty())?;
            return Ok(std::fs::File::from(fd));
        }
        std::fs::File::open(self.listing.path(f))
    }
}

/// Reads the rest of `file` onto `buf`: read until end of file, with no size probe first (std's
/// `read_to_end` asks for the size and position: two more syscalls per file).
fn read_to_end(file: &mut std::fs::File, buf: &mut Vec<u8>) -> std::io::Result<()> {
    #[cfg(unix)]
    loop {
        // Grow only when full (by doubling, from 8 KB): a buffer sized to the file (read_all)
        // stays that size, and the streaming loader's reused buffer settles at its biggest file.
        if buf.capacity() == buf.len() {
            buf.reserve((8 << 10).max(buf.len()));
        }
        match rustix::io::read(&*file, rustix::buffer::spare_capacity(buf)) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    #[cfg(not(unix))]
    file.read_to_end(buf).map(|_| ())
}

/// Reads every file, on [`threads`] threads (a trace folder is tens of thousands of small files).
/// Every listed file, whole; a file that cannot be read is skipped with its reason.
fn read_all(path: &Path, listing: &Listing) -> Result<Vec<InputFile>> {
    let folders = Folders::open(listing);
    let read = evalboard_engine::parallel::map_on_threads(&listing.files, threads(), |f| {
        let mut bytes = Vec::new();
        folders.open_file(f).and_then(|mut file| {
            // Held whole: sized to the file (+1, so the end-of-file read needs no growth).
            let size = file.metadata().map_or(0, |m| m.len());
            bytes.reserve_exact(usize::try_from(size).unwrap_or(0).saturating_add(1));
            read_to_end(&mut file, &mut bytes)
        })?;
        Ok::<_, std::io::Error>(InputFile::new(f.rel.clone(), bytes))
    })
    .ok_or_else(|| anyhow::anyhow!("a file-reading thread panicked"))?;
    let mut files = Vec::with_capacity(read.len());
    for (r, f) in read.into_iter().zip(&listing.files) {
        match r.map(details_as_samples) {
            Ok(Ok(file)) => files.push(file),
            Ok(Err(evalboard_lake::LakeError::File { message, .. })) => report_skipped(
                path,
                &f.rel,
                &format!("cannot be read (a Parquet file: {message})"),
            ),
            Err(e) => report_skipped(path, &f.rel, &format!("cannot be read ({e})")),
        }
    }
    Ok(files)
}

/// An lm-eval details Parquet file (the Open LLM Leaderboard's per-sample details) as the
/// samples JSON lines it was converted from, under its own path, for the engine's lm-eval
/// reader ([`evalboard_lake::details`]); any other file as it is.
pub fn details_as_samples(f: InputFile) -> Result<InputFile, evalboard_lake::LakeError> {
    if !f.path.ends_with(".parquet") || !evalboard_lake::details::is_parquet(&f.bytes) {
        return Ok(f);
    }
    match evalboard_lake::details::samples_jsonl(&f.bytes, &f.path) {
        Ok(Some(jsonl)) => Ok(InputFile::new(f.path, jsonl)),
        Ok(None) => Ok(f),
        Err(e) => Err(e),
    }
}

/// Output files written as a set. Each file goes to a temporary name in its folder; [`commit`]
/// renames them all into place once every one is written, so a kill or a full disk leaves the
/// previous outputs or the new ones, never a mix. It refuses, before writing anything:
/// - a file name that leaves the output folder (`..`, an absolute path);
/// - an output folder that is a run folder being read, or a file that is one of the run's input
///   files (it would be read back as input, or destroy it);
/// - a file that exists already, unless `force`.
///
/// An output folder inside a run folder gets [`OUTPUTS_MARKER`], so reading that run again
/// skips it.
///
/// [`commit`]: OutputSet::commit
pub struct OutputSet {
    force: bool,
    /// The run folders (or files) being read, canonical.
    inputs: Vec<PathBuf>,
    /// (final path, temporary path), written.
    written: Vec<(PathBuf, PathBuf)>,
    /// Output folders inside a run folder, to mark.
    marked: Vec<PathBuf>,
}

impl OutputSet {
    /// Outputs of the runs at `inputs` (folders or files).
    pub fn new(inputs: &[PathBuf], force: bool) -> OutputSet {
        OutputSet {
            force,
            inputs: inputs
                .iter()
                .filter_map(|p| p.canonicalize().ok())
                .collect(),
            written: Vec::new(),
            marked: Vec::new(),
        }
    }

    /// Writes `text` as `dir/name` under its temporary name.
    pub fn add(&mut self, dir: &Path, name: &str, text: &[u8]) -> Result<()> {
        self.add_with(dir, name, |w| w.write_all(text))
    }

    /// Writes `dir/name` under its temporary name with `write`, through a buffer: a big file
    /// goes to disk as it is made, never whole in memory.
    pub fn add_with(
        &mut self,
        dir: &Path,
        name: &str,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<()> {
        let rel = Path::new(name);
        if rel.is_absolute()
            || rel
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            anyhow::bail!("refusing to write {name:?}: it leaves the output folder");
        }
        let target = dir.join(rel);
        let parent = target.parent().unwrap_or(dir).to_path_buf();
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        let canonical_parent = parent
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", parent.display()))?;
        let file_name = target.file_name().unwrap_or_default();
        let canonical = canonical_parent.join(file_name);
        for input in &self.inputs {
            if canonical == *input || canonical_parent == *input {
                anyhow::bail!(
                    "refusing to write {} into the run {} it reads: the outputs would be read \
                     back as its input next time (choose another --out)",
                    target.display(),
                    input.display()
                );
            }
            if canonical.starts_with(input) && !self.marked.contains(&canonical_parent) {
                self.marked.push(canonical_parent.clone());
            }
        }
        if target.is_dir() {
            anyhow::bail!(
                "refusing to write {}: a folder has that name",
                target.display()
            );
        }
        if target.exists() && !self.force {
            anyhow::bail!(
                "refusing to overwrite {} (it exists; --force replaces it)",
                target.display()
            );
        }
        let tmp = parent.join(format!(
            ".{}.evalboard-{}.tmp",
            file_name.to_string_lossy(),
            std::process::id()
        ));
        // Listed first, so that a failed write's partial file is removed with the others.
        self.written.push((target, tmp.clone()));
        let written = std::fs::File::create(&tmp).and_then(|file| {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            write(&mut out)?;
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        });
        written.with_context(|| format!("cannot write {}", tmp.display()))?;
        Ok(())
    }

    /// Moves every written file into place (and marks output folders inside a run folder).
    pub fn commit(mut self) -> Result<usize> {
        for dir in std::mem::take(&mut self.marked) {
            let marker = dir.join(OUTPUTS_MARKER);
            std::fs::write(&marker, "evalboard outputs: not read as a run's input\n")
                .with_context(|| format!("cannot write {}", marker.display()))?;
        }
        let written = std::mem::take(&mut self.written);
        let n = written.len();
        for (i, (target, tmp)) in written.iter().enumerate() {
            if let Err(e) = std::fs::rename(tmp, target) {
                for (_, rest) in written.iter().skip(i) {
                    let _ = std::fs::remove_file(rest);
                }
                return Err(e).with_context(|| format!("cannot write {}", target.display()));
            }
        }
        Ok(n)
    }
}

impl Drop for OutputSet {
    /// Not committed (an error on the way): the temporary files go, the previous outputs stay.
    fn drop(&mut self) {
        for (_, tmp) in &self.written {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The longest run subfolder name `--out` makes, in bytes: file systems refuse a path component
/// past 255 bytes, and the `-N` `score` adds to a repeated name must still fit.
pub const MAX_FOLDER_NAME_BYTES: usize = 200;

/// The file in `--out` listing each run's full name beside its folder, written when a run's
/// folder name was shortened ([`output_folder_name`]).
pub const RUN_INDEX_FILE: &str = "evalboard-runs.json";

/// A run's subfolder under `--out` when several runs are written: its name as one plain path
/// component (`..`, `.`, an empty name or separators become `run`-based names), at most
/// [`MAX_FOLDER_NAME_BYTES`] long: a longer one keeps its start (cut on a character boundary)
/// and ends with `-` and 16 hex digits of a hash of the whole name, so two long names that
/// start alike still get two folders, and the same name the same folder every time.
pub fn output_folder_name(name: &str) -> String {
    let folder = plain_folder_name(name);
    if folder.len() <= MAX_FOLDER_NAME_BYTES {
        return folder;
    }
    let hash = format!("{:016x}", fnv1a64(name.as_bytes()));
    let mut cut = MAX_FOLDER_NAME_BYTES - hash.len() - 1;
    while !folder.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}-{hash}",
        folder.get(..cut).unwrap_or_default().trim_end()
    )
}

/// Whether [`output_folder_name`] shortens `name`.
pub fn folder_name_is_shortened(name: &str) -> bool {
    plain_folder_name(name).len() > MAX_FOLDER_NAME_BYTES
}

/// 64-bit FNV-1a: a stable hash (the same on every machine and version), for folder names.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn plain_folder_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    match clean.trim() {
        "" | "." | ".." => "run".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files are read whole, byte for byte, at every size around the read loop's block sizes,
    /// in nested folders, empty ones included.
    /// A run's output subfolder is one plain path component, whatever the run's name.
    #[test]
    fn output_folder_names_stay_inside_the_output_folder() {
        for (name, want) in [
            ("run", "run"),
            ("..", "run"),
            (".", "run"),
            ("", "run"),
            ("a/../../etc", "a_.._.._etc"),
            ("C:\\x", "C:_x"),
            ("tab\there", "tab_here"),
        ] {
            assert_eq!(output_folder_name(name), want, "{name:?}");
        }
    }

    /// A name past the limit keeps a readable start, cut on a character boundary, and a hash of
    /// the whole name: two long names that share their start get two folders.
    #[test]
    fn long_output_folder_names_are_shortened_with_a_hash() {
        let a = format!("{}_{}a.jsonl", "d".repeat(150), "é".repeat(100));
        let b = format!("{}_{}b.jsonl", "d".repeat(150), "é".repeat(100));
        let (fa, fb) = (output_folder_name(&a), output_folder_name(&b));
        assert!(fa.len() <= MAX_FOLDER_NAME_BYTES, "{}", fa.len());
        assert_ne!(fa, fb);
        assert_eq!(fa, output_folder_name(&a), "stable");
        assert!(fa.starts_with(&"d".repeat(150)), "{fa}");
        let (head, hash) = fa.rsplit_once('-').unwrap();
        assert!(a.starts_with(head) && hash.len() == 16, "{fa}");
        assert!(folder_name_is_shortened(&a));
        let short = "d".repeat(MAX_FOLDER_NAME_BYTES);
        assert_eq!(output_folder_name(&short), short);
        assert!(!folder_name_is_shortened(&short));
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn files_read_whole_relative_to_their_folder() {
        let root = std::env::temp_dir().join(format!("evalboard-fsio-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        let sizes = [0usize, 1, 16383, 16384, 65535, 65536, 65537, 300_001];
        for (i, n) in sizes.iter().enumerate() {
            let bytes: Vec<u8> = (0..*n).map(|k| (k * 7 + i) as u8).collect();
            let dir = if i % 2 == 0 { "a" } else { "a/b" };
            std::fs::write(root.join(dir).join(format!("f{i}.bin")), &bytes).unwrap();
        }
        let listing = list_files(&root).unwrap();
        let rels: Vec<&str> = listing.files.iter().map(|f| f.rel.as_str()).collect();
        let mut want: Vec<String> = (0..sizes.len())
            .map(|i| format!("{}/f{i}.bin", if i % 2 == 0 { "a" } else { "a/b" }))
            .collect();
        want.sort();
        assert_eq!(rels, want);
        let folders = Folders::open(&listing);
        let mut buf = Vec::new();
        for f in &listing.files {
            buf.clear();
            read_to_end(&mut folders.open_file(f).unwrap(), &mut buf).unwrap();
            let p = listing.path(f);
            assert_eq!(buf, std::fs::read(&p).unwrap(), "{}", p.display());
        }
        // A file that is gone is an error, not an empty file.
        let gone = Listed {
            rel: "a/gone.json".into(),
            dir: 1,
            name: "gone.json".into(),
        };
        assert!(folders.open_file(&gone).is_err());
        // A single file is a one-file run named after it.
        let one = list_files(&root.join("a/f0.bin")).unwrap();
        assert_eq!(one.files.len(), 1);
        assert_eq!(one.files[0].rel, "f0.bin");
        assert_eq!(read_all(&root, &one).unwrap()[0].bytes.len(), 0);
        // Files held whole are not padded to a read block (a trace folder is 28k small files).
        for file in read_all(&root, &listing).unwrap() {
            assert!(
                file.bytes.capacity() <= file.bytes.len() + 1,
                "{}",
                file.path
            );
        }
        // A file that cannot be read (here: gone between listing and reading) is skipped with
        // its reason; the other files are read (one bad file used to fail the whole run).
        let listing = list_files(&root).unwrap();
        std::fs::remove_file(root.join("a/f0.bin")).unwrap();
        let files = read_all(&root, &listing).unwrap();
        assert_eq!(files.len(), listing.files.len() - 1);
        assert!(files.iter().all(|f| f.path != "a/f0.bin"));
        let loaded = load_run(&root, ReadDetail::Full);
        assert!(loaded.is_ok(), "one unreadable file does not fail the run");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
