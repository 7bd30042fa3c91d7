//! The lake's manifest, `OUT/evalboard-lake.json`: schema and version, the tables, every file
//! (table, shard, rows, bytes, SHA-256, codec) and every shard's runs with their original input
//! files. Sorted (files by path, shards by id) and without a clock, so the same export gives
//! the same bytes; shards written apart merge their entries ([`Manifest::merge_shard`]).

#[cfg(not(target_arch = "wasm32"))]
use std::path::{Component, Path};

use evalboard_engine::lake::{Table, TableSchema, SCHEMA_NAME, SCHEMA_VERSION, TABLES};
use serde::{Deserialize, Serialize};

use crate::{decode, sha256_hex, LakeError};

/// The manifest's file name in the lake's folder.
pub const MANIFEST_FILE: &str = "evalboard-lake.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `evalboard-lake`.
    pub schema: String,
    pub schema_version: u32,
    /// The evalboard version that last wrote the manifest.
    pub evalboard_version: String,
    /// The tables, in schema order.
    pub tables: Vec<String>,
    /// Every file, by path.
    pub files: Vec<FileEntry>,
    /// Every shard, by id.
    pub shards: Vec<ShardEntry>,
}

/// One Parquet file of the lake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    pub table: String,
    /// Relative to the lake's folder, with `/`.
    pub path: String,
    /// The shard that wrote it.
    pub shard: String,
    pub rows: u64,
    pub bytes: u64,
    pub sha256: String,
    pub codec: String,
}

/// One shard: its runs and the files they were read from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardEntry {
    pub shard: String,
    pub runs: Vec<ShardRun>,
}

/// One run a shard exported: its id, its name, the path it was given as, and its original
/// input files (relative to that path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRun {
    pub run_id: String,
    pub name: String,
    pub input: String,
    pub input_files: Vec<String>,
}

impl Manifest {
    /// An empty manifest of this schema version.
    pub fn new(evalboard_version: &str) -> Manifest {
        Manifest {
            schema: SCHEMA_NAME.into(),
            schema_version: SCHEMA_VERSION,
            evalboard_version: evalboard_version.into(),
            tables: TABLES.iter().map(|t| t.name.to_string()).collect(),
            files: Vec::new(),
            shards: Vec::new(),
        }
    }

    /// Parses a manifest, refusing another schema or version. `file` names it in errors.
    pub fn parse(bytes: &[u8], file: &str) -> Result<Manifest, LakeError> {
        let v: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| LakeError::file(file, format!("not a lake manifest: {e}")))?;
        let schema = v.get("schema").and_then(|s| s.as_str()).unwrap_or("");
        let version = v.get("schema_version").and_then(|s| s.as_u64());
        if schema != SCHEMA_NAME {
            return Err(LakeError::file(
                file,
                format!("schema `{schema}` is not `{SCHEMA_NAME}`"),
            ));
        }
        if version != Some(u64::from(SCHEMA_VERSION)) {
            return Err(LakeError::file(
                file,
                format!(
                    "{SCHEMA_NAME} version {} is not one this evalboard reads (version {SCHEMA_VERSION})",
                    version.map_or("(none)".into(), |v| v.to_string())
                ),
            ));
        }
        serde_json::from_value(v)
            .map_err(|e| LakeError::file(file, format!("not a lake manifest: {e}")))
    }

    /// Replaces every entry of `shard.shard` (its files and its runs) with these: a retried
    /// shard overwrites its own entries, and other shards' entries stay.
    pub fn merge_shard(&mut self, shard: ShardEntry, files: Vec<FileEntry>, version: &str) {
        self.files.retain(|f| f.shard != shard.shard);
        self.shards.retain(|s| s.shard != shard.shard);
        self.files.extend(files);
        self.shards.push(shard);
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.shards.sort_by(|a, b| a.shard.cmp(&b.shard));
        self.evalboard_version = version.into();
    }

    /// The lake's runs in the manifest's order (shards by id, each shard's runs as it exported
    /// them), each run once (a run two shards exported keeps its first place): the order in
    /// which `score`, `compare` and `report` give a lake's runs.
    pub fn runs(&self) -> Vec<&ShardRun> {
        let mut seen = std::collections::HashSet::new();
        self.shards
            .iter()
            .flat_map(|s| &s.runs)
            .filter(|r| seen.insert(r.run_id.as_str()))
            .collect()
    }

    /// The manifest as the lake holds it: pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
    }
}

