//! Round trips of every column type and codec, same bytes for the same table, and the errors a
//! damaged lake gets (each naming its file, the other tables still open).

use std::path::PathBuf;

use evalboard_engine::lake::schema::{AGGREGATES, RUNS, SAMPLES};
use evalboard_engine::lake::{Cell, Table, TABLES};

use crate::*;

/// A table of every column type (`runs` has strings, counts, floats, timestamps and nulls).
fn runs_table(n: usize) -> Table {
    let mut t = Table::new(&RUNS);
    for i in 0..n {
        let row = RUNS
            .columns
            .iter()
            .map(|c| match (c.ty, c.nullable && i % 2 == 1) {
                (_, true) => Cell::Null,
                (evalboard_engine::lake::ColType::Int64, _) => Cell::Int(i as i64 - 3),
                (evalboard_engine::lake::ColType::Float64, _) => Cell::Float(i as f64 / 3.0),
                (evalboard_engine::lake::ColType::Bool, _) => Cell::Bool(i % 3 == 0),
                (evalboard_engine::lake::ColType::TimestampMicros, _) => {
                    Cell::Micros(1_700_000_000_000_000 + i as i64)
                }
                _ => Cell::Str(format!("{}-{i:04} ✓", c.name)),
            })
            .collect();
        t.rows.push(row);
    }
    t
}

#[test]
fn every_codec_round_trips_and_the_same_table_gives_the_same_bytes() {
    let t = runs_table(7);
    for codec in [Codec::Zstd, Codec::Snappy, Codec::Uncompressed] {
        let bytes = encode(&t, codec, "evalboard test", "runs.parquet").unwrap();
        assert_eq!(
            bytes,
            encode(&t, codec, "evalboard test", "runs.parquet").unwrap()
        );
        let back = decode(bytes, &RUNS, "runs.parquet").unwrap();
        assert_eq!(back, t, "{codec:?}");
    }
    // An empty table is a file too.
    let empty = Table::new(&SAMPLES);
    let bytes = encode(&empty, Codec::Zstd, "t", "s.parquet").unwrap();
    assert_eq!(decode(bytes, &SAMPLES, "s.parquet").unwrap(), empty);
}

/// Rows pushed one by one through a [`LakeWriter`] (several row groups, encoded on their
/// threads) give the bytes [`encode`] gives the same table, and decode back to it; a row that
/// does not fit is an error naming the file.
#[test]
fn streamed_rows_give_encode_bytes_across_row_groups() {
    let t = runs_table(70_000);
    let whole = encode(&t, Codec::Zstd, "evalboard test", "runs.parquet").unwrap();
    let mut w = LakeWriter::new(Codec::Zstd, "evalboard test", |s| {
        format!("{}.parquet", s.name)
    })
    .unwrap();
    for row in &t.rows {
        let cells: Vec<_> = row.iter().map(Cell::as_ref).collect();
        evalboard_engine::lake::RowSink::row(&mut w, &RUNS, &cells);
    }
    let files = w.finish().unwrap();
    let runs = files.iter().find(|f| f.schema.name == "runs").unwrap();
    assert_eq!(runs.rows, 70_000);
    assert!(runs.bytes == whole, "streamed bytes differ from encode's");
    assert_eq!(
        decode(runs.bytes.clone(), &RUNS, "runs.parquet").unwrap(),
        t
    );
    let other = files.iter().find(|f| f.schema.name == "samples").unwrap();
    assert_eq!(other.rows, 0);

    let mut w = LakeWriter::new(Codec::Zstd, "t", |s| format!("{}.parquet", s.name)).unwrap();
    evalboard_engine::lake::RowSink::row(&mut w, &RUNS, &[]);
    let e = w.finish().err().unwrap().to_string();
    assert!(e.starts_with("runs.parquet: runs row 0: 0 cells"), "{e}");
}

#[test]
fn bad_files_are_errors_naming_them() {
    let bytes = encode(&runs_table(50), Codec::Zstd, "t", "x").unwrap();
    for cut in [0, 3, bytes.len() / 2, bytes.len() - 1] {
        let e = decode(bytes[..cut].to_vec(), &RUNS, "lake/runs/part.parquet").unwrap_err();
        assert!(e.to_string().starts_with("lake/runs/part.parquet: "), "{e}");
    }
    let mut flipped = bytes.clone();
    for i in (10..flipped.len() - 10).step_by(97) {
        flipped[i] ^= 0x5a;
        // Never a panic; an error or (a flip in padding) a table.
        let _ = decode(flipped.clone(), &RUNS, "f");
    }
    let e = decode(bytes, &AGGREGATES, "a.parquet").unwrap_err();
    assert!(
        e.to_string()
            .contains("not those of the `aggregates` table"),
        "{e}"
    );
    let bad = Table {
        schema: &SAMPLES,
        rows: vec![vec![Cell::Null]],
    };
    assert!(encode(&bad, Codec::Zstd, "t", "bad.parquet").is_err());
}

