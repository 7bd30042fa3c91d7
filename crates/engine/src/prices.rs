//! The one price table every family bills tokens by (`evalboard score|diff|report --prices`, the
//! dashboard's Settings): model name → US dollars per million tokens of each class, with a
//! source/date note per model ([`PriceTable`], [`PriceTable::from_json`]), and the billing of a
//! token split ([`TokenSplit`], [`ModelPrice::bill`]). docs/scoring.md § Cost documents it once.
//!
//! A token split is what one bill counts, by class: uncached input, cache reads, cache writes,
//! output, and of the output the reasoning tokens. Each family (each tool, for eval logs) says
//! how its counts map to the classes; this module only prices them. A model without an entry is
//! unpriced (never $0); a class without a price of its own is billed at the class it belongs to:
//! cache reads and writes at the input price, reasoning at the output price.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diag::Diagnostic;

/// USD per 1M tokens for one model, by class, and where the prices come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Uncached input (and every input token when the run does not split them).
    pub input_per_mtok: f64,
    /// Output, reasoning included unless [`ModelPrice::reasoning_per_mtok`] is set.
    pub output_per_mtok: f64,
    /// Input read from the provider's prompt cache; `None`: billed at the input price.
    #[serde(default)]
    pub cache_read_per_mtok: Option<f64>,
    /// Input written to the provider's prompt cache; `None`: billed at the input price.
    #[serde(default)]
    pub cache_write_per_mtok: Option<f64>,
    /// Reasoning tokens, when billed otherwise than output; `None`: billed as output.
    #[serde(default)]
    pub reasoning_per_mtok: Option<f64>,
    /// Where the prices were read (a price page, an invoice), as the table says.
    #[serde(default)]
    pub source: Option<String>,
    /// When they were read, as the table says.
    #[serde(default)]
    pub date: Option<String>,
}

/// Price table: model name → price. Models without an entry are reported as unpriced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    pub models: Vec<(String, ModelPrice)>,
}

/// Tokens of one bill by class. `reasoning` is a part of `output` (the tools record reasoning
/// inside the output count; a family whose source counts it apart adds it to `output`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSplit {
    pub uncached_input: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output: u64,
    pub reasoning: u64,
}

impl TokenSplit {
    /// A split of `uncached_input`, `cache_read`, `cache_write`, `output` and, of the output,
    /// `reasoning` tokens.
    pub fn new(
        uncached_input: u64,
        cache_read: u64,
        cache_write: u64,
        output: u64,
        reasoning: u64,
    ) -> TokenSplit {
        TokenSplit {
            uncached_input,
            cache_read,
            cache_write,
            output,
            reasoning,
        }
    }

    /// Every input token: uncached, read from the cache and written to it.
    pub fn input(&self) -> u64 {
        self.uncached_input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    /// Every token: input and output.
    pub fn total(&self) -> u64 {
        self.input().saturating_add(self.output)
    }

    /// `other` added class by class (saturating).
    pub fn add(&mut self, other: &TokenSplit) {
        self.uncached_input = self.uncached_input.saturating_add(other.uncached_input);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.output = self.output.saturating_add(other.output);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
    }

    /// The cache-hit ratio: cache reads ÷ (cache reads + uncached input); `None` when both are
    /// 0. Cache writes are left out: a write is a miss that is stored, billed at its own rate.
    pub fn cache_hit_ratio(&self) -> Option<f64> {
        let denominator = self.cache_read.saturating_add(self.uncached_input);
        (denominator > 0).then(|| self.cache_read as f64 / denominator as f64)
    }
}

impl ModelPrice {
    /// A price of input and output only (the table's older form).
    pub fn new(input_per_mtok: f64, output_per_mtok: f64) -> ModelPrice {
        ModelPrice {
            input_per_mtok,
            output_per_mtok,
            ..ModelPrice::default()
        }
    }

    /// Dollars for `t`: each class's tokens × its price ÷ 1M, summed in the order uncached input,
    /// cache read, cache write, output (reasoning at its own price when set). A class without a
    /// price of its own takes the input price (cache) or the output price (reasoning).
    pub fn bill(&self, t: &TokenSplit) -> f64 {
        let per = |n: u64, usd_per_mtok: f64| n as f64 * usd_per_mtok / 1e6;
        let input = self.input_per_mtok;
        let output = match self.reasoning_per_mtok {
            Some(r) => {
                let reasoning = t.reasoning.min(t.output);
                per(t.output - reasoning, self.output_per_mtok) + per(reasoning, r)
            }
            None => per(t.output, self.output_per_mtok),
        };
        per(t.uncached_input, input)
            + per(t.cache_read, self.cache_read_per_mtok.unwrap_or(input))
            + per(t.cache_write, self.cache_write_per_mtok.unwrap_or(input))
            + output
    }

