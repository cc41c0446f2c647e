//! One search for every game: iterative deepening negamax with alpha-beta,
//! a quiescence search of the most valuable captures, move ordering (the transposition
//! table's move, captures by what they take, two killer moves a depth, a
//! history table) and a transposition table on the game's position key.
//! It sees a game only through [`SearchTree`].
//!
//! Scores are centipawns for the side to act. The side to act does not
//! simply alternate (a Shadow reveal is the chooser's action, and the
//! turn may stay with one player): a child's score is negated only when
//! the child's actor is the other player.

use std::collections::HashMap;
use std::time::Instant;

use rules::tree::SearchTree;
use rules::{Color, Outcome};

/// The score of a won game, less the plies it takes.
pub const MATE: i32 = 1_000_000;
/// Scores beyond this are wins or losses found by the search.
pub const MATE_BOUND: i32 = MATE - 10_000;
/// How far the quiescence search follows captures past the depth.
const QUIESCENCE_PLIES: i32 = 6;
/// The most captures the quiescence search tries in one position, the
/// most valuable first (Shadow Chess multiplies each capture by the shadow
/// moves that go with it; without a cap they swamp the search).
const QUIESCENCE_WIDTH: usize = 8;
/// Transposition table entries kept before it is cleared.
const TABLE_LIMIT: usize = 1 << 20;
/// Nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 256;

/// When a search stops: after `depth` iterations, or at `nodes` visited
/// positions, or at the `deadline`, whichever comes first. A search
/// stopped early answers with the best action of its last finished
/// iteration, or the better one its unfinished iteration found (stopped
/// before any action was searched to the end: the first action listed).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub depth: u32,
    pub nodes: Option<u64>,
    pub deadline: Option<Instant>,
}

impl Limits {
    /// Only a depth: the same answer on every machine.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth,
            nodes: None,
            deadline: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The index of the action chosen, in the root's [`SearchTree::expand`] order.
    pub action: usize,
    /// Its canonical notation.
    pub notation: String,
    /// The score for the side to act at the root.
    pub score: i32,
    /// The last iteration finished.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
}

#[derive(Clone, Copy)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    depth: i32,
    score: i32,
    bound: Bound,
    best: Option<u64>,
}

/// The state of one search.
pub struct Search {
    limits: Limits,
    nodes: u64,
    stopped: bool,
    table: HashMap<u64, Entry>,
    killers: Vec<[Option<u64>; 2]>,
    history: HashMap<u64, i32>,
}

impl Search {
    pub fn new(limits: Limits) -> Search {
        Search {
            limits,
            nodes: 0,
            stopped: false,
            table: HashMap::new(),
            killers: Vec::new(),
            history: HashMap::new(),
        }
    }

    /// The best action from the tree's root, or `None` when there is none
    /// (the game is over there).
    pub fn best(&mut self, tree: &mut dyn SearchTree) -> Option<Found> {
        let n = tree.expand();
        if n == 0 {
            return None;
        }
        let mut found = Found {
            action: 0,
            notation: String::new(),
            score: 0,
            depth: 0,
            nodes: 0,
        };
        if n == 1 {
            // Forced: nothing to think about.
            found.score = tree.evaluate();
        } else {
            let mut order: Vec<usize> = (0..n).collect();
            for depth in 1..=self.limits.depth.max(1) {
                let (best, score, complete) = self.root(tree, depth as i32, &mut order);
                if let Some(best) = best {
                    found.action = best;
                    found.score = score;
                }
                if !complete {
                    break;
                }
                found.depth = depth;
                if score.abs() >= MATE_BOUND {
                    break;
                }
            }
        }
        found.nodes = self.nodes;
        found.notation = tree.notation(found.action);
        Some(found)
    }

    /// One iteration at the root; `order` comes back best first. Returns
    /// the best action searched to the end, its score, and whether the
    /// whole iteration finished.
    fn root(
        &mut self,
        tree: &mut dyn SearchTree,
        depth: i32,
        order: &mut [usize],
    ) -> (Option<usize>, i32, bool) {
        let (mut alpha, beta) = (-MATE - 1, MATE + 1);
        let me = tree.to_act();
        let mut best = None;
        let mut scored = Vec::with_capacity(order.len());
        for &i in order.iter() {
            let score = self.child(tree, i, me, depth, alpha, beta);
            if self.stopped {
                return (best, alpha, false);
            }
            scored.push((i, score));
            if score > alpha {
                alpha = score;
                best = Some(i);
            }
        }
        // Best first for the next iteration (ties keep their order).
        scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        for (slot, (i, _)) in order.iter_mut().zip(scored) {
            *slot = i;
        }
        (best, alpha, true)
    }

