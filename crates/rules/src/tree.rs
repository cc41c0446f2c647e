//! The game tree as a search program walks it: [`SearchTree`] is the
//! object-safe face the computer player's search uses, so that one search
//! serves every game; [`Walk`] gives it for any [`Engine`], starting from a
//! [`Tracked`] position with its draw history.
//!
//! A walk is a path from the root: [`SearchTree::expand`] lists the legal
//! actions where the path ends, [`SearchTree::descend`] plays one of them and
//! [`SearchTree::ascend`] takes it back. Actions are named by their index in
//! that list, and across positions by [`SearchTree::action_id`] (a hash of the
//! action: two positions' ids agree when the actions do, which is what
//! killer moves and history tables need).
//!
//! # Rulings
//! - A position that occurred before, on the path or in the game since
//!   its last irreversible action, counts as a repetition (a draw for the
//!   search), though the rules draw only at the third occurrence: a side
//!   that can repeat once can repeat again.
//! - What an engine does not offer, the walk does not guess: a game
//!   without an evaluation of its own is valued by the material on its
//!   diagram ([`value::material`](super::value::material)).

use std::collections::HashSet;

use super::engine::{Engine, Tracked};
use super::history::MOVE_RULE_PLIES;
use super::{Color, Outcome};

/// The game tree from one position, as a search program walks it.
pub trait SearchTree {
    /// Who acts where the path ends (for a decision, the chooser).
    fn to_act(&self) -> Color;
    /// Whether the next action is a decision rather than a turn.
    fn is_decision(&self) -> bool;
    /// Actions played from the root.
    fn depth(&self) -> usize;
    /// The position key (for transposition tables and repetitions).
    fn key(&self) -> u64;
    /// Whether the position occurred before (see the rulings).
    fn repeats(&self) -> bool;
    /// Whether the move rule draws here (mate and stalemate come first).
    fn clock_ran_out(&self) -> bool;
    /// Whether neither side can ever win.
    fn is_dead(&self) -> bool;
    /// List the legal actions here (once per visit); their number. None
    /// at all means the position ends the game by itself ([`SearchTree::end`]).
    fn expand(&mut self) -> usize;
    /// How the position ends the game by itself (mate, stalemate, a
    /// variant's own end); `Ongoing` while actions exist.
    fn end(&self) -> Outcome;
    /// How good the position is for [`SearchTree::to_act`], in centipawns.
    fn evaluate(&self) -> i32;
    /// What action `i` takes, in centipawns, if it takes anything.
    fn capture_value(&self, i: usize) -> Option<i32>;
    /// A name of action `i` that is the same wherever that action is played.
    fn action_id(&self, i: usize) -> u64;
    /// Play action `i` of the last [`SearchTree::expand`].
    fn descend(&mut self, i: usize);
    /// Take back the last action played.
    fn ascend(&mut self);
    /// The canonical notation of action `i` (as the server stores it).
    fn notation(&self, i: usize) -> String;
}

struct Frame<E: Engine> {
    engine: E,
    actions: Vec<E::Action>,
    key: u64,
}

/// A [`SearchTree`] over any engine: a stack of positions along the path.
pub struct Walk<E: Engine> {
    frames: Vec<Frame<E>>,
    /// Frames in use: the path's end is `frames[len - 1]`.
    len: usize,
    /// Keys of the game's positions since its last irreversible action.
    seen: HashSet<u64>,
}

impl<E: Engine> Walk<E> {
    /// A walk from a position with its game history.
    pub fn new(tracked: &Tracked<E>) -> Walk<E> {
        let engine = tracked.engine().clone();
        let seen = tracked.history().keys().copied().collect();
        let key = engine.position_key();
        Walk {
            frames: vec![Frame {
                engine,
                actions: Vec::new(),
                key,
            }],
            len: 1,
            seen,
        }
    }

    fn here(&self) -> &Frame<E> {
        &self.frames[self.len - 1]
    }
}

impl<E: Engine> SearchTree for Walk<E> {
    fn to_act(&self) -> Color {
        self.here().engine.to_act()
    }

    fn is_decision(&self) -> bool {
        self.here().engine.is_decision()
    }

    fn depth(&self) -> usize {
        self.len - 1
    }

    fn key(&self) -> u64 {
        self.here().key
    }

    fn repeats(&self) -> bool {
        let here = self.here();
        let mut j = self.len - 1;
        while j > 0 {
            if self.frames[j].engine.move_clock() == 0 {
                // An irreversible action led here: nothing before recurs.
                return false;
            }
            j -= 1;
            if self.frames[j].key == here.key {
                return true;
            }
        }
        self.len > 1 && self.seen.contains(&here.key)
    }

    fn clock_ran_out(&self) -> bool {
        self.here().engine.move_clock() >= MOVE_RULE_PLIES
    }

    fn is_dead(&self) -> bool {
        self.here().engine.is_insufficient_material()
    }

    fn expand(&mut self) -> usize {
        let i = self.len - 1;
        let actions = self.frames[i].engine.actions();
        self.frames[i].actions = actions;
        self.frames[i].actions.len()
    }

    fn end(&self) -> Outcome {
        self.here().engine.end()
    }

    fn evaluate(&self) -> i32 {
        self.here().engine.evaluate()
    }

    fn capture_value(&self, i: usize) -> Option<i32> {
        let here = self.here();
        here.engine.capture_value(&here.actions[i])
    }

    fn action_id(&self, i: usize) -> u64 {
        super::engine::hash_key(&self.here().actions[i])
    }

    fn descend(&mut self, i: usize) {
        let here = self.here();
        let next = here.engine.after(&here.actions[i]);
        let key = next.position_key();
        if self.frames.len() == self.len {
            self.frames.push(Frame {
                engine: next,
                actions: Vec::new(),
                key,
            });
        } else {
            let frame = &mut self.frames[self.len];
            frame.engine = next;
            frame.actions.clear();
            frame.key = key;
        }
        self.len += 1;
    }

    fn ascend(&mut self) {
        assert!(self.len > 1, "ascend above the root");
        self.len -= 1;
    }

    fn notation(&self, i: usize) -> String {
        let here = self.here();
        let mut all = here.engine.notations(&here.actions);
        all.swap_remove(i)
    }
}
