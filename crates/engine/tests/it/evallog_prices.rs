//! Eval logs billed under the one price table (`engine::prices`, `engine::evallog::billing`):
//! the logs of `tests/fixtures/evallog/prices/` (written by `make_issue28_prices.py`), one per
//! tool that records usage, each in the usage shapes its tool writes, priced by
//! `prices/prices.json`. Every cost below is computed by hand (USD per 1M tokens: tokens × price
//! ÷ 1,000,000), and must be what the registry gives to the cent (here: within 1e-12 dollars);
//! the golden `prices/expected/billing.txt` holds every sample's split and cost.

use std::fmt::Write;

use evalboard_engine::evallog::{billing, ScoredLog};
use evalboard_engine::family::Family;
use evalboard_engine::prices::{ModelPrice, PriceTable, TokenSplit};
use evalboard_engine::run::{self, ReadOptions, RunRef, ScoredRun, Settings};
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{expect_file, fixture, read_folder};

fn prices() -> PriceTable {
    let path = fixture("evallog/prices/prices.json");
    let bytes = std::fs::read(&path).unwrap();
    let (table, diags) = PriceTable::from_json("prices.json", &bytes).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    table
}

fn with_prices(table: PriceTable) -> Settings {
    let mut s = Settings::default();
    s.numeric_qa.prices = table;
    s
}

fn load(case: &str, settings: &Settings) -> ScoredRun {
    let files: Vec<InputFile> = read_folder(&fixture(&format!("evallog/prices/{case}")))
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let read = run::read_as(
        Family::EvalLog,
        &RunInput::new(case, files),
        None,
        ReadOptions::default(),
    )
    .unwrap();
    run::score(read, settings, 1)
}

fn log(run: &ScoredRun) -> &ScoredLog {
    match run {
        ScoredRun::EvalLog(l) => l,
        _ => panic!("an eval log"),
    }
}

fn close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: no value"));
    assert!((got - want).abs() < 1e-12, "{what}: {got} ≠ {want}");
}

fn split(u: u64, r: u64, w: u64, o: u64, reasoning: u64) -> Option<TokenSplit> {
    Some(TokenSplit::new(u, r, w, o, reasoning))
}

/// Inspect's `model_usage` (claude-sonnet-4: $3 in, $15 out, $0.30 cache read, $3.75 cache
/// write).
#[test]
fn inspect_usage_billed_by_class() {
    let run = load("inspect", &with_prices(prices()));
    let l = log(&run);
    let b = &l.billing;
    let splits: Vec<Option<TokenSplit>> = b.samples.iter().map(|s| s.split).collect();
    assert_eq!(
        splits,
        [
            // input_tokens leaves the cache out (total 25,500 = 1,000 + 20,000 + 4,000 + 500).
            split(1000, 20_000, 4000, 500, 200),
            // total 31,000 = input + output: input_tokens 30,000 holds the 24,000 read.
            split(6000, 24_000, 0, 1000, 0),
            // total 3,000 = 2,000 + 300 + 700: the 700 reasoning tokens are apart, billed as
            // output.
            split(2000, 0, 0, 1000, 700),
            // The model's usage only; the grader's 9,999 + 99 are not billed.
            split(500, 0, 0, 100, 0),
            // Errored, no usage.
            None,
        ]
    );
    let costs: Vec<Option<f64>> = b.samples.iter().map(|s| s.cost).collect();
    // 1,000×3 + 20,000×0.30 + 4,000×3.75 + 500×15 = 3,000 + 6,000 + 15,000 + 7,500 → $0.0315
    close(costs[0], 0.0315, "sample 1");
    // 6,000×3 + 24,000×0.30 + 1,000×15 = 18,000 + 7,200 + 15,000 → $0.0402
    close(costs[1], 0.0402, "sample 2");
    // 2,000×3 + 1,000×15 → $0.021
    close(costs[2], 0.021, "sample 3");
    // 500×3 + 100×15 → $0.003
    close(costs[3], 0.003, "sample 4");
    assert_eq!(costs[4], None);
    close(b.cost, 0.0957, "total");
    // Correct: samples 1, 2 and 4.
    close(l.cost_per_correct(), 0.0319, "per correct");
    // 44,000 read ÷ (44,000 + 9,500 uncached).
    close(b.cache_hit_ratio(), 44_000.0 / 53_500.0, "cache-hit ratio");
    // Inspect's own total_cost (both models of sample 4) stays beside, as recorded.
    close(l.log.run.samples[3].cost, 0.052, "recorded");
    let m = RunRef::EvalLog(l).metrics();
    let value = |k: &str| m.iter().find(|x| x.key == k).and_then(|x| x.value);
    close(value("total_cost_usd"), 0.0957, "metric");
    close(value("cost"), 0.052, "recorded metric");
    close(value("latency_p50"), 1.5, "p50");
    close(value("latency_p95"), 4.0, "p95");
    close(value("latency_max"), 4.0, "max");
    assert_eq!(RunRef::EvalLog(l).facts().cost_usd, Some(b.cost.unwrap()));
}