    /// The score, for `me` (the side to act here), of action `i` searched
    /// to `depth - 1` within (alpha, beta): the child's own score when the
    /// turn stays with `me` (a decision of the same player), else negated.
    fn child(
        &mut self,
        tree: &mut dyn SearchTree,
        i: usize,
        me: Color,
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        tree.descend(i);
        let score = if tree.to_act() != me {
            -self.node(tree, depth - 1, -beta, -alpha)
        } else {
            self.node(tree, depth - 1, alpha, beta)
        };
        tree.ascend();
        score
    }

    fn out_of_budget(&mut self) -> bool {
        if self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
        }
        if self.nodes.is_multiple_of(CLOCK_EVERY) {
            if let Some(deadline) = self.limits.deadline {
                if Instant::now() >= deadline {
                    self.stopped = true;
                }
            }
        }
        self.stopped
    }

    /// The score of the position at the end of the tree's path, for its
    /// actor; `depth` at or below 0 searches captures only.
    fn node(&mut self, tree: &mut dyn SearchTree, depth: i32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let ply = tree.depth();
        if tree.repeats() {
            return 0;
        }
        let n = tree.expand();
        if n == 0 {
            return terminal(tree, ply);
        }
        if tree.clock_ran_out() || tree.is_dead() {
            return 0;
        }
        let me = tree.to_act();
        if depth <= 0 {
            return self.quiescence(tree, depth, alpha, beta, n);
        }

        let key = tree.key();
        let mut hinted = None;
        if let Some(e) = self.table.get(&key) {
            hinted = e.best;
            if e.depth >= depth {
                let score = from_table(e.score, ply);
                match e.bound {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => {}
                }
            }
        }

        let order = self.order(tree, n, ply, hinted);
        let alpha_before = alpha;
        let mut best_score = -MATE - 1;
        let mut best_id = None;
        for i in order {
            let score = self.child(tree, i, me, depth, alpha, beta);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_id = Some(tree.action_id(i));
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if tree.capture_value(i).is_none() {
                    let id = tree.action_id(i);
                    self.remember_killer(ply, id);
                    *self.history.entry(id).or_insert(0) += depth * depth;
                }
                break;
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha_before {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if self.table.len() >= TABLE_LIMIT {
            self.table.clear();
        }
        self.table.insert(
            key,
            Entry {
                depth,
                score: to_table(best_score, ply),
                bound,
                best: best_id,
            },
        );
        best_score
    }

    /// Captures only, the side to act free to stand pat on its evaluation.
    fn quiescence(
        &mut self,
        tree: &mut dyn SearchTree,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        n: usize,
    ) -> i32 {
        let stand = tree.evaluate();
        if stand >= beta || depth <= -QUIESCENCE_PLIES {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut captures: Vec<(usize, i32)> = (0..n)
            .filter_map(|i| tree.capture_value(i).map(|v| (i, v)))
            .collect();
        captures.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        captures.truncate(QUIESCENCE_WIDTH);
        let me = tree.to_act();
        let mut best = stand;
        for (i, _) in captures {
            let score = self.child(tree, i, me, depth, alpha, beta);
            if self.stopped {
                return 0;
            }
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The actions in the order to try them.
    fn order(
        &self,
        tree: &dyn SearchTree,
        n: usize,
        ply: usize,
        hinted: Option<u64>,
    ) -> Vec<usize> {
        let killers = self.killers.get(ply).copied().unwrap_or([None, None]);
        let mut keyed: Vec<(i64, usize)> = (0..n)
            .map(|i| {
                let id = tree.action_id(i);
                let rank = if Some(id) == hinted {
                    1 << 40
                } else if let Some(v) = tree.capture_value(i) {
                    (1 << 30) + v as i64
                } else if killers.contains(&Some(id)) {
                    1 << 29
                } else {
                    self.history.get(&id).copied().unwrap_or(0) as i64
                };
                (-rank, i)
            })
            .collect();
        keyed.sort();
        keyed.into_iter().map(|(_, i)| i).collect()
    }

    fn remember_killer(&mut self, ply: usize, id: u64) {
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None, None]);
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(id) {
            k[1] = k[0];
            k[0] = Some(id);
        }
    }
}

/// The score of a position that ends the game by itself, for its actor.
fn terminal(tree: &dyn SearchTree, ply: usize) -> i32 {
    match tree.end() {
        Outcome::Won { winner, .. } if winner == tree.to_act() => MATE - ply as i32,
        Outcome::Won { .. } => -(MATE - ply as i32),
        _ => 0,
    }
}

/// Mate scores are stored as distances from the node, not the root.
fn to_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
