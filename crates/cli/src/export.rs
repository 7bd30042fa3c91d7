//! `evalboard export --lake OUT [--shard-id K] [--baseline B] RUN...`: the runs' lake tables
//! ([`evalboard_engine::lake::build`]) written as Parquet with the manifest
//! ([`evalboard_lake`], docs/lake.md). Each table's file is named by the shard
//! (`<table>/part-<shard>.parquet`: `--shard-id`, else a hash of the runs' content ids), so a
//! retried shard overwrites its own files; with `--shard-id` the shard's entries are merged
//! into an existing manifest, under a lock file so that shards written in parallel do not lose
//! each other's entries. Files go through [`fsio::OutputSet`]: written under temporary names,
//! moved into place together, the manifest last, never over an input.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use evalboard_cli::errln;
use evalboard_engine::compare::CompareOptions;
use evalboard_engine::lake::{self, LakeRun};
use evalboard_engine::run::ScoredRun;
use evalboard_lake::{
    sha256_hex, Codec, FileEntry, LakeWriter, Manifest, ShardEntry, ShardRun, MANIFEST_FILE,
};

use crate::cli::ExportArgs;
use crate::fsio;
use crate::score;

/// The evalboard version the lake's rows and manifest name.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One folder given: its path and its scored runs with their files' digests.
struct Exported {
    input: String,
    runs: Vec<(ScoredRun, crate::marks::Digests)>,
}

/// Reads and scores the runs at `dir` (a folder of logs is several runs), with their digests.
fn load(dir: &Path, settings: &score::Settings) -> Result<Option<Exported>> {
    let loaded = score::load_path(dir, &settings.profile)?;
    let digests = loaded.digests()?;
    let Some(runs) = loaded.score_logs(settings)? else {
        return Ok(None);
    };
    Ok(Some(Exported {
        input: dir.display().to_string(),
        runs: runs.into_iter().map(|r| (r, digests.clone())).collect(),
    }))
}

/// A run as the lake builder takes it: its content id and files from the digests.
fn lake_run<'a>(
    run: &'a ScoredRun,
    digests: &crate::marks::Digests,
    settings: &'a evalboard_engine::run::Settings,
) -> LakeRun<'a> {
    let files: Vec<(String, u64, String)> = run
        .files()
        .iter()
        .filter_map(|f| {
            let (size, sha) = digests.get(&f.path)?;
            Some((f.path.clone(), *size, evalboard_engine::run_table::hex(sha)))
        })
        .collect();
    LakeRun {
        run: run.as_ref(),
        content_id: crate::marks::content_id(run, digests).unwrap_or_else(|| {
            // A file without a digest (none in practice): the id of the files that have one.
            let hashed: Vec<(&str, u64, [u8; 32])> = run
                .files()
                .iter()
                .filter_map(|f| digests.get(&f.path).map(|(n, d)| (f.path.as_str(), *n, *d)))
                .collect();
            evalboard_engine::run_table::content_id(&hashed)
        }),
        files,
        settings,
        statistics_json: serde_json::to_string(
            &evalboard_report::run_output_plan(run.as_ref()).statistics,
        )
        .ok(),
        marks: None,
    }
}

/// A shard id as a file-name part: letters, digits, `-`, `_`, `.` (not leading), ≤ 64 bytes.
fn check_shard_id(k: &str) -> Result<()> {
    let ok = !k.is_empty()
        && k.len() <= 64
        && !k.starts_with('.')
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !ok {
        bail!("--shard-id {k:?}: use 1 to 64 letters, digits, '-', '_' or '.' (not first)");
    }
    Ok(())
}

/// Holds `OUT/.evalboard-lake.lock` while a shard merges its manifest entries; removed on drop.
struct Lock(PathBuf);