    /// The source and date note (`source, date`), when the table gives either.
    pub fn note(&self) -> Option<String> {
        match (&self.source, &self.date) {
            (Some(s), Some(d)) => Some(format!("{s}, {d}")),
            (Some(x), None) | (None, Some(x)) => Some(x.clone()),
            (None, None) => None,
        }
    }
}

/// A price class of the table's file: its key, the short spelling also read, and the field.
type PriceField = fn(&mut ModelPrice) -> &mut Option<f64>;

/// The optional classes, as the file names them.
const OPTIONAL_PRICES: [(&str, &str, PriceField); 3] = [
    ("cache_read_per_mtok", "cache_read", |p| {
        &mut p.cache_read_per_mtok
    }),
    ("cache_write_per_mtok", "cache_write", |p| {
        &mut p.cache_write_per_mtok
    }),
    ("reasoning_per_mtok", "reasoning", |p| {
        &mut p.reasoning_per_mtok
    }),
];

/// Every key a model's entry may have.
const KNOWN_KEYS: [&str; 12] = [
    "input_per_mtok",
    "input",
    "output_per_mtok",
    "output",
    "cache_read_per_mtok",
    "cache_read",
    "cache_write_per_mtok",
    "cache_write",
    "reasoning_per_mtok",
    "reasoning",
    "source",
    "date",
];

impl PriceTable {
    pub fn get(&self, model: &str) -> Option<&ModelPrice> {
        self.models.iter().find(|(m, _)| m == model).map(|(_, p)| p)
    }

