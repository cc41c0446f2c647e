//! Two-dimensional board geometry for the orthodox family (8x8 chess,
//! 16x8 Double Chess).
//!
//! Squares live in one padded *mailbox* shared by every 2D geometry: rows of
//! [`WIDTH`] cells (one padding column each side of up to 16 files) and two
//! padding rows above and below up to 8 ranks. A knight's or king's step off
//! the board therefore always lands on a padding cell, so move generators walk
//! raw offsets and stop at the first off-board cell without any file
//! arithmetic. A board narrower than 16 files simply marks its unused columns
//! as off-board as well.
//!
//! A [`Square`] is only ever made by a [`Geometry`] that checked it, so a
//! `Square` handed out for a board is on that board. (3D geometry, for
//! Temporal Chess, is a separate type and does not live here.)

use std::fmt;

/// Mailbox row width: one padding column, 16 files, one padding column.
pub const WIDTH: usize = 18;
/// Mailbox rows: two padding rows, 8 ranks, two padding rows.
pub const ROWS: usize = 12;
/// Number of mailbox cells.
pub const CELLS: usize = WIDTH * ROWS;
/// The widest board this mailbox holds.
pub const MAX_FILES: u8 = 16;
/// The tallest board this mailbox holds.
pub const MAX_RANKS: u8 = 8;

/// Mailbox offset of one step towards the higher ranks (White's forward).
pub const NORTH: isize = WIDTH as isize;
/// Mailbox offset of one step towards the higher files.
pub const EAST: isize = 1;
/// The eight knight leaps as mailbox offsets.
pub const KNIGHT_STEPS: [isize; 8] = [
    2 * NORTH + EAST,
    2 * NORTH - EAST,
    -2 * NORTH + EAST,
    -2 * NORTH - EAST,
    NORTH + 2 * EAST,
    NORTH - 2 * EAST,
    -NORTH + 2 * EAST,
    -NORTH - 2 * EAST,
];
/// Rook directions.
pub const ORTHOGONAL: [isize; 4] = [NORTH, -NORTH, EAST, -EAST];
/// Bishop directions.
pub const DIAGONAL: [isize; 4] = [NORTH + EAST, NORTH - EAST, -NORTH + EAST, -NORTH - EAST];
/// King and queen directions.
pub const ALL_DIRECTIONS: [isize; 8] = [
    NORTH,
    -NORTH,
    EAST,
    -EAST,
    NORTH + EAST,
    NORTH - EAST,
    -NORTH + EAST,
    -NORTH - EAST,
];

/// One square of a 2D board, e.g. `e4`. Made only by [`Geometry::square`]
/// and friends, which check that it lies on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// File counted from 0 (`a` = 0).
    pub fn file(self) -> u8 {
        (self.0 as usize % WIDTH) as u8 - 1
    }

    /// Rank counted from 0 (rank `1` = 0).
    pub fn rank(self) -> u8 {
        (self.0 as usize / WIDTH) as u8 - 2
    }

    /// The mailbox cell of this square.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The square at a mailbox index already known to be on the board
    /// (move generators check the cell against the board first).
    pub(crate) fn from_index(index: usize) -> Square {
        debug_assert!(index < CELLS);
        Square(index as u8)
    }

    /// The file letter (`a`..`p`).
    pub fn file_char(self) -> char {
        file_char(self.file())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank() + 1)
    }
}

/// The letter of a file counted from 0.
pub fn file_char(file: u8) -> char {
    (b'a' + file) as char
}

/// The shape of a rectangular board: `files` × `ranks`, at most 16 × 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    files: u8,
    ranks: u8,
}

impl Geometry {
    /// Orthodox 8x8.
    pub const CHESS: Geometry = Geometry::new(8, 8);
    /// Double Chess 16x8.
    pub const DOUBLE: Geometry = Geometry::new(16, 8);

