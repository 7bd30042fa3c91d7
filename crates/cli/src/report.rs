//! `evalboard report`: score run folders (as `score` does) and write one self-contained HTML
//! report, optionally comparing every run with a baseline.

use evalboard_cli::errln;
use std::path::Path;

use anyhow::{Context, Result};
use evalboard_report::html::{render_report, FileProvenance, HtmlOptions, Provenance, ReportInput};

use crate::cli::ReportArgs;
use crate::fsio;
use crate::score;
use evalboard_engine::run::ScoredRun;

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The generation time: `--generated-at`, else `SOURCE_DATE_EPOCH` (reproducible builds), else now.
fn generated_at(a: &ReportArgs) -> String {
    if let Some(t) = &a.generated_at {
        return t.clone();
    }
    if let Some(secs) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        return rfc3339(secs);
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    rfc3339(now)
}

pub fn run(a: ReportArgs) -> Result<u8> {
    let out = &a.out.display().to_string();
    let settings = score::settings(&a.settings)?;
    let options = HtmlOptions {
        title: a.title.clone(),
        max_table_rows: a.max_rows,
        pairing: match a.by_item {
            Some(b) => evalboard_engine::compare::Pairing::ByItem(b.0),
            None => Default::default(),
        },
        ..Default::default()
    };
    let sidecar = a.marks.as_deref().map(crate::marks::read).transpose()?;
    let mut files = Vec::new();
    // Each run's content id, with --marks.
    let mut ids: Vec<Option<String>> = Vec::new();
    // A run folder is one run; a lake is each of its runs (their run rows, as exported).
    // `None`: a run was unusable (already reported).
    type Loaded = Option<Vec<(ScoredRun, Option<String>)>>;
    let mut load = |dir: &Path| -> Result<Loaded> {
        let inputs = if dir.join(evalboard_lake::MANIFEST_FILE).is_file() {
            if sidecar.is_some() {
                anyhow::bail!(
                    "{}: a lake's runs take no review marks (their verdicts are as exported)",
                    dir.display()
                );
            }
            fsio::lake_runs(dir)?.runs
        } else {
            vec![fsio::read_run(dir)?]
        };
        let mut out = Vec::new();
        for input in &inputs {
            for f in &input.files {
                files.push(FileProvenance::of(&input.name, &f.path, &f.bytes));
            }
            let digests = sidecar
                .as_ref()
                .map(|_| crate::marks::digests_of_input(input));
            let Some(s) = score::load_scored(&dir.display().to_string(), input, &settings)? else {
                return Ok(None);
            };
            let id = digests
                .as_ref()
                .and_then(|d| crate::marks::content_id(&s, d));
            out.push((s, id));
        }
        Ok(Some(out))
    };
    let mut scored = Vec::new();
    for dir in &a.runs {
        let Some(runs) = load(dir)? else {
            return Ok(2);
        };
        for (s, id) in runs {
            scored.push(s);
            ids.push(id);
        }
    }
    // A lake as the baseline: its first run.
    let baseline = match &a.baseline {
        Some(dir) => match load(dir)? {
            Some(runs) => runs.into_iter().next().map(|(s, _)| s),
            None => return Ok(2),
        },
        None => None,
    };
    if let Some(s) = &sidecar {
        let known: Vec<&str> = ids.iter().flatten().map(String::as_str).collect();
        crate::marks::say_not_applied(s, &known);
    }
    for (path, bytes) in &settings.setting_files {
        let name = Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.clone());
        files.push(FileProvenance::of("(settings)", &name, bytes));
    }
    let html = render_report(&ReportInput {
        runs: scored.iter().map(ScoredRun::as_ref).collect(),
        baseline: baseline.as_ref().map(ScoredRun::as_ref),
        task_baselines: Vec::new(),
        provenance: Provenance {
            generated_at: generated_at(&a),
            generator: format!("evalboard report (CLI {})", env!("CARGO_PKG_VERSION")),
            files,
        },
        options,
        human: sidecar.map(|s| evalboard_report::html::HumanMarks {
            file: s.file,
            marks: s.set,
            content_ids: ids,
        }),
    });
    let mut read: Vec<std::path::PathBuf> = a.runs.clone();
    read.extend(a.baseline.iter().cloned());
    let mut set = fsio::OutputSet::new(&read, a.force);
    let dir = a
        .out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = a
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .with_context(|| format!("{out}: not a file name"))?;
    set.add(dir, &name, html.as_bytes())?;
    set.commit()?;
    errln!("wrote {out} ({} bytes)", html.len());
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(secs: i64, expected: &str) {
        assert_eq!(rfc3339(secs), expected, "rfc3339({secs})");
    }

    #[test]
    fn formats_utc_times() {
        check(0, "1970-01-01T00:00:00Z");
        check(951_782_400, "2000-02-29T00:00:00Z");
        check(1_735_689_599, "2024-12-31T23:59:59Z");
        check(-1, "1969-12-31T23:59:59Z");
    }
}
