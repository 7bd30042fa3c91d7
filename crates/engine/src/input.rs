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

/// How many leading folders the folders of two relative paths share (`a/b/x.json` and
/// `a/c/y.json` share 1; files of one folder share all of it).
pub fn shared_folders(a: &str, b: &str) -> usize {
    let dir = |p: &str| p.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let (da, db) = (dir(a), dir(b));
    da.split('/')
        .zip(db.split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// The group (by index) whose paths share the most folders with `path` ([`shared_folders`]),
/// the first on a tie; 0 for no group.
pub fn nearest_group<'a>(
    path: &str,
    groups: impl IntoIterator<Item = impl IntoIterator<Item = &'a str>>,
) -> usize {
    let mut best = (0usize, 0usize);
    for (i, g) in groups.into_iter().enumerate() {
        let score = g
            .into_iter()
            .map(|q| shared_folders(path, q))
            .max()
            .unwrap_or(0);
        if score > best.1 {
            best = (i, score);
        }
    }
    best.0
}

/// The file evalboard writes beside the outputs it writes (`evalboard score --out`): a folder
/// holding it, inside a run folder, is evalboard's own output and never read as the run's input
/// (the CLI's folder listing and the dashboard's drop both skip it, saying so).
pub const OUTPUTS_MARKER: &str = ".evalboard-outputs";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_go_to_the_group_of_their_folder() {
        assert_eq!(shared_folders("a/b/x.json", "a/c/y.json"), 1);
        assert_eq!(shared_folders("a/b/x.json", "a/b/y.json"), 2);
        assert_eq!(shared_folders("x.json", "y.json"), 0);
        let groups = [vec!["one/a.eval"], vec!["two/r.json", "two/s.jsonl"]];
        assert_eq!(
            nearest_group("two/notes.txt", groups.iter().map(|g| g.iter().copied())),
            1
        );
        assert_eq!(
            nearest_group("three/n.txt", groups.iter().map(|g| g.iter().copied())),
            0
        );
    }
}
