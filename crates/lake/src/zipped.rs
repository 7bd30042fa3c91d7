//! A lake written in memory and zipped (the dashboard's lake exports: the lake worker holds no
//! folder to write into). [`lake_files`] gives every table's file and the manifest, as
//! `evalboard export --lake` lays them out (`<table>/part-<shard>.parquet`); [`zip_stored`]
//! packs files into one zip of **stored** members, which a drop reads a member at a time
//! (`File.slice`) and `unzip` opens.
//!
//! The zip is written here, ~60 lines, rather than with the `zip` crate: no zip writer is in
//! Cargo.lock, and stored members need only the local headers, the central directory and a
//! CRC-32 (the engine's, [`evalboard_engine::evallog::archive::crc32`]). No ZIP64: a member
//! or the whole zip past 4 GiB is an error.

use evalboard_engine::lake::{Table, TABLES};

use crate::MANIFEST_FILE;
use crate::{encode, sha256_hex, Codec, FileEntry, LakeError, Manifest, ShardEntry, ShardRun};

/// The lake of `tables` (in any order; a table of the schema not given is written empty) and
/// its `runs`, as `(path, bytes)`: each table's file under shard `shard`, then the manifest.
pub fn lake_files(
    tables: &[Table],
    runs: Vec<ShardRun>,
    (shard, codec, version): (&str, Codec, &str),
) -> Result<Vec<(String, Vec<u8>)>, LakeError> {
    let created_by = format!("evalboard {version}");
    let mut out = Vec::new();
    let mut entries = Vec::new();
    for schema in TABLES {
        let path = format!("{}/part-{shard}.parquet", schema.name);
        let empty = Table::new(schema);
        let table = tables
            .iter()
            .find(|t| t.schema.name == schema.name)
            .unwrap_or(&empty);
        let bytes = encode(table, codec, &created_by, &path)?;
        entries.push(FileEntry {
            table: schema.name.to_string(),
            path: path.clone(),
            shard: shard.to_string(),
            rows: table.rows.len() as u64,
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
            codec: codec.name().to_string(),
        });
        out.push((path, bytes));
    }
    let mut manifest = Manifest::new(version);
    manifest.merge_shard(
        ShardEntry {
            shard: shard.to_string(),
            runs,
        },
        entries,
        version,
    );
    out.push((MANIFEST_FILE.to_string(), manifest.to_bytes()));
    Ok(out)
}

fn u16_of(n: usize, what: &str) -> Result<u16, LakeError> {
    u16::try_from(n)
        .map_err(|_| LakeError::file(what, "too many entries or too long a name for a zip"))
}

fn u32_of(n: usize, what: &str) -> Result<u32, LakeError> {
    u32::try_from(n)
        .map_err(|_| LakeError::file(what, "past 4 GiB: too big for a zip without ZIP64"))
}

/// `files` as one zip of stored members, each under `folder/` (empty: at the top).
pub fn zip_stored(folder: &str, files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, LakeError> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (path, bytes) in files {
        let name = match folder {
            "" => path.clone(),
            f => format!("{f}/{path}"),
        };
        let crc = evalboard_engine::evallog::archive::crc32(bytes);
        let size = u32_of(bytes.len(), &name)?;
        let at = u32_of(out.len(), &name)?;
        let name_len = u16_of(name.len(), &name)?;
        // Version 2.0, flags 0 (names are ASCII: the lake's own paths), method 0 (stored),
        // time and date 0 (no clock: the same lake, the same bytes).
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
            v.extend_from_slice(&0u32.to_le_bytes());
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&size.to_le_bytes());
            v.extend_from_slice(&size.to_le_bytes());
            v.extend_from_slice(&name_len.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(bytes);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        common(&mut central);
        // Comment length, disk, internal and external attributes, the local header's offset.
        central.extend_from_slice(&[0u8; 10]);
        central.extend_from_slice(&at.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let n = u16_of(files.len(), folder)?;
    let dir_at = u32_of(out.len(), folder)?;
    let dir_len = u32_of(central.len(), folder)?;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&dir_len.to_le_bytes());
    out.extend_from_slice(&dir_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    u32_of(out.len(), folder)?;
    Ok(out)
}
