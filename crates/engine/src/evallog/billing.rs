//! What a log's samples cost under the price table ([`crate::prices`]): each sample's tokens
//! read into price classes the way its tool counts them ([`split`]), priced by the model that
//! spent them ([`model_key`]), and summed over the run ([`Billing`]). A cost the tool recorded
//! (`Sample::cost`) is kept beside, never replaced.
//!
//! How each tool counts (docs/formats.md § Tokens and cost):
//! - **Inspect AI** (`model_usage[eval.model]`): `input_tokens` is the uncached input — Inspect
//!   subtracts the cache from it for every provider since 0.3.184 (OpenAI's `prompt_tokens` −
//!   `cached_tokens`; Anthropic's `input_tokens` never held it) — and `output_tokens` holds the
//!   reasoning tokens (OpenAI's `completion_tokens`, Anthropic's `output_tokens`). Where the
//!   sample's `total_tokens` shows otherwise it decides: a total of `input + output` with cache
//!   counts beside means the input holds the cache (older OpenAI logs), a total that also adds
//!   `reasoning_tokens` means the reasoning was counted apart (Google's thoughts).
//! - **promptfoo** (`tokenUsage`): `prompt` holds the provider's cache reads and writes
//!   (`completionDetails.cacheReadInputTokens` / `cacheCreationInputTokens`, written by its
//!   OpenAI-compatible usage from `prompt_tokens`), so they are taken out of it — unless `prompt`
//!   is smaller than they are, when it cannot hold them; `completion` holds
//!   `completionDetails.reasoning`. `cached` counts a response promptfoo replayed from its own
//!   cache: no request was made, it is billed nothing.
//! - **OpenAI Evals** (`sampling.data.usage`, summed over the sample's sampling events):
//!   `prompt_tokens` holds `prompt_tokens_details.cached_tokens`, `completion_tokens` holds
//!   `completion_tokens_details.reasoning_tokens` (OpenAI's usage).
//! - **HELM** (`num_prompt_tokens`, `num_output_tokens`): input and output, nothing cached.
//! - **lm-evaluation-harness** records no tokens.
//! - **evalboard's run rows** (a lake's `samples`): `input_tokens` holds the cache reads and
//!   writes, `output_tokens` the reasoning; a sample keeps the `cost_usd` it was exported with.
//!
//! A sample that records only a total is priced all as input (as numeric QA prices a turn).

use std::borrow::Cow;

use super::model::{EvalLogRun, Sample, Tokens, Tool};
use crate::prices::{ModelPrice, PriceTable, TokenSplit};

/// The model name a sample's tokens are priced by when the log names none.
pub const UNKNOWN_MODEL: &str = "unknown";

/// One sample's bill.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SampleBill {
    /// Its tokens by price class; `None` when it records no tokens.
    pub split: Option<TokenSplit>,
    /// Dollars under the price table; `None` when it records no tokens or its model has no price.
    pub cost: Option<f64>,
}

/// A log's samples billed under a price table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Billing {
    /// One per sample of the run, in its order.
    pub samples: Vec<SampleBill>,
    /// Tokens by class over the samples that record any.
    pub tokens: TokenSplit,
    /// Samples that record tokens.
    pub n_with_tokens: u64,
    /// Of those, samples whose model has a price, and samples whose model has none.
    pub n_priced: u64,
    pub n_unpriced: u64,
    /// Dollars over every sample with tokens; `None` when none records tokens or any of them is
    /// unpriced (a sum over part of the run is not the run's cost).
    pub cost: Option<f64>,
    /// The models of the unpriced samples, each once, in the order they first appear: the names
    /// the price table needs (the dashboard's "Add unpriced models").
    pub unpriced_models: Vec<String>,
    /// The price applied to each model priced, in the order they first appear.
    pub prices: Vec<(String, ModelPrice)>,
    /// Whether any sample records a cache count (read or write): without one, the log says
    /// nothing of caching and there is no cache-hit ratio.
    pub records_cache: bool,
}

impl Billing {
    /// Cache reads ÷ (cache reads + uncached input) over the samples
    /// ([`TokenSplit::cache_hit_ratio`]); `None` when the log records no cache count.
    pub fn cache_hit_ratio(&self) -> Option<f64> {
        self.tokens.cache_hit_ratio().filter(|_| self.records_cache)
    }

    /// The run's cost over its correct items; `None` without a cost or without a correct item.
    pub fn cost_per_correct(&self, correct: usize) -> Option<f64> {
        self.cost
            .filter(|_| correct > 0)
            .map(|c| c / correct as f64)
    }
}

