//! The computer player's mind: given a position of any game, which action
//! to take, and whether a draw offer suits it. Depends on [`rules`] only
//! (the server asks it and plays what it says): one [`search`] for every
//! game, through the [`SearchTree`](rules::tree::SearchTree) each position
//! offers; what a position is worth comes from each game's engine
//! ([`Engine::evaluate`](rules::engine::Engine::evaluate)).
//!
//! # Rulings
//! - Hidden information: no game refereed here hides anything from a
//!   player (Shadow Chess's shadow board is drawn in every board mail), so
//!   the computer sees the position as its opponent does.
//! - Draw offers: accepted when the search says the position is lost
//!   ([`LOST`] or worse for the computer) or dead even (within
//!   [`EVEN`]); otherwise declined.
//! - The computer never resigns: a lost game ends at mate (or the game's
//!   own end), which is the only loss that is certain.
//! - Levels 1 to 5 search 1, 2, 3 and 4 plies deep (and captures beyond)
//!   or, at level 5, as deep as the time allows; every level stops at its
//!   share of the move time (level/5 of it), checked inside the search.

pub mod search;

use std::time::{Duration, Instant};

use rules::Position;
pub use search::{Found, Limits, Search, MATE, MATE_BOUND};

/// A score at or below which the computer counts itself lost.
pub const LOST: i32 = -300;
/// Scores within this of 0 are dead even.
pub const EVEN: i32 = 20;

/// How strongly the computer plays: 1 (weakest) to 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Level(u8);

impl Level {
    pub const LOWEST: Level = Level(1);
    pub const HIGHEST: Level = Level(5);
    /// The level of a challenge that names none.
    pub const DEFAULT: Level = Level(2);

    /// Level `n`, if it is one (1 to 5).
    pub fn new(n: u8) -> Option<Level> {
        (1..=5).contains(&n).then_some(Level(n))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The search depth in plies (level 5: as deep as time allows).
    pub fn depth(self) -> u32 {
        match self.0 {
            5 => 64,
            n => n as u32,
        }
    }

    /// The limits of one move begun at `start` with `move_time` to think.
    pub fn limits(self, move_time: Duration, start: Instant) -> Limits {
        Limits {
            depth: self.depth(),
            nodes: None,
            deadline: Some(start + move_time * self.0 as u32 / 5),
        }
    }
}

/// The action the computer takes in `position` (its canonical notation
/// with its score and effort), or `None` when the game is over there.
pub fn choose(position: &dyn Position, limits: Limits) -> Option<Found> {
    if position.outcome().is_over() {
        return None;
    }
    let mut tree = position.tree();
    Search::new(limits).best(tree.as_mut())
}

/// Whether the computer, to act or not, takes a draw offered in
/// `position`, where it plays `seat`: a search at `limits` judges it.
pub fn accepts_draw(position: &dyn Position, me: rules::Color, limits: Limits) -> bool {
    let Some(found) = choose(position, limits) else {
        return true;
    };
    let score = if position.to_act() == me {
        found.score
    } else {
        -found.score
    };
    score <= LOST || score.abs() <= EVEN
}
