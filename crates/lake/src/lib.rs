//! evalboard's results lake on disk ([docs/lake.md](../../../docs/lake.md)): the engine's lake
//! tables ([`evalboard_engine::lake`]) encoded as Parquet ([`encode`]) and decoded back
//! ([`decode`]), and the manifest `evalboard-lake.json` ([`Manifest`]) that lists every file
//! with its rows, bytes, SHA-256 and codec. [`open`] reads a lake back, table by table: a
//! corrupt file, a hash mismatch or an unknown schema version is an error naming the file, and
//! the other tables still open.
//!
//! Parquet through arrow-rs's `parquet` crate with its low-level column writer and record
//! reader, without the `arrow` feature: the tables are a handful of plain columns, and leaving
//! out the Arrow crates halves the crate's clean compile (21 s against 39 s on 2 cores).

pub mod details;
pub mod manifest;
mod parquet_io;
pub mod slices;
mod writer;
pub mod zipped;

#[cfg(not(target_arch = "wasm32"))]
pub use manifest::open;
pub use manifest::{
    check_bytes, check_size, decode_listed, FileEntry, Manifest, OpenLake, ShardEntry, ShardRun,
    MANIFEST_FILE,
};
pub use parquet_io::{decode, encode, read_rows, Codec, TableWriter};
pub use writer::{LakeWriter, WrittenTable};

/// Why a lake file could not be written or read: each names the file.
#[derive(Debug, thiserror::Error)]
pub enum LakeError {
    #[error("{file}: {message}")]
    File { file: String, message: String },
}

impl LakeError {
    pub fn file(file: &str, message: impl std::fmt::Display) -> LakeError {
        LakeError::File {
            file: file.to_string(),
            message: message.to_string(),
        }
    }
}

/// The SHA-256 of `bytes` in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    evalboard_engine::run_table::hex(&evalboard_engine::run_table::sha256(bytes))
}

#[cfg(test)]
mod tests;
