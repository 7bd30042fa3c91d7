//! How runs of every family are scored: [`Settings`] (each family's scoring settings, their
//! non-default values in words, a reset, a profile named on a command line) — part of the
//! registry ([`crate::run`] re-exports it).

use crate::codegen::{self, CodegenConfig};
use crate::evallog::rescore::{EvalLogOptions, RescoreKind};
use crate::evalset::{AnswerScorer, ScoringOptions};
use crate::family::Family;
use crate::numeric_qa::score::{Profile, ScoreConfig};
use crate::prices::PriceTable;

/// How runs of every family are scored.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    /// Numeric QA: profile, tolerances, and the one price table ([`Settings::prices`]).
    pub numeric_qa: ScoreConfig,
    pub codegen: CodegenConfig,
    pub evalset: ScoringOptions,
    /// Eval logs: as recorded, or re-scored ([`crate::evallog::rescore`]).
    #[serde(default)]
    pub evallog: EvalLogOptions,
}

/// A profile name that the family does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile {name:?} for {article} {family} run ({known})", article = article(*family), family = family.label(), known = profile_names(*family))]
pub struct UnknownProfile {
    pub family: Family,
    pub name: String,
}

/// "a" or "an" before the family's label.
pub fn article(f: Family) -> &'static str {
    match f {
        Family::Evalset | Family::EvalLog => "an",
        _ => "a",
    }
}

/// The profile names a family accepts on a command line.
pub fn profile_names(family: Family) -> &'static str {
    match family {
        Family::NumericQa => "doc, financial-agent-2",
        Family::Codegen => "doc-v1, ise547",
        Family::Evalset => "v1, v1-extract",
        Family::EvalLog => {
            "as-recorded, exact, includes, match, answer_pattern, last_number, f1, numeric \
             (a re-scorer also by its id, match@v1)"
        }
    }
}

/// The price table in words ("a price for gpt-4o", "prices for 3 models"); `None` when empty.
fn prices_in_words(prices: &PriceTable) -> Option<String> {
    match prices.models.as_slice() {
        [] => None,
        [(model, _)] => Some(format!("a price for {model}")),
        more => Some(format!("prices for {} models", more.len())),
    }
}

impl Settings {
    /// The one price table every family bills tokens by ([`crate::prices`]): numeric QA turns
    /// and eval-log samples alike. It is kept in the numeric QA config, where `--prices` and the
    /// dashboard's stored settings have always put it (the stored shape is unchanged).
    pub fn prices(&self) -> &PriceTable {
        &self.numeric_qa.prices
    }

    /// The settings runs of `family` are scored under, in one line (`profile doc · rel 0.01 ·
    /// abs 0.001 · 0 priced model(s)`), as the dashboard's Export names them.
    pub fn in_one_line(&self, family: Family) -> String {
        match family {
            Family::Evalset => {
                let e = &self.evalset;
                format!(
                    "scorer {} · pass threshold {}",
                    e.scorer.id(),
                    e.pass_threshold
                )
            }
            Family::EvalLog => format!(
                "{} · {} priced model(s)",
                match self.evallog.scorer {
                    Some(k) => format!("re-scored by {}", k.id()),
                    None => "the log's scores as recorded".to_string(),
                },
                self.prices().models.len()
            ),
            Family::Codegen => {
                let w = &self.codegen.weights;
                format!(
                    "profile {} · max {} recovery attempts · weights {}/{}/{}/{}/{}/{}",
                    self.codegen.profile.name(),
                    self.codegen.max_recovery_attempts,
                    w.correctness,
                    w.quality,
                    w.performance,
                    w.understanding,
                    w.coverage,
                    w.recovery
                )
            }
            Family::NumericQa => {
                let c = &self.numeric_qa;
                format!(
                    "profile {} · rel {} · abs {} · {} priced model(s)",
                    c.profile.name(),
                    c.tolerances.rel,
                    c.tolerances.abs,
                    c.prices.models.len()
                )
            }
        }
    }

