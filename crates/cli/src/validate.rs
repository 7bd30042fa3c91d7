//! `evalboard validate <FILE>`: check a ConvFinQA dataset by executing every turn_program, or an
//! answer-correctness eval set (JSONL) for schema, unique ids, size and composition.

use anyhow::{Context, Result};
use evalboard_cli::out;
use evalboard_engine::evalset::validate::{
    validate_evalset, EvalsetValidateReport, DEFAULT_MIN_ITEMS,
};
use evalboard_engine::evalset::{sniff, EvalsetFileKind};
use evalboard_engine::numeric_qa::validate::{validate_dataset, ValidateReport};

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
        out.push_str(&format!(
            "mismatch: {} turn {}: {} → got {}, expected {}\n",
            m.id, m.turn_idx, m.program, m.got, m.expected
        ));
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
                Some(l) => out.push_str(&format!("{file}:{l}: {kind}: {msg}\n")),
                None => out.push_str(&format!("{file}: {kind}: {msg}\n")),
            }
        }
    }
    out
}

pub fn run(a: ValidateArgs) -> Result<u8> {
    let path: &str = &a.file.display().to_string();
    let bytes = std::fs::read(&a.file).with_context(|| format!("cannot read {path}"))?;
    let is_evalset = path.ends_with(".jsonl")
        || a.min_items.is_some()
        || matches!(sniff(path, &bytes), Some(EvalsetFileKind::EvalSet));
    if is_evalset {
        let min_items = a.min_items.unwrap_or(DEFAULT_MIN_ITEMS);
        let report = validate_evalset(path, &bytes, min_items);
        if a.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            out!("{}", human_evalset(&report));
        }
        return Ok(report.exit_code().clamp(0, 2) as u8);
    }
    let report = validate_dataset(path, &bytes);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
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
                Some(l) => out.push_str(&format!("{}:{l}: {kind}: {}\n", d.file, d.message)),
                None => out.push_str(&format!("{}: {kind}: {}\n", d.file, d.message)),
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
            out.push_str(&format!("{name}: {}\n", parts.join(", ")));
        }
    }
    out
}
