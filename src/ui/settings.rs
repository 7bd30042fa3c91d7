//! Settings: scoring profile, answer tolerances and the price table; for eval sets the headline
//! scorer and the pass threshold. Edits are validated as you type and sent to the worker
//! (Configure) after a short pause or on change; every run is re-scored and
//! every view updates. Settings are remembered in this browser.
//! Settings: scoring profile, answer tolerances and the price table, and for code-generation
//! runs their profile, recovery attempts and overall-score weights. Edits are validated as you
//! type and sent to the worker (Configure) after a short pause; every run is re-scored and every
//! view updates. Settings are remembered in this browser.

use std::time::Duration;

use leptos::prelude::*;

use evalboard_engine::codegen::{self, Weights};
use evalboard_engine::evallog::rescore::RescoreKind;
use evalboard_engine::evalset::AnswerScorer;
use evalboard_engine::evalset::ScoringOptions;
use evalboard_engine::numeric_qa::score::Profile;
use evalboard_engine::prices::{ModelPrice, PriceTable};
use evalboard_engine::run::Settings;

use evalboard_engine::family::Family;

use crate::ui::browser;
use crate::ui::store::use_store;

#[derive(Debug, Clone, PartialEq, Default)]
struct PriceRow {
    id: u32,
    model: String,
    input: String,
    output: String,
    /// Cache reads and writes: empty for the input price.
    cache_read: String,
    cache_write: String,
}

#[derive(Debug, Clone, PartialEq)]
struct Draft {
    profile: Profile,
    rel: String,
    abs: String,
    prices: Vec<PriceRow>,
    next_id: u32,
    /// Code-generation runs: profile, max recovery attempts, weights in `Weights` order.
    cg_profile: codegen::Profile,
    cg_attempts: String,
    cg_weights: [String; 6],
}

/// A field of [`Weights`].
type WeightField = fn(&mut Weights) -> &mut f64;

/// The overall-score weights: label and field, in the order the score sums them.
const WEIGHTS: [(&str, WeightField); 6] = [
    ("Correctness", |w| &mut w.correctness),
    ("Quality", |w| &mut w.quality),
    ("Performance", |w| &mut w.performance),
    ("Prompt understanding", |w| &mut w.understanding),
    ("Requirement coverage", |w| &mut w.coverage),
    ("Error recovery", |w| &mut w.recovery),
];

fn num_text(x: f64) -> String {
    crate::ui::browser::number_text(x)
}

impl Draft {
    fn from_config(s: &Settings) -> Draft {
        let c = &s.numeric_qa;
        let prices: Vec<PriceRow> = c
            .prices
            .models
            .iter()
            .enumerate()
            .map(|(i, (m, p))| PriceRow {
                id: i as u32,
                model: m.clone(),
                input: num_text(p.input_per_mtok),
                output: num_text(p.output_per_mtok),
                cache_read: p.cache_read_per_mtok.map(num_text).unwrap_or_default(),
                cache_write: p.cache_write_per_mtok.map(num_text).unwrap_or_default(),
            })
            .collect();
        let mut w = s.codegen.weights;
        Draft {
            profile: c.profile,
            rel: num_text(c.tolerances.rel),
            abs: num_text(c.tolerances.abs),
            next_id: prices.len() as u32,
            prices,
            cg_profile: s.codegen.profile,
            cg_attempts: s.codegen.max_recovery_attempts.to_string(),
            cg_weights: WEIGHTS.map(|(_, f)| num_text(*f(&mut w))),
        }
    }

