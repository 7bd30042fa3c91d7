//! Reading one run's rows of a big lake file without reading the file: its footer first (the
//! last 8 bytes say how long the metadata is), then the row groups whose `run_id` statistics
//! may hold the run, then those byte ranges only. The dashboard's lake worker fetches each range
//! with `File.slice`; natively a caller may read them with `seek`. Pure: the caller brings the
//! bytes.

use std::ops::Range;

use bytes::{Buf, Bytes};
use evalboard_engine::lake::{Table, TableSchema};
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use parquet::file::reader::{ChunkReader, Length, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;

use crate::LakeError;

/// A Parquet file's last 8 bytes: the metadata's length, then `PAR1`.
pub const TAIL_LEN: u64 = 8;

/// The byte range of the metadata a file of `file_len` bytes ends with, from its last
/// [`TAIL_LEN`] bytes; an error naming `file` when it is not a Parquet file's end.
pub fn metadata_range(tail: &[u8], file_len: u64, file: &str) -> Result<Range<u64>, LakeError> {
    let bad = |m: &str| LakeError::file(file, m);
    let [a, b, c, d, p, a2, r, one] = tail else {
        return Err(bad("too short to be a Parquet file (truncated?)"));
    };
    if [*p, *a2, *r, *one] != *b"PAR1" {
        return Err(bad(
            "does not end as a Parquet file does (truncated or not Parquet)",
        ));
    }
    let len = u64::from(u32::from_le_bytes([*a, *b, *c, *d]));
    let end = file_len
        .checked_sub(TAIL_LEN)
        .ok_or_else(|| bad("too short to be a Parquet file"))?;
    let start = end
        .checked_sub(len)
        .ok_or_else(|| bad("its footer is longer than the file (truncated?)"))?;
    Ok(start..end)
}

/// What to read of a file for some runs: the row groups and their byte ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The row groups whose `run_id` range holds one of the runs, in file order.
    pub groups: Vec<usize>,
    /// Their bytes, one range per row group (merged when adjacent).
    pub ranges: Vec<Range<u64>>,
}

fn metadata(bytes: &[u8], file: &str) -> Result<ParquetMetaData, LakeError> {
    ParquetMetaDataReader::decode_metadata(bytes).map_err(|e| LakeError::file(file, e))
}

/// The row groups of a file (its metadata bytes, [`metadata_range`]) that may hold a row of one
/// of `run_ids` — by the min and max of column 0 (`run_id`, the column every table is sorted
/// by) — and their byte ranges. A row group without statistics is read.
pub fn plan(meta: &[u8], run_ids: &[&str], file_len: u64, file: &str) -> Result<Plan, LakeError> {
    let md = metadata(meta, file)?;
    let mut groups = Vec::new();
    let mut ranges: Vec<Range<u64>> = Vec::new();
    for (i, rg) in md.row_groups().iter().enumerate() {
        let Some(first) = rg.columns().first() else {
            continue;
        };
        let holds = match first.statistics() {
            Some(s) => match (s.min_bytes_opt(), s.max_bytes_opt()) {
                (Some(lo), Some(hi)) => run_ids
                    .iter()
                    .any(|id| lo <= id.as_bytes() && id.as_bytes() <= hi),
                _ => true,
            },
            None => true,
        };
        if !holds {
            continue;
        }
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        for c in rg.columns() {
            let start = c.dictionary_page_offset().unwrap_or(c.data_page_offset());
            let (Ok(start), Ok(len)) = (u64::try_from(start), u64::try_from(c.compressed_size()))
            else {
                return Err(LakeError::file(file, "a column chunk at a negative offset"));
            };
            let end = start.saturating_add(len);
            if end > file_len {
                return Err(LakeError::file(
                    file,
                    format!(
                        "row group {i} ends at byte {end}, past the file's {file_len} (truncated?)"
                    ),
                ));
            }
            lo = lo.min(start);
            hi = hi.max(end);
        }
        groups.push(i);
        if lo < hi {
            match ranges.last_mut() {
                Some(last) if last.end == lo => last.end = hi,
                _ => ranges.push(lo..hi),
            }
        }
    }
    Ok(Plan { groups, ranges })
}

/// Some byte ranges of a file of `len` bytes: what a reader of a few row groups needs.
struct Sparse {
    len: u64,
    parts: Vec<(u64, Bytes)>,
}

impl Sparse {
    fn part(&self, start: u64, len: usize) -> parquet::errors::Result<Bytes> {
        for (at, b) in &self.parts {
            let Some(off) = start.checked_sub(*at) else {
                continue;
            };
            let off = usize::try_from(off).unwrap_or(usize::MAX);
            if off.checked_add(len).is_some_and(|end| end <= b.len()) {
                return Ok(b.slice(off..off + len));
            }
        }
        Err(parquet::errors::ParquetError::General(format!(
            "bytes {start}..+{len} were not read"
        )))
    }
}

impl Length for Sparse {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for Sparse {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        // What is left of the part that holds `start`.
        for (at, b) in &self.parts {
            if let Some(off) = start.checked_sub(*at) {
                let off = usize::try_from(off).unwrap_or(usize::MAX);
                if off < b.len() {
                    return Ok(b.slice(off..).reader());
                }
            }
        }
        Err(parquet::errors::ParquetError::General(format!(
            "byte {start} was not read"
        )))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.part(start, length)
    }
}

/// The rows of the planned row groups (`groups`) of a file of `file_len` bytes, from the byte
/// ranges read (`parts`: each range's start and bytes, the footer's with them — from
/// [`metadata_range`]'s start less nothing to the end). Rows of other runs in those row groups
/// are kept: the caller filters by `run_id`. `file` names the file in errors.
pub fn decode_groups(
    parts: Vec<(u64, Vec<u8>)>,
    file_len: u64,
    groups: &[usize],
    schema: &'static TableSchema,
    file: &str,
) -> Result<Table, LakeError> {
    let sparse = Sparse {
        len: file_len,
        parts: parts
            .into_iter()
            .map(|(at, b)| (at, Bytes::from(b)))
            .collect(),
    };
    let wanted: Vec<usize> = groups.to_vec();
    let options = ReadOptionsBuilder::new()
        .with_predicate(Box::new(move |_, i| wanted.contains(&i)))
        .build();
    let reader = SerializedFileReader::new_with_options(sparse, options)
        .map_err(|e| LakeError::file(file, e))?;
    crate::parquet_io::decode_reader(&reader, schema, file)
}
