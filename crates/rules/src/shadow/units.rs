//! Squares, kinds in the order Shadow Chess writes them, main-board units
//! (a piece or a chimera) and shadow stacks.

use super::super::board::{Geometry, Square};
use super::super::orthodox::Kind;
use super::super::Color;

/// A square of the 8x8 boards, `0..64`, a1 = 0, b1 = 1, …, h8 = 63.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sq(u8);

impl Sq {
    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Sq> {
        (0..64).map(Sq)
    }

    /// The square at (file, rank), both from 0, if on the board.
    pub fn at(file: i8, rank: i8) -> Option<Sq> {
        ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| Sq((rank * 8 + file) as u8))
    }

    pub fn file(self) -> i8 {
        (self.0 % 8) as i8
    }

    pub fn rank(self) -> i8 {
        (self.0 / 8) as i8
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    pub fn step(self, df: i8, dr: i8) -> Option<Sq> {
        Sq::at(self.file() + df, self.rank() + dr)
    }

    /// a1 is dark.
    pub fn is_dark(self) -> bool {
        (self.file() + self.rank()) % 2 == 0
    }

    /// A square name such as `e4`.
    pub fn parse(text: &str) -> Option<Sq> {
        let sq = Geometry::CHESS.parse_square(text)?;
        Sq::at(sq.file() as i8, sq.rank() as i8)
    }

    /// The 2D square of the shared geometry (for names and drawings).
    pub fn square(self) -> Square {
        Geometry::CHESS
            .square(self.file() as u8, self.rank() as u8)
            .expect("on the board")
    }
}

impl std::fmt::Display for Sq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.square().fmt(f)
    }
}

/// The kinds in Shadow Chess's writing order: K Q R B N P. A unit's
/// components, a stack's pieces and the queue of a taken chimera all
/// follow it.
pub const ORDER: [Kind; 6] = [
    Kind::King,
    Kind::Queen,
    Kind::Rook,
    Kind::Bishop,
    Kind::Knight,
    Kind::Pawn,
];

/// The index of a kind in [`ORDER`].
pub fn slot(kind: Kind) -> usize {
    match kind {
        Kind::King => 0,
        Kind::Queen => 1,
        Kind::Rook => 2,
        Kind::Bishop => 3,
        Kind::Knight => 4,
        Kind::Pawn => 5,
        Kind::Monarch => unreachable!("Shadow Chess has no monarch: no text or move names one"),
    }
}

/// Counts per kind, in [`ORDER`].
pub type Counts = [u8; 6];

/// What stands on a main-board square: one colour, one or more pieces. One
/// piece is a plain piece; several (duplicates allowed) a chimera.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub color: Color,
    pub parts: Counts,
}

impl Unit {
    /// A plain piece.
    pub fn piece(color: Color, kind: Kind) -> Unit {
        let mut parts = [0; 6];
        parts[slot(kind)] = 1;
        Unit { color, parts }
    }

    /// How many pieces it is made of.
    pub fn size(&self) -> u32 {
        self.parts.iter().map(|&n| n as u32).sum()
    }

    pub fn is_chimera(&self) -> bool {
        self.size() > 1
    }

    pub fn has(&self, kind: Kind) -> bool {
        self.parts[slot(kind)] > 0
    }

    /// The kinds it can move as (each once), in [`ORDER`].
    pub fn classes(&self) -> impl Iterator<Item = Kind> + '_ {
        ORDER.into_iter().filter(|&k| self.has(k))
    }

    /// Every piece it is made of, duplicates included, in [`ORDER`].
    pub fn components(&self) -> impl Iterator<Item = Kind> + '_ {
        ORDER
            .into_iter()
            .flat_map(|k| std::iter::repeat_n(k, self.parts[slot(k)] as usize))
    }

    /// The text of this unit: a letter, or `[RN]` for a chimera.
    pub fn text(&self) -> String {
        let letters: String = self
            .components()
            .map(|k| self.color.cased(k.letter()))
            .collect();
        if self.is_chimera() {
            format!("[{letters}]")
        } else {
            letters
        }
    }

    /// `knight` or `chimera of rook and knight`.
    pub fn describe(&self) -> String {
        if self.is_chimera() {
            let names: Vec<&str> = self.components().map(|k| k.name()).collect();
            format!("chimera ({})", names.join(", "))
        } else {
            self.components()
                .next()
                .map_or("", |k| k.name())
                .to_string()
        }
    }
}
