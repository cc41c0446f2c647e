//! Move generation: pseudo-legal moves (each expanded by the variant's
//! hooks) and castling, with the reasons a castling is refused.

use super::super::board::{
    Square, ALL_DIRECTIONS, DIAGONAL, EAST, KNIGHT_STEPS, NORTH, ORTHOGONAL,
};
use super::super::Color;
use super::hooks::Hooks;
use super::pieces::{color_bit, is_enemy, Kind, BLACK, EMPTY};
use super::state::{CastleRefusal, Move, Special, State};

impl<H: Hooks> State<H> {
    /// Pseudo-legal moves of the side to move, castling excluded, each
    /// expanded by the variant's [`Hooks::expand`](super::Hooks::expand).
    pub(crate) fn pseudo_moves(&self, out: &mut Vec<Move>) {
        let mine = color_bit(self.side);
        for &from_sq in &self.variant.squares {
            let code = self.cells[from_sq.index()];
            if code == EMPTY || code & BLACK != mine {
                continue;
            }
            self.piece_moves(from_sq, code, out);
        }
    }

    /// The pseudo-legal moves of the piece `code` (of the side to move) on
    /// `from_sq`, castling excluded, each expanded by the variant.
    #[inline]
    pub(super) fn piece_moves(&self, from_sq: Square, code: u8, out: &mut Vec<Move>) {
        let mine = color_bit(self.side);
        let c = &self.cells;
        let v = self.variant;
        let hooks = &v.hooks;
        let s = from_sq.index() as isize;
        let mut push = |out: &mut Vec<Move>, t: isize, special| {
            hooks.expand(
                self,
                Move::new(from_sq, Square::from_index(t as usize), special),
                out,
            )
        };
        match Kind::from_code(code) {
            Kind::Pawn => {
                let (fwd, start, last) = match self.side {
                    Color::White => (NORTH, 1, v.geometry.ranks() - 1),
                    Color::Black => (-NORTH, v.geometry.ranks() - 2, 0),
                };
                let add = |out: &mut Vec<Move>, t: isize| {
                    if Square::from_index(t as usize).rank() == last {
                        for &k in hooks.promotion_kinds() {
                            push(out, t, Special::Promotion(k));
                        }
                    } else {
                        push(out, t, Special::None);
                    }
                };
                let t = s + fwd;
                if c[t as usize] == EMPTY {
                    add(out, t);
                    if from_sq.rank() == start && c[(t + fwd) as usize] == EMPTY {
                        hooks.expand(
                            self,
                            Move::new(
                                from_sq,
                                Square::from_index((t + fwd) as usize),
                                Special::DoubleStep,
                            ),
                            out,
                        );
                    }
                }
                for t in [s + fwd + EAST, s + fwd - EAST] {
                    let x = c[t as usize];
                    if is_enemy(x, mine) {
                        add(out, t);
                    } else if x == EMPTY && self.ep.is_some_and(|e| e.index() == t as usize) {
                        hooks.expand(
                            self,
                            Move::new(from_sq, Square::from_index(t as usize), Special::EnPassant),
                            out,
                        );
                    }
                }
            }
            Kind::Knight => self.steps(s, &KNIGHT_STEPS, mine, out, &mut push),
            Kind::King | Kind::Monarch => self.steps(s, &ALL_DIRECTIONS, mine, out, &mut push),
            Kind::Bishop => self.slides(s, &DIAGONAL, mine, out, &mut push),
            Kind::Rook => self.slides(s, &ORTHOGONAL, mine, out, &mut push),
            Kind::Queen => self.slides(s, &ALL_DIRECTIONS, mine, out, &mut push),
        }
    }

    /// One step along each offset onto an empty or enemy cell.
    #[inline]
    fn steps(
        &self,
        s: isize,
        offsets: &[isize],
        mine: u8,
        out: &mut Vec<Move>,
        push: &mut impl FnMut(&mut Vec<Move>, isize, Special),
    ) {
        for &d in offsets {
            let x = self.cells[(s + d) as usize];
            if x == EMPTY || is_enemy(x, mine) {
                push(out, s + d, Special::None);
            }
        }
    }

    /// Slides along each direction up to the first occupied cell, which is
    /// taken when it holds an enemy.
    #[inline]
    fn slides(
        &self,
        s: isize,
        directions: &[isize],
        mine: u8,
        out: &mut Vec<Move>,
        push: &mut impl FnMut(&mut Vec<Move>, isize, Special),
    ) {
        for &d in directions {
            let mut t = s + d;
            loop {
                let x = self.cells[t as usize];
                if x == EMPTY {
                    push(out, t, Special::None);
                    t += d;
                    continue;
                }
                if is_enemy(x, mine) {
                    push(out, t, Special::None);
                }
                break;
            }
        }
    }

    /// Why castling number `i` is not legal now, or `None` if it is.
    pub fn castle_refusal(&self, i: usize) -> Option<CastleRefusal> {
        self.castle_refusal_knowing(i, None)
    }

    /// [`State::castle_refusal`], told whether the king is in check when
    /// that is known already.
    pub(super) fn castle_refusal_knowing(
        &self,
        i: usize,
        in_check: Option<bool>,
    ) -> Option<CastleRefusal> {
        let c = &self.variant.castlings[i];
        if c.color != self.side || self.castling & (1 << i) == 0 {
            return Some(CastleRefusal::NoRight);
        }
        if let Some(&sq) = c
            .must_be_empty
            .iter()
            .find(|sq| self.cells[sq.index()] != EMPTY)
        {
            return Some(CastleRefusal::PieceBetween(sq));
        }
        let enemy = self.side.opponent();
        if in_check.unwrap_or_else(|| self.attacked(c.king_from, enemy)) {
            return Some(CastleRefusal::InCheck);
        }
        let n = c.king_path.len();
        for (j, &sq) in c.king_path.iter().enumerate() {
            if self.attacked(sq, enemy) {
                return Some(if j + 1 == n {
                    CastleRefusal::LandsAttacked(sq)
                } else {
                    CastleRefusal::CrossesAttacked(sq)
                });
            }
        }
        if H::PLAIN_MAKE && c.sheltered {
            return None;
        }
        let m = self.castle_move(i);
        let after = self.after(m);
        if after.attacked(after.kings[self.side.index()], after.side) {
            return Some(CastleRefusal::Exposed);
        }
        if !self.variant.hooks.is_legal_after(&after, m) {
            return Some(CastleRefusal::Forbidden);
        }
        None
    }

    /// Castling number `i` as a move.
    pub(crate) fn castle_move(&self, i: usize) -> Move {
        let c = &self.variant.castlings[i];
        Move::new(c.king_from, c.king_to, Special::Castle(i as u8))
    }
}