    /// The config this draft describes, or the problems that stop it.
    fn to_config(&self, base: &Settings) -> Result<Settings, Vec<String>> {
        let mut errs = Vec::new();
        let num = |s: &str, what: &str, errs: &mut Vec<String>| -> f64 {
            match browser::parse_number(s.trim()) {
                Some(v) if v.is_finite() && v >= 0.0 => v,
                _ => {
                    errs.push(format!("{what} must be a number ≥ 0 (got “{}”)", s.trim()));
                    0.0
                }
            }
        };
        let mut settings = base.clone();
        let cfg = &mut settings.numeric_qa;
        cfg.profile = self.profile;
        cfg.tolerances.rel = num(&self.rel, "Relative tolerance", &mut errs);
        cfg.tolerances.abs = num(&self.abs, "Absolute tolerance", &mut errs);
        let mut models: Vec<(String, ModelPrice)> = Vec::new();
        for r in &self.prices {
            let m = r.model.trim();
            let texts = [&r.input, &r.output, &r.cache_read, &r.cache_write];
            if m.is_empty() && texts.iter().all(|t| t.trim().is_empty()) {
                continue; // a blank row being filled in
            }
            if m.is_empty() {
                errs.push("Every price needs a model name".into());
                continue;
            }
            let i = num(&r.input, &format!("Input price of {m}"), &mut errs);
            let o = num(&r.output, &format!("Output price of {m}"), &mut errs);
            let mut optional = |text: &str, what: &str| {
                (!text.trim().is_empty()).then(|| num(text, &format!("{what} of {m}"), &mut errs))
            };
            let cache_read = optional(&r.cache_read, "Cache-read price");
            let cache_write = optional(&r.cache_write, "Cache-write price");
            if models.iter().any(|(x, _)| x == m) {
                errs.push(format!("{m} is listed twice"));
                continue;
            }
            models.push((
                m.to_string(),
                ModelPrice {
                    input_per_mtok: i,
                    output_per_mtok: o,
                    cache_read_per_mtok: cache_read,
                    cache_write_per_mtok: cache_write,
                    ..ModelPrice::default()
                },
            ));
        }
        cfg.prices = PriceTable { models };
        let cg = &mut settings.codegen;
        cg.profile = self.cg_profile;
        match self.cg_attempts.trim().parse::<u32>() {
            Ok(n) if n <= 10 => cg.max_recovery_attempts = n,
            _ => errs.push(format!(
                "Max recovery attempts must be a whole number from 0 to 10 (got “{}”)",
                self.cg_attempts.trim()
            )),
        }
        for ((label, field), text) in WEIGHTS.iter().zip(&self.cg_weights) {
            *field(&mut cg.weights) = num(text, &format!("Weight of {label}"), &mut errs);
        }
        if errs.is_empty() {
            Ok(settings)
        } else {
            Err(errs)
        }
    }
}

