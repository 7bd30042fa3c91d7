//! The conversation view: a dialog over the page with every turn of one conversation — question,
//! expected and predicted answers, each scorer's verdict, the ground-truth program and its value,
//! the plan's operations, tokens, errors, and "as originally scored" next to "re-scored" where
//! they differ. Escape or the close button returns to where the user was.

use leptos::prelude::*;

use evalboard_engine::family::Family;

use evalboard_engine::numeric_qa::views::{ConversationTurn, ConversationView, TurnWork};

use crate::format;
use crate::protocol::Request;
use crate::ui::client;
use crate::ui::store::use_store;
use crate::ui::widgets::{Drawer, Verdict};

#[component]
pub fn ConversationDrawer() -> impl IntoView {
    let store = use_store();
    let target = Memo::new(move |_| {
        let key = store.route.with(|r| r.item.clone())?;
        // A Compare row side by side has its own drawer (`ui::compare::PairDrawer`).
        store.pair.with(|p| p.is_none()).then_some(())?;
        let run = store.current()?;
        run.info().filter(|i| i.family == Family::NumericQa)?;
        // A turn's key: [conversation id, turn index].
        let (id, turn) = key.as_text_index()?;
        let (id, turn) = (id.to_string(), u32::try_from(turn).ok()?);
        Some((run.id, key, id, turn))
    });
    // The Items query the turn is opened from: the answer says where it matched.
    let query = Memo::new(move |_| store.route.with(|r| r.choice(crate::ui::query::CHOICE)));
    // Fetch on open, on another conversation or query, and after re-scoring.
    Effect::new(move |_| {
        let t = target.get();
        let query = query.get();
        store.rescored.track();
        if let Some((run_id, key, _, _)) = t {
            let req = client::next_req();
            store.conversation_req.set_value(req);
            client::send(&Request::Conversation {
                req,
                run_id,
                key,
                query,
            });
        } else {
            store.conversation.set(None);
        }
    });
    let is_open = Memo::new(move |_| target.with(|t| t.is_some()));
    // Bring the clicked turn into view once its conversation is shown.
    Effect::new(move |_| {
        let Some((_, _, _, turn)) = target.get() else {
            return;
        };
        if store.conversation.with(|c| c.is_some()) {
            request_animation_frame(move || {
                if let Some(el) = document().get_element_by_id(&format!("eb-turn-{turn}")) {
                    el.scroll_into_view();
                }
            });
        }
    });
    let data = move || {
        let (_, _, conv, turn) = target.get()?;
        let view = store
            .conversation
            .with(|c| c.as_ref().map(|(_, v)| v.clone()))?;
        Some((conv, turn, view))
    };
    let title = Signal::derive(move || match data() {
        Some((_, _, Some(v))) => format!("Conversation {}", v.id),
        Some((c, _, None)) => format!("Conversation {c}"),
        None => "Conversation".into(),
    });
    view! {
        <Drawer open=is_open title=title>
            {move || match data() {
                None => view! { <p class="eb-muted">"Loading…"</p> }.into_any(),
                Some((_, _, None)) => view! { <p class="eb-muted">"This conversation is not in the run (the link may be from another version of it)."</p> }.into_any(),
                Some((_, turn, Some(v))) => {
                    conversation_body(v, turn, store.conversation_blocks.get()).into_any()
                }
            }}
        </Drawer>
    }
}

