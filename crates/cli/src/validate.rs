//! `evalboard validate <FILE>`: check a ConvFinQA dataset by executing every turn_program, an
//! answer-correctness eval set (JSONL) for schema, unique ids, size and composition, or an
//! evaluation-tool log (Inspect `.eval`/`.json`, an lm-eval results file with the samples files
//! beside it) for its structure.

use anyhow::{Context, Result};
use evalboard_cli::out;
use evalboard_cli::term::push_line;
use evalboard_engine::evalset::validate::{
    validate_evalset, EvalsetValidateReport, DEFAULT_MIN_ITEMS,
};
use evalboard_engine::evalset::{sniff, EvalsetFileKind};
use evalboard_engine::numeric_qa::validate::{validate_dataset, ValidateReport};

use evalboard_engine::evallog::{self, validate::LogValidateReport, EvalLogFileKind};
use evalboard_engine::InputFile;

use crate::cli::ValidateArgs;

fn human(r: &ValidateReport) -> String {
    let mut out = format!(
        "{} conversations, {} turns, {} programs checked, {} mismatches, {} errors, {} warnings\n",
        r.conversations,
        r.turns,
        r.programs_checked,
        r.program_mismatches.len(),
        r.errors.len(),
        r.warnings.len()
    );
    for m in &r.program_mismatches {
        push_line(
            &mut out,
            &format!(
                "mismatch: {} turn {}: {} → got {}, expected {}",
                m.id, m.turn_idx, m.program, m.got, m.expected
            ),
        );
    }
    for (kind, list) in [("error", &r.errors), ("warning", &r.warnings)] {
        for d in list {
            let v = serde_json::to_value(d).unwrap_or_default();
            let file = v.get("file").and_then(|x| x.as_str()).unwrap_or_default();
            let line = v.get("line").and_then(|x| x.as_u64());
            let msg = v
                .get("message")
                .and_then(|x| x.as_str())
                .unwrap_or_default();
            match line {
                Some(l) => push_line(&mut out, &format!("{file}:{l}: {kind}: {msg}")),
                None => push_line(&mut out, &format!("{file}: {kind}: {msg}")),
            }
        }
    }
    out
}

pub fn run(a: ValidateArgs) -> Result<u8> {
    let path: &str = &a.file.display().to_string();
    let bytes = std::fs::read(&a.file).with_context(|| format!("cannot read {path}"))?;
    // An lm-eval details Parquet file is validated as the samples rows it holds.
    let bytes = evalboard_cli::fsio::details_as_samples(InputFile::new(path, bytes))?.bytes;
    if let Some(kind) = evallog::sniff(&InputFile::new(path, bytes.clone())) {
        return validate_log(&a, path, bytes, kind);
    }
    let is_evalset = path.ends_with(".jsonl")
        || a.min_items.is_some()
        || matches!(sniff(path, &bytes), Some(EvalsetFileKind::EvalSet));
    if is_evalset {
        let min_items = a.min_items.unwrap_or(DEFAULT_MIN_ITEMS);
        let report = validate_evalset(path, &bytes, min_items);
        if a.json {
            evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&report)?);
        } else {
            out!("{}", human_evalset(&report));
        }
        return Ok(report.exit_code().clamp(0, 2) as u8);
    }
    let report = validate_dataset(path, &bytes);
    if a.json {
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", human(&report));
    }
    Ok(report.exit_code().clamp(0, 2) as u8)
}

fn human_evalset(r: &EvalsetValidateReport) -> String {
    let mut out = format!(
        "{} items, {} errors, {} warnings\n",
        r.items,
        r.errors.len(),
        r.warnings.len()
    );
    for (kind, list) in [("error", &r.errors), ("warning", &r.warnings)] {
        for d in list {
            match d.line {
                Some(l) => push_line(&mut out, &format!("{}:{l}: {kind}: {}", d.file, d.message)),
                None => push_line(&mut out, &format!("{}: {kind}: {}", d.file, d.message)),
            }
        }
    }
    for (name, counts) in [
        ("section", &r.composition.section),
        ("category", &r.composition.category),
        ("difficulty", &r.composition.difficulty),
    ] {
        if !counts.is_empty() {
            let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
            push_line(&mut out, &format!("{name}: {}", parts.join(", ")));
        }
    }
    out
}

/// `validate` on a log: the file itself, for an lm-eval results file the lm-eval samples files
/// of its folder (by content: `.json`/`.jsonl` files that sniff as samples; the engine pairs
/// them with it by task), for a HELM run file the other files of its run folder.
fn validate_log(a: &ValidateArgs, path: &str, bytes: Vec<u8>, kind: EvalLogFileKind) -> Result<u8> {
    let mut files = vec![InputFile::new(path, bytes)];
    let wanted = |n: &str| match kind {
        EvalLogFileKind::LmEvalResults => n.ends_with(".jsonl") || n.ends_with(".json"),
        EvalLogFileKind::HelmRunFile => {
            evallog::helm::RUN_FILES.contains(&n) || evallog::helm::SUMMARY_FILES.contains(&n)
        }
        _ => false,
    };
    let own = a
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if matches!(
        kind,
        EvalLogFileKind::LmEvalResults | EvalLogFileKind::HelmRunFile
    ) {
        let dir = a
            .file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("cannot list {}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n != own && wanted(n))
            })
            .collect();
        names.sort();
        let bare = a.file.parent().is_none_or(|d| d.as_os_str().is_empty());
        for p in names {
            let b = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
            // Named as the log is (a bare name beside a bare name), so the readers see one folder.
            let shown = match (bare, p.file_name().and_then(|n| n.to_str())) {
                (true, Some(n)) => n.to_string(),
                _ => p.display().to_string(),
            };
            let f = InputFile::new(shown, b);
            if kind != EvalLogFileKind::LmEvalResults
                || evallog::sniff(&f) == Some(EvalLogFileKind::LmEvalSamples)
            {
                files.push(f);
            }
        }
    }
    let report = evallog::validate::validate_logs(&files);
    if a.json {
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", human_log(&report));
    }
    Ok(report.exit_code().clamp(0, 2) as u8)
}

fn human_log(r: &LogValidateReport) -> String {
    let mut out = String::new();
    for l in &r.logs {
        push_line(
            &mut out,
            &format!(
                "{}: {} log{}, {} samples{}",
                l.files.first().map(String::as_str).unwrap_or_default(),
                l.tool.label(),
                l.tool_version
                    .as_deref()
                    .map(|v| format!(" (version {v})"))
                    .unwrap_or_default(),
                l.samples,
                l.declared_samples
                    .map(|d| format!(" (header: {d})"))
                    .unwrap_or_default()
            ),
        );
    }
    out.push_str(&format!(
        "{} errors, {} warnings\n",
        r.errors.len(),
        r.warnings.len()
    ));
    for d in r.errors.iter().chain(&r.warnings) {
        push_line(&mut out, &d.to_string());
    }
    // How files read with the log were matched to it (lm-eval samples), or why one was not.
    for f in &r.files {
        let Some(reason) = &f.reason else { continue };
        let status = match f.status {
            evalboard_engine::accounting::FileStatus::Parsed => "read",
            evalboard_engine::accounting::FileStatus::PartlyParsed => "partly read",
            evalboard_engine::accounting::FileStatus::Skipped => "skipped",
        };
        push_line(&mut out, &format!("{}: {status}: {reason}", f.path));
    }
    out
}
