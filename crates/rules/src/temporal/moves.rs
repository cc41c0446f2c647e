//! Turn actions and their generation: king placements in the opening,
//! then drops, moves, vanishes and clones (docs/rules.md §5).
//!
//! Every candidate is judged on its whole turn (`State::resolve`),
//! except where the answer is known without playing it: on a turn that
//! starts out of check and ends no warp, a drop is legal exactly when the
//! dropped piece does not attack the enemy royal king (a cell mask per
//! kind), and a clone of a piece other than the king always is (it only
//! adds a piece and may remove an enemy one). Perft depends on this being
//! fast, and the test suite cross-checks it against a plain implementation.

use super::super::cube::Cell;
use super::field::{adjacent, cell, index, Phase, Royal, State, CELLS};
use super::pieces::Kind;
use super::warps::MAX_COUNTERS;

/// One turn action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The opening: a king placed on a vacant cell (`K@Bb2`).
    Place(Cell),
    /// A reserve piece dropped on a vacant cell (`N@Cb2`).
    Drop(Kind, Cell),
    /// A piece moved (`Ab1-Cc3`, `Ab1xCc3`).
    Move { from: Cell, to: Cell },
    /// A piece vanishes with 1 to 6 counters (`V4:Ab1`).
    Vanish { cell: Cell, counters: u8 },
    /// A duplicate of the piece on `from` moves to `to`; the original
    /// carries the counters (`C3:Ab1-Cc3`).
    Clone { from: Cell, to: Cell, counters: u8 },
}

impl State {
    /// Every legal action (empty once the game is won).
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        match self.phase {
            Phase::Won(_) => {}
            Phase::Place => self.placements(&mut out),
            Phase::Play => self.turn_actions(&mut out),
        }
        out
    }

    /// Whether the (possible) action is legal on its whole turn.
    pub(super) fn is_legal(&self, action: &Action) -> bool {
        self.resolve(action, None).1.is_ok()
    }

    /// King placements: any vacant cell, not next to a king already placed.
    fn placements(&self, out: &mut Vec<Action>) {
        if self.reserves[self.side.index()].count(Kind::King) == 0 {
            return;
        }
        let kings: Vec<u8> = (0..CELLS as u8)
            .filter(|&i| self.board[i as usize].is_some_and(|p| p.kind == Kind::King))
            .collect();
        for i in 0..CELLS as u8 {
            if self.board[i as usize].is_none() && kings.iter().all(|&k| !adjacent(i, k)) {
                out.push(Action::Place(cell(i)));
            }
        }
    }

    fn turn_actions(&self, out: &mut Vec<Action>) {
        let me = self.side;
        let warp = self.warps[me.index()];
        let warp_ends = warp.is_some_and(|w| w.counters == 1);
        // Nothing changes the field but the action, and the king is safe now.
        let simple = !warp_ends && !self.in_check(me);
        let enemy_king = match self.royal(me.opponent()) {
            Royal::Active(k) => Some(k),
            _ => None,
        };

        let reserve = self.reserves[me.index()];
        for kind in Kind::DROPPED {
            if reserve.count(kind) == 0 {
                continue;
            }
            let checks = enemy_king.map_or(0, |k| self.attack_mask(k, kind));
            for i in 0..CELLS as u8 {
                if self.board[i as usize].is_some() {
                    continue;
                }
                let action = Action::Drop(kind, cell(i));
                let legal = if simple {
                    checks & (1 << i) == 0
                } else {
                    self.is_legal(&action)
                };
                if legal {
                    out.push(action);
                }
            }
        }

        let mut targets = Vec::with_capacity(32);
        for f in 0..CELLS as u8 {
            let Some(piece) = self.board[f as usize].filter(|p| p.color == me) else {
                continue;
            };
            let from = cell(f);
            targets.clear();
            self.targets(f, piece.kind, me, &mut targets);
            for &t in &targets {
                let action = Action::Move { from, to: cell(t) };
                if self.is_legal(&action) {
                    out.push(action);
                }
            }
            if warp.is_some() {
                continue;
            }
            // A turn that starts without a warp ends none: the counters
            // do not change what is legal.
            if self.is_legal(&Action::Vanish {
                cell: from,
                counters: 1,
            }) {
                for counters in 1..=MAX_COUNTERS {
                    out.push(Action::Vanish {
                        cell: from,
                        counters,
                    });
                }
            }
            for &t in &targets {
                let to = cell(t);
                let legal = (simple && piece.kind != Kind::King)
                    || self.is_legal(&Action::Clone {
                        from,
                        to,
                        counters: 1,
                    });
                if legal {
                    for counters in 1..=MAX_COUNTERS {
                        out.push(Action::Clone { from, to, counters });
                    }
                }
            }
        }
    }

    /// Whether `action` captures an enemy piece by itself (the `x` of its
    /// notation).
    pub(super) fn captures(&self, action: &Action) -> bool {
        match *action {
            Action::Move { to, .. } | Action::Clone { to, .. } => {
                self.board[index(to) as usize].is_some_and(|p| p.color != self.side)
            }
            _ => false,
        }
    }
}
