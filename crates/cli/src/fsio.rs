//! The only place the CLI touches the file system for input: a run folder (or a single file)
//! becomes the engine's (relative path, bytes) pairs.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use evalboard_engine::pipeline::{self, Family, FileRead, OwnedRead};
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
    let files = read_all(list_files(path)?)?;
    Ok(RunInput::new(name, files))
}

/// Every file under `path` as (relative path with `/`, full path), sorted by relative path; a
/// single file is itself, named after its file name.
fn list_files(path: &Path) -> Result<Vec<(String, PathBuf)>> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_file() {
        return Ok(vec![(run_name(path), path.to_path_buf())]);
    }
    let mut paths: Vec<(String, PathBuf)> = Vec::new();
    let mut stack: Vec<PathBuf> = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
        for e in entries {
            let e = e.with_context(|| format!("cannot list {}", dir.display()))?;
            let p = e.path();
            let ft = e.file_type()?;
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let rel = p
                    .strip_prefix(path)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .replace('\\', "/");
                paths.push((rel, p));
            }
        }
    }
    paths.sort();
    Ok(paths)
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
/// ([`pipeline::family_of_votes`], the rule [`pipeline::detect_family`] applies); else read
/// again whole for the other family's reader.
pub fn load_run(path: &Path) -> Result<Loaded> {
    let paths = list_files(path)?;
    let folders = Folders::open(&paths);
    let streamed = evalboard_engine::parallel::map_on_threads(&paths, threads(), |(rel, p)| {
        read_one(rel, p, &folders).with_context(|| format!("cannot read {}", p.display()))
    })
    .ok_or_else(|| anyhow::anyhow!("a file-reading thread panicked"))?
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    if pipeline::family_of_votes(streamed.iter().map(|(_, v)| *v)) != Family::NumericQa {
        return Ok(Loaded::Other(read_run(path)?));
    }
    Ok(Loaded::Qa {
        name: run_name(path),
        reads: streamed.into_iter().map(|(r, _)| r).collect(),
    })
}

/// How many threads the CLI reads and parses with: the machine's cores.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Reads one file of a run folder through this thread's reused buffer: a big QA JSONL file in
/// blocks ([`pipeline::QaJsonlStream`]), any other file whole ([`pipeline::read_file_owned`]).
fn read_one(
    rel: &str,
    p: &Path,
    folders: &Folders,
) -> std::io::Result<(FileRead<'static>, Option<Family>)> {
    let mut buf = BUFFER.with(|b| b.take());
    buf.clear();
    let mut file = folders.open_file(p)?;
    if pipeline::is_jsonl_name(rel) && file.metadata()?.len() > KEEP_BUFFER_BYTES as u64 {
        (&mut file).take(BLOCK_BYTES).read_to_end(&mut buf)?;
        if let Some(mut stream) = pipeline::QaJsonlStream::start(rel, &buf) {
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
    } = pipeline::read_file_owned(InputFile::new(rel, buf));
    if let Some(b) = bytes_back.filter(|b| b.capacity() <= KEEP_BUFFER_BYTES) {
        BUFFER.with(|c| c.replace(b));
    }
    Ok((read, vote))
}

/// The folders of a run's files, opened once: each file is then opened relative to its folder.
struct Folders {
    #[cfg(unix)]
    fds: std::collections::HashMap<PathBuf, std::os::fd::OwnedFd>,
}

impl Folders {
    /// Opens the folders of `paths` (one that cannot be opened is left out: its files are then
    /// opened by full path, and fail there with the usual error if they must).
    fn open(paths: &[(String, PathBuf)]) -> Folders {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let mut fds = std::collections::HashMap::new();
            for (_, p) in paths {
                let Some(dir) = p.parent() else { continue };
                if !fds.contains_key(dir) {
                    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                    if let Ok(fd) = rustix::fs::open(dir, flags, Mode::empty()) {
                        fds.insert(dir.to_path_buf(), fd);
                    }
                }
            }
            Folders { fds }
        }
        #[cfg(not(unix))]
        {
            let _ = paths;
            Folders {}
        }
    }

    fn open_file(&self, p: &Path) -> std::io::Result<std::fs::File> {
        #[cfg(unix)]
        if let (Some(dir), Some(name)) = (p.parent().and_then(|d| self.fds.get(d)), p.file_name()) {
            use rustix::fs::{Mode, OFlags};
            let fd =
                rustix::fs::openat(dir, name, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
            return Ok(std::fs::File::from(fd));
        }
        std::fs::File::open(p)
    }
}

/// Reads the rest of `file` onto `buf`: read until end of file, with no size probe first (std's
/// `read_to_end` asks for the size and position: two more syscalls per file).
fn read_to_end(file: &mut std::fs::File, buf: &mut Vec<u8>) -> std::io::Result<()> {
    #[cfg(unix)]
    loop {
        if buf.capacity() - buf.len() < 16 << 10 {
            buf.reserve((64 << 10).max(buf.len()));
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
fn read_all(paths: Vec<(String, PathBuf)>) -> Result<Vec<InputFile>> {
    evalboard_engine::parallel::map_on_threads(&paths, threads(), |(rel, p)| {
        let bytes = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
        Ok(InputFile::new(rel.clone(), bytes))
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
        let paths = list_files(&root).unwrap();
        assert_eq!(paths.len(), sizes.len());
        let folders = Folders::open(&paths);
        let mut buf = Vec::new();
        for (_, p) in &paths {
            buf.clear();
            read_to_end(&mut folders.open_file(p).unwrap(), &mut buf).unwrap();
            assert_eq!(buf, std::fs::read(p).unwrap(), "{}", p.display());
        }
        // A file that is gone is an error, not an empty file.
        let gone = root.join("a/gone.json");
        assert!(folders.open_file(&gone).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