#[component]
pub fn SettingsView() -> impl IntoView {
    let store = use_store();
    let draft = RwSignal::new(Draft::from_config(&store.settings.get_untracked()));
    let check = Memo::new(move |_| draft.with(|d| d.to_config(&store.settings.get_untracked())));
    let timer: StoredValue<Option<TimeoutHandle>> = StoredValue::new(None);
    // Apply valid edits after a pause.
    Effect::new(move |_| {
        let Ok(cfg) = check.get() else { return };
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(
            move || {
                // The draft holds the numeric QA and code-generation settings; the eval-set
                // and eval-log ones (set apart, below) are whatever they are now.
                let now = store.settings.get_untracked();
                let next = Settings {
                    evalset: now.evalset.clone(),
                    evallog: now.evallog,
                    ..cfg
                };
                if now != next {
                    store.configure(next);
                }
            },
            Duration::from_millis(300),
        )
        .ok();
        timer.set_value(h);
    });
    // The current run's unpriced models, by the exact name the run records (an eval log's
    // model key, a numeric QA conversation's model), as the worker lists them.
    let unpriced = Memo::new(move |_| {
        let name = store.route.with(|r| r.run.clone());
        store.runs.with(|rs| {
            rs.iter()
                .find(|r| Some(&r.name) == name.as_ref())
                .and_then(|r| r.info())
                .map(|i| i.unpriced_models.clone())
                .unwrap_or_default()
        })
    });
    let edit = move |f: Box<dyn FnOnce(&mut Draft)>| draft.update(|d| f(d));
    let profile_radio = move |p: Profile, label: &'static str, hint: &'static str| {
        view! {
            <label class="eb-radio">
                <input type="radio" name="eb-profile" value=p.name()
                    prop:checked=move || draft.with(|d| d.profile == p)
                    on:change=move |_| edit(Box::new(move |d| d.profile = p))/>
                <span class="eb-radio__label">{label}</span>
                <span class="eb-radio__hint">{hint}</span>
            </label>
        }
    };
    let has_codegen = Memo::new(move |_| {
        store.runs.with(|rs| {
            rs.iter()
                .any(|r| r.info().is_some_and(|i| i.family == Family::Codegen))
        })
    });
    let cg_radio = move |p: codegen::Profile, hint: &'static str| {
        view! {
            <label class="eb-radio">
                <input type="radio" name="eb-cg-profile" value=p.name()
                    prop:checked=move || draft.with(|d| d.cg_profile == p)
                    on:change=move |_| edit(Box::new(move |d| d.cg_profile = p))/>
                <span class="eb-radio__label">{p.name()}</span>
                <span class="eb-radio__hint">{hint}</span>
            </label>
        }
    };
    let weight_sum = move || {
        draft.with(|d| {
            d.cg_weights
                .iter()
                .map(|w| browser::parse_number(w.trim()).unwrap_or(0.0))
                .sum::<f64>()
        })
    };
    view! {
        <div class="eb-settings">
            <Show when=move || has_codegen.get()>
                <section class="eb-section" aria-labelledby="eb-cg-title" data-section="codegen-settings">
                    <h2 class="eb-section__title" id="eb-cg-title">"Code-generation runs"</h2>
                    <p class="eb-section__hint">"Re-scores trace messages; metrics.json entries keep their original scores (only their summary follows the profile)."</p>
                    <div class="eb-radios" role="radiogroup" aria-labelledby="eb-cg-title">
                        {cg_radio(codegen::Profile::DocV1, "The seed document's definitions (default).")}
                        {cg_radio(codegen::Profile::Ise547, "Exactly what the ISE547 code computes.")}
                    </div>
                    <div class="eb-form-row">
                        <label class="eb-field">
                            <span class="eb-field__label">"Max recovery attempts"</span>
                            <input class="eb-input eb-input--num" type="text" inputmode="numeric" name="cg-attempts"
                                prop:value=move || draft.with(|d| d.cg_attempts.clone())
                                on:input=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |d| d.cg_attempts = v)) }/>
                        </label>
                        {WEIGHTS.iter().enumerate().map(|(i, (label, _))| view! {
                            <label class="eb-field">
                                <span class="eb-field__label">{format!("Weight: {label}")}</span>
                                <input class="eb-input eb-input--num" type="text" inputmode="decimal" name=format!("cg-weight-{i}")
                                    prop:value=move || draft.with(|d| d.cg_weights[i].clone())
                                    on:input=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |d| d.cg_weights[i] = v)) }/>
                            </label>
                        }).collect_view()}
                    </div>
                    <p class="eb-muted">{move || format!("The weights sum to {:.3} (the seed's sum to 1).", weight_sum())}</p>
                </section>
            </Show>
            <section class="eb-section" aria-labelledby="eb-profile-title">
                <h2 class="eb-section__title" id="eb-profile-title">"Scoring profile"</h2>
                <div class="eb-radios" role="radiogroup" aria-labelledby="eb-profile-title">
                    {profile_radio(Profile::Doc, "doc", "The seed documents' definitions (default).")}
                    {profile_radio(Profile::Fa2, "financial-agent-2", "Exactly what the financial-agent-2 code computes.")}
                </div>
            </section>
            <section class="eb-section" aria-labelledby="eb-tol-title">
                <h2 class="eb-section__title" id="eb-tol-title">"Tolerances"</h2>
                <p class="eb-section__hint">"A numerical answer is correct when |predicted − expected| ≤ rel × |expected|, or < abs."</p>
                <div class="eb-form-row">
                    <label class="eb-field">
                        <span class="eb-field__label">"Relative (rel)"</span>
                        <input class="eb-input eb-input--num" type="text" inputmode="decimal" name="rel"
                            prop:value=move || draft.with(|d| d.rel.clone())
                            on:input=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |d| d.rel = v)) }/>
                    </label>
                    <label class="eb-field">
                        <span class="eb-field__label">"Absolute (abs)"</span>
                        <input class="eb-input eb-input--num" type="text" inputmode="decimal" name="abs"
                            prop:value=move || draft.with(|d| d.abs.clone())
                            on:input=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |d| d.abs = v)) }/>
                    </label>
                </div>
            </section>
            <section class="eb-section" aria-labelledby="eb-prices-title">
                <h2 class="eb-section__title" id="eb-prices-title">"Prices"</h2>
                <p class="eb-section__hint">"US dollars per 1M tokens, by model name as the run records it. Needed for cost in $. Cache reads and writes left empty are billed at the input price; reasoning is billed as output."</p>
                <table class="eb-table eb-table--form" data-table="prices">
                    <thead><tr>
                        <th scope="col">"Model"</th>
                        <th scope="col">"$ in / 1M"</th>
                        <th scope="col">"$ out / 1M"</th>
                        <th scope="col">"$ cache read / 1M"</th>
                        <th scope="col">"$ cache write / 1M"</th>
                        <th scope="col"><span class="eb-visually-hidden">"Remove"</span></th>
                    </tr></thead>
                    <tbody>
                        <Show when=move || draft.with(|d| d.prices.is_empty())>
                            <tr><td colspan="6" class="eb-muted">"No prices: costs are shown in tokens only."</td></tr>
                        </Show>
                        <For each=move || draft.with(|d| d.prices.iter().map(|r| r.id).collect::<Vec<_>>()) key=|id| *id let:id>
                            {
                                let field = move |get: fn(&PriceRow) -> String| move || draft.with(|d| d.prices.iter().find(|r| r.id == id).map(get).unwrap_or_default());
                                let set = move |put: fn(&mut PriceRow, String), v: String| edit(Box::new(move |d| {
                                    if let Some(r) = d.prices.iter_mut().find(|r| r.id == id) { put(r, v) }
                                }));
                                view! {
                                    <tr>
                                        <td><input class="eb-input" aria-label="Model" prop:value=field(|r| r.model.clone())
                                            on:input=move |ev| set(|r, v| r.model = v, event_target_value(&ev))/></td>
                                        <td><input class="eb-input eb-input--num" inputmode="decimal" aria-label="Input price per 1M tokens" prop:value=field(|r| r.input.clone())
                                            on:input=move |ev| set(|r, v| r.input = v, event_target_value(&ev))/></td>
                                        <td><input class="eb-input eb-input--num" inputmode="decimal" aria-label="Output price per 1M tokens" prop:value=field(|r| r.output.clone())
                                            on:input=move |ev| set(|r, v| r.output = v, event_target_value(&ev))/></td>
                                        <td><input class="eb-input eb-input--num" inputmode="decimal" aria-label="Cache-read price per 1M tokens" prop:value=field(|r| r.cache_read.clone())
                                            on:input=move |ev| set(|r, v| r.cache_read = v, event_target_value(&ev))/></td>
                                        <td><input class="eb-input eb-input--num" inputmode="decimal" aria-label="Cache-write price per 1M tokens" prop:value=field(|r| r.cache_write.clone())
                                            on:input=move |ev| set(|r, v| r.cache_write = v, event_target_value(&ev))/></td>
                                        <td><button type="button" class="eb-icon-btn eb-icon-btn--danger" aria-label="Remove this price"
                                            on:click=move |_| edit(Box::new(move |d| d.prices.retain(|r| r.id != id)))>"×"</button></td>
                                    </tr>
                                }
                            }
                        </For>
                    </tbody>
                </table>
                <div class="eb-form-row">
                    <button type="button" class="eb-btn eb-btn--small" on:click=move |_| edit(Box::new(|d| {
                        d.prices.push(PriceRow { id: d.next_id, ..PriceRow::default() });
                        d.next_id += 1;
                    }))>"Add a price"</button>
                    <Show when=move || unpriced.with(|u| !u.is_empty())>
                        <button type="button" class="eb-btn eb-btn--small" on:click=move |_| {
                            let models = unpriced.get_untracked();
                            edit(Box::new(move |d| for m in models {
                                if !d.prices.iter().any(|r| r.model == m) {
                                    d.prices.push(PriceRow { id: d.next_id, model: m, ..PriceRow::default() });
                                    d.next_id += 1;
                                }
                            }))
                        }>{move || format!("Add unpriced models ({})", unpriced.with(|u| u.join(", ")))}</button>
                    </Show>
                </div>
            </section>
            <EvalsetSettings/>
            <EvalLogSettings/>
            <div class="eb-settings__foot">
                {move || match check.get() {
                    Ok(_) => view! { <p class="eb-muted" role="status">"Settings apply to every run as you type."</p> }.into_any(),
                    Err(errs) => view! {
                        <ul class="eb-callout eb-callout--error" role="alert">
                            {errs.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}
                        </ul>
                    }.into_any(),
                }}
                <button type="button" class="eb-btn eb-btn--small" on:click=move |_| {
                    let d = Settings::default();
                    draft.set(Draft::from_config(&d));
                }>"Reset to defaults"</button>
            </div>
        </div>
    }
}