/// promptfoo's `tokenUsage` (gpt-4.1: $2 in, $8 out, $0.50 cache read, no cache-write price).
#[test]
fn promptfoo_usage_billed_and_unpriced_stays_unpriced() {
    let run = load("promptfoo", &with_prices(prices()));
    let l = log(&run);
    let b = &l.billing;
    let splits: Vec<Option<TokenSplit>> = b.samples.iter().map(|s| s.split).collect();
    // Samples in column order: gpt-4.1's rows 0, 1, 3, then `cheap`'s row 2.
    assert_eq!(
        splits,
        [
            // prompt 2,000 holds the 1,500 cache reads.
            split(500, 1500, 0, 400, 100),
            // Replayed from promptfoo's cache: no request.
            split(0, 0, 0, 0, 0),
            // prompt 3,000 holds 2,000 read and 500 written.
            split(500, 2000, 500, 1000, 0),
            split(1000, 0, 0, 200, 0),
        ]
    );
    let costs: Vec<Option<f64>> = b.samples.iter().map(|s| s.cost).collect();
    // 500×2 + 1,500×0.50 + 400×8 = 1,000 + 750 + 3,200 → $0.00495
    close(costs[0], 0.00495, "row 0");
    close(costs[1], 0.0, "row 1 (replayed)");
    // 500×2 + 2,000×0.50 + 500×2 (the input price) + 1,000×8 → $0.011
    close(costs[2], 0.011, "row 3");
    assert_eq!(costs[3], None, "`cheap` has no price");
    assert_eq!(b.cost, None, "a sample unpriced: no total");
    assert_eq!(l.cost_per_correct(), None);
    assert_eq!(b.unpriced_models, ["cheap"]);
    assert_eq!(
        RunRef::EvalLog(l).unpriced_models_in::<{ run::ALL_FAMILIES }>(),
        ["cheap"]
    );
    close(b.cache_hit_ratio(), 3500.0 / 5500.0, "cache-hit ratio");

    // With a price for `cheap` ($0.40 in, $1.60 out): 1,000×0.40 + 200×1.60 → $0.00072, and
    // the run is priced: 0.00495 + 0 + 0.00072 + 0.011.
    let mut table = prices();
    table
        .models
        .push(("cheap".into(), ModelPrice::new(0.4, 1.6)));
    let mut run = run;
    run.rescore(&with_prices(table));
    let l = log(&run);
    close(l.billing.samples[3].cost, 0.00072, "row 2");
    close(l.billing.cost, 0.01667, "total");
    // Correct: rows 0 and 1 (they pass).
    close(l.cost_per_correct(), 0.01667 / 2.0, "per correct");
    assert!(l.billing.unpriced_models.is_empty());
}

/// OpenAI Evals' `sampling.data.usage` (gpt-4o: $2.50 in, $10 out, $1.25 cache read).
#[test]
fn openai_evals_usage_billed_over_sampling_events() {
    let run = load("openai_evals", &with_prices(prices()));
    let l = log(&run);
    let b = &l.billing;
    let splits: Vec<Option<TokenSplit>> = b.samples.iter().map(|s| s.split).collect();
    assert_eq!(
        splits,
        [
            // Two events: prompt 1,200 + 1,500 holding 1,024 + 1,024 cached; 300 + 200 out
            // holding 128 reasoning.
            split(652, 2048, 0, 500, 128),
            split(800, 0, 0, 100, 0),
            // No usage recorded.
            None,
        ]
    );
    // 652×2.50 + 2,048×1.25 + 500×10 = 1,630 + 2,560 + 5,000 → $0.00919
    close(b.samples[0].cost, 0.00919, "sample 0");
    // 800×2.50 + 100×10 → $0.003
    close(b.samples[1].cost, 0.003, "sample 1");
    close(b.cost, 0.01219, "total");
    // Correct: samples 0 and 2.
    close(l.cost_per_correct(), 0.006095, "per correct");
    close(b.cache_hit_ratio(), 2048.0 / 3500.0, "cache-hit ratio");
}

/// Without a price table nothing is priced (never $0), and every model with tokens is named.
#[test]
fn without_prices_every_model_with_tokens_is_unpriced() {
    for (case, models) in [
        ("inspect", &["anthropic/claude-sonnet-4"][..]),
        ("promptfoo", &["openai:gpt-4.1", "cheap"][..]),
        ("openai_evals", &["gpt-4o"][..]),
    ] {
        let run = load(case, &Settings::default());
        let b = &log(&run).billing;
        assert_eq!(b.cost, None, "{case}");
        assert_eq!(b.n_priced, 0, "{case}");
        assert_eq!(b.unpriced_models, models, "{case}");
    }
}

/// Every sample's split and cost, and the run's totals, as the golden records them.
#[test]
fn billing_golden() {
    let settings = with_prices(prices());
    let mut out = String::new();
    for case in ["inspect", "promptfoo", "openai_evals"] {
        let run = load(case, &settings);
        let l = log(&run);
        let b = &l.billing;
        writeln!(out, "{case}").unwrap();
        for (s, bill) in l.log.run.samples.iter().zip(&b.samples) {
            writeln!(
                out,
                "  {} model={} split={:?} cost={:?} recorded={:?}",
                evalboard_engine::evallog::score::key_parts(&s.key).join("/"),
                billing::model_key(&l.log.run, s),
                bill.split,
                bill.cost,
                s.cost
            )
            .unwrap();
        }
        writeln!(
            out,
            "  tokens={:?}\n  cost={:?} per_correct={:?} priced={} unpriced={} {:?} cache_hit={:?}",
            b.tokens,
            b.cost,
            l.cost_per_correct(),
            b.n_priced,
            b.n_unpriced,
            b.unpriced_models,
            b.cache_hit_ratio()
        )
        .unwrap();
        for (model, p) in &b.prices {
            writeln!(out, "  price {model} {p:?}").unwrap();
        }
    }
    expect_file(&fixture("evallog/prices/expected/billing.txt"), &out);
}
