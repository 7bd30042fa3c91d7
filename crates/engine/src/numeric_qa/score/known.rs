//! Turns already scored, kept by where they were read: a watched run's turns, each scored once
//! as its line (or its trace file) came ([`crate::numeric_qa::live`]), so that rebuilding the
//! run so far ([`super::score_qa_run_known`]) scores only the turns not seen before.

use std::collections::HashMap;
use std::sync::Arc;

use super::{doc, TurnParts};
use crate::numeric_qa::model::QaTurn;

/// A turn's place in its file besides its line: its record and its index (a JSONL line is one
/// turn; a trace file's turns share its file and differ by index).
type Place = (Option<u32>, u32);

/// A kept turn: its place, and its scores (`None` once two turns claimed the same place).
type Slot = (Place, Option<TurnParts>);

/// One file's kept turns: by line where the format has lines (a vector: lines are dense), by
/// place otherwise.
#[derive(Debug, Clone, Default)]
struct FileTurns {
    by_line: Vec<Option<Slot>>,
    by_place: HashMap<Place, Option<TurnParts>>,
    len: usize,
}

impl FileTurns {
    fn insert(&mut self, line: Option<u32>, place: Place, parts: Option<TurnParts>) {
        let slot = match line {
            Some(l) => {
                let at = l as usize;
                if self.by_line.len() <= at {
                    self.by_line.resize(at + 1, None);
                }
                match self.by_line.get_mut(at) {
                    Some(slot) => slot,
                    None => return,
                }
            }
            None => {
                match self.by_place.entry(place) {
                    std::collections::hash_map::Entry::Occupied(mut o) => {
                        o.insert(None);
                    }
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(parts);
                        self.len += 1;
                    }
                }
                return;
            }
        };
        match slot {
            // Two turns of one line (or a line read again): neither is trusted.
            Some((_, kept)) => *kept = None,
            None => {
                *slot = Some((place, parts));
                self.len += 1;
            }
        }
    }

    fn get(&self, line: Option<u32>, place: Place) -> Option<&TurnParts> {
        match line {
            Some(l) => match self.by_line.get(l as usize)? {
                Some((at, parts)) if *at == place => parts.as_ref(),
                _ => None,
            },
            None => self.by_place.get(&place)?.as_ref(),
        }
    }
}

/// Turns scored under one set of tolerances, by file and place. A place read twice (two turns
/// claiming one line and index) is dropped, so such turns are scored afresh.
#[derive(Debug, Clone, Default)]
pub struct KnownTurns {
    tolerances: doc::DocTolerances,
    by_file: HashMap<Arc<str>, FileTurns>,
}

impl KnownTurns {
    /// None known yet, for turns scored under `tolerances`.
    pub fn new(tolerances: &doc::DocTolerances) -> KnownTurns {
        KnownTurns {
            tolerances: *tolerances,
            by_file: HashMap::new(),
        }
    }

    fn place(turn: &QaTurn) -> Place {
        (turn.source.record, turn.turn_idx)
    }

    /// Keeps `parts`, `turn`'s scores ([`super::score_turn`]).
    pub fn insert(&mut self, turn: &QaTurn, parts: TurnParts) {
        let file = self.by_file.entry(turn.source.file.clone()).or_default();
        file.insert(turn.source.line, Self::place(turn), Some(parts));
    }

    /// Forgets the turns of `file` (a trace file written again).
    pub fn forget_file(&mut self, file: &str) {
        self.by_file.remove(file);
    }

    /// The kept scores of `turn`, when they hold under `tolerances`.
    pub fn get(&self, turn: &QaTurn, tolerances: &doc::DocTolerances) -> Option<&TurnParts> {
        self.of_file(&turn.source.file, tolerances)?.get(turn)
    }

