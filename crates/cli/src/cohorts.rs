//! `evalboard cohorts RUN [--baseline B]`: a run's failing items grouped by cause through the
//! engine's one function ([`evalboard_engine::cohorts`]), which the report and the dashboard's
//! worker call too.

use anyhow::{bail, Result};
use evalboard_cli::{out, term::push_line};
use evalboard_engine::cohorts::{cohorts, Cohorts};
use evalboard_engine::run::CompareError;

use crate::cli::CohortsArgs;
use crate::query::{docs_of, Scoring};

pub fn run(a: CohortsArgs) -> Result<u8> {
    let s = Scoring {
        profile: a.profile.as_deref(),
        scorer: a.scorer.as_deref(),
        dataset: &a.dataset,
        prices: &None,
    };
    let Some((family, docs)) = docs_of(&a.run, &s, false)? else {
        return Ok(2);
    };
    let baseline = match &a.baseline {
        Some(b) => match docs_of(b, &s, false)? {
            Some((bf, _)) if bf != family => bail!(
                "{}",
                CompareError::FamilyMismatch {
                    baseline: b.display().to_string(),
                    baseline_family: bf,
                    candidate: a.run.display().to_string(),
                    candidate_family: family,
                }
            ),
            Some((_, docs)) => Some(cohorts(&docs, None)),
            None => return Ok(2),
        },
        None => None,
    };
    let c = cohorts(&docs, baseline.as_ref());
    if a.json {
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&c.to_json())?);
    } else {
        out!("{}", table(&c));
    }
    Ok(0)
}

/// The cohorts as a table, each with its example.
fn table(c: &Cohorts) -> String {
    let mut s = String::new();
    let judged = if c.judge.is_empty() {
        String::new()
    } else {
        format!(" (judged by {})", c.judge)
    };
    push_line(
        &mut s,
        &format!(
            "{} of {} items fail{judged}: {} cohorts",
            c.n_failed,
            c.n_items,
            c.cohorts.iter().filter(|x| x.n > 0).count()
        ),
    );
    let with_baseline = c.cohorts.iter().any(|x| x.vs_baseline.is_some());
    for x in &c.cohorts {
        let vs = match &x.vs_baseline {
            Some(v) => {
                format!("{:<8} (was {:>4})  ", v.status.word(), v.baseline_n)
            }
            None if with_baseline => format!("{:<21}", ""),
            None => String::new(),
        };
        push_line(
            &mut s,
            &format!("{:>6}  {:>6.1}%  {vs}{}", x.n, x.share * 100.0, x.label),
        );
        if let Some(e) = &x.example {
            let text: String = e.text.chars().take(120).collect();
            push_line(
                &mut s,
                &format!("{:>16}e.g. {}: {}", "", e.item, text.replace('\n', " ")),
            );
        }
    }
    s
}