/// The eval-set family: the headline scorer and the verdict's pass threshold (0–1).
/// Every eval-set run is re-scored on change; a threshold that is not a number in 0–1 is
/// refused with a notice.
#[component]
fn EvalsetSettings() -> impl IntoView {
    let store = use_store();
    let apply = move |scorer: Option<String>, threshold: Option<String>| {
        let cur = store.settings.get_untracked();
        let (cur_scorer, cur_t) = (cur.evalset.scorer, cur.evalset.pass_threshold);
        let scorer = scorer
            .and_then(|s| AnswerScorer::from_id(&s))
            .unwrap_or(cur_scorer);
        let t = match threshold.map(|t| browser::parse_number(t.trim())) {
            None => cur_t,
            Some(Some(v)) if (0.0..=1.0).contains(&v) => v,
            Some(_) => {
                store.notify("The pass threshold must be a number from 0 to 1.", true);
                return;
            }
        };
        if (scorer, t) != (cur_scorer, cur_t) {
            let mut settings = cur.clone();
            settings.evalset = ScoringOptions {
                scorer,
                pass_threshold: t,
            };
            store.configure(settings);
        }
    };
    let (scorer, threshold) = store
        .settings
        .with_untracked(|s| (s.evalset.scorer, s.evalset.pass_threshold));
    view! {
        <section class="eb-section" data-section="evalset-settings">
            <h2 class="eb-section__title">"Eval sets (answer correctness)"</h2>
            <p class="eb-section__hint">"The headline scorer of eval-set runs (scorecard, verdict, items, Compare): v1 compares the whole prediction, stripped and lower-cased; v1-extract first takes the answer out of it (“Answer: X”, else the last line). A run passes when its primary score reaches the threshold."</p>
            <div class="eb-form-row">
                <label class="eb-field">
                    <span class="eb-field__label">"Headline scorer"</span>
                    <select name="evalset_scorer" on:change=move |ev| apply(Some(event_target_value(&ev)), None)>
                        {[AnswerScorer::V1, AnswerScorer::V1Extract].map(|sc| view! {
                            <option value=sc.id() selected=sc == scorer>{sc.id()}</option>
                        })}
                    </select>
                </label>
                <label class="eb-field">
                    <span class="eb-field__label">"Pass threshold (0–1)"</span>
                    <input class="eb-input eb-input--num" type="text" inputmode="decimal" name="pass_threshold"
                        value=num_text(threshold) on:change=move |ev| apply(None, Some(event_target_value(&ev)))/>
                </label>
            </div>
        </section>
    }
}

