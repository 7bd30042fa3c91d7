//! `evalboard query RUN 'EXPR'`: the items of a run a query matches, through the engine's one
//! query function ([`evalboard_engine::query`]) — the dashboard's worker runs the same one.
//! A query that searches texts stored apart from the items (`text`, `tool`: an Inspect log's
//! conversations) reads them from the run's files first.

use anyhow::Result;
use evalboard_cli::{errln, outln};
use evalboard_engine::cohorts::cohorts;
use evalboard_engine::family::Family;
use evalboard_engine::query::{self, Query};
use evalboard_engine::run::{CompareSettings, ALL_FAMILIES};

use crate::cli::QueryArgs;
use crate::{diff, score};

/// Characters of context shown on each side of a match.
const CONTEXT: usize = 40;
/// Places (fields, texts) shown for each matching item.
const PLACES: usize = 3;

pub fn run(a: QueryArgs) -> Result<u8> {
    let q = match Query::parse(&a.expr) {
        Ok(q) => q,
        Err(e) => {
            errln!("evalboard: error: the query does not parse: {e}");
            errln!("  {}", a.expr);
            errln!("  {}^", " ".repeat(e.at.min(200)));
            return Ok(2);
        }
    };
    let Some((_, mut docs)) = docs_of(&a.run, &a.common(), q.needs_messages())? else {
        return Ok(2);
    };
    if q.names("cohort") {
        cohorts(&docs, None).tag(&mut docs);
    }
    let sel = query::select(&docs, &q);
    if a.json {
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&sel.to_json())?);
        return Ok(0);
    }
    outln!(
        "{} of {} items match: {}",
        sel.n_matched,
        docs.len(),
        a.expr
    );
    for d in docs.iter().filter(|d| q.matches(d)) {
        // The first match in each of up to 3 places.
        let mut places: Vec<&query::Hit> = Vec::new();
        let hits = q.hits(d);
        for h in &hits {
            if places.len() < PLACES && !places.iter().any(|p| p.at == h.at) {
                places.push(h);
            }
        }
        let shown: Vec<String> = places
            .iter()
            .map(|h| format!("{}: {}", h.at, snippet(d, h)))
            .collect();
        outln!("  {}    {}", d.key, shown.join("  ·  "));
    }
    Ok(0)
}

/// What a run is scored with to be queried: `--profile`, `--scorer`, `--dataset`, `--prices`.
pub(crate) struct Scoring<'a> {
    pub profile: Option<&'a str>,
    pub scorer: Option<&'a str>,
    pub dataset: &'a Option<std::path::PathBuf>,
    pub prices: &'a Option<std::path::PathBuf>,
}

impl QueryArgs {
    fn common(&self) -> Scoring<'_> {
        Scoring {
            profile: self.profile.as_deref(),
            scorer: self.scorer.as_deref(),
            dataset: &self.dataset,
            prices: &self.prices,
        }
    }
}

/// The run at `path` scored as `s` says, as the items queries and cohorts read
/// ([`evalboard_engine::run::RunRef::query_docs_in`]); with `conversations`, a log's
/// conversations read from its files too. `Ok(None)`: the run is unusable (already reported).
pub(crate) fn docs_of(
    path: &std::path::Path,
    s: &Scoring<'_>,
    conversations: bool,
) -> Result<Option<(Family, Vec<query::Doc>)>> {
    let compare = CompareSettings {
        qa_scorer: s.scorer.map(str::to_string),
        ..CompareSettings::default()
    };
    let loaded = score::load_path(path, s.profile.unwrap_or("doc"))?;
    let family = loaded.family;
    let settings = diff::pair_settings((s.dataset, s.profile, s.prices), &compare, loaded.family)?;
    let Some((scored, input)) = loaded.score_keeping_input(&settings)? else {
        return Ok(None);
    };
    let run = scored.as_ref();
    let mut docs = run.query_docs_in::<ALL_FAMILIES>(s.scorer)?;
    if let (true, Some(input)) = (conversations, &input) {
        for p in run.add_conversations_in::<ALL_FAMILIES>(input, &mut docs) {
            errln!("warning: conversation not read: {p}");
        }
    }
    Ok(Some((family, docs)))
}

/// The text around a hit, on one line: up to [`CONTEXT`] characters each side, the match in
/// brackets.
fn snippet(d: &query::Doc, h: &query::Hit) -> String {
    let Some(s) = d.snippet(h, CONTEXT) else {
        return String::new();
    };
    let dots = |cut: bool| if cut { "…" } else { "" };
    format!(
        "{}{}[{}]{}{}",
        dots(s.cut_before),
        s.before,
        s.hit,
        s.after,
        dots(s.cut_after)
    )
    .replace(['\n', '\r', '\t'], " ")
}
