//! What the per-game rules test files share: the seeded random number
//! generator of their playouts, perft over a test file's own reference
//! move generator, and the playout loop that walks the engine and the
//! reference side by side, comparing every position's legal moves.
//!
//! The rules test files use it as `crate::harness`.

#![allow(dead_code)]

use rules::orthodox::{Hooks, Move, State};

/// The seeded generator of the playouts: the same sequence from the same
/// seed on every run, so that a failing playout can be replayed.
pub use fastrand::Rng;

/// A reference move generator, written in a test file from the rules
/// text and sharing nothing with the engine: moves in coordinate (UCI)
/// form.
pub trait Reference: Sized {
    /// Every legal move, in coordinate form, sorted.
    fn legal(&self) -> Vec<String>;
    /// The position after a legal move, given in coordinate form.
    fn play(&self, m: &str) -> Self;
}

/// Perft over a reference generator.
pub fn reference_perft<R: Reference>(r: &R, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = r.legal();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| reference_perft(&r.play(m), depth - 1))
        .sum()
}

/// One test file's playouts of a chess-like game: what each position is
/// checked for beyond its legal moves, and which move is played.
pub trait Playout {
    type Hooks: Hooks;
    type Ref: Reference;
    /// Further checks of a position (`here` names it in messages).
    fn check(&mut self, mine: &State<Self::Hooks>, reference: &Self::Ref, here: &str) {
        let _ = (mine, reference, here);
    }
    /// The index in `legal` (not empty) of the move to play.
    fn choose(&mut self, mine: &State<Self::Hooks>, legal: &[Move], rng: &mut Rng) -> usize;
    /// After move `m` led from `before` to `after` (counting what happened).
    fn played(&mut self, before: &State<Self::Hooks>, m: Move, after: &State<Self::Hooks>) {
        let _ = (before, m, after);
    }
}

/// Play `games` random games of at most `plies` plies from the starts
/// `start(n)` gives, with the engine and the reference side by side: at
/// every position the engine's legal moves in coordinate form, sorted,
/// are the reference's, then `playout`'s own checks hold; a game ends
/// where no move is left. `label` begins each position's name in
/// messages (`{label}game {n} ply {ply}: {FEN}`). The number of
/// positions compared.
pub fn play_out<P: Playout>(
    playout: &mut P,
    rng: &mut Rng,
    label: &str,
    games: usize,
    plies: usize,
    mut start: impl FnMut(usize) -> (State<P::Hooks>, P::Ref),
) -> usize {
    let mut positions = 0;
    for game in 0..games {
        let (mut mine, mut reference) = start(game);
        for ply in 0..plies {
            positions += 1;
            let here = format!("{label}game {game} ply {ply}: {}", mine.fen());
            let legal = mine.legal_moves();
            let mut ours: Vec<String> = legal.iter().map(|&m| mine.uci(m)).collect();
            ours.sort();
            assert_eq!(ours, reference.legal(), "{here}");
            playout.check(&mine, &reference, &here);
            if legal.is_empty() {
                break;
            }
            let m = legal[playout.choose(&mine, &legal, rng)];
            reference = reference.play(&mine.uci(m));
            let after = mine.after(m);
            playout.played(&mine, m, &after);
            mine = after;
        }
    }
    positions
}
