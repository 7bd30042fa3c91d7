//! The load report of the current run: every file (parsed, partly parsed, skipped, with the
//! reason) and every diagnostic (file, line, message), plus files the page could not read.

use leptos::prelude::*;

use evalboard_engine::accounting::FileStatus;
use evalboard_engine::diag::Severity;

use crate::format;
use crate::protocol::{Block, Cell, Table, TableRow};
use crate::ui::store::{use_store, RunStatus};

/// A titled table (`data-table=key`) of text rows, the first its header; `numeric`: the columns
/// right-aligned.
fn table(key: &str, title: &str, rows: Vec<Vec<String>>, numeric: &[usize]) -> Block {
    let mut rows = rows.into_iter();
    let head = rows.next().unwrap_or_default();
    Block::Table(Table {
        key: key.into(),
        title: Some(title.into()),
        numeric: (0..head.len()).map(|i| numeric.contains(&i)).collect(),
        head,
        rows: rows
            .map(|cells| TableRow {
                key: None,
                flag: false,
                cells: cells.into_iter().map(Cell::Text).collect(),
            })
            .collect(),
    })
}

#[component]
pub fn FilesView() -> impl IntoView {
    let store = use_store();
    let run = Memo::new(move |_| store.current());
    move || {
        let Some(r) = run.get() else {
            return ().into_any();
        };
        let (files, diags, error, extra) = match &r.status {
            RunStatus::Loaded(i) => (
                i.files.clone(),
                i.diagnostics.clone(),
                None,
                Some(format!(
                    "Read and scored in {}{}{}.",
                    format::ms(i.load_ms),
                    if i.stage_ms.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " ({})",
                            i.stage_ms.iter().map(|(s, t)| format!("{s} {}", format::ms(*t))).collect::<Vec<_>>().join(", ")
                        )
                    },
                    i.wasm_memory_bytes.map(|b| format!(" · worker memory {}", format::bytes(b))).unwrap_or_default()
                )),
            ),
            RunStatus::Failed { error, files, diagnostics } => (files.clone(), diagnostics.clone(), Some(error.clone()), None),
            _ => {
                return view! { <div class="eb-state eb-state--quiet">"The report appears when the run has loaded."</div> }.into_any()
            }
        };
        let count = |s: FileStatus| files.iter().filter(|f| f.status == s).count() as u64;
        let (parsed, partly, skipped) = (
            count(FileStatus::Parsed),
            count(FileStatus::PartlyParsed),
            count(FileStatus::Skipped),
        );
        let problems = r.read_problems.clone();
        // Laid out as screen blocks, rendered by the one block renderer (`ui::screen::blocks`):
        // less page code than a template of its own (docs/dashboard.md § Size).
        let card = |k: &str, l: &str, v: usize| {
            (k.to_string(), l.to_string(), v.to_string(), String::new())
        };
        let mut out = Vec::new();
        if let Some(e) = error {
            out.push(Block::Note {
                key: "not-loaded".into(),
                tone: "error".into(),
                text: format!("Not loaded: {e}"),
            });
        }
        out.push(Block::Cards {
            primary: String::new(),
            cards: vec![
                card("files_parsed", "Parsed", parsed as usize),
                card("files_partly", "Partly parsed", partly as usize),
                card("files_skipped", "Skipped", skipped as usize),
                card("diagnostics", "Diagnostics", diags.len()),
            ],
        });
        if let Some(e) = extra {
            out.push(Block::Text {
                key: "load-time".into(),
                text: e,
                mono: false,
            });
        }
        let problems_empty = problems.is_empty();
        if !problems_empty {
            let mut rows = vec![vec!["File".to_string()]];
            rows.extend(problems.into_iter().map(|p| vec![p]));
            out.push(table(
                "unreadable",
                "Not readable by the browser",
                rows,
                &[],
            ));
        }
        let mut rows = vec![["File", "Status", "Format", "Size", "Reason"]
            .map(String::from)
            .to_vec()];
        rows.extend(files.into_iter().map(|f| {
            let status = match f.status {
                FileStatus::Parsed => "parsed",
                FileStatus::PartlyParsed => "partly parsed",
                FileStatus::Skipped => "skipped",
            };
            vec![
                f.path,
                status.into(),
                f.format.unwrap_or_default(),
                format::bytes(f.bytes),
                f.reason.unwrap_or_default(),
            ]
        }));
        out.push(table("files", "Files", rows, &[3]));
        if diags.is_empty() {
            // "Read cleanly" only when nothing was left out: skipped files are not clean.
            let text = if skipped > 0 || !problems_empty {
                "None in the files that were read; the skipped files are listed above with their reasons."
            } else {
                "None: every record read cleanly."
            };
            out.push(Block::Heading("Diagnostics".into()));
            out.push(Block::Text {
                key: "diagnostics".into(),
                text: text.into(),
                mono: false,
            });
        } else {
            let mut rows = vec![["Severity", "File", "Line", "Record", "Message"]
                .map(String::from)
                .to_vec()];
            rows.extend(diags.into_iter().map(|d| {
                let severity = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                };
                let file = if d.file.is_empty() {
                    "(run)".to_string()
                } else {
                    d.file
                };
                vec![
                    severity.into(),
                    file,
                    d.line.map(|l| l.to_string()).unwrap_or_default(),
                    d.record.unwrap_or_default(),
                    d.message,
                ]
            }));
            out.push(table("diagnostics", "Diagnostics", rows, &[2]));
        }
        view! { <div class="eb-files">{crate::ui::screen::blocks(out)}</div> }.into_any()
    }
}