/// A file written before a nullable column was added at the end of its table reads with that
/// column null; a file missing a column that is not nullable, or one in the middle, is an error.
#[test]
fn a_file_of_an_older_v1_table_reads_its_missing_nullable_columns_as_null() {
    use evalboard_engine::lake::TableSchema;
    let n = RUNS.columns.len();
    assert_eq!(
        RUNS.columns.last().map(|c| (c.name, c.nullable)),
        Some(("judge", true))
    );
    // `runs` as v1 first wrote it: every column but the last.
    let older: &'static TableSchema = Box::leak(Box::new(TableSchema {
        columns: &RUNS.columns[..n - 1],
        ..RUNS
    }));
    let full = runs_table(4);
    let t = Table {
        schema: older,
        rows: full.rows.iter().map(|r| r[..n - 1].to_vec()).collect(),
    };
    let bytes = encode(&t, Codec::Zstd, "t", "old.parquet").unwrap();
    let back = decode(bytes, &RUNS, "old.parquet").unwrap();
    assert_eq!(back.rows.len(), 4);
    for (b, r) in back.rows.iter().zip(&t.rows) {
        assert_eq!(&b[..n - 1], &r[..]);
        assert_eq!(b[n - 1], Cell::Null);
    }
    // `samples` without its last column (`metadata_json`, not nullable) is refused.
    let cut: &'static TableSchema = Box::leak(Box::new(TableSchema {
        columns: &SAMPLES.columns[..SAMPLES.columns.len() - 1],
        ..SAMPLES
    }));
    let bytes = encode(&Table::new(cut), Codec::Zstd, "t", "s.parquet").unwrap();
    let e = decode(bytes, &SAMPLES, "s.parquet")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not those of the `samples` table"), "{e}");
}

