//! Export: the current run's output files under the current settings, the same bytes as the
//! CLI's `score --out` (the worker writes them; the page only downloads).

use leptos::prelude::*;

use crate::protocol::{Request, RunId};
use crate::ui::client;
use crate::ui::store::use_store;

const FILES: &[(&str, &str)] = &[
    (
        "statistics.json",
        "Every aggregate, breakdown and the input-file accounting.",
    ),
    ("summary.csv", "One row per conversation."),
    ("turns.csv", "One row per turn with every verdict."),
    ("errors.csv", "One row per failed turn, with its context."),
    (
        "validation.csv",
        "The validator's logs, when the run recorded them.",
    ),
    (
        "evalboard-marks.jsonl",
        "Every human review mark kept in this browser (evalboard-marks/1).",
    ),
];

#[component]
pub fn ExportView() -> impl IntoView {
    let store = use_store();
    let run_id = Memo::new(move |_| store.current().map(|r| r.id));
    let family = Memo::new(move |_| store.current().and_then(|r| r.info().map(|i| i.family)));
    let screen = move || {
        family
            .get()
            .is_some_and(crate::ui::screen::is_screen_family)
    };
    // The settings the export is made under, in one line (`Settings::in_one_line`).
    let settings = move || {
        let f = family.get()?;
        Some(store.settings.with(|s| s.in_one_line(f)))
    };
    let files = move || FILES;
    // Other loaded runs, offered as the report's baseline.
    let baseline = RwSignal::new(None::<RunId>);
    let others = move || {
        let current = run_id.get();
        store.runs.with(|rs| {
            rs.iter()
                .filter(|r| Some(r.id) != current)
                .map(|r| (r.id, r.name.clone()))
                .collect::<Vec<_>>()
        })
    };
    // The All runs tab's comparison, when it has two runs or more against its pin.
    let many = move || crate::ui::many::pinned(store).filter(|(_, o)| o.len() >= 2);
    // ... judged as the tab is ("Judged by", `f.judge=`).
    let judge = move || store.route.with(|r| r.choice("judge"));
    let report = move |all: bool| {
        let many = if all {
            many().map(|(b, o)| (b, o, judge()))
        } else {
            None
        };
        let Some(id) = many
            .as_ref()
            .and_then(|(b, _, _)| b.first().copied())
            .or_else(|| run_id.get_untracked())
        else {
            return;
        };
        let generated_at = String::from(js_sys::Date::new_0().to_iso_string());
        client::send(&Request::Report {
            req: client::next_req(),
            run_id: id,
            baseline: if all { None } else { baseline.get_untracked() },
            generated_at,
            many,
        });
    };
    view! {
        <div class="eb-export">
            <p class="eb-section__hint">
                "Files are written by the same engine as the command line ("<code>"evalboard score DIR --out OUT"</code>
                ") under the current settings: " <span class="eb-mono">{settings}</span>"."
            </p>
            <Show when=screen>
                <crate::ui::screen::ScreenExports/>
            </Show>
            <ul class="eb-export__list" hidden=screen>
                {move || files().iter().map(|(file, what)| view! {
                    <li class="eb-export__item">
                        <button type="button" class="eb-btn" data-export=*file
                            on:click=move |_| if let Some(id) = run_id.get_untracked() { store.export(id, file) }>
                            <span class="eb-export__icon" aria-hidden="true">"⤓"</span>
                            {*file}
                        </button>
                        <span class="eb-muted">{*what}</span>
                    </li>
                }).collect_view()}
            </ul>
            <ul class="eb-export__list">
                {report_item(
                    ("report.html", "report.html", "evalboard report DIR -o report.html"),
                    "One self-contained HTML report (every chart, table and the data, provenance; opens offline) — the same as ".into(),
                    move || report(false),
                )}
                <li class="eb-export__item">
                    <label class="eb-muted">
                        "Report baseline: "
                        <select data-report-baseline="" on:change=move |ev| {
                            baseline.set(event_target_value(&ev).parse::<RunId>().ok());
                        }>
                            <option value="">"none"</option>
                            {move || others().into_iter().map(|(id, name)| view! {
                                <option value=id.to_string()>{name}</option>
                            }).collect_view()}
                        </select>
                        " (compare the report's run with another loaded run, regressions first)"
                    </label>
                </li>
                {report_item(
                    ("workspace-lake", "workspace lake", "evalboard export --lake OUT RUN…"),
                    "Every run loaded here (but code-generation runs and lake runs not loaded into the workspace), as scored now, as one results lake (Parquet, zstd; zipped, members stored) that the CLI's score, compare and report read and a drop opens again — as ".into(),
                    move || client::send(&Request::ExportLake { req: client::next_req() }),
                )}
                {move || many().map(|(_, o)| report_item(
                    ("report-all-runs", "all runs report", "evalboard report --baseline B RUN…"),
                    format!("The pinned baseline and the {} other runs the All runs tab compares with it, in one report with its table, interval plot, frontier and grid — the same as ", o.len()),
                    move || report(true),
                ))}
            </ul>
        </div>
    }
}

/// A report download: its button (`data-export` key, label), what it is and the CLI command
/// that writes the same.
fn report_item(
    (key, label, cmd): (&'static str, &'static str, &'static str),
    what: String,
    click: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <li class="eb-export__item">
            <button type="button" class="eb-btn" data-export=key on:click=move |_| click()>
                <span class="eb-export__icon" aria-hidden="true">"⤓"</span>
                {label}
            </button>
            <span class="eb-muted">{what}<code>{cmd}</code>"."</span>
        </li>
    }
}
