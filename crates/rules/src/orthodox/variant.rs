//! One orthodox-family game as data: geometry, start position, castling
//! table, notation rules and the [`Hooks`] where it differs from chess.

use std::fmt;

use super::super::board::{Geometry, Square, CELLS};
use super::super::{Color, Game};
use super::hooks::Hooks;
use super::pieces::{EMPTY, OFF};

/// One way to castle, as data: the king's and the partner's (the rook's)
/// moves, the squares that must be empty and the squares the king must not
/// cross or land on while attacked (the king must not be in check either).
#[derive(Clone, Debug)]
pub struct Castling {
    pub color: Color,
    /// Canonical notation (`O-O`, `O-O-O`, …).
    pub notation: &'static str,
    /// The letter in FEN's castling field for White (Black uses lower case).
    pub fen_char: char,
    pub king_from: Square,
    pub king_to: Square,
    pub rook_from: Square,
    pub rook_to: Square,
    /// Squares that must be empty (king and rook squares themselves excluded).
    pub must_be_empty: Vec<Square>,
    /// Squares from the king's start (exclusive) to its destination
    /// (inclusive) that must not be attacked.
    pub king_path: Vec<Square>,
    /// Whether the king, once castled, can be attacked only where its
    /// landing square was attacked before (so a plain make need not test
    /// the position after). The castling changes only its rank; a line
    /// along the rank to the king's landing square is closed on the side
    /// of its start by the rook landing between the two, and on the far
    /// side opened only if the rook left from there and not from the
    /// rank's end.
    pub sheltered: bool,
}

impl Castling {
    /// A castling on `color`'s back rank, squares given as files from 0.
    #[allow(clippy::too_many_arguments)]
    pub fn on_back_rank(
        geometry: Geometry,
        color: Color,
        notation: &'static str,
        fen_char: char,
        king: (u8, u8),
        rook: (u8, u8),
        empty: &[u8],
    ) -> Castling {
        let rank = match color {
            Color::White => 0,
            Color::Black => geometry.ranks() - 1,
        };
        let sq = |f: u8| {
            geometry
                .square(f, rank)
                .expect("castling square on the board")
        };
        let king_path = if king.1 > king.0 {
            (king.0 + 1..=king.1).map(sq).collect()
        } else {
            (king.1..king.0).rev().map(sq).collect()
        };
        let between = |x: u8, a: u8, b: u8| (a.min(b) < x && x < a.max(b)) || x == a;
        let rook_on_start_side = (rook.0 > king.1) == (king.0 > king.1);
        let rook_at_end = rook.0 == 0 || rook.0 == geometry.files() - 1;
        let sheltered = between(rook.1, king.0, king.1) && (rook_on_start_side || rook_at_end);
        Castling {
            color,
            notation,
            fen_char,
            king_from: sq(king.0),
            king_to: sq(king.1),
            rook_from: sq(rook.0),
            rook_to: sq(rook.1),
            must_be_empty: empty.iter().map(|&f| sq(f)).collect(),
            king_path,
            sheltered,
        }
    }

    /// The letter in FEN's castling field, in the owner's case.
    pub fn fen_letter(&self) -> char {
        self.color.cased(self.fen_char)
    }
}

/// Everything that makes one orthodox-family game: geometry, start, castling
/// table, notation rules and hooks.
pub struct Variant<H: Hooks> {
    pub game: &'static dyn Game,
    pub geometry: Geometry,
    pub start_fen: &'static str,
    /// Castlings; a position's rights are a bit set over this table. FEN
    /// writes them in this order.
    pub castlings: Vec<Castling>,
    /// Whether move input may write files and pieces in either case (chess).
    pub case_tolerant: bool,
    /// The sentence that tells a player which move forms are read.
    pub hint: &'static str,
    /// Where the game's rules differ from chess.
    pub hooks: H,
    pub(crate) empty_cells: [u8; CELLS],
    /// Castling rights lost when a cell is emptied or entered.
    pub(crate) rights_mask: [u16; CELLS],
    pub(crate) squares: Vec<Square>,
}

impl<H: Hooks> fmt::Debug for Variant<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.game.name())
    }
}

impl<H: Hooks> Variant<H> {
    /// A variant with these hooks (where its rules differ from chess).
    pub fn new(
        game: &'static dyn Game,
        geometry: Geometry,
        start_fen: &'static str,
        castlings: Vec<Castling>,
        case_tolerant: bool,
        hint: &'static str,
        hooks: H,
    ) -> Variant<H> {
        assert!(castlings.len() <= 16);
        let mut empty_cells = [OFF; CELLS];
        let squares: Vec<Square> = geometry.squares().collect();
        for sq in &squares {
            empty_cells[sq.index()] = EMPTY;
        }
        let mut rights_mask = [0u16; CELLS];
        for (i, c) in castlings.iter().enumerate() {
            rights_mask[c.king_from.index()] |= 1 << i;
            rights_mask[c.rook_from.index()] |= 1 << i;
        }
        Variant {
            game,
            geometry,
            start_fen,
            castlings,
            case_tolerant,
            hint,
            hooks,
            empty_cells,
            rights_mask,
            squares,
        }
    }

    /// The squares of the board, a1, b1, … rank by rank.
    pub fn squares(&self) -> &[Square] {
        &self.squares
    }

    /// Whether `c` in move input names a file (per the case rules).
    pub(crate) fn file_letter(&self, c: char) -> Option<u8> {
        if self.case_tolerant {
            self.geometry.file_of(c.to_ascii_lowercase())
        } else {
            self.geometry.file_of(c)
        }
    }

    /// The kind `c` in move input names (per the case rules and the
    /// variant's letter table).
    pub(crate) fn piece_letter(&self, c: char) -> Option<super::Kind> {
        if self.case_tolerant || c.is_ascii_uppercase() || self.geometry.file_of(c).is_none() {
            // Lower case and no file here: no conflict, read as a piece.
            self.hooks.kind_of_letter(c)
        } else {
            None
        }
    }
}
