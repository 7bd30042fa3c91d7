//! The page's two JSON texts — the scoring settings it keeps in localStorage and the demo
//! manifest — read and written through the browser's own `JSON`, so the page's wasm carries no
//! JSON codec (worker replies are postcard, see `protocol.rs`; docs/dashboard.md § Size). The
//! stored settings are the numeric QA `ScoreConfig` as serde writes it with the code-generation
//! settings under `codegen`, the shape earlier builds stored, so their settings still load
//! (tests/web.rs checks both directions against serde_json). The eval-set settings are kept
//! apart, as text (`ui/store.rs`).

use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};

use evalboard_engine::codegen::{self, CodegenConfig, Weights};
use evalboard_engine::numeric_qa::score::doc::DocTolerances;
use evalboard_engine::numeric_qa::score::{Profile, ScoreConfig};
use evalboard_engine::prices::{ModelPrice, PriceTable};
use evalboard_engine::run::Settings;

fn get(o: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(o, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined())
}

fn num(o: &JsValue, key: &str) -> Option<f64> {
    get(o, key)?.as_f64()
}

fn list(o: &JsValue, key: &str) -> Option<Vec<JsValue>> {
    Some(get(o, key)?.dyn_into::<Array>().ok()?.iter().collect())
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}

/// Settings from their stored JSON (`{"profile": "doc", "tolerances": {...}, "prices":
/// {"models": [["gpt-4o", {"input_per_mtok": 2.5, "output_per_mtok": 10,
/// "cache_read_per_mtok": 1.25, ...}]]}}`); `None` when it is not that shape. A missing
/// tolerance takes its default, a missing cache or reasoning price or note is unset, as with
/// serde.
pub fn config_from_json(text: &str) -> Option<Settings> {
    let v = JSON::parse(text).ok()?;
    let profile = Profile::parse(&get(&v, "profile")?.as_string()?)?;
    let t = get(&v, "tolerances")?;
    let d = DocTolerances::default();
    let tolerances = DocTolerances {
        rel: num(&t, "rel").unwrap_or(d.rel),
        abs: num(&t, "abs").unwrap_or(d.abs),
        exact_rel: num(&t, "exact_rel").unwrap_or(d.exact_rel),
    };
    let mut models = Vec::new();
    for m in list(&get(&v, "prices")?, "models")? {
        let pair = m.dyn_into::<Array>().ok()?;
        let price = pair.get(1);
        // The cache prices are absent from what earlier builds stored (null when unset): `None`
        // then, as serde's `#[serde(default)]` reads them. The page sets no reasoning price
        // and no notes (the CLI's `--prices` file does).
        models.push((
            pair.get(0).as_string()?,
            ModelPrice {
                input_per_mtok: num(&price, "input_per_mtok")?,
                output_per_mtok: num(&price, "output_per_mtok")?,
                cache_read_per_mtok: num(&price, "cache_read_per_mtok"),
                cache_write_per_mtok: num(&price, "cache_write_per_mtok"),
                ..ModelPrice::default()
            },
        ));
    }
    // Code-generation settings are absent from what earlier builds stored: defaults then, as
    // serde's `#[serde(default)]` does.
    let codegen = match get(&v, "codegen") {
        None => CodegenConfig::default(),
        Some(c) => {
            let w = get(&c, "weights")?;
            CodegenConfig {
                profile: codegen::Profile::parse(&get(&c, "profile")?.as_string()?)?,
                weights: Weights {
                    correctness: num(&w, "correctness")?,
                    quality: num(&w, "quality")?,
                    performance: num(&w, "performance")?,
                    understanding: num(&w, "understanding")?,
                    coverage: num(&w, "coverage")?,
                    recovery: num(&w, "recovery")?,
                },
                max_recovery_attempts: u32::try_from(num(&c, "max_recovery_attempts")? as i64)
                    .ok()?,
            }
        }
    };
    Some(Settings {
        numeric_qa: ScoreConfig {
            profile,
            tolerances,
            prices: PriceTable { models },
        },
        codegen,
        ..Settings::default()
    })
}

/// Settings as JSON, in the shape [`config_from_json`] reads.
pub fn config_to_json(s: &Settings) -> Option<String> {
    let c = &s.numeric_qa;
    let t = &c.tolerances;
    let models: Array = c
        .prices
        .models
        .iter()
        .map(|(m, p)| {
            let price = object(&[
                ("input_per_mtok", p.input_per_mtok.into()),
                ("output_per_mtok", p.output_per_mtok.into()),
                ("cache_read_per_mtok", p.cache_read_per_mtok.into()),
                ("cache_write_per_mtok", p.cache_write_per_mtok.into()),
            ]);
            JsValue::from(Array::of2(&JsValue::from_str(m), &price))
        })
        .collect();
    let v = object(&[
        ("profile", c.profile.name().into()),
        (
            "tolerances",
            object(&[
                ("rel", t.rel.into()),
                ("abs", t.abs.into()),
                ("exact_rel", t.exact_rel.into()),
            ]),
        ),
        ("prices", object(&[("models", models.into())])),
        ("codegen", {
            let g = &s.codegen;
            let w = &g.weights;
            object(&[
                ("profile", g.profile.name().into()),
                (
                    "weights",
                    object(&[
                        ("correctness", w.correctness.into()),
                        ("quality", w.quality.into()),
                        ("performance", w.performance.into()),
                        ("understanding", w.understanding.into()),
                        ("coverage", w.coverage.into()),
                        ("recovery", w.recovery.into()),
                    ]),
                ),
                ("max_recovery_attempts", g.max_recovery_attempts.into()),
            ])
        }),
    ]);
    JSON::stringify(&v).ok().map(String::from)
}

/// One run of the demo workspace: its folder under `demo/` and the files in it (a static
/// server cannot list folders).
#[derive(Debug, Clone, PartialEq)]
pub struct DemoRun {
    pub name: String,
    pub files: Vec<String>,
}

/// `demo/manifest.json`: `{"runs": [{"name": ..., "files": [...]}, ...]}`.
pub fn demo_manifest(text: &str) -> Result<Vec<DemoRun>, String> {
    let bad = || "expected {\"runs\": [{\"name\": ..., \"files\": [...]}]}".to_string();
    let v = JSON::parse(text).map_err(|_| "not JSON".to_string())?;
    list(&v, "runs")
        .ok_or_else(bad)?
        .iter()
        .map(|r| {
            Some(DemoRun {
                name: get(r, "name")?.as_string()?,
                files: list(r, "files")?
                    .iter()
                    .map(JsValue::as_string)
                    .collect::<Option<_>>()?,
            })
        })
        .collect::<Option<_>>()
        .ok_or_else(bad)
}