    /// A geometry; panics (at compile time for constants) beyond 16 × 8.
    pub const fn new(files: u8, ranks: u8) -> Geometry {
        assert!(files >= 1 && files <= MAX_FILES && ranks >= 2 && ranks <= MAX_RANKS);
        Geometry { files, ranks }
    }

    pub fn files(self) -> u8 {
        self.files
    }

    pub fn ranks(self) -> u8 {
        self.ranks
    }

    /// The square at (file, rank), both from 0, if it is on this board.
    pub fn square(self, file: u8, rank: u8) -> Option<Square> {
        (file < self.files && rank < self.ranks)
            .then(|| Square(((rank as usize + 2) * WIDTH + file as usize + 1) as u8))
    }

    /// Whether a mailbox cell is a square of this board.
    pub fn contains_index(self, index: usize) -> bool {
        if index >= CELLS {
            return false;
        }
        let col = index % WIDTH;
        let row = index / WIDTH;
        col >= 1 && col <= self.files as usize && row >= 2 && row < 2 + self.ranks as usize
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    pub fn step(self, sq: Square, df: i8, dr: i8) -> Option<Square> {
        let f = sq.file() as i16 + df as i16;
        let r = sq.rank() as i16 + dr as i16;
        if f < 0 || r < 0 {
            return None;
        }
        self.square(f as u8, r as u8)
    }

    /// Every square, a1, b1, … rank by rank.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        (0..self.ranks).flat_map(move |r| {
            (0..self.files).map(move |f| Square(((r as usize + 2) * WIDTH + f as usize + 1) as u8))
        })
    }

    /// The file counted from 0 named by a lower-case letter.
    pub fn file_of(self, c: char) -> Option<u8> {
        if c.is_ascii_lowercase() {
            let f = c as u8 - b'a';
            (f < self.files).then_some(f)
        } else {
            None
        }
    }

    /// The rank counted from 0 named by a digit.
    pub fn rank_of(self, c: char) -> Option<u8> {
        let r = c.to_digit(10)? as u8;
        (r >= 1 && r <= self.ranks).then(|| r - 1)
    }

    /// A square name such as `e4` (lower-case file, one digit).
    pub fn parse_square(self, text: &str) -> Option<Square> {
        let mut chars = text.chars();
        let f = self.file_of(chars.next()?)?;
        let r = self.rank_of(chars.next()?)?;
        if chars.next().is_some() {
            return None;
        }
        self.square(f, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip() {
        for g in [Geometry::CHESS, Geometry::DOUBLE] {
            let mut n = 0;
            for sq in g.squares() {
                n += 1;
                assert!(g.contains_index(sq.index()));
                assert_eq!(g.square(sq.file(), sq.rank()), Some(sq));
                assert_eq!(g.parse_square(&sq.to_string()), Some(sq));
            }
            assert_eq!(n, g.files() as usize * g.ranks() as usize);
            let on = (0..CELLS).filter(|&i| g.contains_index(i)).count();
            assert_eq!(on, n);
        }
        assert_eq!(Geometry::CHESS.square(8, 0), None);
        assert_eq!(Geometry::CHESS.parse_square("i1"), None);
        assert_eq!(
            Geometry::DOUBLE.parse_square("p8").map(|s| s.to_string()),
            Some("p8".into())
        );
    }

    #[test]
    fn knight_steps_never_wrap_onto_the_board() {
        let g = Geometry::DOUBLE;
        for sq in g.squares() {
            for d in KNIGHT_STEPS {
                let t = sq.index() as isize + d;
                assert!(t >= 0 && (t as usize) < CELLS);
                if g.contains_index(t as usize) {
                    let to = Square::from_index(t as usize);
                    let df = (to.file() as i16 - sq.file() as i16).abs();
                    let dr = (to.rank() as i16 - sq.rank() as i16).abs();
                    assert_eq!(df * dr, 2);
                }
            }
        }
    }
}