/// The name the table prices `sample`'s tokens by: for promptfoo the row's provider (its label,
/// else its id, as the run's model lists it), else the run's model; [`UNKNOWN_MODEL`] when the
/// log names none.
pub fn model_key<'a>(run: &'a EvalLogRun, sample: &Sample) -> Cow<'a, str> {
    let own = match run.tool {
        Tool::Promptfoo => sample
            .metadata
            .get("provider")
            .and_then(|p| provider_name(p))
            .map(Cow::Owned),
        _ => None,
    };
    own.or_else(|| run.model.as_deref().map(Cow::Borrowed))
        .unwrap_or(Cow::Borrowed(UNKNOWN_MODEL))
}

/// A promptfoo provider (kept as compact JSON): its label when not empty, else its id; a bare
/// string is its id.
fn provider_name(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let text = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.is_empty())
    };
    match &v {
        serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => text("label").or_else(|| text("id")).map(str::to_string),
    }
}

/// `t`'s counts as price classes, the way `tool` counts them (the module's list); `None` when it
/// records no tokens.
pub fn split(tool: Tool, t: &Tokens) -> Option<TokenSplit> {
    let n = |x: Option<u64>| x.unwrap_or(0);
    let counted = [t.input, t.output, t.cache_read, t.cache_write, t.reasoning];
    if counted.iter().all(Option::is_none) {
        // A total alone is priced as input; a replayed response alone costs nothing.
        return match (t.total, t.replayed) {
            (Some(total), None) => Some(TokenSplit {
                uncached_input: total,
                ..TokenSplit::default()
            }),
            (_, Some(_)) => Some(TokenSplit::default()),
            (None, None) => None,
        };
    }
    let (input, output, reasoning) = (n(t.input), n(t.output), n(t.reasoning));
    let (cache_read, cache_write) = (n(t.cache_read), n(t.cache_write));
    let cache = cache_read.saturating_add(cache_write);
    let (input_holds_cache, reasoning_apart) = match tool {
        Tool::InspectAi => inspect_convention(t),
        // OpenAI usage: prompt_tokens holds the cached tokens, completion_tokens the reasoning.
        Tool::Promptfoo | Tool::OpenaiEvals => (input >= cache, false),
        // evalboard's rows (a lake's `samples`): all input, the output with its reasoning.
        Tool::LmEvaluationHarness | Tool::Helm | Tool::Evalboard => (false, false),
    };
    let output = if reasoning_apart {
        output.saturating_add(reasoning)
    } else {
        output
    };
    Some(TokenSplit {
        uncached_input: if input_holds_cache {
            input.saturating_sub(cache)
        } else {
            input
        },
        cache_read,
        cache_write,
        output,
        reasoning: reasoning.min(output),
    })
}

/// Inspect's `(input_tokens holds the cache, reasoning_tokens is counted apart from
/// output_tokens)`: what the sample's `total_tokens` adds up to, tried in this order — input +
/// cache + output (Inspect's own rule), input + output (the cache inside the input), input +
/// cache + output + reasoning, input + output + reasoning; none of them (or no total): Inspect's
/// own rule.
fn inspect_convention(t: &Tokens) -> (bool, bool) {
    let n = |x: Option<u64>| x.unwrap_or(0);
    let Some(total) = t.total else {
        return (false, false);
    };
    let cache = n(t.cache_read).saturating_add(n(t.cache_write));
    let io = n(t.input).saturating_add(n(t.output));
    let r = n(t.reasoning);
    [(false, false), (true, false), (false, true), (true, true)]
        .into_iter()
        .find(|(holds, apart)| {
            let sum = io
                .saturating_add(if *holds { 0 } else { cache })
                .saturating_add(if *apart { r } else { 0 });
            sum == total
        })
        .unwrap_or((false, false))
}