    /// Parses the file `path`:
    /// `{"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10, "cache_read_per_mtok": 1.25,
    /// "source": "openai.com/api/pricing", "date": "2025-06-01"}, ...}` (`input`, `output`,
    /// `cache_read`, `cache_write`, `reasoning` are read as the `_per_mtok` keys; every key but
    /// input and output is optional, so the older files read as they did). Errors name the
    /// offending model; a key of no price is ignored with a warning (a misspelt class would
    /// otherwise bill at the input price silently), and a repeated key keeps its last value,
    /// with a warning ([`crate::json_keys`]).
    pub fn from_json(path: &str, bytes: &[u8]) -> Result<(PriceTable, Vec<Diagnostic>), String> {
        let v: Value =
            serde_json::from_slice(bytes).map_err(|e| format!("price table is not JSON: {e}"))?;
        let obj = v
            .as_object()
            .ok_or("price table must be an object of model → {input_per_mtok, output_per_mtok}")?;
        let mut diags = Vec::new();
        let mut models = Vec::new();
        for (model, p) in obj {
            let usd = |x: &Value| x.as_f64().filter(|x| *x >= 0.0 && x.is_finite());
            let get = |keys: [&str; 2]| keys.iter().find_map(|k| p.get(*k));
            let (Some(i), Some(o)) = (
                get(["input_per_mtok", "input"]).and_then(usd),
                get(["output_per_mtok", "output"]).and_then(usd),
            ) else {
                return Err(format!(
                    "price for model {model:?} needs non-negative input_per_mtok and output_per_mtok"
                ));
            };
            let mut price = ModelPrice::new(i, o);
            for (key, short, field) in OPTIONAL_PRICES {
                match get([key, short]) {
                    None | Some(Value::Null) => {}
                    Some(x) => {
                        *field(&mut price) = Some(usd(x).ok_or_else(|| {
                            format!(
                                "price for model {model:?}: {key} must be a non-negative number"
                            )
                        })?)
                    }
                }
            }
            for (key, slot) in [("source", &mut price.source), ("date", &mut price.date)] {
                match p.get(key) {
                    None | Some(Value::Null) => {}
                    Some(Value::String(s)) => *slot = Some(s.clone()),
                    Some(_) => {
                        return Err(format!(
                            "price for model {model:?}: {key} must be a string (a note)"
                        ))
                    }
                }
            }
            if let Some(entry) = p.as_object() {
                for k in entry.keys().filter(|k| !KNOWN_KEYS.contains(&k.as_str())) {
                    diags.push(Diagnostic::warning(
                        path,
                        None,
                        format!(
                            "price for model {model:?}: unknown key {k:?} ignored (known: {})",
                            KNOWN_KEYS.join(", ")
                        ),
                    ));
                }
            }
            models.push((model.clone(), price));
        }
        crate::json_keys::warn_duplicates(&mut diags, path, bytes, 1);
        Ok((PriceTable { models }, diags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bill_prices_each_class() {
        // 1,000 uncached at $3, 10,000 read at $0.30, 2,000 written at $3.75, 500 out at $15:
        // 0.003 + 0.003 + 0.0075 + 0.0075 = $0.021.
        let p = ModelPrice {
            cache_read_per_mtok: Some(0.3),
            cache_write_per_mtok: Some(3.75),
            ..ModelPrice::new(3.0, 15.0)
        };
        let bill = p.bill(&TokenSplit::new(1000, 10_000, 2000, 500, 200));
        assert!((bill - 0.021).abs() < 1e-12, "{bill}");
        // Without cache prices, cache tokens are billed as input: 13,000 × $3 + 500 × $15.
        let old = ModelPrice::new(3.0, 15.0);
        let bill = old.bill(&TokenSplit::new(1000, 10_000, 2000, 500, 200));
        assert!((bill - 0.0465).abs() < 1e-12, "{bill}");
        // Reasoning at its own price: 300 × $15 + 200 × $60.
        let r = ModelPrice {
            reasoning_per_mtok: Some(60.0),
            ..ModelPrice::new(3.0, 15.0)
        };
        let bill = r.bill(&TokenSplit::new(0, 0, 0, 500, 200));
        assert!((bill - 0.0165).abs() < 1e-12, "{bill}");
    }

    #[test]
    fn input_and_output_bill_as_they_always_did() {
        // The numeric QA cost (`prompt × in / 1e6 + completion × out / 1e6`) bit for bit.
        let p = ModelPrice::new(2.5, 10.0);
        for (i, o) in [(1200u64, 150u64), (0, 7), (3, 0), (123_456_789, 987_654)] {
            let want = i as f64 * 2.5 / 1e6 + o as f64 * 10.0 / 1e6;
            assert_eq!(
                p.bill(&TokenSplit::new(i, 0, 0, o, 0)).to_bits(),
                want.to_bits()
            );
        }
    }

    #[test]
    fn cache_hit_ratio_is_reads_over_reads_and_uncached() {
        assert_eq!(
            TokenSplit::new(300, 100, 50, 9, 0).cache_hit_ratio(),
            Some(0.25)
        );
        assert_eq!(TokenSplit::new(0, 0, 10, 9, 0).cache_hit_ratio(), None);
    }

    #[test]
    fn the_file_reads_new_classes_and_notes_and_the_old_form() {
        let text = br#"{"m": {"input": 1, "output": 2},
            "c": {"input_per_mtok": 3, "output_per_mtok": 15, "cache_read_per_mtok": 0.3,
                  "cache_write": 3.75, "reasoning_per_mtok": null, "source": "price page",
                  "date": "2025-06-01", "cache_reads": 9}}"#;
        let (t, diags) = PriceTable::from_json("p.json", text).expect("a table");
        assert_eq!(t.get("m"), Some(&ModelPrice::new(1.0, 2.0)));
        let c = t.get("c").expect("c");
        assert_eq!(
            (
                c.cache_read_per_mtok,
                c.cache_write_per_mtok,
                c.reasoning_per_mtok
            ),
            (Some(0.3), Some(3.75), None)
        );
        assert_eq!(c.note().as_deref(), Some("price page, 2025-06-01"));
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].message.contains("\"cache_reads\""), "{diags:?}");
        for bad in [
            r#"{"m": {"input": 1}}"#,
            r#"{"m": {"input": 1, "output": 2, "cache_read_per_mtok": -1}}"#,
            r#"{"m": {"input": 1, "output": 2, "cache_write": "cheap"}}"#,
            r#"{"m": {"input": 1, "output": 2, "source": 7}}"#,
            r#"[1]"#,
        ] {
            let e = PriceTable::from_json("p.json", bad.as_bytes()).expect_err(bad);
            assert!(e.contains("price"), "{e}");
        }
    }
}
