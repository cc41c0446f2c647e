//! Attacks: whether a square is attacked (with a square vacated, as a
//! moving king leaves one), and check.

use super::super::board::{
    Square, ALL_DIRECTIONS, DIAGONAL, EAST, KNIGHT_STEPS, NORTH, ORTHOGONAL,
};
use super::super::Color;
use super::hooks::Hooks;
use super::pieces::{color_bit, Kind, EMPTY, KNIGHT, MONARCH, OFF, PAWN, PIECE_MASK, QUEEN};
use super::state::State;

impl<H: Hooks> State<H> {
    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.attacked(self.kings[self.side.index()], self.side.opponent())
    }

    /// Whether `sq` is attacked by a piece of `by`.
    #[inline]
    pub fn attacked(&self, sq: Square, by: Color) -> bool {
        self.attacked_through(sq, by, None)
    }

    /// Whether `sq` is attacked by a piece of `by` if the square `vacated`
    /// were empty (where a moving king stood: sliders see through it).
    #[inline]
    pub(super) fn attacked_through(&self, sq: Square, by: Color, vacated: Option<Square>) -> bool {
        let c = &self.cells;
        // A cell no ray reaches when nothing is vacated.
        let vacated = vacated.map_or(usize::MAX, Square::index);
        let s = sq.index() as isize;
        let bit = color_bit(by);
        // Kind and colour; the tag is masked off only where a variant uses tags.
        let mask = if H::TAGS { PIECE_MASK | OFF } else { !0 };
        let at = |t: isize| c[t as usize] & mask;
        let back = match by {
            Color::White => -NORTH,
            Color::Black => NORTH,
        };
        let pawn = PAWN | bit;
        if at(s + back + EAST) == pawn || at(s + back - EAST) == pawn {
            return true;
        }
        let knight = KNIGHT | bit;
        if KNIGHT_STEPS.iter().any(|&d| at(s + d) == knight) {
            return true;
        }
        // King (6) and monarch (7) differ in bit 0 only: setting it finds
        // either with one comparison (chess has no monarch and pays nothing).
        let stepper = MONARCH | bit;
        if ALL_DIRECTIONS.iter().any(|&d| at(s + d) | 1 == stepper) {
            return true;
        }
        let queen = QUEEN | bit;
        slider_attacks(
            c,
            s,
            &ORTHOGONAL,
            Kind::Rook as u8 | bit,
            queen,
            mask,
            vacated,
        ) || slider_attacks(
            c,
            s,
            &DIAGONAL,
            Kind::Bishop as u8 | bit,
            queen,
            mask,
            vacated,
        )
    }
}

/// Whether a slider of kind `piece` or `queen` (codes with colour) attacks
/// square `s` along one of `directions` (the first occupied cell on each
/// ray decides, the cell `vacated` counting as empty; `mask` takes the tag
/// off its code).
#[inline]
fn slider_attacks(
    cells: &[u8],
    s: isize,
    directions: &[isize],
    piece: u8,
    queen: u8,
    mask: u8,
    vacated: usize,
) -> bool {
    directions.iter().any(|&d| {
        let mut t = s + d;
        loop {
            match cells[t as usize] {
                EMPTY => t += d,
                _ if t as usize == vacated => t += d,
                x => {
                    let x = x & mask;
                    return x == piece || x == queen;
                }
            }
        }
    })
}
