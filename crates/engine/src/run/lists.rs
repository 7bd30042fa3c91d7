//! The registry's lists (part of [`crate::run`], in a file of their own): every family's headline
//! tables and scorers, families in registry order. [`crate::headline`] and [`crate::scorer_table`]
//! keep only the types and the Markdown rendering of a list they are given, so that the families
//! name those types without the tables naming the families back.

use crate::family::Family;
use crate::headline::Table;
use crate::scorer_table::Scorer;

/// Every family's headline tables, families in registry order.
pub fn headline_tables() -> Vec<Table> {
    use crate::numeric_qa::score::Profile;
    let qa = |p: Profile| Table {
        family: Family::NumericQa,
        profile: Some(p.name()),
        metrics: crate::numeric_qa::aggregate::headline(p),
    };
    vec![
        qa(Profile::Doc),
        qa(Profile::Fa2),
        Table {
            family: Family::Codegen,
            profile: None,
            metrics: &crate::codegen::aggregate::HEADLINE,
        },
        Table {
            family: Family::Evalset,
            profile: None,
            metrics: &crate::evalset::score::HEADLINE,
        },
        Table {
            family: Family::EvalLog,
            profile: None,
            metrics: &crate::evallog::score::HEADLINE,
        },
    ]
}

/// The scorers of one family, in the family's order.
pub fn scorers_of(family: Family) -> &'static [Scorer] {
    match family {
        Family::NumericQa => crate::numeric_qa::score::SCORERS,
        Family::Codegen => &[],
        Family::Evalset => &crate::evalset::score::SCORERS,
        // The re-scorers (a log's own scores are read as recorded, not listed here).
        Family::EvalLog => &crate::evallog::rescore::SCORERS,
    }
}

/// Every scorer of every family, families in registry order.
pub fn scorers() -> impl Iterator<Item = &'static Scorer> {
    Family::ALL.into_iter().flat_map(scorers_of)
}

/// The scorer with this id.
pub fn find_scorer(id: &str) -> Option<&'static Scorer> {
    scorers().find(|s| s.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_split_at_the_first_at() {
        let ids: Vec<&str> = scorers().map(|s| s.id).collect();
        for (i, id) in ids.iter().enumerate() {
            assert!(!ids[i + 1..].contains(id), "{id} twice");
        }
        for s in scorers() {
            assert_eq!(format!("{}@{}", s.name(), s.version()), s.id);
            assert!(!s.name().is_empty() && !s.version().is_empty(), "{}", s.id);
            assert!(!s.measures.is_empty() && !s.example.verdict.is_empty());
            assert_eq!(scorers_of(s.family).iter().filter(|x| x == &s).count(), 1);
            assert_eq!(find_scorer(s.id), Some(s));
        }
    }
}
