//! Perft: counting legal action sequences, the standard proof of a move
//! generator (rules.md: draw rules are ignored; counting stops only where no
//! action exists or the game's own rule ends it).
//!
//! Any variant whose positions implement [`Node`] gets [`perft`] (with bulk
//! counting at the last ply) and [`divide`] (per-action counts, for finding
//! where two generators disagree).

/// A position that perft can walk.
pub trait Node: Sized {
    /// One turn action.
    type Action;
    /// Every legal action here (empty when the game is over by its own rule).
    fn actions(&self) -> Vec<Self::Action>;
    /// The position after a legal action.
    fn after(&self, action: &Self::Action) -> Self;
    /// A name for the action in [`divide`]'s output (coordinate form).
    fn action_name(&self, action: &Self::Action) -> String;
}

/// The number of legal action sequences of length `depth` from `node`.
pub fn perft<N: Node>(node: &N, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let actions = node.actions();
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .iter()
        .map(|a| perft(&node.after(a), depth - 1))
        .sum()
}

/// Perft split by first action: `(action name, count)`, sorted by name.
/// The counts sum to `perft(node, depth)` (for `depth >= 1`).
pub fn divide<N: Node>(node: &N, depth: u32) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = node
        .actions()
        .iter()
        .map(|a| {
            (
                node.action_name(a),
                perft(&node.after(a), depth.saturating_sub(1)),
            )
        })
        .collect();
    out.sort();
    out
}