/// Bills every sample of `run` under `prices`.
pub fn bill(run: &EvalLogRun, prices: &PriceTable) -> Billing {
    let mut b = Billing {
        samples: Vec::with_capacity(run.samples.len()),
        ..Billing::default()
    };
    let mut sum = 0.0;
    for s in &run.samples {
        let Some(split) = split(run.tool, &s.tokens) else {
            b.samples.push(SampleBill::default());
            continue;
        };
        b.n_with_tokens += 1;
        b.tokens.add(&split);
        b.records_cache |= s.tokens.cache_read.is_some() || s.tokens.cache_write.is_some();
        let model = model_key(run, s);
        let cost = match prices.get(&model) {
            // evalboard's rows keep the cost the sample was exported with: their input count
            // holds its cache reads and writes, which the price table would bill as input.
            _ if run.tool == Tool::Evalboard && s.cost.is_some() => {
                b.n_priced += 1;
                let c = s.cost.unwrap_or(0.0);
                sum += c;
                Some(c)
            }
            Some(p) => {
                b.n_priced += 1;
                if !b.prices.iter().any(|(m, _)| *m == model) {
                    b.prices.push((model.to_string(), p.clone()));
                }
                let c = p.bill(&split);
                sum += c;
                Some(c)
            }
            None => {
                b.n_unpriced += 1;
                if !b.unpriced_models.iter().any(|m| *m == model) {
                    b.unpriced_models.push(model.into_owned());
                }
                None
            }
        };
        b.samples.push(SampleBill {
            split: Some(split),
            cost,
        });
    }
    b.cost = (b.n_with_tokens > 0 && b.n_unpriced == 0).then_some(sum);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(
        input: Option<u64>,
        output: Option<u64>,
        total: Option<u64>,
        cache: (Option<u64>, Option<u64>),
        reasoning: Option<u64>,
    ) -> Tokens {
        Tokens {
            input,
            output,
            total,
            reasoning,
            cache_read: cache.0,
            cache_write: cache.1,
            replayed: None,
        }
    }

    fn s(u: u64, r: u64, w: u64, o: u64, reasoning: u64) -> Option<TokenSplit> {
        Some(TokenSplit::new(u, r, w, o, reasoning))
    }

    #[test]
    fn inspect_reads_its_total() {
        let t = |i, o, total, r, w, reasoning| {
            split(
                Tool::InspectAi,
                &tokens(Some(i), Some(o), total, (r, w), reasoning),
            )
        };
        // Anthropic (and every provider since 0.3.184): the input leaves the cache out.
        assert_eq!(
            t(100, 50, Some(1150), Some(800), Some(200), None),
            s(100, 800, 200, 50, 0)
        );
        // OpenAI before 0.3.184: input_tokens = prompt_tokens, cache inside; total = in + out.
        assert_eq!(
            t(1000, 50, Some(1050), Some(800), None, Some(20)),
            s(200, 800, 0, 50, 20)
        );
        // Google's thoughts counted apart from the output: in the total.
        assert_eq!(
            t(100, 50, Some(180), None, None, Some(30)),
            s(100, 0, 0, 80, 30)
        );
        // No total, or one that adds up to nothing: Inspect's own rule.
        assert_eq!(
            t(100, 50, None, Some(800), None, Some(20)),
            s(100, 800, 0, 50, 20)
        );
        assert_eq!(
            t(100, 50, Some(7), Some(800), None, None),
            s(100, 800, 0, 50, 0)
        );
    }

    #[test]
    fn openai_usage_holds_the_cache_in_the_prompt() {
        let u = tokens(
            Some(1000),
            Some(300),
            Some(1300),
            (Some(600), None),
            Some(200),
        );
        assert_eq!(split(Tool::OpenaiEvals, &u), s(400, 600, 0, 300, 200));
        assert_eq!(split(Tool::Promptfoo, &u), s(400, 600, 0, 300, 200));
        // A prompt smaller than the cache counts cannot hold them.
        let small = tokens(Some(10), Some(3), None, (Some(600), Some(5)), None);
        assert_eq!(split(Tool::Promptfoo, &small), s(10, 600, 5, 3, 0));
    }

    #[test]
    fn a_total_alone_is_input_and_a_replayed_response_costs_nothing() {
        let total = tokens(None, None, Some(42), (None, None), None);
        assert_eq!(split(Tool::Helm, &total), s(42, 0, 0, 0, 0));
        let replayed = Tokens {
            replayed: Some(42),
            ..total
        };
        assert_eq!(split(Tool::Promptfoo, &replayed), s(0, 0, 0, 0, 0));
        assert_eq!(split(Tool::Helm, &Tokens::default()), None);
    }

    #[test]
    fn promptfoo_providers_name_their_rows() {
        assert_eq!(
            provider_name(r#"{"id":"openai:gpt-5","label":""}"#).as_deref(),
            Some("openai:gpt-5")
        );
        assert_eq!(
            provider_name(r#"{"id":"file://p.js","label":"toy"}"#).as_deref(),
            Some("toy")
        );
        assert_eq!(
            provider_name(r#""openai:o3""#).as_deref(),
            Some("openai:o3")
        );
        assert_eq!(provider_name("{}"), None);
    }
}