fn temp_lake(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("evalboard-lake-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `tables` as one shard's files and its manifest into `dir`.
fn write_lake(dir: &std::path::Path, tables: &[Table]) -> Manifest {
    let mut files = Vec::new();
    for t in tables {
        let path = format!("{}/part-s1.parquet", t.schema.name);
        let bytes = encode(t, Codec::Zstd, "t", &path).unwrap();
        std::fs::create_dir_all(dir.join(t.schema.name)).unwrap();
        std::fs::write(dir.join(&path), &bytes).unwrap();
        files.push(FileEntry {
            table: t.schema.name.into(),
            path,
            shard: "s1".into(),
            rows: t.rows.len() as u64,
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
            codec: "zstd".into(),
        });
    }
    let mut m = Manifest::new("test");
    m.merge_shard(
        ShardEntry {
            shard: "s1".into(),
            runs: Vec::new(),
        },
        files,
        "test",
    );
    std::fs::write(dir.join(MANIFEST_FILE), m.to_bytes()).unwrap();
    m
}

#[test]
fn a_lake_opens_table_by_table() {
    let dir = temp_lake("open");
    let tables: Vec<Table> = TABLES
        .iter()
        .map(|s| {
            if s.name == "runs" {
                runs_table(4)
            } else {
                Table::new(s)
            }
        })
        .collect();
    let m = write_lake(&dir, &tables);
    let lake = open(&dir).unwrap();
    assert_eq!(lake.manifest, m);
    assert_eq!(lake.table("runs").unwrap(), &tables[0]);

    // A file replaced: its table is an error naming it, the others open.
    std::fs::write(dir.join("runs/part-s1.parquet"), b"PAR1 not really").unwrap();
    let lake = open(&dir).unwrap();
    let err = lake.tables[0].1.as_ref().unwrap_err().to_string();
    assert!(
        err.contains("runs/part-s1.parquet") && err.contains("truncated"),
        "{err}"
    );
    assert!(lake.table("samples").is_some());

    // Same size, other bytes: the hash says so.
    let mut good = encode(&tables[0], Codec::Zstd, "t", "x").unwrap();
    let n = good.len();
    good[n / 2] ^= 1;
    std::fs::write(dir.join("runs/part-s1.parquet"), &good).unwrap();
    let err = open(&dir).unwrap().tables[0]
        .1
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(err.contains("SHA-256"), "{err}");

    // An unknown schema version: an error naming the manifest.
    let text = String::from_utf8(m.to_bytes())
        .unwrap()
        .replace("\"schema_version\": 1", "\"schema_version\": 9");
    std::fs::write(dir.join(MANIFEST_FILE), text).unwrap();
    let err = open(&dir).unwrap_err().to_string();
    assert!(
        err.contains(MANIFEST_FILE) && err.contains("version 9"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_retried_shard_replaces_its_own_entries() {
    let entry = |shard: &str, path: &str| FileEntry {
        table: "runs".into(),
        path: path.into(),
        shard: shard.into(),
        rows: 1,
        bytes: 1,
        sha256: String::new(),
        codec: "zstd".into(),
    };
    let shard = |s: &str| ShardEntry {
        shard: s.into(),
        runs: Vec::new(),
    };
    let mut m = Manifest::new("v");
    m.merge_shard(shard("b"), vec![entry("b", "runs/part-b.parquet")], "v");
    m.merge_shard(shard("a"), vec![entry("a", "runs/part-a.parquet")], "v");
    let once = m.clone();
    m.merge_shard(shard("b"), vec![entry("b", "runs/part-b.parquet")], "v");
    assert_eq!(m, once);
    assert_eq!(m.files.len(), 2);
    assert_eq!(m.files[0].path, "runs/part-a.parquet");
}

#[test]
fn a_run_is_read_from_its_row_groups_and_the_footer_only() {
    let t = runs_table(9);
    let bytes = encode(&t, Codec::Zstd, "t", "runs.parquet").unwrap();
    let len = bytes.len() as u64;
    let tail = &bytes[bytes.len() - 8..];
    let meta = slices::metadata_range(tail, len, "runs.parquet").unwrap();
    let m = &bytes[meta.start as usize..meta.end as usize];
    let none = slices::plan(m, &["zzz"], len, "runs.parquet").unwrap();
    assert!(none.groups.is_empty() && none.ranges.is_empty());
    let p = slices::plan(m, &["run_id-0003 ✓"], len, "runs.parquet").unwrap();
    assert_eq!(p.groups, vec![0]);
    let mut parts: Vec<(u64, Vec<u8>)> = p
        .ranges
        .iter()
        .map(|r| (r.start, bytes[r.start as usize..r.end as usize].to_vec()))
        .collect();
    parts.push((meta.start, bytes[meta.start as usize..].to_vec()));
    let back = slices::decode_groups(parts, len, &p.groups, &RUNS, "runs.parquet").unwrap();
    assert_eq!(back, t);
    // A file cut short, or not Parquet at all, is an error naming it.
    let e = slices::metadata_range(&bytes[..8], len, "runs.parquet").unwrap_err();
    assert!(e.to_string().starts_with("runs.parquet: "), "{e}");
    let e = slices::metadata_range(b"PAR1", 4, "r.parquet").unwrap_err();
    assert!(e.to_string().contains("too short"), "{e}");
    // A range that was not read is an error, not a panic.
    let e = slices::decode_groups(
        vec![(meta.start, bytes[meta.start as usize..].to_vec())],
        len,
        &p.groups,
        &RUNS,
        "runs.parquet",
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("runs.parquet: "), "{e}");
}

/// A lake written in memory (`zipped::lake_files`) and zipped stored (`zipped::zip_stored`):
/// the engine's zip reader (the dashboard's) finds every member with its bytes and CRC, and
/// the unzipped folder opens as a lake with its runs listed in the manifest.
#[test]
fn a_lake_zipped_in_memory_unzips_and_opens() {
    use evalboard_engine::evallog::archive::{Archive, Limits};
    let tables = vec![runs_table(3)];
    let runs = vec![ShardRun {
        run_id: "r".into(),
        name: "run r".into(),
        input: "dashboard".into(),
        input_files: vec!["a.jsonl".into()],
    }];
    let files = zipped::lake_files(&tables, runs, ("s1", Codec::Snappy, "test")).unwrap();
    assert_eq!(files.len(), TABLES.len() + 1);
    let zip = zipped::zip_stored("lake", &files).unwrap();
    assert_eq!(zip, zipped::zip_stored("lake", &files).unwrap());
    let archive = Archive::parse(&zip, Limits::default()).unwrap();
    assert_eq!(archive.entries.len(), files.len());
    let dir = temp_lake("zipped");
    for ((path, bytes), e) in files.iter().zip(&archive.entries) {
        assert_eq!(e.name, format!("lake/{path}"));
        let read = archive.read(e).unwrap();
        assert_eq!(&read, bytes);
        let to = dir.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, read).unwrap();
    }
    let lake = open(&dir).unwrap();
    assert_eq!(lake.table("runs").unwrap(), &tables[0]);
    assert_eq!(lake.table("samples").unwrap().rows.len(), 0);
    assert_eq!(lake.manifest.shards[0].runs[0].name, "run r");
    assert!(lake.manifest.files.iter().all(|f| f.codec == "snappy"));
    let _ = std::fs::remove_dir_all(&dir);
}
