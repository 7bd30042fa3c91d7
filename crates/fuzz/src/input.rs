//! What a target is fed: one file's bytes, or a whole run folder. A folder is saved (the
//! `current` file, `crash-*`, corpus entries) in a small length-prefixed container so that one
//! file holds it and `--replay` gets back exactly the folder that failed.

use crate::rng::Fnv;

/// A run folder: (relative path with `/`, bytes), in the order given.
pub type Folder = Vec<(String, Vec<u8>)>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Bytes(Vec<u8>),
    Folder(Folder),
}

/// The first line of a saved folder.
const MAGIC: &[u8] = b"evalboard-fuzz folder v1\n";

impl Input {
    /// The bytes saved for this input: a file's own bytes, or a folder's container.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Input::Bytes(b) => b.clone(),
            Input::Folder(files) => encode_folder(files),
        }
    }

    /// A saved input read back: for a folder target the container (or, when `bytes` is not
    /// one, a one-file folder named `name`), else the bytes.
    pub fn decode(folder: bool, name: &str, bytes: &[u8]) -> Input {
        if folder {
            Input::Folder(
                decode_folder(bytes).unwrap_or_else(|| vec![(name.to_string(), bytes.to_vec())]),
            )
        } else {
            Input::Bytes(bytes.to_vec())
        }
    }

    /// Total size of the content, for the size cap.
    pub fn len(&self) -> usize {
        match self {
            Input::Bytes(b) => b.len(),
            Input::Folder(files) => files.iter().map(|(p, b)| p.len() + b.len()).sum(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A stable hash of the content (names saved findings and corpus entries).
    pub fn hash(&self) -> u64 {
        let mut h = Fnv::default();
        match self {
            Input::Bytes(b) => h.write(b),
            Input::Folder(files) => {
                for (p, b) in files {
                    h.write_u64(p.len() as u64);
                    h.write(p.as_bytes());
                    h.write_u64(b.len() as u64);
                    h.write(b);
                }
            }
        }
        h.0
    }
}

/// `MAGIC`, then per file `<path length> <byte length>\n<path><bytes>`.
pub fn encode_folder(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let size: usize = files.iter().map(|(p, b)| p.len() + b.len() + 24).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + size);
    out.extend_from_slice(MAGIC);
    for (p, b) in files {
        out.extend_from_slice(format!("{} {}\n", p.len(), b.len()).as_bytes());
        out.extend_from_slice(p.as_bytes());
        out.extend_from_slice(b);
    }
    out
}

/// Reads a saved folder back; `None` when `bytes` is not a container (or a damaged one: what
/// was read up to the damage is returned, since a hand-trimmed crash file should still replay).
pub fn decode_folder(bytes: &[u8]) -> Option<Folder> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut files = Vec::new();
    while !rest.is_empty() {
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            break;
        };
        let header = std::str::from_utf8(rest.get(..nl)?).ok()?;
        let mut nums = header.split(' ').map(str::parse::<usize>);
        let (Some(Ok(plen)), Some(Ok(blen))) = (nums.next(), nums.next()) else {
            break;
        };
        let body = rest.get(nl + 1..)?;
        let (Some(path), Some(data)) =
            (body.get(..plen), body.get(plen..plen.saturating_add(blen)))
        else {
            break;
        };
        files.push((String::from_utf8_lossy(path).into_owned(), data.to_vec()));
        rest = body.get(plen + blen..).unwrap_or_default();
    }
    Some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_round_trip_through_the_container() {
        let files: Folder = vec![
            ("traces/a.json".into(), b"{\"x\":\n1}".to_vec()),
            ("we ird/\n name".into(), vec![0xFF, 0, b'\n']),
            ("empty".into(), vec![]),
        ];
        let enc = encode_folder(&files);
        assert_eq!(decode_folder(&enc), Some(files.clone()));
        // Cut in the middle of the second file: the first survives.
        let first = encode_folder(&files[..1]);
        let cut = &enc[..first.len() + 6];
        assert_eq!(decode_folder(cut).map(|f| f.len()), Some(1));
        assert_eq!(decode_folder(b"{}"), None);
    }

    #[test]
    fn hash_tells_folders_apart_by_path_and_content() {
        let a = Input::Folder(vec![("a".into(), b"bc".to_vec())]);
        let b = Input::Folder(vec![("ab".into(), b"c".to_vec())]);
        assert_ne!(a.hash(), b.hash());
        assert_eq!(a.hash(), a.clone().hash());
    }
}
