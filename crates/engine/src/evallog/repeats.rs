//! A log's items with their repeats (Inspect AI's epochs, promptfoo's repeats, HELM's train
//! trials): which part of the tool's item key is the repeat, and the judged items (re-scored,
//! else as recorded) gathered by item for the family-free repeat statistics
//! ([`crate::repeats`]).

use super::model::{EvalLogRun, SampleKey};
use super::score::ScoredLog;
use crate::repeats::{default_ks, group, ItemRepeats, RepeatSummary};
use crate::run_table::ItemKey;

/// The part of the log's item key that counts repeats of one item: Inspect's epoch (`[id,
/// epoch]`), promptfoo's repeat (`[test, prompt, repeat]`), HELM's train trial (`[instance,
/// perturbation, trial]`); `None` for a tool with no repeats of an item (lm-eval's repeats are
/// inside one row, OpenAI Evals has none).
pub fn repeat_part(run: &EvalLogRun) -> Option<usize> {
    match run.samples.first().map(|s| &s.key)? {
        SampleKey::Inspect { .. } => Some(1),
        SampleKey::Promptfoo { .. } | SampleKey::Helm { .. } => Some(2),
        // evalboard's rows: a key's last part may be a turn, not a repeat.
        SampleKey::LmEval { .. } | SampleKey::OpenaiEvals { .. } | SampleKey::Evalboard { .. } => {
            None
        }
    }
}

/// The log's judged items by item, their repeats' readings together, in key order; each item
/// alone when the tool has no repeats.
pub fn item_repeats(s: &ScoredLog) -> Vec<ItemRepeats> {
    let part = repeat_part(&s.log.run).unwrap_or(usize::MAX);
    let rows = s
        .judged()
        .iter()
        .map(|it| (ItemKey::from_parts(&it.key), it.reading));
    group(rows, part)
}

/// The repeats' summary (pass@k and pass^k for the settings' `k`, else for every `k` up to
/// the most repeats of an item; the flaky items; the item-clustered standard error); `None`
/// when no item has two scored repeats.
pub fn summary(s: &ScoredLog) -> Option<RepeatSummary> {
    let items = item_repeats(s);
    let ks = match s.pass_k {
        Some(k) => vec![k],
        None => default_ks(&items),
    };
    Some(RepeatSummary::of(&items, &ks)).filter(RepeatSummary::has_repeats)
}