/// A conversation's facts and turns, the selected turn followed by where the query matched it
/// and its human review section (`blocks`: worker-laid-out; after the last turn when the
/// selected one is missing).
fn conversation_body(
    v: ConversationView,
    selected_turn: u32,
    mut blocks: Vec<crate::protocol::Block>,
) -> impl IntoView {
    let soft = format!(
        "Soft (±{})",
        evalboard_engine::numeric_qa::aggregate::tolerance_percent(v.tolerances.rel)
    );
    let n = v.turns.len();
    let correct = v.turns.iter().filter(|t| t.row.correct).count();
    let feats = [
        ("Type-2 question", v.has_type2_question),
        ("Non-numeric values", v.has_non_numeric_values),
        ("Duplicate columns", v.has_duplicate_columns),
    ];
    view! {
        <dl class="eb-facts">
            <div><dt>"Model"</dt><dd>{v.model.clone().unwrap_or_else(|| format::NONE.into())}</dd></div>
            <div><dt>"Type"</dt><dd>{v.conversation_type.clone()}</dd></div>
            <div><dt>"Turns correct"</dt><dd>{format!("{correct} of {n}")}</dd></div>
            {feats.into_iter().map(|(k, b)| view! { <div><dt>{k}</dt><dd>{format::flag(b)}</dd></div> }).collect_view()}
            <div><dt>"Source"</dt><dd class="eb-mono">{v.source_file.clone()}</dd></div>
        </dl>
        {v.failure.clone().map(|f| view! {
            <div class="eb-callout eb-callout--error" role="note"><strong>"The whole conversation failed: "</strong>{f}</div>
        })}
        <ol class="eb-turns">
            {v.turns.into_iter().map(|t| {
                let sel = t.row.turn_idx == selected_turn;
                let after = sel.then(|| after_turn(std::mem::take(&mut blocks)));
                view! { {turn_card(t, sel, &soft)} {after} }
            }).collect_view()}
            {(!blocks.is_empty()).then(|| after_turn(blocks))}
        </ol>
    }
}

fn after_turn(blocks: Vec<crate::protocol::Block>) -> impl IntoView {
    view! { <li class="eb-turns__review">{crate::ui::screen::blocks(blocks)}</li> }
}

fn opt_text(s: Option<String>) -> String {
    s.filter(|s| !s.is_empty())
        .unwrap_or_else(|| format::NONE.into())
}

