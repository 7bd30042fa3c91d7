//! The engine's only input: a run folder as (relative path, bytes) pairs.

/// One file of a run folder. `path` is relative to the folder and uses `/` separators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl InputFile {
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        let path: String = path.into();
        InputFile {
            path: path.replace('\\', "/"),
            bytes: bytes.into(),
        }
    }
    /// The file name without folders.
    pub fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

/// A run folder: its display name and its files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunInput {
    pub name: String,
    pub files: Vec<InputFile>,
}

impl RunInput {
    pub fn new(name: impl Into<String>, files: Vec<InputFile>) -> Self {
        RunInput {
            name: name.into(),
            files,
        }
    }
}

/// The file evalboard writes beside the outputs it writes (`evalboard score --out`): a folder
/// holding it, inside a run folder, is evalboard's own output and never read as the run's input
/// (the CLI's folder listing and the dashboard's drop both skip it, saying so).
pub const OUTPUTS_MARKER: &str = ".evalboard-outputs";