/// Evaluation-tool logs: as recorded (the log's own scores), or re-scored by one of the
/// deterministic re-scorers on each sample's output and target; every eval-log run is re-scored
/// on change.
#[component]
fn EvalLogSettings() -> impl IntoView {
    let store = use_store();
    let current = store.settings.with_untracked(|s| s.evallog.scorer);
    let apply = move |id: String| {
        let mut settings = store.settings.get_untracked();
        let scorer = RescoreKind::from_name(&id);
        if settings.evallog.scorer != scorer {
            settings.evallog.scorer = scorer;
            store.configure(settings);
        }
    };
    view! {
        <section class="eb-section" data-section="evallog-settings">
            <h2 class="eb-section__title">"Evaluation-tool logs (Inspect, lm-eval, promptfoo, OpenAI Evals, HELM)"</h2>
            <p class="eb-section__hint">"Items are judged by the log's own headline score, as recorded, or re-scored here from each sample's output and target (model-graded scores cannot be re-scored). The log's scores stay visible as originally scored, and the Overview lists the samples whose verdict flips."</p>
            <label class="eb-field">
                <span class="eb-field__label">"Judge items by"</span>
                <select name="evallog_scorer" on:change=move |ev| apply(event_target_value(&ev))>
                    <option value="" selected=current.is_none()>"the log's own score (as recorded)"</option>
                    {RescoreKind::ALL.map(|k| view! {
                        <option value=k.id() selected=current == Some(k)>{k.id()}</option>
                    })}
                </select>
            </label>
        </section>
    }
}
