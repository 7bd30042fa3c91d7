//! The scorer table: every scorer of every family by its id (`name@version`), with what it
//! measures and a worked example. Each family lists its own scorers in its own folder
//! (`numeric_qa::score::SCORERS`, `evalset::score::SCORERS`, `evallog::rescore::SCORERS` — the
//! eval-log re-scorers; code generation scores by profile, `doc-v1` or `ise547`, and names no
//! scorer id); [`crate::run::lists::scorers`] lists them across families, as
//! [`crate::run::lists::headline_tables`] does for the headline metrics (here only the types and
//! the rendering, so that the families can name [`Scorer`] without this module naming the
//! families back). docs/scoring.md's "All scorers" table is [`markdown`]'s output, checked by
//! `crates/engine/tests/it/docs_tables.rs`.

use crate::family::Family;

/// One scorer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scorer {
    /// `name@version` under the default settings (`numerical_match@doc-v1`). Settings that change
    /// a rule change the version (`numerical_match@doc-v1+rel0.02`).
    pub id: &'static str,
    pub family: Family,
    /// What it measures, in one sentence.
    pub measures: &'static str,
    pub example: Example,
}

/// A worked example: one input and the scorer's verdict on it. Each family's tests score the
/// example and check the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The expected side as the family reads it (a JSON answer, a program's operations, a text).
    pub expected: &'static str,
    /// The predicted side, likewise.
    pub predicted: &'static str,
    /// What the scorer gives: `true`/`false`, or a number.
    pub verdict: &'static str,
}

impl Scorer {
    /// A table entry; `example` is expected, predicted, verdict.
    pub const fn new(
        id: &'static str,
        family: Family,
        measures: &'static str,
        example: [&'static str; 3],
    ) -> Scorer {
        let [expected, predicted, verdict] = example;
        Scorer {
            id,
            family,
            measures,
            example: Example {
                expected,
                predicted,
                verdict,
            },
        }
    }

    /// The part before `@` (`numerical_match`): the scorer's column and flag name.
    pub const fn name(&self) -> &'static str {
        self.split().0
    }

    /// The part after `@` (`doc-v1`); empty when the id has no `@`.
    pub const fn version(&self) -> &'static str {
        self.split().1
    }

    const fn split(&self) -> (&'static str, &'static str) {
        let bytes = self.id.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'@' {
                break;
            }
            at += 1;
        }
        // Cut at an ASCII byte, so both halves stay UTF-8.
        let (name, rest) = bytes.split_at(at);
        let version = match rest {
            [_, v @ ..] => v,
            [] => rest,
        };
        match (std::str::from_utf8(name), std::str::from_utf8(version)) {
            (Ok(n), Ok(v)) => (n, v),
            _ => (self.id, ""),
        }
    }
}

/// Text for a Markdown table cell: `|` escaped, line breaks as spaces.
pub(crate) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The "All scorers" table of docs/scoring.md: id, family, what it measures, example, one row
/// per scorer of `scorers` ([`crate::run::lists::scorers`]).
pub fn markdown<'a>(scorers: impl IntoIterator<Item = &'a Scorer>) -> String {
    let mut out = String::from(
        "| id | family | what it measures | example: expected → predicted ⇒ verdict |\n|---|---|---|---|\n",
    );
    for s in scorers {
        let e = &s.example;
        out.push_str(&format!(
            "| `{}` | {} | {} | `{}` → `{}` ⇒ {} |\n",
            s.id,
            s.family.label(),
            md_cell(s.measures),
            md_cell(e.expected),
            md_cell(e.predicted),
            md_cell(e.verdict),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_splits_at_the_first_at() {
        let s = Scorer::new("a@b@c", Family::Evalset, "m", ["e", "p", "v"]);
        assert_eq!((s.name(), s.version()), ("a", "b@c"));
        let bare = Scorer { id: "bare", ..s };
        assert_eq!((bare.name(), bare.version()), ("bare", ""));
    }
}