/// A lake read back: its manifest and each table of the schema, or why it could not be read.
#[derive(Debug)]
pub struct OpenLake {
    pub manifest: Manifest,
    pub tables: Vec<(&'static TableSchema, Result<Table, LakeError>)>,
}

impl OpenLake {
    /// The table named `name`, when it opened.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables
            .iter()
            .find(|(s, _)| s.name == name)
            .and_then(|(_, t)| t.as_ref().ok())
    }
}

/// A manifest path that stays inside the lake (no `..`, no root).
#[cfg(not(target_arch = "wasm32"))]
fn inside(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Opens the lake in `dir`: its manifest (an error naming it when it is missing, not JSON or of
/// another schema version), then every table's files, each checked against its size and
/// SHA-256 and decoded. A table with a bad file is an error naming the file; the other tables
/// still open.
#[cfg(not(target_arch = "wasm32"))]
pub fn open(dir: &Path) -> Result<OpenLake, LakeError> {
    let mpath = dir.join(MANIFEST_FILE);
    let mname = mpath.display().to_string();
    let bytes = std::fs::read(&mpath).map_err(|e| LakeError::file(&mname, e))?;
    let manifest = Manifest::parse(&bytes, &mname)?;
    let tables = TABLES
        .iter()
        .map(|schema| {
            let mut all = Table::new(schema);
            for f in manifest.files.iter().filter(|f| f.table == schema.name) {
                match read_file(dir, f, schema) {
                    Ok(t) => all.rows.extend(t.rows),
                    Err(e) => return (*schema, Err(e)),
                }
            }
            (*schema, Ok(all))
        })
        .collect();
    Ok(OpenLake { manifest, tables })
}

#[cfg(not(target_arch = "wasm32"))]
fn read_file(dir: &Path, f: &FileEntry, schema: &'static TableSchema) -> Result<Table, LakeError> {
    let path = dir.join(&f.path);
    let name = path.display().to_string();
    if !inside(&f.path) {
        return Err(LakeError::file(
            &name,
            "the manifest names a path outside the lake",
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| LakeError::file(&name, e))?;
    decode_listed(f, bytes, schema, &name)
}

/// The table of the whole file `f` the manifest lists, read as `bytes`: checked against its
/// size and SHA-256 ([`check_bytes`]), decoded, its rows counted against the manifest's. `name`
/// names the file in errors.
pub fn decode_listed(
    f: &FileEntry,
    bytes: Vec<u8>,
    schema: &'static TableSchema,
    name: &str,
) -> Result<Table, LakeError> {
    check_bytes(f, &bytes, name)?;
    let t = decode(bytes, schema, name)?;
    if t.rows.len() as u64 != f.rows {
        return Err(LakeError::file(
            name,
            format!("{} rows, but the manifest says {}", t.rows.len(), f.rows),
        ));
    }
    Ok(t)
}

/// Whether `bytes` are the file `f` the manifest lists: its size, then its SHA-256 (an error
/// naming `name` says which differs). The dashboard's lake worker checks the files it reads
/// whole by this.
pub fn check_bytes(f: &FileEntry, bytes: &[u8], name: &str) -> Result<(), LakeError> {
    check_size(f, bytes.len() as u64, name)?;
    let sha = sha256_hex(bytes);
    if sha != f.sha256 {
        return Err(LakeError::file(
            name,
            format!("SHA-256 {sha} does not match the manifest's {}", f.sha256),
        ));
    }
    Ok(())
}

/// Whether a file of `len` bytes may be the file `f` the manifest lists (a file read in slices
/// is checked by its size only: its hash needs every byte).
pub fn check_size(f: &FileEntry, len: u64, name: &str) -> Result<(), LakeError> {
    if len != f.bytes {
        return Err(LakeError::file(
            name,
            format!(
                "{len} bytes, but the manifest says {} (truncated or replaced)",
                f.bytes
            ),
        ));
    }
    Ok(())
}
