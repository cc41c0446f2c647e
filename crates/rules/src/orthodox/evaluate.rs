//! How good a position is, for the computer player's search: material
//! ([`value`]), piece placement and mobility, pawns
//! on their way to promotion, the royal king's shelter while the enemy has
//! pieces to attack it, and, for the side clearly ahead, the enemy king
//! driven to the edge (so that a won ending is won, not shuffled).

use super::super::board::{Square, DIAGONAL, KNIGHT_STEPS, NORTH, ORTHOGONAL};
use super::super::value;
use super::super::Color;
use super::hooks::Hooks;
use super::pieces::{is_enemy, Kind, Piece, EMPTY};
use super::state::{Move, Special, State};

/// Material (without pawns) below which a side's king leaves its shelter
/// for the centre: about a rook and a minor piece.
const ENDGAME_MATERIAL: i32 = 1000;
/// A lead (in centipawns) from which the leader drives the enemy king.
const CLEAR_LEAD: i32 = 250;

impl<H: Hooks> State<H> {
    /// The evaluation, for the side to move.
    pub fn evaluate(&self) -> i32 {
        let g = self.variant.geometry;
        let (files, ranks) = (g.files() as i32, g.ranks() as i32);
        let mut score = [0i32; 2];
        let mut pieces_material = [0i32; 2];
        let mut total = [0i32; 2];
        for &sq in self.variant.squares() {
            let Some(p) = Piece::from_code(self.cells[sq.index()]) else {
                continue;
            };
            let me = p.color.index();
            let v = value::of_letter(p.kind.letter());
            score[me] += v;
            total[me] += v;
            if p.kind != Kind::Pawn {
                pieces_material[me] += v;
            }
            let (f, r) = (sq.file() as i32, sq.rank() as i32);
            // Twice the distance from the centre, files and ranks apart.
            let centre = (2 * f - (files - 1)).abs() + (2 * r - (ranks - 1)).abs();
            let near_centre = files + ranks - 2 - centre;
            score[me] += match p.kind {
                Kind::Pawn => {
                    let advanced = match p.color {
                        Color::White => r - 1,
                        Color::Black => ranks - 2 - r,
                    }
                    .max(0);
                    advanced * advanced * 3
                        + if (2 * f - (files - 1)).abs() <= 1 {
                            5
                        } else {
                            0
                        }
                }
                Kind::Knight => near_centre * 3 + self.reach(sq, p, &KNIGHT_STEPS, false) * 2,
                Kind::Bishop => near_centre + self.reach(sq, p, &DIAGONAL, true) * 3,
                Kind::Rook => self.reach(sq, p, &ORTHOGONAL, true) * 2,
                Kind::Queen => {
                    near_centre
                        + self.reach(sq, p, &DIAGONAL, true)
                        + self.reach(sq, p, &ORTHOGONAL, true)
                }
                Kind::Monarch => near_centre * 2,
                Kind::King => 0,
            };
        }
        for color in [Color::White, Color::Black] {
            let me = color.index();
            let them = color.opponent().index();
            let king = self.kings[me];
            if self.piece_at(king).map(|p| p.kind) != Some(Kind::King) {
                continue;
            }
            let (f, r) = (king.file() as i32, king.rank() as i32);
            let centre = (2 * f - (files - 1)).abs() + (2 * r - (ranks - 1)).abs();
            if pieces_material[them] > ENDGAME_MATERIAL {
                score[me] += self.shelter(king, color) * 12;
            } else {
                score[me] += (files + ranks - 2 - centre) * 3;
            }
            // Ahead: drive the enemy king to the edge and come close.
            if total[me] - total[them] >= CLEAR_LEAD {
                let theirs = self.kings[them];
                if self.piece_at(theirs).map(|p| p.kind) == Some(Kind::King) {
                    let (tf, tr) = (theirs.file() as i32, theirs.rank() as i32);
                    let edge = (2 * tf - (files - 1)).abs() + (2 * tr - (ranks - 1)).abs();
                    let apart = (tf - f).abs().max((tr - r).abs());
                    score[me] += edge * 8 + (files - apart) * 6;
                }
            }
        }
        let side = self.side.index();
        score[side] - score[1 - side]
    }

    /// Squares a piece reaches along `steps` (sliding or not): empty or
    /// holding an enemy.
    fn reach(&self, from: Square, p: Piece, steps: &[isize], slides: bool) -> i32 {
        let mine = p.code() & super::pieces::BLACK;
        let mut n = 0;
        for &d in steps {
            let mut at = from.index() as isize + d;
            loop {
                let code = self.cells[at as usize];
                if code == EMPTY {
                    n += 1;
                } else {
                    if is_enemy(code, mine) {
                        n += 1;
                    }
                    break;
                }
                if !slides {
                    break;
                }
                at += d;
            }
        }
        n
    }

    /// Own pawns on the three squares in front of the king.
    fn shelter(&self, king: Square, color: Color) -> i32 {
        let ahead = match color {
            Color::White => NORTH,
            Color::Black => -NORTH,
        };
        let front = king.index() as isize + ahead;
        (-1..=1)
            .filter(|&d| {
                let code = self.cells[(front + d) as usize];
                Piece::from_code(code) == Some(Piece::new(color, Kind::Pawn))
            })
            .count() as i32
    }

    /// The value of what a move takes, if anything.
    pub fn capture_value(&self, m: Move) -> Option<i32> {
        if m.special == Special::EnPassant {
            return Some(value::of_letter('P'));
        }
        let taken = self.piece_at(m.to)?;
        (taken.color != self.side).then(|| value::of_letter(taken.kind.letter()))
    }
}
