//! Perft: counting legal action sequences, the standard proof of a move
//! generator (docs/rules.md: draw rules are ignored; counting stops only where no
//! action exists or the game's own rule ends it).
//!
//! Every [`Engine`] gets [`perft`] (with bulk counting at the last ply, and
//! at the last two where a game knows how: [`Engine::pair_count`]) and
//! [`divide`] (per-action counts, for finding where two generators
//! disagree: `pbmchess perft GAME DEPTH --divide`).

use super::engine::Engine;

/// The number of legal action sequences of length `depth` from `node`.
pub fn perft<E: Engine>(node: &E, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return node.action_count();
    }
    if depth == 2 {
        return node.pair_count();
    }
    node.actions()
        .iter()
        .map(|a| perft(&node.after(a), depth - 1))
        .sum()
}

/// Perft split by first action: `(action name, count)`, sorted by name.
/// The counts sum to `perft(node, depth)` (for `depth >= 1`).
pub fn divide<E: Engine>(node: &E, depth: u32) -> Vec<(String, u64)> {
    let actions = node.actions();
    let mut out: Vec<(String, u64)> = node
        .action_names(&actions)
        .into_iter()
        .zip(&actions)
        .map(|(name, a)| (name, perft(&node.after(a), depth.saturating_sub(1))))
        .collect();
    out.sort();
    out
}
