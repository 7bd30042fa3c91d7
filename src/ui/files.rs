//! The load report of the current run: every file (parsed, partly parsed, skipped, with the
//! reason) and every diagnostic (file, line, message), plus files the page could not read.

use leptos::prelude::*;

use evalboard_engine::accounting::FileStatus;
use evalboard_engine::diag::Severity;

use crate::format;
use crate::ui::store::{use_store, RunStatus};

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
        let problems_empty = problems.is_empty();
        view! {
            <div class="eb-files">
                {error.map(|e| view! { <div class="eb-callout eb-callout--error" role="alert"><strong>"Not loaded: "</strong>{e}</div> })}
                <div class="eb-cards eb-cards--small">
                    <div class="eb-card" data-metric="files_parsed"><div class="eb-card__label">"Parsed"</div><div class="eb-card__value">{parsed}</div></div>
                    <div class="eb-card" data-metric="files_partly"><div class="eb-card__label">"Partly parsed"</div><div class="eb-card__value">{partly}</div></div>
                    <div class="eb-card" data-metric="files_skipped"><div class="eb-card__label">"Skipped"</div><div class="eb-card__value">{skipped}</div></div>
                    <div class="eb-card" data-metric="diagnostics"><div class="eb-card__label">"Diagnostics"</div><div class="eb-card__value">{diags.len()}</div></div>
                </div>
                {extra.map(|e| view! { <p class="eb-footnote">{e}</p> })}
                {(!problems.is_empty()).then(|| view! {
                    <section class="eb-section">
                        <h2 class="eb-section__title">"Not readable by the browser"</h2>
                        <ul class="eb-list">{problems.into_iter().map(|p| view! { <li class="eb-mono">{p}</li> }).collect_view()}</ul>
                    </section>
                })}
                <section class="eb-section" aria-labelledby="eb-files-title">
                    <h2 class="eb-section__title" id="eb-files-title">"Files"</h2>
                    <div class="eb-scroll-x">
                    <table class="eb-table" data-table="files">
                        <thead><tr>
                            <th scope="col">"File"</th>
                            <th scope="col">"Status"</th>
                            <th scope="col">"Format"</th>
                            <th scope="col" class="eb-num">"Size"</th>
                            <th scope="col">"Reason"</th>
                        </tr></thead>
                        <tbody>
                            {files.into_iter().map(|f| {
                                let (cls, label) = match f.status {
                                    FileStatus::Parsed => ("eb-status eb-status--ok", "parsed"),
                                    FileStatus::PartlyParsed => ("eb-status eb-status--warn", "partly parsed"),
                                    FileStatus::Skipped => ("eb-status eb-status--skip", "skipped"),
                                };
                                view! {
                                    <tr>
                                        <th scope="row" class="eb-mono">{f.path}</th>
                                        <td><span class=cls>{label}</span></td>
                                        <td class="eb-mono">{f.format.unwrap_or_default()}</td>
                                        <td class="eb-num">{format::bytes(f.bytes)}</td>
                                        <td>{f.reason.unwrap_or_default()}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                    </div>
                </section>
                <section class="eb-section" aria-labelledby="eb-diags-title">
                    <h2 class="eb-section__title" id="eb-diags-title">"Diagnostics"</h2>
                    {if diags.is_empty() {
                        // "Read cleanly" only when nothing was left out: skipped files are not clean.
                        let text = if skipped > 0 || !problems_empty {
                            "None in the files that were read; the skipped files are listed above with their reasons."
                        } else {
                            "None: every record read cleanly."
                        };
                        view! { <p class="eb-muted">{text}</p> }.into_any()
                    } else {
                        view! {
                            <div class="eb-scroll-x">
                            <table class="eb-table" data-table="diagnostics">
                                <thead><tr>
                                    <th scope="col">"Severity"</th>
                                    <th scope="col">"File"</th>
                                    <th scope="col" class="eb-num">"Line"</th>
                                    <th scope="col">"Record"</th>
                                    <th scope="col">"Message"</th>
                                </tr></thead>
                                <tbody>
                                    {diags.into_iter().map(|d| {
                                        let (cls, label) = match d.severity {
                                            Severity::Error => ("eb-status eb-status--bad", "error"),
                                            Severity::Warning => ("eb-status eb-status--warn", "warning"),
                                            Severity::Info => ("eb-status", "info"),
                                        };
                                        view! {
                                            <tr>
                                                <td><span class=cls>{label}</span></td>
                                                <td class="eb-mono">{if d.file.is_empty() { "(run)".to_string() } else { d.file }}</td>
                                                <td class="eb-num">{d.line.map(|l| l.to_string()).unwrap_or_default()}</td>
                                                <td class="eb-mono">{d.record.unwrap_or_default()}</td>
                                                <td>{d.message}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                            </div>
                        }.into_any()
                    }}
                </section>
            </div>
        }
        .into_any()
    }
}
