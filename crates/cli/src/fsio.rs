//! The only place the CLI touches the file system for input: a run folder (or a single file)
//! becomes the engine's (relative path, bytes) pairs.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use evalboard_engine::{InputFile, RunInput};

/// Reads `path` recursively. A single file becomes a one-file run named after the file.
pub fn read_run(path: &Path) -> Result<RunInput> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    if meta.is_file() {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        return Ok(RunInput::new(
            name.clone(),
            vec![InputFile::new(name, bytes)],
        ));
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
    let mut files = read_all(paths)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(RunInput::new(name, files))
}

/// How many threads the CLI reads and parses with: the machine's cores.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