    /// The settings of `family` that differ from the defaults, in words ("relative tolerance
    /// 2% (default 1%)"), for the badge every screen they affect shows; empty when all are
    /// defaults. Settings of other families are not listed: they change no number of this one.
    pub fn non_default(&self, family: Family) -> Vec<String> {
        let mut out = Vec::new();
        match family {
            Family::NumericQa => {
                let (c, d) = (&self.numeric_qa, ScoreConfig::default());
                if c.profile != d.profile {
                    out.push(format!("profile {}", c.profile.name()));
                }
                let (t, dt) = (c.tolerances, d.tolerances);
                let pct = crate::numeric_qa::aggregate::tolerance_percent;
                if t.rel.to_bits() != dt.rel.to_bits() {
                    out.push(format!(
                        "relative tolerance {} (default {})",
                        pct(t.rel),
                        pct(dt.rel)
                    ));
                }
                if t.abs.to_bits() != dt.abs.to_bits() {
                    out.push(format!("absolute tolerance {} (default {})", t.abs, dt.abs));
                }
                if t.exact_rel.to_bits() != dt.exact_rel.to_bits() {
                    out.push(format!(
                        "exact-match tolerance {} (default {})",
                        t.exact_rel, dt.exact_rel
                    ));
                }
                out.extend(prices_in_words(&c.prices));
            }
            Family::Codegen => {
                let (c, d) = (&self.codegen, CodegenConfig::default());
                if c.profile != d.profile {
                    out.push(format!("profile {}", c.profile.name()));
                }
                if c.max_recovery_attempts != d.max_recovery_attempts {
                    out.push(format!(
                        "{} recovery attempts (default {})",
                        c.max_recovery_attempts, d.max_recovery_attempts
                    ));
                }
                if c.weights != d.weights {
                    out.push("custom overall-score weights".to_string());
                }
            }
            Family::Evalset => {
                let (c, d) = (&self.evalset, ScoringOptions::default());
                if c.scorer != d.scorer {
                    out.push(format!("scorer {}", c.scorer.id()));
                }
                if c.pass_threshold.to_bits() != d.pass_threshold.to_bits() {
                    out.push(format!(
                        "pass threshold {} (default {})",
                        c.pass_threshold, d.pass_threshold
                    ));
                }
            }
            Family::EvalLog => {
                let (c, d) = (&self.evallog, EvalLogOptions::default());
                if let Some(k) = c.pass_k {
                    out.push(format!("pass@k and pass^k for k = {k}"));
                }
                if let Some(r) = c.rescorer() {
                    out.push(format!("re-scored by {}", r.id()));
                    if r.kind == RescoreKind::Numeric {
                        let (t, dt) = (c.numeric, d.numeric);
                        if t.rel.to_bits() != dt.rel.to_bits() {
                            out.push(format!("relative tolerance {} (default {})", t.rel, dt.rel));
                        }
                        if t.abs.to_bits() != dt.abs.to_bits() {
                            out.push(format!("absolute tolerance {} (default {})", t.abs, dt.abs));
                        }
                    }
                }
                out.extend(prices_in_words(self.prices()));
            }
        }
        out
    }

    /// `self` with the settings of `family` back at their defaults (the others kept); the price
    /// table is every family's, and goes with the reset of numeric QA or eval logs.
    pub fn reset(&self, family: Family) -> Settings {
        let mut s = self.clone();
        match family {
            Family::NumericQa => s.numeric_qa = ScoreConfig::default(),
            Family::Codegen => s.codegen = CodegenConfig::default(),
            Family::Evalset => s.evalset = ScoringOptions::default(),
            Family::EvalLog => {
                s.evallog = EvalLogOptions::default();
                s.numeric_qa.prices = PriceTable::default();
            }
        }
        s
    }

    /// Applies a profile named on a command line (`doc` is every family's default) to the
    /// settings of `family`.
    pub fn set_profile(&mut self, family: Family, name: &str) -> Result<(), UnknownProfile> {
        let unknown = || UnknownProfile {
            family,
            name: name.to_string(),
        };
        match family {
            Family::NumericQa => {
                self.numeric_qa.profile = Profile::parse(name).ok_or_else(unknown)?
            }
            Family::Codegen => {
                self.codegen.profile = match name {
                    "doc" | "doc-v1" => codegen::Profile::DocV1,
                    "ise547" => codegen::Profile::Ise547,
                    _ => return Err(unknown()),
                }
            }
            Family::Evalset => {
                self.evalset.scorer = match name {
                    "doc" => AnswerScorer::V1,
                    n => AnswerScorer::from_id(n).ok_or_else(unknown)?,
                }
            }
            // As recorded (the log's own scores), or re-scored by one of the re-scorers.
            Family::EvalLog => {
                self.evallog.scorer = match name {
                    "doc" | "as-recorded" => None,
                    n => Some(RescoreKind::from_name(n).ok_or_else(unknown)?),
                }
            }
        }
        Ok(())
    }
}