impl Lock {
    fn take(out: &Path) -> Result<Lock> {
        let path = out.join(".evalboard-lake.lock");
        let start = Instant::now();
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(Lock(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if start.elapsed() > Duration::from_secs(120) {
                        bail!(
                            "{} has been held for 2 minutes (another export, or one that was \
                             killed: remove the file if no export is running)",
                            path.display()
                        );
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", path.display()))
                }
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub fn run(a: ExportArgs) -> Result<u8> {
    if let Some(k) = &a.shard_id {
        check_shard_id(k)?;
    }
    let out = &a.lake;
    let manifest_path = out.join(MANIFEST_FILE);
    if a.shard_id.is_none() && manifest_path.exists() && !a.force {
        bail!(
            "{} is a lake already: add a shard with --shard-id K, or replace it with --force",
            out.display()
        );
    }
    let settings = score::settings(&a.settings)?;
    let mut folders = Vec::new();
    for dir in &a.runs {
        match load(dir, &settings)? {
            Some(e) => folders.push(e),
            None => return Ok(2),
        }
    }
    let baseline = match &a.baseline {
        Some(b) => match load(b, &settings)? {
            Some(e) => Some(e),
            None => return Ok(2),
        },
        None => None,
    };
    let family_settings = |r: &ScoredRun| settings.for_family(r.as_ref().family());
    // Each run's settings (its family's), kept alive for the builder's borrows.
    let mut run_settings = Vec::new();
    for f in folders.iter().chain(&baseline) {
        for (r, _) in &f.runs {
            run_settings.push(family_settings(r)?);
        }
    }
    // `--marks`: the human review marks of each run's content id, exported as scorer `human`.
    let sidecar = a.marks.as_deref().map(crate::marks::read).transpose()?;
    let mut at = 0usize;
    let mut lake_runs = Vec::new();
    let mut shard_runs = Vec::new();
    for f in &folders {
        for (r, d) in &f.runs {
            let mut lr = lake_run(r, d, &run_settings[at]);
            lr.marks = sidecar
                .as_ref()
                .and_then(|s| s.set.marks_for(&lr.content_id));
            at += 1;
            shard_runs.push(ShardRun {
                run_id: lake::run_id(&lr.content_id),
                name: r.as_ref().name().to_string(),
                input: f.input.clone(),
                input_files: lr.files.iter().map(|(p, _, _)| p.clone()).collect(),
            });
            lake_runs.push(lr);
        }
    }
    let mut baselines = Vec::new();
    for f in baseline.iter() {
        for (r, d) in &f.runs {
            baselines.push(lake_run(r, d, &run_settings[at]));
            at += 1;
        }
    }
    let opts = CompareOptions {
        resamples: a.resamples,
        seed: a.seed,
        ..CompareOptions::default()
    };
    // The shard: named, or the hash of its runs' content ids (the same input, the same name).
    let shard = match &a.shard_id {
        Some(k) => k.clone(),
        None => {
            let mut ids: Vec<&str> = lake_runs.iter().map(|r| r.content_id.as_str()).collect();
            ids.sort_unstable();
            sha256_hex(ids.join("\n").as_bytes())
                .chars()
                .take(16)
                .collect()
        }
    };
    let path_of = |name: &str| format!("{name}/part-{shard}.parquet");
    let created_by = format!("evalboard {VERSION}");
    // Each table written a row group at a time as its rows are built (never held whole).
    let mut writer = LakeWriter::new(Codec::Zstd, &created_by, |s| path_of(s.name))?;
    let warnings = lake::build_into(&lake_runs, &baselines, &opts, VERSION, &mut writer);
    for w in &warnings {
        errln!("evalboard: warning: {w}");
    }
    let tables = writer.finish()?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let _lock = Lock::take(out)?;
    let mut manifest = match (&a.shard_id, a.force) {
        (Some(_), _) if manifest_path.exists() => {
            let bytes = std::fs::read(&manifest_path)
                .with_context(|| format!("cannot read {}", manifest_path.display()))?;
            Manifest::parse(&bytes, &manifest_path.display().to_string())?
        }
        _ => Manifest::new(VERSION),
    };
    let mut inputs: Vec<PathBuf> = a.runs.clone();
    inputs.extend(a.baseline.iter().cloned());
    // The shard's own files (and the manifest) are replaced: a retried shard overwrites them.
    let mut set = fsio::OutputSet::new(&inputs, true);
    let mut files = Vec::new();
    for t in &tables {
        let path = path_of(t.schema.name);
        files.push(FileEntry {
            table: t.schema.name.to_string(),
            path: path.clone(),
            shard: shard.clone(),
            rows: t.rows,
            bytes: t.bytes.len() as u64,
            sha256: sha256_hex(&t.bytes),
            codec: Codec::Zstd.name().to_string(),
        });
        set.add(out, &path, &t.bytes)?;
    }
    // Files the shard wrote before under other names (none while names come from the shard id)
    // are no longer listed; their entries go with the merge.
    manifest.merge_shard(
        ShardEntry {
            shard: shard.clone(),
            runs: shard_runs,
        },
        files,
        VERSION,
    );
    set.add(out, MANIFEST_FILE, &manifest.to_bytes())?;
    let n = set.commit()?;
    let rows: Vec<String> = tables
        .iter()
        .map(|t| format!("{} {}", t.schema.name, t.rows))
        .collect();
    errln!(
        "wrote {n} files to {} (shard {shard}; rows: {})",
        out.display(),
        rows.join(", ")
    );
    Ok(0)
}
