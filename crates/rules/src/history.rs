//! The draw history any engine can use: how often each position occurred
//! since the last irreversible action, and the move clock (docs/rules.md §0:
//! threefold repetition and 100 plies without progress draw
//! automatically). An engine supplies the key and the clock
//! ([`Engine::repetition_key`](super::engine::Engine::repetition_key),
//! [`Engine::move_clock`](super::engine::Engine::move_clock)); what
//! "irreversible" means is the engine's: a clock back at 0.
//!
//! # Rulings
//! - History starts at the position a game was created from (the start or
//!   a position text) and is cleared whenever the clock is back at 0
//!   (nothing before an irreversible action can recur).
//! - The move rule draws at [`MOVE_RULE_PLIES`] plies, unless the position
//!   ends the game by itself (mate and stalemate are judged first, by the
//!   caller).

use std::collections::HashMap;
use std::hash::Hash;

use super::Ending;

/// Plies without progress that draw (the 50-move rule).
pub const MOVE_RULE_PLIES: u32 = 100;
/// Occurrences of one position that draw.
pub const REPETITIONS_TO_DRAW: u32 = 3;

/// Repetition keys with their counts since the last irreversible action,
/// the current key, and the move clock.
#[derive(Clone, Debug)]
pub struct History<K> {
    counts: HashMap<K, u32>,
    current: K,
    clock: u32,
    /// Actions recorded since the counts were last cleared (or since the start).
    plies: u32,
}

impl<K: Clone + Eq + Hash> History<K> {
    /// A history that starts at a position with this key and clock.
    pub fn new(key: K, clock: u32) -> History<K> {
        let mut counts = HashMap::new();
        counts.insert(key.clone(), 1);
        History {
            counts,
            current: key,
            clock,
            plies: 0,
        }
    }

    /// The history a replay gives, rebuilt from the keys alone: `keys` are
    /// those of the positions since the history's first (the start, or the
    /// position after the last irreversible action), first to current, and
    /// `clock` is the current position's move clock. None of the positions
    /// after the first may follow an irreversible action (a clock at 0): a
    /// replay would have cleared the counts there. `None` without keys.
    ///
    /// Replaying the actions from the first position (`new`, then `record`
    /// for each) gives the same counts, current key, clock and
    /// [`History::plies`].
    pub fn resume(keys: &[K], clock: u32) -> Option<History<K>> {
        let current = keys.last()?.clone();
        let mut counts = HashMap::with_capacity(keys.len());
        for key in keys {
            *counts.entry(key.clone()).or_insert(0) += 1;
        }
        Some(History {
            counts,
            current,
            clock,
            plies: keys.len() as u32 - 1,
        })
    }

    /// The position after an action: its key and clock (0 clears what
    /// came before).
    pub fn record(&mut self, key: K, clock: u32) {
        if clock == 0 {
            self.counts.clear();
            self.plies = 0;
        } else {
            self.plies += 1;
        }
        *self.counts.entry(key.clone()).or_insert(0) += 1;
        self.current = key;
        self.clock = clock;
    }

    /// How often the current position has occurred (this time included).
    pub fn repetitions(&self) -> u32 {
        self.counts.get(&self.current).copied().unwrap_or(1)
    }

    /// The keys of the positions since the last irreversible action.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.counts.keys()
    }

    /// How many actions back the history reaches: those since the last
    /// irreversible one, or since the start. The position then was the
    /// history's first; replaying these actions from it rebuilds the
    /// history exactly.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Plies since the last irreversible action.
    pub fn clock(&self) -> u32 {
        self.clock
    }

    /// The draw the history decides: the move rule first, then repetition.
    pub fn draw(&self) -> Option<Ending> {
        if self.clock >= MOVE_RULE_PLIES {
            Some(Ending::FiftyMoveRule)
        } else if self.repetitions() >= REPETITIONS_TO_DRAW {
            Some(Ending::Repetition)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_occurrence_draws_and_an_irreversible_action_forgets() {
        let mut h = History::new("a", 0);
        h.record("b", 1);
        h.record("a", 2);
        assert_eq!(h.repetitions(), 2);
        assert_eq!(h.draw(), None);
        h.record("b", 3);
        h.record("a", 4);
        assert_eq!(h.repetitions(), 3);
        assert_eq!(h.draw(), Some(Ending::Repetition));
        assert_eq!(h.plies(), 4);
        h.record("a", 0);
        assert_eq!(h.plies(), 0);
        assert_eq!(h.repetitions(), 1);
        assert_eq!(h.draw(), None);
    }

    #[test]
    fn a_history_resumed_from_its_keys_is_the_one_recorded() {
        let mut played = History::new(5u64, 0);
        let keys = [5u64, 6, 7, 6, 5, 6];
        for (i, k) in keys.iter().enumerate().skip(1) {
            played.record(*k, i as u32);
        }
        let resumed = History::resume(&keys, 5).unwrap();
        assert_eq!(resumed.repetitions(), played.repetitions());
        assert_eq!(resumed.repetitions(), 3);
        assert_eq!(resumed.plies(), played.plies());
        assert_eq!(resumed.clock(), played.clock());
        assert_eq!(resumed.draw(), played.draw());
        let mut a: Vec<_> = resumed.keys().collect();
        let mut b: Vec<_> = played.keys().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        assert!(History::<u64>::resume(&[], 0).is_none());
        let alone = History::resume(&[9u64], 40).unwrap();
        assert_eq!(
            (alone.plies(), alone.repetitions(), alone.clock()),
            (0, 1, 40)
        );
    }

    #[test]
    fn the_move_rule_draws_at_100_plies_and_before_repetition() {
        let mut h = History::new(1u64, 98);
        h.record(2, 99);
        assert_eq!(h.draw(), None);
        h.record(1, 100);
        assert_eq!(h.draw(), Some(Ending::FiftyMoveRule));
        let h = History::new(7u64, 250);
        assert_eq!(h.clock(), 250);
        assert_eq!(h.draw(), Some(Ending::FiftyMoveRule));
    }
}
