//! The only place the CLI touches the file system for input: a run folder (or a single file)
//! becomes the engine's (relative path, bytes) pairs.

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
    let files = read_all(&list_files(path)?)?;
    Ok(RunInput::new(name, files))
}

/// The files of a run, listed once: each file's folder is an index into `dirs`, so opening it
/// needs no path parsing (a trace folder is tens of thousands of files).
struct Listing {
    dirs: Vec<PathBuf>,
    /// Sorted by relative path.
    files: Vec<Listed>,
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
    let listing = list_files(path)?;
    let folders = Folders::open(&listing);
    let streamed = evalboard_engine::parallel::map_on_threads(&listing.files, threads(), |f| {
        read_one(f, &folders, detail)
            .with_context(|| format!("cannot read {}", listing.path(f).display()))
    })
    .ok_or_else(|| anyhow::anyhow!("a file-reading thread panicked"))?;
    // One pass into the two vectors the caller needs (a big folder's reads are megabytes).
    let mut reads = Vec::with_capacity(streamed.len());
    let mut votes = Vec::with_capacity(streamed.len());
    for r in streamed {
        let (read, vote) = r?;
        reads.push(read);
        votes.push(vote);
    }
    if evalboard_engine::family::family_of_votes(votes) != Family::NumericQa {
        return Ok(Loaded::Other(read_run(path)?));
    }
    Ok(Loaded::Qa {
        name: run_name(path),
        reads,
    })
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
    let OwnedRead {
        read,
        vote,
        bytes_back,
    } = read::read_file_owned(InputFile::new(rel, buf), detail);
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
fn read_all(listing: &Listing) -> Result<Vec<InputFile>> {
    let folders = Folders::open(listing);
    evalboard_engine::parallel::map_on_threads(&listing.files, threads(), |f| {
        let mut bytes = Vec::new();
        folders
            .open_file(f)
            .and_then(|mut file| {
                // Held whole: sized to the file (+1, so the end-of-file read needs no growth).
                let size = file.metadata().map_or(0, |m| m.len());
                bytes.reserve_exact(usize::try_from(size).unwrap_or(0).saturating_add(1));
                read_to_end(&mut file, &mut bytes)
            })
            .with_context(|| format!("cannot read {}", listing.path(f).display()))?;
        Ok(InputFile::new(f.rel.clone(), bytes))
    })
    .ok_or_else(|| anyhow::anyhow!("a file-reading thread panicked"))?
    .into_iter()
    .collect()
}

/// Writes `dir/name` (`name` may contain `/`), creating folders as needed.
pub fn write(dir: &Path, name: &str, text: &str) -> Result<()> {
    let p = dir.join(name);
    let parent = p.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files are read whole, byte for byte, at every size around the read loop's block sizes,
    /// in nested folders, empty ones included.
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
        assert_eq!(read_all(&one).unwrap()[0].bytes.len(), 0);
        // Files held whole are not padded to a read block (a trace folder is 28k small files).
        for file in read_all(&listing).unwrap() {
            assert!(
                file.bytes.capacity() <= file.bytes.len() + 1,
                "{}",
                file.path
            );
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