fn turn_card(t: ConversationTurn, selected: bool, soft: &str) -> impl IntoView {
    let r = t.row.clone();
    let verdicts = vec![
        ("Exact".to_string(), r.exact_match),
        ("Numerical".into(), r.numerical_match),
        (soft.to_string(), r.soft_match),
        ("Unit-agnostic".into(), r.unit_agnostic_match),
        ("Sign-agnostic".into(), r.sign_agnostic_match),
        ("General".into(), r.general_match),
        ("Financial (fa2)".into(), r.financial_match),
        ("Numerical (fa2)".into(), r.fa2_numerical),
        ("Soft (fa2)".into(), r.fa2_soft_match),
    ];
    // As originally scored vs re-scored, for every verdict the source recorded.
    let compare: Vec<(&str, Option<bool>, bool)> = vec![
        ("Numerical match", r.original_numerical, r.correct),
        ("Financial match", t.original_financial, r.financial_match),
        ("Soft match", t.original_soft, r.fa2_soft_match),
    ]
    .into_iter()
    .filter(|(_, o, _)| o.is_some())
    .collect();
    let any_diff = compare.iter().any(|(_, o, n)| *o != Some(*n));
    let tokens = match (t.prompt_tokens, t.completion_tokens, r.tokens) {
        (None, None, None) => format::NONE.to_string(),
        (p, c, total) => format!(
            "{} total · {} in · {} out",
            format::opt_int(total),
            format::opt_int(p),
            format::opt_int(c)
        ),
    };
    let ops = t.plan_operations.clone().map(|o| {
        if o.is_empty() {
            "none (extract only)".to_string()
        } else {
            o.join(" → ")
        }
    });
    // One data-driven list: one element's code on the page, not ten (initial-load budget).
    let kv: Vec<(&str, String, bool)> = vec![
        (
            "Ground-truth program",
            opt_text(t.ground_truth_program.clone()),
            true,
        ),
        ("Program value", opt_text(t.program_value.clone()), true),
        (
            "Executed answer (dataset)",
            opt_text(t.executed_answer.clone()),
            true,
        ),
        ("Plan operations", opt_text(ops), true),
        (
            "Plan steps",
            opt_text(t.plan_steps.map(|s| s.to_string())),
            false,
        ),
        (
            "Operations",
            opt_text(r.operations_per_turn.map(|s| s.to_string())),
            false,
        ),
        (
            "Logic recall / precision / F1 / order",
            format!(
                "{} / {} / {} / {}",
                format::pct(r.logic_recall),
                format::pct(t.logic_precision),
                format::pct(t.logic_f1),
                format::pct(t.logic_order)
            ),
            false,
        ),
        ("Tokens", tokens, false),
        (
            "Latency",
            t.latency_ms
                .map(format::ms)
                .unwrap_or_else(|| format::NONE.into()),
            false,
        ),
    ];
    view! {
        <li class="eb-turn" class:eb-turn--selected=selected class:eb-turn--wrong=!r.correct
            id=format!("eb-turn-{}", r.turn_idx) data-turn=r.turn_idx>
            <div class="eb-turn__head">
                <span class="eb-turn__idx">{format!("Turn {}", r.turn_idx)}</span>
                <Verdict ok=Some(r.correct)/>
                {r.disagrees.then(|| view! { <span class="eb-badge eb-badge--warn">"differs from original"</span> })}
            </div>
            <p class="eb-turn__q">{r.question.clone()}</p>
            <div class="eb-answers">
                <div class="eb-answer"><span class="eb-answer__label">"Expected"</span><span class="eb-answer__value eb-mono">{opt_text(Some(r.expected.clone()))}</span></div>
                <div class="eb-answer" class:eb-answer--bad=!r.correct><span class="eb-answer__label">"Predicted"</span><span class="eb-answer__value eb-mono">{opt_text(Some(r.predicted.clone()))}</span></div>
            </div>
            {r.reason.clone().map(|why| view! { <p class="eb-turn__why">{why}</p> })}
            <div class="eb-verdicts">
                {verdicts.into_iter().map(|(k, v)| view! {
                    <span class="eb-chip eb-chip--wide" class:eb-chip--ok=v class:eb-chip--bad=!v>{k}</span>
                }).collect_view()}
            </div>
            {(!compare.is_empty()).then(|| view! {
                <table class="eb-table eb-table--compact eb-compare" class:eb-compare--diff=any_diff>
                    <caption class="eb-table__caption">"As originally scored vs re-scored"</caption>
                    <thead><tr><th scope="col">"Verdict"</th><th scope="col">"As originally scored"</th><th scope="col">"Re-scored"</th></tr></thead>
                    <tbody>
                        {compare.into_iter().map(|(k, o, n)| {
                            let diff = o != Some(n);
                            view! {
                                <tr class:eb-compare__diff=diff>
                                    <th scope="row">{k}{diff.then(|| view! { <span class="eb-badge eb-badge--warn">"differs"</span> })}</th>
                                    <td><Verdict ok=o/></td>
                                    <td><Verdict ok=Some(n)/></td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            })}
            <dl class="eb-kv">
                {kv.into_iter().map(|(k, v, mono)| view! { <div><dt>{k}</dt><dd class:eb-mono=mono>{v}</dd></div> }).collect_view()}
                {r.error_type.clone().map(|e| view! {
                    <div class="eb-kv__error"><dt>"Error"</dt><dd><span class="eb-mono">{e}</span>{t.error_message.clone().map(|m| view! { <span class="eb-kv__msg">{format!(": {m}")}</span> })}</dd></div>
                })}
            </dl>
            {work_section(t.work)}
        </li>
    }
}

/// What the trace holds of the model's work on the turn: its plan step by step, the tool calls
/// and their outcome and latency, the LLM calls, the validator's verdicts, the call counts.
/// Nothing when the source recorded none of it. The tables share one renderer (`work_table`),
/// so the page's wasm carries one table's code, not three.
fn work_section(w: TurnWork) -> impl IntoView {
    if w.is_empty() {
        return None;
    }
    let none = || format::NONE.to_string();
    let or_none = |v: Option<String>| v.unwrap_or_else(none);
    let ms = |v: Option<f64>| v.map(format::ms).unwrap_or_else(none);
    let plan = w.plan;
    let plan_title = match (&w.plan_type, &w.plan_complexity) {
        (Some(t), Some(c)) => format!("Plan ({} steps, {t}, complexity {c})", plan.len()),
        (Some(t), None) => format!("Plan ({} steps, {t})", plan.len()),
        _ => format!("Plan ({} steps)", plan.len()),
    };
    let calls: Vec<(bool, Vec<String>)> = w
        .tool_calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let failed = c
                .success
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("false"));
            let result = match (c.result, c.error) {
                (r, Some(e)) => format!(
                    "{}error: {e}",
                    r.map(|r| format!("{r} · ")).unwrap_or_default()
                ),
                (Some(r), None) => r,
                (None, None) => none(),
            };
            (
                failed,
                vec![
                    (i + 1).to_string(),
                    c.tool,
                    or_none(c.params),
                    result,
                    or_none(c.success),
                    ms(c.latency_ms),
                ],
            )
        })
        .collect();
    let llm: Vec<(bool, Vec<String>)> = w
        .llm_calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            (
                false,
                vec![
                    (i + 1).to_string(),
                    or_none(c.purpose),
                    or_none(c.model),
                    format::opt_int(c.prompt_tokens),
                    format::opt_int(c.completion_tokens),
                    format::opt_int(c.total_tokens),
                    ms(c.latency_ms),
                ],
            )
        })
        .collect();
    let validator: Vec<(bool, Vec<String>)> = w
        .validator
        .into_iter()
        .map(|v| {
            let invalid = v
                .valid
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("false"));
            (
                invalid,
                vec![
                    or_none(v.retry),
                    or_none(v.valid),
                    or_none(v.confidence),
                    v.failed_steps.join(", "),
                    v.issues.join(" · "),
                ],
            )
        })
        .collect();
    Some(view! {
        <details class="eb-work" open=true>
            <summary>"The model's work"</summary>
            {(!plan.is_empty()).then(|| view! {
                <h4 class="eb-work__title">{plan_title}</h4>
                <ol class="eb-work__plan eb-mono">
                    {plan.into_iter().map(|st| view! { <li>{st}</li> }).collect_view()}
                </ol>
            })}
            {work_table("Tool calls", &["#", "Tool", "Params", "Result", "Succeeded", "Latency"], calls)}
            {work_table("LLM calls", &["#", "Purpose", "Model", "Tokens in", "Tokens out", "Total", "Latency"], llm)}
            {work_table("Validator verdicts", &["Retry", "Valid", "Confidence", "Failed steps", "Issues"], validator)}
        </details>
    })
}

/// One table of the model's work: a caption with the row count, header cells, rows of text
/// (a flagged row is a failed call or an invalid verdict). Nothing for no rows.
fn work_table(
    caption: &'static str,
    heads: &'static [&'static str],
    rows: Vec<(bool, Vec<String>)>,
) -> Option<impl IntoView> {
    (!rows.is_empty()).then(|| {
        view! {
            <table class="eb-table eb-table--compact" data-table=caption>
                <caption class="eb-table__caption">{format!("{caption} ({})", rows.len())}</caption>
                <thead><tr>{heads.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}</tr></thead>
                <tbody>
                    {rows.into_iter().map(|(flag, cells)| view! {
                        <tr class:eb-work__failed=flag>
                            {cells.into_iter().map(|c| view! { <td class="eb-work__text">{c}</td> }).collect_view()}
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        }
    })
}