    /// A file's kept turns, to look up many of its turns ([`KnownFile::get`]): `None` when it
    /// has none, or they were scored under other tolerances.
    pub fn of_file(&self, file: &str, tolerances: &doc::DocTolerances) -> Option<KnownFile<'_>> {
        if *tolerances != self.tolerances {
            return None;
        }
        self.by_file.get(file).map(KnownFile)
    }

    /// The turns kept.
    pub fn len(&self) -> usize {
        self.by_file.values().map(|f| f.len).sum()
    }

    /// No turn kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `other`'s turns (another file's); a place both hold is dropped.
    pub fn extend(&mut self, other: &KnownTurns) {
        if other.tolerances != self.tolerances {
            return;
        }
        for (file, turns) in &other.by_file {
            let mine = self.by_file.entry(file.clone()).or_default();
            for (line, slot) in turns.by_line.iter().enumerate() {
                if let Some((place, parts)) = slot {
                    mine.insert(u32::try_from(line).ok(), *place, parts.clone());
                }
            }
            for (place, parts) in &turns.by_place {
                mine.insert(None, *place, parts.clone());
            }
        }
    }
}

/// One file's kept turns ([`KnownTurns::of_file`]).
#[derive(Debug, Clone, Copy)]
pub struct KnownFile<'a>(&'a FileTurns);

impl<'a> KnownFile<'a> {
    /// The kept scores of `turn`, read from this file.
    pub fn get(&self, turn: &QaTurn) -> Option<&'a TurnParts> {
        self.0.get(turn.source.line, KnownTurns::place(turn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric_qa::model::RawValue;
    use crate::numeric_qa::score::{score_turn, ScoreConfig};

    fn turn(file: &Arc<str>, line: Option<u32>, idx: u32, predicted: &str) -> QaTurn {
        let mut t = QaTurn {
            turn_idx: idx,
            expected: RawValue::Str("12".into()),
            predicted: Some(RawValue::Str(predicted.into())),
            ..Default::default()
        };
        t.source.file = file.clone();
        t.source.line = line;
        t
    }

    #[test]
    fn a_turn_is_found_at_its_own_place_only() {
        let cfg = ScoreConfig::default();
        let file: Arc<str> = Arc::from("run.jsonl");
        let mut known = KnownTurns::new(&cfg.tolerances);
        let a = turn(&file, Some(3), 0, "12");
        known.insert(&a, score_turn(&a, &cfg));
        assert_eq!(known.get(&a, &cfg.tolerances), Some(&score_turn(&a, &cfg)));
        // Another line, another index on the same line, another file: not known.
        assert!(known
            .get(&turn(&file, Some(4), 0, "12"), &cfg.tolerances)
            .is_none());
        assert!(known
            .get(&turn(&file, Some(3), 1, "12"), &cfg.tolerances)
            .is_none());
        let other: Arc<str> = Arc::from("other.jsonl");
        assert!(known
            .get(&turn(&other, Some(3), 0, "12"), &cfg.tolerances)
            .is_none());
        // Other tolerances: nothing holds.
        let mut loose = cfg.tolerances;
        loose.rel = 0.5;
        assert!(known.get(&a, &loose).is_none());
        assert_eq!(known.len(), 1);
    }

    #[test]
    fn a_place_claimed_twice_is_scored_afresh() {
        let cfg = ScoreConfig::default();
        let file: Arc<str> = Arc::from("traces/t.json");
        let mut known = KnownTurns::new(&cfg.tolerances);
        let (a, b) = (turn(&file, None, 0, "12"), turn(&file, None, 0, "13"));
        known.insert(&a, score_turn(&a, &cfg));
        known.insert(&b, score_turn(&b, &cfg));
        assert!(known.get(&a, &cfg.tolerances).is_none());
        let (c, d) = (turn(&file, Some(2), 0, "12"), turn(&file, Some(2), 0, "13"));
        known.insert(&c, score_turn(&c, &cfg));
        known.insert(&d, score_turn(&d, &cfg));
        assert!(known.get(&d, &cfg.tolerances).is_none());
        known.forget_file(&file);
        assert!(known.is_empty());
    }
}
